"""``tf.distributions.Uniform``: the continuous uniform distribution on ``[low, high)``.

``prob(x) = 1 / (high - low)`` inside, 0 outside, NaN for NaN ``x``; ``cdf`` clipped
to ``[0, 1]``; ``entropy = log(high - low)``; ``mean = (low + high) / 2``;
``variance = (high - low)**2 / 12``; samples ``low + (high - low) * u`` (fully
reparameterized).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from adapters.v1.distributions import distribution
from adapters.v1.distributions.util import assert_same_float_dtype, op
from adapters.v1.framework import ops
from adapters.v1.framework.tensor_shape import TensorShape
from adapters.v1.ops import check_ops, random_ops
from adapters.v1.ops.array_ops import broadcast_static_shape, identity

__all__ = ["Uniform"]


class Uniform(distribution.Distribution):
    """Uniform distributions (``tf.compat.v1.distributions.Uniform``).

    Args:
      low: floating lower bounds (``0.``).
      high: floating upper bounds, of ``low``'s dtype (``1.``).
      validate_args: ``False``; ``True`` adds TF's run-time check ``low < high``
        (``InvalidArgumentError: uniform not defined when low >= high.``).
      allow_nan_stats: ``True``.
      name: ``"Uniform"``.

    Raises:
      ValueError: ``low`` and ``high`` of different dtypes, or not floating.
    """

    def __init__(
        self,
        low: Any = 0.0,
        high: Any = 1.0,
        validate_args: bool = False,
        allow_nan_stats: bool = True,
        name: str = "Uniform",
    ) -> None:
        parameters = dict(locals())
        with ops.name_scope(name, None, [low, high]) as name:
            deps = (
                [check_ops.assert_less(low, high, message="uniform not defined when low >= high.")]
                if validate_args
                else []
            )
            with ops.control_dependencies(deps):
                self._low = identity(low, name="low")
                self._high = identity(high, name="high")
                assert_same_float_dtype([self._low, self._high])
        super().__init__(
            dtype=self._low.dtype,
            reparameterization_type=distribution.FULLY_REPARAMETERIZED,
            validate_args=validate_args,
            allow_nan_stats=allow_nan_stats,
            parameters=parameters,
            graph_parents=[self._low, self._high],
            name=name,
        )

    @property
    def low(self) -> ops.Tensor:
        """The lower bounds."""
        return self._low

    @property
    def high(self) -> ops.Tensor:
        """The upper bounds."""
        return self._high

    def range(self, name: str = "range") -> ops.Tensor:
        """``high - low``."""
        with self._name_scope(name):
            return self.high - self.low

    def _batch_shape_tensor(self) -> ops.Tensor:
        return op("broadcast_dynamic_shape")(op("shape")(self.low), op("shape")(self.high))

    def _batch_shape(self) -> TensorShape:
        return broadcast_static_shape(self.low.get_shape(), self.high.get_shape())

    def _event_shape_tensor(self) -> ops.Tensor:
        return ops.convert_to_tensor(np.zeros([0], np.int32))

    def _event_shape(self) -> TensorShape:
        return TensorShape([])

    def _sample_n(self, n: Any, seed: int | None = None) -> ops.Tensor:
        shape = self._n_batch_shape(n)
        samples = random_ops.random_uniform(shape=shape, dtype=self.dtype, seed=seed)
        return self.low + self.range() * samples

    def _prob(self, x: ops.Tensor) -> ops.Tensor:
        broadcasted_x = x * op("ones")(self.batch_shape_tensor(), dtype=x.dtype)
        where = op("where_v2")
        return where(
            op("is_nan")(broadcasted_x),
            broadcasted_x,
            where(
                op("logical_or")(broadcasted_x < self.low, broadcasted_x >= self.high),
                op("zeros_like")(broadcasted_x),
                op("ones_like")(broadcasted_x) / self.range(),
            ),
        )

    def _cdf(self, x: ops.Tensor) -> ops.Tensor:
        broadcast_shape = op("broadcast_dynamic_shape")(op("shape")(x), self.batch_shape_tensor())
        zeros = op("zeros")(broadcast_shape, dtype=self.dtype)
        ones = op("ones")(broadcast_shape, dtype=self.dtype)
        broadcasted_x = x * ones
        result_if_not_big = op("where_v2")(
            x < self.low, zeros, (broadcasted_x - self.low) / self.range()
        )
        return op("where_v2")(x >= self.high, ones, result_if_not_big)

    def _entropy(self) -> ops.Tensor:
        return op("log")(self.range())

    def _mean(self) -> ops.Tensor:
        return (self.low + self.high) / 2.0

    def _variance(self) -> ops.Tensor:
        return op("square")(self.range()) / 12.0

    def _stddev(self) -> ops.Tensor:
        width: Any = self.range()
        return width / math.sqrt(12.0)
