"""``tf.distributions.Laplace``: the Laplace distribution with location ``loc`` and
scale ``scale``.

``log_prob(x) = -|z| - (log 2 + log(scale))`` with ``z = (x - loc) / scale``;
``cdf = 0.5 + 0.5 * sign(z) * (1 - exp(-|z|))``; ``log_cdf`` by TF's two branches;
``entropy = log 2 + 1 + log(scale)``; ``stddev = sqrt(2) * scale``; samples
``loc - scale * sign(u) * log1p(-|u|)`` for ``u`` uniform in ``(-1, 1)`` (fully
reparameterized).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from adapters.v1.distributions import distribution, special_math
from adapters.v1.distributions.util import assert_same_float_dtype, op
from adapters.v1.framework import ops
from adapters.v1.framework.tensor_shape import TensorShape
from adapters.v1.ops import check_ops, random_ops
from adapters.v1.ops.array_ops import broadcast_static_shape, identity

__all__ = ["Laplace"]


class Laplace(distribution.Distribution):
    """Laplace distributions (``tf.compat.v1.distributions.Laplace``).

    Args:
      loc: floating tensor, the locations.
      scale: floating tensor of ``loc``'s dtype, the scales (positive).
      validate_args: ``False``; ``True`` adds TF's run-time check ``scale > 0``.
      allow_nan_stats: ``True``.
      name: ``"Laplace"``.

    Raises:
      ValueError: ``loc`` and ``scale`` of different dtypes, or not floating.
    """

    def __init__(
        self,
        loc: Any,
        scale: Any,
        validate_args: bool = False,
        allow_nan_stats: bool = True,
        name: str = "Laplace",
    ) -> None:
        parameters = dict(locals())
        with ops.name_scope(name, None, [loc, scale]) as name:
            deps = [check_ops.assert_positive(scale)] if validate_args else []
            with ops.control_dependencies(deps):
                self._loc = identity(loc, name="loc")
                self._scale = identity(scale, name="scale")
                assert_same_float_dtype([self._loc, self._scale])
            super().__init__(
                dtype=self._loc.dtype,
                reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                validate_args=validate_args,
                allow_nan_stats=allow_nan_stats,
                parameters=parameters,
                graph_parents=[self._loc, self._scale],
                name=name,
            )

    @property
    def loc(self) -> ops.Tensor:
        """The locations."""
        return self._loc

    @property
    def scale(self) -> ops.Tensor:
        """The scales."""
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
        dt = self.dtype.as_numpy_dtype
        uniform_samples = random_ops.random_uniform(
            shape=self._n_batch_shape(n),
            minval=np.nextafter(dt(-1.0), dt(0.0)),
            maxval=1.0,
            dtype=self.dtype,
            seed=seed,
        )
        return self.loc - self.scale * op("sign")(uniform_samples) * op("log1p")(
            -op("abs")(uniform_samples)
        )

    def _log_prob(self, x: ops.Tensor) -> ops.Tensor:
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _prob(self, x: ops.Tensor) -> ops.Tensor:
        return op("exp")(self._log_prob(x))

    def _log_cdf(self, x: ops.Tensor) -> ops.Tensor:
        return special_math.log_cdf_laplace(self._z(x))

    def _log_survival_function(self, x: ops.Tensor) -> ops.Tensor:
        return special_math.log_cdf_laplace(-self._z(x))

    def _cdf(self, x: ops.Tensor) -> ops.Tensor:
        z = self._z(x)
        one: Any = 1.0
        return 0.5 + 0.5 * op("sign")(z) * (one - op("exp")(-op("abs")(z)))

    def _log_unnormalized_prob(self, x: ops.Tensor) -> ops.Tensor:
        return -op("abs")(self._z(x))

    def _log_normalization(self) -> ops.Tensor:
        return math.log(2.0) + op("log")(self.scale)

    def _entropy(self) -> ops.Tensor:
        scale = self.scale + op("zeros_like")(self.loc)
        return math.log(2.0) + 1.0 + op("log")(scale)

    def _mean(self) -> ops.Tensor:
        return self.loc + op("zeros_like")(self.scale)

    def _stddev(self) -> ops.Tensor:
        return math.sqrt(2.0) * self.scale + op("zeros_like")(self.loc)

    def _mode(self) -> ops.Tensor:
        return self._mean()

    def _z(self, x: ops.Tensor) -> ops.Tensor:
        return (x - self.loc) / self.scale
