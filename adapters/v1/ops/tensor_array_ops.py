"""``tf.TensorArray`` (TF1 graph mode): a fixed-size buffer carried through the graph.

TF's TensorArray is a resource on the device holding a list of tensors, and a
scalar *flow* tensor that orders the operations on it. jtrain keeps the
elements in one array of shape ``(capacity, *element_shape)``, with a boolean
vector "written" and the current size: these three tensors are the array's
state, each operation (``write``, ``scatter``, ``unstack``, ``split``) returns a
``TensorArray`` over new ones, and a ``tf.while_loop`` (or ``tf.cond``) carries
the three through the loop as loop variables (a ``TensorArray`` is a pytree).

- The capacity is ``size`` (a Python int, or a tensor known when the step is
  compiled). With ``dynamic_size=True`` it is the largest of ``size``, each
  ``tf.while_loop``'s ``maximum_iterations`` carrying the array, and each
  constant index written; an array with none of them raises
  ``NotImplementedError`` when the step is compiled.
- The element shape is TF's (``element_shape``, merged with every write when
  ``infer_shape``); the elements' buffer is made when the step is compiled, from
  the element shape then known, or, for dimensions still unknown (a batch of a
  placeholder), from the first write's value (a loop writing the array
  evaluates its body's shapes once first).
- Errors are TF's, at run time: writing an index twice, writing beyond the
  size, reading beyond it, reading an element twice with ``clear_after_read``
  (also across a ``tf.while_loop``'s iterations; not across a ``tf.cond``
  branch's boundary), writing a value of another dtype, reading an element never
  written without a fully defined element shape. Reading an element never
  written gives zeros where the shape is known, as TF 2.21 does.
- Gradients flow through ``write``/``read``/``stack``/``unstack``/``gather``/
  ``scatter``/``concat``/``split`` (JAX's derivatives of the buffer updates).
  A ``tf.while_loop`` without ``maximum_iterations`` that writes, on every
  iteration, a loop-carried TensorArray of fixed size ``N`` runs at most ``N``
  iterations (TF fails an index written twice or beyond the size), and is
  differentiated as a bounded scan of ``N`` steps.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from adapters.v1.framework import dtypes, ops, runtime_checks, shape_values, tensor_shape
from adapters.v1.framework.op_def import np_dtype
from jtrain import errors

__all__ = ["TensorArray"]

_FLOW_OPS = (
    "TensorArrayV3",
    "TensorArrayWriteV3",
    "TensorArrayScatterV3",
    "TensorArraySplitV3",
    "TensorArrayIdentity",
)


class _Resource:
    """What every flow of one TensorArray shares (TF's handle): dtype, sizes, shape."""

    def __init__(
        self,
        dtype: Any,
        size: ops.Tensor,
        dynamic_size: bool,
        clear_after_read: bool,
        infer_shape: bool,
        element_shape: tensor_shape.TensorShape,
    ):
        self.dtype = dtype
        self.size = size
        self.static_size = _static_int(size)
        if self.static_size is None:
            # A size read from fed integers (``size=n`` of a placeholder): the run
            # compiles the fed value, as other shapes read from feeds (a loop's own
            # tensors are known when the step is traced without it).
            shape_values.known_when_traced(size)
        self.dynamic_size = dynamic_size
        self.clear_after_read = clear_after_read
        self.infer_shape = infer_shape
        self.element_shape = element_shape
        self.declared_shape = element_shape  # the constructor's (TF's kernel attr)
        self.declared_rank = element_shape.dims is not None
        self.bounds: list[int] = []  # dynamic_size: loops' maximum_iterations, indices
        self.name = ""
        self.op: ops.Operation | None = None  # the creating operation

    def capacity(self, ctx: Any) -> int:
        """The buffer's length when the step is traced."""
        if self.static_size is not None:
            size = self.static_size
        else:
            size = int(shape_values.trace_time_value(ctx, self.size))
        if not self.dynamic_size:
            return size
        if not self.bounds:
            raise NotImplementedError(
                f"tf.TensorArray '{self.name}' has dynamic_size=True and no bound jtrain "
                "can compile its buffer with: pass maximum_iterations=N to the tf.while_loop "
                "that writes it, or give it a fixed size=N (dynamic_size=False)."
            )
        return max([size, *self.bounds])


def _static_int(tensor: ops.Tensor | None) -> int | None:
    if tensor is None:
        return None
    value = shape_values.static_value(tensor)
    return None if value is None else int(np.asarray(value))


def _as_index(value: Any) -> Any:
    return jnp.asarray(value, np.int32)


class TensorArray:
    """A list of tensors of one dtype, written and read by index, in a graph.

    Args:
      dtype: the elements' dtype (required).
      size: the number of elements (int32 scalar; required unless ``handle``).
      dynamic_size: whether writes may grow the array past ``size`` (default
        False); see the module docstring for the bound jtrain needs.
      clear_after_read: reading an element clears it: reading it again fails
        (default True).
      tensor_array_name: accepted (the name of TF's resource).
      handle: with ``flow``, the ``handle`` and ``flow`` of an existing jtrain
        TensorArray (another view of the same array).
      flow: see ``handle``.
      infer_shape: merge every written element's shape into ``element_shape``
        and require them to agree (default True).
      element_shape: the elements' (maybe partial) shape (default unknown).
      colocate_with_first_write_call: accepted (XLA places the buffer).
      name: the name scope (default ``"TensorArray"``).

    Raises:
      ValueError: TF's checks of the arguments (``size`` missing, ``handle``
        with ``size``, ``element_shape``, ``dynamic_size`` or
        ``clear_after_read``).
      TypeError: ``handle`` is not a Tensor.
    """

    def __init__(
        self,
        dtype: Any,
        size: Any = None,
        dynamic_size: bool | None = None,
        clear_after_read: bool | None = None,
        tensor_array_name: str | None = None,
        handle: Any = None,
        flow: Any = None,
        infer_shape: bool = True,
        element_shape: Any = None,
        colocate_with_first_write_call: bool = True,
        name: str | None = None,
    ):
        if handle is not None and tensor_array_name:
            raise ValueError(
                "Cannot provide both `handle` and `tensor_array_name` arguments at the same time."
            )
        if handle is not None and not isinstance(handle, ops.Tensor):
            raise TypeError(
                f"Expected `handle` to be a Tensor, but got `{handle}` of type "
                f"`{type(handle)}` instead."
            )
        if handle is None and size is None:
            raise ValueError("Argument `size` must be provided if handle is not provided.")
        if handle is not None and size is not None:
            raise ValueError(
                "Cannot provide both a `handle` and `size` arguments at the same time."
            )
        if handle is not None and element_shape is not None:
            raise ValueError(
                "Cannot provide both `handle` and `element_shape` arguments at the same time."
            )
        if handle is not None and dynamic_size is not None:
            raise ValueError(
                "Cannot provide both `handle` and `dynamic_size` arguments at the same time."
            )
        if handle is not None and clear_after_read is not None:
            raise ValueError(
                "Cannot provide both `handle` and `clear_after_read` arguments at the same time."
            )
        if handle is not None:
            if flow is None:
                raise ValueError("flow must not be None if handle is not None.")
            resource = getattr(handle, "_tensor_array", None)
            leaves = getattr(flow, "_tensor_array_state", None)
            if resource is None or leaves is None:
                raise NotImplementedError(
                    "tf.TensorArray(handle=..., flow=...): jtrain rebuilds a TensorArray only "
                    "from the `handle` and `flow` of a jtrain TensorArray."
                )
            self._init(resource, handle, *leaves)
            return
        dtype = dtypes.as_dtype(dtype).base_dtype
        with ops.name_scope(name, "TensorArray", []) as scope:
            size_t = ops.convert_to_tensor(size, dtype=dtypes.int32)
            resource = _Resource(
                dtype,
                size_t,
                bool(dynamic_size),
                True if clear_after_read is None else bool(clear_after_read),
                infer_shape,
                tensor_shape.as_shape(element_shape)
                if element_shape is not None
                else tensor_shape.unknown_shape(),
            )
            resource.name = scope.rstrip("/")

            def create(ctx: Any, size_value: Any) -> tuple[Any, ...]:
                capacity = resource.capacity(ctx)
                shape = resource.element_shape
                if shape.is_fully_defined():
                    buffer = jnp.zeros((capacity, *shape.as_list()), np_dtype(dtype))
                else:  # made by the first write (see _materialize)
                    buffer = jnp.zeros((), np_dtype(dtype))
                return buffer, jnp.zeros((capacity,), bool), _as_index(size_value)

            op = _flow_op("TensorArrayV3", scope, [size_t], create, dtype)
            resource.op = op
        self._init(resource, op.outputs[0], *op.outputs)

    def _init(self, resource: _Resource, handle: Any, buffer: Any, written: Any, size: Any):
        self._resource = resource
        self._handle = handle
        self._buffer = buffer
        self._written = written
        self._size_t = size
        if isinstance(buffer, ops.Tensor):
            buffer._tensor_array_state = (buffer, written, size)
        if isinstance(handle, ops.Tensor) and not hasattr(handle, "_tensor_array"):
            handle._tensor_array = resource

    @classmethod
    def _from_state(cls, resource: _Resource, handle: Any, leaves: Sequence[Any]) -> TensorArray:
        ta = cls.__new__(cls)
        ta._init(resource, handle, *leaves)
        return ta

    def _new(self, op: ops.Operation) -> TensorArray:
        return TensorArray._from_state(self._resource, self._handle, op.outputs[:3])

    # -- properties ---------------------------------------------------------------------
    @property
    def flow(self) -> Any:
        """The tensor standing for this state of the array (its elements' buffer)."""
        return self._buffer

    @property
    def handle(self) -> Any:
        """The array's handle (what every state of it shares)."""
        return self._handle

    @property
    def dtype(self) -> Any:
        """The elements' dtype."""
        return self._resource.dtype

    @property
    def element_shape(self) -> tensor_shape.TensorShape:
        """The elements' static shape, as known so far (TF merges every write into it)."""
        return self._resource.element_shape

    @property
    def dynamic_size(self) -> bool:
        """Whether writes may grow the array."""
        return self._resource.dynamic_size

    def _check_element_shape(self, shape: tensor_shape.TensorShape) -> None:
        res = self._resource
        if not shape.is_compatible_with(res.element_shape):
            raise ValueError(f"Inconsistent shapes: saw {shape} but expected {res.element_shape} ")
        if res.infer_shape:
            res.element_shape = res.element_shape.merge_with(shape)

    def _value(self, value: Any) -> ops.Tensor:
        if isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor"):
            return ops.convert_to_tensor(value)
        try:  # TF: preferred_dtype=the array's dtype
            return ops.convert_to_tensor(value, dtype=self._resource.dtype, name="value")
        except (TypeError, ValueError):
            return ops.convert_to_tensor(value, name="value")

    def _state(self) -> list[ops.Tensor]:
        return [self._buffer, self._written, self._size_t]

    # -- writes -------------------------------------------------------------------------
    def write(self, index: Any, value: Any, name: str | None = None) -> TensorArray:
        """The array with ``value`` at ``index`` (a new TensorArray; this one unchanged).

        Raises:
          ValueError: ``value``'s shape is not the element shape (TF's message).
          InvalidArgumentError (at run time): ``index`` written before, or beyond a
            fixed size; ``value`` of another dtype.
        """
        res = self._resource
        with ops.name_scope(name, "TensorArrayWrite", [index, value]):
            value = self._value(value)
            self._check_element_shape(value.shape)
            index = ops.convert_to_tensor(index, dtype=dtypes.int32)
            static_index = _static_int(index)
            if res.dynamic_size and static_index is not None:
                res.bounds.append(static_index + 1)
            wrong_dtype = value.dtype != res.dtype

            def compute(ctx: Any, buffer: Any, written: Any, size: Any, i: Any, v: Any):
                if wrong_dtype:
                    runtime_checks.check(ctx, op, False, which=3)
                    v = jnp.zeros(jnp.shape(v), np_dtype(res.dtype))
                i = _as_index(i)
                return _write(ctx, op, res, buffer, written, size, i[None], v[None])

            op = _flow_op(
                "TensorArrayWriteV3",
                "TensorArrayWriteV3",
                [*self._state(), index, value],
                compute,
                res.dtype,
            )
            op._tensor_array = res
            _mark_writes(
                op,
                res,
                f"TensorArray dtype is {_kernel_name(res.dtype)} but Op is "
                f"trying to write dtype {_kernel_name(value.dtype)}.",
            )
        return self._new(op)

    def scatter(self, indices: Any, value: Any, name: str | None = None) -> TensorArray:
        """The array with ``value[k]`` at ``indices[k]`` for each k.

        Raises:
          ValueError: ``value``'s element shape is not the array's.
          InvalidArgumentError (at run time): an index written twice or beyond the size.
        """
        with ops.name_scope(name, "TensorArrayScatter", [indices, value]):
            return self._scatter(indices, self._value(value), "TensorArrayScatterV3")

    def _scatter(self, indices: Any, value: ops.Tensor, op_name: str) -> TensorArray:
        res = self._resource
        self._check_element_shape(value.shape[1:])
        indices = ops.convert_to_tensor(indices, dtype=dtypes.int32)
        static = shape_values.static_value(indices)
        if res.dynamic_size and static is not None and np.size(static):
            res.bounds.append(int(np.max(static)) + 1)
        wrong_dtype = value.dtype != res.dtype

        def compute(ctx: Any, buffer: Any, written: Any, size: Any, idx: Any, v: Any):
            if wrong_dtype:
                runtime_checks.check(ctx, op, False, which=3)
                v = jnp.zeros(jnp.shape(v), np_dtype(res.dtype))
            return _write(ctx, op, res, buffer, written, size, _as_index(idx), v, scatter=True)

        op = _flow_op(
            "TensorArrayScatterV3", op_name, [*self._state(), indices, value], compute, res.dtype
        )
        _mark_writes(
            op,
            res,
            f"TensorArray dtype is {_kernel_name(res.dtype)} but Op is trying "
            f"to write dtype {_kernel_name(value.dtype)}.",
        )
        return self._new(op)

    def unstack(self, value: Any, name: str | None = None) -> TensorArray:
        """The array with ``value[k]`` at index k (``value`` split along its first dimension)."""
        from adapters import v1  # the op library's tf.shape and tf.range

        with ops.name_scope(name, "TensorArrayUnstack", [value]):
            value = self._value(value)
            num = v1.shape(value)[0]
            indices = v1.range(0, num)
            with ops.name_scope(None, "TensorArrayScatter", [indices, value]):
                return self._scatter(indices, value, "TensorArrayScatterV3")

    def split(self, value: Any, lengths: Any, name: str | None = None) -> TensorArray:
        """The array with consecutive pieces of ``value`` (``lengths[k]`` rows each).

        Raises:
          NotImplementedError: ``lengths`` is not a constant of equal lengths (jtrain
            keeps the elements in one buffer of one shape).
        """
        res = self._resource
        with ops.name_scope(name, "TensorArraySplit", [value, lengths]):
            value = ops.convert_to_tensor(value, dtype=res.dtype, name="value")
            lengths_t = ops.convert_to_tensor(lengths)
            const = shape_values.static_value(lengths_t)
            if const is None or np.ndim(const) != 1 or np.size(const) == 0:
                raise NotImplementedError(
                    f"TensorArray.split on '{res.name}': jtrain needs the lengths as a "
                    "constant vector (one buffer of elements of one shape)."
                )
            const = np.asarray(const)
            if const.max() != const.min():
                raise NotImplementedError(
                    f"TensorArray.split on '{res.name}': lengths {const.tolist()} differ; "
                    "jtrain keeps the elements in one buffer of one shape: split into equal "
                    "lengths, or pad the pieces."
                )
            if value.shape.dims is not None:
                self._check_element_shape(
                    tensor_shape.TensorShape([int(const[0])]).concatenate(value.shape[1:])
                )
            n, piece = len(const), int(const[0])
            if res.dynamic_size:
                res.bounds.append(n)

            def compute(ctx: Any, buffer: Any, written: Any, size: Any, v: Any):
                if v.shape[0] != n * piece:
                    raise errors.InvalidArgumentError(
                        None,
                        op,
                        f"Expected sum of lengths to be equal to values.shape[0], but sum of "
                        f"lengths is {n * piece} and value's shape is: {list(v.shape)}",
                    )
                pieces = v.reshape((n, piece, *v.shape[1:]))
                idx = jnp.arange(n, dtype=np.int32)
                return _write(ctx, op, res, buffer, written, size, idx, pieces, scatter=True)

            op = _flow_op(
                "TensorArraySplitV3",
                "TensorArraySplitV3",
                [*self._state(), value],
                compute,
                res.dtype,
            )
            _mark_writes(op, res, "")
        return self._new(op)

    # -- reads --------------------------------------------------------------------------
    def read(self, index: Any, name: str | None = None) -> ops.Tensor:
        """The element at ``index`` (zeros if never written).

        Raises:
          InvalidArgumentError (at run time): ``index`` outside ``[0, size)``; the
            element read before and ``clear_after_read``.
        """
        index = ops.convert_to_tensor(index, dtype=dtypes.int32)
        return self._gather(index, "TensorArrayReadV3", name or "TensorArrayReadV3", single=True)

    def gather(self, indices: Any, name: str | None = None) -> ops.Tensor:
        """The elements at ``indices``, stacked.

        Raises:
          InvalidArgumentError (at run time): as ``read``'s.
        """
        indices = ops.convert_to_tensor(indices, dtype=dtypes.int32)
        return self._gather(indices, "TensorArrayGatherV3", name or "TensorArrayGatherV3")

    def stack(self, name: str | None = None) -> ops.Tensor:
        """Every element, stacked along a new first dimension.

        .. note:: The static shape is ``(size, *element_shape)`` for a fixed constant
           size, ``(?, *element_shape)`` otherwise (TF's). A ``dynamic_size`` array is
           compiled with its capacity as the length: a run where it holds fewer
           elements fails (``UnimplementedError``) rather than give another shape.
        """
        res = self._resource
        with ops.name_scope(name, "TensorArrayStack", []):
            out = self._gather(None, "TensorArrayGatherV3", "TensorArrayGatherV3")
            if res.element_shape.dims is not None and not res.dynamic_size:
                out._shape = (res.static_size, *res.element_shape._dims)
        return out

    def _gather(
        self, indices: ops.Tensor | None, op_type: str, name: str, single: bool = False
    ) -> ops.Tensor:
        res = self._resource
        elem = res.element_shape
        if single:
            shape = elem._dims
        elif elem.dims is not None:
            # TF: the indices' length where their shape gives it, only when the
            # constructor's element_shape had a rank (TF's GatherV3 shape function)
            lead = None
            if (
                res.declared_rank
                and indices is not None
                and indices._shape is not None
                and len(indices._shape) == 1
            ):
                lead = indices._shape[0]
            shape = (lead, *elem._dims)
        else:
            shape = None
        inputs = self._state() + ([] if indices is None else [indices])
        # the first index read, for a message raised when the step is compiled
        static = None if indices is None else shape_values.static_value(indices)
        first = 0 if static is None or not np.size(static) else int(np.ravel(static)[0])

        def compute(ctx: Any, buffer: Any, written: Any, size: Any, *idx: Any):
            size = _as_index(size)
            if idx:
                i = _as_index(idx[0])
                flat = i.reshape(-1)
            else:  # stack: every element
                flat = jnp.arange(written.shape[0], dtype=np.int32)
                if res.dynamic_size:
                    runtime_checks.check(ctx, op, size == written.shape[0], size, which=2)
            buffer = _materialized(op, res, buffer, written.shape[0], first)
            inside = (flat >= 0) & (flat < size)
            bad = jnp.argmin(inside) if flat.size else 0
            runtime_checks.check(ctx, op, jnp.all(inside), flat[bad] if flat.size else -1, size)
            if flat.size and not res.declared_shape.is_fully_defined():
                # TF: an unwritten element reads as zeros only of a fully defined shape,
                # the constructor's or (infer_shape) the first written element's
                unwritten = ~written[jnp.clip(flat, 0, written.shape[0] - 1)]
                known = jnp.any(written) if res.infer_shape else jnp.asarray(False)
                runtime_checks.check(
                    ctx, op, known | ~jnp.any(unwritten), flat[jnp.argmax(unwritten)], which=3
                )
            if res.clear_after_read and flat.size:
                _clear(ctx, op, res, flat, written.shape[0])
            values = jnp.take(buffer, jnp.clip(flat, 0, written.shape[0] - 1), axis=0)
            if single:
                return (values[0],)
            return (values.reshape((*i.shape, *buffer.shape[1:])) if idx else values,)

        op = ops.get_default_graph().create_op(
            op_type, name, inputs=inputs, compute=compute, output_specs=[(shape, res.dtype)]
        )
        op._tensor_array_read = res
        label = f"TensorArray {res.name}"
        runtime_checks.mark(
            op,
            lambda i, n: errors.InvalidArgumentError(
                None, op, f"Tried to read from index {i} but array size is: {n}"
            ),
            lambda i: errors.InvalidArgumentError(
                None,
                op,
                f"{label}: Could not read index {i} twice because it was cleared after a "
                "previous read (perhaps try setting clear_after_read = false?).",
            ),
            lambda n: errors.UnimplementedError(
                None,
                op,
                f"{label} has dynamic_size=True and holds {n} elements, fewer than the "
                "capacity jtrain compiled it with; stack() and "
                "concat() of a dynamic_size TensorArray need it full: give the loop "
                "maximum_iterations equal to its iteration count, or use a fixed size.",
            ),
            lambda i: errors.InvalidArgumentError(None, op, _unknown_shape_read(res, i)),
        )
        return op.outputs[0]

    def concat(self, name: str | None = None) -> ops.Tensor:
        """Every element, concatenated along their first dimension.

        Raises:
          InvalidArgumentError (at run time): as ``read``'s.
        """
        res = self._resource
        with ops.name_scope(name, "TensorArrayConcatV3", []):
            stacked = self._gather(None, "TensorArrayGatherV3", "TensorArrayConcatV3")
        elem = res.element_shape
        if elem.dims is not None and len(elem._dims) == 0:
            raise ValueError(
                f"TensorArray.concat on '{res.name}': the elements are scalars (concat needs "
                "elements of rank 1 or more)."
            )

        def compute(ctx: Any, value: Any) -> tuple[Any, ...]:
            return (value.reshape((-1, *value.shape[2:])),)

        shape = None
        if elem.dims is not None:
            dim0 = None
            if res.infer_shape and not res.dynamic_size and res.static_size is not None:
                if elem._dims[0] is not None:
                    dim0 = res.static_size * elem._dims[0]
            shape = (dim0, *elem._dims[1:])
        op = stacked.graph.create_op(
            "Reshape",
            stacked.op.name + "/elements",
            inputs=[stacked],
            compute=compute,
            output_specs=[(shape, res.dtype)],
        )
        return op.outputs[0]

    def size(self, name: str | None = None) -> ops.Tensor:
        """The number of elements (int32): ``size`` itself for a fixed size (TF's)."""
        res = self._resource
        if not res.dynamic_size:
            return res.size

        def compute(ctx: Any, size: Any) -> tuple[Any, ...]:
            return (_as_index(size),)

        return (
            ops.get_default_graph()
            .create_op(
                "TensorArraySizeV3",
                name or "TensorArraySizeV3",
                inputs=[self._size_t],
                compute=compute,
                output_specs=[((), dtypes.int32)],
            )
            .outputs[0]
        )

    def identity(self) -> TensorArray:
        """The same array, its state passed through an identity (for control dependencies)."""

        def compute(ctx: Any, *state: Any) -> tuple[Any, ...]:
            return tuple(state)

        op = _flow_op("TensorArrayIdentity", "Identity", self._state(), compute, self.dtype)
        return self._new(op)

    def close(self, name: str | None = None) -> ops.Operation:
        """An operation that does nothing (XLA frees the buffer)."""
        return ops.get_default_graph().create_op(
            "TensorArrayCloseV3", name or "TensorArrayCloseV3", inputs=[self._buffer]
        )

    def grad(self, source: Any, flow: Any = None, name: str | None = None) -> Any:
        """Not supported: ``tf.gradients`` differentiates through the array's operations."""
        raise NotImplementedError(
            "TensorArray.grad: jtrain differentiates through the TensorArray's operations "
            "(tf.gradients of what is read from it); it has no gradient TensorArrays."
        )


# -- the buffer operations ------------------------------------------------------------------
def _flow_op(
    op_type: str, name: str, inputs: list[ops.Tensor], compute: Any, dtype: Any
) -> ops.Operation:
    return ops.get_default_graph().create_op(
        op_type,
        name,
        inputs=inputs,
        compute=compute,
        output_specs=[(None, dtype), ((None,), dtypes.bool), ((), dtypes.int32)],
    )


def _kernel_name(dtype: Any) -> str:
    """TF's kernel spelling of a dtype in messages (``float`` for float32)."""
    name = dtypes.as_dtype(dtype).name
    return {"float32": "float", "float64": "double"}.get(name, name)


def _mark_writes(op: ops.Operation, res: _Resource, dtype_message: str) -> None:
    label = f"TensorArray {res.name}"
    runtime_checks.mark(
        op,
        lambda i, n: errors.InvalidArgumentError(
            None,
            op,
            f"{label}: Tried to write to index {i} but array is not resizeable and size is: {n}"
            if op.type == "TensorArrayWriteV3"
            else f"Max scatter index must be < array size ({i} vs. {n})",
        ),
        lambda i: errors.InvalidArgumentError(
            None,
            op,
            f"{label}: Could not write to TensorArray index {i} because it has already "
            "been written to.",
        ),
        lambda i, n: errors.UnimplementedError(
            None,
            op,
            f"{label} has dynamic_size=True and index {i} is beyond the {n} elements jtrain "
            "compiled its buffer with (the largest of its size, the maximum_iterations of "
            "the loops writing it and its constant indices): raise maximum_iterations.",
        ),
        lambda: errors.InvalidArgumentError(None, op, dtype_message),
    )


def _kernel_shape(shape: tensor_shape.TensorShape) -> str:
    """A shape as TF's kernels write it in messages (``<unknown>``, ``[?,2]``)."""
    if shape._dims is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in shape._dims) + "]"


