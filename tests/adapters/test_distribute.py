"""``tf.distribute`` without TensorFlow: what jtrain refuses, the names it maps elsewhere,
and the scope bookkeeping (TF's values are compared live in
``tests/interop/test_distribute_interop.py``).

Each test failed before ``adapters.v1.distribute`` existed (``tf.distribute`` raised
``AttributeError``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from adapters import v1 as tf
from jtrain import errors

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default() as graph:
        yield graph


@pytest.mark.parametrize(
    "devices",
    [["/cpu:0", "/gpu:0"], ["/gpu:0", "/gpu:1"], ["/cpu:0", "/cpu:1", "/cpu:2"]],
)
def test_several_devices_are_refused_with_what_to_use(devices):
    with pytest.raises(errors.UnimplementedError) as info:
        tf.distribute.MirroredStrategy(devices=devices)
    message = str(info.value)
    assert f"MirroredStrategy over {len(devices)} devices" in message
    assert "tf.jax_data_parallel()" in message


@pytest.mark.parametrize(
    "devices, says",
    [("/cpu:0", "`devices` is a list of device strings"), ([], "must not be empty")],
)
def test_bad_devices_raise_value_error_naming_the_argument(devices, says):
    with pytest.raises(ValueError, match=says):
        tf.distribute.MirroredStrategy(devices=devices)


@pytest.mark.parametrize(
    "device, canonical",
    [
        ("/cpu:0", "/replica:0/task:0/device:CPU:0"),
        ("GPU:1", "/replica:0/task:0/device:GPU:1"),
        ("/job:localhost/device:CPU:0", "/job:localhost/replica:0/task:0/device:CPU:0"),
    ],
)
def test_worker_devices_are_canonical(device, canonical):
    assert tf.distribute.OneDeviceStrategy(device).extended.worker_devices == (canonical,)
    assert tf.distribute.MirroredStrategy([device]).extended.worker_devices == (canonical,)


def test_default_mirrored_strategy_on_cpus_is_one_replica_on_the_cpu():
    strategy = tf.distribute.MirroredStrategy()
    assert strategy.num_replicas_in_sync == 1
    assert strategy.extended.worker_devices == ("/replica:0/task:0/device:CPU:0",)


@pytest.mark.parametrize(
    "name, says",
    [
        ("MultiWorkerMirroredStrategy", "tf.train.ClusterSpec/tf.train.Server"),
        ("ParameterServerStrategy", "tf.train.SyncReplicasOptimizer"),
        ("CentralStorageStrategy", "tf.distribute.MirroredStrategy() (one replica)"),
        ("TPUStrategy", "tf.jax_data_parallel()"),
        ("CommunicationOptions", "TFConfigClusterResolver"),
    ],
)
def test_multi_worker_strategies_say_what_to_use(name, says):
    with pytest.raises(AttributeError) as info:
        getattr(tf.distribute.experimental, name)
    assert f"tf.distribute.experimental.{name} is not in adapters.v1" in str(info.value)
    assert says in str(info.value)


def test_other_cluster_resolvers_say_what_to_use():
    with pytest.raises(AttributeError, match="SimpleClusterResolver or TFConfigClusterResolver"):
        tf.distribute.cluster_resolver.SlurmClusterResolver  # noqa: B018


def test_scope_entered_by_hand_stays_entered_until_exited():
    strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
    scope = strategy.scope()
    assert scope.__enter__() is strategy
    del scope
    assert tf.distribute.get_strategy() is strategy and tf.distribute.has_strategy()
    # the contexts are the graph's: another graph has the default strategy
    with tf.Graph().as_default():
        assert not tf.distribute.has_strategy()
    tf.distribute.experimental_set_strategy(None)
    assert tf.distribute.get_strategy() is strategy


def test_experimental_set_strategy_switches_and_resets():
    first = tf.distribute.MirroredStrategy()
    second = tf.distribute.OneDeviceStrategy("/cpu:0")
    tf.distribute.experimental_set_strategy(first)
    assert tf.distribute.get_strategy() is first and tf.distribute.in_cross_replica_context()
    tf.distribute.experimental_set_strategy(second)
    assert tf.distribute.get_strategy() is second
    tf.distribute.experimental_set_strategy(None)
    assert not tf.distribute.has_strategy()
    assert not tf.distribute.in_cross_replica_context()


def test_scope_exits_on_error_and_replica_context_ends_with_run():
    strategy = tf.distribute.MirroredStrategy()
    with pytest.raises(KeyError), strategy.scope():
        raise KeyError("x")
    assert not tf.distribute.has_strategy()

    def fn():
        raise ValueError("in the replica")

    with pytest.raises(ValueError, match="in the replica"):
        strategy.run(fn)
    assert tf.distribute.get_replica_context() is not None  # the default one again
    assert not tf.distribute.has_strategy()


def test_experimental_run_v2_runs_like_run():
    strategy = tf.distribute.MirroredStrategy()
    x = tf.constant([1.0, 2.0])
    out = strategy.experimental_run_v2(lambda a, b: a * b, args=(x,), kwargs={"b": 3.0})
    with tf.Session() as sess:
        assert sess.run(out).tolist() == [3.0, 6.0]


def test_distributed_dataset_cannot_be_iterated_in_a_graph():
    dataset = tf.data.Dataset.from_tensor_slices([1.0, 2.0]).batch(1)
    dist = tf.distribute.MirroredStrategy().experimental_distribute_dataset(dataset)
    with pytest.raises(RuntimeError, match="only supported inside of tf.function"):
        iter(dist)


@pytest.mark.parametrize(
    "mode, n, batch_size, extra, says",
    [
        ("train", 10, 4, {}, "batch_size=4 for 10 samples"),
        ("train", 40, None, {}, "batch_size=32 for 40 samples"),
        ("train", 2000, 8, {"shuffle": True}, "more samples than TF's shuffle buffer"),
        ("train", 8, 4, {"shuffle": True, "seed": 1}, "with a graph seed"),
        ("train", 8, 4, {"steps": 2}, "steps_per_epoch=... with arrays"),
        ("test", 8, None, {"steps": 2}, "Model.evaluate(arrays, steps=...)"),
        ("predict", 8, None, {"steps": 2}, "Model.predict(arrays, steps=...)"),
    ],
)
def test_keras_arrays_where_tf_batches_otherwise(mode, n, batch_size, extra, says):
    from adapters.v1.distribute.distributed_training_utils import check_keras_arrays

    extra = dict(extra)
    if extra.pop("seed", None) is not None:
        tf.set_random_seed(1)
    with pytest.raises(
        errors.UnimplementedError, match=says.replace("(", r"\(").replace(")", r"\)")
    ):
        check_keras_arrays(tf.distribute.MirroredStrategy(), mode, n, batch_size, **extra)
    check_keras_arrays(None, mode, n, batch_size, **extra)  # compiled outside any strategy


@pytest.mark.parametrize("n, batch_size", [(8, 4), (24, None), (1024, 8)])
def test_keras_arrays_tf_batches_alike_pass(n, batch_size):
    from adapters.v1.distribute.distributed_training_utils import check_keras_arrays

    strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
    check_keras_arrays(strategy, "train", n, batch_size, shuffle=True)
    check_keras_arrays(strategy, "test", n, batch_size)
    check_keras_arrays(strategy, "predict", n, batch_size)


def test_one_replica_step_runs_data_parallel_over_local_devices():
    """``MirroredStrategy()`` on CPUs is one replica (TF's choice without GPUs) however
    many host devices JAX has; its step spread over 4 of them by ``tf.jax_data_parallel()``
    gives the one-device values (float32 sums in another order)."""
    env = dict(os.environ, JAX_PLATFORMS="cpu", CUDA_VISIBLE_DEVICES="", PYTHONPATH=str(ROOT))
    env["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
    script = ROOT / "tests" / "adapters" / "distributed" / "distribute_script.py"
    proc = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["devices"] == 4 and out["replicas"] == 1
    np.testing.assert_allclose(out["parallel_losses"], out["losses"], rtol=1e-6)
    np.testing.assert_allclose(out["parallel_weights"], out["weights"], rtol=1e-6)
