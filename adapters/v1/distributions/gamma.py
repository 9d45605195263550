"""``tf.distributions.Gamma``: the gamma distribution with ``concentration`` (shape)
and ``rate`` (inverse scale).

``log_prob(x) = xlogy(c - 1, x) - rate * x - (lgamma(c) - c * log(rate))``,
``cdf = igamma(c, rate * x)``, ``entropy = c - log(rate) + lgamma(c) + (1 - c) *
digamma(c)``, ``mode = (c - 1) / rate`` where ``c > 1`` (NaN otherwise, or a run-time
error with ``allow_nan_stats=False``); samples by ``tf.random_gamma`` (implicitly
reparameterized). The registered ``KL(Gamma || Gamma)`` is TF's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1.distributions import distribution, kullback_leibler
from adapters.v1.distributions.util import assert_same_float_dtype, folded, op
from adapters.v1.framework import ops
from adapters.v1.framework.tensor_shape import TensorShape
from adapters.v1.ops import check_ops, random_ops
from adapters.v1.ops.array_ops import broadcast_static_shape, identity
from adapters.v1.ops.control_flow_ops import with_dependencies

__all__ = ["Gamma"]


class Gamma(distribution.Distribution):
    """Gamma distributions (``tf.compat.v1.distributions.Gamma``).

    Args:
      concentration: floating tensor, the shapes (positive).
      rate: floating tensor of the same dtype, the inverse scales (positive).
      validate_args: ``False``; ``True`` adds TF's run-time checks (positive
        parameters, positive ``cdf``/``log_prob`` arguments).
      allow_nan_stats: ``True``: ``mode`` is NaN where ``concentration <= 1``;
        ``False``: such a ``mode`` fails the run (``InvalidArgumentError``).
      name: ``"Gamma"``.

    Raises:
      ValueError: parameters of different or non-floating dtypes.
    """

    def __init__(
        self,
        concentration: Any,
        rate: Any,
        validate_args: bool = False,
        allow_nan_stats: bool = True,
        name: str = "Gamma",
    ) -> None:
        parameters = dict(locals())
        with ops.name_scope(name, None, [concentration, rate]) as name:
            deps = (
                [check_ops.assert_positive(concentration), check_ops.assert_positive(rate)]
                if validate_args
                else []
            )
            with ops.control_dependencies(deps):
                self._concentration = identity(concentration, name="concentration")
                self._rate = identity(rate, name="rate")
                assert_same_float_dtype([self._concentration, self._rate])
        super().__init__(
            dtype=self._concentration.dtype,
            validate_args=validate_args,
            allow_nan_stats=allow_nan_stats,
            reparameterization_type=distribution.FULLY_REPARAMETERIZED,
            parameters=parameters,
            graph_parents=[self._concentration, self._rate],
            name=name,
        )

    @property
    def concentration(self) -> ops.Tensor:
        """The shape parameters."""
        return self._concentration

    @property
    def rate(self) -> ops.Tensor:
        """The inverse scales."""
        return self._rate

    def _batch_shape_tensor(self) -> ops.Tensor:
        return op("broadcast_dynamic_shape")(
            op("shape")(self.concentration), op("shape")(self.rate)
        )

    def _batch_shape(self) -> TensorShape:
        return broadcast_static_shape(self.concentration.get_shape(), self.rate.get_shape())

    def _event_shape_tensor(self) -> ops.Tensor:
        return ops.convert_to_tensor(np.zeros([0], np.int32))

    def _event_shape(self) -> TensorShape:
        return TensorShape([])

    def _sample_n(self, n: Any, seed: int | None = None) -> ops.Tensor:
        return random_ops.random_gamma(
            shape=[n], alpha=self.concentration, beta=self.rate, dtype=self.dtype, seed=seed
        )

    def _log_prob(self, x: ops.Tensor) -> ops.Tensor:
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _cdf(self, x: ops.Tensor) -> ops.Tensor:
        x = self._maybe_assert_valid_sample(x)
        return op("math.igamma")(self.concentration, self.rate * x)

    def _log_unnormalized_prob(self, x: ops.Tensor) -> ops.Tensor:
        x = self._maybe_assert_valid_sample(x)
        return op("math.xlogy")(self.concentration - 1.0, x) - self.rate * x

    def _log_normalization(self) -> ops.Tensor:
        return op("lgamma")(self.concentration) - self.concentration * op("log")(self.rate)

    def _entropy(self) -> ops.Tensor:
        c = self.concentration
        one: Any = 1.0
        return c - op("log")(self.rate) + op("lgamma")(c) + (one - c) * op("digamma")(c)

    def _mean(self) -> ops.Tensor:
        return self.concentration / self.rate

    def _variance(self) -> ops.Tensor:
        return self.concentration / op("square")(self.rate)

    def _stddev(self) -> ops.Tensor:
        return op("sqrt")(self.concentration) / self.rate

    def _mode(self) -> ops.Tensor:
        mode = (self.concentration - 1.0) / self.rate
        if self.allow_nan_stats:
            nan = op("fill")(
                self.batch_shape_tensor(),
                np.array(np.nan, dtype=self.dtype.as_numpy_dtype),
                name="nan",
            )
            return op("where_v2")(self.concentration > 1.0, mode, nan)
        one = ops.convert_to_tensor(np.ones([], self.dtype.as_numpy_dtype))
        check = check_ops.assert_less(
            one, folded(self.concentration), message="mode not defined when any concentration <= 1"
        )
        return with_dependencies([check], mode)

    def _maybe_assert_valid_sample(self, x: ops.Tensor) -> ops.Tensor:
        assert_same_float_dtype([x], self.dtype)
        if not self.validate_args:
            return x
        return with_dependencies([check_ops.assert_positive(x)], x)


@kullback_leibler.RegisterKL(Gamma, Gamma)
def _kl_gamma_gamma(g0: Gamma, g1: Gamma, name: str | None = None) -> ops.Tensor:
    values = [g0.concentration, g0.rate, g1.concentration, g1.rate]
    with ops.name_scope(name, "kl_gamma_gamma", values):
        c0, r0, c1, r1 = values
        return (
            (c0 - c1) * op("digamma")(c0)
            + op("lgamma")(c1)
            - op("lgamma")(c0)
            + c1 * op("log")(r0)
            - c1 * op("log")(r1)
            + c0 * (r1 / r0 - 1.0)
        )
