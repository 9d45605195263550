"""A seeded TF1 training loop that leaves every random number to TensorFlow.

``tf.set_random_seed`` decides the starting weights (Glorot-uniform kernels, a
``truncated_normal_initializer``, a ``random_normal`` embedding); ``tf.nn.dropout``
draws new masks every step, in both of its forms; ``tf.random_uniform`` noise is added
to the inputs. Nothing is assigned from NumPy: the port matches TF's losses only if it
draws TF's random numbers. (The kernels' initializer is given: in TF 2.21,
``tf.layers.dense``'s default kernel and ``tf.layers.dropout``'s masks come from
tf_keras's generators, seeded by Python's ``random`` module whatever
``tf.set_random_seed`` says, so no two TF runs agree on them.)
"""

import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()

import hashlib
import os

import numpy as np

flags = tf.app.flags
flags.DEFINE_string("train_dir", "/tmp/seeded_dropout_style", "Directory for checkpoints.")
flags.DEFINE_integer("max_steps", 20, "Number of steps to run the trainer.")
flags.DEFINE_integer("batch_size", 16, "Batch size.")
flags.DEFINE_integer("seed", 42, "Graph-level random seed.")
FLAGS = flags.FLAGS

FEATURES = 10
VOCAB = 7
NUM_CLASSES = 4
UNIFORM_KERNELS = ("dense1/kernel:0", "logits/kernel:0")


def fake_data(num_examples):
    """A deterministic dataset: dense features, a categorical id, labels from a fixed map."""
    rng = np.random.RandomState(99)
    features = rng.uniform(-1.0, 1.0, size=(num_examples, FEATURES)).astype(np.float32)
    ids = rng.randint(0, VOCAB, size=(num_examples,)).astype(np.int32)
    true_w = rng.normal(size=(FEATURES, NUM_CLASSES)).astype(np.float32)
    labels = (np.argmax(features @ true_w, axis=1) + ids) % NUM_CLASSES
    return features, ids, labels.astype(np.int64)


def model(features, ids, keep_prob, training):
    noisy = features + tf.random_uniform(tf.shape(features), -0.05, 0.05, name="input_noise")
    embeddings = tf.get_variable(
        "embeddings", [VOCAB, 3], initializer=tf.random_normal_initializer(stddev=0.5)
    )
    hidden = tf.concat([noisy, tf.nn.embedding_lookup(embeddings, ids)], axis=1)
    glorot = tf.glorot_uniform_initializer()
    hidden = tf.layers.dense(
        hidden, 32, activation=tf.nn.relu, name="dense1", kernel_initializer=glorot
    )
    hidden = tf.nn.dropout(hidden, keep_prob=keep_prob)
    hidden = tf.layers.dense(
        hidden, 16, activation=tf.nn.tanh, name="dense2",
        kernel_initializer=tf.truncated_normal_initializer(stddev=0.2),
    )
    hidden = tf.cond(
        training, lambda: tf.nn.dropout(hidden, rate=0.25), lambda: tf.identity(hidden)
    )
    return tf.layers.dense(hidden, NUM_CLASSES, name="logits", kernel_initializer=glorot)


def run_training():
    features, ids, labels = fake_data(FLAGS.batch_size * 4)
    with tf.Graph().as_default():
        tf.set_random_seed(FLAGS.seed)
        features_pl = tf.placeholder(tf.float32, [None, FEATURES], name="features")
        ids_pl = tf.placeholder(tf.int32, [None], name="ids")
        labels_pl = tf.placeholder(tf.int64, [None], name="labels")
        keep_prob = tf.placeholder_with_default(1.0, shape=(), name="keep_prob")
        training = tf.placeholder_with_default(False, shape=(), name="training")
        logits = model(features_pl, ids_pl, keep_prob, training)
        loss = tf.losses.sparse_softmax_cross_entropy(labels=labels_pl, logits=logits)
        global_step = tf.train.get_or_create_global_step()
        train_op = tf.train.AdamOptimizer(0.01).minimize(loss, global_step=global_step)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            # the uniform draws' bits (TF's float32 normals differ in the last bit on ~1%)
            kernels = [v for v in tf.trainable_variables() if v.name in UNIFORM_KERNELS]
            digest = hashlib.sha1(b"".join(k.tobytes() for k in sess.run(kernels)))
            print("INIT_SHA1 %d %s" % (len(kernels), digest.hexdigest()))
            for step in range(FLAGS.max_steps):
                start = (step * FLAGS.batch_size) % len(features)
                feed = {
                    features_pl: features[start:start + FLAGS.batch_size],
                    ids_pl: ids[start:start + FLAGS.batch_size],
                    labels_pl: labels[start:start + FLAGS.batch_size],
                    keep_prob: 0.8,
                    training: True,
                }
                _, loss_value = sess.run([train_op, loss], feed_dict=feed)
                print("LOSS %d %r" % (step, float(loss_value)))
            eval_loss = sess.run(loss, {features_pl: features, ids_pl: ids, labels_pl: labels})
            print("EVAL_LOSS %.5f" % eval_loss)
            path = saver.save(sess, os.path.join(FLAGS.train_dir, "model.ckpt"), global_step)
            print("CKPT %s" % path)


def main(_):
    if tf.gfile.Exists(FLAGS.train_dir):
        tf.gfile.DeleteRecursively(FLAGS.train_dir)
    tf.gfile.MakeDirs(FLAGS.train_dir)
    run_training()


if __name__ == "__main__":
    tf.app.run()
