"""A variational autoencoder in the style of TF1's VAE examples, trained under a ``Supervisor``.

Binary 16-pixel "images" (NumPy) are fed through a placeholder. The encoder and the
decoder are ``tf.layers.dense`` stacks (seeded ``glorot_uniform`` kernels, TF's
defaults); the code is sampled by reparameterisation, ``mu + exp(log_var / 2) * eps``
with ``eps = tf.random_normal(tf.shape(mu), seed=...)`` under ``tf.set_random_seed``;
the loss is the ``sigmoid_cross_entropy_with_logits`` reconstruction term plus the
closed-form KL term. ``AdamOptimizer`` with ``tf.train.exponential_decay``
(``staircase``) trains it.

``tf.train.Supervisor(logdir=...)`` owns the session: ``managed_session()`` runs the
initializer (or restores the latest checkpoint in ``logdir``), the loop stops on
``sv.should_stop()``, summaries go through ``sv.summary_computed`` and checkpoints
through ``sv.saver`` to ``sv.save_path``. A second ``Supervisor`` over the same
``logdir`` (a new graph, as a restarted job builds it) resumes from that checkpoint
and trains on; both phases print their losses.
"""

import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()

import glob
import os

import numpy as np

flags = tf.app.flags
flags.DEFINE_string("logdir", "/tmp/vae_style", "Supervisor's log directory.")
flags.DEFINE_integer("max_steps", 8, "Training steps in each phase.")
flags.DEFINE_integer("batch_size", 10, "Batch size.")
flags.DEFINE_integer("latent_dim", 2, "Dimensionality of the code.")
flags.DEFINE_integer("hidden_units", 12, "Hidden units of the encoder and the decoder.")
flags.DEFINE_float("learning_rate", 0.02, "Initial learning rate.")
FLAGS = flags.FLAGS

NUM_PIXELS = 16


def binary_images(num, seed):
    """Noisy copies of four prototype patterns, as float32 0/1 pixels."""
    rng = np.random.RandomState(seed)
    prototypes = rng.rand(4, NUM_PIXELS) > 0.5
    images = prototypes[rng.randint(4, size=num)]
    flips = rng.rand(num, NUM_PIXELS) < 0.1
    return np.logical_xor(images, flips).astype(np.float32)


def encoder(x):
    with tf.variable_scope("encoder"):
        hidden = tf.layers.dense(x, FLAGS.hidden_units, activation=tf.nn.relu, name="hidden")
        mu = tf.layers.dense(hidden, FLAGS.latent_dim, name="mu")
        log_var = tf.layers.dense(hidden, FLAGS.latent_dim, name="log_var")
    return mu, log_var


def decoder(z):
    with tf.variable_scope("decoder"):
        hidden = tf.layers.dense(z, FLAGS.hidden_units, activation=tf.nn.tanh, name="hidden")
        return tf.layers.dense(hidden, NUM_PIXELS, name="logits")


def build_model():
    tf.set_random_seed(2018)
    x = tf.placeholder(tf.float32, [None, NUM_PIXELS], name="x")
    mu, log_var = encoder(x)
    eps = tf.random_normal(tf.shape(mu), 0.0, 1.0, dtype=tf.float32, seed=11)
    z = mu + tf.exp(0.5 * log_var) * eps
    logits = decoder(z)
    with tf.name_scope("loss"):
        reconstruction = tf.reduce_sum(
            tf.nn.sigmoid_cross_entropy_with_logits(labels=x, logits=logits), axis=1)
        kl = -0.5 * tf.reduce_sum(1.0 + log_var - tf.square(mu) - tf.exp(log_var), axis=1)
        loss = tf.reduce_mean(reconstruction + kl)
    global_step = tf.train.get_or_create_global_step()
    learning_rate = tf.train.exponential_decay(
        FLAGS.learning_rate, global_step, decay_steps=3, decay_rate=0.7, staircase=True)
    train_op = tf.train.AdamOptimizer(learning_rate).minimize(loss, global_step=global_step)
    tf.summary.scalar("loss", loss)
    tf.summary.scalar("kl", tf.reduce_mean(kl))
    tf.summary.scalar("learning_rate", learning_rate)
    tf.summary.histogram("z", z)
    return x, loss, global_step, learning_rate, train_op


def train_phase(phase, images, first_index):
    with tf.Graph().as_default():
        x, loss, global_step, learning_rate, train_op = build_model()
        summary_op = tf.summary.merge_all()
        sv = tf.train.Supervisor(
            logdir=FLAGS.logdir, global_step=global_step, summary_op=None,
            save_summaries_secs=0, save_model_secs=0)
        index = first_index
        with sv.managed_session() as sess:
            start = sess.run(global_step)
            print("START %d %d" % (phase, start))
            local = 0
            while not sv.should_stop() and local < FLAGS.max_steps:
                offset = (start * FLAGS.batch_size) % len(images)
                batch = images[offset:offset + FLAGS.batch_size]
                _, loss_value, rate, step, summary = sess.run(
                    [train_op, loss, learning_rate, global_step, summary_op], {x: batch})
                sv.summary_computed(sess, summary, global_step=step)
                print("LOSS %d %r" % (index, float(loss_value)))
                print("LR %d %d %.6g" % (index, step, rate))
                start, local, index = step, local + 1, index + 1
            path = sv.saver.save(sess, sv.save_path, global_step=global_step)
            print("SAVED %d %s" % (phase, os.path.basename(path)))
        print("STOPPED %d %s" % (phase, sv.should_stop()))
    return path, index


def main(_):
    if tf.gfile.Exists(FLAGS.logdir):
        tf.gfile.DeleteRecursively(FLAGS.logdir)
    images = binary_images(40, seed=3)
    _, index = train_phase(0, images, 0)
    path, _ = train_phase(1, images, index)
    print("CKPT %s" % path)
    print("FILES %s" % " ".join(sorted(
        name for name in os.listdir(FLAGS.logdir) if not name.startswith("events."))))
    tags = {}
    for events in sorted(glob.glob(os.path.join(FLAGS.logdir, "events.out.tfevents.*"))):
        for event in tf.train.summary_iterator(events):
            for value in event.summary.value:
                tags.setdefault(value.tag, []).append(event.step)
    # The last step of each tag (not their count: TF's second writer reuses the first's
    # file name when both phases start within one second, overwriting it).
    for tag in sorted(tags):
        print("SUMMARY %s %d" % (tag, max(tags[tag])))


if __name__ == "__main__":
    tf.app.run()
