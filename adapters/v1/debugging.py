"""``tf.debugging``: run-time checks (``check_numerics``, ``Assert``, ``assert_*``)."""

from typing import Any

from adapters.v1._missing import missing_name_getattr
from adapters.v1.framework.op_def import tf_names
from adapters.v1.framework.tensor_util import is_numeric_tensor
from adapters.v1.ops import math_ops  # noqa: F401  (fills TF's op table)
from adapters.v1.ops.check_ops import (
    assert_equal,
    assert_greater,
    assert_greater_equal,
    assert_integer,
    assert_less,
    assert_less_equal,
    assert_near,
    assert_negative,
    assert_non_negative,
    assert_non_positive,
    assert_none_equal,
    assert_positive,
    assert_proper_iterable,
    assert_rank,
    assert_rank_at_least,
    assert_rank_in,
    assert_same_float_dtype,
    assert_scalar,
    assert_shapes,
    assert_type,
)
from adapters.v1.ops.control_flow_ops import Assert
from adapters.v1.ops.numerics import check_numerics
from adapters.v1.ops.numerics import verify_tensor_all_finite as assert_all_finite

_state = {"log_device_placement": False, "traceback_filtering": True}


def set_log_device_placement(enabled: bool) -> None:
    """``tf.debugging.set_log_device_placement``: records whether to log op placement.

    Args:
      enabled: whether placement logging is on.

    .. note::
       TF applies this to eager ops and ``tf.function``s; a classic ``tf.Session``
       logs placements only through ``ConfigProto(log_device_placement=True)``. jtrain
       keeps the setting for :func:`get_log_device_placement` and logs nothing (a
       step is one XLA program on the session's device).
    """
    _state["log_device_placement"] = bool(enabled)


def get_log_device_placement() -> bool:
    """``tf.debugging.get_log_device_placement``: the last value set (default False)."""
    return _state["log_device_placement"]


def enable_traceback_filtering() -> None:
    """``tf.debugging.enable_traceback_filtering`` (TF's default: on).

    .. note::
       jtrain keeps the setting (see :func:`is_traceback_filtering_enabled`) but never
       removes frames from tracebacks: its errors show every frame either way.
    """
    _state["traceback_filtering"] = True


def disable_traceback_filtering() -> None:
    """``tf.debugging.disable_traceback_filtering``: see :func:`enable_traceback_filtering`."""
    _state["traceback_filtering"] = False


def is_traceback_filtering_enabled() -> bool:
    """``tf.debugging.is_traceback_filtering_enabled``: the setting (default True)."""
    return _state["traceback_filtering"]


# TF's check_numerics_callback: op types it never instruments (op_callbacks_common's
# OP_CALLBACK_SKIP_OPS and its SAFE_OPS), and the outputs it leaves unchecked.
_SKIPPED = frozenset(
    {
        *("Enter", "Exit", "Identity", "If", "LoopCond", "Merge", "NextIteration"),
        *("StatelessIf", "StatefulPartitionedCall", "Switch", "While", "RemoteCall"),
        *("DestroyResourceOp", "CheckNumerics", "CheckNumericsV2"),
        *("Concat", "ConcatV2", "ExpandDims", "Fill", "Gather", "Maximum", "Minimum"),
        *("Reshape", "Slice", "Squeeze", "Stack", "StridedSlice", "StridedSliceGrad"),
        *("TensorListConcatV2", "TensorListGather", "TensorListGetItem"),
        *("TensorListPopBack", "TensorListStack", "Transpose", "Unpack"),
    }
)
_UNCHECKED = frozenset(
    {(f"FusedBatchNorm{v}", i) for v in ("", "V2") for i in (1, 2, 3, 4)}
    | {("FusedBatchNormV3", i) for i in (1, 2, 3, 4, 5)}
)


def _had(neg_inf: Any, pos_inf: Any, nan: Any) -> str:
    """CheckNumericsV2's words for what a tensor had (``-Inf and +Inf``...)."""
    parts = [w for w, f in (("-Inf", neg_inf), ("+Inf", pos_inf), ("NaN", nan)) if f]
    if len(parts) == 3:
        return "-Inf, +Inf, and NaN"
    return " and ".join(parts)


