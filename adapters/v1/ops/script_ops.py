"""``tf.jax_function``: any JAX function as a graph operation.

TF1 users wrote their model with TF's op library; jtrain does not re-create it.
Model math is written in ``jax.numpy`` and lifted onto graph nodes, as
``tf.numpy_function`` lifts NumPy code, except that the function is traced into
the step's XLA program (it must be a pure JAX function).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from typing import Any

import jax
import numpy as np
from jax import export

from adapters.v1.framework import _x64, ops
from adapters.v1.framework.op_def import OpTypeError, OpValueError
from jtrain import errors


def jax_function(func: Callable[..., Any], inp: Any, name: str | None = None) -> Any:
    """Wraps ``func(*values of inp)`` as an operation; returns its output tensor(s).

    ``func`` is your JAX code, so it runs with JAX's dtype defaults as you set them
    (``jnp.ones(3)`` is float32 with x64 off, as everywhere in your JAX code): a
    float32 model stays float32. Where an input is 64-bit (int64, float64, ...),
    ``func`` runs with 64-bit types on so the value stays exact, as the rest of
    the compat layer does.

    Args:
      func: a pure JAX function of arrays; it may return an array or a (nested)
        tuple/list/dict of arrays.
      inp: a list of inputs: tensors, variables, or values (made constants).
      name: the op name (default ``"JaxFunction"``).

    Returns:
      A ``Tensor``, or a structure of tensors matching what ``func`` returns.

    Raises:
      ValueError: ``func`` fails on every shape its inputs' static shapes allow
        (invalid code, e.g. a reshape of a ``[5]`` input to ``[3, 4]``).
      InvalidArgumentError (at run time): ``func`` fails on the values fed, named
        by the op.

    Output shapes and dtypes come from ``jax.eval_shape`` with unknown input
    dimensions as symbolic dimensions (``jax.export``): an output dimension that
    is an expression of them is unknown (``None``). When ``func`` cannot be traced
    symbolically, concrete sizes are tried; output dimensions that differ between
    them, or the whole shape if only one works, are unknown.
    """
    if not isinstance(inp, (list, tuple)):
        inp = [inp]
    tensors = [ops.convert_to_tensor(x) for x in inp]
    exact = jax.config.jax_enable_x64 or _x64.any_64_bit(t._np_dtype for t in tensors)
    return lift(func, tensors, name, exact=exact)


def lift(func: Callable[..., Any], inp: Any, name: str | None = None, *, exact: bool = True) -> Any:
    """``jax_function`` for the compat layer's own ops: TF's dtype rules, 64-bit exact.

    ``exact=False`` runs ``func`` with JAX's 32-bit defaults (user code on 32-bit
    inputs, see :func:`jax_function`).
    """
    if not isinstance(inp, (list, tuple)):
        inp = [inp]
    tensors = [ops.convert_to_tensor(x) for x in inp]
    op_name = ops.get_default_graph().unique_name(name or "JaxFunction", mark_as_used=False)
    world = _x64.exact if exact else _x64.defaults_32
    with world():  # dtypes as the session will trace them
        out_tree, specs = _output_specs(func, tensors, op_name)

    def compute(ctx, *values):
        try:
            with world():
                return tuple(jax.tree.leaves(func(*values)))
        except (TypeError, ValueError, IndexError) as e:
            shapes = ", ".join(str(list(np.shape(v))) for v in values)
            raise errors.InvalidArgumentError(
                None, op, f"{op.name}: the function failed on inputs of shapes {shapes}: {e}"
            ) from e

    op = ops.get_default_graph().create_op(
        "JaxFunction", name or "JaxFunction", inputs=tensors, compute=compute, output_specs=specs
    )
    return jax.tree.unflatten(out_tree, list(op.outputs))


# JAX's traceback filtering (on by default) walks every frame of an exception's stack,
# with a `stat` per frame, at each API boundary it passes: most of the cost of a failed
# trial below. The probes catch what they raise, so they turn it off for themselves
# (thread-locally; the user's setting is untouched). `jax._src.config.traceback_filtering`
# is a JAX-internal state; where a JAX lacks it, probing keeps JAX's default.
try:
    from jax._src.config import traceback_filtering as _traceback_filtering
except ImportError:  # pragma: no cover - another JAX's internals
    _traceback_filtering = None


def probe_shape(func: Callable[..., Any], *args: Any) -> Any:
    """``jax.eval_shape(func, *args)`` for a trial whose failure the caller handles.

    Args:
      func: the function to evaluate abstractly.
      *args: ``jax.ShapeDtypeStruct`` leaves (or pytrees of them).

    Returns:
      What ``jax.eval_shape`` returns.

    Raises:
      Exception: whatever ``func`` raises for these shapes, JAX's frames kept.
    """
    quiet = (
        _traceback_filtering("off") if _traceback_filtering is not None
        else contextlib.nullcontext()
    )  # fmt: skip
    with quiet:
        return jax.eval_shape(func, *args)


# Concrete sizes tried when symbolic tracing fails. An error saying which multiple a size
# must be (``required_multiple``: `tf.reshape(x, [-1, 10])` of a `[None]` x) adds that
# multiple and its double. Inputs are abstract (`jax.eval_shape`): a size allocates nothing.
_FILLS = (2, 3, 4, 6, 12, 1)
_RANKS = range(5)  # ranks tried for inputs of unknown rank


def _output_specs(func: Callable[..., Any], tensors: list[ops.Tensor], op_name: str):
    """Output structure and ``(shape, dtype)`` per leaf, by abstract evaluation."""
    if any(t._shape is None for t in tensors):
        return _unknown_rank_specs(func, tensors, op_name)
    unknown = sum(d is None for t in tensors for d in t._shape)
    if not unknown:
        try:
            return _specs([probe_shape(func, *_structs(tensors, []))])
        except (OpValueError, OpTypeError):
            raise
        except Exception as e:  # noqa: BLE001 - invalid for the only shapes there are
            shapes = ", ".join(str(t.shape) for t in tensors)
            raise ValueError(
                f"{op_name}: the function fails on inputs of shapes {shapes}: {e}"
            ) from e
    symbols = export.symbolic_shape(",".join(f"d{i}" for i in range(unknown)))
    try:
        out = probe_shape(func, *_structs(tensors, list(symbols)))
    except (OpValueError, OpTypeError):
        raise
    except Exception:  # noqa: BLE001 - not traceable symbolically: try sizes
        outs, fits, error = [], [], None
        # Then the inputs' known sizes: an unknown dimension an op merges with a known
        # one (a concat's or stack's other axes) fits only that size.
        known = [d for t in tensors for d in t._shape if d is not None and d > 1]
        fills = list(dict.fromkeys([*_FILLS, *known]))
        for fill in fills:
            try:
                outs.append(probe_shape(func, *_structs(tensors, [fill] * unknown)))
                fits.append(fill)
            except Exception as e:  # noqa: BLE001 - this size does not fit
                error = e
                multiple = getattr(e, "required_multiple", None)
                if multiple and multiple not in fills and len(fills) < 3 * len(_FILLS):
                    fills += [multiple, 2 * multiple]
            if len(outs) == 2:
                break
        if not outs:
            shapes = ", ".join(str(t.shape) for t in tensors)
            raise ValueError(
                f"{op_name}: the function fails on inputs of shapes {shapes}: {error}"
            ) from error
        if len(outs) == 1:
            # One size fits (a concat's unknown dimension must equal a known one's):
            # a run succeeds only with that size. Where it is an input's known size, TF
            # merges the two dimensions: the output's are known. Otherwise the output's
            # dimensions of that size may follow the unknown ones, the others are fixed.
            leaves, tree = jax.tree.flatten(outs[0])
            if fits[0] in known:
                return tree, [(tuple(leaf.shape), np.dtype(leaf.dtype)) for leaf in leaves]
            return tree, [
                (tuple(None if d == fits[0] else d for d in leaf.shape), np.dtype(leaf.dtype))
                for leaf in leaves
            ]
        return _specs(outs)
    return _specs([out])


def _structs(tensors: list[ops.Tensor], sizes: list[Any]) -> list[jax.ShapeDtypeStruct]:
    """Abstract inputs, the unknown dimensions taking ``sizes`` in order."""
    sizes = iter(sizes)
    return [
        jax.ShapeDtypeStruct(tuple(next(sizes) if d is None else d for d in t._shape), t._np_dtype)
        for t in tensors
    ]


def _specs(outs: list[Any]):
    """Output tree and specs: a dimension is known if an int equal in every trial.

    One trial is symbolic (a dimension that is an expression is unknown) or exact
    (no unknown inputs); two trials of concrete sizes keep the dimensions they
    agree on.
    """
    leaves, tree = jax.tree.flatten(outs[0])
    others = [jax.tree.leaves(o) for o in outs[1:]]
    specs = []
    for i, leaf in enumerate(leaves):
        shapes = [leaf.shape] + [o[i].shape for o in others]
        if len({len(s) for s in shapes}) > 1:
            specs.append((None, np.dtype(leaf.dtype)))
            continue
        dims = tuple(
            d[0] if all(isinstance(x, int) and x == d[0] for x in d) else None
            for d in zip(*shapes, strict=True)
        )
        specs.append((dims, np.dtype(leaf.dtype)))
    return tree, specs


def _unknown_rank_specs(func: Callable[..., Any], tensors: list[ops.Tensor], op_name: str):
    """Inputs of unknown rank: the first rank that traces gives dtypes; shapes unknown."""
    error = None
    for rank in _RANKS:
        shapes = [(None,) * rank if t._shape is None else t._shape for t in tensors]
        count = sum(d is None for s in shapes for d in s)
        sizes = (
            list(export.symbolic_shape(",".join(f"d{i}" for i in range(count)))) if count else []
        )
        it = iter(sizes)
        structs = [
            jax.ShapeDtypeStruct(tuple(next(it) if d is None else d for d in s), t._np_dtype)
            for s, t in zip(shapes, tensors, strict=True)
        ]
        try:
            out = probe_shape(func, *structs)
        except Exception as e:  # noqa: BLE001 - try another rank
            error = e
            continue
        leaves, tree = jax.tree.flatten(out)
        return tree, [(None, np.dtype(leaf.dtype)) for leaf in leaves]
    shapes = ", ".join(str(t.shape) for t in tensors)
    raise ValueError(
        f"{op_name}: cannot infer the output dtypes for inputs of shapes {shapes} "
        f"(set_shape() an input to its rank): {error}"
    ) from error


# -- tf.py_func / tf.numpy_function ---------------------------------------------------------
# TF's error class for an exception raised inside the function (TF 2.21, checked live).
_PY_ERRORS: list[tuple[type[BaseException], type[errors.OpError]]] = [
    (ValueError, errors.InvalidArgumentError),
    (TypeError, errors.InvalidArgumentError),
    (StopIteration, errors.OutOfRangeError),
    (MemoryError, errors.ResourceExhaustedError),
    (NotImplementedError, errors.UnimplementedError),
]


def _py_error(op: ops.Operation, exc: BaseException) -> errors.OpError:
    """TF's error for an exception of a ``py_func``: its class, message and traceback."""
    import traceback

    if isinstance(exc, errors.OpError):  # jtrain's own check of the results
        return type(exc)(None, op, exc.message)
    cls = next((c for e, c in _PY_ERRORS if isinstance(exc, e)), errors.UnknownError)
    trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return cls(None, op, f"{type(exc).__name__}: {exc}\n{trace}")


