"""Reported TF1-parity bugs, each checked live against TF 2.21 as classic TF1 (``twin.py``).

- Queues: a Python value enqueued is converted to the queue's dtypes by TF's literal
  rules (``queue.enqueue(5)`` on a ``tf.string`` queue is TF's ``TypeError``; jtrain
  enqueued five NUL bytes), a tensor of another dtype is TF's ``ValueError`` naming the
  component.
- ``tf.quantization.quantize_and_dequantize``: TF's gradient (``QuantizeAndDequantizeV2``)
  is ``None`` for ``input_min``/``input_max``; ``quantize_and_dequantize_v2`` (V4) gives
  zeros there and the incoming gradient inside ``[input_min, input_max]``.
- ``table.lookup`` of a ``RaggedTensor`` (a ``RaggedTensor`` of the same row partition)
  or a ``SparseTensor`` (a ``SparseTensor``).
- ``tf.train.replica_device_setter``: canonical device names, merged with the op's own
  device as TF's ``DeviceSpec`` merges.
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np
import pytest

from adapters import v1 as jtf
from tests.interop.twin import assert_twins, classic_tf1, run_both, tf1

pytestmark = pytest.mark.interop


def _outcome(tf: Any, script: Any) -> Any:
    """``script(tf)``'s run (as ``twin.run_once``), or ``(error class name, message)``."""
    with classic_tf1() if tf is tf1 else contextlib.nullcontext():
        graph = tf.Graph()
        with graph.as_default():
            try:
                run = script(tf)
                with tf.Session(graph=graph) as sess:
                    return run(sess)
            except Exception as e:  # noqa: BLE001 - the error is the result compared
                return type(e).__name__, str(e)


def _outcomes(script: Any) -> tuple[Any, Any]:
    return _outcome(tf1, script), _outcome(jtf, script)


# -- queues: values converted to the queue's dtypes ------------------------------------


def _enqueue(dtype: str, value: Any, many: bool = False) -> Any:
    def script(tf):
        queue = tf.FIFOQueue(5, dtype, shapes=[[]])
        enqueue = queue.enqueue_many([value]) if many else queue.enqueue([value])
        dequeue = queue.dequeue_many(2) if many else queue.dequeue()
        return lambda sess: (sess.run(enqueue), sess.run(dequeue))[1]

    return script


# name -> (queue dtype, value, enqueue_many)
ENQUEUE_ERRORS = {
    "int into string": ("string", 5, False),
    "ints into string, many": ("string", [5, 6], True),
    "float into string": ("string", 5.0, False),
    "bool into string": ("string", True, False),
    "np.int32 into string": ("string", np.int32(5), False),
    "bytes then int into string, many": ("string", [b"a", 7], True),
    "None into int32": ("int32", None, False),
}


@pytest.mark.parametrize("case", list(ENQUEUE_ERRORS))
def test_enqueue_of_a_wrong_kind_is_tfs_error(case):
    """jtrain enqueued ``bytes(5)`` (five NUL bytes) for 5 on a string queue."""
    theirs, ours = _outcomes(_enqueue(*ENQUEUE_ERRORS[case]))
    assert isinstance(theirs, tuple), theirs
    assert ours == theirs


# TF's message for these comes from the literal conversion (constant_op.literal_array);
# the error class and its key words are checked here.
ENQUEUE_NUMERIC_ERRORS = {
    "float into int32": ("int32", 1.5, False, ["int32", "1.5", "float"]),
    "whole float into int32": ("int32", 2.0, False, ["int32", "2.0", "float"]),
    "int into bool": ("bool", 1, False, ["bool", "1", "int"]),
    "floats into int64, many": ("int64", [1.0, 2.0], True, ["int64", "1.0"]),
}


@pytest.mark.parametrize("case", list(ENQUEUE_NUMERIC_ERRORS))
def test_enqueue_of_a_float_into_an_integer_queue_is_tfs_type_error(case):
    """jtrain truncated 1.5 to 1 (an int32 queue) and took 1 as True."""
    dtype, value, many, words = ENQUEUE_NUMERIC_ERRORS[case]
    theirs, ours = _outcomes(_enqueue(dtype, value, many))
    assert theirs[0] == "TypeError", theirs
    assert isinstance(ours, tuple) and ours[0] == theirs[0], ours
    for word in words:
        assert word in theirs[1] and word in ours[1], (theirs, ours)


