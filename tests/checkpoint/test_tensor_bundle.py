"""The TF V2 tensor bundle: reading TF's files, writing byte-identical ones, checksums."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import tracemalloc

import _ckpt_golden as _golden
import google_crc32c
import ml_dtypes
import numpy as np
import pytest

from jtrain import _crc32c, errors
from jtrain.checkpoint import _table
from jtrain.checkpoint import tensor_bundle as tb
from jtrain.protos import tensor_bundle_pb2
from tests._helpers import assert_same_bits

EXPECTED = _golden.expected()
DTYPES = EXPECTED["dtypes/model.ckpt"]


@pytest.fixture(scope="module")
def tf_dtypes_reader():
    return tb.BundleReader(os.path.join(_golden.GOLDEN, "dtypes", "model.ckpt"))


@pytest.mark.parametrize("name", sorted(DTYPES))
def test_reads_every_tensor_tf_wrote(tf_dtypes_reader, name):
    want = _golden.decode(DTYPES[name])
    got = tf_dtypes_reader.get_tensor(name)
    assert_same_bits(got, want)
    assert tf_dtypes_reader.shape(name) == want.shape
    assert tf_dtypes_reader.dtype(name) == want.dtype


def test_variable_names_exclude_slices(tf_dtypes_reader):
    assert tf_dtypes_reader.names() == sorted(DTYPES)
    assert tf_dtypes_reader.has_tensor("part/var")
    assert tf_dtypes_reader.entry("part/var").slices


def _write_like_tf(prefix: str) -> None:
    """Writes the golden tensors with jtrain, in SaveV2's order and slicing."""
    with tb.BundleWriter(prefix) as w:
        for name, spec in EXPECTED["dtypes/save_order"]:
            value = _golden.decode(DTYPES[name])
            if not spec:
                w.add(name, value)
                continue
            *full, extents = spec.split(" ")
            full_shape = [int(d) for d in full]
            ext = []
            for part in extents.split(":"):
                if part == "-":
                    ext.append((0, -1))
                else:
                    start, length = (int(v) for v in part.split(","))
                    ext.append((start, length))
            index = tuple(slice(None) if ln == -1 else slice(st, st + ln) for st, ln in ext)
            w.add_slice(name, full_shape, ext, value[index])


@pytest.mark.parametrize("suffix", [".index", ".data-00000-of-00001"])
def test_writes_the_same_bytes_as_tf(tmp_path, suffix):
    prefix = str(tmp_path / "model.ckpt")
    _write_like_tf(prefix)
    with open(prefix + suffix, "rb") as f:
        mine = f.read()
    with open(os.path.join(_golden.GOLDEN, "dtypes", "model.ckpt" + suffix), "rb") as f:
        tf_bytes = f.read()
    assert mine == tf_bytes


ROUNDTRIP = {
    "f32": np.arange(12, dtype=np.float32).reshape(3, 4),
    "bf16": np.linspace(-2, 2, 7).astype(ml_dtypes.bfloat16),
    "f8e4m3": np.linspace(-2, 2, 5).astype(ml_dtypes.float8_e4m3fn),
    "f8e5m2": np.linspace(-2, 2, 5).astype(ml_dtypes.float8_e5m2),
    "half_scalar": np.float16(1.5),
    "bool": np.array([True, False, True]),
    "c128": np.array([[1 + 2j, -3j]], np.complex128),
    "u64": np.array([2**64 - 1, 0], np.uint64),
    "empty": np.zeros((0, 5, 2), np.int16),
    "str_scalar": "héllo",
    "bytes_vec": np.array([b"", b"\x00\xff", "日本".encode()], dtype=object),
    "unicode_arr": np.array(["a", "", "ü"]),
    "noncontig": np.arange(20, dtype=np.int32).reshape(4, 5)[:, ::2],
    "big_endian": np.arange(4, dtype=">i4"),
}


