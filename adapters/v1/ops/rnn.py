"""TF1's RNN drivers: ``tf.nn.dynamic_rnn``, ``static_rnn``, the bidirectional forms and
``raw_rnn`` (TF's ``tf.while_loop`` over a ``loop_fn``, with emit ``TensorArray`` s).

``dynamic_rnn`` builds the cell's step once, on parameter tensors standing for
one time step's inputs and state (its variables are created then, in the
``rnn`` variable scope: ``rnn/basic_lstm_cell/kernel``), and becomes ONE node
that runs the step inside ``lax.scan`` over time within the session's compiled
program (see ``control_flow_ops`` for bodies; gradients are JAX's through the
scan, except a kernel's in a product TF's order does not cover: one product over
every step after the loop, ``rnn_products``). ``static_rnn`` unrolls the cell in
Python, reusing its variables.

With ``sequence_length``, TF's semantics: at time ``t >= sequence_length[b]``
row ``b``'s output is zero and its state is copied through, so the final state
is the state at each sequence's own end (gradients do not flow through the
masked steps). ``parallel_iterations`` and ``swap_memory`` are accepted (XLA
schedules the loop).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from adapters.v1.framework import auto_mixed_precision, dtypes, ops
from adapters.v1.framework.op_def import FUNCTIONS, np_dtype
from adapters.v1.ops import control_flow_ops as cf
from adapters.v1.ops import rnn_products, script_ops
from adapters.v1.ops import variable_scope as vs
from adapters.v1.ops.array_ops import identity
from adapters.v1.ops.rnn_cell_impl import assert_like_rnncell, zero_state_like
from jtrain._eigen import matmul as eigen_matmul

__all__ = [
    "dynamic_rnn",
    "static_rnn",
    "bidirectional_dynamic_rnn",
    "static_bidirectional_rnn",
    "raw_rnn",
]


def _op(name: str) -> Any:
    return FUNCTIONS[name]


def _sequence_length(sequence_length: Any) -> ops.Tensor | None:
    if sequence_length is None:
        return None
    length = _op("cast")(sequence_length, dtypes.int32)
    if length.shape.ndims not in (None, 1):
        raise ValueError(
            "Argument sequence_length must be a vector of length batch_size. Received "
            f"sequence_length={length} of shape: {length.shape}"
        )
    return identity(length, name="sequence_length")


def _batch_size(flat_input: Sequence[ops.Tensor], batch_axis: int) -> Any:
    """The static batch size of the first input that knows it, else a shape tensor."""
    for t in flat_input:
        if t.shape.ndims is None:
            continue
        if t.shape.ndims < 2:
            raise ValueError(
                f"Input size (depth of inputs) must be accessible via shape "
                f"inference, but saw value None. Input rank: {t.shape.ndims}"
            )
        size = t.shape.as_list()[batch_axis]
        if size is not None:
            return size
    return _op("shape")(flat_input[0])[batch_axis]


def _initial_state(
    cell: Any, initial_state: Any, dtype: Any, batch_size: Any, reference: ops.Tensor
) -> Any:
    """``initial_state``, or the cell's zero state (following ``reference``'s batch when
    the batch size is known only when the step runs)."""
    if initial_state is not None:
        return initial_state
    if not dtype:
        raise ValueError("If no initial_state is provided, argument `dtype` must be specified")
    if isinstance(batch_size, int):
        return cell.zero_state(batch_size, dtype)
    with ops.name_scope(type(cell).__name__ + "ZeroState"):
        return zero_state_like(cell.state_size, reference, dtype)


def _transpose_batch_time(x: ops.Tensor) -> ops.Tensor:
    rank = x.shape.ndims
    if rank is None:
        raise ValueError(f"Expected input tensor {x.name} to have known rank")
    if rank < 2:
        return x
    return _op("transpose")(x, [1, 0, *range(2, rank)])


def _deferred_products(body: cf._Body) -> list[ops.Operation]:
    """The body's ``MatMul`` nodes whose gradients for their kernel ``rnn_products``
    takes after the loop: ``a @ kernel`` (no transposes) of a floating dtype, the
    kernel from outside the loop, and not a product TF's order covers (``small``, as
    ``tf.matmul`` decides it: its per-step products are TF's bits, kept by the loop's own
    sum; a size unknown when the graph is built is never small)."""
    captured = set(body.captured)
    found = []
    for op in body.order:
        if op.type != "MatMul" or op.inputs[1] not in captured:
            continue
        attrs = getattr(op, "_static_attrs", None) or {}
        if any(attrs.get(k) for k in ("transpose_a", "transpose_b", "adjoint_a", "adjoint_b")):
            continue
        dtype = op.outputs[0].dtype
        a, b = (tuple(t.shape.as_list()) if t.shape.ndims is not None else () for t in op.inputs)
        if dtype.is_floating and not eigen_matmul.small(a, b, np_dtype(dtype)):
            found.append(op)
    return found


def _product_site(product: Any, k: int, op: ops.Operation) -> Any:
    """``op``'s computation as ``rnn_products``' ``k``-th product site."""
    compute = op._compute

    def run(ctx: Any, a: Any, b: Any) -> tuple[Any]:
        return (product(k, a, lambda kernel: compute(ctx, a, kernel)[0]),)

    return run


def _rnn_loop(
    cell: Any, flat_input: list[ops.Tensor], input_structure: Any, state: Any, length: Any
) -> tuple[Any, Any]:
    """The time loop as one ``lax.scan`` node: time-major outputs and the final state."""
    for t in flat_input:
        if t.shape.ndims is None or t.shape.as_list()[-1] is None:
            raise ValueError(
                "Input size (depth of inputs) must be accessible via shape inference, but "
                f"saw value None for input={t}."
            )
    steps = {t.shape.as_list()[0] for t in flat_input} - {None}
    if len(steps) > 1:
        raise ValueError("Time steps is not the same for all the elements in the input in a batch.")
    state_leaves, state_structure = cf.flatten(state)
    state_tensors = [ops.convert_to_tensor(s) for s in state_leaves]
    state_specs = [(s._shape, s.dtype) for s in state_tensors]
    input_specs = [(None if t._shape is None else t._shape[1:], t.dtype) for t in flat_input]

    def make() -> Any:
        state_params = cf.parameters(state_specs, "state")
        input_params = cf.parameters(input_specs, "input")
        step_input = input_structure.unflatten(input_params)
        output, new_state = cell(step_input, state_structure.unflatten(state_params))
        return state_params, input_params, output, new_state

    (state_params, input_params, output, new_state), created = cf.build(make)
    out_leaves, out_structure = cf.flatten(output)
    outs = [ops.convert_to_tensor(o) for o in out_leaves]
    new_leaves, new_structure = cf.flatten(new_state)
    if new_structure != state_structure:
        cf.assert_same_structure(state_structure.unflatten(state_tensors), new_state)
    news = [ops.convert_to_tensor(s) for s in new_leaves]
    for old, new in zip(state_tensors, news, strict=True):
        if old.dtype != new.dtype:
            raise TypeError(
                f"The cell returns a state of {new.dtype.name} for a state of {old.dtype.name}"
            )
    body = cf._Body("dynamic_rnn", created, state_params + input_params, outs + news)
    out_dtypes = [np_dtype(o.dtype) for o in outs]
    state_dtypes = [np_dtype(s.dtype) for s in state_tensors]
    n_in, n_state, n_out = len(flat_input), len(state_tensors), len(outs)
    sites = _deferred_products(body)
    kernels = list(dict.fromkeys(op.inputs[1] for op in sites))

    def compute(ctx: Any, extra: tuple, known: dict, written: list[Any]) -> tuple[Any, ...]:
        xs = list(extra[:n_in])
        init = [
            jnp.asarray(v, d)
            for v, d in zip(extra[n_in : n_in + n_state], state_dtypes, strict=True)
        ]
        lengths = extra[n_in + n_state] if length is not None else None

        def step(carry: Any, x: Any, product: Any = None) -> Any:
            time, old, var_vals = carry
            values = dict(known)
            values.update(zip(state_params, old, strict=True))
            values.update(zip(input_params, x, strict=True))
            overrides = None
            if product is not None:
                overrides = {op: _product_site(product, k, op) for k, op in enumerate(sites)}
            new, new_vars = body.run(ctx, values, written, var_vals, overrides=overrides)
            outputs = [jnp.asarray(v, d) for v, d in zip(new[:n_out], out_dtypes, strict=True)]
            states = [jnp.asarray(v, d) for v, d in zip(new[n_out:], state_dtypes, strict=True)]
            if lengths is not None:
                done = time >= lengths

                def rows(v: Any) -> Any:
                    return done.reshape(done.shape + (1,) * (v.ndim - 1))

                outputs = [jnp.where(rows(o), jnp.zeros_like(o), o) for o in outputs]
                states = [jnp.where(rows(s), p, s) for p, s in zip(old, states, strict=True)]
            return (time + 1, states, new_vars), outputs

        var_vals = cf._entry_values(ctx, written)  # a gradient replays the forward draws
        carry = (jnp.asarray(0, jnp.int32), init, var_vals)
        if sites and not auto_mixed_precision.rewrites("MatMul"):
            # The kernels' gradients as one product each after the loop (rnn_products).
            weights = [known[t] for t in kernels]
            index = [kernels.index(op.inputs[1]) for op in sites]
            loop = rnn_products.scan(step, carry, xs, weights, index)
        else:
            loop = lax.scan(step, carry, xs)
        (_, final, new_vars), ys = loop
        cf._write_back(ctx, written, new_vars)
        return tuple(ys) + tuple(final)

    time_steps = steps.pop() if steps else None
    specs = [(None if o._shape is None else (time_steps, *o._shape), o.dtype) for o in outs]
    specs += [(s._shape, s.dtype) for s in state_tensors]
    extra = list(flat_input) + state_tensors + ([length] if length is not None else [])
    node = cf.node("Exit", "while/Exit", [body], created, extra, specs, compute)
    results = list(node.outputs)
    outputs = out_structure.unflatten(results[:n_out])
    final_state = new_structure.unflatten(results[n_out:])
    return outputs, final_state


def dynamic_rnn(
    cell: Any,
    inputs: Any,
    sequence_length: Any = None,
    initial_state: Any = None,
    dtype: Any = None,
    parallel_iterations: int | None = None,
    swap_memory: bool = False,
    time_major: bool = False,
    scope: Any = None,
) -> tuple[Any, Any]:
    """Runs ``cell`` over the time dimension of ``inputs`` (``tf.nn.dynamic_rnn``).

    Args:
      cell: an ``RNNCell``.
      inputs: ``[batch, time, ...]`` (``[time, batch, ...]`` with ``time_major``), or a
        nested structure of such tensors.
      sequence_length: optional int vector ``[batch]``: steps past it output zeros and
        copy the state through.
      initial_state: the initial state (default: the cell's zero state of ``dtype``).
      dtype: the state's dtype when ``initial_state`` is not given.
      parallel_iterations: accepted (XLA schedules the loop).
      swap_memory: accepted.
      time_major: whether ``inputs`` and outputs are ``[time, batch, ...]``.
      scope: the variable scope (default ``"rnn"``).

    Returns:
      ``(outputs, state)``: outputs in the cell's output structure, shaped like
      ``inputs``' leading dimensions, and the final state.

    Raises:
      TypeError: ``cell`` is not an RNN cell.
      ValueError: no ``initial_state`` and no ``dtype``; ``sequence_length`` not a
        vector; the input depth unknown; inputs with different numbers of steps.
    """
    assert_like_rnncell("cell", cell)
    with vs.variable_scope(scope or "rnn"):
        flat, structure = cf.flatten(inputs)
        flat = [ops.convert_to_tensor(i) for i in flat]
        if not time_major:
            flat = [_transpose_batch_time(i) for i in flat]
        length = _sequence_length(sequence_length)
        batch_size = _batch_size(flat, 1)
        state = _initial_state(cell, initial_state, dtype, batch_size, flat[0][0])
        if length is not None and isinstance(batch_size, int):
            known = length.shape.as_list()[0] if length.shape.ndims == 1 else None
            if known is not None and known != batch_size:
                raise ValueError(
                    f"Expected shape for Tensor {length.name} is [{batch_size}] but saw "
                    f"shape: [{known}]"
                )
        outputs, final_state = _rnn_loop(cell, flat, structure, state, length)
        if not time_major:
            leaves, out_structure = cf.flatten(outputs)
            outputs = out_structure.unflatten([_transpose_batch_time(o) for o in leaves])
        return outputs, final_state


def _select_step(time: int, length: ops.Tensor, old: Any, new: Any, zeros: Any) -> Any:
    """TF's copy-through at step ``time``: zero outputs, old states where ``time >= length``."""
    copy = _op("greater_equal")(time, length)
    selected = _op("where")(copy, zeros if zeros is not None else old, new)
    selected.set_shape(new.shape)  # as TF's _rnn_step does
    return selected


def static_rnn(
    cell: Any,
    inputs: Sequence[Any],
    initial_state: Any = None,
    dtype: Any = None,
    sequence_length: Any = None,
    scope: Any = None,
) -> tuple[list[Any], Any]:
    """Runs ``cell`` over a Python list of time steps, unrolled (``tf.nn.static_rnn``).

    Args:
      cell: an ``RNNCell``.
      inputs: a non-empty list of ``[batch, input_size]`` tensors (or nested structures).
      initial_state: the initial state (default: the cell's zero state of ``dtype``).
      dtype: the state's dtype when ``initial_state`` is not given.
      sequence_length: optional int vector ``[batch]`` (TF's copy-through semantics).
      scope: the variable scope (default ``"rnn"``).

    Returns:
      ``(outputs, state)``: the list of outputs, one per step, and the final state.

    Raises:
      TypeError: ``cell`` is not an RNN cell, or ``inputs`` is not a list.
      ValueError: ``inputs`` is empty; no ``initial_state`` and no ``dtype``.
    """
    assert_like_rnncell("cell", cell)
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"Argument `inputs` must be a sequence. Received: {inputs}")
    if not inputs:
        raise ValueError("Argument `inputs` must not be empty.")
    outputs: list[Any] = []
    with vs.variable_scope(scope or "rnn") as varscope:
        first, _ = cf.flatten(inputs[0])
        first = [ops.convert_to_tensor(i) for i in first]
        for t in first:
            if t.shape.ndims is not None and t.shape.as_list()[-1] is None:
                raise ValueError(
                    "Input size (dimension 1 of inputs) must be accessible via "
                    "shape inference, but saw value None."
                )
        batch_size = _batch_size(first, 0)
        state = _initial_state(cell, initial_state, dtype, batch_size, first[0])
        length = _sequence_length(sequence_length)
        zero_output = None
        for time, step_input in enumerate(inputs):
            if time > 0:
                varscope.reuse_variables()
            output, new_state = cell(step_input, state)
            if length is None:
                state = new_state
            else:
                out_leaves, out_structure = cf.flatten(output)
                if zero_output is None:
                    zero_output = [_op("zeros_like")(o) for o in out_leaves]
                output = out_structure.unflatten(
                    [
                        _select_step(time, length, o, o, z)
                        for o, z in zip(out_leaves, zero_output, strict=True)
                    ]
                )
                old_leaves, structure = cf.flatten(state)
                new_leaves = cf.flatten(new_state)[0]
                state = structure.unflatten(
                    [
                        _select_step(time, length, s, n, None)
                        for s, n in zip(old_leaves, new_leaves, strict=True)
                    ]
                )
            outputs.append(output)
        return outputs, state


