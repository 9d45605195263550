"""TF1's stateful random ops (``tf.random_uniform``, ``tf.random_normal``...) on graph nodes.

How a random op works
---------------------
A TF1 random op gives fresh values every time a session runs it, and the same
*sequence* of values whenever the same graph is built with the same seeds
(``tf.set_random_seed`` and the op's ``seed=``) and run in a new session. Here a
random op is two nodes:

1. a **generator node** (op type ``RandomGenerator``) owning hidden state in the
   session's variable store: the op's draw position (``uint32[2]``, the low 64 bits
   of TF's Philox counter). Each run outputs the position and moves it on by what
   the run reserves: ``256 * num_elements`` generator calls for TF's Philox ops, as
   TF's ``GuardedPhiloxRandom`` (1 for the others). The state is an effect declared
   as TF declares assignments (``Operation._writes``): the session donates its
   buffer and keeps the update in the same compiled program (no host round trip,
   no recompilation). A session starts a seeded op at position 0 and an unseeded
   one at 64 random bits (a new sequence in every session, as TF);
2. a **sample node**, a pure function of that position and the op's other inputs
   (``minval``, ``logits``, a shape tensor...). Being pure, it gives the same values
   when ``tf.gradients`` re-evaluates it inside the run (``tf.gradients`` of
   ``random_normal``'s ``mean``/``stddev`` flows through the arithmetic, as TF's
   ``rnd * stddev + mean``).

Every op has its own state, so its sequence depends only on how many times it
ran (TF's kernels keep one generator per op the same way).

TF's values: ``RandomUniform``, ``RandomUniformInt``, ``RandomStandardNormal`` and
``TruncatedNormal`` (``tf.random_uniform``, ``tf.random_normal``,
``tf.truncated_normal``, ``tf.nn.dropout``...) draw from TF's Philox stream
(``jtrain.random.philox``): key ``(seed, 0)`` and counter ``(position, seed2)`` for
TF's op attributes ``seed``/``seed2``, so a seeded graph gives TF 2.21's bits run
after run (normal draws too: their ``logf``/``sincosf`` are glibc 2.36's bit for bit,
see ``jtrain/random/philox.py``). ``RandomShuffle`` (``tf.random_shuffle``) and
``Multinomial`` (``tf.multinomial``, ``tf.random.categorical``) draw from the same
stream with their kernels' own reservations (``ceil((n - 1) / 4)`` calls per
shuffle of ``n`` rows; ``256 * batch * 2 * ceil4(num_samples)`` per multinomial).
Unseeded ops start at a random position (TF draws random seeds): neither is
reproducible. The other random ops (``random_gamma``, ``random_poisson``,
``random_crop``, the image and candidate-sampling ops) draw from ``jax.random`` with
a key made of their seeds and position: TF's distributions, not TF's values.

Seeds follow TF 2.21's ``tf.compat.v1.get_seed``: graph seed set and op seed
``None``: the op seed is a per-graph counter of such requests; op seed set and no
graph seed: graph seed ``87654321``; neither: nondeterministic.

Other modules build random ops with :func:`random_node` (a sample function of a
fresh JAX key per run), :func:`philox_node` (TF's stream), or on the public ops
``random_uniform`` and ``nn.dropout``. A meta graph rebuilds a Philox op from its
recipe (:func:`philox_draw`, :func:`philox_compute`); a TF-written graph's Philox
nodes draw TF's stream through :func:`philox_state` and :func:`philox_run`.
"""

from __future__ import annotations

import secrets
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from adapters.v1.framework import dtypes, ops, runtime_checks, shape_values
from adapters.v1.framework.shape_values import trace_time_value
from jtrain import errors
from jtrain._numerics import rounded
from jtrain.random import philox

__all__ = [
    "DEFAULT_GRAPH_SEED",
    "get_seed",
    "random_node",
    "philox_node",
    "philox_calls",
    "philox_draw",
    "philox_compute",
    "philox_state",
    "philox_run",
    "mark_range_check",
    "check_range",
    "PHILOX_OP_TYPES",
    "shape_argument",
    "random_uniform",
    "random_normal",
    "truncated_normal",
    "random_shuffle",
    "random_crop",
    "multinomial",
    "categorical",
    "random_gamma",
    "random_poisson",
    "stateless_random_uniform",
    "stateless_random_normal",
    "stateless_truncated_normal",
]

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1
_IMPL = "threefry2x32"  # fixed: the same sequences whatever jax_default_prng_impl says

# Per graph, the next op seed handed to an op without one (TF's _graph_to_seed_dict).
_op_seeds: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def get_seed(op_seed: int | None) -> tuple[int | None, int | None]:
    """The two seeds a random op uses (``tf.compat.v1.get_seed``, TF 2.21's rules).

    Args:
      op_seed: the op-level seed, or None.

    Returns:
      ``(graph_seed, op_seed)`` truncated to 31 bits: with a graph seed
      (``tf.set_random_seed``) and no op seed, the op seed is the default graph's
      count of such requests so far (so the same graph built again gets the same
      seeds); with an op seed and no graph seed, the graph seed is 87654321;
      with neither, ``(None, None)`` (nondeterministic). ``(0, 0)`` becomes
      ``(0, 2**31 - 1)``, as TF.
    """
    graph = ops.get_default_graph()
    global_seed = graph.seed
    if global_seed is not None:
        if op_seed is None:
            op_seed = _op_seeds.get(graph, 0)
            _op_seeds[graph] = op_seed + 1
        seeds = (global_seed % _MAXINT32, op_seed % _MAXINT32)
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, op_seed % _MAXINT32)
    else:
        return None, None
    return (0, _MAXINT32) if seeds == (0, 0) else seeds


class GeneratorState:
    """Hidden state of one random op in a session, ``uint32[2]``.

    Not a variable: no collection holds it, savers do not save it. The session's
    variable store keeps its value and starts it with ``_start_value()``.

    A ``RandomGenerator`` node's state (``counter``, set by :func:`own_state`) is the
    op's **draw position**: the low 64 bits of TF's Philox counter, how many
    generator calls its runs have reserved (``256 * num_elements`` per run, as TF's
    ``GuardedPhiloxRandom``); 0 in a new session for a seeded op, 64 random bits for
    an unseeded one. The node of an imported TF graph's Philox op owns its state
    itself (:func:`philox_state`, :func:`philox_run`), a draw position too.
    """

    dtype = np.dtype(np.uint32)
    shape = (2,)

    def __init__(self, seeds: tuple[int | None, int | None]):
        self.seeds = seeds
        self.op: ops.Operation | None = None  # the generator node (names the state)
        self.counter = False

    def _start_value(self) -> np.ndarray:
        """The first value: position 0 (seeded) or a random one; a threefry key otherwise."""
        graph_seed, op_seed = self.seeds
        unseeded = graph_seed is None or op_seed is None
        if unseeded:
            return np.array([secrets.randbits(32), secrets.randbits(32)], np.uint32)
        if self.counter:
            return np.zeros(2, np.uint32)
        return np.array([graph_seed, op_seed], np.uint32)

    def __repr__(self) -> str:
        return f"<GeneratorState of {self.op.name if self.op else '?'} seeds={self.seeds}>"


def _key(raw: Any) -> Any:
    return jax.random.wrap_key_data(raw, impl=_IMPL)


# TF's stateful Philox kernels: a run reserves 256 generator calls per output element.
PHILOX_OP_TYPES = ("RandomUniform", "RandomUniformInt", "RandomStandardNormal", "TruncatedNormal")