def _unknown_shape_read(res: _Resource, index: Any) -> str:
    """TF's message for an unwritten element read without a fully defined shape."""
    shape = _kernel_shape(res.declared_shape)
    return (
        f"TensorArray {res.name}: Could not read from TensorArray index {index}.  "
        f"Furthermore, the element shape is not fully defined: {shape}.  It is possible "
        "you are working with a resizeable TensorArray and stop_gradients is not allowing "
        "the gradients to be written.  If you set the full element_shape property on the "
        "forward TensorArray, the proper all-zeros tensor will be returned instead of "
        "incurring this error."
    )


def _materialized(op: ops.Operation, res: _Resource, buffer: Any, capacity: int, first: Any) -> Any:
    """The elements' buffer; one not made yet (no write) from the static element shape.

    Raises:
      InvalidArgumentError: no write and no fully defined shape (TF's error, raised
        when the step is compiled: no program can give the read's shape).
    """
    if jnp.ndim(buffer) > 0:
        return buffer
    shape = res.element_shape
    if not shape.is_fully_defined() and capacity == 0:
        raise errors.UnimplementedError(
            None,
            op,
            f"TensorArray has size zero, but element shape {_kernel_shape(res.declared_shape)}"
            " is not fully defined. Currently only static shapes are supported when packing "
            "zero-size TensorArrays.",
        )
    if not shape.is_fully_defined():
        raise errors.InvalidArgumentError(None, op, _unknown_shape_read(res, first))
    return jnp.zeros((capacity, *shape.as_list()), buffer.dtype)