def _reverse_sequence(x: ops.Tensor, lengths: Any, seq_axis: int, batch_axis: int) -> ops.Tensor:
    """``x`` with each row's first ``lengths[b]`` steps reversed (TF's ``reverse_sequence``)."""
    if lengths is None:
        return _op("reverse")(x, axis=[seq_axis])
    if "reverse_sequence" in FUNCTIONS:
        return _op("reverse_sequence")(x, lengths, seq_axis=seq_axis, batch_axis=batch_axis)
    x = ops.convert_to_tensor(x)
    lengths = _op("cast")(lengths, dtypes.int32)

    def reverse(values: Any, limits: Any) -> Any:
        moved = jnp.moveaxis(values, (batch_axis, seq_axis), (0, 1))
        time = lax.broadcasted_iota(jnp.int32, moved.shape[:2], 1)
        limit = limits[:, None]
        index = jnp.where(time < limit, limit - 1 - time, time)
        index = jnp.broadcast_to(index.reshape(index.shape + (1,) * (moved.ndim - 2)), moved.shape)
        result = jnp.take_along_axis(moved, index, axis=1)
        return jnp.moveaxis(result, (0, 1), (batch_axis, seq_axis))

    out = script_ops.lift(reverse, [x, lengths], name="ReverseSequence")
    out.set_shape(x.shape)
    return out


