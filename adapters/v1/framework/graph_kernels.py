"""TF op types that TF-written GraphDefs hold but jtrain's op library has no entry for.

TF's Python builds gradients and shape arithmetic out of graph ops (``ReluGrad``,
``BiasAddGrad``, ``Shape``, ``Reshape`` with a shape tensor, ``Sum`` with an axis
tensor...), updates variables with ``Apply*`` kernels and draws initial values
with seeded random ops. ``import_meta_graph`` runs the nodes of a TF ``.meta``
with the kernels of this table. A kernel takes the node's attributes and its
input values and returns its outputs. Shape-like inputs (a reshape's shape, a
reduction's axes) must be known when the step is traced: they come from
``Const`` nodes or from ``Shape`` nodes, whose values are NumPy arrays of the
traced shapes.

Four kinds of entries, one mechanism (:class:`Kernel`):

- written here from TF's documented kernel semantics (shape arithmetic,
  elementwise gradient kernels such as ``TanhGrad``);
- **the op library's own implementation** under TF's input order
  (:func:`_library`: ``Conv2D`` is ``tf.nn.conv2d`` with its ``strides``,
  ``padding``... taken from the node's attributes), and gradient kernels as the
  vector-Jacobian product of the library's forward implementation
  (:func:`_vjp`: ``MaxPoolGrad``, ``Conv2DBackpropFilter``,
  ``FusedBatchNormGradV3``), so their values are those of a jtrain-built graph;
- ``Apply*``/``SparseApply*`` optimizer kernels as **jtrain's TF-exact
  optimizers** (:func:`_optimizer`: the kernel's inputs become the
  transformation's hyperparameters and state, its slots are updated in place),
  and ``Scatter*`` of ref variables;
- TF's stateful random ops (:func:`_random`): TF's Philox stream from the
  node's ``seed``/``seed2``, its counter moved on each run as TF's
  ``GuardedPhiloxRandom`` (run ``k`` gives TF's run ``k``).

Output sizes that depend on values (``Unique``, ``UniqueWithCounts``, ``Where``)
take TF's exact sizes from the session's sizes program (``framework/data_sizes.py``:
:attr:`Kernel.sized`), except where TF's optimizers deduplicate a sparse gradient
with ``Unique`` and nothing else reads it: there it keeps its input's length,
padded (:func:`_dedupe_only`), one program for every batch.

``KERNELS`` maps an op type to its :class:`Kernel`; ``INSTEAD`` says what to use
for op types without one.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from adapters.v1.framework import dtypes
from jtrain import errors
from jtrain._eigen import reciprocal as eigen_reciprocal
from jtrain._eigen import rsqrt as eigen_rsqrt
from jtrain._eigen import softmax as eigen_softmax
from jtrain._eigen import tanh_logistic
from jtrain._numerics import add_n, eigen_sum, rounded, row_sum_in_order

__all__ = ["Kernel", "KERNELS", "INSTEAD"]

# What to use instead of TF op types that have no kernel here (the import's error says it).
_SAVER = (
    "TF's saver ops do not run in jtrain: use the Saver that import_meta_graph returns "
    "(saver.save/saver.restore write and read TF's checkpoints under the SaverDef's names)"
)
INSTEAD: dict[str, str] = {
    "SaveV2": _SAVER,
    "RestoreV2": _SAVER,
    "MergeV2Checkpoints": _SAVER,
    "SaveSlices": _SAVER,
    "RestoreSlice": _SAVER,
}


@dataclasses.dataclass(frozen=True)
class Kernel:
    """How a TF op type runs.

    Attributes:
      fn: ``fn(attrs, *input values) -> tuple of outputs``; a random kernel gets
        ``run`` before the inputs: ``run(draw)`` calls ``draw(key, counter)`` with the
        node's Philox key and this run's counter and moves the node's counter on
        (``random_ops.philox_run``).
      dtypes: ``dtypes(attrs, input dtypes) -> output dtypes`` (one per output).
      refs: how many leading inputs are variables (TF's ``ref`` inputs of
        ``Apply*`` ops, a resource variable's handle): ``fn`` receives their values
        and, with ``effect`` ``"write"``, returns their new values first (the
        node's outputs are the first ``len(dtypes(...))`` of its results).
      effect: what the kernel does with its variables: ``"write"`` (reads and
        updates them), ``"assign"`` (overwrites them: ``fn`` gets their shape and
        dtype, a ``jax.ShapeDtypeStruct``), ``"read"``, or ``"initialized"``
        (``fn`` gets whether each holds a value).
      random: the kernel draws from TF's Philox stream (``fn`` gets ``run``).
      static: positions of the inputs (after the ``refs``; negative from the end)
        whose values must be known when the step is traced (shapes, axes): the
        importer evaluates them then (``shape_values.trace_time_value``).
      all_static: every input must be known when the step is traced.
      sized: ``sized(attrs, x) -> tuple of integer scalars``: the sizes of outputs
        that depend on the values of the first input ``x`` (``data_sizes.Sized``);
        ``fn`` then gets them as ``sizes=`` (a tuple of ints), computed before the
        step by the session.
      unsized: ``unsized(readers, name) -> bool``: whether node ``name`` may run
        without its sizes (``fn`` gets ``sizes=None``) because every reader of its
        outputs ignores their length (``readers("node:i")`` lists the ``(NodeDef,
        input position)`` pairs reading a tensor).
    """

    fn: Callable[..., tuple[Any, ...]]
    dtypes: Callable[..., list[Any]]
    refs: int = 0
    effect: str = "write"
    random: bool = False
    static: tuple[int, ...] = ()
    all_static: bool = False
    sized: Callable[..., tuple[Any, ...]] | None = None
    unsized: Callable[..., bool] | None = None


def _static(value: Any, name: str) -> np.ndarray:
    """A shape-like input's value as NumPy (it must be known when the step is traced).

    Raises:
      NotImplementedError: the value is computed in the step.
    """
    try:
        return np.asarray(value)
    except (TypeError, jax.errors.TracerArrayConversionError):
        raise NotImplementedError(
            f"the {name} input must be known when the graph is traced (a constant or a "
            "Shape); jtrain compiles static shapes"
        ) from None


def _ints(value: Any, name: str) -> tuple[int, ...]:
    return tuple(int(d) for d in _static(value, name).reshape(-1))


def _np(attrs: dict[str, Any], key: str, default: str = "int32") -> np.dtype:
    value = attrs.get(key)
    return dtypes.as_dtype(value if value is not None else default).dtype


# -- dtype rules ----------------------------------------------------------------------
def _same(attrs, in_dtypes):
    return [in_dtypes[0]]


def _input(index: int, count: int = 1):
    def rule(attrs, in_dtypes):
        return [in_dtypes[index]] * count

    return rule


def _typed(key: str, default: str = "int32", count: int = 1):
    def rule(attrs, in_dtypes):
        return [_np(attrs, key, default)] * count

    return rule


def _shape_n(attrs, in_dtypes):
    return [_np(attrs, "out_type")] * len(in_dtypes)


# -- kernels written from TF's semantics ------------------------------------------------
def _shape(attrs, x):
    return (np.asarray(np.shape(x), _np(attrs, "out_type")),)


def _shapes(attrs, *xs):
    return tuple(np.asarray(np.shape(x), _np(attrs, "out_type")) for x in xs)


def _reshape(attrs, x, shape):
    return (jnp.reshape(x, _ints(shape, "shape")),)


def _reduce(fn):
    def kernel(attrs, x, axes):
        axis = _ints(axes, "reduction_indices")
        return (fn(x, axis=axis, keepdims=bool(attrs.get("keep_dims", False))).astype(x.dtype),)

    return kernel


def _mean(x, axis, keepdims):
    """TF's ``Mean`` kernel: a floating mean divided as TF divides (``kernel_mean``)."""
    from adapters.v1.ops.math_ops import kernel_mean

    if jnp.issubdtype(x.dtype, jnp.floating):
        return kernel_mean(x, axis, keepdims)
    return jnp.mean(x, axis=axis, keepdims=keepdims)


def _fill(attrs, dims, value):
    return (jnp.full(_ints(dims, "dims"), value),)


def _tile(attrs, x, multiples):
    return (jnp.tile(x, _ints(multiples, "multiples")),)


def _expand_dims(attrs, x, dim):
    return (jnp.expand_dims(x, _ints(dim, "dim")[0]),)


def _broadcast_to(attrs, x, shape):
    return (jnp.broadcast_to(x, _ints(shape, "shape")),)


def _range(attrs, start, limit, delta):
    values = [_static(v, "range") for v in (start, limit, delta)]
    return (np.arange(*[v.item() for v in values], dtype=_np(attrs, "Tidx")),)


def _identity(attrs, x):
    return (x,)


def _add_n(attrs, *xs):
    """TF's ``AddN`` as TF runs it: its inputs in name order (grappler sorts them:
    ``_sorted``, set at import), added in the kernel's groups (``add_n``)."""
    order = attrs.get("_sorted", range(len(xs)))
    if not jnp.issubdtype(xs[0].dtype, jnp.floating):
        return (functools.reduce(jnp.add, xs),)
    return (add_n([rounded(xs[i]) for i in order]),)


def _sum(x, axis, keepdims):
    """TF's ``Sum`` kernel: floating values in Eigen's order (``eigen_sum``)."""
    if jnp.issubdtype(x.dtype, jnp.floating):
        return eigen_sum(x, axis, keepdims)
    return jnp.sum(x, axis=axis, keepdims=keepdims)


def _gather(attrs, params, indices, axis):
    axis_ = _ints(axis, "axis")[0]
    batch_dims = int(attrs.get("batch_dims", 0) or 0)
    if batch_dims:
        raise NotImplementedError("GatherV2 with batch_dims is not supported")
    return (jnp.take(params, indices, axis=axis_),)


def _unique(attrs, x, *, sizes=None, counts=False):
    """TF's ``Unique``/``UniqueWithCounts``: ``y`` the distinct values of ``x`` in order
    of first occurrence, ``idx`` each element's index in ``y`` (and ``count`` each
    value's count), of TF's exact length ``sizes[0]`` (``array_ops._unique_traced``).

    ``sizes=None`` (only for a TF optimizer's deduplication, :func:`_dedupe_only`):
    ``y`` has ``x``'s length, its distinct values ascending then repeats of the
    smallest, and ``idx`` maps ``x`` into it. The optimizer sums duplicate indices with
    it (``UnsortedSegmentSum`` over ``y``'s length): the padding rows sum to zero, and
    the sparse kernels add them to their row unchanged.

    Raises:
      InvalidArgumentError: ``x`` is not a vector (TF: "unique expects a 1D vector.").
    """
    from adapters.v1.ops.array_ops import _unique_traced

    index_dtype = _np(attrs, "out_idx")
    if sizes is not None:
        return _unique_traced(x, sizes[0], index_dtype, counts)
    y, idx = jnp.unique(x, return_inverse=True, size=x.shape[0])
    return (y, idx.reshape(-1).astype(index_dtype))


def _distinct(attrs, x):
    """The sizes of ``Unique``: the number of distinct values of ``x``."""
    from adapters.v1.ops.array_ops import _count_distinct

    return _count_distinct(x, attrs)


# What reads a TF optimizer's deduplicated indices (``Optimizer._apply_sparse_duplicate_
# indices``: ``y, idx = Unique(indices)``, ``UnsortedSegmentSum(values, idx,
# StridedSlice(Shape(y)))``, then a ``SparseApply*``/``Scatter*`` of ``y``).
_LENGTH_FREE = {"UnsortedSegmentSum": 2}  # num_segments


def _dedupe_only(readers: Callable[[str], list[tuple[Any, int]]], name: str) -> bool:
    """Whether the ``Unique`` node ``name`` only deduplicates an optimizer's sparse
    gradient (TF's pattern above): ``y`` read by the update kernels (whose padded rows
    of zeros change nothing) and by a ``Shape`` that only sizes the segment sum,
    ``idx`` only by the segment sum."""

    def sizes_segment_sum(node: Any) -> bool:  # StridedSlice(Shape(y)) -> num_segments
        return node.op == "StridedSlice" and all(
            reader.op in _LENGTH_FREE and pos == _LENGTH_FREE[reader.op]
            for reader, pos in readers(f"{node.name}:0")
        )

    def y_reader(node: Any, pos: int) -> bool:
        if node.op == "Shape":
            return all(sizes_segment_sum(r) for r, _ in readers(f"{node.name}:0"))
        kernel = KERNELS.get(node.op)
        return kernel is not None and kernel.refs > 0 and pos >= kernel.refs

    y_readers, idx_readers = readers(f"{name}:0"), readers(f"{name}:1")
    return (
        bool(y_readers)
        and all(y_reader(node, pos) for node, pos in y_readers)
        and all(node.op == "UnsortedSegmentSum" and pos == 1 for node, pos in idx_readers)
    )


def _where(attrs, condition, *, sizes):
    """TF's ``Where`` (one input): the int64 coordinates ``[n, rank]`` of the nonzero
    entries, ``n`` computed before the step (``math_ops._where_indices``).

    Raises:
      InvalidArgumentError: a scalar ``condition`` (TF's kernel's error).
    """
    from adapters.v1.ops.math_ops import _where_indices

    if jnp.ndim(condition) == 0:
        raise errors.InvalidArgumentError(None, None, "WhereOp : Unhandled input dimensions: 0")
    return (_where_indices(condition, sizes=sizes),)


def _count_nonzero(attrs, condition):
    """The sizes of ``Where``: the count of nonzero entries."""
    return (jnp.count_nonzero(condition),)


def _sparse_xent(attrs, features, labels):
    return eigen_softmax.sparse_softmax_cross_entropy_kernel(labels, features)


def _xent(attrs, features, labels):
    return eigen_softmax.softmax_cross_entropy_kernel(labels, features)


def _bias_add_grad(attrs, grad):
    """TF's ``BiasAddGrad``: NHWC rows added in order (``row_sum_in_order``)."""
    if attrs.get("data_format", "NHWC") == "NCHW" and grad.ndim > 2:
        return (jnp.sum(grad, axis=tuple(i for i in range(grad.ndim) if i != 1)),)
    return (row_sum_in_order(grad.reshape(-1, grad.shape[-1])),)


def _concat_offset(attrs, axis, *shapes):
    """``ConcatOffset``: where each input of a concatenation starts in its output."""
    dim = _ints(axis, "concat_dim")[0]
    sizes = [np.asarray(_static(s, "shape")) for s in shapes]
    dim = dim % len(sizes[0])
    offsets, start = [], 0
    for size in sizes:
        offset = np.zeros_like(size)
        offset[dim] = start
        offsets.append(offset)
        start += int(size[dim])
    return tuple(offsets)


def _broadcast_gradient_args(attrs, s0, s1):
    a, b = (list(_static(s, "shape").reshape(-1)) for s in (s0, s1))
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
    r0 = [i for i in range(n) if a[i] == 1 and b[i] != 1]
    r1 = [i for i in range(n) if b[i] == 1 and a[i] != 1]
    dtype = _np(attrs, "T")
    return (np.asarray(r0, dtype), np.asarray(r1, dtype))


def _elementwise_grad(formula: Callable[..., Any]):
    """A gradient kernel ``(a, b) -> formula(a, b, one)`` in the inputs' dtype."""

    def kernel(attrs, a, b):
        one = jnp.ones((), jnp.result_type(a))
        return (formula(a, b, one).astype(jnp.result_type(a)),)

    return kernel


# SELU's constants (Klambauer et al., as TF's kernel).
_SELU_SCALE = 1.0507009873554804934193349852946
_SELU_ALPHA = 1.6732632423543772848170429916717

# TF's elementwise gradient kernels: ``*Grad(y, dy)`` of an op's output ``y`` or
# ``*Grad(gradients, features)`` of its input, as TF documents each.
_ELEMENTWISE_GRADS: dict[str, Callable[..., Any]] = {
    "ReluGrad": lambda dy, x, one: jnp.where(x > 0, dy, jnp.zeros_like(dy)),
    "Relu6Grad": lambda dy, x, one: jnp.where((x > 0) & (x < 6 * one), dy, jnp.zeros_like(dy)),
    "EluGrad": lambda dy, y, one: jnp.where(y > 0, dy, dy * (y + one)),
    "SoftplusGrad": lambda dy, x, one: dy * jax.nn.sigmoid(x),
    "SoftsignGrad": lambda dy, x, one: dy / jnp.square(one + jnp.abs(x)),
    "TanhGrad": lambda y, dy, one: tanh_logistic.tanh_grad(y, dy),
    "SigmoidGrad": lambda y, dy, one: tanh_logistic.logistic_grad(y, dy),
    "SqrtGrad": lambda y, dy, one: dy * (one / 2) / y,
    "RsqrtGrad": lambda y, dy, one: eigen_rsqrt.rsqrt_grad(y, dy),
    "ReciprocalGrad": lambda y, dy, one: eigen_reciprocal.reciprocal_grad(y, dy),
    "SeluGrad": lambda dy, y, one: jnp.where(
        y > 0, dy * (_SELU_SCALE * one), dy * (y + _SELU_SCALE * _SELU_ALPHA * one)
    ),
    "InvGrad": lambda y, dy, one: eigen_reciprocal.reciprocal_grad(y, dy),
}


def _leaky_relu_grad(attrs, dy, x):
    alpha = jnp.asarray(attrs.get("alpha", 0.2), dy.dtype)
    return (jnp.where(x > 0, dy, dy * alpha),)


# -- the op library's implementations under TF's input order ------------------------------
def _call_library(name: str, arguments: dict[str, Any]) -> Any:
    """Calls the op library's implementation of ``name`` with TF's named arguments."""
    from adapters.v1.framework.op_def import OPS

    entry = OPS[name]
    params = entry.signature.parameters
    bound = [
        arguments[p] if p in arguments else params[p].default
        for p in params
        if p not in (entry.name_param, entry.collection_param)
    ]
    return entry.impl(*bound)


def _arguments(
    attrs: dict[str, Any],
    inputs: Sequence[str],
    values: Sequence[Any],
    static: Sequence[str],
    rename: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The library's arguments: the node's attributes (``rename``: parameter ->
    attribute where TF's names differ) and its inputs by parameter name (``static``
    ones as Python lists or numbers; ``*name``: a list of inputs, the rest of them,
    or an equal share when two parameters are lists)."""
    arguments = dict(attrs)
    for param, attr in (rename or {}).items():
        arguments[param] = attrs.get(attr)
    lists = [n for n in inputs if n.startswith("*")]
    share = (len(values) - len(inputs) + len(lists)) // max(len(lists), 1)
    position = 0
    for name in inputs:
        if name.startswith("*"):
            arguments[name[1:]] = list(values[position : position + share])
            position += share
            continue
        value = values[position]
        position += 1
        arguments[name] = _static(value, name).tolist() if name in static else value
    return arguments


def _positions(names: Sequence[str], static: Sequence[str]) -> tuple[int, ...]:
    """Positions of the ``static`` inputs (negative after a list of inputs)."""
    star = next((i for i, n in enumerate(names) if n.startswith("*")), len(names))
    return tuple(i if i < star else i - len(names) for i, n in enumerate(names) if n in static)


def _library(
    name: str,
    inputs: str,
    static: str = "",
    rule: Callable[..., list[Any]] = _same,
    outputs: int | None = None,
    rename: str = "",
) -> Kernel:
    """A kernel calling the op library's ``name``.

    Args:
      name: the op library's name (``"nn.conv2d"``).
      inputs: the parameter each node input binds, in TF's input order (``*values``
        for a list of inputs).
      static: the parameters whose inputs must be known at trace time (sizes, axes).
      rule: the output dtypes' rule (default: the first input's dtype).
      outputs: pad the outputs to this count (``FusedBatchNormV3``'s reserve spaces).
      rename: ``param=attr`` pairs for attributes named otherwise by TF's op.
    """
    names, fixed = inputs.split(), static.split()
    renamed = dict(r.split("=") for r in rename.split())

    def kernel(attrs, *values):
        out = _call_library(name, _arguments(attrs, names, values, fixed, renamed))
        outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
        return outs if outputs is None else outs + _extra(outs, outputs)

    return Kernel(kernel, rule, static=_positions(names, fixed))


def _extra(outs: tuple[Any, ...], count: int) -> tuple[Any, ...]:
    """``FusedBatchNormV3``'s reserve spaces: the batch mean and variance, and an empty one."""
    return (outs[1], outs[2], jnp.zeros((0,), outs[1].dtype))[: count - len(outs)]


def _vjp(
    name: str,
    inputs: str,
    wrt: str,
    cotangent: str,
    rule: Callable[..., list[Any]],
    static: str = "",
    zeros: str = "",
) -> Kernel:
    """A gradient kernel: the vector-Jacobian product of the library's ``name``.

    ``inputs``: the parameter each node input binds (``cotangent`` names the
    incoming gradient; ``zeros`` names shape inputs standing for a parameter
    of zeros, e.g. ``Conv2DBackpropInput``'s ``input_sizes``); ``wrt``: the
    parameters differentiated, one output each.
    """
    names, fixed, targets = inputs.split(), static.split(), wrt.split()
    zero_of = dict(z.split("=") for z in zeros.split())

    def kernel(attrs, *values):
        arguments = _arguments(attrs, names, values, fixed)
        dy = arguments.pop(cotangent)
        for param, sizes in zero_of.items():
            arguments[param] = jnp.zeros(tuple(arguments.pop(sizes)), dy.dtype)

        def forward(*primals):
            out = _call_library(name, {**arguments, **dict(zip(targets, primals, strict=True))})
            return out[0] if isinstance(out, (tuple, list)) else out

        _, pullback = jax.vjp(forward, *[arguments[t] for t in targets])
        return tuple(pullback(dy.astype(jnp.result_type(dy))))

    return Kernel(kernel, rule, static=_positions(names, fixed))


def _fused_batch_norm_grad(attrs, dy, x, scale, mean, variance, reserve):
    """``FusedBatchNormGradV3``: the library's ``fused_batch_norm`` differentiated.

    Training: through the batch statistics (the given ones are the batch's); else
    with the given population statistics.
    """
    training = bool(attrs.get("is_training", True))
    common = {
        "epsilon": attrs.get("epsilon", 0.0001),
        "data_format": attrs.get("data_format", "NHWC"),
        "is_training": training,
    }
    if not training:
        common.update(mean=mean, variance=variance)

    def forward(x_, scale_, offset_):
        out = _call_library(
            "nn.fused_batch_norm", {**common, "x": x_, "scale": scale_, "offset": offset_}
        )
        return out[0]

    _, pullback = jax.vjp(forward, x, scale, jnp.zeros_like(scale))
    dx, dscale, doffset = pullback(dy)
    empty = jnp.zeros((0,), scale.dtype)
    return (dx, dscale, doffset, empty, empty)


# -- optimizer kernels: jtrain's TF-exact optimizers ---------------------------------------
def _optimizer(factory_name: str, inputs: str, refs: int, attrs: str = "", **fixed: Any):
    """An ``Apply*``/``SparseApply*`` kernel as the jtrain optimizer ``factory_name``.

    ``inputs`` names TF's inputs after the variable, in TF's order: ``s.FIELD``
    is the optimizer state's field (the first ``refs`` of them are slots the kernel
    updates), ``k.ARG`` a hyperparameter of the factory, ``grad``/``indices`` the
    gradient (with ``indices``: an ``IndexedSlices``), ``step`` TF's step ``T``
    (the state's ``count`` is ``T - 1``). ``attrs`` maps node attributes to factory
    arguments (``use_nesterov=use_nesterov``); ``fixed`` are factory arguments.
    """
    roles = inputs.split()
    attr_args = dict(a.split("=") for a in attrs.split())

    def kernel(node_attrs, var, *values):
        from jtrain import optimizers
        from jtrain.indexed_slices import IndexedSlices

        for key in ("multiply_linear_by_lr",):
            if node_attrs.get(key):
                raise NotImplementedError(f"{key}=True is not supported by jtrain's optimizers")
        if node_attrs.get("update_slots") is False:
            raise NotImplementedError("update_slots=False is not supported by jtrain's optimizers")
        factory = getattr(optimizers, factory_name)
        state_cls = {
            "adam": optimizers.AdamState,
            "momentum": optimizers.MomentumState,
            "rmsprop": optimizers.RMSPropState,
            "adagrad": optimizers.AdagradState,
            "adagrad_da": optimizers.AdagradDAState,
            "adadelta": optimizers.AdadeltaState,
            "ftrl": optimizers.FtrlState,
            "gradient_descent": optimizers.GradientDescentState,
            "proximal_adagrad": optimizers.ProximalAdagradState,
            "proximal_gradient_descent": optimizers.ProximalGradientDescentState,
        }[factory_name]
        state: dict[str, Any] = dict.fromkeys(state_cls._fields)
        state["count"] = jnp.zeros([], jnp.int32)
        kwargs = dict(fixed)
        for attr, arg in attr_args.items():
            kwargs[arg] = bool(node_attrs.get(attr, False))
        grad = indices = None
        for role, value in zip(roles, values, strict=True):
            kind, _, field = role.partition(".")
            if kind == "s":
                state[field] = value
            elif kind == "k":
                kwargs[field] = value
            elif role == "grad":
                grad = value
            elif role == "indices":
                indices = value
            elif role == "step":
                state["count"] = (jnp.asarray(value) - 1).astype(jnp.int32)
        if indices is not None:
            grad = IndexedSlices(grad, indices, tuple(var.shape))
        updates, new_state = factory(**kwargs).update(grad, state_cls(**state), var)
        slots = [getattr(new_state, r.partition(".")[2]) for r in roles[:refs]]
        return ((var + updates).astype(var.dtype), *slots)

    return Kernel(kernel, _same, refs=1 + refs)


def _dense_and_sparse(
    name: str, factory: str, inputs: str, refs: int, attrs: str = "", **fixed: Any
) -> dict[str, Kernel]:
    """``Apply<name>`` and ``SparseApply<name>`` (TF's sparse kernel takes ``indices``
    after ``grad``)."""
    sparse = " ".join("grad indices" if r == "grad" else r for r in inputs.split())
    return {
        f"Apply{name}": _optimizer(factory, inputs, refs, attrs, **fixed),
        f"SparseApply{name}": _optimizer(factory, sparse, refs, attrs, **fixed),
    }


_OPTIMIZERS: dict[str, Kernel] = {
    **_dense_and_sparse("GradientDescent", "gradient_descent", "k.learning_rate grad", 0),
    **_dense_and_sparse(
        "Momentum",
        "momentum",
        "s.momentum k.learning_rate grad k.momentum",
        1,
        "use_nesterov=use_nesterov",
    ),
    "ApplyAdam": _optimizer(
        "adam",
        "s.m s.v s.beta1_power s.beta2_power k.learning_rate k.beta1 k.beta2 k.epsilon grad",
        2,
    ),
    **_dense_and_sparse("Adagrad", "adagrad", "s.accumulator k.learning_rate grad", 1),
    **_dense_and_sparse(
        "AdagradDA",
        "adagrad_da",
        "s.gradient_accumulator s.gradient_squared_accumulator grad k.learning_rate "
        "k.l1_regularization_strength k.l2_regularization_strength step",
        2,
    ),
    **_dense_and_sparse(
        "ProximalAdagrad",
        "proximal_adagrad",
        "s.accumulator k.learning_rate k.l1_regularization_strength "
        "k.l2_regularization_strength grad",
        1,
    ),
    **_dense_and_sparse(
        "ProximalGradientDescent",
        "proximal_gradient_descent",
        "k.learning_rate k.l1_regularization_strength k.l2_regularization_strength grad",
        0,
    ),
    **_dense_and_sparse(
        "Adadelta",
        "adadelta",
        "s.accum s.accum_update k.learning_rate k.rho k.epsilon grad",
        2,
    ),
    **_dense_and_sparse(
        "RMSProp",
        "rmsprop",
        "s.rms s.momentum k.learning_rate k.decay k.momentum k.epsilon grad",
        2,
    ),
    **_dense_and_sparse(
        "CenteredRMSProp",
        "rmsprop",
        "s.mg s.rms s.momentum k.learning_rate k.decay k.momentum k.epsilon grad",
        3,
        centered=True,
    ),
    **_dense_and_sparse(
        "Ftrl",
        "ftrl",
        "s.accum s.linear grad k.learning_rate k.l1_regularization_strength "
        "k.l2_regularization_strength k.learning_rate_power",
        2,
    ),
    **_dense_and_sparse(
        "FtrlV2",
        "ftrl",
        "s.accum s.linear grad k.learning_rate k.l1_regularization_strength "
        "k.l2_regularization_strength k.l2_shrinkage_regularization_strength "
        "k.learning_rate_power",
        2,
    ),
}


def _scatter(method: str, negate: bool = False) -> Kernel:
    """TF's ``Scatter*`` of a ref variable: ``ref[indices] op= updates`` (duplicates
    accumulate), the variable's new value out."""

    def kernel(attrs, ref, indices, updates):
        updates = jnp.asarray(updates, ref.dtype)
        rows = getattr(ref.at[indices], method)
        return (rows(-updates if negate else updates),)

    return Kernel(kernel, _same, refs=1)


_SCATTERS: dict[str, Kernel] = {
    "ScatterUpdate": _scatter("set"),
    "ScatterAdd": _scatter("add"),
    "ScatterSub": _scatter("add", negate=True),
    "ScatterMul": _scatter("multiply"),
    "ScatterDiv": _scatter("divide"),
    "ScatterMax": _scatter("max"),
    "ScatterMin": _scatter("min"),
}


def _none(attrs, in_dtypes):
    return []


def _read_variable(attrs, value):
    return (value,)


def _assign_variable(kind: str) -> Kernel:
    """``AssignVariableOp``/``AssignAddVariableOp``/``AssignSubVariableOp`` (no output)."""

    def kernel(attrs, var, value):
        value = jnp.asarray(value, var.dtype)
        new = {"set": lambda: value, "add": lambda: var + value, "sub": lambda: var - value}
        return (jnp.broadcast_to(new[kind](), var.shape),)

    return Kernel(kernel, _none, refs=1, effect="assign" if kind == "set" else "write")


def _resource_gather(attrs, var, indices):
    if int(attrs.get("batch_dims", 0) or 0):
        raise NotImplementedError("ResourceGather with batch_dims is not supported")
    return (jnp.take(var, indices, axis=0),)


def _resource(kernel: Kernel) -> Kernel:
    """The resource-variable form of a ref kernel: the same update, no output."""
    return dataclasses.replace(kernel, dtypes=_none)


_RESOURCES: dict[str, Kernel] = {
    "ReadVariableOp": Kernel(_read_variable, _same, refs=1, effect="read"),
    "ResourceGather": Kernel(_resource_gather, _same, refs=1, effect="read"),
    "VarIsInitializedOp": Kernel(
        _read_variable, lambda attrs, in_dtypes: [np.dtype(bool)], refs=1, effect="initialized"
    ),
    "IsVariableInitialized": Kernel(
        _read_variable, lambda attrs, in_dtypes: [np.dtype(bool)], refs=1, effect="initialized"
    ),
    "AssignVariableOp": _assign_variable("set"),
    "AssignAddVariableOp": _assign_variable("add"),
    "AssignSubVariableOp": _assign_variable("sub"),
    **{f"Resource{op}": _resource(k) for op, k in {**_OPTIMIZERS, **_SCATTERS}.items()},
}


# -- random ops -----------------------------------------------------------------------------
# TF's stateful Philox kernels: the importer keeps each node's GuardedPhiloxRandom (its
# key and counter from ``seed``/``seed2``, moved on by 256 calls per output element
# each run) and hands the kernel ``run(draw)``; the values are TF's.


def _random(dist: str) -> Kernel:
    """A stateful random op (``RandomUniform``...) of a ``shape`` input: TF's raw values."""

    def kernel(attrs, run, shape):
        dtype = _np(attrs, "dtype", "float32")
        dims = _ints(shape, "shape")
        draw = _philox_draws(dtype)[dist]
        return (run(lambda key, counter: draw(key, counter, dims)),)

    return Kernel(kernel, _typed("dtype", "float32"), random=True, static=(0,))


def _random_int(attrs, run, shape, minval, maxval):
    """``RandomUniformInt``: ``minval + bits % (maxval - minval)`` (TF's checks: scalar
    bounds; ``minval < maxval`` at run time, ``run``'s ``range_``)."""
    from jtrain.random import philox

    dtype = _np(attrs, "Tout", "int32")
    dims = _ints(shape, "shape")
    for name, value in (("minval", minval), ("maxval", maxval)):
        if np.ndim(value) != 0:
            raise errors.InvalidArgumentError(
                None, None, f"{name} must be 0-D, got shape {list(np.shape(value))}"
            )

    def draw(key, counter):
        return philox.uniform_int(key, counter, dims, minval, maxval, dtype)

    return (run(draw, (minval, maxval)),)


_RANDOM: dict[str, Kernel] = {
    "RandomUniform": _random("Uniform"),
    "RandomStandardNormal": _random("Normal"),
    "TruncatedNormal": _random("TruncatedNormal"),
    "RandomUniformInt": Kernel(_random_int, _typed("Tout"), random=True, static=(0,)),
}


def _philox_draws(dtype: np.dtype) -> dict[str, Callable[..., Any]]:
    """TF's Philox draws ``draw(key, counter, shape)`` per distribution (TF's bits)."""
    from jtrain.random import philox

    return {
        "Uniform": lambda k, c, shape: philox.uniform(k, c, shape, dtype),
        "Normal": lambda k, c, shape: philox.normal(k, c, shape, dtype),
        "TruncatedNormal": lambda k, c, shape: philox.truncated_normal(k, c, shape, dtype),
    }


def _words64(value: Any, count: int) -> Any:
    """``count`` uint64 values as ``2 * count`` uint32 words, low word first."""
    value = jnp.ravel(jnp.asarray(value).astype(jnp.uint64))[:count]
    return jnp.stack([value.astype(jnp.uint32), (value >> 32).astype(jnp.uint32)], -1).reshape(-1)


def _get_key_counter(attrs, seed):
    """``StatelessRandomGetKeyCounter``: TF's scramble of the seed (one Philox call)."""
    from jtrain.random import philox

    key, counter = philox.stateless_key_counter(seed)
    key = key.astype(jnp.uint64)
    counter = counter.astype(jnp.uint64)
    return (
        (key[:1] | (key[1:2] << 32)),
        jnp.stack([counter[0] | (counter[1] << 32), counter[2] | (counter[3] << 32)]),
    )


def _stateless(dist: str) -> Kernel:
    """A stateless random op of a ``shape`` input: V1 (a ``seed`` input, scrambled as
    ``StatelessRandomGetKeyCounter``) or V2 (``key``/``counter``/``alg`` inputs, Philox
    only): TF's values."""
    from jtrain.random import philox

    def kernel(attrs, shape, *seed):
        dtype = _np(attrs, "dtype", "float32")
        if len(seed) == 1:
            key, counter = philox.stateless_key_counter(seed[0])
        else:
            alg = int(np.asarray(seed[2]))
            if alg not in (1, 3):  # RNG_ALG_PHILOX, RNG_ALG_AUTO_SELECT (Philox on CPU)
                raise NotImplementedError(
                    f"stateless random op with alg={alg}: jtrain reproduces TF's Philox "
                    "(alg 1) only"
                )
            key, counter = _words64(seed[0], 1), _words64(seed[1], 2)
        return (_philox_draws(dtype)[dist](key, counter, _ints(shape, "shape")),)

    return Kernel(kernel, _typed("dtype", "float32"), static=(0, 3))


_STATELESS: dict[str, Kernel] = {
    "StatelessRandomGetKeyCounter": Kernel(
        _get_key_counter, lambda attrs, in_dtypes: [np.dtype(np.uint64)] * 2
    ),
    "StatelessRandomUniform": _stateless("Uniform"),
    "StatelessRandomUniformV2": _stateless("Uniform"),
    "StatelessRandomNormal": _stateless("Normal"),
    "StatelessRandomNormalV2": _stateless("Normal"),
    "StatelessTruncatedNormal": _stateless("TruncatedNormal"),
    "StatelessTruncatedNormalV2": _stateless("TruncatedNormal"),
}


def _kernel(
    fn: Callable[..., Any], rule: Callable[..., list[Any]] = _same, static: tuple[int, ...] = ()
) -> Kernel:
    return Kernel(fn, rule, static=static)


KERNELS: dict[str, Kernel] = {
    "Shape": _kernel(_shape, _typed("out_type")),
    "ShapeN": _kernel(_shapes, _shape_n),
    "Reshape": _kernel(_reshape, static=(1,)),
    "Sum": _kernel(_reduce(_sum), static=(1,)),
    "Mean": _kernel(_reduce(_mean), static=(1,)),
    "Max": _kernel(_reduce(jnp.max), static=(1,)),
    "Min": _kernel(_reduce(jnp.min), static=(1,)),
    "Prod": _kernel(_reduce(jnp.prod), static=(1,)),
    "All": _kernel(_reduce(jnp.all), static=(1,)),
    "Any": _kernel(_reduce(jnp.any), static=(1,)),
    "Fill": _kernel(_fill, _input(1), static=(0,)),
    "Tile": _kernel(_tile, static=(1,)),
    "ExpandDims": _kernel(_expand_dims, static=(1,)),
    "BroadcastTo": _kernel(_broadcast_to, static=(1,)),
    "Range": _kernel(_range, _typed("Tidx"), static=(0, 1, 2)),
    "GatherV2": _kernel(_gather, static=(2,)),
    "BroadcastGradientArgs": _kernel(_broadcast_gradient_args, _typed("T", count=2), static=(0, 1)),
    "AddN": _kernel(_add_n),
    "ConcatOffset": Kernel(_concat_offset, lambda attrs, in_dtypes: in_dtypes[1:], all_static=True),
    "Unique": Kernel(
        _unique,
        lambda attrs, in_dtypes: [in_dtypes[0], _np(attrs, "out_idx")],
        sized=_distinct,
        unsized=_dedupe_only,
    ),
    "Where": Kernel(_where, lambda attrs, in_dtypes: [np.dtype(np.int64)], sized=_count_nonzero),
    "UniqueWithCounts": Kernel(
        functools.partial(_unique, counts=True),
        lambda attrs, in_dtypes: [in_dtypes[0], _np(attrs, "out_idx"), _np(attrs, "out_idx")],
        sized=_distinct,
    ),
    "PlaceholderWithDefault": _kernel(_identity),
    "ZerosLike": _kernel(lambda attrs, x: (jnp.zeros_like(x),)),
    "OnesLike": _kernel(lambda attrs, x: (jnp.ones_like(x),)),
    "SparseSoftmaxCrossEntropyWithLogits": _kernel(_sparse_xent, _input(0, 2)),
    "SoftmaxCrossEntropyWithLogits": _kernel(_xent, _input(0, 2)),
    "BiasAddGrad": _kernel(_bias_add_grad),
    **{op: _kernel(_elementwise_grad(f), _input(1)) for op, f in _ELEMENTWISE_GRADS.items()},
    "LeakyReluGrad": _kernel(_leaky_relu_grad),
    # The op library's implementations, under TF's inputs and attributes.
    "Cast": _library("cast", "x", rule=_typed("DstT"), rename="dtype=DstT"),
    "Pack": _library("stack", "*values"),
    "ConcatV2": _library("concat", "*values axis", static="axis"),
    "Slice": _library("slice", "input_ begin size", static="begin size"),
    "StridedSlice": _library(
        "strided_slice", "input_ begin end strides", static="begin end strides"
    ),
    "Transpose": _library("transpose", "a perm", static="perm"),
    "ReverseV2": _library("reverse", "tensor axis", static="axis"),
    "ScatterNd": _library("scatter_nd", "indices updates shape", static="shape", rule=_input(1)),
    "ArgMin": _library("argmin", "input axis", static="axis", rule=_typed("output_type", "int64")),
    "Pad": _library("pad", "tensor paddings", static="paddings"),
    "OneHot": _library(
        "one_hot", "indices depth on_value off_value", static="depth", rule=_input(2)
    ),
    "ArgMax": _library("argmax", "input axis", static="axis", rule=_typed("output_type", "int64")),
    "UnsortedSegmentSum": _library(
        "unsorted_segment_sum", "data segment_ids num_segments", static="num_segments"
    ),
    "DynamicStitch": _library(
        "dynamic_stitch",
        "*indices *data",
        rule=lambda attrs, in_dtypes: [in_dtypes[len(in_dtypes) // 2]],
    ),
    "Conv2D": _library("nn.conv2d", "input filter"),
    "MaxPool": _library("nn.max_pool2d", "input"),
    "AvgPool": _library("nn.avg_pool_v2", "input"),
    "FusedBatchNormV3": _library(
        "nn.fused_batch_norm",
        "x scale offset mean variance",
        rule=lambda attrs, in_dtypes: [in_dtypes[0]] + [in_dtypes[1]] * 5,
        outputs=6,
    ),
    # Gradient kernels: vector-Jacobian products of the library's forward ops.
    "Conv2DBackpropInput": _vjp(
        "nn.conv2d",
        "input_sizes filter dy",
        "input",
        "dy",
        _input(2),
        static="input_sizes",
        zeros="input=input_sizes",
    ),
    "Conv2DBackpropFilter": _vjp(
        "nn.conv2d",
        "input filter_sizes dy",
        "filter",
        "dy",
        _input(2),
        static="filter_sizes",
        zeros="filter=filter_sizes",
    ),
    "StridedSliceGrad": _vjp(
        "strided_slice",
        "shape begin end strides dy",
        "input_",
        "dy",
        _input(4),
        static="shape begin end strides",
        zeros="input_=shape",
    ),
    "MaxPoolGrad": _vjp("nn.max_pool2d", "input orig_output dy", "input", "dy", _input(2)),
    "AvgPoolGrad": _vjp(
        "nn.avg_pool_v2",
        "input_sizes dy",
        "input",
        "dy",
        _input(1),
        static="input_sizes",
        zeros="input=input_sizes",
    ),
    "FusedBatchNormGradV3": _kernel(
        _fused_batch_norm_grad, lambda attrs, in_dtypes: [in_dtypes[0]] + [in_dtypes[2]] * 4
    ),
    **_OPTIMIZERS,
    **_SCATTERS,
    **_RESOURCES,
    **_RANDOM,
    **_STATELESS,
}
