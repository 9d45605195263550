"""A feedable iterator (``tf.data.Iterator.from_string_handle``) fed the handles of
other iterators, under TF 2.21's ``compat.v1`` and under ``adapters.v1``: TF compares
the components flat (another nesting of the same types and shapes reads, repacked in
the feedable iterator's structure), else TF's ``InvalidArgumentError`` and message."""

from __future__ import annotations

import pytest

from tests.interop.twin import run_both

pytestmark = pytest.mark.interop

# the feedable iterator expects (int64 [?], float32 [?])
SOURCES = {
    "same": lambda tf, ds: ds.map(lambda i: (i, tf.cast(i, tf.float32))).batch(2),
    "dict": lambda tf, ds: ds.map(lambda i: {"a": i, "b": tf.cast(i, tf.float32)}).batch(2),
    "nested": lambda tf, ds: ds.map(lambda i: ((i,), tf.cast(i, tf.float32))).batch(2),
    "types_swapped": lambda tf, ds: ds.map(lambda i: (tf.cast(i, tf.float32), i)).batch(2),
    "float64": lambda tf, ds: ds.map(lambda i: (i, tf.cast(i, tf.float64))).batch(2),
    "rank": lambda tf, ds: ds.map(lambda i: (i, tf.cast(i, tf.float32))),
    "shape": lambda tf, ds: ds.map(lambda i: (tf.fill([2], i), tf.fill([3], 1.0))).batch(2),
    "three": lambda tf, ds: ds.map(lambda i: (i, tf.cast(i, tf.float32), i)).batch(2),
    "one": lambda tf, ds: ds.batch(2),
}


def _message(e) -> str:
    """The kernel's message: TF's lines without its graph-execution decoration."""
    lines = e.message.split("\n")
    skip = ("Graph execution error:", "Detected at node", "Node:", " ", "\t")
    return "\n".join(line for line in lines if line and not line.startswith(skip))


def _feed(handles):
    def script(tf):
        handle = tf.placeholder(tf.string, [])
        expected = (tf.int64, tf.float32)
        shapes = (tf.TensorShape([None]), tf.TensorShape([None]))
        element = tf.data.Iterator.from_string_handle(handle, expected, shapes).get_next()
        iterators = {
            name: tf.data.make_one_shot_iterator(build(tf, tf.data.Dataset.range(3, 8)))
            for name, build in SOURCES.items()
        }

        def run(sess):
            values = {name: sess.run(it.string_handle()) for name, it in iterators.items()}
            values.update(handles)
            out = {}
            for name, value in values.items():
                try:
                    out[name] = [v.tolist() for v in sess.run(element, {handle: value})]
                except tf.errors.InvalidArgumentError as e:
                    out[name] = _message(e)
            return out

        return run

    return script


def test_feedable_iterator_checks_components_as_tf():
    theirs, ours = run_both(_feed({"garbage": b"not a handle", "empty": b""}))
    assert ours == theirs
    assert theirs["dict"] == theirs["nested"] == theirs["same"] == [[3, 4], [3.0, 4.0]]
    assert theirs["types_swapped"].startswith("Data type mismatch at component 0")