def test_roundtrip_jtrain_only_dtypes(tmp_path):
    prefix = str(tmp_path / "ckpt")
    tb.write_tf_checkpoint(prefix, ROUNDTRIP)
    r = tb.BundleReader(prefix)
    for name, value in ROUNDTRIP.items():
        got = r.get_tensor(name)
        if isinstance(value, str):
            assert got.shape == () and got[()] == value.encode()
        elif np.asarray(value).dtype.kind == "U":
            assert got.tolist() == [v.encode() for v in value.tolist()]
        else:
            want = np.asarray(value)
            assert got.shape == want.shape
            np.testing.assert_array_equal(got, want)
            assert got.dtype == want.dtype.newbyteorder("=")


def test_no_temporary_files_left(tmp_path):
    tb.write_tf_checkpoint(str(tmp_path / "m"), {"a": np.ones(3)})
    assert sorted(os.listdir(tmp_path)) == ["m.data-00000-of-00001", "m.index"]


def test_abort_leaves_nothing(tmp_path):
    with pytest.raises(RuntimeError), tb.BundleWriter(str(tmp_path / "m")) as w:
        w.add("a", np.ones(3))
        raise RuntimeError("boom")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize(
    "tensors, match",
    [
        ({"": np.ones(1)}, "empty name"),
        ({"a": np.array([object()], dtype=object)}, "'a'"),
        ({"a": np.ones(2, np.dtype([("x", "i4")]))}, "cannot be stored"),
    ],
)
def test_bad_tensors_are_invalid_arguments(tmp_path, tensors, match):
    with pytest.raises(errors.InvalidArgumentError, match=match):
        tb.write_tf_checkpoint(str(tmp_path / "m"), tensors)


def test_crc_mismatch_names_file_and_tensor(tmp_path):
    prefix = str(tmp_path / "m")
    tb.write_tf_checkpoint(prefix, {"first": np.zeros(4, np.float32), "second": np.ones(4)})
    data = prefix + ".data-00000-of-00001"
    with open(data, "r+b") as f:
        f.seek(16 + 3)  # inside "second" (written after the 16 bytes of "first")
        f.write(b"\x01")
    r = tb.BundleReader(prefix)
    np.testing.assert_array_equal(r.get_tensor("first"), np.zeros(4, np.float32))
    with pytest.raises(errors.DataLossError) as e:
        r.get_tensor("second")
    assert "'second'" in str(e.value) and data in str(e.value)


def test_string_crc_mismatch(tmp_path):
    prefix = str(tmp_path / "m")
    tb.write_tf_checkpoint(prefix, {"s": np.array([b"abc", b"de"], dtype=object)})
    data = prefix + ".data-00000-of-00001"
    raw = bytearray(open(data, "rb").read())
    raw[-1] ^= 0x20
    open(data, "wb").write(bytes(raw))
    with pytest.raises(errors.DataLossError, match="'s'"):
        tb.BundleReader(prefix).get_tensor("s")


def test_partitioned_slices_roundtrip(tmp_path):
    full = np.arange(42, dtype=np.float64).reshape(6, 7)
    prefix = str(tmp_path / "m")
    with tb.BundleWriter(prefix) as w:
        w.add_slice("p", [6, 7], [(0, 2), (0, -1)], full[0:2])
        w.add_slice("p", [6, 7], [(2, 4), (0, 3)], full[2:6, 0:3])
        w.add_slice("p", [6, 7], [(2, 4), (3, 4)], full[2:6, 3:7])
    r = tb.BundleReader(prefix)
    assert r.names() == ["p"]
    np.testing.assert_array_equal(r.get_tensor("p"), full)


def test_partitioned_with_a_missing_slice_is_data_loss(tmp_path):
    prefix = str(tmp_path / "m")
    with tb.BundleWriter(prefix) as w:
        w.add_slice("p", [4], [(0, 2)], np.ones(2))
        w.add("q", np.zeros(8))  # the data file could hold all of "p"
    with pytest.raises(errors.DataLossError, match="do not cover"):
        tb.BundleReader(prefix).get_tensor("p")


