"""``tf.compat.v1.distribute.experimental``: the multi-worker strategies, not mapped.

``MultiWorkerMirroredStrategy``, ``ParameterServerStrategy``,
``CentralStorageStrategy`` and ``TPUStrategy`` (and the collective options that tune
them) have no jtrain strategy: their names raise an ``AttributeError`` that says what
to use instead. Multi-worker training runs through ``tf.train.ClusterSpec`` and
``tf.train.Server`` (JAX's multi-process runtime, variables replicated on every
worker, the batch split) with ``tf.train.SyncReplicasOptimizer`` (an all-reduce of the
gradients inside the compiled step); a cluster described by ``TF_CONFIG`` reads through
``tf.distribute.cluster_resolver.TFConfigClusterResolver().cluster_spec()``.
"""

from __future__ import annotations

from adapters.v1._missing import missing_name_getattr

__all__: list[str] = []

__getattr__ = missing_name_getattr("tf.distribute.experimental", globals())
