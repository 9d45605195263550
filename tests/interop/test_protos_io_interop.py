"""TF1's top-level protos, ``tf.make_tensor_proto``/``tf.make_ndarray`` and the host
I/O ops (``serialize_tensor``, base64, ``decode_compressed``, ``write_file``...)
checked live against TF 2.21's ``tf.compat.v1``.

Protos: the same message built with TF's class and jtrain's serializes to the same
bytes, and event files with custom summaries cross-read (jtrain's ``FileWriter`` in
TF's ``summary_iterator``, TF's in jtrain's). Before these tests every name here was
an ``AttributeError`` from ``adapters/v1/_missing.py``.
"""

from __future__ import annotations

import glob
import re
from typing import Any

import numpy as np
import pytest
import tensorflow as real_tf

from adapters import v1 as jtf
from tests.interop.twin import run_both

pytestmark = pytest.mark.interop

tf1 = real_tf.compat.v1


# -- protos ---------------------------------------------------------------------------
def _summary(tf: Any) -> Any:
    return tf.Summary(
        value=[
            tf.Summary.Value(tag="acc", simple_value=0.9),
            tf.Summary.Value(
                tag="img",
                image=tf.Summary.Image(
                    height=2, width=3, colorspace=1, encoded_image_string=b"\x89PNG"
                ),
            ),
            tf.Summary.Value(
                tag="snd",
                audio=tf.Summary.Audio(
                    sample_rate=8000.0,
                    num_channels=1,
                    length_frames=4,
                    encoded_audio_string=b"RIFF",
                    content_type="audio/wav",
                ),
            ),
            tf.Summary.Value(
                tag="h",
                histo=tf.HistogramProto(
                    min=-1.0,
                    max=2.0,
                    num=3,
                    sum=1.0,
                    sum_squares=5.0,
                    bucket_limit=[0.0, 2.0],
                    bucket=[1.0, 2.0],
                ),
            ),
            tf.Summary.Value(
                tag="t",
                metadata=tf.SummaryMetadata(
                    display_name="d",
                    summary_description="s",
                    plugin_data=tf.SummaryMetadata.PluginData(plugin_name="p", content=b"c"),
                ),
            ),
        ]
    )


_MESSAGES = {
    "Summary": _summary,
    "SessionLog": lambda tf: tf.SessionLog(
        status=tf.SessionLog.CHECKPOINT, checkpoint_path="/m/ckpt-3", msg="saved"
    ),
    "LogMessage": lambda tf: tf.LogMessage(level=tf.LogMessage.WARN, message="careful"),
    "Event": lambda tf: tf.Event(
        wall_time=12.5,
        step=7,
        summary=_summary(tf),
        session_log=tf.SessionLog(status=tf.SessionLog.START),
    ),
    "Event.file_version": lambda tf: tf.Event(wall_time=1.0, file_version="brain.Event:2"),
    "NodeDef": lambda tf: tf.NodeDef(
        name="a/b",
        op="Const",
        input=["x", "^y"],
        device="/cpu:0",
        attr={
            "dtype": tf.AttrValue(type=1),
            "f": tf.AttrValue(func=tf.NameAttrList(name="fn", attr={"k": tf.AttrValue(i=3)})),
            "l": tf.AttrValue(list=tf.AttrValue.ListValue(i=[1, 2], s=[b"a"])),
        },
    ),
    "GraphDef": lambda tf: tf.GraphDef(
        node=[tf.NodeDef(name="n", op="NoOp")], versions={"producer": 27, "min_consumer": 12}
    ),
    "MetaGraphDef": lambda tf: tf.MetaGraphDef(
        meta_info_def=tf.MetaGraphDef.MetaInfoDef(tags=["serve"], tensorflow_version="2.21"),
        graph_def=tf.GraphDef(node=[tf.NodeDef(name="n", op="NoOp")]),
        signature_def={
            "s": {
                "inputs": {"x": tf.TensorInfo(name="x:0", dtype=1)},
                "method_name": "tensorflow/serving/predict",
            }
        },
    ),
    "TensorInfo": lambda tf: tf.TensorInfo(
        name="x:0", dtype=9, tensor_shape={"dim": [{"size": -1}, {"size": 3}]}
    ),
}


@pytest.mark.parametrize("name", sorted(_MESSAGES))
def test_proto_serializes_as_tfs(name):
    build = _MESSAGES[name]
    theirs, ours = build(tf1), build(jtf)
    assert ours.SerializeToString(deterministic=True) == theirs.SerializeToString(
        deterministic=True
    )
    assert type(ours).FromString(theirs.SerializeToString()) == ours


def test_tf_summary_value_reads_tfs_bytes():
    back = jtf.Summary.FromString(_summary(tf1).SerializeToString())
    assert back.value[0].tag == "acc"
    assert back.value[0].simple_value == pytest.approx(0.9)
    assert back.value[3].histo.bucket == [1.0, 2.0]


def _events(path: str, reader: Any) -> list:
    return [
        (e.step, e.WhichOneof("what"), e.summary.SerializeToString())
        for e in reader(path)
        if e.WhichOneof("what") != "file_version"
    ]


def _write(tf: Any, logdir: str) -> None:
    with tf.Graph().as_default():
        writer = tf.summary.FileWriter(logdir)
        for step in (1, 2):
            s = tf.Summary(value=[tf.Summary.Value(tag="acc", simple_value=0.25 * step)])
            writer.add_summary(s, step)
        writer.add_session_log(tf.SessionLog(status=tf.SessionLog.STOP), 3)
        writer.close()


