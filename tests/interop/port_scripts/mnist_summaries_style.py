"""A summaries-heavy training loop in the style of TF1's ``mnist_with_summaries.py``.

An ``InteractiveSession``; ``variable_summaries`` (mean, stddev, max, min scalars and
a histogram) on every weight and bias, histograms of pre-activations and
activations, an image summary of the input, a dropout keep-probability scalar,
``tf.summary.merge_all`` and two ``FileWriter``s (train with the graph, test).
Every 10th step evaluates on the test data; every ``--trace_every``-th step runs
with ``RunOptions(trace_level=FULL_TRACE)`` and a ``RunMetadata``, written with
``add_run_metadata(run_metadata, 'step%03d' % i)`` as the tutorial does. The event
files are read back with ``tf.train.summary_iterator`` at the end.

As the other port scripts, the weights start from fixed values (TF's random
initializers' streams differ by design) and dropout keeps everything
(``--dropout=1.0``): the printed losses depend on no random stream.
"""

import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()

import glob
import os

import numpy as np

flags = tf.app.flags
flags.DEFINE_integer("max_steps", 25, "Number of steps to run trainer.")
flags.DEFINE_float("learning_rate", 0.01, "Initial learning rate")
flags.DEFINE_float("dropout", 1.0, "Keep probability for training dropout.")
flags.DEFINE_integer("trace_every", 100, "Steps between FULL_TRACE runs.")
flags.DEFINE_string("summaries_dir", "/tmp/mnist_summaries_style", "Summaries log directory")
FLAGS = flags.FLAGS

IMAGE_SIDE = 4
IMAGE_PIXELS = IMAGE_SIDE * IMAGE_SIDE
HIDDEN_UNITS = 12
NUM_CLASSES = 5
BATCH_SIZE = 10


def fake_data(num_examples, seed):
    """A deterministic dataset: images in [0, 1), labels the argmax of a fixed linear map."""
    rng = np.random.RandomState(seed)
    images = rng.uniform(size=(num_examples, IMAGE_PIXELS)).astype(np.float32)
    true_w = np.random.RandomState(99).normal(size=(IMAGE_PIXELS, NUM_CLASSES))
    labels = np.argmax(images @ true_w.astype(np.float32), axis=1).astype(np.int64)
    return images, labels