def _py_outputs(op_name: str, result: Any, tout: list[Any], single: bool) -> list[np.ndarray]:
    """The function's results as arrays of the declared dtypes (TF's checks)."""
    if single or not isinstance(result, (list, tuple)):
        result = [result]
    if len(result) != len(tout):
        raise errors.InvalidArgumentError(
            None, None, f"{op_name} returns {len(result)} values, but expects {len(tout)} values"
        )
    out = []
    for i, (value, dtype) in enumerate(zip(result, tout, strict=True)):
        want = dtype.dtype
        if want.kind == "O":
            arr = np.asarray(value, dtype=object)
            out.append(arr)
            continue
        arr = np.asarray(value)
        if arr.dtype != want and not (np.isscalar(value) and np.can_cast(arr, want, "same_kind")):
            raise errors.InvalidArgumentError(
                None,
                None,
                f"{i}-th value returned by {op_name.lower()} is {_c_name(arr.dtype)}, but "
                f"expects {_c_name(want)}",
            )
        out.append(arr.astype(want))
    return out


def _own_copies(values: Any) -> list[Any]:
    """What ``py_func`` hands the user's function: its own writeable copy of each array.

    TF's function gets writeable arrays it may change in place (``np.random.shuffle``);
    here an input may be the caller's fed array, a constant the graph keeps, or a
    read-only view of a program's buffer, none of which the function may change.

    .. note:: TF can hand the function memory it shares with the feed or the constant
       (aligned arrays), so a change there may persist under TF; here it never does.
    """
    return [np.array(v) if isinstance(v, np.ndarray) else v for v in values]


