"""``tf.math.confusion_matrix`` (TF's ``confusion_matrix.py``) as a table entry.

TF's semantics: labels and predictions are cast to int64 (a trailing dimension
of 1 on one of them is squeezed), ``weights`` are cast to ``dtype`` (so float
weights of an integer matrix are truncated), and a label or prediction that is
negative or not below ``num_classes`` fails the run with ``InvalidArgumentError``.
Without ``num_classes`` TF sizes the matrix ``max(max(labels), max(predictions)) +
1`` (after the int64 cast; only negative values fail): a size that depends on the
values, computed by the session before the step (``framework/data_sizes.py``: one
program per size), as is a ``num_classes`` computed in the graph.
"""

from __future__ import annotations

import functools
from typing import Any

import jax.numpy as jnp
import numpy as np

from adapters.v1.framework import ops
from adapters.v1.framework.op_def import FUNCTIONS, REAL, define, np_dtype
from jtrain import errors


def _squeezed(labels: Any, predictions: Any) -> tuple[Any, Any]:
    """TF's ``remove_squeezable_dimensions``: drops a trailing 1 where ranks differ by one."""
    if predictions.ndim == labels.ndim + 1 and predictions.shape[-1] == 1:
        predictions = jnp.squeeze(predictions, -1)
    elif labels.ndim == predictions.ndim + 1 and labels.shape[-1] == 1:
        labels = jnp.squeeze(labels, -1)
    return labels.astype(jnp.int64), predictions.astype(jnp.int64)


def _confusion_matrix(
    labels, predictions, num_classes=None, dtype="int32", weights=None, *, sizes=None
):
    """``sizes``: ``(the matrix's side,)`` where ``num_classes`` is computed from the
    step's values (computed before the step); absent for a Python ``num_classes``."""
    labels, predictions = _squeezed(labels, predictions)
    dtype = np_dtype(dtype)
    values = jnp.ones(predictions.shape, dtype) if weights is None else weights.astype(dtype)
    side = int(num_classes) if sizes is None else sizes[0]
    matrix = jnp.zeros((side, side), dtype)
    return matrix.at[labels, predictions].add(values, mode="drop")


def _side(num_classes: Any, attrs: dict[str, Any]) -> tuple[Any]:
    """The sizes of a computed ``num_classes``: the matrix's side (none below 0, so
    that a negative label fails TF's check rather than the matrix's shape)."""
    return (jnp.maximum(jnp.asarray(num_classes).reshape(()), 0),)


def _check(arguments: dict[str, Any]) -> None:
    weights = arguments.get("weights")
    if weights is not None:
        predictions = arguments["predictions"].get_shape()
        labels = arguments["labels"].get_shape()
        if predictions.ndims is not None and predictions.ndims == (labels.ndims or 0) + 1:
            if predictions[-1] == 1:  # squeezed as the implementation squeezes it
                predictions = predictions[:-1]
        if not predictions.is_compatible_with(weights.get_shape()):
            raise ValueError(f"Shapes {predictions} and {weights.get_shape()} are incompatible")


def _in_range(labels, predictions, num_classes=None, dtype="int32", weights=None):
    labels, predictions = _squeezed(labels, predictions)
    n = jnp.asarray(num_classes, jnp.int64)
    ok = jnp.all((labels >= 0) & (predictions >= 0) & (labels < n) & (predictions < n)) & (n >= 0)
    return ok, (labels, predictions, n)


def _checked_names(op: Any) -> tuple[tuple[str, str], tuple[str, str, str]]:
    """The names TF's assertions show for ``(labels, predictions)``: of the int64 values
    (``<scope>/Cast_1:0``, squeezed or cast as TF does, in its order: predictions
    first) for the negative checks, of their ``with_dependencies`` identities
    (``<scope>/control_dependency:0``) and of ``num_classes`` cast to int64 for the
    bound checks."""
    scope = op.name
    labels, predictions = op.inputs[0], op.inputs[1]
    shapes = [t.get_shape() for t in (labels, predictions)]
    names = [labels.name, predictions.name]
    ranks = [shape.ndims for shape in shapes]
    if None not in ranks:
        for i, other in ((1, 0), (0, 1)):  # TF's remove_squeezable_dimensions
            if ranks[i] == ranks[other] + 1 and shapes[i][-1] == 1:
                names[i] = f"{scope}/remove_squeezable_dimensions/Squeeze:0"
    casts = 0
    for i in (1, 0):
        if op.inputs[i]._np_dtype != np.dtype(np.int64):
            names[i] = f"{scope}/Cast{'_' + str(casts) if casts else ''}:0"
            casts += 1
    sized = getattr(op, "_sized", None)
    side = op.inputs[sized.index] if sized is not None else None
    if side is not None and side._np_dtype == np.dtype(np.int64):
        side_name = side.name
    else:
        side_name = f"{scope}/Cast{'_' + str(casts) if casts else ''}:0"
    bound = (f"{scope}/control_dependency:0", f"{scope}/control_dependency_1:0", side_name)
    return (names[0], names[1]), bound