def train():
    train_images, train_labels = fake_data(BATCH_SIZE * 4, 1)
    test_images, test_labels = fake_data(BATCH_SIZE * 2, 2)

    sess = tf.InteractiveSession()
    # Create a multilayer model.

    # Input placeholders
    with tf.name_scope("input"):
        x = tf.placeholder(tf.float32, [None, IMAGE_PIXELS], name="x-input")
        y_ = tf.placeholder(tf.int64, [None], name="y-input")

    with tf.name_scope("input_reshape"):
        image_shaped_input = tf.reshape(x, [-1, IMAGE_SIDE, IMAGE_SIDE, 1])
        tf.summary.image("input", image_shaped_input, 3)

    # We can't initialize these variables to 0 - the network will get stuck.
    def weight_variable(shape, seed):
        """Create a weight variable with fixed starting values."""
        rng = np.random.RandomState(seed)
        initial = tf.constant((0.1 * rng.normal(size=shape)).astype(np.float32))
        return tf.Variable(initial)

    def bias_variable(shape):
        """Create a bias variable with appropriate initialization."""
        initial = tf.constant(0.1, shape=shape)
        return tf.Variable(initial)

    def variable_summaries(var):
        """Attach a lot of summaries to a Tensor (for TensorBoard visualization)."""
        with tf.name_scope("summaries"):
            mean = tf.reduce_mean(var)
            tf.summary.scalar("mean", mean)
            with tf.name_scope("stddev"):
                stddev = tf.sqrt(tf.reduce_mean(tf.square(var - mean)))
            tf.summary.scalar("stddev", stddev)
            tf.summary.scalar("max", tf.reduce_max(var))
            tf.summary.scalar("min", tf.reduce_min(var))
            tf.summary.histogram("histogram", var)

    def nn_layer(input_tensor, input_dim, output_dim, layer_name, seed, act=tf.nn.relu):
        """Reusable code for making a simple neural net layer."""
        # Adding a name scope ensures logical grouping of the layers in the graph.
        with tf.name_scope(layer_name):
            # This Variable will hold the state of the weights for the layer
            with tf.name_scope("weights"):
                weights = weight_variable([input_dim, output_dim], seed)
                variable_summaries(weights)
            with tf.name_scope("biases"):
                biases = bias_variable([output_dim])
                variable_summaries(biases)
            with tf.name_scope("Wx_plus_b"):
                preactivate = tf.matmul(input_tensor, weights) + biases
                tf.summary.histogram("pre_activations", preactivate)
            activations = act(preactivate, name="activation")
            tf.summary.histogram("activations", activations)
            return activations

    hidden1 = nn_layer(x, IMAGE_PIXELS, HIDDEN_UNITS, "layer1", 7)

    with tf.name_scope("dropout"):
        keep_prob = tf.placeholder(tf.float32)
        tf.summary.scalar("dropout_keep_probability", keep_prob)
        dropped = tf.nn.dropout(hidden1, keep_prob)

    # Do not apply softmax activation yet, see below.
    y = nn_layer(dropped, HIDDEN_UNITS, NUM_CLASSES, "layer2", 8, act=tf.identity)

    with tf.name_scope("cross_entropy"):
        with tf.name_scope("total"):
            cross_entropy = tf.losses.sparse_softmax_cross_entropy(labels=y_, logits=y)
    tf.summary.scalar("cross_entropy", cross_entropy)

    with tf.name_scope("train"):
        train_step = tf.train.AdamOptimizer(FLAGS.learning_rate).minimize(cross_entropy)

    with tf.name_scope("accuracy"):
        with tf.name_scope("correct_prediction"):
            correct_prediction = tf.equal(tf.argmax(y, 1), y_)
        with tf.name_scope("accuracy"):
            accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))
    tf.summary.scalar("accuracy", accuracy)

    # Merge all the summaries and write them out to the log directory
    merged = tf.summary.merge_all()
    train_writer = tf.summary.FileWriter(FLAGS.summaries_dir + "/train", sess.graph)
    test_writer = tf.summary.FileWriter(FLAGS.summaries_dir + "/test")
    tf.global_variables_initializer().run()

    # Train the model, and also write summaries.
    # Every 10th step, measure test-set accuracy, and write test summaries
    # All other steps, run train_step on training data, & add training summaries

    def feed_dict(train, step):
        """Make a TensorFlow feed_dict: maps data onto Tensor placeholders."""
        if train:
            start = (step * BATCH_SIZE) % len(train_images)
            xs = train_images[start:start + BATCH_SIZE]
            ys = train_labels[start:start + BATCH_SIZE]
            k = FLAGS.dropout
        else:
            xs, ys = test_images, test_labels
            k = 1.0
        return {x: xs, y_: ys, keep_prob: k}

    for i in range(FLAGS.max_steps):
        if i % 10 == 0:  # Record summaries and test-set accuracy
            summary, acc, loss = sess.run(
                [merged, accuracy, cross_entropy], feed_dict=feed_dict(False, i)
            )
            test_writer.add_summary(summary, i)
            print("ACCURACY %d %r" % (i, float(acc)))
        else:  # Record train set summaries, and train
            if i % FLAGS.trace_every == FLAGS.trace_every - 1:  # Record execution stats
                run_options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
                run_metadata = tf.RunMetadata()
                summary, _, loss = sess.run(
                    [merged, train_step, cross_entropy],
                    feed_dict=feed_dict(True, i),
                    options=run_options,
                    run_metadata=run_metadata,
                )
                train_writer.add_run_metadata(run_metadata, "step%03d" % i)
                train_writer.add_summary(summary, i)
                devices = sorted(d.device for d in run_metadata.step_stats.dev_stats)
                nodes = [n for d in run_metadata.step_stats.dev_stats for n in d.node_stats]
                timed = bool(nodes) and all(
                    n.all_start_micros > 0 and n.all_end_rel_micros >= n.op_end_rel_micros >= 0
                    for n in nodes
                )
                print("TRACED %d %s timed=%s" % (i, ",".join(devices), timed))
            else:  # Record a summary
                summary, _, loss = sess.run(
                    [merged, train_step, cross_entropy], feed_dict=feed_dict(True, i)
                )
                train_writer.add_summary(summary, i)
        print("LOSS %d %r" % (i, float(loss)))
    # Untraced runs leave a RunMetadata empty.
    run_metadata = tf.RunMetadata()
    sess.run(cross_entropy, feed_dict=feed_dict(False, 0), run_metadata=run_metadata)
    print("UNTRACED %d" % run_metadata.ByteSize())
    train_writer.close()
    test_writer.close()
    sess.close()


def read_events():
    """The written event files, read back with TF1's summary_iterator."""
    for which in ("train", "test"):
        (path,) = glob.glob(os.path.join(FLAGS.summaries_dir, which, "events.out.tfevents.*"))
        graphs, tags, traces = 0, {}, []
        for event in tf.train.summary_iterator(path):
            if event.HasField("graph_def"):
                graphs += 1
            if event.HasField("tagged_run_metadata"):
                meta = tf.RunMetadata.FromString(event.tagged_run_metadata.run_metadata)
                devices = sorted(d.device for d in meta.step_stats.dev_stats)
                traces.append("%s:%s" % (event.tagged_run_metadata.tag, ",".join(devices)))
            for value in event.summary.value:
                kind = value.WhichOneof("value")
                tags.setdefault((value.tag, kind), []).append(event.step)
        print("GRAPHS %s %d" % (which, graphs))
        print("RUNMETA %s %s" % (which, " ".join(traces)))
        for (tag, kind), steps in sorted(tags.items()):
            print("SUMMARY %s %s %s %s" % (which, tag, kind, ",".join(map(str, steps))))


def main(_):
    if tf.gfile.Exists(FLAGS.summaries_dir):
        tf.gfile.DeleteRecursively(FLAGS.summaries_dir)
    tf.gfile.MakeDirs(FLAGS.summaries_dir)
    train()
    read_events()


if __name__ == "__main__":
    tf.app.run()