def _c_name(dtype: np.dtype) -> str:
    """TF's C type name of a dtype in py_func's messages (``float``, ``double``...)."""
    names = {"float32": "float", "float64": "double", "int32": "int32", "int64": "int64"}
    return names.get(np.dtype(dtype).name, np.dtype(dtype).name)


def py_func(
    func: Callable[..., Any],
    inp: Any,
    Tout: Any,  # noqa: N803 - TF's argument name
    stateful: bool = True,
    name: str | None = None,
) -> Any:
    """``tf.py_func``: calls ``func`` on the NumPy values of ``inp`` when the step runs.

    When every input is a placeholder (fed), a constant or a host operation's
    output (and it is not in a ``tf.cond``/loop body), ``func`` runs on the host
    before the step program and its outputs
    enter it like feeds (any shapes, strings too). Otherwise it runs inside the
    program as a host callback (``jax.pure_callback``, or ``io_callback`` when
    ``stateful``), which needs the output shapes: ``set_shape`` them.

    Args:
      func: a Python function of NumPy arrays returning an array (or a list of
        arrays when ``Tout`` is a list).
      inp: a list of tensors.
      Tout: a dtype (the result is one tensor) or a list of dtypes (a list).
      stateful: accepted (a stateful function is not deduplicated).
      name: the op name (default ``"PyFunc"``).

    Returns:
      A tensor, or a list of tensors, of unknown shape (``set_shape`` them).

    Raises:
      InvalidArgumentError: at run time, for a ``ValueError`` or ``TypeError`` of
        ``func`` (with its message) or a result of another dtype than ``Tout``.
      OutOfRangeError: at run time, for a ``StopIteration`` of ``func``.
      UnknownError: at run time, for other exceptions of ``func`` (TF's classes:
        ``NotImplementedError`` gives ``UnimplementedError``...).

    .. note:: No gradient flows through it (TF: ``None``).
    """
    op, single = _py_op(func, inp, Tout, stateful, name, "PyFunc", _py_outputs)
    op._not_differentiable = True
    return op.outputs[0] if single else list(op.outputs)


