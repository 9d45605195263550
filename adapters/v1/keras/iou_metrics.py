"""``tf.keras.metrics``' intersection-over-union metrics (legacy Keras 2) in a TF1 graph:
``IoU``, ``MeanIoU``, ``BinaryIoU``, ``OneHotIoU`` and ``OneHotMeanIoU``.

Each accumulates a ``[num_classes, num_classes]`` confusion matrix (rows: labels,
columns: predictions) in the variable ``total_confusion_matrix``, weighted by
``sample_weight``; the result is the mean of the per-class
``tp / (tp + fp + fn)`` over the target classes whose denominator is not 0.
"""

from __future__ import annotations

from typing import Any

from adapters.v1.keras.metrics import Metric, _as_op
from adapters.v1.layers.base import op
from adapters.v1.ops import array_ops

__all__ = ["BinaryIoU", "IoU", "MeanIoU", "OneHotIoU", "OneHotMeanIoU"]


class _IoUBase(Metric):
    """Keras' ``_IoUBase``: the confusion matrix of the labels against the predictions."""

    def __init__(
        self,
        num_classes: int,
        name: str | None = None,
        dtype: Any = None,
        ignore_class: int | None = None,
        sparse_y_true: bool = True,
        sparse_y_pred: bool = True,
        axis: int = -1,
    ):
        super().__init__(name=name, dtype=dtype)
        self.num_classes = num_classes
        self.ignore_class = ignore_class
        self.sparse_y_true = sparse_y_true
        self.sparse_y_pred = sparse_y_pred
        self.axis = axis
        self.total_cm = self.add_weight(
            "total_confusion_matrix", shape=(num_classes, num_classes), initializer="zeros"
        )

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        """Adds the batch's (weighted) confusion matrix.

        Args:
          y_true: the class ids (``argmax`` over ``axis`` unless ``sparse_y_true``).
          y_pred: the predicted ids (``argmax`` over ``axis`` unless ``sparse_y_pred``).
          sample_weight: optional weights, one per flattened element (TF's default
            ``None``: 1 each).

        Returns:
          The update op.

        Raises:
          ValueError: weights whose shape is not the flattened predictions' (TF's
            ``confusion_matrix`` message).
          InvalidArgumentError: (when run) an id that is negative or not below
            ``num_classes`` (TF's ``confusion_matrix`` assertion).
        """
        if not self.sparse_y_true:
            y_true = op("argmax")(y_true, axis=self.axis)
        if not self.sparse_y_pred:
            y_pred = op("argmax")(y_pred, axis=self.axis)
        y_true = op("cast")(y_true, self._dtype)
        y_pred = op("cast")(y_pred, self._dtype)
        if y_pred.shape.ndims > 1:
            y_pred = op("reshape")(y_pred, [-1])
        if y_true.shape.ndims > 1:
            y_true = op("reshape")(y_true, [-1])
        if sample_weight is not None:
            sample_weight = op("cast")(sample_weight, self._dtype)
            if sample_weight.shape.ndims > 1:
                sample_weight = op("reshape")(sample_weight, [-1])
        if self.ignore_class is not None:
            valid = op("not_equal")(y_true, op("cast")(self.ignore_class, y_true.dtype))
            y_true = op("boolean_mask")(y_true, valid)
            y_pred = op("boolean_mask")(y_pred, valid)
            if sample_weight is not None:
                sample_weight = op("boolean_mask")(sample_weight, valid)
        batch_cm = op("math.confusion_matrix")(
            y_true, y_pred, self.num_classes, weights=sample_weight, dtype=self._dtype
        )
        return _as_op(self.total_cm.assign_add(batch_cm))


