"""What every jtrain optimizer shares: hyperparameters, validation, the per-leaf driver.

An optimizer module defines a state ``NamedTuple`` whose fields are TF's slot
names (each a tree shaped like the parameters) and non-slot variables, and one
*leaf rule* ``rule(g, p, *slots) -> (delta, *new_slots)`` where ``g`` is either a
dense gradient or a deduplicated ``IndexedSlices`` (see
``jtrain.indexed_slices.deduplicate``). ``delta`` is the dense change to the
parameter, so ``optax.apply_updates(params, updates)`` gives TF's new value:
a rule that computes TF's ``var -= x`` returns ``-x`` (``p + (-x)`` is bit-equal
to ``p - x``).

An optimizer whose TF kernel *assigns* the variable (``var = ...``: Ftrl, the
proximal optimizers, AdagradDA) has an *assigning rule* instead, returning the
new value (a dense array, or :class:`Rows` for a sparse gradient), and is built
with :func:`assigning`: its ``update`` is ``new - var`` (an optax update, which
``optax.apply_updates`` adds back up to one rounding) and its ``assign`` gives
the new value itself, TF's bits.
"""

from __future__ import annotations

from collections.abc import Callable
from numbers import Real
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax

from jtrain import _tree
from jtrain.indexed_slices import IndexedSlices, deduplicate, scatter_rows, sparse_delta

Schedule = Callable[[jax.Array], Any]
ScalarOrSchedule = float | jax.Array | Schedule

NO_PARAMS_MSG = (
    "{name} needs the current parameters: call update(grads, state, params) "
    "(TF's {tf_name} reads the variable in its update)."
)


def hparam(value: ScalarOrSchedule, count: jax.Array, dtype: Any) -> jax.Array:
    """The value of a hyperparameter at update ``count``, cast to ``dtype`` as TF casts
    ``learning_rate`` to each variable's dtype. ``value`` is a number, an array, or a
    schedule ``step -> value``."""
    if callable(value):
        value = value(count)
    return jnp.asarray(value).astype(dtype)


def check_learning_rate(name: str, value: Any) -> None:
    """Fails fast on a learning rate that is neither a number, an array nor a schedule."""
    if callable(value) or isinstance(value, Real) or hasattr(value, "dtype"):
        return
    raise ValueError(f"{name} must be a number or a schedule step -> value, got {value!r}")


def check(name: str, value: Any, ok: Callable[[float], bool], requirement: str) -> None:
    """Raises ``ValueError("{name} {requirement}, got {value}")`` unless ``ok(value)``.

    Schedules and traced values are not checked (TF checks only Python numbers at
    construction too).
    """
    if callable(value) or isinstance(value, jax.core.Tracer):
        return
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if not ok(number):
        raise ValueError(f"{name} {requirement}, got {value!r}")


def init_count() -> jax.Array:
    """The update counter: TF's global step as ``minimize(global_step=...)`` advances it."""
    return jnp.zeros([], jnp.int32)


def next_count(count: jax.Array) -> jax.Array:
    """``count + 1``, saturating instead of wrapping past int32's maximum."""
    return jnp.where(count < jnp.iinfo(jnp.int32).max, count + 1, count)


def apply_rule(
    rule: Callable[..., tuple[Any, ...]],
    grads: Any,
    params: Any,
    *slots: Any,
    dedupe: bool = True,
) -> tuple[Any, ...]:
    """Applies ``rule(g, p, *slot_leaves)`` leaf by leaf; returns ``(deltas, *new_slots)``.

    Checks first that ``grads`` matches ``params`` (tree, shapes, dtypes), naming
    the leaf that does not. ``IndexedSlices`` gradients reach the rule
    deduplicated (duplicate indices summed) unless ``dedupe`` is False.
    """
    _tree.check_grads_match(grads, params)

    def leaf(g, p, *s):
        if isinstance(g, IndexedSlices) and dedupe:
            g = deduplicate(g)
        out = rule(g, p, *s)
        if len(out) != 1 + len(s):
            raise AssertionError(f"rule returned {len(out)} values for {len(s)} slots")
        return tuple(out)

    out = _tree.map_leaves(leaf, grads, params, *slots)
    return _tree.unzip(grads, out, 1 + len(slots))


def in_double(fn: Callable[..., jax.Array], dtype: Any, *args: Any) -> jax.Array:
    """``fn(*args)`` in float64, rounded to ``dtype``: the C++ ``double`` arithmetic of
    TF's scalar kernel loops (a ``1.0`` literal or a ``double`` local makes the rest of
    an expression double, then the assignment rounds it to the variable's type).

    Every argument is cast to float64 (an integer step exactly), whatever
    ``jax_enable_x64`` says. On a backend without float64 (TPU) ``fn`` runs on the
    arguments as they are.
    """
    if jax.default_backend() not in ("cpu", "gpu"):
        return jnp.asarray(fn(*args)).astype(dtype)
    with jax.enable_x64(True):
        wide = [jnp.asarray(a).astype(jnp.float64) for a in args]
        return jnp.asarray(fn(*wide)).astype(dtype)


def opaque(x: jax.Array) -> jax.Array:
    """``x``, its definition hidden from XLA's algebraic rewrites of what uses it.

    A kernel's ``a / (b / lr)`` is two divisions in TF; XLA rewrites it to
    ``(a * lr) / b`` (measured: float64 Ftrl and AdagradDA 1 ulp off TF's under
    ``jax.jit``). Used on a divisor that is itself a quotient.
    """
    return jax.lax.optimization_barrier(x)


