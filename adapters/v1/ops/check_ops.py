"""``tf.assert_equal``, ``assert_less``, ``assert_rank``... (TF's ``check_ops``).

The element-wise assertions return ``tf.Assert``'s operation (a run-time check, see
``framework/runtime_checks.py``) with TF's message: ``[Condition x < y did not hold
element-wise:] [x (name:0) = ] [values] [y (name:0) = ] [values]``. When both
operands are constants the condition is checked when the graph is built and a
failure raises ``InvalidArgumentError`` at once, as TF does.

The shape and dtype assertions (``assert_rank*``, ``assert_shapes``, ``assert_type``,
``assert_integer``, ``assert_scalar``) check what the graph knows when it is built and
raise TF's ``ValueError``/``TypeError`` there; a statically satisfied check returns a
``NoOp`` named as TF names it, and only what depends on fed shapes becomes a run-time
``tf.Assert``. A jtrain step is compiled for the shapes it is fed, so the run-time
rank and size checks read those shapes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np

from adapters.v1.framework import ops
from adapters.v1.ops.control_flow_ops import Assert
from adapters.v1.ops.script_ops import lift
from jtrain import errors

__all__ = [
    "assert_equal",
    "assert_integer",
    "assert_near",
    "assert_proper_iterable",
    "assert_rank",
    "assert_rank_at_least",
    "assert_rank_in",
    "assert_same_float_dtype",
    "assert_scalar",
    "assert_shapes",
    "assert_type",
    "assert_none_equal",
    "assert_less",
    "assert_less_equal",
    "assert_greater",
    "assert_greater_equal",
    "assert_positive",
    "assert_negative",
    "assert_non_negative",
    "assert_non_positive",
]


def _tensor(value: Any, like: ops.Tensor | None = None) -> ops.Tensor:
    if like is not None and not isinstance(value, ops.Tensor) and like.dtype is not None:
        from adapters.v1.framework.op_def import convert_operand

        if not hasattr(value, "_as_graph_tensor"):
            return convert_operand(value, like)
    return ops.convert_to_tensor(value)


def _binary_assert(
    x: Any,
    y: Any,
    symbol: str,
    compare: Callable[[Any, Any], Any],
    data: Any,
    summarize: int | None,
    message: str | None,
    name: str | None,
    default_name: str,
) -> ops.Operation:
    with ops.name_scope(name, default_name, [x, y]):
        x = _tensor(x)
        y = _tensor(y, x)
        if data is None:
            data = [
                f"Condition x {symbol} y did not hold element-wise:",
                f"x ({x.name}) = ",
                x,
                f"y ({y.name}) = ",
                y,
            ]
        data = list(data)
        if message is not None:
            data = [message] + data
        x_static, y_static = x.op._const_value, y.op._const_value
        if x_static is not None and y_static is not None:
            if not np.all(compare(np.asarray(x_static), np.asarray(y_static))):
                texts = [_static_text(d) for d in data]
                raise errors.InvalidArgumentError(None, None, "\n".join(texts))
        device_compare = getattr(jnp, compare.__name__)  # np.less -> jnp.less
        condition = lift(lambda a, b: jnp.all(device_compare(a, b)), [x, y], name="All")
        return Assert(condition, data, summarize=summarize)


def _static_text(item: Any) -> str:
    if isinstance(item, str):
        return item
    tensor = ops.convert_to_tensor(item)
    const = tensor.op._const_value
    return str(np.asarray(const)) if const is not None else tensor.name


def _binary(default_name: str, symbol: str, compare: Callable[[Any, Any], Any]):
    def assert_fn(
        x: Any,
        y: Any,
        data: Any = None,
        summarize: int | None = None,
        message: str | None = None,
        name: str | None = None,
    ) -> ops.Operation:
        return _binary_assert(x, y, symbol, compare, data, summarize, message, name, default_name)

    assert_fn.__name__ = assert_fn.__qualname__ = default_name
    assert_fn.__doc__ = (
        f"``tf.{default_name}``: fails the run unless ``x {symbol} y`` holds element-wise.\n\n"
        "Returns:\n  The ``tf.Assert`` operation (run it or make it a control dependency).\n\n"
        "Raises:\n  InvalidArgumentError: at once when both are constants and the check "
        "fails; else when run."
    )
    return assert_fn


def _unary(default_name: str, text: str, symbol: str, zero_first: bool, compare):
    def assert_fn(
        x: Any,
        data: Any = None,
        summarize: int | None = None,
        message: str | None = None,
        name: str | None = None,
    ) -> ops.Operation:
        with ops.name_scope(name, default_name, [x]):
            x = _tensor(x)
            zero = _tensor(0, x)
            if data is None:
                data = [f"{message}.  " if message else "", *text_parts(x)]  # TF's format
            a, b = (zero, x) if zero_first else (x, zero)
            return _binary_assert(a, b, symbol, compare, data, summarize, None, None, compare_name)

    def text_parts(x: ops.Tensor) -> list[Any]:
        # TF's assert_non_positive joins its two strings (a missing comma in TF's source).
        if default_name == "assert_non_positive":
            return [f"Condition {text} did not hold element-wise:x ({x.name}) = ", x]
        return [f"Condition {text} did not hold element-wise:", f"x ({x.name}) = ", x]

    compare_name = {"<": "assert_less", "<=": "assert_less_equal"}[symbol]
    assert_fn.__name__ = assert_fn.__qualname__ = default_name
    assert_fn.__doc__ = (
        f"``tf.{default_name}``: fails the run unless ``{text}`` holds element-wise.\n\n"
        "Returns:\n  The ``tf.Assert`` operation."
    )
    return assert_fn


assert_equal = _binary("assert_equal", "==", np.equal)
assert_none_equal = _binary("assert_none_equal", "!=", np.not_equal)
assert_less = _binary("assert_less", "<", np.less)
assert_less_equal = _binary("assert_less_equal", "<=", np.less_equal)
assert_greater = _binary("assert_greater", ">", np.greater)
assert_greater_equal = _binary("assert_greater_equal", ">=", np.greater_equal)
assert_positive = _unary("assert_positive", "x > 0", "<", True, np.less)
assert_negative = _unary("assert_negative", "x < 0", "<", False, np.less)
assert_non_negative = _unary("assert_non_negative", "x >= 0", "<=", True, np.less_equal)
assert_non_positive = _unary("assert_non_positive", "x <= 0", "<=", False, np.less_equal)


# -- shape, rank and dtype assertions ---------------------------------------------------------


def _message_prefix(message: str | None) -> str:
    return f"{message}.  " if message else ""


def _graph_str(tensor: ops.Tensor) -> str:
    """``str(tensor)`` as TF writes a graph tensor: ``Tensor("x:0", shape=(), dtype=float32)``."""
    return f'Tensor("{tensor.name}", shape={tensor.shape}, dtype={tensor.dtype.name})'


def _static_rank(x: Any) -> int | None:
    return x.get_shape().ndims


def _run_rank(x: Any) -> ops.Tensor:
    """``x``'s rank as the run feeds it (an int32 scalar)."""
    from adapters.v1.framework.sparse_tensor import SparseTensor

    if isinstance(x, SparseTensor):
        return lift(lambda s: jnp.asarray(s.shape[0], jnp.int32), [x.dense_shape], name="Rank")
    return lift(lambda a: jnp.asarray(a.ndim, jnp.int32), [x], name="Rank")