ENQUEUE_VALUES = {
    "bytes into string": ("string", b"ab\x00", False),
    "str into string": ("string", "ab", False),
    "strings, many": ("string", ["a", "bc"], True),
    "bool into int32": ("int32", True, False),
    "int into float32": ("float32", 1, False),
    "2**31 into int32 (wraps)": ("int32", 2**31, False),
    "2**63 into int64 (wraps)": ("int64", 2**63, False),
    "exact int64s, many": ("int64", [2**62 + 1, -(2**63)], True),
    "-1 into uint8 (wraps)": ("uint8", -1, False),
    "float64 keeps its bits": ("float64", 0.1, False),
}


@pytest.mark.parametrize("case", list(ENQUEUE_VALUES))
def test_enqueue_converts_as_tf(case):
    theirs, ours = run_both(_enqueue(*ENQUEUE_VALUES[case]))
    assert_twins(theirs, ours, rtol=0.0)


@pytest.mark.parametrize("dtypes", [("int32", "float32"), ("string", "int32")])
def test_enqueue_of_a_tensor_of_another_dtype_names_the_component(dtypes):
    """TF: ``component_0: Tensor conversion requested dtype ...`` (jtrain had no prefix)."""
    queue_dtype, tensor_dtype = dtypes

    def script(tf):
        queue = tf.FIFOQueue(5, [tf.float32, queue_dtype], shapes=[[], []])
        return lambda sess: sess.run(queue.enqueue([1.0, tf.zeros([], tensor_dtype)]))

    theirs, ours = _outcomes(script)
    assert theirs[0] == "ValueError" and theirs[1].startswith("component_1: "), theirs
    assert ours == theirs


def _priority(value: Any) -> Any:
    def script(tf):
        queue = tf.PriorityQueue(5, [tf.string], shapes=[[]])
        enqueue = queue.enqueue(value)
        return lambda sess: (sess.run(enqueue), sess.run(queue.dequeue()))[1]

    return script


def _named(a: Any, b: Any) -> Any:
    def script(tf):
        queue = tf.FIFOQueue(5, [tf.string, tf.float64], shapes=[[], []], names=["a", "b"])
        enqueue = queue.enqueue({"a": a, "b": b})
        return lambda sess: (sess.run(enqueue), sess.run(queue.dequeue()))[1]

    return script


def _numpy_into_string(tf):
    queue = tf.FIFOQueue(5, tf.string, shapes=[[2]])
    return lambda sess: sess.run(queue.enqueue(np.array([1, 2])))


OTHER_QUEUES = {
    "priority int64 priority": _priority((2**40 + 1, "a")),
    "priority float priority": _priority((1.5, "a")),
    "priority int value": _priority((1, 7)),
    "named": _named("x", 0.1),
    "named, int into string": _named(5, 0.1),
    "numpy ints into string": _numpy_into_string,
}


@pytest.mark.parametrize("case", list(OTHER_QUEUES))
def test_priority_named_and_numpy_enqueues_convert_as_tf(case):
    theirs, ours = _outcomes(OTHER_QUEUES[case])
    if isinstance(theirs, tuple) and isinstance(theirs[0], str):
        assert theirs[0] == "TypeError", theirs
        assert ours == theirs
        return
    assert_twins(theirs, ours, rtol=0.0)


def test_padding_and_random_shuffle_queues_convert_as_tf():
    def script(tf):
        padding = tf.PaddingFIFOQueue(5, [tf.string], shapes=[[None]])
        return lambda sess: sess.run(padding.enqueue([[b"a", 5]]))

    theirs, ours = _outcomes(script)
    assert theirs[0] == "TypeError", theirs
    assert ours == theirs

    def shuffle(tf):
        queue = tf.RandomShuffleQueue(5, 0, [tf.string, tf.int64], shapes=[[], []], seed=1)
        enqueue = queue.enqueue(["x", 2**40 + 1])
        return lambda sess: (sess.run(enqueue), sess.run(queue.dequeue()))[1]

    theirs, ours = run_both(shuffle)
    assert_twins(theirs, ours, rtol=0.0)


# -- quantize_and_dequantize gradients ---------------------------------------------------

X = np.array([-1.5, -0.3, 0.0, 0.2, 0.7, 1.9], np.float32)
X2 = (np.arange(6, dtype=np.float32).reshape(2, 3) / 3 - 0.6).astype(np.float32)