class IoU(_IoUBase):
    """The mean intersection-over-union of the ``target_class_ids`` classes.

    Args:
      num_classes: the number of classes (the confusion matrix's side).
      target_class_ids: the classes averaged (one id: that class's IoU).
      name: the metric's name (TF's default ``None``: ``io_u``, unique).
      dtype: the dtype (TF's default ``None``: ``floatx()``).
      ignore_class: a label id left out of the counts (TF's default ``None``).
      sparse_y_true: the labels are ids, else ``argmax`` over ``axis`` (TF's default
        True).
      sparse_y_pred: the predictions are ids, else ``argmax`` over ``axis`` (TF's
        default True).
      axis: the class axis of dense labels or predictions (TF's default -1).

    Raises:
      ValueError: a target class id not below ``num_classes`` (TF's message).
    """

    def __init__(
        self,
        num_classes: int,
        target_class_ids: Any,
        name: str | None = None,
        dtype: Any = None,
        ignore_class: int | None = None,
        sparse_y_true: bool = True,
        sparse_y_pred: bool = True,
        axis: int = -1,
    ):
        super().__init__(
            num_classes,
            name=name,
            dtype=dtype,
            ignore_class=ignore_class,
            sparse_y_true=sparse_y_true,
            sparse_y_pred=sparse_y_pred,
            axis=axis,
        )
        largest = max(target_class_ids)
        if largest >= num_classes:
            raise ValueError(
                f"Target class id {largest} is out of range, which is [0, {num_classes})."
            )
        self.target_class_ids = list(target_class_ids)

    def result(self) -> Any:
        """The mean over the target classes of ``div_no_nan(tp, tp + fp + fn)``, divided
        by the number of them whose ``tp + fp + fn`` is not 0 (``div_no_nan``)."""
        cm = self.total_cm.read_value()
        by_prediction = op("reduce_sum")(cm, axis=0)
        by_label = op("reduce_sum")(cm, axis=1)
        tp = op("linalg.tensor_diag_part")(cm)
        union = op("subtract")(op("add")(by_prediction, by_label), tp)
        tp = op("gather")(tp, self.target_class_ids)
        union = op("gather")(union, self.target_class_ids)
        present = op("reduce_sum")(op("cast")(op("not_equal")(union, 0), self._dtype))
        iou = op("div_no_nan")(tp, union)
        value = op("div_no_nan")(op("reduce_sum")(iou, name="mean_iou"), present)
        return array_ops.identity(value)

    def get_config(self) -> dict[str, Any]:
        """The name, dtype and the arguments."""
        return {
            **super().get_config(),
            "num_classes": self.num_classes,
            "target_class_ids": self.target_class_ids,
            "ignore_class": self.ignore_class,
            "sparse_y_true": self.sparse_y_true,
            "sparse_y_pred": self.sparse_y_pred,
            "axis": self.axis,
        }


class BinaryIoU(IoU):
    """The IoU of classes 0 and/or 1, a prediction of class 1 where it is at least
    ``threshold``.

    Args:
      target_class_ids: ``[0]``, ``[1]`` or both (TF's default ``(0, 1)``).
      threshold: predictions ``>= threshold`` are class 1 (TF's default 0.5).
      name: the metric's name (TF's default ``None``: ``binary_io_u``, unique).
      dtype: the dtype (TF's default ``None``: ``floatx()``).

    Raises:
      ValueError: a target class id above 1 (TF's message).
    """

    def __init__(
        self,
        target_class_ids: Any = (0, 1),
        threshold: float = 0.5,
        name: str | None = None,
        dtype: Any = None,
    ):
        super().__init__(2, target_class_ids, name=name, dtype=dtype)
        self.threshold = threshold

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        """Adds the batch's confusion matrix, the predictions thresholded to 0/1.

        Args:
          y_true: the 0/1 labels.
          y_pred: the scores (class 1 where ``>= threshold``).
          sample_weight: optional weights (TF's default ``None``: 1 each).

        Returns:
          The update op.
        """
        y_pred = op("cast")(y_pred, self._dtype)
        y_pred = op("cast")(op("greater_equal")(y_pred, self.threshold), self._dtype)
        return super().update_state(y_true, y_pred, sample_weight)

    def get_config(self) -> dict[str, Any]:
        """TF's: ``target_class_ids``, ``threshold``, the name and dtype."""
        return {
            "target_class_ids": self.target_class_ids,
            "threshold": self.threshold,
            "name": self.name,
            "dtype": self.dtype,
        }