def _advance(position: Any, calls: int) -> Any:
    """``position`` (``uint32[2]``, 64 bits) moved on by ``calls``."""
    lo = jnp.uint32(calls & 0xFFFFFFFF)
    hi = jnp.uint32((calls >> 32) & 0xFFFFFFFF)
    low = position[0] + lo
    high = position[1] + hi + (low < lo).astype(jnp.uint32)
    return jnp.stack([low, high])


def _inferred_calls(op: ops.Operation | None) -> int:
    """Calls one run of a generator's consumer reserves (a generator built without them:
    an imported meta graph's): ``256 * size`` for TF's Philox ops, else 1."""
    if op is None:
        return 1
    for consumer in op.outputs[0].consumers():
        if consumer.type in PHILOX_OP_TYPES:
            shape = consumer.outputs[0]._shape
            if shape is None or any(d is None for d in shape):
                raise NotImplementedError(
                    f"{consumer.name} ({consumer.type}): an imported random op of an unknown "
                    "output shape cannot keep TF's stream; rebuild the graph from its Python "
                    "code"
                )
            return int(np.prod(shape, dtype=np.int64)) * philox.RESERVED_SAMPLES_PER_OUTPUT
    return 1


def generator_compute(
    state: GeneratorState, calls: Callable[..., int] | None = None
) -> Callable[..., tuple[Any]]:
    """A generator node's ``compute``: outputs ``state``'s position and moves it on.

    Args:
      state: the node's state.
      calls: ``calls(ctx, *input values) -> int``, the generator calls one run
        reserves; ``None``: inferred from the node's consumer (see ``_inferred_calls``).
    """

    def compute(ctx: Any, *values: Any) -> tuple[Any]:
        position = ctx.read(state)
        n = calls(ctx, *values) if calls is not None else _inferred_calls(ctx.op)
        if not ctx.frozen:
            ctx.write(state, _advance(position, n))
        elif getattr(ctx, "replaying", False):
            # A gradient's replay of a tf.while_loop/tf.cond body: the position is the
            # forward run's; the replay's own copy moves on for the next iteration.
            ctx.variables[state] = _advance(position, n)
        elif values:
            # A gradient's re-evaluation of a node with inputs (a shape computed from
            # the differentiated tensors) runs after this run's write: the run's
            # position is the one before it.
            return (_advance(position, -n % 2**64),)
        return (position,)

    return compute


def own_state(op: ops.Operation, state: GeneratorState) -> None:
    """Makes ``op`` (a ``RandomGenerator`` node) the owner of ``state``.

    Its ``seed``/``seed2`` attributes (TF's names for a random op's seeds; 0 and 0
    for none, as TF) let a meta graph rebuild the node with the same sequence.
    """
    op._writes = (state,)
    graph_seed, op_seed = state.seeds
    op._static_attrs = {"seed": graph_seed or 0, "seed2": op_seed or 0}
    state.counter = True
    state.op = op


def _generator_node(
    graph: ops.Graph,
    seeds: tuple[int | None, int | None],
    calls: Callable[..., int],
    inputs: Sequence[ops.Tensor] = (),
) -> ops.Tensor:
    """The node whose output is the op's draw position (``uint32[2]``) at each run."""
    state = GeneratorState(seeds)
    op = graph.create_op(
        "RandomGenerator",
        "generator",
        inputs=list(inputs),
        compute=generator_compute(state, calls),
        output_specs=[((2,), dtypes.uint32)],
    )
    own_state(op, state)
    return op.outputs[0]


def _threefry_key(seeds: tuple[int | None, int | None]) -> Callable[[Any], Any]:
    """A JAX key per draw position: the seeds' key folded with the position's words."""
    base = np.array([seeds[0] or 0, seeds[1] or 0], np.uint32)

    def as_key(position: Any) -> Any:
        key = _key(jnp.asarray(base))
        return jax.random.fold_in(jax.random.fold_in(key, position[0]), position[1])

    return as_key


def _one_call(ctx: Any, *values: Any) -> int:
    return 1


def random_node(
    op_type: str,
    sample: Callable[..., Any],
    inputs: Sequence[Any],
    output_specs: Sequence[tuple[Any, Any]],
    seed: int | None = None,
    name: str = "",
    known: Sequence[int] = (),
) -> tuple[ops.Tensor, ...]:
    """Builds a stateful random op: ``sample(key, *input values)``, a fresh key every run.

    This is the one way the compat layer makes random nodes (``tf.random_*``,
    ``tf.nn.dropout`` and, through them, ``tf.image.random_*`` and
    ``tf.layers.dropout``). It takes the op's seeds by TF's rules (``get_seed``,
    one call per op), adds a generator node owning the op's hidden state, and a
    node applying ``sample``.

    Args:
      op_type: TF's op type of the sample node (``"RandomUniform"``).
      sample: a pure JAX function ``sample(key, *values) -> array or tuple of
        arrays``; ``key`` is a typed JAX PRNG key (``jax.random.uniform(key, ...)``),
        different on every ``Session.run`` and reproducible across sessions for the
        same graph and seeds. It is traced once per compiled program: shapes must
        come from static values or from the inputs' (concrete) values/shapes.
      inputs: tensors (or values made constants) whose values ``sample`` receives.
      output_specs: ``(shape, dtype)`` per output (``None`` dimensions unknown).
      seed: the op-level ``seed=`` argument (``None``: from the graph's seed).
      name: the sample node's name; one ending in ``/`` is taken exactly (TF's
        ``name_scope`` result), else made unique in the current scope.
      known: positions in ``inputs`` of tensors whose values ``sample`` needs when
        the step is traced (a shape such as ``tf.shape(x)``): ``sample`` receives
        them as NumPy arrays (see :func:`trace_time_value`).

    Returns:
      The sample node's output tensors.
    """
    tensors = [ops.convert_to_tensor(x) for x in inputs]
    graph = tensors[0].graph if tensors else ops.get_default_graph()
    seeds = get_seed(seed)
    position = _generator_node(graph, seeds, _one_call)
    return _node(
        op_type, sample, position, _threefry_key(seeds), tensors, output_specs, name, known
    )


