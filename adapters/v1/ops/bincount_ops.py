"""``tf.math.bincount`` (TF1's signature, TF's ``bincount_ops.py``) as a table entry.

TF's semantics: a non-integer ``arr`` is cast to int32; the counts (or the sums
of ``weights``, whose dtype the output then takes) of the values in
``[0, size)``, values from ``size`` on dropped; a negative value fails the run
with ``InvalidArgumentError``. TF's ``size`` is ``max(arr) + 1`` (0 for an empty
``arr``), raised to ``minlength`` then lowered to ``maxlength``: with ``minlength >=
maxlength`` it is fixed; otherwise it depends on the values, and the session
computes it before the step (``framework/data_sizes.py``: one program per size).
"""

from __future__ import annotations

import functools
from typing import Any

import jax.numpy as jnp

from adapters.v1.framework.op_def import FUNCTIONS, REAL, define, np_dtype
from jtrain import errors


def _bincount(arr, weights=None, minlength=None, maxlength=None, dtype="int32", *, sizes=None):
    """``sizes``: ``(the output's length,)`` where it depends on ``arr``'s values
    (computed before the step); None where ``minlength >= maxlength`` fix it."""
    if not jnp.issubdtype(arr.dtype, jnp.integer):
        arr = arr.astype(jnp.int32)
    arr = arr.reshape(-1)
    if weights is None:
        values = jnp.ones(arr.shape, np_dtype(dtype))
    else:
        values = weights.reshape(-1)
    length = int(maxlength) if sizes is None else sizes[0]
    bins = jnp.zeros((length,), values.dtype)
    return bins.at[arr].add(values, mode="drop")


def _length(arr, attrs: dict[str, Any]) -> tuple[Any]:
    """The sizes of ``bincount``: TF's output length (see the module docstring)."""
    if not jnp.issubdtype(arr.dtype, jnp.integer):
        arr = arr.astype(jnp.int32)
    flat = arr.reshape(-1)
    size = jnp.max(flat) + 1 if flat.shape[0] else jnp.zeros((), flat.dtype)
    if attrs.get("minlength") is not None:
        size = jnp.maximum(attrs["minlength"], size)
    if attrs.get("maxlength") is not None:
        size = jnp.minimum(attrs["maxlength"], size)
    return (size,)


def _fixed(minlength: Any, maxlength: Any) -> bool:
    return minlength is not None and maxlength is not None and minlength >= maxlength


def _check(arguments: dict[str, Any]) -> None:
    weights = arguments.get("weights")
    if weights is not None and not weights.get_shape().is_compatible_with(
        arguments["arr"].get_shape()
    ):
        raise ValueError(
            f"bincount: weights of shape {weights.get_shape()} must have arr's shape "
            f"{arguments['arr'].get_shape()}"
        )


def _non_negative(arr, weights=None, minlength=None, maxlength=None, dtype="int32"):
    return jnp.all(arr >= 0), ()


def _negative_error(op: Any) -> Any:
    return errors.InvalidArgumentError(None, op, "Input arr must be non-negative!")


_ENTRY = {
    "params": "arr, weights=None, minlength=None, maxlength=None, dtype='int32'",
    "tensors": "arr weights",
    "same_dtype": (),
    "allowed": {"arr": REAL, "weights": ("int32", "int64", "float32", "float64")},
    "default_name": "bincount",
    "name_param": "",
    "check": _check,
    "runtime_check": (_non_negative, _negative_error),
}
_fixed_bincount = define(("math.bincount", "bincount"), "DenseBincount", _bincount, **_ENTRY)
# The node of a length that depends on the values; not a public TF name.
_sized_bincount = define(
    "_internal.bincount", "DenseBincount", _bincount, sized=("arr", _length), **_ENTRY
)


@functools.wraps(_fixed_bincount)  # its name, signature, module and ``_op_def``
def bincount(
    arr: Any,
    weights: Any = None,
    minlength: Any = None,
    maxlength: Any = None,
    dtype: Any = "int32",
) -> Any:
    """``tf.math.bincount``: the counts (or summed ``weights``) of ``arr``'s values.

    Args:
      arr: non-negative integers (other dtypes are cast to int32).
      weights: per-element weights of ``arr``'s shape (default ``None``: counts).
      minlength: the output's least length (default ``None``).
      maxlength: the output's greatest length; values from it on are dropped
        (default ``None``).
      dtype: the counts' dtype without ``weights`` (default ``tf.int32``).

    Returns:
      A vector of length ``max(arr) + 1`` bounded by ``minlength``/``maxlength``
      (statically unknown, as TF's): compiled once where ``minlength >= maxlength``
      fix it, else computed before the step (``framework/data_sizes.py``).

    Raises:
      InvalidArgumentError: (when run) a negative value in ``arr``.
    """
    if _fixed(minlength, maxlength):
        out = _fixed_bincount(arr, weights, minlength, maxlength, dtype)
        out._shape = (None,)  # TF's: its size is a computed tensor, not folded
        return out
    return _sized_bincount(arr, weights, minlength, maxlength, dtype)


FUNCTIONS["bincount"] = FUNCTIONS["math.bincount"] = bincount
