"""``tf.distributions.Normal``: the normal distribution with mean ``loc`` and standard
deviation ``scale``.

``log_prob(x) = -0.5 * z**2 - (0.5 * log(2 pi) + log(scale))`` with ``z = (x - loc) /
scale``; ``cdf``/``log_cdf`` through TF's ``ndtr``/``log_ndtr``; ``entropy =
0.5 * log(2 pi e) + log(scale)``; samples ``z * scale + loc`` for standard normal
``z`` (fully reparameterized: gradients reach ``loc`` and ``scale``).
``KL(N(a) || N(b)) = (loc_a - loc_b)**2 / (2 s_b**2) + 0.5 * (r - 1 - log r)``,
``r = s_a**2 / s_b**2``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from adapters.v1.distributions import distribution, kullback_leibler, special_math
from adapters.v1.distributions.util import assert_same_float_dtype, op
from adapters.v1.framework import ops
from adapters.v1.framework.tensor_shape import TensorShape
from adapters.v1.ops import check_ops, random_ops
from adapters.v1.ops.array_ops import broadcast_static_shape, identity

__all__ = ["Normal"]


class Normal(distribution.Distribution):
    """Normal distributions (``tf.compat.v1.distributions.Normal``).

    Args:
      loc: floating tensor, the means.
      scale: floating tensor of ``loc``'s dtype, the standard deviations (positive).
      validate_args: ``False``; ``True`` adds TF's run-time check ``scale > 0``
        (``InvalidArgumentError`` when run).
      allow_nan_stats: ``True`` (no statistic of a normal is undefined).
      name: ``"Normal"``.

    Raises:
      ValueError: ``loc`` and ``scale`` of different dtypes, or not floating.
    """

    def __init__(
        self,
        loc: Any,
        scale: Any,
        validate_args: bool = False,
        allow_nan_stats: bool = True,
        name: str = "Normal",
    ) -> None:
        parameters = dict(locals())
        with ops.name_scope(name, None, [loc, scale]) as name:
            deps = [check_ops.assert_positive(scale)] if validate_args else []
            with ops.control_dependencies(deps):
                self._loc = identity(loc, name="loc")
                self._scale = identity(scale, name="scale")
                assert_same_float_dtype([self._loc, self._scale])
        super().__init__(
            dtype=self._scale.dtype,
            reparameterization_type=distribution.FULLY_REPARAMETERIZED,
            validate_args=validate_args,
            allow_nan_stats=allow_nan_stats,
            parameters=parameters,
            graph_parents=[self._loc, self._scale],
            name=name,
        )

    @property
    def loc(self) -> ops.Tensor:
        """The means."""
        return self._loc

    @property
    def scale(self) -> ops.Tensor:
        """The standard deviations."""
        return self._scale

    def _batch_shape_tensor(self) -> ops.Tensor:
        return op("broadcast_dynamic_shape")(op("shape")(self.loc), op("shape")(self.scale))

    def _batch_shape(self) -> TensorShape:
        return broadcast_static_shape(self.loc.get_shape(), self.scale.get_shape())

    def _event_shape_tensor(self) -> ops.Tensor:
        return ops.convert_to_tensor(np.zeros([0], np.int32))

    def _event_shape(self) -> TensorShape:
        return TensorShape([])

    def _sample_n(self, n: Any, seed: int | None = None) -> ops.Tensor:
        shape = self._n_batch_shape(n)
        sampled = random_ops.random_normal(
            shape=shape, mean=0.0, stddev=1.0, dtype=self.loc.dtype, seed=seed
        )
        return sampled * self.scale + self.loc

    def _log_prob(self, x: ops.Tensor) -> ops.Tensor:
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _log_cdf(self, x: ops.Tensor) -> ops.Tensor:
        return special_math.log_ndtr(self._z(x))

    def _cdf(self, x: ops.Tensor) -> ops.Tensor:
        return special_math.ndtr(self._z(x))

    def _log_survival_function(self, x: ops.Tensor) -> ops.Tensor:
        return special_math.log_ndtr(-self._z(x))

    def _survival_function(self, x: ops.Tensor) -> ops.Tensor:
        return special_math.ndtr(-self._z(x))

    def _log_unnormalized_prob(self, x: ops.Tensor) -> ops.Tensor:
        return -0.5 * op("square")(self._z(x))

    def _log_normalization(self) -> ops.Tensor:
        return 0.5 * math.log(2.0 * math.pi) + op("log")(self.scale)

    def _entropy(self) -> ops.Tensor:
        scale = self.scale * op("ones_like")(self.loc)
        return 0.5 * math.log(2.0 * math.pi * math.e) + op("log")(scale)

    def _mean(self) -> ops.Tensor:
        return self.loc * op("ones_like")(self.scale)

    def _stddev(self) -> ops.Tensor:
        return self.scale * op("ones_like")(self.loc)

    def _mode(self) -> ops.Tensor:
        return self._mean()

    def _z(self, x: ops.Tensor) -> ops.Tensor:
        with ops.name_scope("standardize", None, [x]):
            return (x - self.loc) / self.scale


@kullback_leibler.RegisterKL(Normal, Normal)
def _kl_normal_normal(n_a: Normal, n_b: Normal, name: str | None = None) -> ops.Tensor:
    with ops.name_scope(name, "kl_normal_normal", [n_a.loc, n_b.loc]):
        dt = n_a.dtype.as_numpy_dtype
        one, two, half = (ops.convert_to_tensor(np.asarray(v, dt)) for v in (1, 2, 0.5))
        s_a_squared = op("square")(n_a.scale)
        s_b_squared = op("square")(n_b.scale)
        ratio = s_a_squared / s_b_squared
        return op("squared_difference")(n_a.loc, n_b.loc) / (two * s_b_squared) + half * (
            ratio - one - op("log")(ratio)
        )
