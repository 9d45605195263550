"""The profiler's op log: each op's float operations and extra types (TF's
``tensorflow/python/profiler/tfprof_logger.py``), and ``tf.profiler.write_op_log``.

Each op's float operations are TF's registered count (``flops_registry.py``); the ops
of trainable variables get the type ``_trainable_variables``.

.. note:: jtrain builds some of TF's multi-op functions as one op (a variable's
   random initializer, ``tf.losses``, ``tf.gradients``, an optimizer's update, a
   lifted JAX function). A random initializer counts what TF's initializer ops count
   (uniform: ``2n+1``, normal and truncated normal: ``2n``, measured against TF 2.21),
   and ``flops_registry.composite_float_ops`` gives TF's count for softmax and sigmoid
   cross entropy, clip_by_value, moments, batch_normalization (with both or neither of
   offset and scale) and jtrain's random ops, under jtrain's op name. For the other
   such ops (an op type TF lacks, or a TF type with more inputs than TF's op) jtrain
   cannot give TF's count, and asking for float operations raises
   ``NotImplementedError`` naming them.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

from adapters.v1.framework import ops as ops_lib
from adapters.v1.profiler import flops_registry
from adapters.v1.profiler.option_builder import TRAINABLE_VARIABLES

__all__ = ["TRAINABLE_VARIABLES", "merge_default_with_oplog", "write_op_log", "OpLog"]


class OpLog:
    """The op log of a graph: ``entries`` (an ``OpLogProto``) and ``unknown``, the ops
    whose TF float operations jtrain cannot give (composites, see the module note)."""

    def __init__(self, proto: Any, unknown: list[Any]):
        self.proto = proto
        self.unknown = unknown

    def check_float_ops(self) -> None:
        """Raises ``NotImplementedError`` naming the ops without TF's float operations."""
        if not self.unknown:
            return
        listed = ", ".join(f"{op.name!r} ({op.type})" for op in self.unknown[:8])
        more = f" and {len(self.unknown) - 8} more" if len(self.unknown) > 8 else ""
        raise NotImplementedError(
            f"tf.profiler float operations: jtrain builds {listed}{more} as one op where "
            "TF builds several ops and counts their float operations op by op, so TF's "
            "count is unknown to jtrain. Profile float operations on a graph holding the "
            "model's layers only (before the loss, tf.gradients or minimize are built), "
            "or profile parameters (ProfileOptionBuilder.trainable_variables_parameter())."
        )


def _sampler_names(op: Any) -> set[str]:
    """The ``jax.random`` names the sample function of an ``init_ops`` initializer op
    calls (``uniform``, ``normal``, ``truncated_normal``...), found among the functions
    the op's function closes over."""
    seen: set[int] = set()
    names: set[str] = set()
    todo: list[tuple[Any, int]] = [(op._compute, 0)]
    while todo:
        fn, depth = todo.pop()
        if id(fn) in seen or depth > 4:
            continue
        seen.add(id(fn))
        code = getattr(fn, "__code__", None)
        if code is not None and "_initializer.__call__" in getattr(fn, "__qualname__", ""):
            names.update(code.co_names)
        for cell in getattr(fn, "__closure__", None) or ():
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            if callable(value) and not isinstance(value, type):
                todo.append((value, depth + 1))
    return names


def _random_initializer_flops(op: Any) -> int | None:
    """TF's float operations of the ops TF's initializer builds (``None``: unknown):
    TF scales and shifts a uniform sample with ``sub`` (1), ``mul`` and ``add`` (``n``
    each), a normal or truncated normal one with ``mul`` and ``add``; integer uniform
    samples are drawn directly."""
    if not op.name.endswith("/Initializer/random_initializer") or len(op.outputs) != 1:
        return None
    out = op.outputs[0]
    n = flops_registry._count(out)
    names = _sampler_names(op)
    if "uniform" in names:
        return 2 * n + 1 if np.issubdtype(out.dtype.as_numpy_dtype, np.floating) else 0
    if names & {"normal", "truncated_normal"}:
        return 2 * n
    return None