def test_custom_summary_event_files_cross_read(tmp_path):
    _write(jtf, str(tmp_path / "j"))
    _write(tf1, str(tmp_path / "t"))
    (ours,) = glob.glob(str(tmp_path / "j" / "events.out.tfevents.*"))
    (theirs,) = glob.glob(str(tmp_path / "t" / "events.out.tfevents.*"))
    expected = [
        (1, "summary", tf1.Summary(value=[tf1.Summary.Value(tag="acc", simple_value=0.25)])),
        (2, "summary", tf1.Summary(value=[tf1.Summary.Value(tag="acc", simple_value=0.5)])),
        (3, "session_log", tf1.Summary()),
    ]
    expected = [(s, w, m.SerializeToString()) for s, w, m in expected]
    assert _events(ours, tf1.train.summary_iterator) == expected  # TF reads jtrain's
    assert _events(theirs, jtf.train.summary_iterator) == expected  # jtrain reads TF's
    assert _events(theirs, tf1.train.summary_iterator) == expected


# -- make_tensor_proto / make_ndarray -------------------------------------------------
_PROTO_CASES: list[tuple[str, Any, dict]] = [
    ("int_list", [1, 2, 3], {}),
    ("int_scalar", 7, {}),
    ("int_big", 2**40, {}),
    ("int_list_big", [1, 2**40], {}),
    ("float_list", [1.5, -2.25], {}),
    ("float_scalar", 0.1, {}),
    ("float_nested", [[1.0, 2.0], [3.0, 4.0]], {}),
    ("bool_scalar", True, {}),
    ("bool_list", [True, False, True], {}),
    ("complex_list", [1 + 2j, 3.0], {}),
    ("str_scalar", "ab", {}),
    ("bytes_list", [b"a\x00", b"bc"], {}),
    ("str_nested", [["a", "b"], ["c", "d"]], {}),
    ("np_f16", np.array([1.0, 2.5, -0.0], np.float16), {}),
    ("np_f16_scalar", np.float16(1.5), {}),
    ("np_bf16", np.array([1.0, 3.0], jtf.bfloat16.as_numpy_dtype), {}),
    ("np_bf16_scalar", np.array([1.5], jtf.bfloat16.as_numpy_dtype), {}),
    ("np_f64", np.array([[0.1, 0.2]], np.float64), {}),
    ("np_f64_one", np.array([0.1], np.float64), {}),
    ("np_i64", np.array([1, 2], np.int64), {}),
    ("np_i64_scalar", np.int64(5), {}),
    ("np_u16", np.array([1, 65535], np.uint16), {}),
    ("np_u32", np.array([1, 2**32 - 1], np.uint32), {}),
    ("np_u32_one", np.array([7], np.uint32), {}),
    ("np_u64_one", np.array([2**64 - 1], np.uint64), {}),
    ("np_i8", np.array([-3, 4], np.int8), {}),
    ("np_u8_one", np.array([200], np.uint8), {}),
    ("np_c64", np.array([1 + 1j, 2 - 3j], np.complex64), {}),
    ("np_c128_scalar", np.complex128(2 - 1j), {}),
    ("np_bool", np.array([[True], [False]]), {}),
    ("np_str", np.array(["a", "bc"]), {}),
    ("np_bytes", np.array([b"x", b"yz"]), {}),
    ("np_empty", np.zeros((2, 0), np.float32), {}),
    ("dtype_int64", [1, 2], {"dtype": "int64"}),
    ("dtype_float64", [1, 2], {"dtype": "float64"}),
    ("dtype_float16", [1.0, 2.0], {"dtype": "float16"}),
    ("dtype_f16_scalar", 1.0, {"dtype": "float16"}),
    ("dtype_bf16_scalar", 1.0, {"dtype": "bfloat16"}),
    ("dtype_uint16", [3], {"dtype": "uint16"}),
    ("dtype_uint8_wraps", [300, -1], {"dtype": "uint8"}),
    ("dtype_string", ["a"], {"dtype": "string"}),
    ("np_cast_dtype", np.array([1.7, -2.2]), {"dtype": "int32"}),
    ("shape_fill", [1.0], {"shape": [3]}),
    ("shape_fill_scalar", 1, {"shape": [2, 2]}),
    ("shape_partial", [1, 2], {"shape": [4]}),
    ("shape_same", [1, 2, 3, 4], {"shape": [2, 2]}),
    ("shape_zero", [], {"shape": [0, 3]}),
    ("shape_zero_values", 5, {"shape": [0]}),
    ("broadcast", [5.0], {"shape": [2, 3], "allow_broadcast": True}),
    ("broadcast_same", [1, 2, 3, 4], {"shape": [2, 2], "allow_broadcast": True}),
    ("verify_ok", [[1, 2]], {"shape": [1, 2], "verify_shape": True}),
    ("empty_list", [], {}),
]


def _kwargs(tf: Any, kw: dict) -> dict:
    out = dict(kw)
    if "dtype" in out:
        out["dtype"] = tf.as_dtype(out["dtype"])
    return out