def _write(
    ctx: Any,
    op: ops.Operation,
    res: _Resource,
    buffer: Any,
    written: Any,
    size: Any,
    idx: Any,
    values: Any,
    scatter: bool = False,
) -> tuple[Any, ...]:
    """The state after writing ``values[k]`` at ``idx[k]``, with TF's checks."""
    capacity = written.shape[0]
    size = _as_index(size)
    if jnp.ndim(buffer) == 0:
        buffer = jnp.zeros((capacity, *values.shape[1:]), buffer.dtype)
    elif tuple(buffer.shape[1:]) != tuple(values.shape[1:]):
        raise NotImplementedError(
            f"TensorArray {res.name}: an element of shape {list(values.shape[1:])} written "
            f"to an array of elements of shape {list(buffer.shape[1:])}; jtrain keeps the "
            "elements in one buffer of one shape (infer_shape=False with elements of "
            "different shapes is not supported)."
        )
    if idx.size:
        hi = jnp.max(idx)
        lo = jnp.min(idx)
        if res.dynamic_size:
            runtime_checks.check(ctx, op, lo >= 0, lo, size, which=0)
            runtime_checks.check(ctx, op, hi < capacity, hi, capacity, which=2)
        else:
            bad = jnp.where(lo < 0, lo, hi)
            runtime_checks.check(ctx, op, (lo >= 0) & (hi < size), bad, size, which=0)
        safe = jnp.clip(idx, 0, capacity - 1)
        if idx.size == 1:  # one write (a loop's): O(1), not O(capacity)
            runtime_checks.check(ctx, op, ~written[safe[0]], safe[0], which=1)
        else:
            counts = jnp.zeros((capacity,), np.int32).at[safe].add(1)
            twice = (counts > 1) | (written & (counts > 0))
            runtime_checks.check(ctx, op, ~jnp.any(twice), jnp.argmax(twice), which=1)
        buffer = buffer.at[safe].set(values.astype(buffer.dtype))
        written = written.at[safe].set(True)
        if res.dynamic_size:
            size = jnp.maximum(size, hi + 1)
    return buffer, written, size


