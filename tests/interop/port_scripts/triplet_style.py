"""A metric-learning model with batch-hard triplet loss, in the style of the 2018 TF1
triplet-loss tutorials (Olivier Moindrot's "Triplet Loss and Online Triplet Mining").

Synthetic data in NumPy: eight classes, each a Gaussian blob around its own centre in
16 dimensions, sampled by a seeded generator into batches holding every class. The
embedding network is two ``tf.layers.dense`` layers and ``tf.nn.l2_normalize``. The
loss is the tutorial's batch-hard triplet loss: pairwise distances from the Gram
matrix (``tf.matmul(..., transpose_b=True)``, ``tf.diag_part``, ``tf.expand_dims``,
``tf.maximum``, the zeros masked before ``tf.sqrt`` so its gradient stays finite),
masks of valid positives and negatives built with ``tf.equal``, ``tf.eye``,
``tf.logical_not``, ``tf.logical_and`` and ``tf.to_float``, the hardest positive by
``tf.reduce_max``, the hardest negative by ``tf.reduce_min`` of the distances with the
invalid ones pushed up, and ``tf.maximum(hardest_pos - hardest_neg + margin, 0.0)``
averaged. A second metric, the fraction of positive triplets, comes from the
batch-all variant (a rank-3 mask from ``tf.expand_dims`` products, ``tf.greater``,
``tf.reduce_sum``). Adam with ``tf.train.exponential_decay(staircase=True)``,
summaries of the loss and a histogram of the embeddings written by a
``tf.summary.FileWriter``, a ``Saver``; at the end the checkpoint restores into a new
graph, which prints each class's nearest class by its embedded centres.
"""

import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()

import os

import numpy as np

flags = tf.app.flags
flags.DEFINE_string("train_dir", "/tmp/triplet_style", "Directory for checkpoints and events.")
flags.DEFINE_integer("max_steps", 20, "Number of training steps.")
flags.DEFINE_integer("per_class", 3, "Examples of each class in a batch.")
flags.DEFINE_float("margin", 0.5, "The triplet loss's margin.")
flags.DEFINE_float("learning_rate", 0.01, "Adam's initial learning rate.")
FLAGS = flags.FLAGS

NUM_CLASSES = 8
INPUT_DIM = 16
EMBEDDING_DIM = 8


def embed(inputs, reuse=None):
    with tf.variable_scope("embedding", reuse=reuse):
        h = tf.layers.dense(inputs, 32, activation=tf.nn.relu, name="hidden",
                            kernel_initializer=tf.glorot_uniform_initializer(seed=11))
        out = tf.layers.dense(h, EMBEDDING_DIM, name="out",
                              kernel_initializer=tf.glorot_uniform_initializer(seed=12))
        return tf.nn.l2_normalize(out, axis=1)


def pairwise_distances(embeddings, squared=False):
    dot_product = tf.matmul(embeddings, embeddings, transpose_b=True)
    square_norm = tf.diag_part(dot_product)
    distances = tf.expand_dims(square_norm, 0) - 2.0 * dot_product + tf.expand_dims(square_norm, 1)
    distances = tf.maximum(distances, 0.0)
    if not squared:
        mask = tf.to_float(tf.equal(distances, 0.0))
        distances = distances + mask * 1e-16
        distances = tf.sqrt(distances)
        distances = distances * (1.0 - mask)
    return distances


def anchor_positive_mask(labels):
    indices_equal = tf.cast(tf.eye(tf.shape(labels)[0]), tf.bool)
    indices_not_equal = tf.logical_not(indices_equal)
    labels_equal = tf.equal(tf.expand_dims(labels, 0), tf.expand_dims(labels, 1))
    return tf.logical_and(indices_not_equal, labels_equal)


def anchor_negative_mask(labels):
    labels_equal = tf.equal(tf.expand_dims(labels, 0), tf.expand_dims(labels, 1))
    return tf.logical_not(labels_equal)


def batch_hard_triplet_loss(labels, embeddings, margin):
    distances = pairwise_distances(embeddings)
    mask_pos = tf.to_float(anchor_positive_mask(labels))
    hardest_positive = tf.reduce_max(mask_pos * distances, axis=1, keepdims=True)
    mask_neg = tf.to_float(anchor_negative_mask(labels))
    max_per_row = tf.reduce_max(distances, axis=1, keepdims=True)
    negatives = distances + max_per_row * (1.0 - mask_neg)
    hardest_negative = tf.reduce_min(negatives, axis=1, keepdims=True)
    loss = tf.maximum(hardest_positive - hardest_negative + margin, 0.0)
    return tf.reduce_mean(loss)