@pytest.mark.parametrize("name, values, kw", _PROTO_CASES, ids=[c[0] for c in _PROTO_CASES])
def test_make_tensor_proto_bytes_as_tfs(name, values, kw):
    theirs = tf1.make_tensor_proto(values, **_kwargs(tf1, kw))
    ours = jtf.make_tensor_proto(values, **_kwargs(jtf, kw))
    assert ours.SerializeToString() == theirs.SerializeToString()
    # make_ndarray of either proto: TF's array (dtype, shape, bits)
    t_arr = tf1.make_ndarray(theirs)
    for arr in (jtf.make_ndarray(ours), jtf.make_ndarray(theirs)):
        assert arr.dtype == t_arr.dtype and arr.shape == t_arr.shape
        if t_arr.dtype == object:
            assert arr.tolist() == t_arr.tolist()
        else:
            assert arr.tobytes() == t_arr.tobytes()


_PROTO_ERRORS: list[tuple[str, Any, dict]] = [
    ("too_many", [1, 2], {"shape": [1]}),
    ("verify_shape", [1, 2], {"shape": [3], "verify_shape": True}),
    ("broadcast_size", [1, 2], {"shape": [3], "allow_broadcast": True}),
    ("both_flags", 1, {"verify_shape": True, "allow_broadcast": True}),
    ("none", None, {}),
    ("float_for_int", [1.5], {"dtype": "int32"}),
    ("int_for_string", [1], {"dtype": "string"}),
    ("str_for_float", ["a"], {"dtype": "float32"}),
    ("np_float_to_string", np.float32([1.0]), {"dtype": "string"}),
    ("object", [object()], {}),
    ("bool_for_int", [True], {"dtype": "bool"}),
]


def _error(fn: Any) -> tuple[str, str]:
    try:
        fn()
    except (TypeError, ValueError) as e:
        text = str(e)
        return type(e).__name__, text.split(" at 0x")[0]
    return "no error", ""


@pytest.mark.parametrize("name, values, kw", _PROTO_ERRORS, ids=[c[0] for c in _PROTO_ERRORS])
def test_make_tensor_proto_errors_as_tfs(name, values, kw):
    theirs = _error(lambda: tf1.make_tensor_proto(values, **_kwargs(tf1, kw)))
    ours = _error(lambda: jtf.make_tensor_proto(values, **_kwargs(jtf, kw)))
    assert theirs[0] != "no error" or name == "bool_for_int"
    assert ours == theirs


def test_make_tensor_proto_refuses_a_graph_tensor():
    def build(tf: Any) -> Any:
        x = tf.constant(1.0)
        try:
            tf.make_tensor_proto(x)
        except TypeError as e:
            message = str(e)
        return lambda sess: message

    theirs, ours = run_both(build)
    assert ours == theirs == "Expected any non-tensor type, but got a tensor instead."


def test_make_tensor_proto_passes_a_proto_through():
    proto = jtf.make_tensor_proto([1, 2])
    assert jtf.make_tensor_proto(proto, dtype=jtf.float32, shape=[9]) is proto


def test_make_ndarray_pads_repeated_fields_as_tfs():
    """A proto with fewer values than its shape (written by hand): the last repeats."""
    from jtrain.protos import tensor_pb2

    for build in (
        lambda m: m(dtype=1, tensor_shape={"dim": [{"size": 4}]}, float_val=[1.0, 2.0]),
        lambda m: m(dtype=3, tensor_shape={"dim": [{"size": 2}, {"size": 2}]}),
        lambda m: m(dtype=7, tensor_shape={"dim": [{"size": 3}]}, string_val=[b"a"]),
        lambda m: m(dtype=8, tensor_shape={"dim": [{"size": 2}]}, scomplex_val=[1.0, 2.0]),
    ):
        theirs = tf1.make_ndarray(build(real_tf.make_tensor_proto(0).__class__))
        ours = jtf.make_ndarray(build(tensor_pb2.TensorProto))
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
        assert ours.tolist() == theirs.tolist()


# -- serialize_tensor / parse_tensor ----------------------------------------------------
def _message(e: Any) -> str:
    """An op error's own message: TF's lead with where the node was built and end with
    the node; the proto text in TF's messages starts with protobuf's randomly spaced
    ``goo.gle/debugonly`` marker (see ``parsing_ops._no_tensor``), removed here."""
    lines = e.message.split("\n")
    for i, line in enumerate(lines[:-1]):
        if line.startswith("Node: "):
            lines = lines[i + 1 :]
            break
    text = "\n".join(lines).split("\n\t [[")[0]
    return re.sub(r"goo\.gle/debug\w+ *\n?", "", text)


_SERIALIZE_CASES: list[tuple[str, Any, str]] = [
    ("f32", [1.5, -2.0], "float32"),
    ("f32_scalar", 3.25, "float32"),
    ("f64", [0.1, 1e300], "float64"),
    ("f16", [1.0, 65504.0], "float16"),
    ("bf16", [1.0, 3.0], "bfloat16"),
    ("i32", [[1, -2], [3, 4]], "int32"),
    ("i64", [2**40, -(2**62)], "int64"),
    ("i64_scalar", 2**40 + 1, "int64"),
    ("u8", [0, 255], "uint8"),
    ("u16", [7], "uint16"),
    ("u64", [2**63 + 5], "uint64"),
    ("bool", [True, False, True], "bool"),
    ("c64", [1 + 2j], "complex64"),
    ("c128", [[1 - 1j, 2j]], "complex128"),
    ("string", [b"a", b"", b"bc\x00"], "string"),
    ("string_scalar", b"hello", "string"),
    ("empty", np.zeros((2, 0)), "float32"),
]


