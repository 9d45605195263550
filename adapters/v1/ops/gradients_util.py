"""``tf.AggregationMethod``: how ``tf.gradients`` sums the gradient terms of a tensor
used several times.

.. note::
   XLA fuses the sum whichever method is asked for: the values are the same
   sums (up to float32 summation order, as between TF's methods).
"""

__all__ = ["AggregationMethod"]


class AggregationMethod:
    """TF's constants for ``tf.gradients(..., aggregation_method=)``."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2
