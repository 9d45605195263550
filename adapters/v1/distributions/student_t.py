"""``tf.distributions.StudentT``: Student's t distribution with ``df`` degrees of
freedom, location ``loc`` and scale ``scale``.

``log_prob(x) = -0.5 (df + 1) log1p(y**2 / df) - (log|scale| + 0.5 log df + 0.5 log pi
+ lgamma(df / 2) - lgamma((df + 1) / 2))`` with ``y = (x - loc) / scale``; ``cdf``
through ``betainc``; ``entropy`` with ``lbeta``; ``mean`` NaN for ``df <= 1`` and
``variance`` inf for ``1 < df <= 2``, NaN for ``df <= 1`` (or run-time errors with
``allow_nan_stats=False``); samples ``z * rsqrt(g / df) * scale + loc`` for a normal
``z`` and a gamma ``g`` (fully reparameterized).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1.distributions import distribution
from adapters.v1.distributions.util import assert_same_float_dtype, folded, gen_new_seed, op
from adapters.v1.framework import ops
from adapters.v1.framework.tensor_shape import TensorShape
from adapters.v1.ops import check_ops, random_ops
from adapters.v1.ops.array_ops import broadcast_static_shape, identity
from adapters.v1.ops.control_flow_ops import with_dependencies

__all__ = ["StudentT"]


class StudentT(distribution.Distribution):
    """Student's t distributions (``tf.compat.v1.distributions.StudentT``).

    Args:
      df: floating tensor, the degrees of freedom (positive).
      loc: floating tensor, the locations.
      scale: floating tensor, the scales.
      validate_args: ``False``; ``True`` adds TF's run-time check ``df > 0``.
      allow_nan_stats: ``True``: undefined means/variances are NaN; ``False``: a
        run-time error.
      name: ``"StudentT"``.

    Raises:
      ValueError: parameters of different or non-floating dtypes.

    .. note:: As TF's, ``variance`` compares ``df`` with a float32 ``fill(.., 2.0)``:
       a float64 ``StudentT``'s ``variance`` raises TF's ``TypeError``.
    """

    def __init__(
        self,
        df: Any,
        loc: Any,
        scale: Any,
        validate_args: bool = False,
        allow_nan_stats: bool = True,
        name: str = "StudentT",
    ) -> None:
        parameters = dict(locals())
        with ops.name_scope(name, None, [df, loc, scale]) as name:
            deps = [check_ops.assert_positive(df)] if validate_args else []
            with ops.control_dependencies(deps):
                self._df = identity(df, name="df")
                self._loc = identity(loc, name="loc")
                self._scale = identity(scale, name="scale")
                assert_same_float_dtype((self._df, self._loc, self._scale))
        super().__init__(
            dtype=self._scale.dtype,
            reparameterization_type=distribution.FULLY_REPARAMETERIZED,
            validate_args=validate_args,
            allow_nan_stats=allow_nan_stats,
            parameters=parameters,
            graph_parents=[self._df, self._loc, self._scale],
            name=name,
        )

    @property
    def df(self) -> ops.Tensor:
        """The degrees of freedom."""
        return self._df

    @property
    def loc(self) -> ops.Tensor:
        """The locations."""
        return self._loc

    @property
    def scale(self) -> ops.Tensor:
        """The scales."""
        return self._scale

    def _batch_shape_tensor(self) -> ops.Tensor:
        shape, bds = op("shape"), op("broadcast_dynamic_shape")
        return bds(shape(self.df), bds(shape(self.loc), shape(self.scale)))

    def _batch_shape(self) -> TensorShape:
        return broadcast_static_shape(
            broadcast_static_shape(self.df.get_shape(), self.loc.get_shape()),
            self.scale.get_shape(),
        )

    def _event_shape_tensor(self) -> ops.Tensor:
        return ops.convert_to_tensor(np.zeros([0], np.int32))

    def _event_shape(self) -> TensorShape:
        return TensorShape([])

    def _ones(self) -> ops.Tensor:
        return op("ones")(self.batch_shape_tensor(), dtype=self.dtype)

    def _sample_n(self, n: Any, seed: int | None = None) -> ops.Tensor:
        normal_sample = random_ops.random_normal(
            self._n_batch_shape(n), dtype=self.dtype, seed=seed
        )
        df = self.df * self._ones()
        gamma_sample = random_ops.random_gamma(
            [n], 0.5 * df, beta=0.5, dtype=self.dtype, seed=gen_new_seed(seed, "student_t")
        )
        samples = normal_sample * op("math.rsqrt")(gamma_sample / df)
        return samples * self.scale + self.loc

    def _log_prob(self, x: ops.Tensor) -> ops.Tensor:
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _log_unnormalized_prob(self, x: ops.Tensor) -> ops.Tensor:
        y = (x - self.loc) / self.scale
        return -0.5 * (self.df + 1.0) * op("log1p")(y**2.0 / self.df)

    def _log_normalization(self) -> ops.Tensor:
        return (
            op("log")(op("abs")(self.scale))
            + 0.5 * op("log")(self.df)
            + 0.5 * np.log(np.pi)
            + op("lgamma")(0.5 * self.df)
            - op("lgamma")(0.5 * (self.df + 1.0))
        )

    def _cdf(self, x: ops.Tensor) -> ops.Tensor:
        y = (x - self.loc) / op("abs")(self.scale)
        x_t = self.df / (y**2.0 + self.df)
        # TF's Betainc gradient reaches x only (None for a and b).
        neg_cdf = 0.5 * op("math.betainc")(op("stop_gradient")(0.5 * self.df), 0.5, x_t)
        one: Any = 1.0
        return op("where_v2")(op("less")(y, 0.0), neg_cdf, one - neg_cdf)

    def _entropy(self) -> ops.Tensor:
        v = op("expand_dims")(self._ones(), -1)
        u = v * op("expand_dims")(self.df, -1)
        beta_arg = op("concat")([u, v], -1) / 2.0
        digamma = op("digamma")
        return (
            op("log")(op("abs")(self.scale))
            + 0.5 * op("log")(self.df)
            + op("math.lbeta")(beta_arg)
            + 0.5 * (self.df + 1.0) * (digamma(0.5 * (self.df + 1.0)) - digamma(0.5 * self.df))
        )

    def _nan(self) -> ops.Tensor:
        nan = np.array(np.nan, dtype=self.dtype.as_numpy_dtype)
        return op("fill")(self.batch_shape_tensor(), nan, name="nan")

    def _assert_df_above_one(self, message: str) -> ops.Operation:
        one = ops.convert_to_tensor(np.ones([], self.dtype.as_numpy_dtype))
        return check_ops.assert_less(one, folded(self.df), message=message)

    def _mean(self) -> ops.Tensor:
        mean = self.loc * self._ones()
        if self.allow_nan_stats:
            return op("where_v2")(op("greater")(self.df, self._ones()), mean, self._nan())
        return with_dependencies(
            [self._assert_df_above_one("mean not defined for components of df <= 1")], mean
        )

    def _variance(self) -> ops.Tensor:
        denom = op("where_v2")(op("greater")(self.df, 2.0), self.df - 2.0, op("ones_like")(self.df))
        var = self._ones() * op("square")(self.scale) * self.df / denom
        inf = np.array(np.inf, dtype=self.dtype.as_numpy_dtype)
        defined = op("where_v2")(
            self.df > op("fill")(self.batch_shape_tensor(), 2.0),
            var,
            op("fill")(self.batch_shape_tensor(), inf, name="inf"),
        )
        if self.allow_nan_stats:
            return op("where_v2")(op("greater")(self.df, self._ones()), defined, self._nan())
        return with_dependencies(
            [self._assert_df_above_one("variance not defined for components of df <= 1")],
            defined,
        )

    def _mode(self) -> ops.Tensor:
        return identity(self.loc)