@pytest.mark.parametrize(
    "name, value, dtype", _SERIALIZE_CASES, ids=[c[0] for c in _SERIALIZE_CASES]
)
def test_serialize_and_parse_tensor_as_tfs(name, value, dtype):
    arr = np.array(value, dtype=object if dtype == "string" else jtf.as_dtype(dtype).as_numpy_dtype)

    def build(tf: Any) -> Any:
        dt = tf.as_dtype(dtype)
        const = tf.constant(value, dtype=dt)
        fed = tf.placeholder(dt, arr.shape)
        top, io = tf.serialize_tensor(const), tf.io.serialize_tensor(fed)
        back = tf.parse_tensor(top, dt)
        back_io = tf.io.parse_tensor(io, dt)
        static = (top.shape.as_list(), back.shape.dims, back.dtype.name)
        return lambda sess: (static, sess.run([top, io, back, back_io], {fed: arr}))

    theirs, ours = run_both(build)
    assert ours[0] == theirs[0]
    t_vals, o_vals = theirs[1], ours[1]
    assert o_vals[0] == t_vals[0] and o_vals[1] == t_vals[1]  # the bytes
    for t, o in zip(t_vals[2:], o_vals[2:], strict=True):
        t, o = np.asarray(t), np.asarray(o)
        assert (o.dtype, o.shape) == (t.dtype, t.shape)
        assert o.tolist() == t.tolist() if t.dtype == object else o.tobytes() == t.tobytes()


_PARSE_ERRORS: list[tuple[str, Any, str]] = [
    ("type_mismatch", b'\x08\x01\x12\x04\x12\x02\x08\x02"\x08\x00\x00\xc0?\x00\x00\x00@', "int32"),
    ("type_mismatch_f64", b"\x08\x02\x12\x00\x31\x00\x00\x00\x00\x00\x00\xf0?", "float16"),
    ("garbage", b"garbage\xff", "float32"),
    ("short_content", b'\x08\x01\x12\x04\x12\x02\x08\x02"\x04\x00\x00\x80?', "float32"),
    ("no_dtype", b"", "float32"),
    ("not_scalar", [b"\x08\x01\x12\x00"], "float32"),
]


@pytest.mark.parametrize("name, data, dtype", _PARSE_ERRORS, ids=[c[0] for c in _PARSE_ERRORS])
def test_parse_tensor_errors_as_tfs(name, data, dtype):
    arr = np.array(data, dtype=object)

    def build(tf: Any) -> Any:
        p = tf.placeholder(tf.string, arr.shape)
        out = tf.parse_tensor(p, tf.as_dtype(dtype))

        def run(sess: Any) -> Any:
            try:
                sess.run(out, {p: arr})
            except tf.errors.InvalidArgumentError as e:
                return _message(e)
            return "no error"

        return run

    theirs, ours = run_both(build)
    assert theirs != "no error"
    assert ours == theirs


_PARSE_FILLS: list[tuple[str, Any, str]] = [
    ("float_val_fills", b"\x08\x01\x12\x04\x12\x02\x08\x03*\x04\x00\x00\x80?", "float32"),
    (
        "float_val_cut",
        b"\x08\x01\x12\x04\x12\x02\x08\x01*\x08\x00\x00\x80?\x00\x00\x00@",
        "float32",
    ),
    ("string_val_fills", b"\x08\x07\x12\x04\x12\x02\x08\x03B\x01a", "string"),
    ("no_values", b"\x08\x03\x12\x04\x12\x02\x08\x02", "int32"),
    ("half_val", b"\x08\x13\x12\x04\x12\x02\x08\x02j\x02\x80x", "float16"),
    ("string_content", b'\x08\x07\x12\x04\x12\x02\x08\x02"\x05\x00\x03xyz', "string"),
]


@pytest.mark.parametrize("name, data, dtype", _PARSE_FILLS, ids=[c[0] for c in _PARSE_FILLS])
def test_parse_tensor_of_repeated_fields_as_tfs(name, data, dtype):
    def build(tf: Any) -> Any:
        p = tf.placeholder(tf.string, [])
        out = tf.parse_tensor(p, tf.as_dtype(dtype))
        return lambda sess: sess.run(out, {p: data})

    theirs, ours = run_both(build)
    assert (ours.dtype, ours.shape, ours.tolist()) == (theirs.dtype, theirs.shape, theirs.tolist())


def test_parse_tensor_refuses_a_non_string_input():
    def build(tf: Any) -> Any:
        try:
            tf.parse_tensor(tf.constant(1.0), tf.float32)
        except TypeError as e:
            message = str(e)
        return lambda sess: message

    theirs, ours = run_both(build)
    assert ours == theirs


# -- base64, decode_compressed --------------------------------------------------------
def _host_outcome(tf: Any, build: Any, data: Any) -> Any:
    """``build(tf, x)`` run with ``data`` fed to a string placeholder ``x``: the static
    shape, dtype and value, or the run-time error's class and message."""
    arr = np.asarray(data, dtype=object)
    x = tf.placeholder(tf.string, arr.shape)
    out = build(tf, x)
    static = (out.shape.as_list(), out.dtype.name)

    def run(sess: Any) -> Any:
        try:
            value = sess.run(out, {x: arr})
        except tf.errors.OpError as e:
            return static, type(e).__name__, _message(e)
        return static, np.asarray(value, dtype=object).tolist()

    return run