def philox_node(
    op_type: str,
    draw: Callable[..., Any],
    inputs: Sequence[Any],
    output_spec: tuple[Any, Any],
    seed: int | None = None,
    name: str = "",
    shape_input: int | None = None,
    form: str | None = None,
) -> ops.Tensor:
    """Builds one of TF's stateful Philox ops (``RandomUniform``...): TF's exact stream.

    The op's state is its draw position: TF's ``GuardedPhiloxRandom`` with key
    ``(seed, 0)`` and counter ``(position, seed2)`` for the ``(seed, seed2)`` of TF's
    seed rules (``get_seed``); every run reserves ``256 * num_elements`` calls, so run
    ``k`` of the op gives TF's run ``k``.

    Args:
      op_type: TF's op type (one of ``PHILOX_OP_TYPES``).
      draw: ``draw(key, counter, shape, *values)``: the values from the run's Philox
        key and counter (``jtrain.random.philox``) and the other inputs' values.
      inputs: tensors whose values ``draw`` receives (``shape_input`` among them).
      output_spec: ``(static shape, dtype)``.
      seed: the op-level ``seed=`` argument.
      name: the sample node's name (as ``random_node``).
      shape_input: position in ``inputs`` of a shape tensor whose value must be known
        when the step is traced (``None``: the static shape is complete).
      form: ``draw`` is ``philox_draw(op_type, dtype, form)``: the sample node carries
        that recipe (its ``_jtrain_philox`` attribute, with TF's ``seed``/``seed2``),
        so a meta graph rebuilds it (:func:`philox_compute`); ``None``: it does not.

    Returns:
      The op's output tensor.
    """
    tensors = [ops.convert_to_tensor(x) for x in inputs]
    graph = tensors[0].graph if tensors else ops.get_default_graph()
    seeds = get_seed(seed)
    static_shape = tuple(output_spec[0])
    if shape_input is not None and all(d is not None for d in static_shape):
        # Known when the graph is built: the run's shape is this one (no input needed).
        tensors = [t for i, t in enumerate(tensors) if i != shape_input]
        shape_input = None
    dynamic = shape_input is not None
    calls = philox_calls(tensors[shape_input] if dynamic else None, static_shape)
    position = _generator_node(graph, seeds, calls, [tensors[shape_input]] if dynamic else [])
    recipe = {
        "form": form,
        "dtype": dtypes.as_dtype(output_spec[1]).name,
        "shape": None if dynamic else list(static_shape),
        "shape_input": shape_input,
    }
    compute = philox_compute(draw, seeds, recipe, tensors)
    op = graph.create_op(
        op_type,
        name or op_type,
        inputs=[position, *tensors],
        compute=compute,
        output_specs=[output_spec],
    )
    if np.dtype(dtypes.as_dtype(output_spec[1]).dtype).kind in "iu":
        mark_range_check(op)
    if form is not None:
        import json

        op._static_attrs = {
            "seed": seeds[0] or 0,
            "seed2": seeds[1] or 0,
            "_jtrain_philox": json.dumps(recipe),
        }
    return op.outputs[0]


def philox_calls(shape_tensor: ops.Tensor | None, static_shape: tuple[int, ...]):
    """A Philox op's generator's ``calls``: ``256 * num_elements`` of its output, whose
    shape is ``static_shape`` or ``shape_tensor``'s value when the step is traced."""

    def calls(ctx: Any, *values: Any) -> int:
        shape = static_shape
        if shape_tensor is not None:
            shape = tuple(trace_time_value(ctx, shape_tensor).reshape(-1))
        return int(np.prod(shape, dtype=np.int64)) * philox.RESERVED_SAMPLES_PER_OUTPUT

    return calls


def philox_draw(op_type: str, dtype: Any, form: str = "range") -> Callable[..., Any]:
    """The ``draw`` of :func:`philox_node` for TF's ``op_type`` and TF's Python around it.

    ``RandomUniform``/``RandomUniformInt``: ``_philox_uniform(dtype, form)``;
    ``RandomStandardNormal``/``TruncatedNormal``: ``rnd * stddev + mean``.
    """
    dt = np.dtype(dtypes.as_dtype(dtype).base_dtype.dtype)
    if op_type in ("RandomUniform", "RandomUniformInt"):
        return _philox_uniform(dt, form)
    if op_type in ("RandomStandardNormal", "TruncatedNormal"):
        return _philox_normal(dt, truncated=op_type == "TruncatedNormal")
    raise ValueError(f"{op_type} is not one of TF's Philox ops {PHILOX_OP_TYPES}")


def philox_compute(
    draw: Callable[..., Any],
    seeds: tuple[int | None, int | None],
    recipe: dict[str, Any],
    tensors: Sequence[ops.Tensor],
) -> Callable[..., tuple[Any]]:
    """The ``compute`` of a Philox op's sample node (built or rebuilt from a meta graph).

    Args:
      draw: as :func:`philox_node`'s.
      seeds: the op's ``(seed, seed2)`` (``None``: unseeded, the key 0).
      recipe: ``dtype`` (an integer one: ``RandomUniformInt``, whose ``minval`` and
        ``maxval`` follow the shape, checked at run time: :func:`check_range`),
        ``shape`` (the static output shape) or ``shape_input`` (the position in
        ``tensors`` of the shape tensor, known when the step is traced).
      tensors: the node's inputs after its generator's position.

    Returns:
      ``compute(ctx, position, *values) -> (values,)``.
    """
    key, base = philox.seeded(seeds[0] or 0, seeds[1] or 0)
    key_words, base_words = np.asarray(key), np.asarray(base)
    shape_input = recipe.get("shape_input")
    static_shape = tuple(recipe.get("shape") or ())
    integer = np.dtype(dtypes.as_dtype(recipe["dtype"]).dtype).kind in "iu"

    def compute(ctx: Any, pos: Any, *values: Any) -> tuple[Any]:
        shape = static_shape
        if shape_input is not None:
            shape = tuple(int(d) for d in trace_time_value(ctx, tensors[shape_input]).reshape(-1))
        rest = [v for i, v in enumerate(values) if i != shape_input]
        if integer:  # RandomUniformInt's minval, maxval
            check_range(ctx, rest[0], rest[1], int(np.prod(shape, dtype=np.int64)))
        counter = philox.skip(jnp.asarray(base_words), pos)
        return (draw(jnp.asarray(key_words), counter, shape, *rest),)

    return compute


def philox_state(seed: int, seed2: int) -> GeneratorState:
    """The state of an imported TF Philox node from its ``seed``/``seed2`` attributes.

    Its draw position, 0 in a new session (``seed == seed2 == 0``: TF draws random
    seeds; here an unseeded state, a random position under the key 0).
    """
    state = GeneratorState((None, None) if (seed, seed2) == (0, 0) else (seed, seed2))
    state.counter = True
    return state


def philox_run(
    ctx: Any, state: GeneratorState, draw: Callable[[Any, Any], Any], range_: Any = None
) -> Any:
    """One run of an imported TF Philox node owning ``state`` (``GuardedPhiloxRandom``).

    Args:
      ctx: the run's context.
      state: the node's state (:func:`philox_state`).
      draw: ``draw(key, counter) -> output``, the node's values from the run's key and
        counter (``jtrain.random.philox``).
      range_: ``(minval, maxval)`` of a ``RandomUniformInt``, checked at run time
        (:func:`check_range`; the node is marked with :func:`mark_range_check`).

    Returns:
      The output; ``state`` moves on by ``256 * num_elements`` calls.
    """
    key, base = philox.seeded(state.seeds[0] or 0, state.seeds[1] or 0)
    size = int(np.prod(jax.eval_shape(draw, key, base).shape, dtype=np.int64))
    if range_ is not None:
        low, high = range_
        check_range(ctx, low, high, size)
    calls = size * philox.RESERVED_SAMPLES_PER_OUTPUT
    position = ctx.read(state)
    if ctx.frozen and getattr(ctx, "replaying", False):
        ctx.variables[state] = _advance(position, calls)  # a body's replay (generator_compute)
    elif ctx.frozen:  # a gradient's re-evaluation, after this run's write
        position = _advance(position, -calls % 2**64)
    else:
        ctx.write(state, _advance(position, calls))
    return draw(key, philox.skip(base, position))


def _identity(x: Any) -> Any:
    return x


def _node(
    op_type: str,
    sample: Callable[..., Any],
    key: ops.Tensor,
    as_key: Callable[[Any], Any],
    tensors: list[ops.Tensor],
    output_specs: Sequence[tuple[Any, Any]],
    name: str,
    known: Sequence[int],
) -> tuple[ops.Tensor, ...]:
    """The sample node: ``sample(as_key(key value), *values)``."""
    specs = list(output_specs)

    def compute(ctx: Any, raw: Any, *values: Any) -> tuple[Any, ...]:
        if known:
            values = tuple(
                trace_time_value(ctx, tensors[i]) if i in known else v for i, v in enumerate(values)
            )
        out = sample(as_key(raw), *values)
        outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
        if len(outs) != len(specs):
            raise errors.InternalError(
                None, op, f"{op.name}: sample gave {len(outs)} outputs, not {len(specs)}"
            )
        return outs

    op = key.graph.create_op(
        op_type, name or op_type, inputs=[key, *tensors], compute=compute, output_specs=specs
    )
    return op.outputs


