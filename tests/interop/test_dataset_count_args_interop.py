"""The ``tf.int64`` count arguments of ``tf.data`` transformations (``batch_size``,
``buffer_size``...) under TF 2.21's ``compat.v1`` and under ``adapters.v1``: TF's
conversion errors for a float or an int32 tensor, its ``InvalidArgumentError``s for
out-of-range sizes, and ``shuffle(UNKNOWN_CARDINALITY)`` (a buffer of the whole input)."""

from __future__ import annotations

import pytest

from tests.interop.twin import run_both

pytestmark = pytest.mark.interop

TRANSFORMS = {
    "batch_float": lambda tf, ds: ds.batch(2.0),
    "batch_int32_tensor": lambda tf, ds: ds.batch(tf.constant(2)),
    "batch_int64_tensor": lambda tf, ds: ds.batch(tf.constant(2, tf.int64)),
    "batch_string": lambda tf, ds: ds.batch("2"),
    "batch_zero": lambda tf, ds: ds.batch(0),
    "padded_batch_float": lambda tf, ds: ds.padded_batch(3.0),
    "shuffle_zero": lambda tf, ds: ds.shuffle(0),
    "shuffle_negative": lambda tf, ds: ds.shuffle(-1),
    "shuffle_float": lambda tf, ds: ds.shuffle(4.5),
    "shuffle_unknown_cardinality": lambda tf, ds: ds.shuffle(
        tf.data.experimental.UNKNOWN_CARDINALITY, seed=3
    ).repeat(2),
    "prefetch_zero": lambda tf, ds: ds.prefetch(0),
    "prefetch_autotune": lambda tf, ds: ds.prefetch(tf.data.experimental.AUTOTUNE),
    "prefetch_below_autotune": lambda tf, ds: ds.prefetch(-2),
    "window_float": lambda tf, ds: ds.window(2.0).flat_map(lambda w: w.batch(2)),
}


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_count_arguments_as_tf(name):
    """The elements, or TF's error class and message (raised building the graph or at
    the first run: compared wherever it comes)."""

    def script(tf):
        tf.set_random_seed(4)
        try:
            ds = TRANSFORMS[name](tf, tf.data.Dataset.range(12))
            element = tf.data.make_one_shot_iterator(ds).get_next()
        except (TypeError, ValueError, tf.errors.OpError) as e:
            error = (type(e).__name__, str(e))
            return lambda sess: error

        def run(sess):
            out = []
            while True:
                try:
                    out.append(sess.run(element).tolist())
                except tf.errors.OutOfRangeError:
                    return out
                except tf.errors.OpError as e:
                    lines = [
                        line for line in e.message.split("\n")
                        if line and not line.startswith(("Graph execution", "Detected", "Node:",
                                                         " ", "\t"))
                    ]  # fmt: skip
                    return type(e).__name__, lines

        return run

    theirs, ours = run_both(script)
    if isinstance(theirs, tuple) and isinstance(ours, tuple):
        assert ours[0] == theirs[0]
        assert "".join(ours[1]) == "".join(theirs[1])
    else:
        assert ours == theirs
