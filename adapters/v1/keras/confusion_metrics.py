"""``tf.keras.metrics``' confusion-matrix metrics (legacy Keras 2) in a TF1 graph:
``TruePositives``/``FalsePositives``/``TrueNegatives``/``FalseNegatives``,
``Precision``, ``Recall``, ``AUC`` and the rates at a constraint (Keras'
``SensitivitySpecificityBase``): ``SensitivityAtSpecificity``,
``SpecificityAtSensitivity``, ``PrecisionAtRecall``, ``RecallAtPrecision``.

Each keeps its counts per threshold in variables as the other stateful metrics
(:class:`adapters.v1.keras.metrics.Metric`: in no collection). A prediction is positive
at a threshold when it is greater than it. As Keras' ``update_confusion_matrix_variables``,
evenly spaced thresholds (3 or more, ``i / (n - 1)``, e.g. ``AUC``'s) count by buckets:
the predictions clipped to ``[0, 1]``, bucket ``ceil(p * (n - 1)) - 1`` and a reverse
cumulative sum; other thresholds compare every prediction with every threshold.

.. note:: TF's graph ops (``tf.metrics.auc``... in ``metrics_impl``) keep their counts
   in ``LOCAL_VARIABLES`` with another layout; these are Keras' (counts named
   ``accumulator``, ``true_positives``..., no collection), so they are built here on
   TF's graph ops as Keras builds them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1._missing import missing_name_getattr
from adapters.v1.framework import ops
from adapters.v1.framework.tensor_shape import TensorShape
from adapters.v1.keras import backend, losses
from adapters.v1.keras.metrics import Metric, _broadcast_weights
from adapters.v1.layers.base import op
from adapters.v1.ops import array_ops
from adapters.v1.ops.constant_op import constant
from adapters.v1.ops.control_flow_ops import group

__all__ = [
    "AUC",
    "FalseNegatives",
    "FalsePositives",
    "Precision",
    "PrecisionAtRecall",
    "Recall",
    "RecallAtPrecision",
    "SensitivityAtSpecificity",
    "SpecificityAtSensitivity",
    "TrueNegatives",
    "TruePositives",
]

NEG_INF = -1e10  # Keras' threshold for top_k (every kept prediction is positive)
_TP, _FP, _TN, _FN = "tp", "fp", "tn", "fn"


def _to_list(x: Any) -> list[Any]:
    return list(x) if isinstance(x, (list, tuple, np.ndarray)) else [x]


def _parse_thresholds(thresholds: Any, default: float = 0.5) -> list[float]:
    """Keras' ``parse_init_thresholds``.

    Raises:
      ValueError: a threshold outside ``[0, 1]`` (TF's message).
    """
    if thresholds is not None:
        invalid = [t for t in _to_list(thresholds) if t is None or t < 0 or t > 1]
        if invalid:
            raise ValueError(f"Threshold values must be in [0, 1]. Received: {invalid}")
    return _to_list(default if thresholds is None else thresholds)


def _evenly_distributed(thresholds: Any) -> bool:
    """Keras' ``is_evenly_distributed_thresholds``: 3 or more, ``i / (n - 1)``."""
    n = len(thresholds)
    if n < 3:
        return False
    even = np.arange(n, dtype=np.float32) / (n - 1)
    return bool(np.allclose(thresholds, even, atol=backend.epsilon()))


def _filter_top_k(x: Any, k: int) -> Any:
    """Keras' ``_filter_top_k``: the top ``k`` of the last axis kept, the rest NEG_INF."""
    _, top_k_idx = op("math.top_k")(x, k, sorted=False)
    depth = op("shape")(x)[-1]
    mask = op("reduce_sum")(op("one_hot")(top_k_idx, depth, axis=-1), axis=-2)
    return op("add")(op("multiply")(x, mask), op("multiply")(NEG_INF, op("subtract")(1.0, mask)))


def _counts_by_buckets(
    y_true: Any, y_pred: Any, weights: Any, num_thresholds: int, epsilon: bool, multi: bool
) -> tuple[Any, Any, Any, Any]:
    """Keras' ``_update_confusion_matrix_variables_optimized``: ``(tp, fp, total true,
    total false)`` counted by buckets (``[T]``, or ``[T, labels]`` for multi-label)."""
    y_pred = op("clip_by_value")(y_pred, 0.0, 1.0)
    y_true = op("cast")(op("cast")(y_true, "bool"), y_true.dtype)
    if not multi:
        y_true = op("reshape")(y_true, [-1])
        y_pred = op("reshape")(y_pred, [-1])
    true_labels = op("multiply")(y_true, weights)
    false_labels = op("multiply")(op("subtract")(1.0, y_true), weights)
    buckets = op("subtract")(op("ceil")(op("multiply")(y_pred, float(num_thresholds - 1))), 1.0)
    if epsilon:
        buckets = op("nn.relu")(buckets)
    buckets = op("cast")(buckets, "int32")
    if multi:  # one segment range per label: [labels, T] sums, transposed back
        labels = op("shape")(buckets)[1]
        offsets = op("multiply")(op("range")(labels), num_thresholds)
        ids = op("add")(buckets, offsets)
        segments = op("multiply")(labels, num_thresholds)

        def by_bucket(data: Any) -> Any:
            sums = op("math.unsorted_segment_sum")(data, ids, segments)
            sums = op("reshape")(sums, op("stack")([labels, num_thresholds]))
            return op("transpose")(op("cumsum")(sums, axis=1, reverse=True))

        tp, fp = by_bucket(true_labels), by_bucket(false_labels)
        return (
            tp,
            fp,
            op("reduce_sum")(op("transpose")(true_labels), axis=1),
            op("reduce_sum")(op("transpose")(false_labels), axis=1),
        )
    tp = op("cumsum")(
        op("math.unsorted_segment_sum")(true_labels, buckets, num_thresholds), reverse=True
    )
    fp = op("cumsum")(
        op("math.unsorted_segment_sum")(false_labels, buckets, num_thresholds), reverse=True
    )
    return tp, fp, op("reduce_sum")(true_labels), op("reduce_sum")(false_labels)


def update_confusion_matrix_variables(
    variables: dict[str, Any],
    y_true: Any,
    y_pred: Any,
    thresholds: Any,
    top_k: int | None = None,
    class_id: int | None = None,
    sample_weight: Any = None,
    multi_label: bool = False,
    label_weights: Any = None,
    thresholds_distributed_evenly: bool = False,
) -> Any:
    """Keras' ``update_confusion_matrix_variables``: the op adding a batch's weighted
    counts to ``variables`` (``'tp'``, ``'fp'``, ``'tn'``, ``'fn'``), one per threshold.

    Args:
      variables: the count variables by key.
      y_true: the labels (cast to the variables' dtype, then to bool).
      y_pred: the predictions.
      thresholds: the thresholds (a prediction above one is positive).
      top_k: keep only the top ``k`` predictions of the last axis (TF's default None).
      class_id: count only this class of the last axis (TF's default None).
      sample_weight: optional weights broadcast to the predictions (TF's default None).
      multi_label: counts per label of the last axis (TF's default False).
      label_weights: weights per label when not ``multi_label`` (TF's default None).
      thresholds_distributed_evenly: count by buckets (TF's default False).

    Returns:
      The grouped update op.

    Raises:
      ValueError: predictions whose shape is not the labels' (TF's message).
    """
    from adapters.v1.keras.training import _squeeze_or_expand

    dtype = next(iter(variables.values())).dtype.base_dtype
    y_true = op("cast")(y_true, dtype)
    y_pred = op("cast")(y_pred, dtype)
    if thresholds_distributed_evenly:
        with_epsilon = thresholds[0] < 0.0 or thresholds[-1] > 1.0
    thresholds_t = constant(np.asarray(thresholds, np.float64), dtype=dtype)
    num_thresholds = len(thresholds)
    y_pred, y_true = _squeeze_or_expand(y_pred, y_true)
    if sample_weight is not None:
        sample_weight = losses._squeeze_or_expand(y_pred, op("cast")(sample_weight, dtype))
    y_pred.shape.assert_is_compatible_with(y_true.shape)
    if top_k is not None:
        y_pred = _filter_top_k(y_pred, top_k)
    if class_id is not None:
        y_true = op("gather")(y_true, [class_id], axis=-1)
        y_pred = op("gather")(y_pred, [class_id], axis=-1)
    flat = [-1] if not multi_label else None
    weights: Any = None
    if sample_weight is not None:
        weights = _broadcast_weights(op("cast")(sample_weight, dtype), y_pred)
    if label_weights is not None and not multi_label:
        label_w = _broadcast_weights(op("expand_dims")(label_weights, 0), y_pred)
        weights = label_w if weights is None else op("multiply")(weights, label_w)
    updates = []
    if thresholds_distributed_evenly:
        w = constant(1.0, dtype=dtype) if weights is None else weights
        if flat is not None and weights is not None:
            w = op("reshape")(w, flat)
        tp, fp, total_true, total_false = _counts_by_buckets(
            y_true, y_pred, w, num_thresholds, with_epsilon, multi_label
        )
        counts = {
            _TP: tp,
            _FP: fp,
            _TN: op("subtract")(total_false, fp),
            _FN: op("subtract")(total_true, tp),
        }
        for key in (_TP, _FP, _TN, _FN):
            if key in variables:
                updates.append(variables[key].assign_add(counts[key]))
        return group(*updates)
    if multi_label:  # [T, 1, 1] against [1, N, labels]: counts [T, labels]
        preds = op("expand_dims")(y_pred, 0)
        labels = op("expand_dims")(op("cast")(y_true, "bool"), 0)
        cuts = op("reshape")(thresholds_t, [num_thresholds, 1, 1])
        if weights is not None:
            weights = op("expand_dims")(weights, 0)
    else:  # [T, 1] against [1, N * labels]: counts [T]
        preds = op("reshape")(y_pred, [1, -1])
        labels = op("reshape")(op("cast")(y_true, "bool"), [1, -1])
        cuts = op("reshape")(thresholds_t, [num_thresholds, 1])
        if weights is not None:
            weights = op("reshape")(weights, [1, -1])
    pred_is_pos = op("greater")(preds, cuts)
    pred_is_neg = op("logical_not")(pred_is_pos)
    label_is_neg = op("logical_not")(labels)
    cells = {
        _TP: (labels, pred_is_pos),
        _FN: (labels, pred_is_neg),
        _FP: (label_is_neg, pred_is_pos),
        _TN: (label_is_neg, pred_is_neg),
    }
    for key in (_TP, _FN, _FP, _TN):
        if key not in variables:
            continue
        label, pred = cells[key]
        hits = op("cast")(op("logical_and")(label, pred), dtype)
        if weights is not None:
            hits = op("multiply")(hits, weights)
        updates.append(variables[key].assign_add(op("reduce_sum")(hits, 1)))
    return group(*updates)


class _ConfusionMatrixConditionCount(Metric):
    """One count of the confusion matrix per threshold (variable ``accumulator``)."""

    _key = _TP

    def __init__(self, thresholds: Any = None, name: str | None = None, dtype: Any = None):
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.thresholds = _parse_thresholds(thresholds, 0.5)
        self._thresholds_distributed_evenly = _evenly_distributed(self.thresholds)
        self.accumulator = self.add_weight(
            "accumulator", shape=(len(self.thresholds),), initializer="zeros"
        )

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        """Adds the batch's (weighted) count at each threshold.

        Args:
          y_true: the labels (nonzero: positive).
          y_pred: the predictions.
          sample_weight: optional weights (TF's default ``None``).

        Returns:
          The update op.
        """
        return update_confusion_matrix_variables(
            {self._key: self.accumulator},
            y_true,
            y_pred,
            thresholds=self.thresholds,
            thresholds_distributed_evenly=self._thresholds_distributed_evenly,
            sample_weight=sample_weight,
        )

    def result(self) -> Any:
        """The counts (a scalar for one threshold)."""
        value = self.accumulator.read_value()
        return value[0] if len(self.thresholds) == 1 else value

    def get_config(self) -> dict[str, Any]:
        """The name, dtype and ``thresholds`` as given."""
        return {**super().get_config(), "thresholds": self.init_thresholds}


def _count_class(cls_name: str, key: str, what: str) -> type:
    def __init__(
        self: Any, thresholds: Any = None, name: str | None = None, dtype: Any = None
    ) -> None:
        _ConfusionMatrixConditionCount.__init__(self, thresholds, name, dtype)

    doc = f"""The (weighted) number of {what} per threshold.

    Args:
      thresholds: a threshold or a list in ``[0, 1]`` (TF's default ``None``: 0.5).
      name: the metric's name (TF's default ``None``: the class name in snake case).
      dtype: the dtype (TF's default ``None``: ``floatx()``).

    Raises:
      ValueError: a threshold outside ``[0, 1]`` (TF's message).
    """
    return type(
        cls_name,
        (_ConfusionMatrixConditionCount,),
        {"__init__": __init__, "__doc__": doc, "_key": key, "__module__": __name__},
    )


TruePositives = _count_class("TruePositives", _TP, "true positives")
FalsePositives = _count_class("FalsePositives", _FP, "false positives")
TrueNegatives = _count_class("TrueNegatives", _TN, "true negatives")
FalseNegatives = _count_class("FalseNegatives", _FN, "false negatives")


class _Ratio(Metric):
    """Precision or recall: ``tp / (tp + other)`` per threshold."""

    _other = _FP
    _other_name = "false_positives"

    def __init__(
        self,
        thresholds: Any = None,
        top_k: int | None = None,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ):
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.top_k = top_k
        self.class_id = class_id
        default = 0.5 if top_k is None else NEG_INF
        self.thresholds = _parse_thresholds(thresholds, default)
        self._thresholds_distributed_evenly = _evenly_distributed(self.thresholds)
        shape = (len(self.thresholds),)
        self.true_positives = self.add_weight("true_positives", shape=shape, initializer="zeros")
        self._other_count = self.add_weight(self._other_name, shape=shape, initializer="zeros")
        setattr(self, self._other_name, self._other_count)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        """Adds the batch's (weighted) counts at each threshold.

        Args:
          y_true: the labels (nonzero: positive).
          y_pred: the predictions.
          sample_weight: optional weights (TF's default ``None``).

        Returns:
          The update op.
        """
        return update_confusion_matrix_variables(
            {_TP: self.true_positives, self._other: self._other_count},
            y_true,
            y_pred,
            thresholds=self.thresholds,
            thresholds_distributed_evenly=self._thresholds_distributed_evenly,
            top_k=self.top_k,
            class_id=self.class_id,
            sample_weight=sample_weight,
        )

    def result(self) -> Any:
        """``div_no_nan(tp, tp + other)`` (a scalar for one threshold)."""
        tp = self.true_positives.read_value()
        value = op("div_no_nan")(tp, op("add")(tp, self._other_count.read_value()))
        return value[0] if len(self.thresholds) == 1 else value

    def get_config(self) -> dict[str, Any]:
        """The name, dtype, ``thresholds`` as given, ``top_k`` and ``class_id``."""
        return {
            **super().get_config(),
            "thresholds": self.init_thresholds,
            "top_k": self.top_k,
            "class_id": self.class_id,
        }


class Precision(_Ratio):
    """``true_positives / (true_positives + false_positives)`` per threshold.

    Args:
      thresholds: a threshold or a list in ``[0, 1]`` (TF's default ``None``: 0.5,
        or every kept prediction with ``top_k``).
      top_k: count only the top ``k`` predictions of the last axis (TF's default None).
      class_id: count only this class of the last axis (TF's default None).
      name: the metric's name (TF's default ``None``: ``precision``, unique).
      dtype: the dtype (TF's default ``None``: ``floatx()``).

    Raises:
      ValueError: a threshold outside ``[0, 1]`` (TF's message).
    """


class Recall(_Ratio):
    """``true_positives / (true_positives + false_negatives)`` per threshold.

    Args:
      thresholds: a threshold or a list in ``[0, 1]`` (TF's default ``None``: 0.5,
        or every kept prediction with ``top_k``).
      top_k: count only the top ``k`` predictions of the last axis (TF's default None).
      class_id: count only this class of the last axis (TF's default None).
      name: the metric's name (TF's default ``None``: ``recall``, unique).
      dtype: the dtype (TF's default ``None``: ``floatx()``).

    Raises:
      ValueError: a threshold outside ``[0, 1]`` (TF's message).
    """

    _other = _FN
    _other_name = "false_negatives"


_CURVES = {
    "pr": "PR",
    "PR": "PR",
    "roc": "ROC",
    "ROC": "ROC",
    "pr_gain": "PR_GAIN",
    "prgain": "PR_GAIN",
    "PR_GAIN": "PR_GAIN",
    "PRGAIN": "PR_GAIN",
}
_SUMMATIONS = {
    "interpolation": "interpolation",
    "Interpolation": "interpolation",
    "majoring": "majoring",
    "Majoring": "majoring",
    "minoring": "minoring",
    "Minoring": "minoring",
}


class AUC(Metric):
    """The area under the ROC, PR or PR-gain curve, from the confusion counts at
    ``num_thresholds`` thresholds (Keras' ``AUC``).

    Args:
      num_thresholds: the number of thresholds, ``i / (n - 1)`` with the ends moved out
        by ``epsilon()`` (TF's default 200).
      curve: ``'ROC'``, ``'PR'`` or ``'PR_GAIN'`` (TF's default ``'ROC'``).
      summation_method: ``'interpolation'``, ``'minoring'`` or ``'majoring'`` (TF's
        default ``'interpolation'``).
      name: the metric's name (TF's default ``None``: ``auc``, unique).
      dtype: the dtype (TF's default ``None``: ``floatx()``).
      thresholds: the inner thresholds instead (sorted; TF's default None).
      multi_label: one curve per label of the last axis, averaged (TF's default False).
      num_labels: the number of labels, to build at once (TF's default None).
      label_weights: weights per label (TF's default None).
      from_logits: the predictions go through a sigmoid first (TF's default False).

    Raises:
      ValueError: ``num_thresholds`` below 2, an unknown curve or summation method,
        ``num_labels`` without ``multi_label``, multi-label predictions not of rank 2
        (TF's messages).
    """

    def __init__(
        self,
        num_thresholds: int = 200,
        curve: str = "ROC",
        summation_method: str = "interpolation",
        name: str | None = None,
        dtype: Any = None,
        thresholds: Any = None,
        multi_label: bool = False,
        num_labels: int | None = None,
        label_weights: Any = None,
        from_logits: bool = False,
    ):
        self._init_from_thresholds = thresholds is not None
        if thresholds is not None:
            self.num_thresholds = len(thresholds) + 2
            thresholds = sorted(thresholds)
            self._thresholds_distributed_evenly = _evenly_distributed(
                np.array([0.0, *thresholds, 1.0])
            )
        else:
            if num_thresholds <= 1:
                raise ValueError(
                    "Argument `num_thresholds` must be an integer > 1. "
                    f"Received: num_thresholds={num_thresholds}"
                )
            self.num_thresholds = num_thresholds
            thresholds = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self._thresholds_distributed_evenly = True
        eps = backend.epsilon()
        self._thresholds = np.array([0.0 - eps, *thresholds, 1.0 + eps])
        if curve not in _CURVES:
            raise ValueError(
                f'Invalid AUC curve value: "{curve}". Expected values are ["PR", "ROC", "PR_GAIN"]'
            )
        self.curve = _CURVES[curve]
        if summation_method not in _SUMMATIONS:
            raise ValueError(
                f'Invalid AUC summation method value: "{summation_method}". Expected values '
                'are ["interpolation", "majoring", "minoring"]'
            )
        self.summation_method = _SUMMATIONS[summation_method]
        super().__init__(name=name, dtype=dtype)
        self.multi_label = multi_label
        self.num_labels = num_labels
        self.label_weights = (
            None if label_weights is None else constant(label_weights, dtype=self.dtype)
        )
        self._from_logits = from_logits
        self._built = False
        if multi_label:
            if num_labels:
                self._build(TensorShape([None, num_labels]))
        else:
            if num_labels:
                raise ValueError("`num_labels` is needed only when `multi_label` is True.")
            self._build(None)

    @property
    def thresholds(self) -> list[float]:
        """The thresholds, the two outer ones included."""
        return list(self._thresholds)

    def _build(self, shape: Any) -> None:
        if self.multi_label:
            if shape.ndims != 2:
                raise ValueError(
                    "`y_pred` must have rank 2 when `multi_label=True`. "
                    f"Found rank {shape.ndims}. Full shape received for `y_pred`: {shape}"
                )
            self._num_labels = shape.as_list()[1]
            variable_shape: tuple[int, ...] = (self.num_thresholds, self._num_labels)
        else:
            variable_shape = (self.num_thresholds,)
        for key in ("true_positives", "true_negatives", "false_positives", "false_negatives"):
            setattr(self, key, self.add_weight(key, shape=variable_shape, initializer="zeros"))
        self._built = True

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        """Adds the batch's (weighted) confusion counts at each threshold.

        Args:
          y_true: the labels (nonzero: positive).
          y_pred: the predictions (logits with ``from_logits``).
          sample_weight: optional weights (TF's default ``None``).

        Returns:
          The update op.
        """
        y_pred = ops.convert_to_tensor(y_pred)
        if not self._built:
            self._build(TensorShape(y_pred.shape))
        if self._from_logits:
            y_pred = op("sigmoid")(y_pred)
        return update_confusion_matrix_variables(
            {
                _TP: self.true_positives,
                _TN: self.true_negatives,
                _FP: self.false_positives,
                _FN: self.false_negatives,
            },
            y_true,
            y_pred,
            self._thresholds,
            thresholds_distributed_evenly=self._thresholds_distributed_evenly,
            sample_weight=sample_weight,
            multi_label=self.multi_label,
            label_weights=None if self.multi_label else self.label_weights,
        )

    def _by_label(self, terms: Any, name: str) -> Any:
        """The sum over thresholds; multi-label: the (label-weighted) mean over labels."""
        if not self.multi_label:
            return op("reduce_sum")(terms, name=name)
        by_label = op("reduce_sum")(terms, name=self.name + "_by_label", axis=0)
        if self.label_weights is None:
            return op("reduce_mean")(by_label, name=self.name)
        return op("div_no_nan")(
            op("reduce_sum")(op("multiply")(by_label, self.label_weights)),
            op("reduce_sum")(self.label_weights),
            name=self.name,
        )

    def _interpolate_pr_auc(self, tp: Any, fp: Any, fn: Any) -> Any:
        n = self.num_thresholds
        dtp = op("subtract")(tp[: n - 1], tp[1:])
        p = op("add")(tp, fp)
        dp = op("subtract")(p[: n - 1], p[1:])
        prec_slope = op("div_no_nan")(dtp, op("maximum")(dp, 0.0), name="prec_slope")
        intercept = op("subtract")(tp[1:], op("multiply")(prec_slope, p[1:]))
        safe_p_ratio = op("where_v2")(
            op("logical_and")(op("greater")(p[: n - 1], 0.0), op("greater")(p[1:], 0.0)),
            op("div_no_nan")(p[: n - 1], op("maximum")(p[1:], 0.0), name="recall_relative_ratio"),
            op("ones_like")(p[1:]),
        )
        increment = op("div_no_nan")(
            op("multiply")(
                prec_slope, op("add")(dtp, op("multiply")(intercept, op("log")(safe_p_ratio)))
            ),
            op("maximum")(op("add")(tp[1:], fn[1:]), 0.0),
            name="pr_auc_increment",
        )
        return self._by_label(increment, "interpolate_pr_auc")

    def result(self) -> Any:
        """The area, by the curve and summation method."""
        tp = self.true_positives.read_value()
        tn = self.true_negatives.read_value()
        fp = self.false_positives.read_value()
        fn = self.false_negatives.read_value()
        n = self.num_thresholds
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self._interpolate_pr_auc(tp, fp, fn)
        div = op("div_no_nan")
        recall = div(tp, op("add")(tp, fn))
        if self.curve == "ROC":
            x, y = div(fp, op("add")(fp, tn)), recall
        elif self.curve == "PR":
            x, y = recall, div(tp, op("add")(tp, fp))
        else:
            scaling = div(op("add")(tp, fn), op("add")(fp, tn))
            recall_gain = op("subtract")(1.0, op("multiply")(scaling, div(fn, tp)))
            precision_gain = op("subtract")(1.0, op("multiply")(scaling, div(fp, tp)))
            no_tp = op("equal")(tp, 0.0)
            recall_gain = op("where_v2")(no_tp, op("zeros_like")(recall_gain), recall_gain)
            precision_gain = op("where_v2")(no_tp, op("ones_like")(precision_gain), precision_gain)
            x = op("maximum")(recall_gain, op("zeros_like")(recall_gain))
            y = precision_gain
        if self.summation_method == "interpolation":
            heights = op("truediv")(op("add")(y[: n - 1], y[1:]), 2.0)
        elif self.summation_method == "minoring":
            heights = op("minimum")(y[: n - 1], y[1:])
        else:
            heights = op("maximum")(y[: n - 1], y[1:])
        terms = op("multiply")(op("subtract")(x[: n - 1], x[1:]), heights)
        return self._by_label(terms, self.name)

    def reset_state(self) -> None:
        """Sets the counts to 0 in Keras' session (nothing before a build)."""
        if self._built:
            super().reset_state()

    def get_config(self) -> dict[str, Any]:
        """TF's config: the arguments (``thresholds`` only when given)."""
        label_weights = (
            None if self.label_weights is None else backend.get_value(self.label_weights)
        )
        config = {
            **super().get_config(),
            "num_thresholds": self.num_thresholds,
            "curve": self.curve,
            "summation_method": self.summation_method,
            "multi_label": self.multi_label,
            "num_labels": self.num_labels,
            "label_weights": label_weights,
            "from_logits": self._from_logits,
        }
        if self._init_from_thresholds:
            config["thresholds"] = self.thresholds[1:-1]
        return config


# Keras' rates of the confusion counts per threshold (``div_no_nan``): name -> (numerator,
# the other count of the denominator).
_RATES = {
    "sensitivity": (_TP, _FN),
    "recall": (_TP, _FN),
    "specificity": (_TN, _FP),
    "precision": (_TP, _FP),
}


class SensitivitySpecificityBase(Metric):
    """Keras' ``SensitivitySpecificityBase``: the largest ``_dependent`` rate over the
    thresholds whose ``_constrained`` rate is at least ``value`` (0 where none is).

    The confusion counts are kept at ``num_thresholds`` thresholds: 0.5 for one, else
    ``i / (num_thresholds - 1)`` (0 and 1 included, counted by buckets).

    Args:
      value: the constraint's lower bound.
      num_thresholds: the number of thresholds (TF's default 200).
      class_id: count only this class of the last axis (TF's default None).
      name: the metric's name (TF's default ``None``: the class name in snake case).
      dtype: the dtype (TF's default ``None``: ``floatx()``).

    Raises:
      ValueError: ``num_thresholds`` below 1 (TF's message).
    """

    _constrained = "sensitivity"
    _dependent = "specificity"

    def __init__(
        self,
        value: float,
        num_thresholds: int = 200,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ):
        super().__init__(name=name, dtype=dtype)
        if num_thresholds <= 0:
            raise ValueError(
                "Argument `num_thresholds` must be an integer > 0. "
                f"Received: num_thresholds={num_thresholds}"
            )
        self.value = value
        self.class_id = class_id
        self.num_thresholds = num_thresholds
        shape = (num_thresholds,)
        for key in ("true_positives", "true_negatives", "false_positives", "false_negatives"):
            setattr(self, key, self.add_weight(key, shape=shape, initializer="zeros"))
        if num_thresholds == 1:
            self.thresholds = [0.5]
            self._thresholds_distributed_evenly = False
        else:
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self.thresholds = [0.0, *inner, 1.0]
            self._thresholds_distributed_evenly = True

    def _counts(self) -> dict[str, Any]:
        return {
            _TP: self.true_positives,
            _TN: self.true_negatives,
            _FP: self.false_positives,
            _FN: self.false_negatives,
        }

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        """Adds the batch's (weighted) confusion counts at each threshold.

        Args:
          y_true: the labels (nonzero: positive).
          y_pred: the predictions.
          sample_weight: optional weights (TF's default ``None``).

        Returns:
          The update op.
        """
        return update_confusion_matrix_variables(
            self._counts(),
            y_true,
            y_pred,
            thresholds=self.thresholds,
            thresholds_distributed_evenly=self._thresholds_distributed_evenly,
            class_id=self.class_id,
            sample_weight=sample_weight,
        )

    def _rate(self, which: str) -> Any:
        counts = {k: v.read_value() for k, v in self._counts().items()}
        numerator, other = _RATES[which]
        return op("div_no_nan")(counts[numerator], op("add")(counts[numerator], counts[other]))

    def result(self) -> Any:
        """The largest dependent rate where the constrained one is ``>= value``, else 0."""
        constrained = self._rate(self._constrained)
        dependent = self._rate(self._dependent)
        feasible = op("greater_equal")(constrained, self.value)
        lowest = op("fill")(
            op("shape")(dependent), constant(-np.inf, dtype=dependent.dtype.base_dtype)
        )
        best = op("reduce_max")(op("where_v2")(feasible, dependent, lowest))
        value = op("where_v2")(op("reduce_any")(feasible), best, 0.0)
        return array_ops.identity(value)

    def get_config(self) -> dict[str, Any]:
        """The name, dtype, ``class_id``, ``num_thresholds`` and the constraint."""
        return {
            **super().get_config(),
            "class_id": self.class_id,
            "num_thresholds": self.num_thresholds,
            self._constrained: self.value,
        }


def _check_rate(name: str, value: float) -> None:
    """TF's check of the constraint's value.

    Raises:
      ValueError: ``value`` outside ``[0, 1]`` (TF's message, naming ``name``).
    """
    if value < 0 or value > 1:
        raise ValueError(f"Argument `{name}` must be in the range [0, 1]. Received: {name}={value}")


class SensitivityAtSpecificity(SensitivitySpecificityBase):
    """The best sensitivity at a specificity of at least ``specificity``, over ``num_thresholds``
    thresholds (0 where no threshold reaches it).

    Args:
      specificity: the specificity to reach, in ``[0, 1]``.
      num_thresholds: the number of thresholds (TF's default 200).
      class_id: count only this class of the last axis (TF's default None).
      name: the metric's name (TF's default ``None``: the class name in snake case,
        unique).
      dtype: the dtype (TF's default ``None``: ``floatx()``).

    Raises:
      ValueError: ``specificity`` outside ``[0, 1]``, ``num_thresholds`` below 1 (TF's
        messages).
    """

    _constrained = "specificity"
    _dependent = "sensitivity"

    def __init__(
        self,
        specificity: float,
        num_thresholds: int = 200,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ):
        _check_rate("specificity", specificity)
        self.specificity = specificity
        super().__init__(specificity, num_thresholds, class_id, name, dtype)


class SpecificityAtSensitivity(SensitivitySpecificityBase):
    """The best specificity at a sensitivity of at least ``sensitivity``, over ``num_thresholds``
    thresholds (0 where no threshold reaches it).

    Args:
      sensitivity: the sensitivity to reach, in ``[0, 1]``.
      num_thresholds: the number of thresholds (TF's default 200).
      class_id: count only this class of the last axis (TF's default None).
      name: the metric's name (TF's default ``None``: the class name in snake case,
        unique).
      dtype: the dtype (TF's default ``None``: ``floatx()``).

    Raises:
      ValueError: ``sensitivity`` outside ``[0, 1]``, ``num_thresholds`` below 1 (TF's
        messages).
    """

    _constrained = "sensitivity"
    _dependent = "specificity"

    def __init__(
        self,
        sensitivity: float,
        num_thresholds: int = 200,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ):
        _check_rate("sensitivity", sensitivity)
        self.sensitivity = sensitivity
        super().__init__(sensitivity, num_thresholds, class_id, name, dtype)


class PrecisionAtRecall(SensitivitySpecificityBase):
    """The best precision at a recall of at least ``recall``, over ``num_thresholds``
    thresholds (0 where no threshold reaches it).

    Args:
      recall: the recall to reach, in ``[0, 1]``.
      num_thresholds: the number of thresholds (TF's default 200).
      class_id: count only this class of the last axis (TF's default None).
      name: the metric's name (TF's default ``None``: the class name in snake case,
        unique).
      dtype: the dtype (TF's default ``None``: ``floatx()``).

    Raises:
      ValueError: ``recall`` outside ``[0, 1]``, ``num_thresholds`` below 1 (TF's
        messages).
    """

    _constrained = "recall"
    _dependent = "precision"

    def __init__(
        self,
        recall: float,
        num_thresholds: int = 200,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ):
        _check_rate("recall", recall)
        self.recall = recall
        super().__init__(recall, num_thresholds, class_id, name, dtype)


class RecallAtPrecision(SensitivitySpecificityBase):
    """The best recall at a precision of at least ``precision``, over ``num_thresholds``
    thresholds (0 where no threshold reaches it).

    Args:
      precision: the precision to reach, in ``[0, 1]``.
      num_thresholds: the number of thresholds (TF's default 200).
      class_id: count only this class of the last axis (TF's default None).
      name: the metric's name (TF's default ``None``: the class name in snake case,
        unique).
      dtype: the dtype (TF's default ``None``: ``floatx()``).

    Raises:
      ValueError: ``precision`` outside ``[0, 1]``, ``num_thresholds`` below 1 (TF's
        messages).
    """

    _constrained = "precision"
    _dependent = "recall"

    def __init__(
        self,
        precision: float,
        num_thresholds: int = 200,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ):
        _check_rate("precision", precision)
        self.precision = precision
        super().__init__(precision, num_thresholds, class_id, name, dtype)


__getattr__ = missing_name_getattr("tf.keras.metrics", globals())