def _py_op(
    func: Callable[..., Any],
    inp: Any,
    Tout: Any,  # noqa: N803 - TF's argument name
    stateful: bool,
    name: str | None,
    op_type: str,
    outputs: Callable[[str, Any, list[Any], bool], list[np.ndarray]],
) -> tuple[ops.Operation, bool]:
    """The operation of ``py_func``/``py_function`` (``op_type``); ``outputs(op_name,
    result, tout, single)`` turns the function's result into arrays of ``tout``."""
    from adapters.v1.framework import runtime_checks
    from adapters.v1.framework.dtypes import as_dtype

    single = not isinstance(Tout, (list, tuple))
    tout = [as_dtype(t) for t in ([Tout] if single else Tout)]
    inp = list(inp) if isinstance(inp, (list, tuple)) else [inp]
    tensors = [ops.convert_to_tensor(x) for x in inp]
    graph = ops.get_default_graph()
    specs = [(None, t) for t in tout]
    from adapters.v1.ops.control_flow_ops import building_body

    host_ready = not building_body() and all(
        t.op.type == "Placeholder" or t.op._const_value is not None or t.op._host == "pre"
        for t in tensors
    )
    if host_ready:
        inputs = [t for t in tensors if t.op._const_value is None]

        def host_compute(session: Any, *values: Any) -> tuple[Any, ...]:
            it = iter(values)
            args = [
                t.op._const_value if t.op._const_value is not None else next(it) for t in tensors
            ]
            try:
                return tuple(outputs(op.name, func(*_own_copies(args)), tout, single))
            except Exception as e:  # noqa: BLE001 - the user's function: TF's error class
                raise _py_error(op, e) from e

        op = graph.create_op(
            op_type,
            name or op_type,
            inputs=inputs,
            compute=host_compute,
            output_specs=specs,
            host="pre",
        )
    else:
        state: dict[str, errors.OpError] = {}

        def call(*values: Any) -> tuple[Any, ...]:
            try:
                out = outputs(op.name, func(*_own_copies(values)), tout, single)
                for i, (arr, t) in enumerate(zip(out, op.outputs, strict=True)):
                    if tuple(arr.shape) != t._shape:
                        raise errors.InvalidArgumentError(
                            None,
                            None,
                            f"{i}-th value returned by {op.name} has shape {arr.shape}, but "
                            f"its static shape is {t.shape}",
                        )
                return (np.array(False), *out)
            except Exception as e:  # noqa: BLE001 - reported after the run
                state["error"] = _py_error(op, e)
                # compute() has checked that every output's shape is fully known.
                return (np.array(True), *[np.zeros(t._shape, t._np_dtype) for t in op.outputs])  # type: ignore[type-var]

        def compute(ctx: Any, *values: Any) -> tuple[Any, ...]:
            shapes = []
            for i, t in enumerate(op.outputs):
                if t._shape is None or None in t._shape:
                    raise NotImplementedError(
                        f"tf.py_func '{op.name}': output {i} has the unknown shape {t.shape} "
                        "and runs inside the step program (its inputs are computed there), "
                        "which compiles static shapes: call set_shape() on the output."
                    )
                shapes.append(jax.ShapeDtypeStruct(t._shape, t._np_dtype))
            result = [jax.ShapeDtypeStruct((), np.bool_), *shapes]
            values = [jax.lax.stop_gradient(v) for v in values]
            if stateful:
                from jax.experimental import io_callback

                failed, *outs = io_callback(call, result, *values)
            else:
                failed, *outs = jax.pure_callback(call, result, *values)
            runtime_checks.check(ctx, op, ~failed)
            return tuple(outs)

        op = graph.create_op(
            op_type, name or op_type, inputs=tensors, compute=compute, output_specs=specs
        )
        runtime_checks.mark(
            op, lambda: state.pop("error", errors.UnknownError(None, op, "py_func failed"))
        )
    return op, single


