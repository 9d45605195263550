"""``tf.Print`` and ``tf.print`` text checked live against TF 2.21: how each dtype's
elements are written (TF's ``FloatToBuffer``: the shorter of ``%.6g``/``%.9g`` that
reads back for float32, ``%.15g``/``%.17g`` for float64; jtrain printed float32
``0.1`` as ``0.100000001``)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from tests.interop.twin import run_both

pytestmark = pytest.mark.interop

VALUES = {
    "float32": np.float32(
        [0.1, 1 / 3, 123456789.0, 1.5, np.nan, -np.inf, -0.0, 1e-7, 16777217, 3.4028235e38, 0.3]
    ),
    "float64": np.float64([0.1, 1 / 3, 123456789.0, 1e-300, 0.1 + 0.2, -0.0]),
    "float16": np.float16([0.1, 1 / 3, 65504, 0.5]),
    "int64": np.int64([2**62 + 1, -3]),
    "bool": np.bool_([True, False]),
}


def test_printed_elements_as_tf(capfd):
    def script(tf):
        tensors = [tf.constant(v) for v in VALUES.values()]
        v1 = tf.Print(tensors[0], tensors, summarize=20, message="v1 ")
        v2 = tf.print(*tensors, summarize=20, output_stream=sys.stdout)

        def run(sess):
            capfd.readouterr()
            sess.run(v1)
            sess.run(v2)
            out, err = capfd.readouterr()
            lines = [line for line in (err + out).splitlines() if line.startswith(("v1 ", "["))]
            return sorted(line.split("] v1 ")[-1] for line in lines)

        return run

    theirs, ours = run_both(script)
    assert len(theirs) == 2
    assert ours == theirs


STRINGS = ['q"uote', "back\\slash", "tab\there", "nl\nx", "\u00e9", "'single'", "bell\x07"]


def test_strings_printed_escaped_as_tf(capfd):
    """String elements as TF's ``Utf8SafeCEscape`` writes them, in ``tf.Print`` and in
    ``tf.Assert``'s message, Python strings and string constants alike (jtrain wrote
    them raw; an ``Assert`` of a string constant failed to build its step)."""

    def script(tf):
        flag = tf.placeholder(tf.bool, [])
        words = tf.constant(STRINGS)
        check = tf.Assert(flag, [*STRINGS, b"raw\x01", words], summarize=4)
        printed = tf.Print(tf.constant(1.0), [words], message="v1 ", summarize=10)

        def run(sess):
            try:
                sess.run(check, {flag: False})
                message = None
            except tf.errors.InvalidArgumentError as e:
                message = str(e).split("assertion failed: ")[1].splitlines()[0]
            capfd.readouterr()
            sess.run(printed)
            out, err = capfd.readouterr()
            lines = [line for line in (err + out).splitlines() if "v1 " in line]
            return message, lines[0].split("v1 ")[-1]

        return run

    theirs, ours = run_both(script)
    assert ours == theirs
    assert '[q\\"uote]' in ours[0] and "[bell\\007]" in ours[0]
