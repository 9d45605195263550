"""The standard normal CDF and its logarithm as TF's ``special_math`` computes them.

``ndtr(x) = 0.5 * (1 + erf(x / sqrt(2)))``, through ``erfc`` away from 0 (as TF,
for accuracy in the tails); ``log_ndtr`` switches between ``-ndtr(-x)`` (large
``x``), ``log(ndtr(x))`` and an asymptotic series (very negative ``x``) at TF's
per-dtype thresholds, with TF's series order 3. Both are built from compat ops
(``tf.math.erf``, ``erfc``, ``where_v2``...), so values and gradients follow TF's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1.distributions.util import op
from adapters.v1.framework import ops

__all__ = ["ndtr", "log_ndtr", "log_cdf_laplace"]

# TF's segment thresholds (special_math.LOGNDTR_FLOAT{32,64}_{LOWER,UPPER}).
_LOWER = {np.dtype("float64"): -20.0, np.dtype("float32"): -10.0}
_UPPER = {np.dtype("float64"): 8.0, np.dtype("float32"): 5.0}


def _const(value: float, like: ops.Tensor) -> ops.Tensor:
    return ops.convert_to_tensor(np.asarray(value, like.dtype.as_numpy_dtype))


def _check(x: ops.Tensor) -> np.dtype:
    dt = np.dtype(x.dtype.as_numpy_dtype)
    if dt not in _LOWER:
        raise TypeError(f"x.dtype={x.dtype!r} is not handled, see docstring for supported types.")
    return dt


def _ndtr(x: ops.Tensor) -> ops.Tensor:
    half_sqrt_2 = _const(0.5 * np.sqrt(2.0), x)
    w = x * half_sqrt_2
    z = op("abs")(w)
    y = op("where_v2")(
        op("less")(z, half_sqrt_2),
        1.0 + op("math.erf")(w),
        op("where_v2")(
            op("greater")(w, _const(0.0, x)), 2.0 - op("math.erfc")(z), op("math.erfc")(z)
        ),
    )
    return 0.5 * y


def ndtr(x: Any, name: str = "ndtr") -> ops.Tensor:
    """The standard normal CDF of ``x`` (float32 or float64).

    Raises:
      TypeError: another dtype (TF's message).
    """
    with ops.name_scope(name, None, [x]):
        x = ops.convert_to_tensor(x, name="x")
        _check(x)
        return _ndtr(x)


def _log_ndtr_lower(x: ops.Tensor, series_order: int) -> ops.Tensor:
    x_2 = op("square")(x)
    log_scale = -0.5 * x_2 - op("log")(-x) - 0.5 * np.log(2.0 * np.pi)
    return log_scale + op("log")(_asymptotic_series(x, series_order))


def _double_factorial(n: int) -> int:
    return int(np.prod(np.arange(n, 1, -2))) if n > 1 else 1


def _asymptotic_series(x: ops.Tensor, series_order: int) -> Any:
    dt = x.dtype.as_numpy_dtype
    if series_order <= 0:
        return np.array(1, dt)
    x_2 = op("square")(x)
    even_sum = op("zeros_like")(x)
    odd_sum = op("zeros_like")(x)
    x_2n = x_2
    for n in range(1, series_order + 1):
        y = _const(_double_factorial(2 * n - 1), x) / x_2n
        if n % 2:
            odd_sum += y
        else:
            even_sum += y
        x_2n *= x_2
    return 1.0 + even_sum - odd_sum


def log_ndtr(x: Any, series_order: int = 3, name: str = "log_ndtr") -> ops.Tensor:
    """The log of the standard normal CDF of ``x``, accurate in both tails (TF's
    three segments and asymptotic series).

    Raises:
      TypeError: ``series_order`` not an int, or ``x`` neither float32 nor float64.
      ValueError: ``series_order`` outside ``[0, 30]``.
    """
    if not isinstance(series_order, int):
        raise TypeError("series_order must be a Python integer.")
    if series_order < 0:
        raise ValueError("series_order must be non-negative.")
    if series_order > 30:
        raise ValueError("series_order must be <= 30.")
    with ops.name_scope(name, None, [x]):
        x = ops.convert_to_tensor(x, name="x")
        dt = _check(x)
        lower, upper = _const(_LOWER[dt], x), _const(_UPPER[dt], x)
        return op("where_v2")(
            op("greater")(x, upper),
            -_ndtr(-x),
            op("where_v2")(
                op("greater")(x, lower),
                op("log")(_ndtr(op("maximum")(x, lower))),
                _log_ndtr_lower(op("minimum")(x, lower), series_order),
            ),
        )


def log_cdf_laplace(x: Any, name: str = "log_cdf_laplace") -> ops.Tensor:
    """The log of the standard Laplace CDF: ``x - log 2`` below 0, ``log1p(-exp(-|x|) / 2)``
    above (TF's two branches)."""
    with ops.name_scope(name, None, [x]):
        x = ops.convert_to_tensor(x, name="x")
        lower_solution = -np.log(2.0) + x
        safe_exp_neg_x = op("exp")(-op("abs")(x))
        upper_solution = op("log1p")(-0.5 * safe_exp_neg_x)
        return op("where_v2")(x < 0.0, lower_solution, upper_solution)
