"""``tf.profiler`` (``tf.compat.v1.profiler``): TF's tfprof float operation and
parameter counts of a graph (``model_analyzer.py``), its options
(``option_builder.py``) and op logs (``tfprof_logger.py``)."""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.profiler.model_analyzer import Profiler, advise, profile
from adapters.v1.profiler.option_builder import ProfileOptionBuilder
from adapters.v1.profiler.tfprof_logger import write_op_log
from jtrain.protos.tfprof_log_pb2 import OpLogProto
from jtrain.protos.tfprof_output_pb2 import AdviceProto, GraphNodeProto, MultiGraphNodeProto

__all__ = [
    "AdviceProto",
    "GraphNodeProto",
    "MultiGraphNodeProto",
    "OpLogProto",
    "ProfileOptionBuilder",
    "Profiler",
    "advise",
    "profile",
    "write_op_log",
]

__getattr__ = missing_name_getattr("tf.profiler", globals())