def _clear(ctx: Any, op: ops.Operation, res: _Resource, flat: Any, capacity: int) -> None:
    """TF's ``clear_after_read``: an element read twice in one run fails.

    The reads are counted per array in the run's context; a ``tf.while_loop``
    carries the counts of the arrays its body reads (``cleared_reads``) through its
    iterations. Reads inside a ``tf.cond`` branch, or a loop nested in a loop's
    body, are counted within that branch or inner body only.
    """
    reads = ctx.__dict__.setdefault("_tensor_array_reads", {})
    cleared = reads.get(res)
    if cleared is None or cleared.shape[0] != capacity:
        cleared = jnp.zeros((capacity,), np.int32)
    safe = jnp.clip(flat, 0, capacity - 1)
    if flat.size == 1:  # one read (a loop's): O(1), not O(capacity)
        runtime_checks.check(ctx, op, cleared[safe[0]] == 0, safe[0], which=1)
        cleared = cleared.at[safe].add(1)
    else:
        cleared = cleared.at[safe].add(1)
        twice = cleared > 1
        runtime_checks.check(ctx, op, ~jnp.any(twice), jnp.argmax(twice), which=1)
    reads[res] = cleared


# -- loops ------------------------------------------------------------------------------------
def cleared_reads(body_ops: Sequence[ops.Operation]) -> list[_Resource]:
    """The arrays with ``clear_after_read`` a loop body reads (their counts are carried)."""
    members = set(body_ops)
    found: list[_Resource] = []
    for op in body_ops:
        res = getattr(op, "_tensor_array_read", None)
        if res is None or not res.clear_after_read or res in found:
            continue
        if res.op is None or res.op in members:
            continue  # an array made by each iteration starts unread
        found.append(res)
    return found