def _stateless_key(seed: Any) -> Any:
    """A stateless op's key: its ``seed`` pair as threefry key data (values differ from TF's)."""
    return _key(seed.astype(np.uint32))


_UNIFORM_DTYPES = ("float16", "bfloat16", "float32", "float64", "int32", "int64")
_NORMAL_DTYPES = ("float16", "bfloat16", "float32", "float64")

# -- arguments -------------------------------------------------------------------------------


def shape_argument(shape: Any, what: str = "shape") -> tuple[tuple[int | None, ...], Any]:
    """A random op's ``shape`` argument: ``(static dims, tensor or None)``.

    ``shape`` may be a list or tuple of ints, a ``TensorShape``, or a 1-D integer
    tensor (a constant, or a computed one such as ``tf.shape(x)``, whose value must
    be known when the step is compiled). The static dims are what is known when
    the graph is built (``None`` where unknown); the tensor, when not ``None``, is
    an input whose value the sample function needs at trace time (``known``).

    Raises:
      ValueError: not a shape (TF's message for a shape of the wrong rank).
    """
    if isinstance(shape, (list, tuple)) and any(
        isinstance(d, ops.Tensor) or hasattr(d, "_as_graph_tensor") for d in shape
    ):
        from adapters.v1.framework.op_def import FUNCTIONS

        shape = FUNCTIONS["stack"]([ops.convert_to_tensor(d) for d in shape])
    if isinstance(shape, ops.Tensor) or hasattr(shape, "_as_graph_tensor"):
        tensor = ops.convert_to_tensor(shape)
        if tensor._np_dtype is None or tensor._np_dtype.kind not in "iu":
            raise TypeError(
                f"Value passed to parameter '{what}' has DataType {tensor.dtype.name} not in "
                "list of allowed values: int32, int64"
            )
        if tensor._shape is not None and len(tensor._shape) != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {len(tensor._shape)}")
        const = tensor.op._const_value
        if const is not None:
            _check_dims(np.asarray(const).reshape(-1))
            return tuple(int(d) for d in np.asarray(const).reshape(-1)), None
        shape_values.known_when_traced(tensor)  # fed integer placeholders: constants
        rank = None if tensor._shape is None else tensor._shape[0]
        if rank is None:
            raise NotImplementedError(
                f"{what} {tensor.name} has an unknown length: jtrain compiles outputs of a "
                "known rank"
            )
        return _static_dims(tensor, rank), tensor
    items = [getattr(d, "value", d) for d in shape]  # TensorShape / Dimension items
    if any(d is None for d in items):
        raise ValueError(f"Cannot convert a partially known {what} to a Tensor: {shape}")
    dims = np.asarray(items) if items else np.zeros(0, np.int32)  # [] is a scalar's shape
    if dims.dtype.kind not in "iu":
        kind = "float32" if dims.dtype.kind == "f" else dims.dtype.name
        raise TypeError(
            f"Value passed to parameter '{what}' has DataType {kind} not in list of allowed "
            "values: int32, int64"
        )
    if dims.ndim != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {dims.ndim}")
    _check_dims(dims)
    return tuple(int(d) for d in dims), None


def _static_dims(tensor: ops.Tensor, rank: int) -> tuple[int | None, ...]:
    """What the graph knows of a shape tensor's value (TF's partial shape inference)."""
    known = shape_values.static_value(tensor)  # constants and known shapes only
    if known is not None and known.shape == (rank,):
        return tuple(int(d) for d in known)
    op = tensor.op
    partial = shape_values.partial_value(tensor)  # as tf.zeros(shape) infers it
    if partial is not None and partial.shape == (rank,) and op.type != "Pack":
        return tuple(None if d is None else int(d) for d in partial)
    if op.type == "Shape" and op.inputs[0]._shape is not None:
        return tuple(op.inputs[0]._shape)
    if op.type == "Pack" and len(op.inputs) == rank:
        dims = []
        for t in op.inputs:
            const = t.op._const_value
            dims.append(None if const is None or np.ndim(const) else int(const))
        return tuple(dims)
    return (None,) * rank


def _check_dims(dims: np.ndarray) -> None:
    for d in dims:
        if d < 0:
            raise ValueError(f"Invalid value in tensor used for shape: {d}")


def _dim(d: Any) -> Any:
    """A dimension of a shape value: an int, or a symbolic dimension as it is."""
    return int(d) if isinstance(d, (int, np.integer)) else d


def _uniform_dtype(dtype: Any) -> np.dtype:
    dt = dtypes.as_dtype(dtype).base_dtype
    if dt.name not in _UNIFORM_DTYPES:
        accepted = ", ".join(f"tf.{n}" for n in _UNIFORM_DTYPES)
        raise ValueError(
            f"Argument `dtype` got invalid value {dt}. Accepted dtypes are ({accepted})."
        )
    return np.dtype(dt.dtype)


def _check_dtype(dtype: np.dtype, allowed: Sequence[str], what: str = "dtype") -> None:
    """TF's kernel attribute check (``TypeError`` listing the allowed types)."""
    name = dtypes.as_dtype(dtype).name
    if name not in allowed:
        raise TypeError(
            f"Value passed to parameter '{what}' has DataType {name} not in list of "
            f"allowed values: {', '.join(allowed)}"
        )


def _scalar_input(value: Any, dtype: np.dtype, name: str) -> ops.Tensor:
    """``mean``/``stddev``/``minval``...: a tensor of the op's dtype (TF's conversion).

    Raises:
      TypeError: a Python float for an integer dtype (TF's message).
      ValueError: a tensor of another dtype (TF's message).
    """
    if not isinstance(value, ops.Tensor) and not hasattr(value, "_as_graph_tensor"):
        array = np.asarray(value)
        if array.dtype.kind == "f" and dtype.kind in "iu":
            raise TypeError(
                f"Expected {dtype.name}, but got {value!r} of type '{type(value).__name__}'."
            )
    return ops.convert_to_tensor(value, dtype=dtype, name=name)


