"""``adapters.v1.keras.optimizers`` without TF: the graph wiring and the refusals.

TF-exact numbers, names and errors are checked live in
tests/interop/test_keras_optimizers_interop.py.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

from adapters import v1 as tf

K = tf.keras


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def _params():
    w = tf.get_variable("w", initializer=np.array([1.0, -2.0], np.float32), use_resource=True)
    return w, tf.reduce_sum(w * w)


def test_get_updates_increments_iterations_in_one_run(graph):
    w, loss = _params()
    opt = K.optimizers.SGD(0.5)
    updates = opt.get_updates(loss, [w])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(updates)
        assert sess.run(opt.iterations) == 1
        np.testing.assert_array_equal(sess.run(w), np.array([0.0, 0.0], np.float32))


def test_hyperparameter_tensor_and_callable(graph):
    w, loss = _params()
    lr = tf.placeholder(tf.float32, [])
    opt = K.optimizers.SGD(lr, momentum=lambda: 0.0)
    train = opt.apply_gradients([(tf.gradients(loss, [w])[0], w)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, {lr: 0.25})
        np.testing.assert_array_equal(sess.run(w), np.array([0.5, -1.0], np.float32))
    # a tensor and a callable make no hyperparameter variable
    assert sorted(v.name for v in tf.global_variables()) == [
        "SGD/decay:0",
        "SGD/iter:0",
        "SGD/w/momentum:0",
        "w:0",
    ]


def test_tape_is_not_supported(graph):
    w, loss = _params()
    with pytest.raises(NotImplementedError, match="tape"):
        K.optimizers.Adam().minimize(loss, [w], tape=object())


def test_loss_callable_reusing_a_prebuilt_tensor_of_the_variables_refused(graph):
    w, loss = _params()
    with pytest.raises(NotImplementedError, match="inside the callable"):
        K.optimizers.Adam().minimize(lambda: loss + 1.0, [w])


def test_train_optimizer_wrapper_without_params(graph):
    opt = K.optimizers.get(tf.train.GradientDescentOptimizer(0.1))
    assert opt.iterations.name == "TFOptimizer/iterations:0"
    updates = opt.get_updates(None, [])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(updates)
        assert sess.run(opt.iterations) == 1


def test_nadam_with_a_schedule_is_refused():
    schedule = K.optimizers.schedules.ExponentialDecay(0.1, 2, 0.5)
    with pytest.raises(NotImplementedError, match="Nadam.*Adam"):
        K.optimizers.Nadam(schedule)


def test_data_parallel_reaches_one_devices_weights(tmp_path):
    """``tf.jax_data_parallel`` over 4 virtual devices (the batch split, one SPMD
    program): the same weights as one device, dense and sparse gradients. (The
    multi-process mean of a collective step is not exercised here.)"""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    script = Path(__file__).parent / "keras_data_parallel_script.py"
    env = dict(os.environ, JAX_PLATFORMS="cpu", CUDA_VISIBLE_DEVICES="", PYTHONPATH=str(root))
    env["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
    out = tmp_path / "result.npz"
    proc = subprocess.run(
        [sys.executable, str(script), str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    arrays = dict(np.load(out))
    for name in ("adam", "sgd"):
        for i in range(2):
            np.testing.assert_allclose(
                arrays[f"{name}4_{i}"], arrays[f"{name}1_{i}"], rtol=1e-5, atol=1e-6
            )
        assert not np.allclose(arrays[f"{name}1_0"], np.linspace(-1, 1, 6).reshape(3, 2))


@pytest.mark.parametrize("custom", [0, 1], ids=["Adam", "subclass_with_tf_ops"])
def test_workers_without_sync_replicas_train_on_the_mean_gradient(tmp_path, monkeypatch, custom):
    """Two worker processes and a ps (JAX's multi-controller runtime) with Keras' Adam,
    or a subclass with its own TF update op: the weights one process reaches on the
    global batch (tests/adapters/test_distributed.py's harness and script, with a
    Keras optimizer)."""
    from pathlib import Path

    from tests.adapters import test_distributed as td

    monkeypatch.setattr(td, "SCRIPT", Path(__file__).parent / "keras_replica_script.py")
    extra = ["--custom", str(custom)]
    commands = td._commands(tmp_path, 2, 0, True, extra)
    with td._processes(commands, tmp_path) as procs:
        td._wait_all(procs, tmp_path)
    ref = tmp_path / "ref"
    ref.mkdir()
    local = [sys.executable, str(td.SCRIPT), "--job_name", "local", "--out", str(ref)]
    with td._processes([local + ["--num_workers", "2", *extra]], ref) as procs:
        td._wait_all(procs, ref)
    expected = dict(np.load(ref / "local0.npz"))
    for i in range(2):
        got = dict(np.load(tmp_path / f"worker{i}.npz"))
        assert int(got["step"]) == int(expected["step"]) == 6
        np.testing.assert_allclose(got["w"], expected["w"], rtol=1e-5)
        np.testing.assert_allclose(got["b"], expected["b"], rtol=1e-5)
    assert "runs synchronously in jtrain" in td._tails(tmp_path)


def test_ftrl_learning_rate_power_is_fixed_once_built(graph):
    w, loss = _params()
    opt = K.optimizers.Ftrl(0.1)
    opt.learning_rate_power = -0.7  # before the variables exist: taken
    assert opt._learning_rate_power_value == -0.7
    opt.apply_gradients([(tf.gradients(loss, [w])[0], w)])
    with pytest.raises(NotImplementedError, match="learning_rate_power"):
        opt.learning_rate_power = -0.5
