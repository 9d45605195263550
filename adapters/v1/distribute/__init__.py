"""``tf.compat.v1.distribute``: strategies for TF1 graph-mode scripts.

The default strategy, ``MirroredStrategy`` and ``OneDeviceStrategy`` with one replica
(what ``MirroredStrategy()`` is on a machine without GPUs), ``Strategy.scope()``
around models, optimizers and Keras ``compile``/``fit``, ``run`` (and
``experimental_run_v2``), ``reduce``, replica contexts, input iterators, cross-device
ops and cluster resolvers; see ``distribute_lib`` for the contexts and what a replica
gives, ``mirrored_strategy`` for several devices, ``experimental`` for the
multi-worker strategies.
"""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.distribute import cluster_resolver, experimental
from adapters.v1.distribute.cross_device_ops import (
    CrossDeviceOps,
    HierarchicalCopyAllReduce,
    NcclAllReduce,
    ReductionToOneDevice,
)
from adapters.v1.distribute.distribute_lib import (
    InputContext,
    InputReplicationMode,
    ReplicaContext,
    RunOptions,
    Strategy,
    StrategyExtended,
    experimental_set_strategy,
    get_loss_reduction,
    get_replica_context,
    get_strategy,
    has_strategy,
    in_cross_replica_context,
)
from adapters.v1.distribute.mirrored_strategy import MirroredStrategy
from adapters.v1.distribute.one_device_strategy import OneDeviceStrategy
from adapters.v1.distribute.reduce_util import ReduceOp
from adapters.v1.training.server_lib import Server

__all__ = [
    "CrossDeviceOps",
    "HierarchicalCopyAllReduce",
    "InputContext",
    "InputReplicationMode",
    "MirroredStrategy",
    "NcclAllReduce",
    "OneDeviceStrategy",
    "ReduceOp",
    "ReductionToOneDevice",
    "ReplicaContext",
    "RunOptions",
    "Server",
    "Strategy",
    "StrategyExtended",
    "cluster_resolver",
    "experimental",
    "experimental_set_strategy",
    "get_loss_reduction",
    "get_replica_context",
    "get_strategy",
    "has_strategy",
    "in_cross_replica_context",
]

__getattr__ = missing_name_getattr("tf.distribute", globals())