_B64_DECODE = [
    b"aGVsbG8_Pg",
    b"aGVsbG8_Pg==",
    b"YWI=",
    b"YWI",
    b"YQ",
    b"YR",
    b"YQ==",
    b"",
    b"AAAA",
    b"-_-_",
    [[b"YWJj", b"eA"]],
]
_B64_BAD = [b"aGVsbG8/Pg", b"a", b"aGVsbG8_P g", b"YQ=", b"Y===", b"YQ==YQ==", b"YWJ+"]


@pytest.mark.parametrize("data", _B64_DECODE + _B64_BAD, ids=repr)
def test_decode_base64_as_tfs(data):
    theirs, ours = run_both(
        lambda tf: _host_outcome(tf, lambda tf, x: tf.io.decode_base64(x), data)
    )
    assert ours == theirs


_B64_ENCODE = [b"hello?>", b"", b"a", b"ab", b"abc", b"\xff\xfe\xfd\xfc", [[b"x", b"yz\x00"]]]


@pytest.mark.parametrize("pad", [False, True])
@pytest.mark.parametrize("data", _B64_ENCODE, ids=repr)
def test_encode_base64_as_tfs(data, pad):
    theirs, ours = run_both(
        lambda tf: _host_outcome(tf, lambda tf, x: tf.encode_base64(x, pad=pad), data)
    )
    assert ours == theirs
    back = run_both(
        lambda tf: _host_outcome(tf, lambda tf, x: tf.decode_base64(tf.encode_base64(x, pad)), data)
    )
    assert back[1] == back[0]


def _compressed() -> dict:
    import gzip
    import zlib

    raw = b"hello world" * 3
    z = zlib.compress(raw)
    return {
        "zlib": (z, "ZLIB"),
        "gzip": (gzip.compress(raw, mtime=0), "GZIP"),
        "none": (raw, ""),
        "zlib_vector": ([z, zlib.compress(b"")], "ZLIB"),
        "zlib_no_checksum": (z[:-3], "ZLIB"),
        "zlib_trailing": (z + b"xx", "ZLIB"),
        "empty_zlib": (b"", "ZLIB"),
        "junk_zlib": (b"junk", "ZLIB"),
        "junk_gzip": (b"junk", "GZIP"),
        "zlib_as_gzip": (z, "GZIP"),
        "bad_type": (z, "BZ2"),
        "none_name": (raw, "NONE"),
    }


@pytest.mark.parametrize("case", sorted(_compressed()))
def test_decode_compressed_as_tfs(case):
    data, kind = _compressed()[case]
    theirs, ours = run_both(
        lambda tf: _host_outcome(tf, lambda tf, x: tf.io.decode_compressed(x, kind), data)
    )
    assert ours == theirs


# -- write_file, matching_files -------------------------------------------------------
def test_write_file_as_tfs(tmp_path):
    def build(tf: Any) -> Any:
        root = tmp_path / ("tf" if tf is tf1 else "j")
        path = tf.placeholder(tf.string)
        data = tf.placeholder(tf.string, [])
        op = tf.write_file(path, data)
        top = tf.io.write_file(str(root / "top.bin"), b"\x00\x01")

        def run(sess: Any) -> Any:
            out = [
                type(op).__name__,
                op.type,
                sess.run(op, {path: str(root / "a/b/c.bin"), data: b"xyz"}),
            ]
            sess.run(op, {path: str(root / "a/b/c.bin"), data: b"over"})  # overwrites
            sess.run(top)
            out.append(sorted(str(p.relative_to(root)) for p in root.rglob("*")))
            out.append((root / "a/b/c.bin").read_bytes())
            for feed in (
                {path: str(root / "top.bin/x"), data: b""},
                {path: np.array([str(root / "q")] * 2, object), data: b""},
            ):
                try:
                    sess.run(op, feed)
                except tf.errors.OpError as e:
                    out.append((type(e).__name__, _message(e).replace(str(root), "ROOT")))
            return out

        return run

    theirs, ours = run_both(build)
    assert ours == theirs


def test_write_file_static_rank_errors_as_tfs():
    def build(tf: Any) -> Any:
        try:
            tf.write_file(tf.placeholder(tf.string, [2]), "x")
        except ValueError as e:
            message = str(e).split(" for ")[0]
        return lambda sess: message

    theirs, ours = run_both(build)
    assert ours == theirs == "Shape must be rank 0 but is rank 1"