def test_large_tensor_read_without_a_second_copy(tmp_path):
    big = np.random.default_rng(0).standard_normal(4 << 20).astype(np.float32)  # 16 MB
    prefix = str(tmp_path / "m")
    tb.write_tf_checkpoint(prefix, {"big": big})
    r = tb.BundleReader(prefix)
    tracemalloc.start()
    try:
        got = r.get_tensor("big")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < big.nbytes * 1.1
    assert got.flags.owndata and got.flags.writeable
    np.testing.assert_array_equal(got, big)
    # The chunked, pipelined checksum is the CRC32C of the whole tensor.
    assert r.entry("big").crc32c == _crc32c.mask(google_crc32c.value(big.tobytes()))


@pytest.mark.parametrize(
    "name, extents, key_hex",
    [
        # checkpoint::EncodeTensorNameSlice, checked against the keys in TF's index.
        ("part/var", [(0, 2), (0, -1)], None),
        ("part/var", [(2, 3), (0, -1)], None),
    ],
)
def test_slice_keys_match_tf_index(tf_dtypes_reader, name, extents, key_hex):
    del key_hex
    assert tb.encode_tensor_name_slice(name, extents) in tf_dtypes_reader._raw


def test_signed_ordered_code_lengths():
    # OrderedCode::WriteSignedNumIncreasing: n bytes cover [-2^(7n-1), 2^(7n-1)).
    for n in range(1, 10):
        lo, hi = -(2 ** (7 * n - 1)), 2 ** (7 * n - 1) - 1
        assert len(tb._signed_num_increasing(lo)) == n
        assert len(tb._signed_num_increasing(hi)) == n
    encoded = [tb._signed_num_increasing(v) for v in range(-70000, 70000, 997)]
    assert encoded == sorted(encoded)


def test_get_tensors_reads_in_parallel_with_typed_errors(tmp_path):
    prefix = str(tmp_path / "m")
    tensors = {f"t{i}": np.full((100, 10), i, np.float32) for i in range(9)}
    tensors["s"] = np.array([b"a", b""], dtype=object)
    tb.write_tf_checkpoint(prefix, tensors)
    r = tb.BundleReader(prefix)
    got = r.get_tensors()
    assert sorted(got) == sorted(tensors)
    for name, value in tensors.items():
        assert_same_bits(got[name], value)
    with pytest.raises(errors.NotFoundError, match="t10"):
        r.get_tensors(["t1", "t10"])
    data = prefix + ".data-00000-of-00001"
    with open(data, "r+b") as f:
        f.seek(4000 * 5 + 7)  # inside t5
        f.write(b"\xee")
    with pytest.raises(errors.DataLossError, match="'t5'"):
        tb.BundleReader(prefix).get_tensors()


def test_get_tensors_reads_large_tensors_in_pieces(tmp_path, monkeypatch):
    """Tensors larger than a read piece are read by several threads, piece by piece,
    into the returned arrays (no second copy), their checksums verified whole; a
    corrupt byte in any piece is the DataLossError of that tensor, the first of the
    caller's order when several are corrupt."""
    piece = 64 * 1024
    monkeypatch.setattr(tb, "_READ_PIECE", piece)
    rng = np.random.default_rng(1)
    tensors = {
        "a": rng.standard_normal((500, 500)).astype(np.float32),  # 1 MB: 16 pieces
        "b": rng.integers(-(2**40), 2**40, 140000, dtype=np.int64),  # 17.1 pieces
        "c": np.float16(1.5),  # 2 B: one piece
        "e": np.zeros((0, 3), np.float32),  # empty
        "s": np.array([b"x" * 5000, b""], dtype=object),
    }
    prefix = str(tmp_path / "m")
    tb.write_tf_checkpoint(prefix, tensors)
    r = tb.BundleReader(prefix)
    tracemalloc.start()
    try:
        got = r.get_tensors(["b", "a", "c", "e", "s"])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert list(got) == ["b", "a", "c", "e", "s"]
    # 64-byte aligned, so a CPU device takes them without a copy (jax.device_put).
    assert all(got[name].ctypes.data % 64 == 0 for name in "abc")
    for name, value in tensors.items():
        assert_same_bits(got[name], value)
    assert peak < 1.1 * (tensors["a"].nbytes + tensors["b"].nbytes) + 256 * 1024
    offsets = {name: r.entry(name).offset for name in tensors}
    data = prefix + ".data-00000-of-00001"
    with open(data, "r+b") as f:
        for name in ("a", "b"):
            f.seek(offsets[name] + 3 * piece + 5)  # inside the fourth piece
            f.write(b"\xee")
    for order, first in ((["a", "b"], "'a'"), (["c", "b", "a"], "'b'")):
        with pytest.raises(errors.DataLossError, match=first):
            tb.BundleReader(prefix).get_tensors(order)