def _qdq(name: str, range_given: bool, dtype: str = "float32", per_channel: bool = False):
    def script(tf):
        x = tf.constant((X2 if per_channel else X).astype(dtype))
        lo = tf.constant([-1.0] * 3 if per_channel else -1.0, dtype)
        hi = tf.constant([1.0] * 3 if per_channel else 1.0, dtype)
        fn = getattr(tf.quantization, name)
        y = fn(x, lo, hi, range_given=range_given, axis=1 if per_channel else None)
        weights = tf.constant(np.arange(1, 7).reshape(x.shape.as_list()).astype(dtype))
        grads = tf.gradients(y * weights, [x, lo, hi])
        shapes = [None if g is None else g.shape.as_list() for g in grads]
        run_grads = [g for g in grads if g is not None]
        return lambda sess: (sess.run([y, *run_grads]), y.shape.as_list(), shapes)

    return script


QDQ_V2_CASES = {
    "range given": ("quantize_and_dequantize", True, "float32", False),
    "input's range": ("quantize_and_dequantize", False, "float32", False),
    "float64": ("quantize_and_dequantize", True, "float64", False),
    "per channel": ("quantize_and_dequantize", False, "float32", True),
}


@pytest.mark.parametrize("case", list(QDQ_V2_CASES))
def test_quantize_and_dequantize_gradient_is_none_for_the_range(case):
    theirs, ours = run_both(_qdq(*QDQ_V2_CASES[case]))
    assert theirs[2][1:] == [None, None]
    assert_twins(theirs, ours)


@pytest.mark.parametrize("case", list(QDQ_V2_CASES))
def test_quantize_and_dequantize_values_and_input_gradient(case):
    """The value and the straight-through input gradient (already TF's)."""

    def values(tf):
        run = _qdq(*QDQ_V2_CASES[case])(tf)
        return lambda sess: run(sess)[0][:2]

    theirs, ours = run_both(values)
    assert_twins(theirs, ours)


@pytest.mark.parametrize("case", list(QDQ_V2_CASES))
def test_quantize_and_dequantize_v2_gradient_inside_the_range(case):
    """V4's gradient: the incoming one inside [input_min, input_max], zeros to the range."""
    _, range_given, dtype, per_channel = QDQ_V2_CASES[case]
    theirs, ours = run_both(_qdq("quantize_and_dequantize_v2", range_given, dtype, per_channel))
    assert_twins(theirs, ours)


# -- lookup of ragged and sparse keys ----------------------------------------------------


def _show(value: Any) -> Any:
    if hasattr(value, "to_list"):  # a RaggedTensorValue
        return (
            "ragged",
            value.to_list(),
            np.asarray(value.flat_values).dtype.name,
            [np.asarray(s).dtype.name for s in value.nested_row_splits],
        )
    if hasattr(value, "indices"):  # a SparseTensorValue
        return ("sparse", value.indices, value.values, value.dense_shape)
    return value


def _lookup(table: str, keys: Any) -> Any:
    def script(tf):
        if table == "vocabulary":
            init = tf.lookup.KeyValueTensorInitializer(
                ["a", "b", "c"], tf.constant([0, 1, 2], tf.int64)
            )
            t = tf.lookup.StaticVocabularyTable(init, 2)
        elif table == "string keys":
            init = tf.lookup.KeyValueTensorInitializer(["a", "b", "c"], [1.5, 2.5, 3.5])
            t = tf.lookup.StaticHashTable(init, -1.0)
        else:
            init = tf.lookup.KeyValueTensorInitializer(
                tf.constant([1, 2, 3], tf.int64), ["x", "y", "z"]
            )
            t = tf.lookup.StaticHashTable(init, "?")
        out = t.lookup(keys(tf))
        static = (
            type(out).__name__,
            out.dtype.name,
            str(out.shape),
            getattr(out, "ragged_rank", None),
        )
        return lambda sess: (sess.run(tf.tables_initializer()), static, _show(sess.run(out)))[1:]

    return script


KEYS = {
    "ragged": lambda tf: tf.ragged.constant([["a", "q"], [], ["c"]]),
    "ragged, int32 splits": lambda tf: tf.RaggedTensor.from_row_splits(
        tf.constant(["a", "q", "c"]), tf.constant([0, 2, 2, 3], tf.int32)
    ),
    "ragged rank 2": lambda tf: tf.ragged.constant([[["a"], ["b", "z"]], [], [["c"]]]),
    "ragged int64": lambda tf: tf.ragged.constant([[1, 5], [], [3]], dtype=tf.int64),
    "ragged int32": lambda tf: tf.ragged.constant([[1, 5], [], [3]]),
    "sparse": lambda tf: tf.SparseTensor([[0, 0], [1, 2]], ["a", "zz"], [2, 3]),
    "sparse int64": lambda tf: tf.SparseTensor(
        [[0, 0], [1, 2]], tf.constant([3, 9], tf.int64), [2, 3]
    ),
}