def test_matching_files_as_tfs(tmp_path):
    for name in ("b.txt", "a.txt", "c.dat", ".hidden", "sub/d.txt", "sub/.e.txt"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes(b"")
    root = str(tmp_path)
    patterns = [
        f"{root}/*.txt",
        f"{root}/*",
        f"{root}/[ab].txt",
        f"{root}/[!a].*",
        f"{root}/?.txt",
        f"{root}/*/d.txt",
        f"{root}/*/*",
        f"{root}/nothing/*",
        f"{root}/a.txt",
        f"{root}/z.txt",
        f"{root}/**",
        [f"{root}/b*", f"{root}/a*", f"{root}/a*"],
    ]

    def build(tf: Any) -> Any:
        outs = [tf.matching_files(p) for p in patterns]
        fed = tf.placeholder(tf.string)
        bad = tf.io.matching_files(fed)
        static = [o.shape.as_list() for o in outs]

        def run(sess: Any) -> Any:
            got = [[v.decode().replace(root, "ROOT") for v in sess.run(o)] for o in outs]
            try:
                sess.run(bad, {fed: [["x"]]})
            except tf.errors.InvalidArgumentError as e:
                got.append(_message(e))
            return static, got

        return run

    theirs, ours = run_both(build)
    assert ours == theirs


def test_matching_files_static_rank_error_as_tfs():
    def build(tf: Any) -> Any:
        try:
            tf.matching_files(tf.placeholder(tf.string, [2, 2]))
        except ValueError as e:
            message = str(e)
        return lambda sess: message

    theirs, ours = run_both(build)
    assert ours == theirs


# -- FixedLengthRecordDataset ---------------------------------------------------------
def _fixed_files(root: Any) -> None:
    import gzip
    import zlib

    body = bytes(range(23))
    (root / "a.bin").write_bytes(body)
    (root / "b.bin").write_bytes(bytes(range(100, 125)))
    (root / "short.bin").write_bytes(b"xy")
    (root / "empty.bin").write_bytes(b"")
    (root / "a.z").write_bytes(zlib.compress(body))
    (root / "a.gz").write_bytes(gzip.compress(body, mtime=0))
    (root / "b.gz").write_bytes(gzip.compress(bytes(range(100, 125)), mtime=0))


_FIXED_CASES: list[tuple[str, Any, dict]] = [
    ("whole", "b.bin", {"record_bytes": 5}),
    ("header_footer", "a.bin", {"record_bytes": 6, "header_bytes": 2, "footer_bytes": 3}),
    ("two_files", ["b.bin", "b.bin"], {"record_bytes": 5}),
    ("not_whole", "a.bin", {"record_bytes": 5}),
    ("not_whole_second", ["b.bin", "a.bin"], {"record_bytes": 5}),
    ("record_too_big", "a.bin", {"record_bytes": 30}),
    ("short_header", "short.bin", {"record_bytes": 1, "header_bytes": 5}),
    ("short_footer", "short.bin", {"record_bytes": 1, "header_bytes": 1, "footer_bytes": 5}),
    ("empty", "empty.bin", {"record_bytes": 4}),
    (
        "zlib",
        "a.z",
        {"record_bytes": 6, "header_bytes": 2, "footer_bytes": 3, "compression_type": "ZLIB"},
    ),
    (
        "zlib_not_whole",
        "a.z",
        {"record_bytes": 5, "header_bytes": 2, "footer_bytes": 3, "compression_type": "ZLIB"},
    ),
    ("gzip", ["b.gz", "b.gz"], {"record_bytes": 5, "compression_type": "GZIP"}),
    ("gzip_not_whole", "a.gz", {"record_bytes": 5, "compression_type": "GZIP"}),
    ("zlib_of_plain", "short.bin", {"record_bytes": 1, "compression_type": "ZLIB"}),
    (
        "zlib_of_plain_header",
        "short.bin",
        {"record_bytes": 1, "header_bytes": 1, "compression_type": "ZLIB"},
    ),
    (
        "zlib_short_header",
        "a.z",
        {"record_bytes": 1, "header_bytes": 30, "compression_type": "ZLIB"},
    ),
    (
        "zlib_short_footer",
        "a.z",
        {"record_bytes": 1, "footer_bytes": 30, "compression_type": "ZLIB"},
    ),
    ("missing", "missing.bin", {"record_bytes": 4}),
    ("record_zero", "a.bin", {"record_bytes": 0}),
    ("header_negative", "a.bin", {"record_bytes": 4, "header_bytes": -1}),
    ("bad_compression", "a.bin", {"record_bytes": 4, "compression_type": "BZ2"}),
]


@pytest.mark.parametrize("name, files, kw", _FIXED_CASES, ids=[c[0] for c in _FIXED_CASES])
def test_fixed_length_record_dataset_as_tfs(tmp_path, name, files, kw):
    _fixed_files(tmp_path)
    paths = [str(tmp_path / f) for f in ([files] if isinstance(files, str) else files)]

    def build(tf: Any) -> Any:
        ds = tf.data.FixedLengthRecordDataset(paths if len(paths) > 1 else paths[0], **kw)
        ds = ds.map(lambda r: tf.decode_raw(r, tf.uint8))
        nxt = tf.data.make_one_shot_iterator(ds).get_next()
        static = (tf.data.get_output_shapes(ds).as_list(), nxt.dtype.name)

        def run(sess: Any) -> Any:
            out: list = [static]
            while True:
                try:
                    out.append(sess.run(nxt).tolist())
                except tf.errors.OutOfRangeError:
                    return out
                except tf.errors.OpError as e:
                    # TF's wraps parameter errors in its FlatMap's context
                    text = _message(e).split("FlatMap: ")[-1].split("Original message: ")[-1]
                    out.append((type(e).__name__, text.replace(str(tmp_path), "ROOT")))
                    return out

        return run

    theirs, ours = run_both(build)
    assert ours == theirs


def test_fixed_length_record_dataset_from_fed_file_names(tmp_path):
    """CIFAR-10's pipeline: file names fed to an initializable iterator, a label byte
    and an image per record."""
    rng = np.random.default_rng(3)
    for i in range(2):
        (tmp_path / f"data_{i}.bin").write_bytes(rng.integers(0, 256, 3 * 13, np.uint8).tobytes())
    names = [str(tmp_path / f"data_{i}.bin") for i in range(2)]

    def build(tf: Any) -> Any:
        files = tf.placeholder(tf.string, [None])
        ds = tf.data.FixedLengthRecordDataset(files, record_bytes=13)

        def parse(record: Any) -> Any:
            raw = tf.decode_raw(record, tf.uint8)
            label = tf.cast(raw[0], tf.int32)
            image = tf.reshape(tf.cast(raw[1:], tf.float32), [2, 2, 3])
            return image, label

        it = tf.data.make_initializable_iterator(ds.map(parse).batch(4))
        image, label = it.get_next()

        def run(sess: Any) -> Any:
            sess.run(it.initializer, {files: names})
            return [sess.run([image, label]) for _ in range(2)]

        return run

    theirs, ours = run_both(build)
    for (ti, tl), (oi, ol) in zip(theirs, ours, strict=True):
        assert oi.dtype == ti.dtype and ol.dtype == tl.dtype
        np.testing.assert_array_equal(oi, ti)
        np.testing.assert_array_equal(ol, tl)


# -- parse_sequence_example -----------------------------------------------------------
def _sequence_examples() -> list[bytes]:
    from jtrain.protos import example_pb2

    def ints(*v: int) -> Any:
        return {"int64_list": {"value": list(v)}}

    def floats(*v: float) -> Any:
        return {"float_list": {"value": list(v)}}

    def strings(*v: bytes) -> Any:
        return {"bytes_list": {"value": list(v)}}

    rows = [
        (
            {"label": ints(1), "tags": strings(b"a", b"b"), "w": floats(0.5, 1.5)},
            {
                "tok": [ints(3), ints(4), ints(5)],
                "emb": [floats(1, 2), floats(3, 4)],
                "ragged": [ints(1, 2, 3), ints()],
                "word": [strings(b"x"), strings(b"yz")],
            },
        ),
        (
            {"label": ints(2), "tags": strings(), "w": floats(2.5, 3.5)},
            {
                "tok": [ints(7)],
                "emb": [floats(5, 6), floats(7, 8), floats(9, 0)],
                "ragged": [ints(9)],
                "word": [strings(b"w")],
            },
        ),
        (
            {"label": ints(3), "tags": strings(b"c"), "w": floats(4.5, 5.5)},
            {"tok": [], "emb": [], "ragged": [], "word": []},
        ),
    ]
    out = []
    for context, lists in rows:
        ex = example_pb2.SequenceExample(
            context={"feature": context},
            feature_lists={"feature_list": {k: {"feature": v} for k, v in lists.items()}},
        )
        out.append(ex.SerializeToString())
    return out


def test_parse_sequence_example_as_tfs():
    records = _sequence_examples()

    def build(tf: Any) -> Any:
        x = tf.placeholder(tf.string, [3])
        context, lists, lengths = tf.io.parse_sequence_example(
            x,
            context_features={
                "label": tf.FixedLenFeature([], tf.int64),
                "tags": tf.VarLenFeature(tf.string),
                "w": tf.FixedLenFeature([2], tf.float32),
                "missing": tf.FixedLenFeature([1], tf.float32, default_value=[-1.0]),
            },
            sequence_features={
                "tok": tf.FixedLenSequenceFeature([], tf.int64),
                "emb": tf.FixedLenSequenceFeature([2], tf.float32),
                "ragged": tf.VarLenFeature(tf.int64),
                "word": tf.FixedLenSequenceFeature([], tf.string),
            },
        )
        flat = {}
        for prefix, d in (("c", context), ("s", lists), ("n", lengths)):
            for k, v in sorted(d.items()):
                parts = [v.indices, v.values, v.dense_shape] if hasattr(v, "indices") else [v]
                for i, t in enumerate(parts):
                    flat[f"{prefix}/{k}/{i}"] = t
        static = {
            k: (t.shape.as_list() if t.shape.dims is not None else None, t.dtype.name)
            for k, t in flat.items()
        }

        def run(sess: Any) -> Any:
            got = sess.run(flat, {x: np.array(records, object)})
            return static, {k: (v.dtype.name, v.shape, v.tolist()) for k, v in got.items()}

        return run

    theirs, ours = run_both(build)
    assert ours[0] == theirs[0]
    assert ours[1] == theirs[1]


def test_parse_sequence_example_refuses_a_padding_default_as_tf():
    def build(tf: Any) -> Any:
        try:
            tf.io.parse_sequence_example(
                tf.placeholder(tf.string, [2]),
                sequence_features={
                    "tok": tf.FixedLenSequenceFeature([], tf.int64, default_value=-7)
                },
            )
        except ValueError as e:
            message = str(e)
        return lambda sess: message

    theirs, ours = run_both(build)
    assert ours == theirs


# -- readers with num_parallel_reads --------------------------------------------------
@pytest.mark.parametrize("reads", [None, 1, 2, 3])
@pytest.mark.parametrize("kind", ["tfrecord", "text", "fixed"])
def test_readers_interleave_files_as_tfs(tmp_path, kind, reads):
    """``num_parallel_reads=n``: TF interleaves the files record by record, ``n`` at a
    time (jtrain read them one after another before)."""
    lengths = [3, 1, 4, 2]
    paths = []
    for i, n in enumerate(lengths):
        path = tmp_path / f"f{i}"
        records = [f"{i}-{j}".encode() for j in range(n)]
        if kind == "tfrecord":
            with tf1.io.TFRecordWriter(str(path)) as w:
                for r in records:
                    w.write(r)
        elif kind == "text":
            path.write_bytes(b"\n".join(records) + b"\n")
        else:
            path.write_bytes(b"".join(records))
        paths.append(str(path))

    def build(tf: Any) -> Any:
        if kind == "tfrecord":
            ds = tf.data.TFRecordDataset(paths, num_parallel_reads=reads)
        elif kind == "text":
            ds = tf.data.TextLineDataset(tf.constant(paths), num_parallel_reads=reads)
        else:
            ds = tf.data.FixedLengthRecordDataset(paths, 3, num_parallel_reads=reads)
        nxt = tf.data.make_one_shot_iterator(ds).get_next()

        def run(sess: Any) -> Any:
            out = []
            while True:
                try:
                    out.append(sess.run(nxt))
                except tf.errors.OutOfRangeError:
                    return out

        return run

    theirs, ours = run_both(build)
    assert ours == theirs


# -- serialize_sparse / serialize_many_sparse / deserialize_many_sparse ---------------
_SPARSE_CASES: list[tuple[str, Any, Any, Any, str]] = [
    ("float_2d", [[0, 0], [0, 2], [1, 1]], [1.5, 2.5, 3.5], [3, 4], "float32"),
    ("int64_3d", [[0, 0, 1], [2, 1, 0]], [2**40, -5], [3, 2, 2], "int64"),
    ("string_2d", [[0, 1], [1, 0], [1, 3]], [b"a", b"", b"xyz"], [2, 5], "string"),
    ("empty", np.zeros((0, 2), np.int64), np.zeros(0, np.float32), [2, 3], "float32"),
]


@pytest.mark.parametrize(
    "name, indices, values, shape, dtype", _SPARSE_CASES, ids=[c[0] for c in _SPARSE_CASES]
)
def test_serialize_sparse_family_as_tfs(name, indices, values, shape, dtype):
    def build(tf: Any) -> Any:
        dt = tf.as_dtype(dtype)
        sp = tf.SparseTensor(
            indices=tf.constant(np.asarray(indices, np.int64).reshape(-1, len(shape))),
            values=tf.constant(
                np.asarray(values, dtype=object if dtype == "string" else dtype), dt
            ),
            dense_shape=tf.constant(np.asarray(shape, np.int64)),
        )
        one = tf.serialize_sparse(sp)
        many = tf.io.serialize_many_sparse(sp)
        back = tf.deserialize_many_sparse(many, dt)
        back_rank = tf.io.deserialize_many_sparse(many, dt, rank=len(shape))
        tensors = [one, many, back.indices, back.values, back.dense_shape, back_rank.indices]
        static = [t.shape.as_list() if t.shape.dims is not None else None for t in tensors]

        def run(sess: Any) -> Any:
            return static, [
                (v.dtype.name, v.shape, v.tolist())
                for v in (np.asarray(x) for x in sess.run(tensors))
            ]

        return run

    theirs, ours = run_both(build)
    assert ours == theirs


def test_deserialize_many_sparse_type_mismatch_as_tfs():
    def build(tf: Any) -> Any:
        sp = tf.SparseTensor(indices=[[0, 0]], values=[1.5], dense_shape=[1, 2])
        out = tf.deserialize_many_sparse(tf.serialize_many_sparse(sp), tf.int32)

        def run(sess: Any) -> Any:
            try:
                sess.run(out.values)
            except tf.errors.InvalidArgumentError as e:
                return _message(e)
            return "no error"

        return run

    theirs, ours = run_both(build)
    assert ours == theirs


# -- decode_json_example --------------------------------------------------------------
_JSON_EXAMPLES = [
    '{"features": {"feature": {"b": {"int64List": {"value": ["1", 2]}}, '
    '"a": {"floatList": {"value": [1.5]}}, "c": {"bytesList": {"value": ["eHl6"]}}}}}',
    "{}",
    '{"features": {}}',
    '{"features": {"feature": {"z": {}, "y": {"int64List": {}}}}}',
    '{"features": {"feature": {"n": {"int64_list": {"value": [-1, "9223372036854775807"]}}, '
    '"f": {"float_list": {"value": ["NaN", "Infinity", -0.0, 1e-45]}}}}}',
    '{"features": {"feature": {"s": {"bytes_list": {"value": ["", "_-8=", "YQ"]}}}}}',
    [["{}", '{"features": {}}']],
]
_JSON_BAD = [
    "not json",
    '{"foo": 1}',
    '{"features": {"feature": {"a": {"floatList": {"value": [1e40]}}}}}',
]


@pytest.mark.parametrize("data", _JSON_EXAMPLES + _JSON_BAD, ids=repr)
def test_decode_json_example_as_tfs(data):
    def build(tf: Any, x: Any) -> Any:
        return tf.io.decode_json_example(x)

    theirs, ours = run_both(lambda tf: _host_outcome(tf, build, data))
    if len(theirs) == 3:  # an error: TF's detail text is randomly spaced, its lead is not
        assert ours[:2] == theirs[:2]
        assert ours[2].startswith("Error while parsing JSON: ")
        assert theirs[2].startswith("Error while parsing JSON: ")
    else:
        assert ours == theirs