def fraction_positive_triplets(labels, embeddings, margin):
    distances = pairwise_distances(embeddings, squared=True)
    anchor_positive = tf.expand_dims(distances, 2)
    anchor_negative = tf.expand_dims(distances, 1)
    triplet_loss = anchor_positive - anchor_negative + margin
    pos = tf.to_float(anchor_positive_mask(labels))
    neg = tf.to_float(anchor_negative_mask(labels))
    mask = tf.expand_dims(pos, 2) * tf.expand_dims(neg, 1)
    triplet_loss = tf.maximum(triplet_loss * mask, 0.0)
    positive = tf.to_float(tf.greater(triplet_loss, 1e-16))
    return tf.reduce_sum(positive) / (tf.reduce_sum(mask) + 1e-16)


def main(_):
    if tf.gfile.Exists(FLAGS.train_dir):
        tf.gfile.DeleteRecursively(FLAGS.train_dir)
    tf.gfile.MakeDirs(FLAGS.train_dir)
    rng = np.random.RandomState(7)
    centres = rng.normal(0.0, 1.0, (NUM_CLASSES, INPUT_DIM)).astype(np.float32)

    def batch():
        labels = np.repeat(np.arange(NUM_CLASSES), FLAGS.per_class)
        rng.shuffle(labels)
        noise = rng.normal(0.0, 0.6, (labels.size, INPUT_DIM)).astype(np.float32)
        return centres[labels] + noise, labels.astype(np.int64)

    with tf.Graph().as_default():
        inputs = tf.placeholder(tf.float32, [None, INPUT_DIM], name="inputs")
        labels = tf.placeholder(tf.int64, [None], name="labels")
        embeddings = embed(inputs)
        loss = batch_hard_triplet_loss(labels, embeddings, FLAGS.margin)
        fraction = fraction_positive_triplets(labels, embeddings, FLAGS.margin)
        global_step = tf.train.get_or_create_global_step()
        learning_rate = tf.train.exponential_decay(
            FLAGS.learning_rate, global_step, 5, 0.8, staircase=True
        )
        train_op = tf.train.AdamOptimizer(learning_rate).minimize(loss, global_step=global_step)
        tf.summary.scalar("loss", loss)
        tf.summary.scalar("fraction_positive_triplets", fraction)
        tf.summary.histogram("embeddings", embeddings)
        merged = tf.summary.merge_all()
        saver = tf.train.Saver(max_to_keep=2)

        with tf.Session() as sess:
            writer = tf.summary.FileWriter(FLAGS.train_dir, sess.graph)
            sess.run(tf.global_variables_initializer())
            for step in range(FLAGS.max_steps):
                x, y = batch()
                _, loss_value, fraction_value, summary, lr = sess.run(
                    [train_op, loss, fraction, merged, learning_rate], {inputs: x, labels: y}
                )
                writer.add_summary(summary, step)
                print("LOSS %d %.9g" % (step, loss_value))
                print("FRACTION %d %.3f" % (step, fraction_value))
                print("LR %d %.6g" % (step, lr))
            writer.close()
            path = saver.save(sess, os.path.join(FLAGS.train_dir, "model.ckpt"),
                              global_step=global_step)
            print("CKPT %s" % path)

    with tf.Graph().as_default():
        inputs = tf.placeholder(tf.float32, [None, INPUT_DIM], name="inputs")
        embeddings = embed(inputs)
        distances = pairwise_distances(embeddings)
        nearest = tf.argmin(distances + 1e3 * tf.eye(NUM_CLASSES), axis=1)
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, tf.train.latest_checkpoint(FLAGS.train_dir))
            print("NEAREST %s" % " ".join(str(c) for c in sess.run(nearest, {inputs: centres})))
    events = sorted(tf.gfile.Glob(os.path.join(FLAGS.train_dir, "events.out.tfevents.*")))
    tags = set()
    for event in tf.train.summary_iterator(events[0]):
        for value in event.summary.value:
            tags.add(value.tag)
    print("TAGS %s" % " ".join(sorted(tags)))


if __name__ == "__main__":
    tf.app.run()
