"""A ``MonitoredTrainingSession`` loop in the style of TF1's ``cifar10_train.py`` (2017-2018).

A small ``tf.layers`` convnet (``conv2d`` without bias + ``batch_normalization`` with
``training=True`` + relu, a strided ``conv2d``, ``average_pooling2d``, ``flatten``,
``dense``) on batches from ``tf.data`` (``from_tensor_slices`` + ``shuffle(seed)`` +
``repeat`` + ``batch``, one-shot iterator); L2 weight decay through
``kernel_regularizer`` and ``tf.losses.get_total_loss``; ``MomentumOptimizer`` under
the ``UPDATE_OPS`` control dependency, grouped with an ``ExponentialMovingAverage``
of the trainable variables (``num_updates`` the global step). The loop is
``tf.train.MonitoredTrainingSession(checkpoint_dir=...)`` with hooks:
``StopAtStepHook``, ``NanTensorHook``, ``LoggingTensorHook``, a
``SummarySaverHook`` and ``CheckpointSaverHook`` of the session's own (``save_*_steps``)
and cifar10_train's ``_LoggerHook`` (``before_run``/``after_run`` printing the loss).
Evaluation, in a new graph, restores the latest checkpoint into the shadow values
(``ema.variables_to_restore()``) and computes the held-out accuracy with
``training=False``. Kernels come from ``tf.glorot_uniform_initializer`` with seeds.
"""

import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()

import glob
import os

import numpy as np

flags = tf.app.flags
flags.DEFINE_string("train_dir", "/tmp/monitored_bn_ema_style", "Checkpoint directory.")
flags.DEFINE_integer("max_steps", 12, "Number of batches to run.")
flags.DEFINE_integer("batch_size", 8, "Batch size.")
flags.DEFINE_float("learning_rate", 0.05, "Momentum's learning rate.")
FLAGS = flags.FLAGS

IMAGE_SIZE = 8
NUM_CLASSES = 3
MOVING_AVERAGE_DECAY = 0.99
WEIGHT_DECAY = 1e-3


def synthetic_images(num, seed):
    """Class k: a bright vertical bar in column band k, on noise."""
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, NUM_CLASSES, size=num).astype(np.int32)
    images = rng.uniform(0.0, 0.5, size=(num, IMAGE_SIZE, IMAGE_SIZE, 1))
    for image, label in zip(images, labels, strict=True):
        col = 1 + 2 * label + rng.randint(0, 2)
        image[:, col, 0] += 0.5
    return images.astype(np.float32), labels


def inference(images, training):
    regularizer = lambda w: WEIGHT_DECAY * tf.nn.l2_loss(w)  # noqa: E731
    net = tf.layers.conv2d(
        images, 8, 3, padding="same", use_bias=False, name="conv1",
        kernel_initializer=tf.glorot_uniform_initializer(seed=1),
        kernel_regularizer=regularizer,
    )
    net = tf.layers.batch_normalization(net, training=training, momentum=0.9, name="bn1")
    net = tf.nn.relu(net)
    net = tf.layers.conv2d(
        net, 8, 3, strides=2, padding="same", activation=tf.nn.relu, name="conv2",
        kernel_initializer=tf.glorot_uniform_initializer(seed=2),
        kernel_regularizer=regularizer,
    )
    net = tf.layers.average_pooling2d(net, 2, 2, name="pool2")
    net = tf.layers.flatten(net)
    return tf.layers.dense(
        net, NUM_CLASSES, name="logits", kernel_initializer=tf.glorot_uniform_initializer(seed=3)
    )


class _LoggerHook(tf.train.SessionRunHook):
    """Prints the loss of every step (cifar10_train.py's hook, printing every step)."""

    def __init__(self, loss):
        self._loss = loss

    def begin(self):
        self._step = -1

    def before_run(self, run_context):
        self._step += 1
        return tf.train.SessionRunArgs(self._loss)

    def after_run(self, run_context, run_values):
        print("LOSS %d %r" % (self._step, float(run_values.results)))