def _build(
    op_type: str,
    default_name: str,
    name: str | None,
    seed: Any,
    shape: Any,
    dtype: np.dtype,
    params: Sequence[tuple[str, Any]],
    draw: Callable[..., Any],
    allowed: Sequence[str] = ("float16", "bfloat16", "float32", "float64"),
    stateless: bool = False,
    as_key: Callable[[Any], Any] | None = None,
    form: str | None = None,
) -> ops.Tensor:
    """A shaped random op in a name scope.

    Stateful (TF's Philox stream): ``draw(key, counter, shape, *param values)``, ``seed``
    the op seed. ``stateless``: ``draw(key, shape, *param values)`` of a JAX key made of
    the seed tensor ``seed`` (shape [2]), or of ``as_key(seed value)``. The output is
    named by the scope (``random_uniform:0``), as TF's. ``form``: ``draw`` is
    ``philox_draw(op_type, dtype, form)`` (see :func:`philox_node`).
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or default_name) as scope:
        dims, shape_tensor = shape_argument(shape)
        seed_tensor = _seed_tensor(seed) if stateless else None
        tensors = [_scalar_input(v, dtype, n) for n, v in params]
        _check_dtype(dtype, allowed)
        dynamic = shape_tensor is not None

        def sample(key: Any, *values: Any) -> Any:
            if dynamic:
                out_shape, values = tuple(_dim(d) for d in values[0]), values[1:]
            else:
                out_shape = dims
            return draw(key, out_shape, *values)

        inputs = ([shape_tensor] if dynamic else []) + tensors
        specs = [(dims, dtypes.as_dtype(dtype))]
        known = (0,) if dynamic else ()
        if seed_tensor is not None:
            (out,) = _node(
                op_type, sample, seed_tensor, as_key or _stateless_key, inputs, specs, scope, known
            )
        else:
            shape_input = 0 if dynamic else None
            out = philox_node(op_type, draw, inputs, specs[0], seed, scope, shape_input, form)
    return out


def _seed_tensor(seed: Any) -> ops.Tensor:
    """A stateless op's ``seed``: an int32/int64 tensor of shape [2] (TF's checks)."""
    tensor = ops.convert_to_tensor(seed, name="seed")
    if tensor._np_dtype is None or tensor._np_dtype.name not in ("int32", "int64"):
        raise TypeError(
            f"Value passed to parameter 'seed' has DataType {tensor.dtype.name} not in list of "
            "allowed values: int32, int64"
        )
    if tensor._shape is not None and tensor._shape != (2,):
        if len(tensor._shape) != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {len(tensor._shape)}")
        if tensor._shape[0] is not None:
            raise ValueError(f"Dimension must be 2 but is {tensor._shape[0]}")
    return tensor


def _uniform_draw(dt: np.dtype) -> Callable[..., Any]:
    """A stateless op's uniform values (``jax.random``'s, not TF's)."""

    def draw(key: Any, shape: tuple[int, ...], low: Any, high: Any) -> Any:
        if dt.kind in "iu":
            _check_range(low, high)
            return jax.random.randint(key, shape, low, high, dtype=dt)
        # TF: rnd * (maxval - minval) + minval, rnd uniform in [0, 1).
        return rounded(jax.random.uniform(key, shape, dtype=dt) * (high - low)) + low

    return draw


def _philox_uniform(dt: np.dtype, form: str = "range") -> Callable[..., Any]:
    """``RandomUniform``/``RandomUniformInt`` and TF's Python arithmetic around them.

    ``form``: ``"unit"`` (TF's ``minval=0, maxval=1`` as Python ints: the raw values),
    ``"scale"`` (``minval=0`` int: ``rnd * maxval``) or ``"range"``
    (``rnd * (maxval - minval) + minval``, the product rounded as TF's kernels).
    """

    def draw(key: Any, counter: Any, shape: tuple[int, ...], low: Any, high: Any) -> Any:
        if dt.kind in "iu":
            if int(np.prod(shape, dtype=np.int64)):  # (TF checks a non-empty output's)
                _check_range(low, high)
            return philox.uniform_int(key, counter, shape, low, high, dt)
        rnd = philox.uniform(key, counter, shape, dt)
        if form == "unit":
            return rnd
        if form == "scale":
            return rnd * high
        return rounded(rnd * (high - low)) + low

    return draw


def _check_range(low: Any, high: Any) -> None:
    """TF's run-time check ``minval < maxval`` (when the bounds are known at trace time)."""
    if isinstance(low, jax.core.Tracer) or isinstance(high, jax.core.Tracer):
        return
    if not np.asarray(low) < np.asarray(high):
        raise errors.InvalidArgumentError(None, None, _range_message(low, high))


def _range_message(low: Any, high: Any) -> str:
    """TF 2.21's ``RandomUniformInt`` message for ``minval >= maxval``."""
    return f"Need minval < maxval, got {np.asarray(low)} >= {np.asarray(high)}"


def mark_range_check(op: ops.Operation) -> None:
    """Declares ``op`` (a ``RandomUniformInt``) a run-time checker of ``minval < maxval``
    (:func:`check_range`): TF's ``InvalidArgumentError`` after a run where it fails."""
    runtime_checks.mark(
        op, lambda low, high: errors.InvalidArgumentError(None, op, _range_message(low, high))
    )


def check_range(ctx: Any, low: Any, high: Any, size: int) -> None:
    """TF's run-time check of ``RandomUniformInt``: ``minval < maxval`` unless the output
    is empty (bounds computed in the step: see ``framework/runtime_checks.py``)."""
    if size:
        runtime_checks.check(ctx, ctx.op, jnp.asarray(low) < jnp.asarray(high), low, high)


def _normal_draw(dt: np.dtype) -> Callable[..., Any]:
    """A stateless op's normal values (``jax.random``'s, not TF's)."""

    def draw(key: Any, shape: tuple[int, ...], mean: Any, stddev: Any) -> Any:
        return rounded(jax.random.normal(key, shape, dtype=dt) * stddev) + mean

    return draw


def _truncated_draw(dt: np.dtype) -> Callable[..., Any]:
    """A stateless op's truncated normal values (``jax.random``'s, not TF's)."""

    def draw(key: Any, shape: tuple[int, ...], mean: Any, stddev: Any) -> Any:
        # Redrawn beyond two standard deviations: a normal conditioned on |z| < 2.
        z = jax.random.truncated_normal(key, -2.0, 2.0, shape, dtype=dt)
        return rounded(z * stddev) + mean

    return draw


def _stateless_philox(
    alg: Any, philox_draw: Callable[..., Any], jax_draw: Callable[..., Any]
) -> tuple[Callable[..., Any], Callable[[Any], Any] | None]:
    """A stateless op's ``(draw, as_key)``: TF's Philox V2 kernels for ``alg``
    ``"auto_select"``/``"philox"`` (TF's key and counter from the seed, then TF's
    values); ``jax.random`` (not TF's values) for ``"threefry"``."""
    name = getattr(alg, "name", alg)
    name = {1: "philox", 2: "threefry", 3: "auto_select"}.get(name, name)
    if str(name).lower() not in ("auto_select", "philox"):
        return jax_draw, None

    def draw(seed: Any, shape: tuple[int, ...], *values: Any) -> Any:
        key, counter = philox.stateless_key_counter(seed)
        return philox_draw(key, counter, shape, *values)

    return draw, _identity


def _philox_normal(dt: np.dtype, truncated: bool) -> Callable[..., Any]:
    """``RandomStandardNormal``/``TruncatedNormal`` then TF's ``rnd * stddev + mean``."""
    values = philox.truncated_normal if truncated else philox.normal

    def draw(key: Any, counter: Any, shape: tuple[int, ...], mean: Any, stddev: Any) -> Any:
        return rounded(values(key, counter, shape, dt) * stddev) + mean

    return draw


# -- the ops ----------------------------------------------------------------------------------


