"""``tf.data.FixedLengthRecordDataset`` (``adapters/v1/data/readers.py``); TF 2.21's
behaviour for the same files is checked live in ``tests/interop/test_protos_io_interop.py``."""

from __future__ import annotations

import gzip

import pytest

from adapters import v1 as tf


def _all(ds) -> list:
    nxt = tf.data.make_one_shot_iterator(ds).get_next()
    out = []
    with tf.Session() as sess:
        while True:
            try:
                out.append(sess.run(nxt))
            except tf.errors.OutOfRangeError:
                return out


def test_records_after_header_before_footer(graph, tmp_path):
    (tmp_path / "a.bin").write_bytes(bytes(range(23)))
    ds = tf.data.FixedLengthRecordDataset(
        str(tmp_path / "a.bin"), record_bytes=6, header_bytes=2, footer_bytes=3
    )
    assert tf.data.get_output_shapes(ds).as_list() == []
    assert _all(ds) == [bytes(range(2, 8)), bytes(range(8, 14)), bytes(range(14, 20))]


def test_gzip_records(graph, tmp_path):
    (tmp_path / "a.gz").write_bytes(gzip.compress(bytes(range(10))))
    ds = tf.data.FixedLengthRecordDataset(
        [str(tmp_path / "a.gz")] * 2, record_bytes=5, compression_type="GZIP"
    )
    assert _all(ds) == [bytes(range(5)), bytes(range(5, 10))] * 2


def test_body_not_whole_records_is_tfs_error(graph, tmp_path):
    (tmp_path / "a.bin").write_bytes(bytes(range(23)))
    ds = tf.data.FixedLengthRecordDataset(str(tmp_path / "a.bin"), record_bytes=5)
    with pytest.raises(tf.errors.InvalidArgumentError, match="has body length 23 bytes"):
        _all(ds)


def test_record_bytes_must_be_positive(graph, tmp_path):
    ds = tf.data.FixedLengthRecordDataset(str(tmp_path / "a.bin"), record_bytes=0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="`record_bytes` must be > 0"):
        _all(ds)


def test_num_parallel_reads_interleaves_files_record_by_record(graph, tmp_path):
    """TF's order for ``num_parallel_reads=2`` (checked live in the interop tests)."""
    for i, n in enumerate([3, 1, 2]):
        (tmp_path / f"f{i}").write_bytes(b"".join(f"{i}{j}".encode() for j in range(n)))
    paths = [str(tmp_path / f"f{i}") for i in range(3)]
    ds = tf.data.FixedLengthRecordDataset(paths, 2, num_parallel_reads=2)
    assert _all(ds) == [b"00", b"10", b"01", b"02", b"20", b"21"]


def test_constant_file_names(graph, tmp_path):
    (tmp_path / "a").write_bytes(b"abcd")
    ds = tf.data.FixedLengthRecordDataset(tf.constant([str(tmp_path / "a")]), 2)
    assert _all(ds) == [b"ab", b"cd"]
