"""``tf.queue``: TF 1's queue classes (``tf.queue.FIFOQueue is tf.FIFOQueue``)."""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.ops.data_flow_ops import (
    FIFOQueue,
    PaddingFIFOQueue,
    PriorityQueue,
    QueueBase,
    RandomShuffleQueue,
)

__all__ = ["FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase", "RandomShuffleQueue"]

__getattr__ = missing_name_getattr("tf.queue", globals())