def bidirectional_dynamic_rnn(
    cell_fw: Any,
    cell_bw: Any,
    inputs: Any,
    sequence_length: Any = None,
    initial_state_fw: Any = None,
    initial_state_bw: Any = None,
    dtype: Any = None,
    parallel_iterations: int | None = None,
    swap_memory: bool = False,
    time_major: bool = False,
    scope: Any = None,
) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """A forward and a backward ``dynamic_rnn`` over ``inputs``, outputs kept apart.

    The backward cell reads each sequence reversed within its ``sequence_length``
    and its outputs are reversed back. Variables live under ``scope/fw/...`` and
    ``scope/bw/...``.

    Args:
      cell_fw: the forward ``RNNCell``.
      cell_bw: the backward ``RNNCell``.
      inputs: ``[batch, time, ...]`` (``[time, batch, ...]`` with ``time_major``).
      sequence_length: optional int vector ``[batch]``.
      initial_state_fw: the forward initial state.
      initial_state_bw: the backward initial state.
      dtype: the states' dtype when the initial states are not given.
      parallel_iterations: accepted.
      swap_memory: accepted.
      time_major: whether ``inputs`` and outputs are ``[time, batch, ...]``.
      scope: the variable scope (default ``"bidirectional_rnn"``).

    Returns:
      ``((output_fw, output_bw), (output_state_fw, output_state_bw))``.

    Raises:
      TypeError: a cell is not an RNN cell.
    """
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    with vs.variable_scope(scope or "bidirectional_rnn"):
        with vs.variable_scope("fw") as fw_scope:
            output_fw, state_fw = dynamic_rnn(
                cell_fw,
                inputs,
                sequence_length,
                initial_state_fw,
                dtype,
                parallel_iterations,
                swap_memory,
                time_major,
                scope=fw_scope,
            )
        time_axis, batch_axis = (0, 1) if time_major else (1, 0)

        def reverse(structure: Any) -> Any:
            leaves, tree = cf.flatten(structure)
            return tree.unflatten(
                [
                    _reverse_sequence(
                        ops.convert_to_tensor(x), sequence_length, time_axis, batch_axis
                    )
                    for x in leaves
                ]
            )

        with vs.variable_scope("bw") as bw_scope:
            reversed_inputs = reverse(inputs)
            tmp, state_bw = dynamic_rnn(
                cell_bw,
                reversed_inputs,
                sequence_length,
                initial_state_bw,
                dtype,
                parallel_iterations,
                swap_memory,
                time_major,
                scope=bw_scope,
            )
    return (output_fw, reverse(tmp)), (state_fw, state_bw)