def _range_error(op: Any, labels: np.ndarray, predictions: np.ndarray, n: np.ndarray) -> Any:
    """The first of TF's four assertions that fails, with its message."""

    def shown(values: np.ndarray) -> str:
        return "[" + " ".join(str(v) for v in values.reshape(-1).tolist()) + "]"

    negative, bound = _checked_names(op)
    for what, name, values in (
        ("labels", negative[0], labels),
        ("predictions", negative[1], predictions),
    ):
        if np.any(values < 0):
            return errors.InvalidArgumentError(
                None,
                op,
                f"assertion failed: [`{what}` contains negative values.  ] "
                f"[Condition x >= 0 did not hold element-wise:] [x ({name}) = ] {shown(values)}",
            )
    for what, name, values in (
        ("labels", bound[0], labels),
        ("predictions", bound[1], predictions),
    ):
        if np.any(values >= n):
            return errors.InvalidArgumentError(
                None,
                op,
                f"assertion failed: [`{what}` out of bound] [Condition x < y did not hold "
                f"element-wise:] [x ({name}) = ] {shown(values)} [y ({bound[2]}) = ] [{int(n)}]",
            )
    if n < 0:  # TF's ScatterNd of the side of empty inputs (max of nothing, plus 1)
        return errors.InvalidArgumentError(None, op, f"Dimension {int(n)} must be >= 0")
    return errors.InvalidArgumentError(None, op, "confusion_matrix: values out of range")


_entry = define(
    ("math.confusion_matrix", "confusion_matrix"),
    "ScatterNd",
    _confusion_matrix,
    params="labels, predictions, num_classes=None, dtype='int32', name=None, weights=None",
    tensors="labels predictions weights",
    same_dtype=(),
    allowed={"labels": REAL, "predictions": REAL},
    default_name="confusion_matrix",
    check=_check,
    runtime_check=(_in_range, _range_error),
    sized=("num_classes", _side),
)


@functools.wraps(_entry)  # its name, signature, module and ``_op_def``
def confusion_matrix(
    labels: Any,
    predictions: Any,
    num_classes: Any = None,
    dtype: Any = "int32",
    name: str | None = None,
    weights: Any = None,
) -> Any:
    """``tf.math.confusion_matrix``: ``m[i, j]`` counts (or sums ``weights`` of) the
    elements with label ``i`` and prediction ``j``.

    Args:
      labels: class ids (cast to int64; a trailing dimension of 1 is squeezed).
      predictions: class ids of ``labels``' shape.
      num_classes: the matrix's side (default ``None``: TF's ``max(max(labels),
        max(predictions)) + 1``, computed before the step).
      dtype: the matrix's dtype (default ``tf.int32``).
      name: the operation's name (default ``"confusion_matrix"``).
      weights: per-element weights, cast to ``dtype`` (default ``None``: counts).

    Returns:
      A ``[num_classes, num_classes]`` matrix of ``dtype`` (``[None, None]``
      statically where its side is computed, as TF's).

    Raises:
      InvalidArgumentError: (when run) a negative label or prediction, or one not
        below ``num_classes``.
    """
    if num_classes is not None:
        return _entry(labels, predictions, num_classes, dtype, name, weights)
    with ops.name_scope(name, "confusion_matrix", [labels, predictions]) as scope:
        cast, largest = FUNCTIONS["cast"], FUNCTIONS["reduce_max"]
        side = FUNCTIONS["maximum"](
            largest(cast(predictions, "int64")), largest(cast(labels, "int64"))
        )
        return _entry(labels, predictions, side + 1, dtype, scope, weights)


FUNCTIONS["confusion_matrix"] = FUNCTIONS["math.confusion_matrix"] = confusion_matrix
