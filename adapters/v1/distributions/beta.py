"""``tf.distributions.Beta``: the beta distribution on ``(0, 1)`` with
``concentration1`` (alpha) and ``concentration0`` (beta).

``log_prob(x) = xlogy(c1 - 1, x) + (c0 - 1) * log1p(-x) - (lgamma(c1) + lgamma(c0) -
lgamma(c1 + c0))``; ``cdf = betainc(c1, c0, x)``, ``log_cdf = log(cdf)``; ``mode =
(c1 - 1) / (c1 + c0 - 2)`` where both exceed 1 (NaN otherwise, or a run-time error
with ``allow_nan_stats=False``); samples ``g1 / (g1 + g0)`` of two gamma draws.
The registered ``KL(Beta || Beta)`` is TF's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1.distributions import distribution, kullback_leibler
from adapters.v1.distributions.util import assert_same_float_dtype, gen_new_seed, op
from adapters.v1.framework import ops
from adapters.v1.framework.tensor_shape import TensorShape
from adapters.v1.ops import check_ops, random_ops
from adapters.v1.ops.control_flow_ops import with_dependencies

__all__ = ["Beta"]


class Beta(distribution.Distribution):
    """Beta distributions (``tf.compat.v1.distributions.Beta``).

    Args:
      concentration1: floating tensor, alpha (positive).
      concentration0: floating tensor of the same dtype, beta (positive).
      validate_args: ``False``; ``True`` adds TF's run-time checks (positive
        concentrations, samples in ``(0, 1)`` for ``log_prob``).
      allow_nan_stats: ``True``: undefined modes are NaN; ``False``: a run-time error.
      name: ``"Beta"``.

    Raises:
      ValueError: concentrations of different or non-floating dtypes.
    """

    def __init__(
        self,
        concentration1: Any = None,
        concentration0: Any = None,
        validate_args: bool = False,
        allow_nan_stats: bool = True,
        name: str = "Beta",
    ) -> None:
        parameters = dict(locals())
        with ops.name_scope(name, None, [concentration1, concentration0]) as name:
            self._concentration1 = self._maybe_assert_valid_concentration(
                ops.convert_to_tensor(concentration1, name="concentration1"), validate_args
            )
            self._concentration0 = self._maybe_assert_valid_concentration(
                ops.convert_to_tensor(concentration0, name="concentration0"), validate_args
            )
            assert_same_float_dtype([self._concentration1, self._concentration0])
            self._total_concentration = self._concentration1 + self._concentration0
        super().__init__(
            dtype=self._total_concentration.dtype,
            validate_args=validate_args,
            allow_nan_stats=allow_nan_stats,
            reparameterization_type=distribution.FULLY_REPARAMETERIZED,
            parameters=parameters,
            graph_parents=[self._concentration1, self._concentration0, self._total_concentration],
            name=name,
        )

    @property
    def concentration1(self) -> ops.Tensor:
        """Alpha."""
        return self._concentration1

    @property
    def concentration0(self) -> ops.Tensor:
        """Beta."""
        return self._concentration0

    @property
    def total_concentration(self) -> ops.Tensor:
        """``concentration1 + concentration0``."""
        return self._total_concentration

    def _batch_shape_tensor(self) -> ops.Tensor:
        return op("shape")(self.total_concentration)

    def _batch_shape(self) -> TensorShape:
        return self.total_concentration.get_shape()

    def _event_shape_tensor(self) -> ops.Tensor:
        return ops.convert_to_tensor(np.zeros([0], np.int32))

    def _event_shape(self) -> TensorShape:
        return TensorShape([])

    def _sample_n(self, n: Any, seed: int | None = None) -> ops.Tensor:
        ones = op("ones_like")(self.total_concentration, dtype=self.dtype)
        c1 = ones * self.concentration1
        c0 = ones * self.concentration0
        g1 = random_ops.random_gamma(shape=[n], alpha=c1, dtype=self.dtype, seed=seed)
        g0 = random_ops.random_gamma(
            shape=[n], alpha=c0, dtype=self.dtype, seed=gen_new_seed(seed, "beta")
        )
        return g1 / (g1 + g0)

    def _log_prob(self, x: ops.Tensor) -> ops.Tensor:
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _prob(self, x: ops.Tensor) -> ops.Tensor:
        return op("exp")(self._log_prob(x))

    def _log_cdf(self, x: ops.Tensor) -> ops.Tensor:
        return op("log")(self._cdf(x))

    def _cdf(self, x: ops.Tensor) -> ops.Tensor:
        # TF's Betainc gradient reaches x only (None for a and b).
        sg = op("stop_gradient")
        return op("math.betainc")(sg(self.concentration1), sg(self.concentration0), x)

    def _log_unnormalized_prob(self, x: ops.Tensor) -> ops.Tensor:
        x = self._maybe_assert_valid_sample(x)
        return op("math.xlogy")(self.concentration1 - 1.0, x) + (self.concentration0 - 1.0) * op(
            "log1p"
        )(-x)

    def _log_normalization(self) -> ops.Tensor:
        lgamma = op("lgamma")
        return (
            lgamma(self.concentration1)
            + lgamma(self.concentration0)
            - lgamma(self.total_concentration)
        )

    def _entropy(self) -> ops.Tensor:
        digamma = op("digamma")
        return (
            self._log_normalization()
            - (self.concentration1 - 1.0) * digamma(self.concentration1)
            - (self.concentration0 - 1.0) * digamma(self.concentration0)
            + (self.total_concentration - 2.0) * digamma(self.total_concentration)
        )

    def _mean(self) -> ops.Tensor:
        return self._concentration1 / self._total_concentration

    def _variance(self) -> ops.Tensor:
        one: Any = 1.0
        return self._mean() * (one - self._mean()) / (one + self.total_concentration)

    def _mode(self) -> ops.Tensor:
        mode = (self.concentration1 - 1.0) / (self.total_concentration - 2.0)
        if self.allow_nan_stats:
            nan = op("fill")(
                self.batch_shape_tensor(),
                np.array(np.nan, dtype=self.dtype.as_numpy_dtype),
                name="nan",
            )
            is_defined = op("logical_and")(self.concentration1 > 1.0, self.concentration0 > 1.0)
            return op("where_v2")(is_defined, mode, nan)
        one = ops.convert_to_tensor(np.ones([], self.dtype.as_numpy_dtype))
        return with_dependencies(
            [
                check_ops.assert_less(
                    one, self.concentration1, message="Mode undefined for concentration1 <= 1."
                ),
                check_ops.assert_less(
                    one, self.concentration0, message="Mode undefined for concentration0 <= 1."
                ),
            ],
            mode,
        )

    def _maybe_assert_valid_concentration(self, c: ops.Tensor, validate_args: bool):
        if not validate_args:
            return c
        return with_dependencies(
            [check_ops.assert_positive(c, message="Concentration parameter must be positive.")],
            c,
        )

    def _maybe_assert_valid_sample(self, x: ops.Tensor) -> ops.Tensor:
        if not self.validate_args:
            return x
        one = ops.convert_to_tensor(np.ones([], self.dtype.as_numpy_dtype))
        return with_dependencies(
            [
                check_ops.assert_positive(x, message="sample must be positive"),
                check_ops.assert_less(x, one, message="sample must be less than `1`."),
            ],
            x,
        )


@kullback_leibler.RegisterKL(Beta, Beta)
def _kl_beta_beta(d1: Beta, d2: Beta, name: str | None = None) -> ops.Tensor:
    values = [
        d1.concentration1,
        d1.concentration0,
        d1.total_concentration,
        d2.concentration1,
        d2.concentration0,
        d2.total_concentration,
    ]
    digamma = op("digamma")
    with ops.name_scope(name, "kl_beta_beta", values):
        return (
            (d2._log_normalization() - d1._log_normalization())
            - digamma(d1.concentration1) * (d2.concentration1 - d1.concentration1)
            - digamma(d1.concentration0) * (d2.concentration0 - d1.concentration0)
            + digamma(d1.total_concentration) * (d2.total_concentration - d1.total_concentration)
        )