def read_counts(ctx: Any, res: _Resource) -> Any:
    """How many times each element of ``res`` was read so far in this run."""
    counts = ctx.__dict__.get("_tensor_array_reads", {}).get(res)
    if counts is None:
        counts = jnp.zeros((res.capacity(ctx),), np.int32)
    return counts


def set_read_counts(ctx: Any, counts: dict) -> None:
    """Records the read counts a loop leaves (``read_counts``) in the run's context."""
    if counts:
        ctx.__dict__.setdefault("_tensor_array_reads", {}).update(counts)


def _flatten_ta(ta: TensorArray) -> tuple[tuple[Any, ...], tuple[_Resource, Any]]:
    return (ta._buffer, ta._written, ta._size_t), (ta._resource, ta._handle)


def _unflatten_ta(aux: tuple[_Resource, Any], leaves: Any) -> TensorArray:
    return TensorArray._from_state(aux[0], aux[1], list(leaves))


jax.tree_util.register_pytree_node(TensorArray, _flatten_ta, _unflatten_ta)


def arrays_in(structure: Any) -> list[TensorArray]:
    """The TensorArrays in a (nested) structure of loop variables."""
    leaves = jax.tree.leaves(structure, is_leaf=lambda x: isinstance(x, TensorArray) or x is None)
    return [x for x in leaves if isinstance(x, TensorArray)]


