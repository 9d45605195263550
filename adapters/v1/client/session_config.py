"""What ``Session`` makes of ``ConfigProto`` and ``RunOptions`` / ``RunMetadata``.

``Session(config=...)``, ``MonitoredTrainingSession(config=...)`` and
``Supervisor.managed_session(config=...)`` take a ``tf.ConfigProto``; ``run`` takes
``options=tf.RunOptions(...)`` and ``run_metadata=tf.RunMetadata()``. Honoured:

=====================================  ===============================================
option                                 jtrain
=====================================  ===============================================
``operation_timeout_in_ms``            honoured: a blocking queue or reader operation
                                       waiting longer raises ``DeadlineExceededError``
                                       ("Timed out waiting for notification"), as TF
``RunOptions.timeout_in_ms``           honoured, for that run (wins over the config's)
``device_count``, ``gpu_options``      ignored: JAX picks devices and memory at
(``allow_growth``, memory fraction,    process start; set ``XLA_PYTHON_CLIENT_PREALLOCATE``
``visible_device_list``)               / ``XLA_PYTHON_CLIENT_MEM_FRACTION`` /
                                       ``CUDA_VISIBLE_DEVICES`` before importing JAX;
                                       to split each step over several devices, call
                                       ``tf.jax_data_parallel()``
``allow_soft_placement``               ignored: every op runs where XLA places it
``log_device_placement``               ignored
``intra_op_``/``inter_op_parallelism_  ignored: XLA's thread pools are process-wide
threads``, ``session_inter_op_thread_
pool``, ``use_per_session_threads``
``graph_options`` (optimizer options,  ignored: each run is one XLA program compiled
``global_jit_level``...),              with XLA's optimizations
``experimental``, ``rpc_options``
``cluster_def``, ``isolate_session_    ignored here; clusters come from
state``, ``device_filters``            ``tf.train.ClusterSpec``/``Server``
``RunOptions.trace_level``             honoured: ``SOFTWARE_TRACE`` and above fill
                                       ``RunMetadata.step_stats`` with the step
                                       program's time on its device and each host
                                       operation's (``client/step_stats.py``); XLA's
                                       fused operations have no times of their own:
                                       profile inside the program with ``jax.profiler``
``report_tensor_allocations_upon_``    ignored
``oom``, ``output_partition_graphs``
``RunMetadata``                        replaced by the run's, as TF: empty without a
                                       trace level; ``cost_graph``, ``partition_graphs``
                                       and ``function_graphs`` stay empty
=====================================  ===============================================
"""

from __future__ import annotations

from typing import Any

from jtrain.protos.config_pb2 import ConfigProto

__all__ = ["check_config", "timeout_ms"]


def check_config(config: Any) -> ConfigProto | None:
    """``config`` as jtrain's ``ConfigProto`` (TF's own message is converted by its bytes).

    Raises:
      TypeError: ``config`` is not a ConfigProto (TF's message).
    """
    if config is None or isinstance(config, ConfigProto):
        return config
    descriptor = getattr(config, "DESCRIPTOR", None)
    if getattr(descriptor, "name", None) == "ConfigProto":
        return ConfigProto.FromString(config.SerializeToString())
    raise TypeError(
        f'Argument `config` must be a tf.ConfigProto, but got "{type(config).__name__}"'
    )


def timeout_ms(config: ConfigProto | None, options: Any) -> int:
    """The blocking-operation timeout of a run in milliseconds (0: none).

    Raises:
      AttributeError: ``options`` is not a proto message (as TF, which serializes it).
    """
    if options is not None:
        options.SerializeToString  # noqa: B018 - TF's AttributeError for a non-message
        ms = int(getattr(options, "timeout_in_ms", 0) or 0)
        if ms > 0:
            return ms
    return int(config.operation_timeout_in_ms) if config is not None else 0