def static_bidirectional_rnn(
    cell_fw: Any,
    cell_bw: Any,
    inputs: Sequence[Any],
    initial_state_fw: Any = None,
    initial_state_bw: Any = None,
    dtype: Any = None,
    sequence_length: Any = None,
    scope: Any = None,
) -> tuple[list[Any], Any, Any]:
    """A forward and a backward ``static_rnn``, outputs concatenated per step.

    Args:
      cell_fw: the forward ``RNNCell``.
      cell_bw: the backward ``RNNCell``.
      inputs: a non-empty list of ``[batch, input_size]`` tensors.
      initial_state_fw: the forward initial state.
      initial_state_bw: the backward initial state.
      dtype: the states' dtype when the initial states are not given.
      sequence_length: optional int vector ``[batch]``.
      scope: the variable scope (default ``"bidirectional_rnn"``).

    Returns:
      ``(outputs, output_state_fw, output_state_bw)``: ``outputs[t]`` is
      ``concat([fw_t, bw_t], 1)``.

    Raises:
      TypeError: a cell is not an RNN cell, or ``inputs`` is not a list.
      ValueError: ``inputs`` is empty.
    """
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"Argument `inputs` must be a sequence. Received: {inputs}")
    if not inputs:
        raise ValueError("Argument `inputs` must not be empty.")

    def reverse(seq: Sequence[Any]) -> list[Any]:
        if sequence_length is None:
            return list(reversed(seq))
        stacked = _op("stack")([ops.convert_to_tensor(x) for x in seq])
        return list(_op("unstack")(_reverse_sequence(stacked, sequence_length, 0, 1)))

    with vs.variable_scope(scope or "bidirectional_rnn"):
        with vs.variable_scope("fw") as fw_scope:
            output_fw, state_fw = static_rnn(
                cell_fw, inputs, initial_state_fw, dtype, sequence_length, scope=fw_scope
            )
        with vs.variable_scope("bw") as bw_scope:
            tmp, state_bw = static_rnn(
                cell_bw,
                reverse(list(inputs)),
                initial_state_bw,
                dtype,
                sequence_length,
                scope=bw_scope,
            )
    output_bw = reverse(tmp)
    outputs = [_op("concat")([fw, bw], 1) for fw, bw in zip(output_fw, output_bw, strict=True)]
    return outputs, state_fw, state_bw