def random_uniform(
    shape: Any,
    minval: Any = 0,
    maxval: Any = None,
    dtype: Any = dtypes.float32,
    seed: int | None = None,
    name: str | None = None,
) -> ops.Tensor:
    """Uniform values in ``[minval, maxval)`` (``tf.random_uniform`` / ``tf.random.uniform``).

    Args:
      shape: the output shape (a list, tuple or 1-D integer tensor).
      minval: the lower bound (0).
      maxval: the upper bound, exclusive (None: 1 for floats; required for integers).
      dtype: float16, bfloat16, float32, float64, int32 or int64 (float32).
      seed: the op-level seed (see ``get_seed``).
      name: the op name (``"random_uniform"``).

    Returns:
      A tensor of ``shape`` and ``dtype``: floats are ``u * (maxval - minval) +
      minval`` for ``u`` uniform in ``[0, 1)`` (TF's arithmetic, and its
      gradients to ``minval``/``maxval``); integers are uniform in the range.

    Raises:
      ValueError: an integer dtype without ``maxval`` (TF's message).
      TypeError: a dtype TF does not allow.
    """
    dt = _uniform_dtype(dtype)
    integer = dt.kind in "iu"
    if maxval is None:
        if integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtypes.as_dtype(dt)!r}")
        maxval = 1
    # TF's Python: minval 0 and maxval 1 (ints) leave the raw values; minval 0 scales.
    minval_is_zero = type(minval) is int and minval == 0
    maxval_is_one = type(maxval) is int and maxval == 1
    form = "range"
    if minval_is_zero:
        form = "unit" if maxval_is_one else "scale"

    return _build(
        "RandomUniformInt" if integer else "RandomUniform",
        "random_uniform",
        name,
        seed,
        shape,
        dt,
        [("min", minval), ("max", maxval)],
        philox_draw("RandomUniformInt" if integer else "RandomUniform", dt, form),
        _UNIFORM_DTYPES,
        form=form,
    )


def random_normal(
    shape: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = dtypes.float32,
    seed: int | None = None,
    name: str | None = None,
) -> ops.Tensor:
    """Normal values (``tf.random_normal`` / ``tf.random.normal``).

    Args:
      shape: the output shape (a list, tuple or 1-D integer tensor).
      mean: the mean (0.0), a scalar or a tensor broadcasting to ``shape``.
      stddev: the standard deviation (1.0).
      dtype: float16, bfloat16, float32 or float64 (float32).
      seed: the op-level seed (see ``get_seed``).
      name: the op name (``"random_normal"``).

    Returns:
      ``z * stddev + mean`` for standard normal ``z`` (TF's arithmetic: gradients
      flow to ``mean`` and ``stddev``).
    """
    dt = np.dtype(dtypes.as_dtype(dtype).base_dtype.dtype)

    return _build(
        "RandomStandardNormal",
        "random_normal",
        name,
        seed,
        shape,
        dt,
        [("mean", mean), ("stddev", stddev)],
        philox_draw("RandomStandardNormal", dt),
        form="range",
    )


def truncated_normal(
    shape: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = dtypes.float32,
    seed: int | None = None,
    name: str | None = None,
) -> ops.Tensor:
    """Normal values cut at two standard deviations (``tf.truncated_normal``).

    Values beyond two standard deviations are redrawn (TF's definition): the
    result is ``z * stddev + mean`` with ``z`` standard normal conditioned on
    ``|z| < 2``.

    Args:
      shape: the output shape (a list, tuple or 1-D integer tensor).
      mean: the mean (0.0).
      stddev: the standard deviation before truncation (1.0).
      dtype: float16, bfloat16, float32 or float64 (float32).
      seed: the op-level seed (see ``get_seed``).
      name: the op name (``"truncated_normal"``).
    """
    dt = np.dtype(dtypes.as_dtype(dtype).base_dtype.dtype)

    return _build(
        "TruncatedNormal",
        "truncated_normal",
        name,
        seed,
        shape,
        dt,
        [("mean", mean), ("stddev", stddev)],
        philox_draw("TruncatedNormal", dt),
        form="range",
    )


def _stream_op(
    op_type: str,
    name: str,
    seeds: tuple[int | None, int | None],
    tensor: ops.Tensor,
    output_spec: tuple[Any, Any],
    calls: Callable[[tuple[int, ...]], int],
    draw: Callable[[Any, Any, Any, Any], Any],
) -> ops.Tensor:
    """A stateful Philox op of one input whose reservation depends on the input's shape.

    TF's ``GuardedPhiloxRandom`` as in :func:`philox_node`: key ``(seed, 0)``, counter
    ``(position, seed2)``; each run moves the position on by ``calls(input shape)``.

    Args:
      op_type: TF's op type (``"RandomShuffle"``, ``"Multinomial"``).
      name: the node's name (as ``random_node``'s).
      seeds: the op's seeds (``get_seed`` of its ``seed=`` argument).
      tensor: the input.
      output_spec: ``(static shape, dtype)``.
      calls: the generator calls one run reserves for an input of that shape.
      draw: ``draw(ctx, key, counter, value) -> output``.
    """
    graph = tensor.graph
    shape = tensor._shape
    static = shape is not None and all(d is not None for d in shape)

    def reserved(ctx: Any, *values: Any) -> int:
        return calls(tuple(shape) if static else tuple(values[0].shape))

    position = _generator_node(graph, seeds, reserved, [] if static else [tensor])
    key, base = philox.seeded(seeds[0] or 0, seeds[1] or 0)
    key_words, base_words = np.asarray(key), np.asarray(base)

    def compute(ctx: Any, pos: Any, value: Any) -> tuple[Any]:
        counter = philox.skip(jnp.asarray(base_words), pos)
        return (draw(ctx, jnp.asarray(key_words), counter, value),)

    op = graph.create_op(
        op_type,
        name or op_type,
        inputs=[position, tensor],
        compute=compute,
        output_specs=[output_spec],
    )
    return op.outputs[0]


def _shuffled(shape: tuple[int, ...]) -> bool:
    """Whether TF's ``RandomShuffle`` shuffles (and draws for) a value of ``shape``."""
    return len(shape) > 0 and shape[0] > 1 and int(np.prod(shape, dtype=np.int64)) > 1