def _run_shape(x: Any) -> ops.Tensor:
    from adapters.v1.framework.op_def import FUNCTIONS
    from adapters.v1.framework.sparse_tensor import SparseTensor

    if isinstance(x, SparseTensor):
        return x.dense_shape
    return FUNCTIONS["shape"](x)


def _to_x(x: Any) -> Any:
    from adapters.v1.framework.sparse_tensor import SparseTensor

    return x if isinstance(x, SparseTensor) else ops.convert_to_tensor(x, name="x")


def _rank_assert(
    x: Any,
    ranks: list[ops.Tensor],
    holds: Callable[[int, tuple[int, ...]], bool],
    data: list[Any],
    summarize: int | None,
) -> ops.Operation:
    """TF's ``_assert_rank(s)_condition``: static when ``x``'s rank and ``ranks`` are known."""
    from adapters.v1.framework.tensor_util import get_static_value
    from adapters.v1.ops.control_flow_ops import no_op, with_dependencies

    for rank in ranks:
        assert_type(rank, "int32")
    statics = [get_static_value(r) for r in ranks]
    if all(s is not None for s in statics):
        if any(np.ndim(s) != 0 for s in statics):
            raise ValueError("Rank must be a scalar.")
        x_rank = _static_rank(x)
        if x_rank is not None:
            given = tuple(int(s) for s in statics)
            if not holds(x_rank, given):
                raise _StaticRankError(x_rank, given)
            return no_op(name="static_checks_determined_all_ok")
    run_rank = _run_rank(x)
    condition = lift(
        lambda r, *given: jnp.asarray(holds(r, given)), [run_rank, *ranks], name="Equal"
    )
    for rank, static in zip(ranks, statics, strict=True):
        if static is None:
            check = assert_rank(rank, 0, data=["Rank must be a scalar. Received rank: ", rank])
            condition = with_dependencies([check], condition)
    return Assert(condition, data, summarize=summarize)