def train(images, labels):
    with tf.Graph().as_default():
        global_step = tf.train.get_or_create_global_step()
        with tf.device("/cpu:0"):
            dataset = tf.data.Dataset.from_tensor_slices((images, labels))
            dataset = dataset.shuffle(len(labels), seed=5).repeat().batch(FLAGS.batch_size)
            batch_images, batch_labels = dataset.make_one_shot_iterator().get_next()
        logits = inference(batch_images, training=True)
        tf.losses.sparse_softmax_cross_entropy(labels=batch_labels, logits=logits)
        loss = tf.losses.get_total_loss(name="total_loss")
        tf.summary.scalar("total_loss", loss)

        optimizer = tf.train.MomentumOptimizer(FLAGS.learning_rate, momentum=0.9)
        with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
            apply_op = optimizer.minimize(loss, global_step=global_step)
        ema = tf.train.ExponentialMovingAverage(MOVING_AVERAGE_DECAY, global_step)
        with tf.control_dependencies([apply_op]):
            train_op = ema.apply(tf.trainable_variables())

        hooks = [
            tf.train.StopAtStepHook(last_step=FLAGS.max_steps),
            tf.train.NanTensorHook(loss),
            tf.train.LoggingTensorHook({"loss": loss, "step": global_step}, every_n_iter=5),
            _LoggerHook(loss),
        ]
        with tf.train.MonitoredTrainingSession(
            checkpoint_dir=FLAGS.train_dir, hooks=hooks, save_checkpoint_steps=5,
            save_summaries_steps=4, log_step_count_steps=100,
        ) as mon_sess:
            while not mon_sess.should_stop():
                mon_sess.run(train_op)


def evaluate(images, labels):
    with tf.Graph().as_default():
        global_step = tf.train.get_or_create_global_step()
        images_pl = tf.placeholder(tf.float32, [None, IMAGE_SIZE, IMAGE_SIZE, 1])
        logits = inference(images_pl, training=False)
        top_1 = tf.nn.in_top_k(logits, tf.constant(labels), 1)
        ema = tf.train.ExponentialMovingAverage(MOVING_AVERAGE_DECAY)
        variables_to_restore = ema.variables_to_restore()
        saver = tf.train.Saver(variables_to_restore)
        print("RESTORE %s" % " ".join(sorted(variables_to_restore)))
        ckpt = tf.train.get_checkpoint_state(FLAGS.train_dir)
        print("KEPT %s" % " ".join(os.path.basename(p) for p in ckpt.all_model_checkpoint_paths))
        with tf.Session() as sess:
            saver.restore(sess, ckpt.model_checkpoint_path)
            correct = sess.run(top_1, {images_pl: images})
            print("STEP %d" % sess.run(global_step))
            print("ACC %d/%d" % (int(np.sum(correct)), len(labels)))
            print("CKPT %s" % ckpt.model_checkpoint_path)
        for name, shape in tf.train.list_variables(ckpt.model_checkpoint_path):
            print("CKPT_VAR %s %s" % (name, shape))


def main(_):
    if tf.gfile.Exists(FLAGS.train_dir):
        tf.gfile.DeleteRecursively(FLAGS.train_dir)
    tf.gfile.MakeDirs(FLAGS.train_dir)
    train(*synthetic_images(64, seed=1))
    evaluate(*synthetic_images(30, seed=2))
    (events,) = glob.glob(os.path.join(FLAGS.train_dir, "events.out.tfevents.*"))
    tags = {}
    for event in tf.train.summary_iterator(events):
        for value in event.summary.value:
            tags.setdefault(value.tag, []).append(event.step)
    for tag in sorted(tags):
        print("SUMMARY %s %s" % (tag, tags[tag]))


if __name__ == "__main__":
    tf.app.run()
