"""jtrain demo: a TF1 training script on JAX, ported by changing one import.

A 64-64-10 classifier of scikit-learn's handwritten digits (``load_digits``: 1797
8x8 images that ship with scikit-learn, no download), written as a TF1 user
writes it: placeholders, ``tf.get_variable``, ``tf.train.AdamOptimizer(...)
.minimize(loss, global_step=...)``, summaries and a
``tf.train.MonitoredTrainingSession`` with hooks that checkpoints into
``--logdir``. The model is TF's ops (``tf.matmul``, ``tf.tanh``,
``tf.nn.sparse_softmax_cross_entropy_with_logits``...); each step is one compiled
XLA program. The one name TF lacks is ``tf.train.ProgressHook``, jtrain's hook
that logs the progress of a run towards its last step.

Run it twice: the second run restores the latest checkpoint and goes on from its
step. TensorBoard reads the logs: ``tensorboard --logdir <logdir>``.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from adapters import v1 as tf

DEFAULT_LOGDIR = os.path.join(".", "demo_runs", "digits")


def load_data(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Digits as float32 pixels in [0, 1], int32 labels; 80% train, 20% test."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int32)
    order = np.random.default_rng(seed).permutation(len(x))
    x, y = x[order], y[order]
    n_train = int(0.8 * len(x))
    return x[:n_train], y[:n_train], x[n_train:], y[n_train:]


def build_model(learning_rate: float) -> dict[str, Any]:
    """The graph: placeholders, variables, loss, accuracy, train op and summaries."""
    tf.set_random_seed(0)
    x = tf.placeholder(tf.float32, [None, 64], name="x")
    y = tf.placeholder(tf.int32, [None], name="y")
    with tf.variable_scope("hidden"):
        w1 = tf.get_variable("weights", [64, 64], initializer=tf.glorot_uniform_initializer())
        b1 = tf.get_variable("biases", [64], initializer=tf.zeros_initializer())
    with tf.variable_scope("logits"):
        w2 = tf.get_variable("weights", [64, 10], initializer=tf.glorot_uniform_initializer())
        b2 = tf.get_variable("biases", [10], initializer=tf.zeros_initializer())

    logits = tf.matmul(tf.tanh(tf.matmul(x, w1) + b1), w2) + b2
    loss = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits),
        name="cross_entropy",
    )
    correct = tf.equal(tf.argmax(logits, axis=-1, output_type=tf.int32), y)
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32), name="batch_accuracy")
    global_step = tf.train.get_or_create_global_step()
    train_op = tf.train.AdamOptimizer(learning_rate).minimize(loss, global_step=global_step)

    tf.summary.scalar("loss", loss)
    tf.summary.scalar("accuracy", accuracy)
    tf.summary.histogram("hidden_weights", w1)
    tf.summary.image("inputs", tf.reshape(x[:3], [-1, 8, 8, 1]))
    return {
        "x": x,
        "y": y,
        "loss": loss,
        "accuracy": accuracy,
        "global_step": global_step,
        "train_op": train_op,
    }


class ReportStartHook(tf.train.SessionRunHook):
    """Says, once the session exists, whether it restored a checkpoint (a custom hook)."""

    def __init__(self, checkpoint_dir: str):
        self._checkpoint_dir = checkpoint_dir
        self.start_step = None

    def begin(self) -> None:
        self._global_step = tf.train.get_global_step()

    def after_create_session(self, session: Any, coord: Any) -> None:
        self.start_step = int(session.run(self._global_step))
        if self.start_step > 0:
            print(f"restored step {self.start_step} from {self._checkpoint_dir}")
        else:
            print(f"no checkpoint in {self._checkpoint_dir}: starting from step 0")


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--logdir", default=DEFAULT_LOGDIR, help="checkpoints and summaries")
    parser.add_argument("--steps", type=int, default=500, help="steps this run trains")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--learning-rate", type=float, default=0.01)
    parser.add_argument("--checkpoint-every", type=int, default=100, help="steps")
    parser.add_argument("--summary-every", type=int, default=50, help="steps")
    parser.add_argument("-v", "--verbose", action="store_true", help="the hooks' INFO logs")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING)

    x_train, y_train, x_test, y_test = load_data()
    logdir = os.path.abspath(args.logdir)
    latest = tf.train.latest_checkpoint(logdir)
    first_step = int(tf.train.load_variable(latest, "global_step")) if latest else 0

    graph = tf.Graph()
    with graph.as_default():
        m = build_model(args.learning_rate)
        start = ReportStartHook(logdir)
        evaluate = tf.train.FinalOpsHook(
            {"accuracy": m["accuracy"], "loss": m["loss"]},
            final_ops_feed_dict={m["x"]: x_test, m["y"]: y_test},
        )
        hooks = [
            tf.train.StopAtStepHook(num_steps=args.steps),
            tf.train.NanTensorHook(m["loss"]),
            tf.train.ProgressHook(last_step=first_step + args.steps, loss_tensor=m["loss"]),
            start,
            evaluate,
        ]
        rng = np.random.default_rng(first_step)
        losses = []
        # Relative paths in the `checkpoint` state file: the log directory can be moved
        # or copied and still resumes (TF's default is absolute paths).
        scaffold = tf.train.Scaffold(saver=tf.train.Saver(save_relative_paths=True))
        with tf.train.MonitoredTrainingSession(
            checkpoint_dir=logdir,
            scaffold=scaffold,
            hooks=hooks,
            save_checkpoint_steps=args.checkpoint_every,
            save_summaries_steps=args.summary_every,
            log_step_count_steps=args.summary_every,
        ) as sess:
            while not sess.should_stop():
                idx = rng.integers(0, len(x_train), size=args.batch)
                _, loss = sess.run(
                    [m["train_op"], m["loss"]], {m["x"]: x_train[idx], m["y"]: y_train[idx]}
                )
                losses.append(float(loss))

    last_step = start.start_step + len(losses)
    chunk = max(1, len(losses) // 5)
    curve = [float(np.mean(losses[i : i + chunk])) for i in range(0, len(losses), chunk)]
    test = evaluate.final_ops_values
    print(
        f"steps {start.start_step} -> {last_step}: training loss {losses[0]:.3f} at the first "
        f"step; by fifths of the run " + " -> ".join(f"{v:.3f}" for v in curve)
    )
    print(f"test accuracy {test['accuracy']:.3f} (loss {test['loss']:.3f}) on {len(y_test)} digits")
    print(f"checkpoint: {tf.train.latest_checkpoint(logdir)}")
    print(f"TensorBoard logs: {logdir}  (tensorboard --logdir {logdir})")
    return {
        "logdir": logdir,
        "start_step": start.start_step,
        "last_step": last_step,
        "losses": losses,
        "test_accuracy": float(test["accuracy"]),
        "test_loss": float(test["loss"]),
    }


if __name__ == "__main__":
    main(sys.argv[1:])
