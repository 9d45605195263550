"""``tf.distributions.Dirichlet``: distributions over the simplex of the last dimension
of ``concentration``.

``log_prob(x) = sum(xlogy(c - 1, x)) - lbeta(c)``; ``entropy``, ``mean = c / sum(c)``,
``variance``, ``covariance`` and ``mode = (c - 1) / (sum(c) - k)`` (NaN unless every
``c > 1``, broadcast as TF's) as TF computes them; samples are normalized gamma draws.
The registered ``KL(Dirichlet || Dirichlet)`` is TF's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1.distributions import distribution, kullback_leibler
from adapters.v1.distributions.util import assert_near, folded, op
from adapters.v1.framework import ops
from adapters.v1.framework.tensor_shape import TensorShape
from adapters.v1.ops import check_ops, random_ops
from adapters.v1.ops.control_flow_ops import with_dependencies

__all__ = ["Dirichlet"]


def _event_size(c: ops.Tensor) -> ops.Tensor:
    """The last dimension of ``c`` (a constant where static, as TF folds it)."""
    shape = c.get_shape()
    if shape.ndims and shape.as_list()[-1] is not None:
        return ops.convert_to_tensor(np.int32(shape.as_list()[-1]))
    return op("shape")(c)[-1]


class Dirichlet(distribution.Distribution):
    """Dirichlet distributions (``tf.compat.v1.distributions.Dirichlet``).

    Args:
      concentration: floating ``[..., k]`` tensor (positive, ``k >= 2``).
      validate_args: ``False``; ``True`` adds TF's run-time checks (positive
        concentrations; ``log_prob`` arguments positive and summing to 1).
      allow_nan_stats: ``True``: undefined modes are NaN; ``False``: a run-time error.
      name: ``"Dirichlet"``.
    """

    def __init__(
        self,
        concentration: Any,
        validate_args: bool = False,
        allow_nan_stats: bool = True,
        name: str = "Dirichlet",
    ) -> None:
        parameters = dict(locals())
        with ops.name_scope(name, None, [concentration]) as name:
            c = ops.convert_to_tensor(concentration, name="concentration")
            if validate_args:
                c = with_dependencies(
                    [
                        check_ops.assert_positive(
                            folded(c), message="Concentration parameter must be positive."
                        ),
                        check_ops.assert_less(
                            ops.convert_to_tensor(np.int32(1)),
                            _event_size(c),
                            message="Concentration parameter must have event_size >= 2.",
                        ),
                    ],
                    c,
                )
            self._concentration = c
            self._total_concentration = op("reduce_sum")(c, -1)
        super().__init__(
            dtype=self._concentration.dtype,
            validate_args=validate_args,
            allow_nan_stats=allow_nan_stats,
            reparameterization_type=distribution.FULLY_REPARAMETERIZED,
            parameters=parameters,
            graph_parents=[self._concentration, self._total_concentration],
            name=name,
        )

    @property
    def concentration(self) -> ops.Tensor:
        """The concentrations."""
        return self._concentration

    @property
    def total_concentration(self) -> ops.Tensor:
        """``reduce_sum(concentration, -1)``."""
        return self._total_concentration

    def _batch_shape_tensor(self) -> ops.Tensor:
        return op("shape")(self.total_concentration)

    def _batch_shape(self) -> TensorShape:
        return self.total_concentration.get_shape()

    def _event_shape_tensor(self) -> ops.Tensor:
        return op("shape")(self.concentration)[-1:]

    def _event_shape(self) -> TensorShape:
        return self.concentration.get_shape().with_rank_at_least(1)[-1:]

    def _sample_n(self, n: Any, seed: int | None = None) -> ops.Tensor:
        g = random_ops.random_gamma(
            shape=[n], alpha=self.concentration, dtype=self.dtype, seed=seed
        )
        return g / op("reduce_sum")(g, -1, keepdims=True)

    def _log_prob(self, x: ops.Tensor) -> ops.Tensor:
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _prob(self, x: ops.Tensor) -> ops.Tensor:
        return op("exp")(self._log_prob(x))

    def _log_unnormalized_prob(self, x: ops.Tensor) -> ops.Tensor:
        x = self._maybe_assert_valid_sample(x)
        return op("reduce_sum")(op("math.xlogy")(self.concentration - 1.0, x), -1)

    def _log_normalization(self) -> ops.Tensor:
        return op("math.lbeta")(self.concentration)

    def _k(self) -> ops.Tensor:
        return op("cast")(self.event_shape_tensor()[0], self.dtype)

    def _entropy(self) -> ops.Tensor:
        digamma = op("digamma")
        total = self.total_concentration
        return (
            self._log_normalization()
            + (total - self._k()) * digamma(total)
            - op("reduce_sum")((self.concentration - 1.0) * digamma(self.concentration), axis=-1)
        )

    def _total_expanded(self) -> ops.Tensor:
        return op("expand_dims")(self.total_concentration, -1)

    def _mean(self) -> ops.Tensor:
        return self.concentration / self._total_expanded()

    def _covariance(self) -> ops.Tensor:
        x = self._variance_scale_term() * self._mean()
        outer = op("matmul")(op("expand_dims")(x, -1), op("expand_dims")(x, -2))
        return op("matrix_set_diag")(-outer, self._variance())

    def _variance(self) -> ops.Tensor:
        scale = self._variance_scale_term()
        x = scale * self._mean()
        return x * (scale - x)

    def _variance_scale_term(self) -> ops.Tensor:
        return op("math.rsqrt")(1.0 + self._total_expanded())

    def _mode(self) -> ops.Tensor:
        mode = (self.concentration - 1.0) / (self._total_expanded() - self._k())
        if self.allow_nan_stats:
            nan = op("fill")(
                op("shape")(mode), np.array(np.nan, dtype=self.dtype.as_numpy_dtype), name="nan"
            )
            defined = op("reduce_all")(self.concentration > 1.0, axis=-1)
            return op("where_v2")(defined, mode, nan)
        one = ops.convert_to_tensor(np.ones([], self.dtype.as_numpy_dtype))
        check = check_ops.assert_less(
            one, self.concentration, message="Mode undefined when any concentration <= 1"
        )
        return with_dependencies([check], mode)

    def _maybe_assert_valid_sample(self, x: ops.Tensor) -> ops.Tensor:
        if not self.validate_args:
            return x
        one = ops.convert_to_tensor(np.ones([], self.dtype.as_numpy_dtype))
        return with_dependencies(
            [
                check_ops.assert_positive(x, message="samples must be positive"),
                assert_near(one, op("reduce_sum")(x, -1), "sample last-dimension must sum to `1`"),
            ],
            x,
        )


@kullback_leibler.RegisterKL(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(d1: Dirichlet, d2: Dirichlet, name: str | None = None) -> ops.Tensor:
    with ops.name_scope(name, "kl_dirichlet_dirichlet", [d1.concentration, d2.concentration]):
        digamma = op("digamma")
        digamma_sum_d1 = digamma(op("reduce_sum")(d1.concentration, axis=-1, keepdims=True))
        digamma_diff = digamma(d1.concentration) - digamma_sum_d1
        concentration_diff = d1.concentration - d2.concentration
        return (
            op("reduce_sum")(concentration_diff * digamma_diff, axis=-1)
            - op("math.lbeta")(d1.concentration)
            + op("math.lbeta")(d2.concentration)
        )