def _fixed_input_steps(flat_input: Sequence[Any]) -> int | None:
    """The size of the fixed-size TensorArray the first inputs are read from (TF1's
    ``inputs_ta.read(time)`` idiom), searched through the ops producing them (and the
    branches of a ``tf.cond`` among them)."""
    seen: set[int] = set()
    todo = [ops.convert_to_tensor(t).op for t in flat_input]
    while todo and len(seen) < 200:
        op = todo.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        res = getattr(op, "_tensor_array_read", None)
        if res is not None and not res.dynamic_size and res.static_size is not None:
            return int(res.static_size)
        todo.extend(t.op for t in op.inputs)
        todo.extend(getattr(op, "_body_ops", ()))
    return None


def raw_rnn(
    cell: Any,
    loop_fn: Any,
    parallel_iterations: int | None = None,
    swap_memory: bool = False,
    scope: Any = None,
    maximum_iterations: int | None = None,
) -> tuple[Any, Any, Any]:
    """Runs ``cell`` in a loop that ``loop_fn`` drives (``tf.nn.raw_rnn``).

    TF's protocol: ``loop_fn(time, cell_output, cell_state, loop_state) ->
    (elements_finished, next_input, next_cell_state, emit_output, next_loop_state)``,
    called once with ``time=0`` and ``None`` for the others (it gives the initial
    input, state, the emit structure and the initial loop state), then after each
    cell step with ``time + 1``. The loop runs while some batch entry is not
    finished; for a finished entry the emit is zeros and the state is copied
    through. A ``tf.while_loop`` over the time, the finished flags, the input, the
    emit ``TensorArray`` s, the state and the loop state, as TF builds it.

    Args:
      cell: an ``RNNCell``.
      loop_fn: the callable above.
      parallel_iterations: accepted (XLA schedules the loop).
      swap_memory: accepted.
      scope: the variable scope (default ``"rnn"``).
      maximum_iterations: jtrain's bound on the loop (not TF's argument): the emit
        ``TensorArray`` s are compiled with it as capacity. Default: the size of the
        fixed-size ``TensorArray`` the first input is read from (``inputs_ta.read(0)``).

    Returns:
      ``(emit_ta, final_state, final_loop_state)``: the emits as ``TensorArray`` s of
      ``emit_output``'s structure (the cell's ``output_size`` when ``loop_fn`` gives
      none), the final state, and the final loop state (``None`` when the initial one
      is ``None``).

    Raises:
      TypeError: ``cell`` is not an RNN cell, or ``loop_fn`` is not callable.
      ValueError: structures that differ from the state's, the input's or the emit's.
      NotImplementedError: no ``maximum_iterations`` and no fixed-size ``TensorArray``
        the inputs are read from: jtrain compiles the emits' buffers with a static
        capacity.

    .. note::
       ``emit_ta.stack()`` needs the loop to run to the bound (a shorter run fails
       with ``UnimplementedError``: a shape jtrain could not compile), and a loop
       still unfinished at the bound stops there.
    """
    from adapters.v1.framework import tensor_shape
    from adapters.v1.ops.constant_op import constant
    from adapters.v1.ops.tensor_array_ops import TensorArray

    assert_like_rnncell("cell", cell)
    if not callable(loop_fn):
        raise TypeError(f"Argument `loop_fn` must be a callable. Received: {loop_fn}.")
    parallel_iterations = parallel_iterations or 32
    with vs.variable_scope(scope or "rnn"):
        time = constant(0, dtype=dtypes.int32)
        finished, next_input, initial_state, emit_structure, init_loop_state = loop_fn(
            time, None, None, None
        )
        flat_input = [ops.convert_to_tensor(i) for i in cf.flatten(next_input)[0]]
        loop_state = (
            init_loop_state if init_loop_state is not None else constant(0, dtype=dtypes.int32)
        )
        static_batch = None
        for t in flat_input:
            dims = t.shape.as_list() if t.shape.ndims else [None]
            if static_batch is not None and dims[0] is not None and dims[0] != static_batch:
                raise ValueError(f"Dimensions {static_batch} and {dims[0]} are not compatible")
            static_batch = static_batch if static_batch is not None else dims[0]
        batch_size: Any = static_batch
        if batch_size is None:
            batch_size = _op("shape")(flat_input[0])[0]
        if maximum_iterations is None:
            maximum_iterations = _fixed_input_steps(flat_input)
        if maximum_iterations is None:
            raise NotImplementedError(
                "tf.nn.raw_rnn: jtrain compiles the emit TensorArrays with a static "
                "capacity, and found no bound: read the inputs from a fixed-size "
                "TensorArray (inputs_ta.read(time)) or pass maximum_iterations=N."
            )
        cf.assert_same_structure(initial_state, cell.state_size)
        state_leaves, state_structure = cf.flatten(initial_state)
        state = state_structure.unflatten([ops.convert_to_tensor(s) for s in state_leaves])
        if emit_structure is not None:
            flat_emit = cf.flatten(emit_structure)[0]
            flat_emit = [ops.convert_to_tensor(e) for e in flat_emit]
            emit_sizes = [
                e.shape if e.shape.is_fully_defined() else _op("shape")(e) for e in flat_emit
            ]
            emit_dtypes = [e.dtype for e in flat_emit]
        else:
            emit_structure = cell.output_size
            emit_sizes = cf.flatten(emit_structure)[0]
            emit_dtypes = [ops.convert_to_tensor(state_leaves[0]).dtype] * len(emit_sizes)
        emit_tree = cf.flatten(emit_structure)[1]

        def ta_flat(structure: Any) -> tuple[list[Any], Any]:
            # TensorArrays (pytrees themselves) as leaves
            return jax.tree.flatten(
                structure, is_leaf=lambda v: isinstance(v, (TensorArray, ops.Tensor))
            )

        def size_shape(size: Any) -> Any:
            if isinstance(size, ops.Tensor):
                return tensor_shape.TensorShape(None)
            return tensor_shape.TensorShape(size)

        flat_ta = [
            TensorArray(
                dtype=d,
                dynamic_size=True,
                element_shape=tensor_shape.TensorShape([static_batch]).concatenate(size_shape(s)),
                size=0,
                name=f"rnn_output_{i}",
            )
            for i, (d, s) in enumerate(zip(emit_dtypes, emit_sizes, strict=True))
        ]
        emit_ta = emit_tree.unflatten(flat_ta)

        def with_batch(size: Any) -> Any:
            if isinstance(size, ops.Tensor):
                return _op("concat")([_op("reshape")(batch_size, [1]), size], 0)
            dims = tensor_shape.TensorShape(size).as_list()
            if isinstance(batch_size, int):
                return [batch_size, *dims]
            return _op("stack")([batch_size, *dims])

        zero_emit = emit_tree.unflatten(
            [_op("zeros")(with_batch(s), d) for s, d in zip(emit_sizes, emit_dtypes, strict=True)]
        )

        def condition(unused_time: Any, elements_finished: Any, *_: Any) -> Any:
            return _op("logical_not")(_op("reduce_all")(elements_finished))

        def body(
            time: Any,
            elements_finished: Any,
            current_input: Any,
            emit_ta: Any,
            state: Any,
            loop_state: Any,
        ) -> Any:
            next_output, cell_state = cell(current_input, state)
            cf.assert_same_structure(state, cell_state)
            cf.assert_same_structure(cell.output_size, next_output)
            next_time = time + 1
            next_finished, next_input, next_state, emit_output, next_loop_state = loop_fn(
                next_time, next_output, cell_state, loop_state
            )
            cf.assert_same_structure(state, next_state)
            cf.assert_same_structure(current_input, next_input)
            if ta_flat(emit_ta)[1] != ta_flat(emit_output)[1]:
                cf.assert_same_structure(emit_structure, emit_output)
            loop_state = loop_state if next_loop_state is None else next_loop_state

            def copy_some_through(current: Any, candidate: Any) -> Any:
                cur_leaves, tree = cf.flatten(current)
                out = []
                for cur, cand in zip(cur_leaves, cf.flatten(candidate)[0], strict=True):
                    if isinstance(cur, TensorArray) or cur.shape.ndims == 0:
                        out.append(cand)
                    else:
                        out.append(_op("where")(elements_finished, cur, cand))
                return tree.unflatten(out)

            emit_output = copy_some_through(zero_emit, emit_output)
            next_state = copy_some_through(state, next_state)
            tas, tree = ta_flat(emit_ta)
            emits = ta_flat(emit_output)[0]
            emit_ta = tree.unflatten([ta.write(time, e) for ta, e in zip(tas, emits, strict=True)])
            elements_finished = _op("logical_or")(elements_finished, next_finished)
            return [next_time, elements_finished, next_input, emit_ta, next_state, loop_state]

        returned = cf.while_loop(
            condition,
            body,
            loop_vars=[time, finished, next_input, emit_ta, state, loop_state],
            parallel_iterations=parallel_iterations,
            swap_memory=swap_memory,
            maximum_iterations=maximum_iterations,
        )
        emit_ta, final_state, final_loop_state = returned[-3:]
        if init_loop_state is None:
            final_loop_state = None
        return emit_ta, final_state, final_loop_state
