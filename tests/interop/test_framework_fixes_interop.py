"""Where jtrain's graph differed from TF1's, checked live against TF 2.21 (classic TF1
graphs, ``twin.classic_tf1``): device scopes, control dependencies that are also data
inputs, the op table's conversion of Python values, a text-file table keyed by whole
lines, ``tf.debugging.enable_check_numerics`` and ``TensorProto`` decoding.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from adapters import v1 as jtf
from adapters.v1.framework import graph_def as graph_def_lib
from tests.interop.twin import assert_twins, classic_tf1, run_both, tf1

pytestmark = pytest.mark.interop


def build_both(script: Callable[[Any], Any]) -> tuple[Any, Any]:
    """``script(tf)`` inside a fresh graph of TF (classic TF1) and of jtrain."""
    results = []
    for tf in (tf1, jtf):
        with classic_tf1() if tf is tf1 else contextlib.nullcontext():
            with tf.Graph().as_default():
                results.append(script(tf))
    return results[0], results[1]


# -- 1. tf.device -------------------------------------------------------------------


def device_script(tf: Any) -> dict[str, Any]:
    c = lambda name: tf.constant(1.0, name=name)  # noqa: E731
    with tf.device("/gpu:0"):
        c("gpu_lower")
    with tf.device("CPU:0"):
        c("cpu_bare")
    with tf.device("/gpu:*"):
        c("gpu_any")
    with tf.device("/job:worker/replica:0/task:1/cpu:0"):
        c("full")
    with tf.device("/job:worker"):
        with tf.device("/gpu:1"):
            c("merged")
        with tf.device(None):
            c("cleared")
        with tf.device("/cpu:0"):
            with tf.device("/job:ps/task:2"):
                c("merged3")
    with tf.device("/gpu:0"):
        with tf.device(""):
            c("empty_inner")
    with tf.device(tf.DeviceSpec(job="ps", device_type="GPU", device_index=0)):
        c("spec")
    with tf.device(lambda op: "/gpu:3"):
        c("function_raw")
    with tf.device("/job:w"):
        with tf.device(lambda op: "/gpu:3"):
            c("function_merged")
        with tf.device(lambda op: "/gpu:3" if op.type == "Const" else op.device):
            k = c("by_type")
            tf.identity(k, name="by_type_identity")
    with tf.device(lambda op: "/gpu:3"):
        with tf.device("/job:z"):
            c("spec_inside_function")
    with tf.device("/gpu:3"):
        with tf.device(lambda op: "/job:z"):
            c("function_inside_spec")
    with tf.device(lambda op: tf.DeviceSpec(job="x")):
        c("function_spec")
    spec = tf.DeviceSpec(job="ps")
    with tf.device(spec):
        spec.task = 3  # TF reads the spec when the op is created
        c("mutated")
    with tf.device("/job:a/gpu:0"):
        anchor = c("anchor")
    with tf.device("/cpu:0"):
        with tf.colocate_with(anchor):
            c("colocated")
    graph = tf.get_default_graph()
    ops = {op.name: op.device for op in graph.get_operations()}
    nodes = {n.name: n.device for n in graph.as_graph_def().node}
    return {"ops": ops, "nodes": nodes}


def test_device_scopes_canonical_merged_and_recorded_as_tf() -> None:
    theirs, ours = build_both(device_script)
    assert ours == theirs


def test_device_string_tf_cannot_parse_raises_when_entered() -> None:
    def script(tf: Any) -> str:
        try:
            with tf.device("/foo:0"):
                pass
        except ValueError as e:
            return str(e)
        return "no error"

    theirs, ours = build_both(script)
    assert ours == theirs


# -- 2. control dependencies that are data inputs ---------------------------------------


def control_script(tf: Any) -> dict[str, Any]:
    a = tf.constant(1.0, name="a")
    z = tf.constant(2.0, name="z")
    with tf.control_dependencies([a]):
        b = tf.identity(a, name="b")
        c = tf.constant(3.0, name="c")
        tf.add(c, z, name="d")
        with tf.control_dependencies([a, z]):
            tf.identity(c, name="e")
            tf.identity(z, name="f")
            tf.add(b, z, name="h")
    with tf.control_dependencies([a]):
        with tf.control_dependencies(None):
            tf.constant(1.0, name="i")
        with tf.control_dependencies([b]):
            tf.identity(a, name="j")
    graph = tf.get_default_graph()
    controls = {op.name: [c.name for c in op.control_inputs] for op in graph.get_operations()}
    inputs = {n.name: list(n.input) for n in graph.as_graph_def().node}
    return {"controls": controls, "inputs": inputs}


def test_control_dependency_that_is_a_data_input_is_dropped_as_tf() -> None:
    theirs, ours = build_both(control_script)
    assert ours == theirs
    assert ours["controls"]["b"] == []  # with control_dependencies([a]): b = f(a)


# -- 3. the op table's conversion of Python values --------------------------------------

CONVERSIONS = {
    "add floats": lambda tf: tf.add(1.5, 2.0),
    "add float, int": lambda tf: tf.add(2.5, 1),
    "maximum ints": lambda tf: tf.maximum(3, 4),
    "add int lists": lambda tf: tf.add([1, 2], [3, 4]),
    "add float64, float": lambda tf: tf.add(np.float64(1.5), 2.0),
    "add float, float64": lambda tf: tf.add(2.0, np.float64(1.5)),
    "add int64, int": lambda tf: tf.add(np.int64(1), 2),
    "add large ints": lambda tf: tf.add(2**40, 1),
    "pow ints": lambda tf: tf.pow(2, 3),
    "atan2 float, int": lambda tf: tf.atan2(1.0, 2),
    "fill": lambda tf: tf.fill([2], 1.5),
    "adjust_contrast int factor": lambda tf: tf.image.adjust_contrast([[[0.5], [0.25]]], 2),
    "adjust_saturation int factor": lambda tf: tf.image.adjust_saturation(
        [[[0.5, 0.25, 0.125]]], 2
    ),
    "adjust_hue int delta": lambda tf: tf.image.adjust_hue([[[0.5, 0.25, 0.125]]], 0),
    "rgb_to_hsv int image": lambda tf: tf.image.rgb_to_hsv([[[1, 2, 3]]]),
    "hsv_to_rgb floats": lambda tf: tf.image.hsv_to_rgb([[[0.5, 0.25, 0.75]]]),
    "adjust_brightness": lambda tf: tf.image.adjust_brightness([[[0.5]]], 0.25),
    "flip ints": lambda tf: tf.image.flip_left_right([[[1], [2]]]),
}


@pytest.mark.parametrize("case", sorted(CONVERSIONS))
def test_python_values_convert_as_tf(case: str) -> None:
    build = CONVERSIONS[case]
    theirs, ours = run_both(lambda tf: (lambda out: lambda sess: sess.run(out))(build(tf)))
    assert_twins(theirs, ours)


CONVERSION_ERRORS = {
    "multiply int, float tensor": lambda tf: tf.multiply(2, tf.constant(1.5)),
    "add int, float (tf.add converts y itself)": lambda tf: tf.add(1, 2.5),
    "add int list, float list": lambda tf: tf.add([1, 2], [3.5, 4]),
    "squared_difference int, float": lambda tf: tf.math.squared_difference(3, 1.5),
    "subtract int, float list": lambda tf: tf.subtract([1, 2], [3.5, 4]),
}


@pytest.mark.parametrize("case", sorted(CONVERSION_ERRORS))
def test_python_values_refused_as_tf(case: str) -> None:
    build = CONVERSION_ERRORS[case]

    def script(tf: Any) -> tuple[str, str]:
        try:
            build(tf)
        except (TypeError, ValueError) as e:
            return type(e).__name__, str(e)
        return "no error", ""

    theirs, ours = build_both(script)
    assert ours == theirs


# -- 4. a text file's whole line as an integer key ----------------------------------------


def test_text_file_whole_line_integer_keys(tmp_path: Any) -> None:
    path = tmp_path / "ids.txt"
    path.write_text("42\n7\n-3\n")

    def script(tf: Any) -> Any:
        index = tf.lookup.TextFileIndex
        init = tf.lookup.TextFileInitializer(
            str(path), tf.int64, index.WHOLE_LINE, tf.int64, index.LINE_NUMBER
        )
        table = tf.lookup.StaticHashTable(init, -1)
        out = table.lookup(tf.constant([42, 7, -3, 5], tf.int64))
        return lambda sess: (sess.run(tf.tables_initializer()), sess.run(out))[1]

    theirs, ours = run_both(script)
    assert_twins(theirs, ours)


def test_text_file_whole_line_not_an_integer_fails_the_run_as_tf(tmp_path: Any) -> None:
    path = tmp_path / "ids.txt"
    path.write_text("42\nx7\n")

    def script(tf: Any) -> Any:
        index = tf.lookup.TextFileIndex
        init = tf.lookup.TextFileInitializer(
            str(path), tf.int64, index.WHOLE_LINE, tf.int64, index.LINE_NUMBER
        )
        table = tf.lookup.StaticHashTable(init, -1)

        def run(sess: Any) -> Any:
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(tf.tables_initializer())
            lines = [line.strip() for line in info.value.message.splitlines()]
            return "Field x7 in line 1 is not a valid int64." in lines or lines

        del table
        return run

    theirs, ours = run_both(script)
    assert theirs is True
    assert ours is True


@pytest.mark.parametrize(
    "key_dtype, key_index, value_dtype, value_index",
    [
        ("float32", -2, "int64", -1),
        ("string", -1, "int64", -2),
        ("int64", -1, "float32", -2),
        ("string", -3, "int64", -1),
        ("string", 0, "int64", -3),
        ("string", 0, "string", -1),
    ],
)
def test_text_file_index_checks_as_tf(
    key_dtype: str, key_index: int, value_dtype: str, value_index: int
) -> None:
    def script(tf: Any) -> str:
        try:
            tf.lookup.TextFileInitializer(
                "unused.txt",
                tf.as_dtype(key_dtype),
                key_index,
                tf.as_dtype(value_dtype),
                value_index,
            )
        except ValueError as e:
            return str(e)
        return "no error"

    theirs, ours = build_both(script)
    assert ours == theirs


# -- 5. tf.debugging.enable_check_numerics ----------------------------------------------


def numerics_script(tf: Any) -> Any:
    tf.debugging.enable_check_numerics()
    try:
        x = tf.placeholder(tf.float32, shape=[None, 2], name="x")
        with tf.name_scope("outer"):
            y = tf.math.log(x, name="y")
        w = tf.constant([1.0, 2.0], name="w")
        z = tf.multiply(y, w, name="z")
        r = tf.reshape(z, [-1], name="r")
    finally:
        tf.debugging.disable_check_numerics()
    after = tf.math.log(x, name="after")
    graph = tf.get_default_graph()
    structure = {
        "names": [y.name, z.name, r.name, after.name],
        "z inputs": [t.name for t in z.op.inputs],
        "log controls": [c.name for c in y.op.inputs[0].op.control_inputs],
        "types": sorted(
            (op.name, op.type) for op in graph.get_operations() if op.type == "CheckNumericsV2"
        ),
    }

    def run(sess: Any) -> Any:
        failures = []
        for feed, fetch in [
            ([[-1.0, 1.0]], z),
            ([[0.0, 1.0]], y),
            ([[np.inf, -np.inf]], z),
            ([[np.nan, 1.0]], z),
        ]:
            try:
                sess.run(fetch, {x: feed})
                failures.append(None)
            except tf.errors.InvalidArgumentError as e:
                message = e.message.split("\n\t [[")[0]  # TF appends the node
                # TF's run error starts with where the node was defined
                head = message[message.index("!!! Detected") :]
                failures.append(
                    (
                        e.op.name,
                        head.split("\n\n  ")[0].split("\n\n : ")[0],
                        message.rpartition(" : ")[2],
                    )
                )
        finite = sess.run(r, {x: [[1.0, 1.0]]})
        after_nan = sess.run(after, {x: [[-1.0, 1.0]]})
        return {
            "failures": failures,
            "finite": finite,
            "after is nan": bool(np.isnan(after_nan[0, 0])),
        }

    return structure, run


def test_enable_check_numerics_as_tf() -> None:
    theirs, ours = build_both(lambda tf: numerics_script(tf)[0])
    assert ours == theirs
    theirs, ours = run_both(lambda tf: numerics_script(tf)[1])
    assert ours["failures"] == theirs["failures"]
    assert_twins(theirs["finite"], ours["finite"])
    assert ours["after is nan"] is theirs["after is nan"] is True


# -- 6. TensorProto decoding: one home ---------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        np.array([1.5, -2.0], np.float16),
        np.array([[1 + 2j, 3 - 4j]], np.complex64),
        np.array([b"a", b"bc"], object),
        np.array([7], np.uint16),
        np.array(2.5, np.float64),
    ],
    ids=["float16", "complex64", "string", "uint16", "float64 scalar"],
)
def test_const_value_decodes_as_tf(value: np.ndarray) -> None:
    import tensorflow as real_tf

    proto = real_tf.make_tensor_proto(value)
    ours = graph_def_lib.tensor_value(proto)
    theirs = real_tf.make_ndarray(proto)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    assert ours.tolist() == theirs.tolist()


def test_const_value_fewer_values_repeat_the_last_as_tf() -> None:
    import tensorflow as real_tf
    from tensorflow.core.framework import tensor_pb2

    proto = tensor_pb2.TensorProto(dtype=real_tf.float16.as_datatype_enum)
    proto.tensor_shape.dim.add(size=3)
    proto.half_val.extend([int(np.float16(1.5).view(np.uint16))])
    ours = graph_def_lib.tensor_value(proto)
    theirs = real_tf.make_ndarray(proto)
    assert ours.dtype == theirs.dtype and ours.tolist() == theirs.tolist()
