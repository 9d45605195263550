"""``tf.debugging``: run-time checks (``check_numerics``, ``Assert``, ``assert_*``)."""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.framework.op_def import tf_names
from adapters.v1.framework.tensor_util import is_numeric_tensor
from adapters.v1.ops import math_ops  # noqa: F401  (fills TF's op table)
from adapters.v1.ops.check_ops import (
    assert_equal,
    assert_greater,
    assert_greater_equal,
    assert_integer,
    assert_less,
    assert_less_equal,
    assert_near,
    assert_negative,
    assert_non_negative,
    assert_non_positive,
    assert_none_equal,
    assert_positive,
    assert_proper_iterable,
    assert_rank,
    assert_rank_at_least,
    assert_rank_in,
    assert_same_float_dtype,
    assert_scalar,
    assert_shapes,
    assert_type,
)
from adapters.v1.ops.control_flow_ops import Assert
from adapters.v1.ops.numerics import check_numerics
from adapters.v1.ops.numerics import verify_tensor_all_finite as assert_all_finite

_state = {"log_device_placement": False, "traceback_filtering": True}


def set_log_device_placement(enabled: bool) -> None:
    """``tf.debugging.set_log_device_placement``: records whether to log op placement.

    Args:
      enabled: whether placement logging is on.

    .. note::
       TF applies this to eager ops and ``tf.function``s; a classic ``tf.Session``
       logs placements only through ``ConfigProto(log_device_placement=True)``. jtrain
       keeps the setting for :func:`get_log_device_placement` and logs nothing (a
       step is one XLA program on the session's device).
    """
    _state["log_device_placement"] = bool(enabled)


def get_log_device_placement() -> bool:
    """``tf.debugging.get_log_device_placement``: the last value set (default False)."""
    return _state["log_device_placement"]


def enable_traceback_filtering() -> None:
    """``tf.debugging.enable_traceback_filtering`` (TF's default: on).

    .. note::
       jtrain keeps the setting (see :func:`is_traceback_filtering_enabled`) but never
       removes frames from tracebacks: its errors show every frame either way.
    """
    _state["traceback_filtering"] = True


def disable_traceback_filtering() -> None:
    """``tf.debugging.disable_traceback_filtering``: see :func:`enable_traceback_filtering`."""
    _state["traceback_filtering"] = False


def is_traceback_filtering_enabled() -> bool:
    """``tf.debugging.is_traceback_filtering_enabled``: the setting (default True)."""
    return _state["traceback_filtering"]


_FROM_MATH = ("is_finite", "is_inf", "is_nan", "is_non_decreasing", "is_strictly_increasing")
globals().update({k: v for k, v in tf_names("math").items() if k in _FROM_MATH})

__all__ = [
    "Assert",
    "assert_all_finite",
    "assert_equal",
    "assert_greater",
    "assert_greater_equal",
    "assert_integer",
    "assert_less",
    "assert_less_equal",
    "assert_near",
    "assert_negative",
    "assert_non_negative",
    "assert_non_positive",
    "assert_none_equal",
    "assert_positive",
    "assert_proper_iterable",
    "assert_rank",
    "assert_rank_at_least",
    "assert_rank_in",
    "assert_same_float_dtype",
    "assert_scalar",
    "assert_shapes",
    "assert_type",
    "check_numerics",
    "disable_traceback_filtering",
    "enable_traceback_filtering",
    "get_log_device_placement",
    "is_numeric_tensor",
    "is_traceback_filtering_enabled",
    "set_log_device_placement",
    *sorted(k for k in _FROM_MATH if k in globals()),
]

__getattr__ = missing_name_getattr("tf.debugging", globals())