def test_overwriting_a_checkpoint(tmp_path):
    prefix = str(tmp_path / "m")
    tb.write_tf_checkpoint(prefix, {"a": np.zeros(3)})
    tb.write_tf_checkpoint(prefix, {"a": np.ones(4), "b": np.int32(2)})
    r = tb.BundleReader(prefix)
    assert r.names() == ["a", "b"]
    np.testing.assert_array_equal(r.get_tensor("a"), np.ones(4))


# --- failed saves: typed errors naming the file, no temporary files left -----------------


def _listing(directory) -> list[str]:
    return sorted(os.listdir(directory))


def _old_checkpoint(tmp_path) -> tuple[str, list[str]]:
    prefix = str(tmp_path / "model.ckpt")
    tb.write_tf_checkpoint(prefix, {"v": np.arange(4, dtype=np.float32)})
    return prefix, _listing(tmp_path)


FAILURES = [
    (errno.ENOSPC, errors.ResourceExhaustedError),
    (errno.EFBIG, errors.ResourceExhaustedError),
    (errno.EACCES, errors.PermissionDeniedError),
    (errno.EROFS, errors.PermissionDeniedError),
]


@pytest.mark.parametrize("stage", ["data", "index", "rename"])
@pytest.mark.parametrize("code, cls", FAILURES, ids=[errno.errorcode[c] for c, _ in FAILURES])
def test_a_failed_save_raises_tf_error_and_leaves_the_old_checkpoint(
    tmp_path, monkeypatch, stage, code, cls
):
    prefix, before = _old_checkpoint(tmp_path)
    write_all = tb._fileio.write_all
    real_replace = os.replace

    def failing_write(fd, buf):
        is_index = memoryview(buf).nbytes < 1000  # the index is small, the data is not
        if (stage == "data") != is_index:
            write_all(fd, memoryview(buf).cast("B")[:100])  # part of it reached the disk
            raise OSError(code, os.strerror(code))
        write_all(fd, buf)

    def failing_replace(src, dst):
        if dst.endswith(".index"):
            raise OSError(code, os.strerror(code), src)
        real_replace(src, dst)

    if stage == "rename":
        monkeypatch.setattr(os, "replace", failing_replace)
    else:
        monkeypatch.setattr(tb._fileio, "write_all", failing_write)
    with pytest.raises(cls) as info:
        tb.write_tf_checkpoint(prefix, {"v": np.ones(100_000, np.float32)})
    monkeypatch.undo()
    assert str(tmp_path) in info.value.message  # names the file
    assert _listing(tmp_path) == before  # no temporary or half-renamed file left
    np.testing.assert_array_equal(
        tb.BundleReader(prefix).get_tensor("v"), np.arange(4, dtype=np.float32)
    )


