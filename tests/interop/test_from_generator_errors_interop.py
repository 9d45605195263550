"""A ``Dataset.from_generator`` whose generator raises, under TF 2.21's ``compat.v1``
and under ``adapters.v1``: the elements before, TF's ``py_func`` error class and message
at that ``get_next``, then the end of the data (TF's generator is done)."""

from __future__ import annotations

import pytest

from tests.interop.twin import run_both

pytestmark = pytest.mark.interop


def _raising(error):
    def gen():
        yield 1
        yield 2
        raise error

    return gen


GENERATORS = {
    "key_error": _raising(KeyError("boom")),
    "value_error": _raising(ValueError("bad value")),
    "not_implemented": _raising(NotImplementedError("later")),
    "runtime_error": _raising(RuntimeError("odd")),
}
PIPELINES = {
    "plain": lambda ds: ds,
    "batch": lambda ds: ds.batch(2),
    "repeat": lambda ds: ds.repeat(2),
}


def _first_line(e) -> str:
    skip = ("Graph execution error:", "Detected at node", "Node:", " ", "\t")
    return next(line for line in e.message.split("\n") if line and not line.startswith(skip))


@pytest.mark.parametrize("pipeline", sorted(PIPELINES))
@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_generator_error_then_the_end(name, pipeline):
    def script(tf):
        ds = tf.data.Dataset.from_generator(GENERATORS[name], tf.int64, [])
        element = tf.data.make_one_shot_iterator(PIPELINES[pipeline](ds)).get_next()

        def run(sess):
            out = []
            for _ in range(8):
                try:
                    out.append(sess.run(element).tolist())
                except tf.errors.OutOfRangeError:
                    return out
                except tf.errors.OpError as e:
                    out.append((type(e).__name__, _first_line(e)))
            raise AssertionError("no OutOfRangeError")

        return run

    theirs, ours = run_both(script)
    assert ours == theirs
