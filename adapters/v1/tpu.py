"""``tf.compat.v1.tpu``: ``shard``, ``batch_parallel``, ``XLAOptions``, ``shutdown_system``.

TF1 scripts written for TPUs shard a computation over the TPU cores with
``tpu.shard``. jtrain runs the same graph on this process's devices (CPU, GPUs):

- ``shard(computation, inputs, num_shards)`` splits each input into ``num_shards``
  pieces along its shard axis, applies ``computation`` to each piece and
  concatenates (or takes one of) the outputs, as TF documents. The computation is
  built once, as TF builds it, and becomes one node of the graph: at run time its
  pieces are evaluated with ``jax.vmap`` inside ``jax.shard_map`` over the graph's
  device mesh (``tf.jax_data_parallel``; ``shard`` switches it on over every
  local device when the graph has none and there are several). Each device
  computes ``num_shards / devices`` pieces; when ``num_shards`` is not a multiple
  of the device count, the pieces are evaluated without ``shard_map`` and XLA
  places them. Values are the same either way.
- Tensors the computation captures from outside and variables it reads are
  broadcast to every shard (TF's rule); a computation that assigns variables
  (training inside the shard) is not supported: ``NotImplementedError`` says so.
- ``infeed_queue`` and ``device_assignment`` describe TPU hardware and are not
  supported (``NotImplementedError``); ``xla_options`` is accepted: the shards are
  always partitioned with XLA's SPMD partitioner, shapes are static (no dynamic
  padder), and JAX picks its partitioner (``jax_use_shardy_partitioner``).
- ``shutdown_system`` returns an operation that does nothing: there is no TPU
  system to shut down on CPUs and GPUs.
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

from adapters.v1._missing import missing_name_getattr
from adapters.v1.client import _replicas, data_parallel
from adapters.v1.framework import ops
from adapters.v1.framework.op_def import np_dtype
from adapters.v1.ops import control_flow_ops as cf
from jtrain import errors

__all__ = ["XLAOptions", "batch_parallel", "shard", "shutdown_system"]


class XLAOptions(
    collections.namedtuple(
        "XLAOptions",
        ["use_spmd_for_xla_partitioning", "enable_xla_dynamic_padder", "use_shardy_partitioner"],
    )
):
    """XLA compilation options for ``shard`` (TF 2.21's fields and defaults).

    Attributes:
      use_spmd_for_xla_partitioning: use XLA's SPMD partitioner (default True; jtrain
        always does).
      enable_xla_dynamic_padder: pad dynamic shapes (default True; jtrain's shapes are
        static, so there is nothing to pad).
      use_shardy_partitioner: use the Shardy partitioner (default False; JAX's
        ``jax_use_shardy_partitioner`` setting decides).
    """

    __slots__ = ()

    def __new__(
        cls,
        use_spmd_for_xla_partitioning: bool = True,
        enable_xla_dynamic_padder: bool = True,
        use_shardy_partitioner: bool = False,
    ) -> XLAOptions:
        return super().__new__(
            cls, use_spmd_for_xla_partitioning, enable_xla_dynamic_padder, use_shardy_partitioner
        )


def shutdown_system(job: str | None = None) -> ops.Operation:
    """An operation that shuts down the TPU system: nothing to do on CPUs and GPUs.

    Args:
      job: the job holding the TPU devices (default None); unused.

    Returns:
      An operation (type ``NoOp``) named ``ShutdownDistributedTPU``.
    """
    del job
    return ops.get_default_graph().create_op("NoOp", "ShutdownDistributedTPU")


def _axis(axis: int, rank: int | None, what: str) -> int:
    if rank is None:
        if axis < 0:
            raise ValueError(f"tpu.shard: {what} axis {axis} needs a known rank")
        return axis
    if not -rank <= axis < rank:
        raise ValueError(f"tpu.shard: {what} axis {axis} is out of range for rank {rank}")
    return axis % rank


def _outputs(result: Any) -> list[Any]:
    if result is None:
        return []
    items = list(result) if isinstance(result, (list, tuple)) else [result]
    return [x if isinstance(x, ops.Operation) else ops.convert_to_tensor(x) for x in items]


def shard(
    computation: Callable[..., Any],
    inputs: list[Any] | None = None,
    num_shards: int = 1,
    input_shard_axes: list[int] | None = None,
    outputs_from_all_shards: bool | list[bool] = True,
    output_shard_axes: list[int] | None = None,
    infeed_queue: Any = None,
    device_assignment: Any = None,
    name: str | None = None,
    xla_options: XLAOptions | None = None,
) -> list[Any]:
    """Applies ``computation`` to ``num_shards`` pieces of ``inputs`` in parallel.

    Args:
      computation: a Python function building the computation of one shard from
        one piece of each input.
      inputs: a list of tensors, or None (no inputs).
      num_shards: the number of shards (default 1).
      input_shard_axes: the axis each input is split along (default None: 0 for
        every input); each must have a size divisible by ``num_shards``.
      outputs_from_all_shards: a bool, or one per output (default True): concatenate
        the shards' outputs, or take shard 0's.
      output_shard_axes: the axis each output is concatenated along (default None:
        0 for every output); a scalar output's shards are stacked.
      infeed_queue: not supported (default None).
      device_assignment: not supported (default None).
      name: unused (TF: deprecated, does nothing).
      xla_options: an ``XLAOptions`` (default None); see the module docstring.

    Returns:
      A list of output tensors; if the computation returns no tensor, a list of
      one operation that runs it.

    Raises:
      ValueError: ``num_shards <= 0``; an axis list whose length differs from the
        inputs' or outputs'; an input whose shard axis is not divisible by
        ``num_shards`` (TF's messages).
      TypeError: ``inputs`` is not a list or None.
      NotImplementedError: ``infeed_queue`` or ``device_assignment`` is given, or
        the computation assigns a variable or contains a host operation.
    """
    del name, xla_options
    if num_shards <= 0:
        raise ValueError(f"num_shards must be a positive integer. Received {num_shards}")
    if infeed_queue is not None or device_assignment is not None:
        raise NotImplementedError(
            "tpu.shard: infeed_queue and device_assignment describe TPU hardware and are "
            "not supported; pass the values as inputs, and choose the devices with "
            "tf.jax_data_parallel(devices)."
        )
    inputs = [] if inputs is None else inputs
    if not isinstance(inputs, list):
        raise TypeError(
            f"tpu.shard()'s inputs must be a list of Tensors or None. Received {type(inputs)}"
        )
    tensors = [ops.convert_to_tensor(x) for x in inputs]
    if input_shard_axes is None:
        input_shard_axes = [0] * len(tensors)
    if len(tensors) != len(input_shard_axes):
        raise ValueError(
            "Length of input_shard_axes must be equal to the number of inputs. Received "
            f"{len(tensors)} inputs and {len(input_shard_axes)} input_shard_axes."
        )
    in_axes, specs = [], []
    for t, axis in zip(tensors, input_shard_axes, strict=True):
        shape = t._shape
        a = _axis(axis, None if shape is None else len(shape), "input")
        in_axes.append(a)
        if shape is None:
            specs.append((None, t.dtype))
            continue
        dim = shape[a]
        if dim is not None and dim % num_shards:
            raise ValueError(
                f"Dimension size must be evenly divisible by {num_shards} but is {dim}"
            )
        piece = None if dim is None else dim // num_shards
        specs.append(((*shape[:a], piece, *shape[a + 1 :]), t.dtype))

    graph = ops.get_default_graph()
    if (
        data_parallel.mesh_for(graph) is None
        and _replicas.active() is None
        and len(jax.local_devices()) > 1
    ):
        data_parallel.jax_data_parallel(graph=graph)
    params: list[ops.Tensor] = []

    def build() -> list[Any]:
        params.extend(cf.parameters(specs, "shard_input"))
        return _outputs(computation(*params))

    with ops.name_scope(None, "shard", tensors):
        result, created = cf.build(build)
    outs = [x for x in result if isinstance(x, ops.Tensor)]
    targets = [x for x in result if isinstance(x, ops.Operation)]
    body = cf._Body("tpu.shard", created, params, outs, targets)
    if body.writes:
        raise NotImplementedError(
            f"tpu.shard: the computation assigns variable {body.writes[0].op.name}: every "
            "shard would write its own value. Compute the update inside the computation, "
            "return it, and assign it outside tpu.shard."
        )

    n_out = len(outs)
    if output_shard_axes is None:
        output_shard_axes = [0] * n_out
    if n_out != len(output_shard_axes):
        raise ValueError(
            "Length of output_shard_axes must be equal to the number of outputs. Received "
            f"{n_out} outputs and {len(output_shard_axes)} output_shard_axes."
        )
    if isinstance(outputs_from_all_shards, bool):
        outputs_from_all_shards = [outputs_from_all_shards] * n_out
    if n_out != len(outputs_from_all_shards):
        raise ValueError(
            "Length of outputs_from_all_shards must be equal to the number of outputs. "
            f"Received {n_out} outputs  and {len(outputs_from_all_shards)} "
            "outputs_from_all_shards."
        )
    out_axes, out_specs = [], []
    for t, axis, whole in zip(outs, output_shard_axes, outputs_from_all_shards, strict=True):
        shape = t._shape
        if not whole:
            out_axes.append(None)
            out_specs.append((shape, t.dtype))
        elif shape is not None and len(shape) == 0:
            out_axes.append(-1)  # stacked
            out_specs.append(((num_shards,), t.dtype))
        else:
            a = _axis(axis, None if shape is None else len(shape), "output")
            out_axes.append(a)
            if shape is None:
                out_specs.append((None, t.dtype))
            else:
                dim = None if shape[a] is None else shape[a] * num_shards
                out_specs.append(((*shape[:a], dim, *shape[a + 1 :]), t.dtype))

    def compute(ctx: Any, extra: tuple, known: dict, written: list[Any]) -> tuple[Any, ...]:
        from adapters.v1.client.session import RunContext

        pieces = [
            _pieces(x, a, num_shards, t) for x, a, t in zip(extra, in_axes, tensors, strict=True)
        ]
        pieces.append(jnp.arange(num_shards))  # the shard index: a mapped value always
        read_vals = [ctx.read(v) for v in body.reads]
        captured = [known[t] for t in body.captured]

        def one(piece_vals, captured_vals, var_vals):
            variables = dict(zip(body.reads, var_vals, strict=True))
            memo = dict(zip(body.captured, captured_vals, strict=True))
            memo.update(zip(body.params, piece_vals[:-1], strict=True))
            RunContext(variables, memo, ctx.frozen, ctx.initialized, ctx.fed).run_ops(body.order)
            return [jnp.asarray(memo[t], np_dtype(t.dtype)) for t in body.outputs]

        many = jax.vmap(one, in_axes=(0, None, None))
        mesh = data_parallel.mesh_for(graph)
        if mesh is not None and num_shards % mesh.devices.size == 0 and mesh.devices.size > 1:
            many = jax.shard_map(
                many,
                mesh=mesh,
                in_specs=(P(data_parallel.AXIS), P(), P()),
                out_specs=P(data_parallel.AXIS),
                check_vma=False,
            )
        stacked = many(pieces, captured, read_vals)
        values = []
        for value, axis in zip(stacked, out_axes, strict=True):
            if axis is None:
                values.append(value[0])
            elif axis == -1:
                values.append(value)
            else:
                moved = jnp.moveaxis(value, 0, axis)
                shape = moved.shape
                values.append(moved.reshape(*shape[:axis], -1, *shape[axis + 2 :]))
        return tuple(values)

    op = cf.node("TPUShard", "TPUShard", [body], created, tensors, out_specs, compute)
    if not outs:
        return [op]
    return list(op.outputs)


def _pieces(value: Any, axis: int, num_shards: int, tensor: ops.Tensor) -> Any:
    """``value`` split into ``num_shards`` pieces along ``axis``, stacked on a new axis 0."""
    value = jnp.asarray(value)
    shape = value.shape
    if shape[axis] % num_shards:
        raise errors.InvalidArgumentError(
            None,
            tensor.op,
            f"tpu.shard: Dimension size must be evenly divisible by {num_shards} but is "
            f"{shape[axis]} (input {tensor.name}, axis {axis})",
        )
    split = value.reshape(*shape[:axis], num_shards, -1, *shape[axis + 1 :])
    return jnp.moveaxis(split, axis, 0)


def batch_parallel(
    computation: Callable[..., Any],
    inputs: list[Any] | None = None,
    num_shards: int = 1,
    infeed_queue: Any = None,
    device_assignment: Any = None,
    name: str | None = None,
) -> list[Any]:
    """``shard`` along axis 0 of every input and output (TF's convenience wrapper).

    Args:
      computation: as ``shard``'s.
      inputs: as ``shard``'s.
      num_shards: as ``shard``'s (default 1).
      infeed_queue: not supported (default None).
      device_assignment: not supported (default None).
      name: unused.

    Returns:
      A list of output tensors, as ``shard``.
    """
    return shard(
        computation,
        inputs,
        num_shards=num_shards,
        infeed_queue=infeed_queue,
        device_assignment=device_assignment,
        name=name,
    )


__getattr__ = missing_name_getattr("tf.tpu", globals())
