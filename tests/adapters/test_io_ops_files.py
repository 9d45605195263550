"""``tf.io.write_file`` and ``tf.io.matching_files`` (``adapters/v1/ops/io_ops.py``);
TF's behaviour is checked live in ``tests/interop/test_protos_io_interop.py``."""

from __future__ import annotations

import pytest

from adapters import v1 as tf


def test_write_file_creates_parents_and_leaves_no_temporary(graph, tmp_path):
    target = tmp_path / "a" / "b" / "out.bin"
    op = tf.write_file(str(target), b"abc")
    assert isinstance(op, tf.Operation) and op.type == "WriteFile"
    with tf.Session() as sess:
        assert sess.run(op) is None
        sess.run(tf.io.write_file(str(target), b"new"))
    assert target.read_bytes() == b"new"
    assert [p.name for p in target.parent.iterdir()] == ["out.bin"]


def test_write_file_scalar_errors(graph, tmp_path):
    p = tf.placeholder(tf.string)
    op = tf.write_file(p, b"x")
    with (
        tf.Session() as sess,
        pytest.raises(
            tf.errors.InvalidArgumentError, match=r"Input filename tensor must be scalar"
        ),
    ):
        sess.run(op, {p: [str(tmp_path / "x")]})


def test_matching_files_sorted_with_hidden_files(graph, tmp_path):
    for name in ("b.txt", "a.txt", ".h.txt", "c.dat"):
        (tmp_path / name).write_bytes(b"")
    out = tf.matching_files([f"{tmp_path}/*.txt", f"{tmp_path}/a*"])
    assert out.shape.as_list() == [None]
    with tf.Session() as sess:
        got = [v.decode().rsplit("/", 1)[1] for v in sess.run(out)]
    assert got == [".h.txt", "a.txt", "a.txt", "b.txt"]