@pytest.mark.parametrize("answer", [0, -1], ids=["accepted", "refused"])
def test_a_durable_save_starts_the_disk_writing_as_the_file_grows(tmp_path, monkeypatch, answer):
    """Each 8 MB written, the writer asks the kernel to start writing the new range
    (sync_file_range), so the disk works while the file is still being written; a
    refusal turns it off for that file; a save that is not durable never asks."""
    calls = []

    def sync_file_range(fd, offset, nbytes, flags):
        calls.append((offset, nbytes, flags))
        return answer

    monkeypatch.setattr(tb._fileio, "_sync_file_range", lambda: sync_file_range)
    big = np.arange(5 << 20, dtype=np.float32)  # 20 MB
    tensors = {"big": big, "s": np.array([b"x" * 100], object), "small": np.ones(3, np.int64)}
    prefix = str(tmp_path / "model.ckpt")
    tb.write_tf_checkpoint(prefix, tensors)
    if answer:
        assert calls == [(0, 8 << 20, 2)]
    else:
        assert calls == [(0, 8 << 20, 2), (8 << 20, 8 << 20, 2)]
    reader = tb.BundleReader(prefix)
    for name, value in tensors.items():
        np.testing.assert_array_equal(reader.get_tensor(name), value)
    calls.clear()
    tb.write_tf_checkpoint(str(tmp_path / "fast.ckpt"), tensors, sync=False)
    assert calls == []


def test_the_real_writeback_call_keeps_the_bytes(tmp_path):
    if sys.platform == "linux":
        assert tb._fileio._sync_file_range() is not None
    value = np.random.default_rng(0).random(3 << 20).astype(np.float32)  # 12 MB
    prefix = str(tmp_path / "model.ckpt")
    tb.write_tf_checkpoint(prefix, {"v": value})
    assert_same_bits(tb.BundleReader(prefix).get_tensor("v"), value)


def test_file_size_limit_raises_resource_exhausted_and_cleans_up(tmp_path):
    """A real EFBIG: RLIMIT_FSIZE in a child process (Python ignores SIGXFSZ)."""
    prefix, before = _old_checkpoint(tmp_path)
    script = (
        "import resource, sys, numpy as np\n"
        "from jtrain import errors\n"
        "from jtrain.checkpoint import tensor_bundle as tb\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))\n"
        "try:\n"
        "    tb.write_tf_checkpoint(sys.argv[1], {'v': np.ones(1 << 20, np.float32)})\n"
        "except errors.ResourceExhaustedError as e:\n"
        "    print('ResourceExhaustedError', e.message)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, prefix], capture_output=True, text=True, timeout=120
    )
    assert out.stdout.startswith("ResourceExhaustedError"), (out.stdout, out.stderr)
    assert prefix in out.stdout
    assert _listing(tmp_path) == before


def test_same_prefix_saves_alternate_data_files_and_remove_the_old(tmp_path):
    prefix = str(tmp_path / "model.ckpt")
    layouts = []
    for step in range(4):
        tb.write_tf_checkpoint(prefix, {"v": np.full(3, step, np.int32)})
        layouts.append(_listing(tmp_path))
        np.testing.assert_array_equal(tb.BundleReader(prefix).get_tensor("v"), [step] * 3)
    one = ["model.ckpt.data-00000-of-00001", "model.ckpt.index"]
    two = ["model.ckpt.data-00000-of-00002", "model.ckpt.data-00001-of-00002", "model.ckpt.index"]
    assert layouts == [one, two, one, two]


def test_huge_declared_shape_is_data_loss_before_any_allocation(tmp_path):
    """A checksum-valid index declaring a shape of 2**42 floats: no 16 TiB allocation."""
    prefix = str(tmp_path / "model.ckpt")
    tb.write_tf_checkpoint(prefix, {"big": np.zeros(4, np.float32), "s": np.array([b"a"])})
    rows = _table.read_table(open(prefix + ".index", "rb").read(), prefix)
    out = []
    for key, value in rows:
        if key in (b"big", b"s"):
            entry = tensor_bundle_pb2.BundleEntryProto.FromString(value)
            del entry.shape.dim[:]
            entry.shape.dim.add().size = 1 << 21
            entry.shape.dim.add().size = 1 << 21
            value = entry.SerializeToString()
        out.append((key, value))
    with open(prefix + ".index", "wb") as f:
        f.write(_table.write_table(out))
    reader = tb.BundleReader(prefix)
    for name in ("big", "s"):
        with pytest.raises(errors.DataLossError, match=f"'{name}'.*index.*corrupt") as info:
            reader.get_tensor(name)
        assert prefix in info.value.message
