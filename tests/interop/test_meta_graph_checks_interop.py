"""Run-time checks survive a meta graph's export and import, checked live against TF
2.21: each side exports its own graph (``tf.train.export_meta_graph``), imports it into
a new graph and runs it by name. A gather fed an index out of range, ``check_numerics``
fed a NaN's source, ``tf.debugging.assert_*`` and a check inside a ``tf.while_loop``
raise TF's ``InvalidArgumentError`` (naming the node) where the same feeds of valid
values give TF's values.

Before, an imported jtrain graph ran without its checks: the gather returned zeros and
``check_numerics`` let the NaN through.
"""

from __future__ import annotations

import contextlib
import os

import numpy as np
import pytest

from adapters import v1 as jtf
from tests.interop.twin import classic_tf1, tf1

pytestmark = pytest.mark.interop


def _build(tf):
    x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    i = tf.placeholder(tf.int32, [None], name="i")
    tf.gather(x, i, name="gathered")
    p = tf.placeholder(tf.float32, [2], name="p")
    tf.debugging.check_numerics(tf.log(p), "log of p", name="checked")
    with tf.control_dependencies([tf.debugging.assert_positive(p, name="positive")]):
        tf.identity(p * 2.0, name="asserted")
    n = tf.placeholder(tf.int32, [], name="n")
    tf.while_loop(
        lambda k, acc: k < n,
        lambda k, acc: (k + 1, acc + tf.gather(x[0], k)),
        (tf.constant(0), tf.constant(0.0)),
        name="loop",
    )


# fetch -> (good feeds, bad feeds)
RUNS = {
    "gathered:0": ({"i:0": [1, 0]}, {"i:0": [5]}),
    "checked:0": ({"p:0": [1.0, 2.0]}, {"p:0": [-1.0, 1.0]}),
    "asserted:0": ({"p:0": [1.0, 2.0]}, {"p:0": [-1.0, 1.0]}),
    "loop/Exit_1:0": ({"n:0": 3}, {"n:0": 4}),
}


def _reimported(tf, directory, fetch):
    with classic_tf1() if tf is tf1 else contextlib.nullcontext():
        path = os.path.join(directory, "model.meta")
        with tf.Graph().as_default():
            _build(tf)
            tf.train.export_meta_graph(path)
        with tf.Graph().as_default():
            tf.train.import_meta_graph(path)
            with tf.Session() as sess:
                good, bad = RUNS[fetch]
                value = sess.run(fetch, good)
                try:
                    sess.run(fetch, bad)
                    error = None
                except tf.errors.OpError as e:
                    error = type(e).__name__
                return value, error


@pytest.mark.parametrize("fetch", list(RUNS))
def test_checks_run_in_an_imported_graph(fetch, tmp_path):
    theirs = _reimported(tf1, str(tmp_path / "tf"), fetch)
    ours = _reimported(jtf, str(tmp_path / "jtrain"), fetch)
    assert theirs[1] == "InvalidArgumentError"
    assert ours[1] == theirs[1]
    np.testing.assert_array_equal(ours[0], theirs[0])