def logged_ops(graph: Any, add_trainable_var: bool = True) -> OpLog:
    """The op log of ``graph``: float operations per op, trainable variable types.

    Writes TF's ``"N ops no flops stats due to incomplete shapes."`` to stderr when
    counts needed shapes that are not fully static (those ops count 0).
    """
    from jtrain.protos import tfprof_log_pb2

    entries: dict[str, Any] = {}
    unknown = []
    missing_shape = 0
    for op in graph.get_operations():
        try:
            if flops_registry.stands_for_tf_ops(op):
                count = _random_initializer_flops(op)
                if count is None:
                    count = flops_registry.composite_float_ops(op)
            else:
                count = flops_registry.float_ops(op)
        except ValueError:
            missing_shape += 1
            continue
        except NotImplementedError:
            unknown.append(op)
            continue
        if count:
            entries[op.name] = tfprof_log_pb2.OpLogEntry(name=op.name, float_ops=count)
    if add_trainable_var:
        for v in graph.get_collection(ops_lib.GraphKeys.TRAINABLE_VARIABLES):
            name = v.op.name
            entry = entries.setdefault(name, tfprof_log_pb2.OpLogEntry(name=name))
            entry.types.append(TRAINABLE_VARIABLES)
    if missing_shape:
        sys.stderr.write(f"{missing_shape} ops no flops stats due to incomplete shapes.\n")
    proto = tfprof_log_pb2.OpLogProto()
    proto.log_entries.extend(entries.values())
    proto.id_to_string[0] = "none"
    return OpLog(proto, unknown)


def _check_run_meta(run_meta: Any) -> None:
    if run_meta:
        raise NotImplementedError(
            "tf.profiler with run_meta: TF fills shapes and times from a RunMetadata's "
            "per-op step stats, and a jtrain step is one XLA program with no per-op "
            "stats; profile device time with jax.profiler (or tf.train.ProfilerHook)."
        )


def merge_default_with_oplog(
    graph: Any,
    op_log: Any = None,
    run_meta: Any = None,
    add_trace: bool = True,
    add_trainable_var: bool = True,
) -> OpLog:
    """The graph's op log merged with the caller's ``op_log`` (TF's rules: the caller's
    entries keep their float operations when non-zero, types are appended).

    Args:
      graph: a ``Graph`` (``None``: the default graph).
      op_log: an ``OpLogProto`` or ``None``.
      run_meta: must be ``None`` (see ``_check_run_meta``).
      add_trace: accepted; jtrain ops record no Python traces (no code view).
      add_trainable_var: give trainable variables' ops the ``_trainable_variables`` type.

    Returns:
      An :class:`OpLog`.
    """
    from jtrain.protos import tfprof_log_pb2

    del add_trace
    _check_run_meta(run_meta)
    graph = graph or ops_lib.get_default_graph()
    mine = logged_ops(graph, add_trainable_var)
    if not op_log:
        return mine
    merged: dict[str, Any] = {}
    for entry in op_log.log_entries:
        merged[entry.name] = tfprof_log_pb2.OpLogEntry()
        merged[entry.name].CopyFrom(entry)
    for entry in mine.proto.log_entries:
        theirs = merged.get(entry.name)
        if theirs is None:
            merged[entry.name] = entry
            continue
        theirs.types.extend(entry.types)
        if entry.float_ops > 0 and theirs.float_ops == 0:
            theirs.float_ops = entry.float_ops
    proto = tfprof_log_pb2.OpLogProto()
    proto.log_entries.extend(merged.values())
    proto.id_to_string[0] = "none"
    return OpLog(proto, mine.unknown)


def write_op_log(
    graph: Any,
    log_dir: str,
    op_log: Any = None,
    run_meta: Any = None,
    add_trace: bool = True,
) -> None:
    """Writes the graph's op log (``OpLogProto``) to ``log_dir/tfprof_log``
    (``tf.profiler.write_op_log``), atomically.

    Args:
      graph: a ``Graph`` (``None``: the default graph).
      log_dir: the existing directory to write ``tfprof_log`` in.
      op_log: an ``OpLogProto`` to merge in, or ``None``.
      run_meta: must be ``None``.
      add_trace: accepted (jtrain ops record no Python traces).

    Raises:
      tf.errors.NotFoundError: ``log_dir`` does not exist (TF's).
      NotImplementedError: ``run_meta`` given, or the graph holds ops whose TF float
        operations jtrain cannot give (module note).
    """
    log = merge_default_with_oplog(graph, op_log, run_meta, add_trace)
    log.check_float_ops()
    path = os.path.join(log_dir, "tfprof_log")
    if not os.path.isdir(log_dir):
        from jtrain import errors

        raise errors.NotFoundError(None, None, f"{path}; No such file or directory")
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(log.proto.SerializeToString())
    os.replace(tmp, path)
