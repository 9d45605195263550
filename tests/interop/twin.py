"""One TF1 snippet run twice: under TF 2.21's ``compat.v1`` and under ``adapters.v1``.

``run_both(script)`` calls ``script(tf)`` once with each module (TF's as classic TF1
builds graphs, ``classic_tf1``), inside a fresh graph
of that module; the script builds its graph with the ``tf`` it is given and returns a
function ``run(sess)``, which is called in a session of that graph after its global
and local variables are initialized, and whose result is returned. ``assert_twins``
compares the two results: the same structure, dtypes and shapes, values within a
tolerance (float32 math summed in different orders differs by a few ulps).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import jax
import numpy as np
import tensorflow as real_tf

from adapters import v1 as jtf

tf1 = real_tf.compat.v1

Script = Callable[[Any], Callable[[Any], Any]]


@contextlib.contextmanager
def tf2_behaviour_off() -> Iterator[None]:
    """TF 2 behaviour off (``tf2.enabled()`` False) as ``disable_v2_behavior()`` leaves a
    TF1 script's process, the process's setting restored after: what TF's Keras reads
    (TF1 metric names such as ``acc``, the legacy serialization format, ``backend.rnn``'s
    loops) beside the graph toggles :func:`classic_tf1` sets."""
    from tensorflow.python import tf2

    enabled = tf2.enabled()
    tf2.disable()
    try:
        yield
    finally:
        if enabled:
            tf2.enable()


@contextlib.contextmanager
def classic_tf1() -> Iterator[None]:
    """TF's graphs built as classic TF1 builds them (what ``disable_v2_behavior()`` sets
    for graphs: TF1 control flow, reference variables, TF1 ``TensorShape``s, tensors
    hashed by identity), the process's settings restored after: the interop tests run
    with TF 2's defaults, under which ``tf.compat.v1.while_loop`` or ``get_variable``
    behave otherwise."""
    from tensorflow.python.framework import tensor, tensor_shape

    saved = (
        tf1.control_flow_v2_enabled(),
        tf1.resource_variables_enabled(),
        tensor_shape._TENSORSHAPE_V2_OVERRIDE,
        tensor.Tensor._USE_EQUALITY,
    )
    tf1.disable_control_flow_v2()
    tf1.disable_resource_variables()
    tf1.disable_v2_tensorshape()
    tf1.disable_tensor_equality()
    try:
        yield
    finally:
        control_flow, resources, shapes, equality = saved
        (tf1.enable_control_flow_v2 if control_flow else tf1.disable_control_flow_v2)()
        (tf1.enable_resource_variables if resources else tf1.disable_resource_variables)()
        (tf1.enable_v2_tensorshape if shapes else tf1.disable_v2_tensorshape)()
        (tf1.enable_tensor_equality if equality else tf1.disable_tensor_equality)()


def unfused_config() -> Any:
    """A TF ``ConfigProto`` with grappler's remapper off: TF's kernels op by op.

    By default TF 2.21's remapper fuses ``MatMul`` + ``BiasAdd`` (+ ``Tanh``,
    ``Sigmoid``, ``Relu``...) into one oneDNN kernel on x86 CPUs, whose activations are
    oneDNN's own approximations, chosen by the CPU's instruction set (a GRU cell's
    output: 1 ulp from TF's ``Tanh`` kernel, measured). jtrain computes TF's kernels one
    by one, which is what TF gives with this config."""
    from tensorflow.core.protobuf import rewriter_config_pb2

    config = tf1.ConfigProto()
    config.graph_options.rewrite_options.remapping = rewriter_config_pb2.RewriterConfig.OFF
    return config


def run_once(tf: Any, script: Script, tf_config: Any = None) -> Any:
    """``script`` built and run with ``tf`` (TF's ``compat.v1``, as classic TF1, or
    ``adapters.v1``); ``tf_config``, a ``ConfigProto``, for TF's session only."""
    with classic_tf1() if tf is tf1 else contextlib.nullcontext():
        graph = tf.Graph()
        with graph.as_default():
            run = script(tf)
            init = [tf.global_variables_initializer(), tf.local_variables_initializer()]
            config = tf_config if tf is tf1 else None
            with tf.Session(graph=graph, config=config) as sess:
                sess.run(init)
                return run(sess)


def run_both(script: Script, tf_config: Any = None) -> tuple[Any, Any]:
    """``(TF's result, jtrain's result)`` of ``script`` (see the module docstring);
    ``tf_config`` for TF's session (e.g. :func:`unfused_config`)."""
    return run_once(tf1, script, tf_config), run_once(jtf, script)


def assert_twins(theirs: Any, ours: Any, rtol: float = 1e-6, atol: float = 0.0) -> None:
    """``ours`` (jtrain's) has ``theirs``'s (TF's) structure, and each leaf its dtype,
    shape and values within ``rtol``/``atol``; ``None`` leaves (no gradient) match."""
    t_leaves, t_def = jax.tree.flatten(theirs, is_leaf=lambda x: x is None)
    o_leaves, o_def = jax.tree.flatten(ours, is_leaf=lambda x: x is None)
    assert o_def == t_def, f"structure: jtrain {o_def} vs TF {t_def}"
    for i, (t, o) in enumerate(zip(t_leaves, o_leaves, strict=True)):
        if t is None or o is None:
            assert t is None and o is None, f"leaf {i}: jtrain {o!r} vs TF {t!r}"
            continue
        t, o = np.asarray(t), np.asarray(o)
        assert o.dtype == t.dtype, f"leaf {i}: dtype jtrain {o.dtype} vs TF {t.dtype}"
        assert o.shape == t.shape, f"leaf {i}: shape jtrain {o.shape} vs TF {t.shape}"
        if t.dtype.kind in "OSU":
            assert o.tolist() == t.tolist(), f"leaf {i}"
        else:
            np.testing.assert_allclose(o, t, rtol=rtol, atol=atol, err_msg=f"leaf {i}")


def kernel_message(error: BaseException) -> tuple[str, str]:
    """``(error class name, the kernel's message)`` of a run's error: the line before
    ``[[{{node ...}}]]`` (TF wraps it in the graph's tracebacks), else the first line."""
    lines = str(getattr(error, "message", error)).split("\n")
    ends = [i for i, line in enumerate(lines) if line.strip().startswith("[[")]
    line = lines[ends[0] - 1] if ends and ends[0] > 0 else lines[0]
    return type(error).__name__, line.strip()
