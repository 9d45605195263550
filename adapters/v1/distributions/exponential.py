"""``tf.distributions.Exponential``: ``Gamma(concentration=1, rate)``.

``log_survival_function(x) = log_prob(x) - log(rate)``; samples ``-log(u) / rate``
for ``u`` uniform in ``[tiny, 1)`` (TF's draw, so that ``log(u)`` is finite); the
rest is ``Gamma``'s.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1.distributions import gamma
from adapters.v1.distributions.util import op
from adapters.v1.framework import ops
from adapters.v1.ops import random_ops

__all__ = ["Exponential"]


class Exponential(gamma.Gamma):
    """Exponential distributions (``tf.compat.v1.distributions.Exponential``).

    Args:
      rate: floating tensor, the rates (positive).
      validate_args: ``False``; ``True`` adds ``Gamma``'s run-time checks.
      allow_nan_stats: ``True``; the statistics are ``Gamma``'s with concentration 1,
        as TF's (``mode`` included: ``Gamma``'s rule, not 0).
      name: ``"Exponential"``.
    """

    def __init__(
        self,
        rate: Any,
        validate_args: bool = False,
        allow_nan_stats: bool = True,
        name: str = "Exponential",
    ) -> None:
        parameters = dict(locals())
        with ops.name_scope(name, None, [rate]) as name:
            self._rate = ops.convert_to_tensor(rate, name="rate")
        super().__init__(
            concentration=op("ones")([], dtype=self._rate.dtype),
            rate=self._rate,
            allow_nan_stats=allow_nan_stats,
            validate_args=validate_args,
            name=name,
        )
        params = dict(parameters)
        params.pop("self", None)
        params.pop("__class__", None)
        self._parameters = params
        self._graph_parents += [self._rate]

    @property
    def rate(self) -> ops.Tensor:
        """The rates."""
        return self._rate

    def _log_survival_function(self, value: ops.Tensor) -> ops.Tensor:
        return self._log_prob(value) - op("log")(self._rate)

    def _sample_n(self, n: Any, seed: int | None = None) -> ops.Tensor:
        rate_shape = self._rate.get_shape()
        if rate_shape.is_fully_defined():
            shape: Any = [n, *rate_shape.as_list()]
        else:
            shape = op("concat")([[n], op("shape")(self._rate)], 0)
        dt = self.dtype.as_numpy_dtype
        sampled = random_ops.random_uniform(
            shape, minval=np.finfo(dt).tiny, maxval=1.0, seed=seed, dtype=self.dtype
        )
        return -op("log")(sampled) / self._rate
