"""TF's bitwise ops (``tf.bitwise``) on the op table: ``bitwise_and``, ``bitwise_or``,
``bitwise_xor``, ``invert``, ``left_shift``, ``right_shift``, on TF's integer dtypes.

.. math::
   \\mathrm{left\\_shift}(x, y) = x \\ll \\mathrm{clip}(y, 0, b - 1), \\qquad
   \\mathrm{right\\_shift}(x, y) = x \\gg \\mathrm{clip}(y, 0, b - 1)

with ``b`` the bit width of ``x``'s dtype: TF's kernels clamp the shift amount
(XLA's shifts give 0 past the width); ``right_shift`` is arithmetic for signed
dtypes, logical for unsigned ones, as TF. No gradient flows through them (TF
registers none; integer values have none).
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
from jax import lax

from adapters.v1.framework.op_def import INTEGER, define, np_dtype

__all__: list[str] = []


def _clamped(x: Any, y: Any) -> tuple[Any, Any]:
    x, y = jnp.broadcast_arrays(x, y)
    bits = np_dtype(x.dtype).itemsize * 8
    return x, jnp.clip(y, 0, bits - 1).astype(x.dtype)


def _left_shift(x: Any, y: Any) -> Any:
    x, y = _clamped(x, y)
    return lax.shift_left(x, y)


def _right_shift(x: Any, y: Any) -> Any:
    x, y = _clamped(x, y)
    if jnp.issubdtype(np_dtype(x.dtype), jnp.signedinteger):
        return lax.shift_right_arithmetic(x, y)
    return lax.shift_right_logical(x, y)


for _name, _type, _impl in (
    ("bitwise_and", "BitwiseAnd", jnp.bitwise_and),
    ("bitwise_or", "BitwiseOr", jnp.bitwise_or),
    ("bitwise_xor", "BitwiseXor", jnp.bitwise_xor),
    ("left_shift", "LeftShift", _left_shift),
    ("right_shift", "RightShift", _right_shift),
):
    define((f"bitwise.{_name}",), _type, _impl, params="x, y, name=None", allowed=INTEGER)

define(("bitwise.invert",), "Invert", jnp.invert, params="x, name=None", allowed=INTEGER)