class _StaticRankError(ValueError):
    def __init__(self, actual: int, given: tuple[int, ...]) -> None:
        super().__init__("Static rank condition failed", actual, given)
        self.actual, self.given = actual, given


def assert_rank(
    x: Any,
    rank: Any,
    data: Any = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> ops.Operation:
    """``tf.compat.v1.assert_rank``: asserts that ``x`` has rank ``rank``.

    Args:
      x: a tensor (or ``SparseTensor``).
      rank: a scalar int32 tensor or Python int.
      data: what the run-time error prints (default: TF's text, ``rank`` and ``tf.shape(x)``).
      summarize: elements printed per tensor (default 3).
      message: a prefix of the error message (TF writes ``"<message>.  "``).
      name: the name scope (default ``"assert_rank"``).

    Returns:
      A ``NoOp`` named ``static_checks_determined_all_ok`` when the static ranks decide,
      else the ``tf.Assert`` operation.

    Raises:
      ValueError: ``"Tensor <x> must have rank <r>.  Received rank <n>, shape <s>"`` when the
        graph knows the check fails; ``"Rank must be a scalar."`` for a non-scalar ``rank``.
      TypeError: ``rank`` is not int32.
      InvalidArgumentError: when run, if the fed rank differs.
    """
    return _rank_family(
        "assert_rank", "rank", x, [rank], lambda r, g: r == g[0], data, summarize, message, name
    )


def assert_rank_at_least(
    x: Any,
    rank: Any,
    data: Any = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> ops.Operation:
    """``tf.compat.v1.assert_rank_at_least``: asserts ``rank(x) >= rank``.

    Args, Returns and Raises as :func:`assert_rank` (the messages say "rank at least";
    default name ``"assert_rank_at_least"``).
    """
    return _rank_family(
        "assert_rank_at_least",
        "rank at least",
        x,
        [rank],
        lambda r, g: r >= g[0],
        data,
        summarize,
        message,
        name,
    )


def assert_rank_in(
    x: Any,
    ranks: Any,
    data: Any = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> ops.Operation:
    """``tf.compat.v1.assert_rank_in``: asserts that ``x``'s rank is one of ``ranks``.

    Args:
      x: a tensor (or ``SparseTensor``).
      ranks: scalar int32 tensors or Python ints.
      data: as :func:`assert_rank`.
      summarize: as :func:`assert_rank`.
      message: as :func:`assert_rank`.
      name: the name scope (default ``"assert_rank_in"``).

    Returns and Raises as :func:`assert_rank` (``"must have rank in (0, 2)"``).
    """

    def holds(r: Any, given: tuple[Any, ...]) -> Any:
        if isinstance(r, int):
            return r in given
        out = jnp.asarray(False)
        for g in given:
            out = out | (r == g)
        return out

    return _rank_family(
        "assert_rank_in", "rank in", x, list(ranks), holds, data, summarize, message, name
    )


def _rank_family(
    default_name: str,
    words: str,
    x: Any,
    ranks: list[Any],
    holds: Callable[[Any, tuple[Any, ...]], Any],
    data: Any,
    summarize: int | None,
    message: str | None,
    name: str | None,
) -> ops.Operation:
    from adapters.v1.framework.sparse_tensor import SparseTensor

    with ops.name_scope(name, default_name, [x, *ranks, *(data or [])]):
        x = _to_x(x)
        ranks = [ops.convert_to_tensor(r, name="rank") for r in ranks]
        prefix = _message_prefix(message)
        x_name = "" if isinstance(x, SparseTensor) else x.name
        if data is None:
            data = [
                prefix,
                f"Tensor {x_name} must have {words}",
                *ranks,
                "Received shape: ",
                _run_shape(x),
            ]
        try:
            return _rank_assert(x, ranks, holds, list(data), summarize)
        except _StaticRankError as e:
            given = f"{e.given}" if default_name == "assert_rank_in" else f"{e.given[0]}"
            raise ValueError(
                f"{prefix}Tensor {x_name} must have {words} {given}.  "
                f"Received rank {e.actual}, shape {x.get_shape()}"
            ) from None


def assert_integer(x: Any, message: str | None = None, name: str | None = None) -> ops.Operation:
    """``tf.compat.v1.assert_integer``: a static check that ``x`` has an integer dtype.

    Args:
      x: a tensor.
      message: a prefix of the error message.
      name: the name scope (default ``"assert_integer"``).

    Returns:
      A ``NoOp`` named ``statically_determined_was_integer``.

    Raises:
      TypeError: ``'Expected "x" to be integer type.  Found: <name> of dtype <dtype>'``.
    """
    from adapters.v1.ops.control_flow_ops import no_op

    with ops.name_scope(name, "assert_integer", [x]):
        x = ops.convert_to_tensor(x, name="x")
        if not x.dtype.is_integer:
            raise TypeError(
                f'{_message_prefix(message)}Expected "x" to be integer type.  '
                f"Found: {x.name} of dtype {x.dtype}"
            )
        return no_op("statically_determined_was_integer")


def assert_type(
    tensor: Any, tf_type: Any, message: str | None = None, name: str | None = None
) -> ops.Operation:
    """``tf.compat.v1.assert_type``: a static check of ``tensor``'s dtype.

    Args:
      tensor: a tensor (or ``SparseTensor``).
      tf_type: the dtype it must have.
      message: a prefix of the error message.
      name: the name scope (default ``"assert_type"``).

    Returns:
      A ``NoOp`` named ``statically_determined_correct_type``.

    Raises:
      TypeError: ``"<name> must be of type tf.int32; got tf.float32"``.
    """
    from adapters.v1.framework.dtypes import as_dtype
    from adapters.v1.framework.sparse_tensor import SparseTensor
    from adapters.v1.ops.control_flow_ops import no_op

    tf_type = as_dtype(tf_type)
    with ops.name_scope(name, "assert_type", [tensor]):
        if not isinstance(tensor, SparseTensor):
            tensor = ops.convert_to_tensor(tensor, name="tensor")
        if tensor.dtype != tf_type:
            raise TypeError(
                f"{_message_prefix(message)}{getattr(tensor, 'name', None) or 'tensor'}"
                f" must be of type {tf_type!r}; got {as_dtype(tensor.dtype)!r}"
            )
        return no_op("statically_determined_correct_type")


def assert_scalar(tensor: Any, name: str | None = None, message: str | None = None) -> ops.Tensor:
    """``tf.compat.v1.assert_scalar``: a static check that ``tensor`` has rank 0.

    Args:
      tensor: a tensor (converted in the ``assert_scalar`` scope).
      name: the name scope (default ``"assert_scalar"``).
      message: a prefix of the error message.

    Returns:
      ``tensor`` as a ``Tensor``.

    Raises:
      ValueError: ``"Expected scalar shape for <name>, saw shape: <shape>."``, also when the
        rank is unknown.
    """
    with ops.name_scope(name, "assert_scalar", [tensor]) as scope:
        tensor = ops.convert_to_tensor(tensor, name=scope)
        shape = tensor.get_shape()
        if shape.ndims != 0:
            raise ValueError(
                f"{_message_prefix(message)}Expected scalar shape for {tensor.name}, "
                f"saw shape: {shape}."
            )
        return tensor


def assert_proper_iterable(values: Any) -> None:
    """``tf.compat.v1.assert_proper_iterable``: refuses tensors, arrays and strings as lists.

    Args:
      values: the object to check.

    Raises:
      TypeError: ``values`` is a ``Tensor``, ``SparseTensor``, ``ndarray``, ``str`` or
        ``bytes``, or is not iterable.
    """
    from adapters.v1.framework.sparse_tensor import SparseTensor

    if isinstance(values, (ops.Tensor, SparseTensor, np.ndarray, bytes, str)):
        raise TypeError(
            f'Expected argument "values" to be a "proper" iterable.  Found: {type(values)}'
        )
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')


def assert_same_float_dtype(tensors: Any = None, dtype: Any = None) -> Any:
    """``tf.compat.v1.assert_same_float_dtype``: the one floating dtype of ``tensors``.

    Args:
      tensors: tensors (``None`` entries ignored).
      dtype: the dtype they must have (optional).

    Returns:
      The validated ``DType`` (``tf.float32`` when neither is given).

    Raises:
      ValueError: the dtypes differ (``"<name>, type=<dtype>, must be of the same type
        (<dtype>) as <name>."``), or the common dtype is not floating.
    """
    from adapters.v1.framework.dtypes import as_dtype

    if tensors:
        dtype = _same_base_type(tensors, dtype)
    if not dtype:
        return as_dtype("float32")
    dtype = as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype}.")
    return dtype


def _same_base_type(items: Any, expected: Any) -> Any:
    from adapters.v1.framework.dtypes import as_dtype

    expected = as_dtype(expected) if expected else None
    first_name = None
    for item in items:
        if item is None:
            continue
        item_type = as_dtype(item.dtype).base_dtype
        if expected is None:
            expected = item_type
            first_name = item.name if hasattr(item, "name") else str(item)
        elif expected != item_type:
            as_first = f" as {first_name}" if first_name else ""
            raise ValueError(
                f"{item.name if hasattr(item, 'name') else item}, type={item_type}, "
                f"must be of the same type ({expected}){as_first}."
            )
    return expected


def assert_near(
    x: Any,
    y: Any,
    rtol: Any = None,
    atol: Any = None,
    data: Any = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> ops.Operation:
    """``tf.compat.v1.assert_near``: fails the run unless ``|x - y| < atol + rtol * |y|``.

    .. math:: |x_i - y_i| < \\mathrm{atol} + \\mathrm{rtol}\\,|y_i| \\quad \\forall i

    (strictly less, as TF's kernel). Never checked when the graph is built, even for
    constants (TF's ``assert_near`` has no static check).

    Args:
      x: a floating or complex tensor.
      y: a tensor of ``x``'s dtype, broadcastable to it.
      rtol: relative tolerance (default ``10 * eps`` of ``x``'s real dtype).
      atol: absolute tolerance (default ``10 * eps``).
      data: what the error prints (default TF's text with ``x`` and ``y``).
      summarize: elements printed per tensor (default 3).
      message: a prefix of the error message.
      name: the name scope (default ``"assert_near"``).

    Returns:
      The ``tf.Assert`` operation.

    Raises:
      ValueError: an integer ``x`` (NumPy's ``finfo`` error, as TF).
      InvalidArgumentError: when run, if ``x`` and ``y`` are not near.
    """
    prefix = _message_prefix(message)
    with ops.name_scope(name, "assert_near", [x, y, rtol, atol, data]):
        x = ops.convert_to_tensor(x, name="x")
        y = ops.convert_to_tensor(y, name="y", dtype=x.dtype)
        real = np.real(np.zeros((), x.dtype.as_numpy_dtype)).dtype
        eps = np.finfo(real).eps
        rtol = ops.convert_to_tensor(10 * eps if rtol is None else rtol, name="rtol", dtype=real)
        atol = ops.convert_to_tensor(10 * eps if atol is None else atol, name="atol", dtype=real)
        if data is None:
            data = [
                prefix,
                f"x and y not equal to tolerance rtol = {_graph_str(rtol)}, "
                f"atol = {_graph_str(atol)}",
                f"x ({x.name}) = ",
                x,
                f"y ({y.name}) = ",
                y,
            ]
        condition = lift(
            lambda a, b, r, t: jnp.all(jnp.abs(a - b) < t + r * jnp.abs(b)),
            [x, y, rtol, atol],
            name="All",
        )
        return Assert(condition, list(data), summarize=summarize)


def assert_shapes(
    shapes: Any,
    data: Any = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> ops.Operation:
    """``tf.debugging.assert_shapes`` (v1): asserts shapes and shared sizes of tensors.

    Each entry pairs a tensor with a symbolic shape: ints are sizes, strings are
    sizes shared by every entry that names them, ``None`` or ``"."`` any size, and a
    leading ``...`` or ``"*"`` any number of outer dimensions. A scalar matches
    ``()`` and ``(1,)``.

    Args:
      shapes: a dict or a list of ``(tensor, shape)`` pairs.
      data: what a run-time error prints (default TF's text).
      summarize: elements printed per tensor (default 3).
      message: a prefix of the error messages.
      name: the name scope (default ``"assert_shapes"``).

    Returns:
      A ``group`` operation (named ``group_deps`` as TF) of the run-time size checks,
      depending on the rank checks.

    Raises:
      ValueError: a shape is not iterable, ``...`` not first, or a rank or size the graph
        knows is wrong (TF's messages).
      InvalidArgumentError: when run, if a fed rank or size is wrong.
    """
    from adapters.v1.framework.sparse_tensor import SparseTensor
    from adapters.v1.ops.control_flow_ops import group

    if isinstance(shapes, dict):
        shapes = shapes.items()
    prefix = _message_prefix(message)
    rank_checks: list[ops.Operation] = []
    with ops.name_scope(name, "assert_shapes", [shapes, data]):
        pairs = [
            (x if isinstance(x, SparseTensor) else ops.convert_to_tensor(x), s)
            for x, s in shapes
            if s is not None
        ]

        def tensor_name(t: Any) -> str:
            if isinstance(t, SparseTensor):
                return f"shape={t.get_shape()} dtype={t.dtype.name}"
            return t.name

        specs = []
        for x, symbolic in pairs:
            if not (hasattr(symbolic, "__iter__") or hasattr(symbolic, "__getitem__")):
                raise ValueError(
                    f"{prefix}Tensor {tensor_name(x)}.  Specified shape must be an iterable.  "
                    "An iterable has the attribute `__iter__` or `__getitem__`.  "
                    f"Received specified shape: {symbolic}"
                )
            symbols = tuple(symbolic)
            outer = False
            for i, symbol in enumerate(symbols):
                if symbol is Ellipsis or (isinstance(symbol, str) and symbol == "*"):
                    if i != 0:
                        raise ValueError(
                            f"{prefix}Tensor {tensor_name(x)} specified shape index {i}.  "
                            "Symbol `...` or `*` for a variable number of unspecified "
                            "dimensions is only allowed as the first entry"
                        )
                    outer = True
            sizes = (symbols[1:] if outer else symbols) or (1,)
            specs.append((x, outer, sizes))

        for x, outer, sizes in specs:
            rank = len(sizes)
            if outer:
                if rank in (0, 1):
                    continue
                check = assert_rank_at_least(x, rank, data, summarize, message, name)
            elif rank in (0, 1):
                check = assert_rank_in(x, [0, 1], data, summarize, message, name)
            else:
                check = assert_rank(x, rank, data, summarize, message, name)
            rank_checks.append(check)

        size_checks: list[ops.Operation] = []
        known: dict[Any, tuple[Any, Any, int]] = {}
        for x, outer, sizes in specs:
            for i, symbol in enumerate(sizes):
                if symbol is None or (isinstance(symbol, str) and symbol == "."):
                    continue
                dim = i - len(sizes) if outer else i
                explicit = _known_int(symbol)
                if explicit is None and symbol not in known:
                    with ops.control_dependencies(rank_checks):
                        known[symbol] = (_dim_size(x, dim), x, dim)
                    continue
                if explicit is not None:
                    specified, how = explicit, "Specified explicitly"
                else:
                    specified, by, at = known[symbol]
                    how = f"Specified by tensor {tensor_name(by)} dimension {at}"
                with ops.control_dependencies(rank_checks):
                    actual = _dim_size(x, dim)
                if _known_int(actual) is not None and _known_int(specified) is not None:
                    if int(actual) != int(specified):
                        raise ValueError(
                            f"{prefix}{how}.  Tensor {tensor_name(x)} dimension {dim} must "
                            f"have size {int(specified)}.  Received size {int(actual)}, "
                            f"shape {x.get_shape()}"
                        )
                    continue
                a, b = ops.convert_to_tensor(actual), ops.convert_to_tensor(specified)
                condition = lift(lambda u, v: jnp.equal(u, v), [a, b], name="Equal")
                entry = data
                if data is None:
                    entry = [
                        prefix,
                        how,
                        f"Tensor {tensor_name(x)} dimension",
                        dim,
                        "must have size",
                        specified,
                        "Received shape: ",
                        _run_shape(x),
                    ]
                size_checks.append(Assert(condition, list(entry), summarize=summarize))
    with ops.control_dependencies(rank_checks):
        return group(size_checks)


def _known_int(size: Any) -> int | None:
    if size is None or isinstance(size, ops.Tensor):
        return None
    try:
        return int(size)
    except (TypeError, ValueError):
        return None


def _dim_size(x: Any, dim: int) -> Any:
    """Dimension ``dim`` of ``x``: an int when static, else an int32 tensor (scalar: ``(1,)``)."""
    ndims = _static_rank(x)
    if ndims == 0:
        return 1
    if ndims is not None:
        static = x.get_shape().as_list()[dim]
        if static is not None:
            return int(static)

    def size(a: Any) -> Any:
        dims = a.shape or (1,)
        ok = -len(dims) <= dim < len(dims)  # else the rank check fails this run
        return jnp.asarray(dims[dim] if ok else -1, jnp.int32)

    return lift(size, [x], name="strided_slice")