class EagerValue(np.ndarray):
    """What ``tf.py_function`` hands its function for each input: a NumPy array with
    the methods TF's ``EagerTensor`` is mostly used through (``numpy()``,
    ``get_shape()``); ``shape`` and ``dtype`` are NumPy's."""

    def numpy(self) -> np.ndarray:
        """The value as a plain NumPy array (``EagerTensor.numpy()``)."""
        return np.asarray(self).view(np.ndarray)

    def get_shape(self) -> Any:
        """The shape as a ``TensorShape``."""
        from adapters.v1.framework.tensor_shape import TensorShape

        return TensorShape(list(self.shape))


def _eager_value(value: Any) -> Any:
    if isinstance(value, np.ndarray) and value.dtype.kind != "O":
        return value.view(EagerValue)
    if isinstance(value, np.ndarray):
        return value
    return np.asarray(value).view(EagerValue)


def _eager_outputs(op_name: str, result: Any, tout: list[Any], single: bool) -> list[np.ndarray]:
    """``py_function``'s results converted as TF converts them (``convert_to_tensor``
    with the ``Tout`` dtype): arrays are cast; a Python value must fit the dtype."""
    if result is None and not tout:
        return []
    if single or not isinstance(result, (list, tuple)):
        result = [result]
    if len(result) != len(tout):
        raise errors.InvalidArgumentError(
            None, None, f"{op_name} returns {len(result)} values, but expects {len(tout)} values"
        )
    out = []
    for value, dtype in zip(result, tout, strict=True):
        want = dtype.dtype
        if isinstance(value, (np.ndarray, np.generic)):
            out.append(np.asarray(value).view(np.ndarray).astype(want))
            continue
        arr = np.asarray(value, dtype=object if want.kind == "O" else None)
        if want.kind != "O" and not np.can_cast(arr.dtype, want, "same_kind"):
            raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}")
        out.append(arr.astype(want))
    return out