def bound_loop(structure: Any, maximum_iterations: int | None) -> None:
    """Gives the dynamic_size arrays a loop carries the loop's bound as capacity."""
    if maximum_iterations is None:
        return
    for ta in arrays_in(structure):
        if ta._resource.dynamic_size:
            ta._resource.bounds.append(int(maximum_iterations))


def implied_bound(
    body_ops: Sequence[ops.Operation], params: Sequence[ops.Tensor], outputs: Sequence[ops.Tensor]
) -> list[_Resource]:
    """The fixed-size TensorArrays bounding a loop's iteration count.

    A body whose result holds a loop-carried TensorArray written (``write``) on
    every iteration runs at most as many iterations as the array has elements: TF
    fails a write to an index written before or beyond the size. The bound is the
    smallest such array's size (resolved when the step is traced); ``[]``: none.
    """
    carried = {p for p in params if is_buffer(p)}
    members = set(body_ops)
    found: list[_Resource] = []
    for out in outputs:
        if not is_buffer(out):
            continue
        src, writes = out, 0
        while src not in carried and src.op in members and src.op.type == "TensorArrayWriteV3":
            writes += 1
            src = src.op.inputs[0]
        res = getattr(out.op, "_tensor_array", None)
        if src in carried and writes and res is not None and not res.dynamic_size:
            found.append(res)
    return found


def bound_of(ctx: Any, arrays: Sequence[_Resource]) -> int:
    """The smallest size of ``arrays`` when the step is traced."""
    return min(res.capacity(ctx) for res in arrays)


def is_buffer(tensor: Any) -> bool:
    """Whether ``tensor`` is the elements' buffer of a TensorArray state."""
    state = getattr(tensor, "_tensor_array_state", None)
    return state is not None and state[0] is tensor


def materialize(init: list[Any], buffers: list[int], shapes: list[Any]) -> list[Any]:
    """``init`` with each not-yet-made buffer at ``buffers`` (a scalar) made of ``shapes``."""
    out = list(init)
    for k in buffers:
        if jnp.ndim(out[k]) == 0 and len(shapes[k].shape) > 0:
            out[k] = jnp.zeros(shapes[k].shape, out[k].dtype)
    return out