def random_shuffle(value: Any, seed: int | None = None, name: str | None = None) -> ops.Tensor:
    """``value`` with its first dimension shuffled (``tf.random_shuffle`` / ``tf.random.shuffle``).

    TF's order, run after run: TF's ``RandomShuffle`` kernel (a Fisher-Yates shuffle
    reading one 32-bit word of TF's Philox stream per swap,
    ``jtrain.random.philox.shuffle_permutation``); each run moves the op's counter on
    by ``ceil((n - 1) / 4)`` calls (``ReserveSamples32``), none when there is nothing
    to shuffle (``n <= 1`` rows or at most one element).

    Args:
      value: a tensor of any dtype (a scalar comes back unchanged).
      seed: the op-level seed (see ``get_seed``).
      name: the op name (``"RandomShuffle"``).

    Returns:
      A tensor of ``value``'s shape and dtype.

    TF registers no gradient for it: no gradient flows through (``tf.gradients``
    gives zeros where TF gives ``None``).
    """
    value = ops.convert_to_tensor(value, name="value")

    def calls(shape: tuple[int, ...]) -> int:
        return -(-(shape[0] - 1) // 4) if _shuffled(shape) else 0

    def draw(ctx: Any, key: Any, counter: Any, v: Any) -> Any:
        if not _shuffled(tuple(v.shape)):
            return v
        perm = philox.shuffle_permutation(key, counter, int(v.shape[0]))
        return jax.lax.stop_gradient(jnp.take(v, perm, axis=0))

    return _stream_op(
        "RandomShuffle", name or "", get_seed(seed), value, (value._shape, value.dtype), calls, draw
    )


def random_crop(value: Any, size: Any, seed: int | None = None, name: str | None = None):
    """A random ``size`` slice of ``value`` (``tf.random_crop``, ``tf.image.random_crop``).

    Every offset ``0 <= offset[i] <= shape[i] - size[i]`` is equally likely; the
    gradient flows to the cropped elements of ``value`` (TF's slice).

    Args:
      value: the tensor to crop.
      size: the crop's shape, one entry per dimension of ``value`` (a list or an
        integer tensor known when the step is compiled).
      seed: the op-level seed (see ``get_seed``).
      name: the name scope (``"random_crop"``).

    Raises:
      ValueError: ``size`` does not have one entry per dimension.
      InvalidArgumentError (when run): ``size`` exceeds ``value``'s shape (TF's
        "Need value.shape >= size").
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "random_crop") as scope:
        value = ops.convert_to_tensor(value, name="value")
        dims, size_tensor = shape_argument(size, "size")
        rank = value._shape
        if rank is not None and len(rank) != len(dims):
            raise ValueError(
                f"Dimension 0 in both shapes must be equal, but are {len(rank)} and "
                f"{len(dims)}. Shapes are [{len(rank)}] and [{len(dims)}]."
            )
        dynamic = size_tensor is not None

        def sample(key: Any, *values: Any) -> Any:
            if dynamic:
                crop, v = tuple(int(d) for d in values[0]), values[1]
            else:
                crop, v = dims, values[0]
            if any(c > s for c, s in zip(crop, v.shape, strict=True)):
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"assertion failed: [Need value.shape >= size, got ] "
                    f"[{' '.join(map(str, v.shape))}] [{' '.join(map(str, crop))}]",
                )
            limits = np.asarray([s - c + 1 for c, s in zip(crop, v.shape, strict=True)])
            offsets = jax.random.randint(key, (len(crop),), 0, limits.astype(np.int32))
            return jax.lax.dynamic_slice(v, tuple(offsets), crop)

        inputs = ([size_tensor] if dynamic else []) + [value]
        (out,) = random_node(
            "RandomCrop",
            sample,
            inputs,
            [(dims, value.dtype)],
            seed,
            scope,
            (0,) if dynamic else (),
        )
    return out


def _categorical(logits: Any, num_samples: Any, dtype: Any, seed: Any) -> ops.Tensor:
    """The ``Multinomial`` node of ``multinomial``/``categorical``: TF's draws.

    TF's CPU kernel (one shard, see :func:`multinomial`): each run reads float64
    uniforms from the op's Philox stream and moves its counter on by
    ``256 * batch * 2 * ceil4(num_samples)`` calls (none for an empty output).
    """
    from adapters.v1.ops.stateless_random_ops import multinomial_samples

    logits = ops.convert_to_tensor(logits, name="logits")
    dt = dtypes.as_dtype(dtype) if dtype else dtypes.int64
    if dt.name not in ("int32", "int64"):
        raise ValueError(
            f"Argument `dtype` got invalid value {dt}. Accepted dtypes are (tf.int32, tf.int64)."
        )
    if logits._shape is not None and len(logits._shape) != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {len(logits._shape)}")
    if isinstance(num_samples, ops.Tensor) or hasattr(num_samples, "_as_graph_tensor"):
        const = ops.convert_to_tensor(num_samples).op._const_value
        if const is None:
            raise NotImplementedError(
                "num_samples must be known when the graph is built (a Python int or a "
                "constant): jtrain compiles static shapes"
            )
        num_samples = int(const)
    num = int(num_samples)
    if num < 0:  # TF's shape function
        raise ValueError(
            f"Dimension size, given by scalar input 1, must be non-negative but is {num}"
        )
    batch = None if logits._shape is None else logits._shape[0]
    out_dtype = np.dtype(dt.dtype)
    seeds = get_seed(seed)

    def calls(shape: tuple[int, ...]) -> int:
        if num <= 0 or shape[0] == 0:
            return 0
        # TF: ReserveRandomOutputs(batch * ceil4(num_samples) * 2, 256) (two words a double)
        return shape[0] * (-(-num // 4) * 4) * 2 * philox.RESERVED_SAMPLES_PER_OUTPUT

    def draw(ctx: Any, key: Any, counter: Any, lg: Any) -> Any:
        if np.dtype(lg.dtype).name not in ("float16", "bfloat16", "float32", "float64"):
            kind = dtypes.as_dtype(lg.dtype).name.upper()
            raise errors.InvalidArgumentError(
                None,
                ctx.op,
                "No OpKernel was registered to support Op 'Multinomial' used by "
                f"{{{{node {ctx.op.name}}}}} with these attrs: [seed2={seeds[1] or 0}, "
                f"output_dtype=DT_{dt.name.upper()}, seed={seeds[0] or 0}, T=DT_{kind}]",
            )
        if lg.shape[1] == 0:
            raise errors.InvalidArgumentError(None, ctx.op, "num_classes should be positive, got 0")
        lg = jax.lax.stop_gradient(lg)
        if lg.dtype == jnp.bfloat16:
            # Exact in float32 (the kernel works in float64; the max is over finite logits).
            lg = lg.astype(jnp.float32)
        return multinomial_samples(key, counter, lg, num, out_dtype)

    return _stream_op("Multinomial", "", seeds, logits, ((batch, num), dt), calls, draw)


def multinomial(
    logits: Any,
    num_samples: Any,
    seed: int | None = None,
    name: str | None = None,
    output_dtype: Any = None,
) -> ops.Tensor:
    """Draws class indices from ``logits`` (``tf.multinomial``, deprecated in TF).

    Args:
      logits: ``[batch_size, num_classes]`` unnormalized log-probabilities.
      num_samples: draws per row (a Python int or a constant).
      seed: the op-level seed (see ``get_seed``).
      name: the name scope (``"multinomial"``).
      output_dtype: int32 or int64 (None: int64).

    Returns:
      ``[batch_size, num_samples]`` indices (no gradient, as TF): TF's draws, run after
      run. Each row's CDF ``cumsum(exp(logit - max))`` is summed in float64 over its
      finite logits (``-inf``/``nan`` classes are never drawn; a row with none gives
      ``num_classes``, as TF), each sample a float64 uniform from the op's Philox
      stream. TF splits large draws (about ``50 * batch * (num_samples *
      log2(num_classes) + num_classes) > 2.1e5``) across its threads, and its values
      then depend on the machine; jtrain gives TF's one-thread values.

    Raises:
      ValueError: ``output_dtype`` is not int32/int64, ``logits`` is not rank 2, or
        ``num_samples < 0`` (TF's messages).
      InvalidArgumentError (when run): no classes, or logits of a type TF has no
        kernel for (not float16, bfloat16, float32 or float64).
    """
    with ops.get_default_graph().name_scope(name or "multinomial"):
        return _categorical(logits, num_samples, output_dtype, seed)


def categorical(
    logits: Any,
    num_samples: Any,
    dtype: Any = None,
    seed: int | None = None,
    name: str | None = None,
) -> ops.Tensor:
    """Draws class indices from ``logits`` (``tf.random.categorical``); see ``multinomial``."""
    with ops.get_default_graph().name_scope(name or "categorical"):
        return _categorical(logits, num_samples, dtype, seed)


def random_gamma(
    shape: Any,
    alpha: Any,
    beta: Any = None,
    dtype: Any = dtypes.float32,
    seed: int | None = None,
    name: str | None = None,
) -> ops.Tensor:
    """Gamma samples (``tf.random_gamma`` / ``tf.random.gamma``).

    Args:
      shape: the shape of draws per distribution (a list or integer tensor).
      alpha: the shape parameter (concentration), broadcast with ``beta``.
      beta: the inverse scale (None: 1).
      dtype: float16, float32 or float64 (float32).
      seed: the op-level seed (see ``get_seed``).
      name: the name scope (``"random_gamma"``).

    Returns:
      ``shape + broadcast(alpha, beta).shape`` samples, ``max(tiny, g / beta)`` as
      TF; the gradient to ``alpha`` is the implicit reparameterization gradient
      (TF registers one too) and flows through ``/ beta``.
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "random_gamma"):
        dims, shape_tensor = shape_argument(shape)
        dt = np.dtype(dtypes.as_dtype(dtype).base_dtype.dtype)
        alpha_t = _scalar_input(alpha, dt, "alpha")
        beta_t = _scalar_input(1 if beta is None else beta, dt, "beta")
        _check_dtype(dt, ("float16", "float32", "float64"), "T")
        batch = _broadcast_static(alpha_t._shape, beta_t._shape)
        dynamic = shape_tensor is not None
        tiny = np.finfo(dt).tiny

        def sample(key: Any, *values: Any) -> Any:
            if dynamic:
                draw_shape, values = tuple(int(d) for d in values[0]), values[1:]
            else:
                draw_shape = dims
            a, b = values
            a = jnp.broadcast_to(a, jnp.broadcast_shapes(a.shape, b.shape))
            g = jax.random.gamma(key, a, draw_shape + a.shape, dtype=dt)
            return jnp.maximum(jnp.asarray(tiny, dt), g / b)

        inputs = ([shape_tensor] if dynamic else []) + [alpha_t, beta_t]
        specs = [(None if batch is None else dims + batch, dtypes.as_dtype(dt))]
        (out,) = random_node(
            "RandomGamma", sample, inputs, specs, seed, "", (0,) if dynamic else ()
        )
    return out


def random_poisson(
    lam: Any,
    shape: Any,
    dtype: Any = dtypes.float32,
    seed: int | None = None,
    name: str | None = None,
) -> ops.Tensor:
    """Poisson samples (``tf.random_poisson`` / ``tf.random.poisson``; v1 argument order).

    Args:
      lam: the rates (a float or integer tensor).
      shape: the shape of draws per rate.
      dtype: float16, float32, float64, int32 or int64 (float32).
      seed: the op-level seed (see ``get_seed``).
      name: the name scope (``"random_poisson"``).

    Returns:
      ``shape + lam.shape`` counts in ``dtype``.

    .. note:: TF registers no gradient for ``RandomPoissonV2``: ``tf.gradients`` from a
       draw to ``lam`` raises ``LookupError`` when the graph is built, as in TF (the
       op type is among ``_no_gradient.UNREGISTERED``).
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "random_poisson"):
        dims, shape_tensor = shape_argument(shape)
        lam_t = ops.convert_to_tensor(lam, name="lam")
        out = dtypes.as_dtype(dtype).base_dtype
        _check_dtype(out.dtype, ("float16", "float32", "float64", "int32", "int64"))
        _check_dtype(lam_t._np_dtype, ("float16", "float32", "float64", "int32", "int64"), "R")
        dynamic = shape_tensor is not None
        out_np = np.dtype(out.dtype)

        def sample(key: Any, *values: Any) -> Any:
            if dynamic:
                draw_shape, values = tuple(int(d) for d in values[0]), values[1:]
            else:
                draw_shape = dims
            (rate,) = values
            rate = jax.lax.stop_gradient(rate).astype(jnp.promote_types(rate.dtype, jnp.float32))
            counts = jax.random.poisson(key, rate, draw_shape + rate.shape, dtype=jnp.int64)
            return counts.astype(out_np)

        inputs = ([shape_tensor] if dynamic else []) + [lam_t]
        lam_shape = lam_t._shape
        specs = [(None if lam_shape is None else dims + lam_shape, out)]
        (result,) = random_node(
            "RandomPoissonV2", sample, inputs, specs, seed, "", (0,) if dynamic else ()
        )
    return result


def _broadcast_static(a: Any, b: Any) -> tuple[int | None, ...] | None:
    if a is None or b is None:
        return None
    rank = max(len(a), len(b))
    a = (1,) * (rank - len(a)) + tuple(a)
    b = (1,) * (rank - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b, strict=True):
        if x == 1:
            out.append(y)
        elif y == 1 or y == x:
            out.append(x)
        elif x is None or y is None:
            out.append(x if y is None else y)
        else:
            raise ValueError(f"Incompatible shapes for broadcasting: {list(a)} and {list(b)}")
    return tuple(out)


# -- stateless ops: pure functions of a seed tensor -------------------------------------------


def stateless_random_uniform(
    shape: Any,
    seed: Any,
    minval: Any = 0,
    maxval: Any = None,
    dtype: Any = dtypes.float32,
    name: str | None = None,
    alg: str = "auto_select",
) -> ops.Tensor:
    """``random_uniform`` as a pure function of ``seed`` (``tf.random.stateless_uniform``).

    The same ``seed`` (an int32/int64 tensor of shape [2]) gives the same values;
    with ``alg`` ``"auto_select"`` or ``"philox"`` the values are TF's (its key and
    counter from the seed, then its Philox draws); with ``"threefry"`` they are
    ``jax.random``'s, not TF's.
    """
    dt = _uniform_dtype(dtype)
    integer = dt.kind in "iu"
    if maxval is None:
        if integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtypes.as_dtype(dt)!r}")
        maxval = 1
    draw, as_key = _stateless_philox(alg, _philox_uniform(dt), _uniform_draw(dt))
    return _build(
        "StatelessRandomUniformIntV2" if integer else "StatelessRandomUniformV2",
        "stateless_random_uniform",
        name,
        seed,
        shape,
        dt,
        [("min", minval), ("max", maxval)],
        draw,
        _UNIFORM_DTYPES,
        stateless=True,
        as_key=as_key,
    )


def stateless_random_normal(
    shape: Any,
    seed: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = dtypes.float32,
    name: str | None = None,
    alg: str = "auto_select",
) -> ops.Tensor:
    """``random_normal`` as a pure function of ``seed`` (``tf.random.stateless_normal``).

    ``alg`` ``"auto_select"``/``"philox"``: TF's values (normal draws as the stateful
    op's, see ``jtrain/random/philox.py``); ``"threefry"``: ``jax.random``'s.
    """
    dt = np.dtype(dtypes.as_dtype(dtype).base_dtype.dtype)
    draw, as_key = _stateless_philox(alg, _philox_normal(dt, truncated=False), _normal_draw(dt))
    return _build(
        "StatelessRandomNormalV2",
        "stateless_random_normal",
        name,
        seed,
        shape,
        dt,
        [("mean", mean), ("stddev", stddev)],
        draw,
        stateless=True,
        as_key=as_key,
    )


def stateless_truncated_normal(
    shape: Any,
    seed: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = dtypes.float32,
    name: str | None = None,
    alg: str = "auto_select",
) -> ops.Tensor:
    """``truncated_normal`` as a pure function of ``seed``.

    ``tf.random.stateless_truncated_normal``.
    ``alg`` ``"auto_select"``/``"philox"``: TF's values (normal draws as the stateful
    op's, see ``jtrain/random/philox.py``); ``"threefry"``: ``jax.random``'s.
    """
    dt = np.dtype(dtypes.as_dtype(dtype).base_dtype.dtype)
    draw, as_key = _stateless_philox(alg, _philox_normal(dt, truncated=True), _truncated_draw(dt))
    return _build(
        "StatelessTruncatedNormalV2",
        "stateless_truncated_normal",
        name,
        seed,
        shape,
        dt,
        [("mean", mean), ("stddev", stddev)],
        draw,
        stateless=True,
        as_key=as_key,
    )