def py_function(
    func: Callable[..., Any] | None = None,
    inp: Any = None,
    Tout: Any = None,  # noqa: N803 - TF's argument name
    name: str | None = None,
) -> Any:
    """``tf.py_function``: calls ``func`` on the values of ``inp`` when the step runs.

    As :func:`py_func` (where it runs, its errors), with TF's ``py_function``
    conventions: the op type is ``EagerPyFunc``, results are converted to ``Tout``
    as ``tf.convert_to_tensor`` converts them (a float64 array for a float32 output
    is cast; a Python ``1.5`` for an int32 output is an ``InvalidArgumentError``
    ``TypeError: Cannot convert 1.5 to EagerTensor of dtype int32``), and an empty
    ``Tout`` returns the operation.

    Args:
      func: a Python function of the input values.
      inp: a list of tensors (default none).
      Tout: a dtype (one tensor), a list of dtypes (a list), or ``[]`` (no outputs:
        the ``Operation``). Required.
      name: the op name (default ``"EagerPyFunc"``).

    With ``func=None`` it is a decorator (``@tf.py_function(Tout=tf.float32)``):
    the decorated function's call builds the op on its arguments.

    Returns:
      A tensor, a list of tensors (unknown shapes: ``set_shape`` them), or the
      ``Operation`` when there are no outputs.

    Raises:
      TypeError: ``Tout`` missing, ``inp`` missing, or ``inp`` given to the decorator
        (TF's messages).
      LookupError: ``tf.gradients`` through it (see the note).

    .. note::
       TF calls ``func`` with ``EagerTensor`` values, so it may use ``x.numpy()`` or TF
       ops, and TF differentiates it with a tape. jtrain has no eager tensors: each
       input is an :class:`EagerValue`, a NumPy array with ``.numpy()`` and
       ``.get_shape()`` whose ``dtype`` is NumPy's (``float32``, not ``tf.float32``);
       NumPy code works, TF ops inside ``func`` do not (they would build graph
       nodes). A NumPy function has no derivative JAX can take, so a gradient through
       it raises ``LookupError`` when the graph is built, where TF would compute one
       (with respect to a constant input, which the op does not take as a graph input
       here, ``tf.gradients`` gives ``None``): write differentiable parts with
       ``tf.custom_gradient`` or ``tf.jax_function``.
    """
    from adapters.v1.ops.custom_gradient import PY_FUNCTION_GRADIENT

    if Tout is None:
        raise TypeError(
            "Missing required argument: 'Tout'\n"
            "  If using tf.py_function as a decorator, set `Tout`\n"
            "  **by name** above the function:\n"
            "  `@tf.py_function(Tout=tout)`"
        )
    if func is None:
        if inp is not None:
            raise TypeError(
                "Don't set the `inp` argument when using tf.py_function as a "
                "decorator (`func=None`)."
            )

        def decorator(fun: Callable[..., Any]) -> Callable[..., Any]:
            @functools.wraps(fun)
            def wrapper(*args: Any) -> Any:
                return py_function(fun, inp=args, Tout=Tout, name=name)

            return wrapper

        return decorator
    if inp is None:
        raise TypeError(
            "Missing argument `inp`:\n"
            "  You must set the `inp` argument (the list of arguments to the\n"
            "  function), unless you use `tf.py_function` as a decorator"
            "(`func=None`)."
        )
    user = func

    def call(*values: Any) -> Any:
        return user(*[_eager_value(v) for v in values])

    op, single = _py_op(call, inp, Tout, True, name, "EagerPyFunc", _eager_outputs)
    op._gradient_op_type = PY_FUNCTION_GRADIENT
    if not op.outputs:
        return op
    return op.outputs[0] if single else list(op.outputs)


def numpy_function(
    func: Callable[..., Any],
    inp: Any,
    Tout: Any,  # noqa: N803 - TF's argument name
    stateful: bool = True,
    name: str | None = None,
) -> Any:
    """``tf.numpy_function``: ``py_func`` (same arguments and behaviour)."""
    return py_func(func, inp, Tout, stateful=stateful, name=name)


def timestamp(name: str | None = None) -> ops.Tensor:
    """``tf.timestamp``: the host's clock, in float64 seconds since the Unix epoch.

    Read once per ``Session.run`` that needs it, when the run starts (before the step
    program, as a host value); inside a ``tf.cond``/loop body, when the program
    reaches it (a host callback). Never folded into a constant. TF's ``Timestamp``
    op reads the clock when the op executes within the run.

    Args:
      name: the op name (default ``"Timestamp"``).

    Returns:
      A float64 scalar tensor (microsecond resolution, as TF's).
    """
    import time

    from adapters.v1.framework import dtypes

    def now() -> Any:
        return np.float64(time.time_ns() // 1000) / 1e6  # TF's EnvTime::NowMicros() / 1e6

    op, _ = _py_op(now, [], dtypes.float64, True, name, "Timestamp", _py_outputs)
    op._not_differentiable = True
    out = op.outputs[0]
    out.set_shape([])
    return out
