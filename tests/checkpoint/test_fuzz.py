"""Fuzz: mutated checkpoint files give the original values or a typed error, nothing else.

hypothesis mutates the ``.index`` or the ``.data`` file of a small checkpoint (every
kind of entry: numbers, bfloat16, strings, a scalar, an empty tensor, a partitioned
variable) with byte flips, truncations, insertions, deletions and overwrites; the
reader must then either return exactly the original tensors (the mutation hit
bytes nothing depends on, e.g. the footer's padding) or raise
:class:`jtrain.errors.DataLossError`. About 3000 cases, well under a minute.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jtrain import errors
from jtrain.checkpoint import tensor_bundle as tb

TENSORS = {
    "dense/kernel": np.arange(24, dtype=np.float32).reshape(4, 6),
    "dense/bias": np.linspace(-1, 1, 6).astype(ml_dtypes.bfloat16),
    "global_step": np.int64(1234),
    "names": np.array([b"", "héllo".encode(), b"\x00\xff", b"abc" * 5], dtype=object),
    "empty": np.zeros((0, 3), np.int32),
    "flags": np.array([True, False, True]),
}
PART = np.arange(30, dtype=np.float64).reshape(10, 3)


def _original(directory: str) -> tuple[str, bytes, bytes]:
    prefix = os.path.join(directory, "orig")
    with tb.BundleWriter(prefix, sync=False) as w:
        for name, value in TENSORS.items():
            w.add(name, value)
        w.add_slice("part", [10, 3], [(0, 4), (0, -1)], PART[:4])
        w.add_slice("part", [10, 3], [(4, 6), (0, -1)], PART[4:])
    with open(prefix + ".index", "rb") as f:
        index = f.read()
    with open(prefix + ".data-00000-of-00001", "rb") as f:
        data = f.read()
    return prefix, index, data


_TMP = tempfile.mkdtemp(prefix="jtrain-fuzz-")
atexit.register(shutil.rmtree, _TMP, ignore_errors=True)  # the process's own files only
_PREFIX, INDEX, DATA = _original(_TMP)
EXPECTED = dict(TENSORS, part=PART)

mutation = st.one_of(
    st.tuples(st.just("flip"), st.integers(0, 10**6), st.integers(1, 255)),
    st.tuples(st.just("truncate"), st.integers(0, 10**6), st.just(0)),
    st.tuples(st.just("insert"), st.integers(0, 10**6), st.binary(min_size=1, max_size=8)),
    st.tuples(st.just("delete"), st.integers(0, 10**6), st.integers(1, 16)),
    st.tuples(st.just("overwrite"), st.integers(0, 10**6), st.binary(min_size=1, max_size=16)),
)


def _mutate(raw: bytes, ops) -> bytes:
    buf = bytearray(raw)
    for op, pos, arg in ops:
        if not buf:
            break
        pos %= len(buf)
        if op == "flip":
            buf[pos] ^= arg
        elif op == "truncate":
            del buf[pos:]
        elif op == "insert":
            buf[pos:pos] = arg
        elif op == "delete":
            del buf[pos : pos + arg]
        else:
            buf[pos : pos + len(arg)] = arg
    return bytes(buf)


def _check(index: bytes, data: bytes) -> None:
    prefix = os.path.join(_TMP, "mut")
    with open(prefix + ".index", "wb") as f:
        f.write(index)
    with open(prefix + ".data-00000-of-00001", "wb") as f:
        f.write(data)
    try:
        reader = tb.BundleReader(prefix)
        try:
            got = {name: reader.get_tensor(name) for name in reader.names()}
        finally:
            reader.close()
    except errors.DataLossError:
        return
    assert sorted(got) == sorted(EXPECTED)
    for name, want in EXPECTED.items():
        want = np.asarray(want)
        assert got[name].dtype == want.dtype and got[name].shape == want.shape
        if want.dtype == object:
            assert got[name].tolist() == want.tolist()
        else:
            assert got[name].tobytes() == want.tobytes()


FUZZ = settings(
    max_examples=1500,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@FUZZ
@given(st.lists(mutation, min_size=1, max_size=4))
def test_mutated_index(ops):
    _check(_mutate(INDEX, ops), DATA)


@FUZZ
@given(st.lists(mutation, min_size=1, max_size=4))
def test_mutated_data(ops):
    mutated = _mutate(DATA, ops)
    if mutated == DATA:
        return
    _check(INDEX, mutated)


@pytest.mark.parametrize("which", ["index", "data"])
def test_every_single_byte_flip_is_caught(which):
    """Exhaustive: flipping any one byte of the data, or any checksummed index byte."""
    raw = INDEX if which == "index" else DATA
    for pos in range(len(raw)):
        buf = bytearray(raw)
        buf[pos] ^= 0x5A
        if which == "index":
            _check(bytes(buf), DATA)
        else:
            with pytest.raises(errors.DataLossError):
                _check_strict(INDEX, bytes(buf))


def _check_strict(index: bytes, data: bytes) -> None:
    prefix = os.path.join(_TMP, "strict")
    with open(prefix + ".index", "wb") as f:
        f.write(index)
    with open(prefix + ".data-00000-of-00001", "wb") as f:
        f.write(data)
    with tb.BundleReader(prefix) as reader:
        for name in reader.names():
            reader.get_tensor(name)