def zeros_like_tree(params: Any) -> Any:
    """A slot initialised to zeros (TF's ``_zeros_slot``)."""
    return jax.tree.map(jnp.zeros_like, params)


def full_like_tree(params: Any, value: float) -> Any:
    """A slot initialised to a constant (TF's ``constant_initializer(value)`` slots)."""
    return jax.tree.map(lambda p: jnp.full_like(p, value), params)


def non_slot(params: Any, value: float) -> jax.Array:
    """A scalar non-slot variable (``beta1_power``...), with the dtype of the first
    parameter as TF's ``_create_non_slot_variable`` colocates it with the first var."""
    first = _tree.first_leaf(params)
    return jnp.asarray(value, dtype=jnp.result_type(first))


def grads_like_params(grads: Any) -> Any:
    """Shape-and-dtype stand-ins for the parameters when ``params`` is not given."""
    return jax.tree.map(
        lambda g: jax.ShapeDtypeStruct(g.shape, g.dtype),
        grads,
        is_leaf=lambda x: isinstance(x, IndexedSlices),
    )


class Rows(NamedTuple):
    """What an assigning rule returns for a sparse gradient: the parameter with
    ``rows`` written at ``indices`` (``deduplicate``'s: unique, padding dropped),
    its other rows unchanged.

    Attributes:
      indices: the rows written.
      rows: their new values.
      old: their previous values (``gather_rows(param, indices)``), from which
        the optax update ``rows - old`` is built.
    """

    indices: jax.Array
    rows: jax.Array
    old: jax.Array


class AssigningTransformation(optax.GradientTransformation):
    """An ``optax.GradientTransformation`` of an optimizer whose TF kernel assigns
    the variable (``var = new``), with ``assign`` giving that new value.

    ``init`` and ``update`` are optax's: ``update(grads, state, params)`` returns
    ``(new - params, new_state)``, and ``optax.apply_updates`` adds the difference
    back, which can round ``new`` by up to half an ulp of the old value (exact
    zeros stay exact). ``assign(grads, state, params)`` returns ``(new, new_state)``
    with ``new`` TF's value bit for bit; :func:`jtrain.optimizers.apply_gradients`
    calls it. It is a tuple ``(init, update)``, so optax's combinators take it (a
    chain of it gives deltas only).
    """

    assign: Callable[[Any, Any, Any], tuple[Any, Any]]

    def __new__(
        cls,
        init: optax.TransformInitFn,
        update: optax.TransformUpdateFn,
        assign: Callable[[Any, Any, Any], tuple[Any, Any]],
    ) -> AssigningTransformation:
        self = super().__new__(cls, init, update)
        self.assign = assign
        return self

    def __getnewargs__(self) -> tuple[Any, ...]:
        return (self.init, self.update, self.assign)


def assigning(
    init_fn: optax.TransformInitFn,
    step_fn: Callable[[Any, Any, Any, bool], tuple[Any, Any]],
) -> AssigningTransformation:
    """The :class:`AssigningTransformation` of ``step_fn(grads, state, params,
    assign)``, which returns the new parameters (``assign`` True) or ``new - params``
    (False) and the new state: one computation for both, so the two agree."""

    def update_fn(grads, state, params=None):
        return step_fn(grads, state, params, False)

    def assign_fn(grads, state, params):
        return step_fn(grads, state, params, True)

    return AssigningTransformation(init_fn, update_fn, assign_fn)


def apply_assigning_rule(
    rule: Callable[..., tuple[Any, ...]],
    assign: bool,
    grads: Any,
    params: Any,
    *slots: Any,
) -> tuple[Any, ...]:
    """:func:`apply_rule` for an assigning rule ``rule(g, p, *slots) -> (new, *new_slots)``
    (``new`` a dense array or :class:`Rows`): ``(new_params, *new_slots)`` when
    ``assign``, else ``(updates, *new_slots)`` with ``updates = new - params``."""

    def leaf(g, p, *s):
        new, *new_slots = rule(g, p, *s)
        if isinstance(new, Rows):
            if assign:
                new = scatter_rows(p, new.indices, new.rows)
            else:
                new = sparse_delta(p, new.indices, new.rows - new.old)
        elif not assign:
            new = new - p
        return (new, *new_slots)

    return apply_rule(leaf, grads, params, *slots)


def apply_gradients(
    transformation: optax.GradientTransformation, grads: Any, state: Any, params: Any
) -> tuple[Any, Any]:
    """One optimizer step: ``(new_params, new_state)`` for ``grads``.

    For an :class:`AssigningTransformation` (``ftrl``, ``proximal_adagrad``,
    ``proximal_gradient_descent``, ``adagrad_da``) the new parameters are its
    ``assign``'s, TF's values bit for bit; for any other transformation they are
    ``optax.apply_updates(params, updates)``, the sum TF's decrementing kernels
    compute.

    Args:
      transformation: an ``optax.GradientTransformation``.
      grads: the gradients, a tree of ``params``'s structure (``IndexedSlices``
        leaves allowed where the transformation takes them).
      state: the transformation's state.
      params: the current parameters.

    Returns:
      ``(new_params, new_state)``.
    """
    if isinstance(transformation, AssigningTransformation):
        return transformation.assign(grads, state, params)
    updates, new_state = transformation.update(grads, state, params)
    return optax.apply_updates(params, updates), new_state