class _CheckNumerics:
    """TF's check-numerics op callback in a TF1 graph: each floating output of an op
    created while it is on gets a ``CheckNumericsV2`` node that later ops consume in
    its place (a placeholder's check becomes a control input of its consumers)."""

    def consumer_inputs(self, graph: Any, inputs: Any, controls: Any) -> tuple[list, list]:
        checked = graph.__dict__.get("_numerics_checked", {})
        guards = graph.__dict__.get("_numerics_guards", {})
        inputs = [checked.get(t, t) for t in inputs]
        extra = [guards[t] for t in inputs if t in guards]
        return inputs, [*controls, *(c for c in extra if c not in controls)]

    def instrument(self, graph: Any, op: Any) -> None:
        if op.type in _SKIPPED or op._host is not None:
            return
        if op._compute is None and op.type != "Placeholder":
            return
        slots = [
            i
            for i, t in enumerate(op.outputs)
            if t.dtype is not None and t.dtype.is_floating and (op.type, i) not in _UNCHECKED
        ]
        if not slots:
            return
        checked = graph.__dict__.setdefault("_numerics_checked", {})
        guards = graph.__dict__.setdefault("_numerics_guards", {})
        graph._local.in_numerics = True
        try:
            for slot in slots:
                tensor = op.outputs[slot]
                checker = self._checker(graph, op, slot, tensor)
                if op.type == "Placeholder":
                    guards[tensor] = checker
                else:
                    checked[tensor] = checker.outputs[0]
        finally:
            graph._local.in_numerics = False

    def _checker(self, graph: Any, op: Any, slot: int, tensor: Any) -> Any:
        import jax.numpy as jnp

        from adapters.v1.framework import runtime_checks
        from jtrain import errors

        # TF names the check inside the op function's name scope ("<op>/"); a
        # constant, made without one, gets it in the enclosing scope.
        name, exact = "CheckNumericsV2", op.type != "Const"
        if exact:
            base, n = f"{op.name}/CheckNumericsV2", 0
            name = base
            while name in graph._names:
                n += 1
                name = f"{base}_{n}"

        def compute(ctx: Any, x: Any) -> tuple[Any, ...]:
            neg = jnp.any(jnp.isneginf(x))
            pos = jnp.any(jnp.isposinf(x))
            nan = jnp.any(jnp.isnan(x))
            runtime_checks.check(ctx, checker, ~(neg | pos | nan), neg, pos, nan)
            return (x,)

        checker = graph.create_op(
            "CheckNumericsV2",
            name,
            inputs=[tensor],
            compute=compute,
            output_specs=[(tensor._shape, tensor.dtype)],
            exact_name=exact,
        )
        head = _numerics_message(op, slot, tensor)

        def failure(neg: Any, pos: Any, nan: Any) -> errors.OpError:
            return errors.InvalidArgumentError(
                None, checker, f"{head} : Tensor had {_had(neg, pos, nan)} values"
            )

        runtime_checks.mark(checker, failure)
        return checker


def _numerics_message(op: Any, slot: int, tensor: Any) -> str:
    """TF's ``get_check_numerics_error_message`` for a graph op (less the stack trace
    of the op's creation, which names TF's own files)."""
    message = (
        f'\n\n!!! Detected Infinity or NaN in output {slot} of graph op "{op.type}" '
        f"(# of outputs: {len(op.outputs)}) !!!\n"
        f"  dtype: <dtype: '{tensor.dtype.name}'>\n  shape: {tensor.shape}\n"
    )
    inputs = op.inputs
    if len(inputs) > 1:
        message += f"\n  Input tensors ({len(inputs)}):\n"
        message += "".join(f"         {i}: {t}\n" for i, t in enumerate(inputs))
    elif len(inputs) == 1:
        message += f"\n  Input tensor: {inputs[0]}\n"
    return message + "\n"


def enable_check_numerics(stack_height_limit: int = 30, path_length_limit: int = 50) -> None:
    """``tf.debugging.enable_check_numerics``: ops created afterwards in this thread
    fail the run when they output an infinity or a NaN.

    As TF in a TF1 graph: every floating-point output of an op created while it is on
    (but TF's "safe" ops: reshapes, slices, concatenations, ``Maximum``...) gets a
    ``CheckNumericsV2`` node, ``<op>/CheckNumericsV2``, which the ops built on that
    output consume instead; a placeholder's check runs before the ops that consume it.
    Idempotent; ops created before are not instrumented.

    Args:
      stack_height_limit: accepted (TF: the height of the stack trace in the message;
        default 30); jtrain's message has no stack trace.
      path_length_limit: accepted (TF: the length of its file paths; default 50).

    Raises:
      InvalidArgumentError (at run time): ``!!! Detected Infinity or NaN in output 0
        of graph op "Log" (# of outputs: 1) !!!`` with the output's dtype, shape and
        the op's inputs, ending ``: Tensor had NaN values`` (``-Inf``, ``+Inf``, or
        their combinations as TF words them), from the ``CheckNumericsV2`` node.

    .. note::
       A tensor the op function returned is the op's own output, not the checked one
       (TF returns the checked one): fetching it checks it only when an op built on
       it is in the same run, as TF's message would name it.
    """
    del stack_height_limit, path_length_limit
    from adapters.v1.framework import ops

    if ops._NUMERICS.hook is None:
        ops._NUMERICS.hook = _CheckNumerics()


def disable_check_numerics() -> None:
    """``tf.debugging.disable_check_numerics``: ops created afterwards in this thread are
    not instrumented (those already are keep their checks). Idempotent."""
    from adapters.v1.framework import ops

    ops._NUMERICS.hook = None


_FROM_MATH = ("is_finite", "is_inf", "is_nan", "is_non_decreasing", "is_strictly_increasing")
globals().update({k: v for k, v in tf_names("math").items() if k in _FROM_MATH})

__all__ = [
    "Assert",
    "assert_all_finite",
    "assert_equal",
    "assert_greater",
    "assert_greater_equal",
    "assert_integer",
    "assert_less",
    "assert_less_equal",
    "assert_near",
    "assert_negative",
    "assert_non_negative",
    "assert_non_positive",
    "assert_none_equal",
    "assert_positive",
    "assert_proper_iterable",
    "assert_rank",
    "assert_rank_at_least",
    "assert_rank_in",
    "assert_same_float_dtype",
    "assert_scalar",
    "assert_shapes",
    "assert_type",
    "check_numerics",
    "disable_check_numerics",
    "disable_traceback_filtering",
    "enable_check_numerics",
    "enable_traceback_filtering",
    "get_log_device_placement",
    "is_numeric_tensor",
    "is_traceback_filtering_enabled",
    "set_log_device_placement",
    *sorted(k for k in _FROM_MATH if k in globals()),
]

__getattr__ = missing_name_getattr("tf.debugging", globals())
