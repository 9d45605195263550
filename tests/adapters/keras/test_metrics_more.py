"""The IoU metrics and the rates at a constraint on the examples of TF's docs (the values
TF's docstrings print, to the digits they print), without TensorFlow; every metric,
argument and TF 2.21's graph-mode behaviour is checked live in
``tests/interop/test_keras_metrics_more_interop.py``. Failed before these metrics were
in ``adapters.v1`` (AttributeError: the names were missing).
"""

from __future__ import annotations

import numpy as np
import pytest

from adapters import v1 as tf

M = tf.keras.metrics
ONE_HOT_TRUE = [[0, 0, 1], [1, 0, 0], [0, 1, 0], [1, 0, 0]]
ONE_HOT_PRED = [[0.2, 0.3, 0.5], [0.1, 0.2, 0.7], [0.5, 0.3, 0.1], [0.1, 0.4, 0.5]]
RATES_TRUE, RATES_PRED = [0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8]

# (metric, y_true, y_pred, sample_weight, TF's printed value, its precision: the digits
# printed, or a float32 ulp where TF's docs print 2/3 or 1/3 to 8 decimals)
DOC_EXAMPLES = [
    (lambda: M.IoU(2, [0]), [0, 0, 1, 1], [0, 1, 0, 1], None, 0.33333334, 1e-8),
    (lambda: M.IoU(2, [0]), [0, 0, 1, 1], [0, 1, 0, 1], [0.3, 0.3, 0.3, 0.1], 0.33333334, 1e-8),
    (lambda: M.MeanIoU(2), [0, 0, 1, 1], [0, 1, 0, 1], None, 0.33333334, 1e-8),
    (lambda: M.MeanIoU(2), [0, 0, 1, 1], [0, 1, 0, 1], [0.3, 0.3, 0.3, 0.1], 0.23809525, 1e-8),
    (
        lambda: M.BinaryIoU([0, 1], threshold=0.3),
        [0, 1, 0, 1],
        [0.1, 0.2, 0.4, 0.7],
        None,
        0.33333334,
        1e-8,
    ),
    (
        lambda: M.BinaryIoU([0, 1], threshold=0.3),
        [0, 1, 0, 1],
        [0.1, 0.2, 0.4, 0.7],
        [0.2, 0.3, 0.4, 0.1],
        0.17361112,
        1e-8,
    ),
    (lambda: M.OneHotIoU(3, [0, 2]), ONE_HOT_TRUE, ONE_HOT_PRED, [0.1, 0.2, 0.3, 0.4], 0.071, 5e-4),
    (lambda: M.OneHotMeanIoU(3), ONE_HOT_TRUE, ONE_HOT_PRED, [0.1, 0.2, 0.3, 0.4], 0.048, 5e-4),
    (lambda: M.SensitivityAtSpecificity(0.5), RATES_TRUE, RATES_PRED, None, 0.5, 0.0),
    (
        lambda: M.SensitivityAtSpecificity(0.5),
        RATES_TRUE,
        RATES_PRED,
        [1, 1, 2, 2, 1],
        0.333333,
        5e-7,
    ),
    (lambda: M.SpecificityAtSensitivity(0.5), RATES_TRUE, RATES_PRED, None, 0.66666667, 6e-8),
    (lambda: M.SpecificityAtSensitivity(0.5), RATES_TRUE, RATES_PRED, [1, 1, 2, 2, 2], 0.5, 0.0),
    (lambda: M.PrecisionAtRecall(0.5), RATES_TRUE, RATES_PRED, None, 0.5, 0.0),
    (
        lambda: M.PrecisionAtRecall(0.5),
        RATES_TRUE,
        RATES_PRED,
        [2, 2, 2, 1, 1],
        0.33333333,
        3e-8,
    ),
    (lambda: M.RecallAtPrecision(0.8), [0, 0, 1, 1], [0, 0.5, 0.3, 0.9], None, 0.5, 0.0),
    (lambda: M.RecallAtPrecision(0.8), [0, 0, 1, 1], [0, 0.5, 0.3, 0.9], [1, 0, 0, 1], 1.0, 0.0),
]


@pytest.mark.parametrize(
    ("make", "y_true", "y_pred", "weights", "expected", "atol"),
    DOC_EXAMPLES,
    ids=[f"{i}" for i in range(len(DOC_EXAMPLES))],
)
def test_docs_examples(graph, make, y_true, y_pred, weights, expected, atol):
    m = make()
    update = m.update_state(y_true, y_pred, sample_weight=weights)
    assert isinstance(update, tf.Operation)
    with tf.Session() as sess:
        sess.run(tf.variables_initializer(m.variables))
        sess.run(update)
        value = sess.run(m.result())
        assert value.dtype == np.float32
        np.testing.assert_allclose(value, expected, rtol=0, atol=atol)
        m.reset_state()
        assert sess.run(m.result()) == 0.0
