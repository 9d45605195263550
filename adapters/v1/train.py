"""``tf.compat.v1.train``: the training names, from one module per TF concept."""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.framework.graph_io import write_graph
from adapters.v1.framework.meta_graph import export_meta_graph, import_meta_graph
from adapters.v1.ops.sdca_ops import sdca_fprint, sdca_optimizer, sdca_shrink_l1
from adapters.v1.summary import summary_iterator
from adapters.v1.training import experimental, queue_runner
from adapters.v1.training.adadelta import AdadeltaOptimizer
from adapters.v1.training.adagrad import AdagradOptimizer
from adapters.v1.training.adagrad_da import AdagradDAOptimizer
from adapters.v1.training.adam import AdamOptimizer
from adapters.v1.training.basic_loops import basic_train_loop
from adapters.v1.training.basic_session_run_hooks import (
    CheckpointSaverHook,
    CheckpointSaverListener,
    FeedFnHook,
    FinalOpsHook,
    GlobalStepWaiterHook,
    LoggingTensorHook,
    NanLossDuringTrainingError,
    NanTensorHook,
    ProfilerHook,
    ProgressHook,
    SecondOrStepTimer,
    StepCounterHook,
    StopAtStepHook,
    SummarySaverHook,
)
from adapters.v1.training.checkpoint import Checkpoint, CheckpointManager
from adapters.v1.training.checkpoint_options import CheckpointOptions
from adapters.v1.training.checkpoint_utils import init_from_checkpoint
from adapters.v1.training.coordinator import Coordinator, LooperThread
from adapters.v1.training.device_setter import replica_device_setter
from adapters.v1.training.ftrl import FtrlOptimizer
from adapters.v1.training.gradient_descent import GradientDescentOptimizer
from adapters.v1.training.input import (
    batch,
    batch_join,
    input_producer,
    limit_epochs,
    match_filenames_once,
    maybe_batch,
    maybe_batch_join,
    maybe_shuffle_batch,
    maybe_shuffle_batch_join,
    range_input_producer,
    shuffle_batch,
    shuffle_batch_join,
    slice_input_producer,
    string_input_producer,
)
from adapters.v1.training.learning_rate_decay import (
    cosine_decay,
    cosine_decay_restarts,
    exponential_decay,
    inverse_time_decay,
    linear_cosine_decay,
    natural_exp_decay,
    noisy_linear_cosine_decay,
    piecewise_constant,
    piecewise_constant_decay,
    polynomial_decay,
)
from adapters.v1.training.momentum import MomentumOptimizer
from adapters.v1.training.monitored_session import (
    ChiefSessionCreator,
    MonitoredSession,
    MonitoredTrainingSession,
    Scaffold,
    SessionCreator,
    SingularMonitoredSession,
    WorkerSessionCreator,
)
from adapters.v1.training.moving_averages import ExponentialMovingAverage
from adapters.v1.training.optimizer import Optimizer
from adapters.v1.training.proximal_adagrad import ProximalAdagradOptimizer
from adapters.v1.training.proximal_gradient_descent import ProximalGradientDescentOptimizer
from adapters.v1.training.py_checkpoint_reader import NewCheckpointReader, load_checkpoint
from adapters.v1.training.quantize_training import do_quantize_training_on_graphdef
from adapters.v1.training.queue_runner_impl import (
    QueueRunner,
    add_queue_runner,
    start_queue_runners,
)
from adapters.v1.training.rmsprop import RMSPropOptimizer
from adapters.v1.training.saver import Saver
from adapters.v1.training.server_lib import ClusterSpec, Server
from adapters.v1.training.session_manager import SessionManager
from adapters.v1.training.session_run_hook import (
    SessionRunArgs,
    SessionRunContext,
    SessionRunHook,
    SessionRunValues,
)
from adapters.v1.training.supervisor import Supervisor
from adapters.v1.training.sync_replicas_optimizer import SyncReplicasOptimizer
from adapters.v1.training.training_util import (
    assert_global_step,
    create_global_step,
    get_global_step,
    get_or_create_global_step,
    global_step,
)
from adapters.v1.training.warm_starting_util import VocabInfo, warm_start
from jtrain.checkpoint import (
    checkpoint_exists,
    checkpoints_iterator,
    generate_checkpoint_state_proto,
    get_checkpoint_mtimes,
    get_checkpoint_state,
    latest_checkpoint,
    list_variables,
    load_variable,
    remove_checkpoint,
    update_checkpoint_state,
)
from jtrain.protos.cluster_pb2 import ClusterDef, JobDef
from jtrain.protos.example_pb2 import Example, SequenceExample
from jtrain.protos.feature_pb2 import (
    BytesList,
    Feature,
    FeatureList,
    FeatureLists,
    Features,
    FloatList,
    Int64List,
)
from jtrain.protos.saver_pb2 import SaverDef
from jtrain.protos.tensorflow_server_pb2 import ServerDef

