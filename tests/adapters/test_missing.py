"""A TF name the compat layer lacks raises an AttributeError naming it and what to use."""

import pytest

from adapters import v1 as tf


@pytest.mark.parametrize(
    "module, name, says",
    [
        (tf, "estimator", "tf.estimator is not in adapters.v1; drive training with"),
        (tf, "contrib", "tf.contrib is not in adapters.v1; tf.contrib was removed"),
        (tf.keras, "datasets", "tf.keras.datasets is not in adapters.v1"),
        (tf.data.experimental, "rejection_resample", "tf.data.experimental.rejection_resample "
         "is not in adapters.v1; TF's seeded draws"),
        (tf.data.experimental, "dense_to_sparse_batch", "tf.data elements are dense tensors"),
        (tf, "Sesion", "(names that exist: tf.Session, "),
        (tf, "erf_inv_x", "tf.erf_inv_x is not in adapters.v1; if it is an op, write it in "
         "jax.numpy inside tf.jax_function"),
        (tf.train, "AdamOptimiser", "names that exist: tf.train.AdamOptimizer"),
        (tf.train, "replica_device_setter_x", "tf.train.replica_device_setter_x is not in"),
        (tf.summary, "no_such_summary", "tf.summary.no_such_summary is not in adapters.v1"),
        (tf.nn, "dropuot", "tf.nn.dropuot is not in adapters.v1"),
        (tf.math, "erfcinv_x", "tf.math.erfcinv_x is not in adapters.v1"),
        (tf.linalg, "no_such_op", "tf.linalg.no_such_op is not in adapters.v1"),
        (tf.losses, "no_such_loss", "tf.losses.no_such_loss is not in adapters.v1"),
        (tf.io, "no_such_io", "tf.io.no_such_io is not in adapters.v1"),
        (tf.python_io, "TFRecordWritter", "names that exist: tf.python_io.TFRecordWriter"),
        (tf.gfile, "Exist", "names that exist: tf.gfile.Exists"),
        (tf.app, "no_such_app", "tf.app.no_such_app is not in adapters.v1"),
        (tf.flags, "no_such_flag_fn", "tf.flags.no_such_flag_fn is not in adapters.v1"),
        (tf.logging, "no_such_log", "tf.logging.no_such_log is not in adapters.v1"),
    ],
)  # fmt: skip
def test_missing_name_says_what_to_use(module, name, says):
    with pytest.raises(AttributeError) as info:
        getattr(module, name)
    assert says in str(info.value)
    assert not hasattr(module, name)


def test_existing_names_and_python_probes_are_unaffected():
    assert tf.Session is tf.client.session.Session
    assert tf.summary.Summary.__name__ == "Summary"  # the module's lazy protos still load
    with pytest.raises(AttributeError, match="has no attribute '__wrapped__'"):
        tf.__wrapped__  # noqa: B018
    with pytest.raises(ImportError):
        from adapters.v1 import no_such_module  # noqa: F401