class MeanIoU(IoU):
    """The mean IoU over all ``num_classes`` classes.

    Args:
      num_classes: the number of classes (the confusion matrix's side).
      name: the metric's name (TF's default ``None``: ``mean_io_u``, unique).
      dtype: the dtype (TF's default ``None``: ``floatx()``).
      ignore_class: a label id left out of the counts (TF's default ``None``).
      sparse_y_true: the labels are ids, else ``argmax`` over ``axis`` (TF's default
        True).
      sparse_y_pred: the predictions are ids, else ``argmax`` over ``axis`` (TF's
        default True).
      axis: the class axis of dense labels or predictions (TF's default -1).
    """

    def __init__(
        self,
        num_classes: int,
        name: str | None = None,
        dtype: Any = None,
        ignore_class: int | None = None,
        sparse_y_true: bool = True,
        sparse_y_pred: bool = True,
        axis: int = -1,
    ):
        super().__init__(
            num_classes,
            list(range(num_classes)),
            name=name,
            dtype=dtype,
            ignore_class=ignore_class,
            sparse_y_true=sparse_y_true,
            sparse_y_pred=sparse_y_pred,
            axis=axis,
        )

    def get_config(self) -> dict[str, Any]:
        """TF's: the arguments without ``target_class_ids``."""
        config = super().get_config()
        del config["target_class_ids"]
        return config


class OneHotIoU(IoU):
    """The IoU of the ``target_class_ids`` classes for one-hot labels (their ``argmax``
    over ``axis``).

    Args:
      num_classes: the number of classes (the confusion matrix's side).
      target_class_ids: the classes averaged.
      name: the metric's name (TF's default ``None``: ``one_hot_io_u``, unique).
      dtype: the dtype (TF's default ``None``: ``floatx()``).
      ignore_class: a label id left out of the counts (TF's default ``None``).
      sparse_y_pred: the predictions are ids, else ``argmax`` over ``axis`` (TF's
        default False).
      axis: the class axis (TF's default -1).

    Raises:
      ValueError: a target class id not below ``num_classes`` (TF's message).
    """

    def __init__(
        self,
        num_classes: int,
        target_class_ids: Any,
        name: str | None = None,
        dtype: Any = None,
        ignore_class: int | None = None,
        sparse_y_pred: bool = False,
        axis: int = -1,
    ):
        super().__init__(
            num_classes,
            target_class_ids,
            name=name,
            dtype=dtype,
            ignore_class=ignore_class,
            sparse_y_true=False,
            sparse_y_pred=sparse_y_pred,
            axis=axis,
        )

    def get_config(self) -> dict[str, Any]:
        """TF's: the arguments without ``sparse_y_true``."""
        config = super().get_config()
        del config["sparse_y_true"]
        return config


class OneHotMeanIoU(MeanIoU):
    """The mean IoU over all classes for one-hot labels (their ``argmax`` over ``axis``).

    Args:
      num_classes: the number of classes (the confusion matrix's side).
      name: the metric's name (TF's default ``None``: ``one_hot_mean_io_u``, unique).
      dtype: the dtype (TF's default ``None``: ``floatx()``).
      ignore_class: a label id left out of the counts (TF's default ``None``).
      sparse_y_pred: the predictions are ids, else ``argmax`` over ``axis`` (TF's
        default False).
      axis: the class axis (TF's default -1).
    """

    def __init__(
        self,
        num_classes: int,
        name: str | None = None,
        dtype: Any = None,
        ignore_class: int | None = None,
        sparse_y_pred: bool = False,
        axis: int = -1,
    ):
        super().__init__(
            num_classes,
            name=name,
            dtype=dtype,
            ignore_class=ignore_class,
            sparse_y_true=False,
            sparse_y_pred=sparse_y_pred,
            axis=axis,
        )

    def get_config(self) -> dict[str, Any]:
        """TF's: the arguments without ``sparse_y_true``."""
        config = super().get_config()
        del config["sparse_y_true"]
        return config