__all__ = [
    "experimental",
    "queue_runner",
    "BytesList",
    "ClusterDef",
    "ClusterSpec",
    "Server",
    "SyncReplicasOptimizer",
    "replica_device_setter",
    "Example",
    "Feature",
    "FeatureList",
    "FeatureLists",
    "Features",
    "FloatList",
    "Int64List",
    "JobDef",
    "SaverDef",
    "SequenceExample",
    "ServerDef",
    "SessionRunHook",
    "SessionRunArgs",
    "SessionRunContext",
    "SessionRunValues",
    "SecondOrStepTimer",
    "CheckpointSaverHook",
    "CheckpointSaverListener",
    "StepCounterHook",
    "StopAtStepHook",
    "LoggingTensorHook",
    "NanTensorHook",
    "NanLossDuringTrainingError",
    "SummarySaverHook",
    "GlobalStepWaiterHook",
    "FinalOpsHook",
    "FeedFnHook",
    "ProfilerHook",
    "ProgressHook",
    "SessionManager",
    "Scaffold",
    "SessionCreator",
    "ChiefSessionCreator",
    "WorkerSessionCreator",
    "MonitoredSession",
    "SingularMonitoredSession",
    "MonitoredTrainingSession",
    "Supervisor",
    "basic_train_loop",
    "Coordinator",
    "LooperThread",
    "QueueRunner",
    "add_queue_runner",
    "start_queue_runners",
    "batch",
    "batch_join",
    "input_producer",
    "limit_epochs",
    "match_filenames_once",
    "maybe_batch",
    "maybe_batch_join",
    "maybe_shuffle_batch",
    "maybe_shuffle_batch_join",
    "range_input_producer",
    "shuffle_batch",
    "shuffle_batch_join",
    "slice_input_producer",
    "string_input_producer",
    "ExponentialMovingAverage",
    "Optimizer",
    "AdadeltaOptimizer",
    "AdagradOptimizer",
    "AdagradDAOptimizer",
    "AdamOptimizer",
    "FtrlOptimizer",
    "GradientDescentOptimizer",
    "MomentumOptimizer",
    "ProximalAdagradOptimizer",
    "ProximalGradientDescentOptimizer",
    "RMSPropOptimizer",
    "Saver",
    "write_graph",
    "export_meta_graph",
    "import_meta_graph",
    "Checkpoint",
    "CheckpointManager",
    "CheckpointOptions",
    "init_from_checkpoint",
    "VocabInfo",
    "warm_start",
    "NewCheckpointReader",
    "checkpoint_exists",
    "checkpoints_iterator",
    "generate_checkpoint_state_proto",
    "get_checkpoint_mtimes",
    "get_checkpoint_state",
    "latest_checkpoint",
    "list_variables",
    "load_checkpoint",
    "load_variable",
    "remove_checkpoint",
    "update_checkpoint_state",
    "summary_iterator",
    "do_quantize_training_on_graphdef",
    "sdca_fprint",
    "sdca_optimizer",
    "sdca_shrink_l1",
    "assert_global_step",
    "create_global_step",
    "get_global_step",
    "get_or_create_global_step",
    "global_step",
    "cosine_decay",
    "cosine_decay_restarts",
    "exponential_decay",
    "inverse_time_decay",
    "linear_cosine_decay",
    "natural_exp_decay",
    "noisy_linear_cosine_decay",
    "piecewise_constant",
    "piecewise_constant_decay",
    "polynomial_decay",
]

__getattr__ = missing_name_getattr("tf.train", globals())
