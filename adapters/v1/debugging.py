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
    "is_numeric_tensor",
    *sorted(k for k in _FROM_MATH if k in globals()),
]

__getattr__ = missing_name_getattr("tf.debugging", globals())
