"""``tf.keras.metrics``' F-scores (legacy Keras 2) in a TF1 graph: ``FBetaScore`` and
``F1Score``.

The state is per class (or one count for ``average='micro'``): ``true_positives``,
``false_positives``, ``false_negatives`` and ``intermediate_weights`` (the weighted
label sums, for ``average='weighted'``), built at the first update from 2-D inputs.

.. note:: In a TF1 graph TF 2.21's ``update_state`` returns the graph's last op, the
   update of ``intermediate_weights``: only that update runs, the true/false positive
   and false negative counts stay 0 and the score is 0; ``reset_state()`` builds
   assignments of zeros and runs none. These metrics keep TF's behaviour.
"""

from __future__ import annotations

from typing import Any

from adapters.v1.framework import ops
from adapters.v1.keras.metrics import Metric, _check_2d, _last_update, _reset_not_run
from adapters.v1.layers.base import op
from adapters.v1.ops import array_ops

__all__ = ["F1Score", "FBetaScore"]

_AVERAGES = (None, "micro", "macro", "weighted")


class FBetaScore(Metric):
    """The F-beta score ``(1 + beta^2) * p * r / (beta^2 * p + r)`` of the precision
    ``p`` and recall ``r`` per class, or averaged.

    Args:
      average: ``None`` (one score per class), ``'micro'`` (of the counts summed over
        the classes), ``'macro'`` (the scores' mean) or ``'weighted'`` (weighted by the
        labels' sums) (TF's default ``None``).
      beta: the recall's weight, a Python float > 0 (TF's default 1.0).
      threshold: predictions above it are positive, a Python float in ``(0, 1]`` (TF's
        default ``None``: the row's largest prediction, when not 0).
      name: the metric's name (TF's default ``'fbeta_score'``).
      dtype: the dtype (TF's default ``None``: ``floatx()``).

    Raises:
      ValueError: an unknown ``average``, a ``beta`` or ``threshold`` that is no float
        or out of range; (at the first update) inputs not of rank 2 (TF's messages).
    """

    def __init__(
        self,
        average: str | None = None,
        beta: float = 1.0,
        threshold: float | None = None,
        name: str = "fbeta_score",
        dtype: Any = None,
    ):
        super().__init__(name=name, dtype=dtype)
        if average not in _AVERAGES:
            raise ValueError(
                "Invalid `average` argument value. Expected one of: {None, 'micro', "
                f"'macro', 'weighted'}}. Received: average={average}"
            )
        if not isinstance(beta, float):
            raise ValueError(
                "Invalid `beta` argument value. It should be a Python float. "
                f"Received: beta={beta} of type '{type(beta)}'"
            )
        if beta <= 0.0:
            raise ValueError(
                f"Invalid `beta` argument value. It should be > 0. Received: beta={beta}"
            )
        if threshold is not None:
            if not isinstance(threshold, float):
                raise ValueError(
                    "Invalid `threshold` argument value. It should be a Python float. "
                    f"Received: threshold={threshold} of type '{type(threshold)}'"
                )
            if threshold > 1.0 or threshold <= 0.0:
                raise ValueError(
                    "Invalid `threshold` argument value. It should verify 0 < threshold "
                    f"<= 1. Received: threshold={threshold}"
                )
        self.average = average
        self.beta = beta
        self.threshold = threshold
        self.axis = None if average == "micro" else 0
        self.built = False

    def build(self, y_true_shape: Any, y_pred_shape: Any) -> None:
        """Creates the counts (one per class, a scalar for ``'micro'``) for 2-D inputs."""
        classes = _check_2d("FBetaScore", y_true_shape, y_pred_shape)
        shape = () if self.average == "micro" else (classes,)
        for key in ("true_positives", "false_positives", "false_negatives"):
            setattr(self, key, self.add_weight(key, shape=shape, initializer="zeros"))
        self.intermediate_weights = self.add_weight(
            "intermediate_weights", shape=shape, initializer="zeros"
        )
        self.built = True

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        """Adds the batch's (weighted) counts.

        Args:
          y_true: the ``[batch, classes]`` 0/1 labels (of the metric's dtype).
          y_pred: the predictions, of the same dtype.
          sample_weight: optional weights, one per example (TF's default ``None``).

        Returns:
          The last update op (``intermediate_weights``': TF's graph-mode Keras' return).

        Raises:
          ValueError: inputs of another dtype or not of rank 2 (TF's messages).
        """
        y_true = ops.convert_to_tensor(y_true, dtype=self._dtype)
        y_pred = ops.convert_to_tensor(y_pred, dtype=self._dtype)
        if not self.built:
            self.build(y_true.shape, y_pred.shape)
        if self.threshold is None:
            top = op("reduce_max")(y_pred, axis=-1, keepdims=True)
            positive = op("logical_and")(
                op("greater_equal")(y_pred, top), op("greater")(op("abs")(y_pred), 1e-09)
            )
        else:
            positive = op("greater")(y_pred, self.threshold)
        y_pred = op("cast")(positive, self._dtype)

        def weighted_sum(values: Any) -> Any:
            if sample_weight is not None:
                values = op("multiply")(values, op("expand_dims")(sample_weight, 1))
            return op("reduce_sum")(values, axis=self.axis)

        false_true, false_pred = 1 - y_true, 1 - y_pred  # as TF: 1 in their dtype
        return _last_update(
            [
                self.true_positives.assign_add(weighted_sum(op("multiply")(y_pred, y_true))),
                self.false_positives.assign_add(weighted_sum(op("multiply")(y_pred, false_true))),
                self.false_negatives.assign_add(weighted_sum(op("multiply")(false_pred, y_true))),
                self.intermediate_weights.assign_add(weighted_sum(y_true)),
            ]
        )

    def result(self) -> Any:
        """The score per class, or averaged (``div_no_nan`` throughout)."""
        div = op("div_no_nan")
        tp = self.true_positives.read_value()
        precision = div(tp, op("add")(tp, self.false_positives.read_value()))
        recall = div(tp, op("add")(tp, self.false_negatives.read_value()))
        beta_sq = op("square")(self.beta)
        mean = div(
            op("multiply")(precision, recall),
            op("add")(op("multiply")(beta_sq, precision), recall),
        )
        score = op("multiply")(mean, 1 + beta_sq)
        if self.average == "weighted":
            label_sums = self.intermediate_weights.read_value()
            weights = div(label_sums, op("reduce_sum")(label_sums))
            score = op("reduce_sum")(op("multiply")(score, weights))
        elif self.average is not None:
            score = op("reduce_mean")(score)
        return array_ops.identity(score)

    def reset_state(self) -> None:
        """Builds assignments of zeros and runs none (TF's graph-mode ``reset_state``)."""
        _reset_not_run(self)

    def get_config(self) -> dict[str, Any]:
        """The name, dtype, ``average``, ``beta`` and ``threshold``."""
        return {
            **super().get_config(),
            "average": self.average,
            "beta": self.beta,
            "threshold": self.threshold,
        }


class F1Score(FBetaScore):
    """The F1 score ``2 * p * r / (p + r)`` per class, or averaged (``FBetaScore``
    with ``beta=1.0``).

    Args:
      average: ``None``, ``'micro'``, ``'macro'`` or ``'weighted'`` (TF's default
        ``None``).
      threshold: predictions above it are positive (TF's default ``None``: the row's
        largest prediction, when not 0).
      name: the metric's name (TF's default ``'f1_score'``).
      dtype: the dtype (TF's default ``None``: ``floatx()``).

    Raises:
      ValueError: an unknown ``average``, a bad ``threshold`` (TF's messages).
    """

    def __init__(
        self,
        average: str | None = None,
        threshold: float | None = None,
        name: str = "f1_score",
        dtype: Any = None,
    ):
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        """``FBetaScore``'s config without ``beta``."""
        config = super().get_config()
        del config["beta"]
        return config
