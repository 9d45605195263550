"""A reinitializable iterator (``Iterator.from_structure``) given a dataset of another
structure, types or shapes under TF 2.21's ``compat.v1`` and under ``adapters.v1``:
TF's error classes and messages from ``make_initializer``."""

from __future__ import annotations

import pytest

from tests.interop.twin import run_both

pytestmark = pytest.mark.interop

# the iterator expects batches of (int64, float32)
DATASETS = {
    "same": lambda tf, ds: ds.map(lambda i: (i, tf.cast(i, tf.float32))).batch(2),
    "types_swapped": lambda tf, ds: ds.map(lambda i: (tf.cast(i, tf.float32), i)).batch(2),
    "dict": lambda tf, ds: ds.map(lambda i: {"a": i, "b": tf.cast(i, tf.float32)}).batch(2),
    "one_component": lambda tf, ds: ds,
    "three_components": lambda tf, ds: ds.map(lambda i: (i, tf.cast(i, tf.float32), i)),
    "unbatched": lambda tf, ds: ds.map(lambda i: (i, tf.cast(i, tf.float32))),
}


@pytest.mark.parametrize("name", sorted(DATASETS))
def test_make_initializer_checks_as_tf(name):
    def script(tf):
        expected = (tf.int64, tf.float32)
        shapes = (tf.TensorShape([None]), tf.TensorShape([None]))
        iterator = tf.data.Iterator.from_structure(expected, shapes)
        try:
            iterator.make_initializer(DATASETS[name](tf, tf.data.Dataset.range(5)))
        except (TypeError, ValueError) as e:
            error = (type(e).__name__, str(e))
            return lambda sess: error
        return lambda sess: "built"

    theirs, ours = run_both(script)
    assert ours == theirs
