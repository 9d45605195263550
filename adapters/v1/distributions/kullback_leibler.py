"""``tf.distributions.kl_divergence`` and ``RegisterKL``: KL divergences by class pair.

A function registered for ``(A, B)`` serves subclasses too: the pair nearest in
both classes' method resolution orders wins, as TF looks it up.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from adapters.v1.distributions.util import op
from adapters.v1.framework import ops
from adapters.v1.ops.array_ops import identity
from adapters.v1.ops.control_flow_ops import Assert

__all__ = ["RegisterKL", "kl_divergence", "cross_entropy"]

_DIVERGENCES: dict[tuple[type, type], Callable[..., Any]] = {}


def _registered_kl(type_a: type, type_b: type) -> Callable[..., Any] | None:
    best, best_distance = None, None
    for i, parent_a in enumerate(type_a.__mro__):
        for j, parent_b in enumerate(type_b.__mro__):
            candidate = _DIVERGENCES.get((parent_a, parent_b))
            if candidate is not None and (best_distance is None or i + j < best_distance):
                best, best_distance = candidate, i + j
    return best


def kl_divergence(
    distribution_a: Any, distribution_b: Any, allow_nan_stats: bool = True, name: str | None = None
) -> ops.Tensor:
    """``KL(distribution_a || distribution_b)`` per batch member.

    Args:
      distribution_a: the first distribution.
      distribution_b: the second distribution.
      allow_nan_stats: ``True`` (default): NaN values are returned; ``False``: a run
        whose result holds a NaN fails with ``InvalidArgumentError``.
      name: the name scope of the registered function's ops.

    Returns:
      A tensor of the batch shape.

    Raises:
      NotImplementedError: no function is registered for the pair (TF's message).
    """
    kl_fn = _registered_kl(type(distribution_a), type(distribution_b))
    if kl_fn is None:
        raise NotImplementedError(
            "No KL(distribution_a || distribution_b) registered for distribution_a type "
            f"{type(distribution_a).__name__} and distribution_b type "
            f"{type(distribution_b).__name__}"
        )
    with ops.name_scope("KullbackLeibler"):
        kl_t = kl_fn(distribution_a, distribution_b, name=name)
        if allow_nan_stats:
            return kl_t
        kl_t = identity(kl_t, name="kl")
        ok = op("logical_not")(op("reduce_any")(op("is_nan")(kl_t)))
        message = (
            f"KL calculation between {distribution_a.name} and {distribution_b.name} returned "
            "NaN values (and was called with allow_nan_stats=False). Values:"
        )
        with ops.control_dependencies([Assert(ok, [message, kl_t])]):
            return identity(kl_t, name="checked_kl")


def cross_entropy(
    ref: Any, other: Any, allow_nan_stats: bool = True, name: str | None = None
) -> ops.Tensor:
    """``entropy(ref) + KL(ref || other)``."""
    with ops.name_scope(name, "cross_entropy"):
        return ref.entropy() + kl_divergence(ref, other, allow_nan_stats=allow_nan_stats)


class RegisterKL:
    """Decorator registering ``kl_fn(a, b, name=None)`` for a pair of classes.

    Args:
      dist_cls_a: the class of the first distribution.
      dist_cls_b: the class of the second distribution.
    """

    def __init__(self, dist_cls_a: type, dist_cls_b: type) -> None:
        self._key = (dist_cls_a, dist_cls_b)

    def __call__(self, kl_fn: Callable[..., Any]) -> Callable[..., Any]:
        """Registers ``kl_fn`` and returns it.

        Raises:
          TypeError: ``kl_fn`` is not callable.
          ValueError: the pair is registered already (TF's message).
        """
        if not callable(kl_fn):
            raise TypeError(f"kl_fn must be callable, received: {kl_fn}")
        if self._key in _DIVERGENCES:
            raise ValueError(
                f"KL({self._key[0].__name__} || {self._key[1].__name__}) has already been "
                f"registered to: {_DIVERGENCES[self._key]}"
            )
        _DIVERGENCES[self._key] = kl_fn
        return kl_fn
