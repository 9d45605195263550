"""A small GAN in the style of the 2016-2018 TF1 GAN tutorials (a mixture of 2-D Gaussians).

``generator(z)`` and ``discriminator(x, reuse)`` are functions of ``tf.layers.dense``
with ``tf.nn.leaky_relu`` under ``tf.variable_scope`` (the discriminator built twice,
``reuse=True`` the second time); ``z`` is drawn in the graph by ``tf.random_uniform``
(TF's stream under ``tf.set_random_seed``). Losses from
``tf.nn.sigmoid_cross_entropy_with_logits`` with one-sided label smoothing; two
``AdamOptimizer(beta1=0.5)``s, each with its ``var_list`` picked from
``tf.trainable_variables()`` by name, run alternately (two generator steps per
discriminator step); as WGAN code does, the discriminator's weights are clipped by
``assign(tf.clip_by_value(...))`` ops after its step. A ``Saver(var_list=...)``
keeps only the generator, restored into a new graph holding only the generator to
draw samples from fed noise. Kernels come from seeded ``glorot_uniform`` initializers.
"""

import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()

import os

import numpy as np

flags = tf.app.flags
flags.DEFINE_string("train_dir", "/tmp/gan_style", "Directory for the generator checkpoint.")
flags.DEFINE_integer("max_steps", 15, "Number of discriminator steps.")
flags.DEFINE_integer("batch_size", 32, "Batch size.")
flags.DEFINE_float("clip", 0.5, "Clip the discriminator's weights to [-clip, clip].")
FLAGS = flags.FLAGS

Z_DIM = 4
HIDDEN = 16


def real_batch(rng, n):
    """A mixture of four Gaussians on the unit circle."""
    centers = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    return (centers[rng.randint(0, 4, size=n)] + 0.1 * rng.normal(size=(n, 2))).astype(np.float32)


def generator(z):
    with tf.variable_scope("generator"):
        h = tf.layers.dense(z, HIDDEN, activation=tf.nn.leaky_relu, name="h1",
                            kernel_initializer=tf.glorot_uniform_initializer(seed=11))
        h = tf.layers.dense(h, HIDDEN, activation=tf.nn.leaky_relu, name="h2",
                            kernel_initializer=tf.glorot_uniform_initializer(seed=12))
        return tf.layers.dense(h, 2, name="out",
                               kernel_initializer=tf.glorot_uniform_initializer(seed=13))


def discriminator(x, reuse=False):
    with tf.variable_scope("discriminator", reuse=reuse):
        h = tf.layers.dense(x, HIDDEN, activation=lambda a: tf.nn.leaky_relu(a, alpha=0.2),
                            name="h1", kernel_initializer=tf.glorot_uniform_initializer(seed=21))
        h = tf.layers.dense(h, HIDDEN, activation=tf.nn.tanh, name="h2",
                            kernel_initializer=tf.glorot_uniform_initializer(seed=22))
        logits = tf.layers.dense(h, 1, name="out",
                                 kernel_initializer=tf.glorot_uniform_initializer(seed=23))
        return tf.nn.sigmoid(logits), logits


def train():
    rng = np.random.RandomState(3)
    with tf.Graph().as_default():
        tf.set_random_seed(2018)
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        z = tf.random_uniform([FLAGS.batch_size, Z_DIM], -1.0, 1.0, name="z")
        g_sample = generator(z)
        d_real, d_logit_real = discriminator(x)
        d_fake, d_logit_fake = discriminator(g_sample, reuse=True)

        d_loss_real = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
            logits=d_logit_real, labels=tf.ones_like(d_logit_real) * 0.9))
        d_loss_fake = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
            logits=d_logit_fake, labels=tf.zeros_like(d_logit_fake)))
        d_loss = d_loss_real + d_loss_fake
        g_loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
            logits=d_logit_fake, labels=tf.ones_like(d_logit_fake)))

        t_vars = tf.trainable_variables()
        d_vars = [var for var in t_vars if var.name.startswith("discriminator/")]
        g_vars = [var for var in t_vars if var.name.startswith("generator/")]
        print("D_VARS %s" % " ".join(v.name for v in d_vars))
        print("G_VARS %s" % " ".join(v.name for v in g_vars))
        d_solver = tf.train.AdamOptimizer(0.005, beta1=0.5).minimize(d_loss, var_list=d_vars)
        g_solver = tf.train.AdamOptimizer(0.005, beta1=0.5).minimize(g_loss, var_list=g_vars)
        clip_d = [p.assign(tf.clip_by_value(p, -FLAGS.clip, FLAGS.clip)) for p in d_vars]
        real_score = tf.reduce_mean(d_real)
        saver = tf.train.Saver(var_list=g_vars)

        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for step in range(FLAGS.max_steps):
                _, d_loss_value, real_score_value = sess.run(
                    [d_solver, d_loss, real_score],
                    feed_dict={x: real_batch(rng, FLAGS.batch_size)},
                )
                sess.run(clip_d)
                for _ in range(2):
                    _, g_loss_value = sess.run([g_solver, g_loss])
                print("LOSS %d %r" % (step, float(d_loss_value)))
                print("GLOSS %d %.5f %.5f" % (step, g_loss_value, real_score_value))
            path = saver.save(sess, os.path.join(FLAGS.train_dir, "generator.ckpt"))
            print("CKPT %s" % path)


def sample():
    with tf.Graph().as_default():
        z = tf.placeholder(tf.float32, [None, Z_DIM], name="z")
        g_sample = generator(z)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            saver.restore(sess, tf.train.latest_checkpoint(FLAGS.train_dir, "checkpoint"))
            noise = np.random.RandomState(9).uniform(-1.0, 1.0, size=(6, Z_DIM))
            samples = sess.run(g_sample, {z: noise.astype(np.float32)})
            print("SAMPLES %s" % " ".join("%.4f" % v for v in samples.ravel()))


def main(_):
    if tf.gfile.Exists(FLAGS.train_dir):
        tf.gfile.DeleteRecursively(FLAGS.train_dir)
    tf.gfile.MakeDirs(FLAGS.train_dir)
    train()
    sample()


if __name__ == "__main__":
    tf.app.run()