# name -> (table, keys); TF's StaticHashTable refuses ragged keys of two ragged
# dimensions (it converts their ``values``, a RaggedTensor, to a tensor) where its
# StaticVocabularyTable takes them, and keys of another dtype are a TypeError.
LOOKUPS = {
    "hash table, ragged": ("string keys", "ragged"),
    "hash table, ragged int32 splits": ("string keys", "ragged, int32 splits"),
    "hash table, ragged rank 2 (TF: TypeError)": ("string keys", "ragged rank 2"),
    "hash table, ragged int64 keys": ("int64 keys", "ragged int64"),
    "hash table, ragged of another dtype (TypeError)": ("string keys", "ragged int32"),
    "hash table, sparse": ("string keys", "sparse"),
    "hash table, sparse int64 keys": ("int64 keys", "sparse int64"),
    "vocabulary, ragged": ("vocabulary", "ragged"),
    "vocabulary, ragged rank 2": ("vocabulary", "ragged rank 2"),
    "vocabulary, sparse": ("vocabulary", "sparse"),
}


@pytest.mark.parametrize("case", list(LOOKUPS))
def test_lookup_of_ragged_and_sparse_keys(case):
    table, keys = LOOKUPS[case]
    theirs, ours = _outcomes(_lookup(table, KEYS[keys]))
    if isinstance(theirs, tuple) and isinstance(theirs[0], str):
        assert theirs[0] == "TypeError", theirs
        assert isinstance(ours, tuple) and ours[0] == theirs[0], ours
        # The message shows the ragged tensor, whose node names differ.
        assert ours[1].split("(")[0] == theirs[1].split("(")[0], (theirs, ours)
        return
    assert_twins(theirs, ours, rtol=0.0)


# -- replica_device_setter -----------------------------------------------------------------


def _devices(tf: Any) -> list[str]:
    out = []
    with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
        a, b, c = (tf.Variable(1.0, name=n) for n in "abc")
        d = a + b
        out += [a.op.device, b.op.device, c.op.device, d.op.device]
    cluster = {"ps": ["h:1", "h:2"], "worker": ["w:1"]}
    with tf.device(
        tf.train.replica_device_setter(cluster=cluster, worker_device="/job:worker/task:0")
    ):
        e = tf.Variable(1.0, name="e")
        out += [e.op.device, (e * 2).op.device]
        with tf.device("/cpu:0"):
            h = tf.Variable(1.0, name="h")
            out += [h.op.device, (h + 1).op.device]
        with tf.device("/job:foo"):
            m = tf.Variable(1.0, name="m")
            out += [m.op.device, (m + 1).op.device]
    with tf.device("/gpu:1"):
        setter = tf.train.replica_device_setter(
            ps_tasks=3, ps_device="/job:ps/cpu:0", worker_device="/job:worker/task:1/gpu:0"
        )
        with tf.device(setter):
            p = tf.Variable(1.0, name="p")
            out += [p.op.device, (p * 2).op.device]
    with tf.device(tf.train.replica_device_setter(ps_tasks=2, merge_devices=False)):
        with tf.device("/cpu:0"):
            r = tf.Variable(1.0, name="r")
            out += [r.op.device, (r + 1).op.device]
        t = tf.Variable(1.0, name="t")
        out += [t.op.device, (t + 1).op.device]
    with tf.device(tf.train.replica_device_setter(ps_tasks=2, ps_device="", worker_device="")):
        v = tf.Variable(1.0, name="v")
        out += [v.op.device, (v + 1).op.device]
    with tf.device(tf.train.replica_device_setter(ps_tasks=2, ps_device="/cpu:0")):
        w = tf.Variable(1.0, name="w")
        out += [w.op.device, (w + 1).op.device]
    with tf.device(tf.train.replica_device_setter(ps_tasks=2, ps_strategy=lambda op: 1)):
        g = tf.get_variable("g", [2])
        out += [g.op.device, (g + 1).op.device]
    return out


def test_replica_device_setter_devices_are_tfs():
    """jtrain wrote ``/job:ps/task:0`` without the op's ``/cpu:0`` (TF merges it:
    ``/job:ps/task:0/device:CPU:0``), ``/cpu:0`` uncanonical, and replaced an op's own
    job (``/job:foo``) with the ps/worker one."""
    results = []
    for tf in (tf1, jtf):
        with classic_tf1() if tf is tf1 else contextlib.nullcontext():
            with tf.Graph().as_default():
                results.append(_devices(tf))
    theirs, ours = results
    assert "/job:ps/task:0/device:CPU:0" in theirs
    assert ours == theirs
