"""Helpers of ``tf.distributions`` (TF's ``ops/distributions/util.py``): parameter
conversion and the checks ``validate_args=True`` adds to the graph.

Each check is a run-time assertion of TF's ``check_ops`` (``InvalidArgumentError``
when the step runs, or when the graph is built for constants), attached to the
checked tensor as a control dependency, as TF's ``with_dependencies`` does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.op_def import FUNCTIONS
from adapters.v1.framework.tensor_util import get_static_value
from adapters.v1.ops import array_ops, check_ops, math_ops, nn_ops  # noqa: F401  (fill the table)
from adapters.v1.ops.control_flow_ops import Assert, with_dependencies

__all__ = [
    "op",
    "convert_preferred",
    "assert_same_float_dtype",
    "get_logits_and_probs",
    "embed_check_categorical_event_shape",
    "embed_check_integer_casting_closed",
    "assert_near",
    "folded",
    "gen_new_seed",
]


def op(name: str) -> Callable[..., Any]:
    """The compat op ``tf.<name>`` of the op table (``"log"``, ``"nn.softmax"``)."""
    return FUNCTIONS[name]


def convert_preferred(value: Any, dtype: dtypes.DType, name: str | None = None) -> ops.Tensor:
    """``value`` as a tensor, of ``dtype`` where TF's ``preferred_dtype`` takes it.

    TF (graph mode) converts with the preferred dtype and falls back to the value's
    own type when that fails: a NumPy value is cast (``np.array([1.5])`` to int32
    gives ``[1]``), Python integers and booleans take any numeric dtype, a Python
    float does not take an integer dtype (it stays float32). Tensors are returned
    as they are.
    """
    if isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor"):
        return ops.convert_to_tensor(value)
    target = dtypes.as_dtype(dtype).base_dtype
    array = np.asarray(value)
    numeric = target.is_floating or target.is_integer
    if numeric and array.dtype.kind in "biuf":
        if isinstance(value, (np.ndarray, np.generic)) or array.dtype.kind in "biu":
            return ops.convert_to_tensor(array.astype(target.as_numpy_dtype), name=name)
        if target.is_floating:
            return ops.convert_to_tensor(array.astype(target.as_numpy_dtype), name=name)
    return ops.convert_to_tensor(value, name=name)


def assert_same_float_dtype(
    tensors: Sequence[ops.Tensor], dtype: dtypes.DType | None = None
) -> dtypes.DType:
    """TF's ``check_ops.assert_same_float_dtype``: one floating dtype for all (and
    ``dtype``'s, when given).

    Raises:
      ValueError: the dtypes differ (TF's message naming the tensors) or are not
        floating (``Expected floating point type, got <dtype: 'int32'>.``).
    """
    expected, first = dtype, None
    for t in tensors:
        if expected is None:
            expected, first = t.dtype.base_dtype, t
        elif t.dtype.base_dtype != expected:
            against = f" as {first.name}" if first is not None else ""
            raise ValueError(
                f"{t.name}, type={t.dtype!r}, must be of the same type ({expected!r}){against}."
            )
    if expected is None:
        return dtypes.float32
    if not expected.is_floating:
        raise ValueError(f"Expected floating point type, got {expected!r}.")
    return expected


def folded(t: ops.Tensor) -> ops.Tensor:
    """The constant behind ``t`` when ``t`` is the ``Identity`` of one (a parameter
    kept by ``tf.identity``) or a ``tf.stack`` of constants: TF's checks fold those
    and fail when the graph is built, jtrain's ``check_ops`` fold constants only."""
    op_ = t.op
    if op_.type == "Identity" and op_.inputs and op_.inputs[0].op._const_value is not None:
        return op_.inputs[0]
    if op_.type == "Pack" and op_.inputs and getattr(op_, "_static_attrs", {}).get("axis", 0) == 0:
        values = [i.op._const_value for i in op_.inputs]
        if all(v is not None for v in values):  # tf.stack of constants, as TF folds it
            return ops.convert_to_tensor(np.stack(values))
    return t


def _largest_integer(dt: dtypes.DType) -> int:
    dt = dt.base_dtype
    if dt.is_floating:
        return int(2 ** (np.finfo(dt.as_numpy_dtype).nmant + 1))
    if dt.is_bool:
        return 1
    if dt.is_integer:
        return int(np.iinfo(dt.as_numpy_dtype).max)
    raise TypeError(f"Unrecognized dtype: {dt.name}")


def _integer_like(dt: dtypes.DType) -> bool:
    return dt.is_integer or dt.is_bool


def assert_near(x: ops.Tensor, y: ops.Tensor, message: str) -> ops.Operation:
    """TF's ``check_ops.assert_near`` with its default tolerances (``10 * eps`` of the
    dtype, absolute and relative): ``|x - y| <= atol + rtol * |y|`` element-wise."""
    eps = float(np.finfo(x.dtype.as_numpy_dtype).eps)
    tol = ops.convert_to_tensor(np.asarray(10 * eps, x.dtype.as_numpy_dtype))
    with ops.name_scope(None, "assert_near", [x, y]):
        close = op("less_equal")(op("abs")(x - y), tol + tol * op("abs")(y))
        data = [
            message,
            f"x and y not equal to tolerance rtol = {tol.op._const_value}, "
            f"atol = {tol.op._const_value}",
            f"x ({x.name}) = ",
            x,
            f"y ({y.name}) = ",
            y,
        ]
        return Assert(op("reduce_all")(close), data)


def embed_check_categorical_event_shape(param: ops.Tensor) -> ops.Tensor:
    """TF's check of a categorical parameter's last dimension (at least 2 classes, and
    no more than the dtype counts exactly).

    Raises:
      ValueError: a static last dimension under 2 or over the dtype's exact integers,
        or a scalar parameter.
      TypeError: a non-floating parameter.
    """
    with ops.name_scope(None, "embed_check_categorical_event_shape", [param]):
        x = ops.convert_to_tensor(param, name="categorical_param")
        if not x.dtype.is_floating:
            raise TypeError(f"Unable to validate size of unrecognized dtype ({x.dtype.name}).")
        limit = _largest_integer(x.dtype)
        shape = x.get_shape()
        if shape.ndims is not None and shape.ndims < 1:
            raise ValueError("A categorical-distribution parameter must have at least 1 dimension.")
        last = None if shape.ndims is None else shape.as_list()[-1]
        if last is None:
            raise NotImplementedError(
                "tf.distributions: validate_args=True with an unknown number of classes is "
                "not supported; give the parameter a static last dimension"
            )
        if last < 2:
            raise ValueError("A categorical-distribution parameter must have at least 2 events.")
        if last > limit:
            raise ValueError(
                f"Number of classes exceeds `dtype` precision, i.e., {x.dtype.name} implies "
                f"shape ({last}) cannot exceed {limit}."
            )
        return x


def embed_check_integer_casting_closed(
    x: Any, target_dtype: dtypes.DType, assert_nonnegative: bool = True
) -> ops.Tensor:
    """``x`` with TF's run-time checks that it casts to ``target_dtype`` exactly
    (non-negative, integer-valued, within range)."""
    with ops.name_scope(None, "embed_check_casting_closed", [x]):
        x = ops.convert_to_tensor(x, name="x")
        target = dtypes.as_dtype(target_dtype)
        if not _integer_like(x.dtype) and not x.dtype.is_floating:
            raise TypeError(f"{x.dtype.name}.dtype must be floating- or integer-type.")
        if not _integer_like(x.dtype) and not _integer_like(target):
            raise TypeError(
                f"At least one of {x}.dtype ({x.dtype.name}) and target_dtype "
                f"({target.name}) must be integer-type."
            )
        assertions = []
        if assert_nonnegative:
            assertions.append(
                check_ops.assert_non_negative(x, message="Elements must be non-negative.")
            )
        if x.dtype.is_floating:
            int_dtype = target
            static = get_static_value(x)
            if static is not None:  # TF folds the casts of a constant: checked when built
                same = ops.convert_to_tensor(
                    np.asarray(static).astype(int_dtype.as_numpy_dtype).astype(static.dtype)
                )
            else:
                same = op("cast")(op("cast")(x, int_dtype), x.dtype)
            assertions.append(
                check_ops.assert_equal(
                    x, same, message=f"Elements must be {target.name}-equivalent."
                )
            )
        elif _largest_integer(x.dtype) > _largest_integer(target):
            top = _largest_integer(target)
            assertions.append(
                check_ops.assert_less_equal(
                    x,
                    ops.convert_to_tensor(np.asarray(top, x.dtype.as_numpy_dtype)),
                    message=f"Elements cannot exceed {top}.",
                )
            )
        if not assertions:
            return x
        return with_dependencies(assertions, x)


def get_logits_and_probs(
    logits: Any = None,
    probs: Any = None,
    multidimensional: bool = False,
    validate_args: bool = False,
    name: str = "get_logits_and_probs",
) -> tuple[ops.Tensor, ops.Tensor]:
    """``(logits, probs)`` from one of them, as TF computes the other: ``softmax`` /
    ``sigmoid`` of logits; ``log(probs)`` (multidimensional) or ``log(p) - log1p(-p)``.

    Raises:
      ValueError: both or neither given (``Must pass probs or logits, but not both.``).
      TypeError: a non-floating parameter (``logits must having floating type.``).
    """
    with ops.name_scope(name, None, [probs, logits]):
        if (probs is None) == (logits is None):
            raise ValueError("Must pass probs or logits, but not both.")
        if probs is None:
            logits = ops.convert_to_tensor(logits, name="logits")
            if not logits.dtype.is_floating:
                raise TypeError("logits must having floating type.")
            if multidimensional:
                if validate_args:
                    logits = embed_check_categorical_event_shape(logits)
                return logits, op("nn.softmax")(logits, name="probs")
            return logits, op("sigmoid")(logits, name="probs")
        probs = ops.convert_to_tensor(probs, name="probs")
        if not probs.dtype.is_floating:
            raise TypeError("probs must having floating type.")
        if validate_args:
            with ops.name_scope("validate_probs"):
                one = ops.convert_to_tensor(np.asarray(1.0, probs.dtype.as_numpy_dtype))
                deps = [check_ops.assert_non_negative(probs)]
                if multidimensional:
                    probs = embed_check_categorical_event_shape(probs)
                    total = op("reduce_sum")(probs, -1)
                    deps.append(assert_near(total, one, "probs does not sum to 1."))
                else:
                    deps.append(
                        check_ops.assert_less_equal(
                            probs, one, message="probs has components greater than 1."
                        )
                    )
                probs = with_dependencies(deps, probs)
        with ops.name_scope("logits"):
            if multidimensional:
                return op("log")(probs), probs
            return op("log")(probs) - op("log1p")(-1.0 * probs), probs


def gen_new_seed(seed: int | None, salt: str) -> int | None:
    """TF's derived op seed for a second random op of one sample (``None`` stays)."""
    if seed is None:
        return None
    string = (str(seed) + salt).encode("utf-8")
    return int(hashlib.md5(string).hexdigest()[:8], 16) & 0x7FFFFFFF
