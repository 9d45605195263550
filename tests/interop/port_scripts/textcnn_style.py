"""A sentence-classification CNN (Kim 2014) in the style of TF1's ``cnn-text-classification-tf``.

Variable-length token lists come from a Python generator through
``tf.data.Dataset.from_generator`` (``padded_batch`` to a fixed length, ``shuffle`` with
a seed, ``repeat``) for training, and from ``from_tensor_slices`` over a padded NumPy
matrix for evaluation; both are ``make_initializable_iterator``s read through one
feedable iterator (``tf.data.Iterator.from_string_handle`` fed with each iterator's
``string_handle()``). The model: ``tf.Variable(tf.random_uniform(...))`` embeddings,
``tf.nn.embedding_lookup`` + ``tf.expand_dims``, one ``tf.nn.conv2d`` per filter size
(``truncated_normal`` kernels) + ``bias_add`` + ``relu`` + ``max_pool`` over time,
``tf.concat`` + ``reshape``, ``tf.nn.dropout`` with a ``keep_prob`` placeholder,
``xw_plus_b`` scores, an ``l2_loss`` penalty on the output layer,
``softmax_cross_entropy_with_logits_v2``, argmax accuracy and ``tf.metrics.accuracy``.
``AdamOptimizer.compute_gradients`` / ``apply_gradients(global_step=...)``; gradient
histograms and sparsity scalars named after ``v.name`` (the ``:0`` TF renames),
``merge_all`` to a ``FileWriter``; a ``Saver(max_to_keep=2)`` saving every few steps.
"""

import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()

import glob
import os

import numpy as np

flags = tf.app.flags
flags.DEFINE_string("train_dir", "/tmp/textcnn_style", "Directory for summaries and checkpoints.")
flags.DEFINE_integer("max_steps", 15, "Number of training steps.")
flags.DEFINE_integer("batch_size", 8, "Batch size.")
flags.DEFINE_integer("embedding_dim", 8, "Dimensionality of character embedding.")
flags.DEFINE_string("filter_sizes", "2,3,4", "Comma-separated filter sizes.")
flags.DEFINE_integer("num_filters", 4, "Number of filters per filter size.")
flags.DEFINE_float("dropout_keep_prob", 0.5, "Dropout keep probability.")
flags.DEFINE_float("l2_reg_lambda", 0.1, "L2 regularization lambda.")
flags.DEFINE_integer("checkpoint_every", 5, "Save model after this many steps.")
flags.DEFINE_integer("num_checkpoints", 2, "Number of checkpoints to store.")
FLAGS = flags.FLAGS

VOCAB_SIZE = 30
SEQUENCE_LENGTH = 10
NUM_CLASSES = 2


def sentences(num, seed):
    """Token lists of 3..10 ids; class 1 sentences use the upper half of the vocabulary more."""
    rng = np.random.RandomState(seed)
    data = []
    for _ in range(num):
        label = rng.randint(NUM_CLASSES)
        length = rng.randint(3, SEQUENCE_LENGTH + 1)
        low, high = (1, 20) if label == 0 else (10, VOCAB_SIZE)
        data.append((rng.randint(low, high, size=length).astype(np.int32), label))
    return data


class TextCNN:
    def __init__(self, input_x, input_y, dropout_keep_prob, sequence_length, num_classes,
                 vocab_size, embedding_size, filter_sizes, num_filters, l2_reg_lambda=0.0):
        self.input_x = input_x
        self.input_y = input_y
        self.dropout_keep_prob = dropout_keep_prob
        l2_loss = tf.constant(0.0)

        with tf.device("/cpu:0"), tf.name_scope("embedding"):
            self.W = tf.Variable(
                tf.random_uniform([vocab_size, embedding_size], -1.0, 1.0), name="W")
            self.embedded_chars = tf.nn.embedding_lookup(self.W, self.input_x)
            self.embedded_chars_expanded = tf.expand_dims(self.embedded_chars, -1)

        pooled_outputs = []
        for filter_size in filter_sizes:
            with tf.name_scope("conv-maxpool-%s" % filter_size):
                filter_shape = [filter_size, embedding_size, 1, num_filters]
                W = tf.Variable(tf.truncated_normal(filter_shape, stddev=0.1), name="W")
                b = tf.Variable(tf.constant(0.1, shape=[num_filters]), name="b")
                conv = tf.nn.conv2d(
                    self.embedded_chars_expanded, W, strides=[1, 1, 1, 1], padding="VALID",
                    name="conv")
                h = tf.nn.relu(tf.nn.bias_add(conv, b), name="relu")
                pooled = tf.nn.max_pool(
                    h, ksize=[1, sequence_length - filter_size + 1, 1, 1],
                    strides=[1, 1, 1, 1], padding="VALID", name="pool")
                pooled_outputs.append(pooled)

        num_filters_total = num_filters * len(filter_sizes)
        self.h_pool = tf.concat(pooled_outputs, 3)
        self.h_pool_flat = tf.reshape(self.h_pool, [-1, num_filters_total])

        with tf.name_scope("dropout"):
            self.h_drop = tf.nn.dropout(self.h_pool_flat, self.dropout_keep_prob)

        with tf.name_scope("output"):
            W = tf.get_variable(
                "W", shape=[num_filters_total, num_classes],
                initializer=tf.glorot_uniform_initializer())
            b = tf.Variable(tf.constant(0.1, shape=[num_classes]), name="b")
            l2_loss += tf.nn.l2_loss(W)
            l2_loss += tf.nn.l2_loss(b)
            self.scores = tf.nn.xw_plus_b(self.h_drop, W, b, name="scores")
            self.predictions = tf.argmax(self.scores, 1, name="predictions")

        with tf.name_scope("loss"):
            losses = tf.nn.softmax_cross_entropy_with_logits_v2(
                logits=self.scores, labels=self.input_y)
            self.loss = tf.reduce_mean(losses) + l2_reg_lambda * l2_loss

        with tf.name_scope("accuracy"):
            correct_predictions = tf.equal(self.predictions, tf.argmax(self.input_y, 1))
            self.accuracy = tf.reduce_mean(tf.cast(correct_predictions, "float"), name="accuracy")


def main(_):
    if tf.gfile.Exists(FLAGS.train_dir):
        tf.gfile.DeleteRecursively(FLAGS.train_dir)
    tf.gfile.MakeDirs(FLAGS.train_dir)
    train_data = sentences(40, seed=1)
    eval_data = sentences(12, seed=2)
    eval_x = np.zeros([len(eval_data), SEQUENCE_LENGTH], np.int32)
    for row, (tokens, _) in enumerate(eval_data):
        eval_x[row, :len(tokens)] = tokens
    eval_y = np.array([label for _, label in eval_data], np.int64)

    def generate():
        for tokens, label in train_data:
            yield tokens, int(label)

    with tf.Graph().as_default():
        tf.set_random_seed(1234)
        train_ds = tf.data.Dataset.from_generator(
            generate, (tf.int32, tf.int64), (tf.TensorShape([None]), tf.TensorShape([])))
        train_ds = train_ds.shuffle(len(train_data), seed=5).padded_batch(
            FLAGS.batch_size, padded_shapes=([SEQUENCE_LENGTH], [])).repeat()
        eval_ds = tf.data.Dataset.from_tensor_slices((eval_x, eval_y)).batch(5)
        train_iterator = train_ds.make_initializable_iterator()
        eval_iterator = eval_ds.make_initializable_iterator()

        handle = tf.placeholder(tf.string, shape=[], name="handle")
        iterator = tf.data.Iterator.from_string_handle(
            handle, train_ds.output_types, train_ds.output_shapes)
        tokens, labels = iterator.get_next()
        print("BATCH_SHAPES %s %s" % (tokens.shape, labels.shape))
        dropout_keep_prob = tf.placeholder(tf.float32, name="dropout_keep_prob")

        cnn = TextCNN(
            tokens, tf.one_hot(labels, NUM_CLASSES), dropout_keep_prob,
            sequence_length=SEQUENCE_LENGTH, num_classes=NUM_CLASSES, vocab_size=VOCAB_SIZE,
            embedding_size=FLAGS.embedding_dim,
            filter_sizes=list(map(int, FLAGS.filter_sizes.split(","))),
            num_filters=FLAGS.num_filters, l2_reg_lambda=FLAGS.l2_reg_lambda)
        streaming_accuracy, streaming_update = tf.metrics.accuracy(labels, cnn.predictions)

        global_step = tf.Variable(0, name="global_step", trainable=False)
        optimizer = tf.train.AdamOptimizer(1e-2)
        grads_and_vars = optimizer.compute_gradients(cnn.loss)
        train_op = optimizer.apply_gradients(grads_and_vars, global_step=global_step)

        for g, v in grads_and_vars:
            if g is not None:
                tf.summary.histogram("%s/grad/hist" % v.name, g)
                tf.summary.scalar("%s/grad/sparsity" % v.name, tf.nn.zero_fraction(g))
        tf.summary.scalar("loss", cnn.loss)
        tf.summary.scalar("accuracy", cnn.accuracy)
        summary_op = tf.summary.merge_all()
        print("VARS %s" % " ".join(v.op.name for v in tf.global_variables()))
        print("GRAD_TYPES %s" % " ".join(
            "IndexedSlices" if isinstance(g, tf.IndexedSlices) else "dense"
            for g, _ in grads_and_vars))

        saver = tf.train.Saver(tf.global_variables(), max_to_keep=FLAGS.num_checkpoints)
        checkpoint_prefix = os.path.join(FLAGS.train_dir, "model")
        with tf.Session() as sess:
            writer = tf.summary.FileWriter(FLAGS.train_dir, sess.graph)
            sess.run(tf.global_variables_initializer())
            sess.run(tf.local_variables_initializer())
            train_handle, eval_handle = sess.run(
                [train_iterator.string_handle(), eval_iterator.string_handle()])
            sess.run(train_iterator.initializer)
            path = None
            for step in range(FLAGS.max_steps):
                feed_dict = {handle: train_handle, dropout_keep_prob: FLAGS.dropout_keep_prob}
                _, current, summaries, loss, accuracy = sess.run(
                    [train_op, global_step, summary_op, cnn.loss, cnn.accuracy], feed_dict)
                writer.add_summary(summaries, current)
                print("LOSS %d %r" % (step, float(loss)))
                print("ACC %d %r" % (step, float(accuracy)))
                if current % FLAGS.checkpoint_every == 0:
                    path = saver.save(sess, checkpoint_prefix, global_step=current)
            writer.close()

            sess.run(eval_iterator.initializer)
            batches = 0
            while True:
                try:
                    sess.run(streaming_update, {handle: eval_handle, dropout_keep_prob: 1.0})
                    batches += 1
                except tf.errors.OutOfRangeError:
                    break
            print("EVAL %d %.4f" % (batches, sess.run(streaming_accuracy)))
            print("KEPT %s" % " ".join(
                os.path.basename(p) for p in saver.last_checkpoints))
            print("CKPT %s" % path)

    (events,) = glob.glob(os.path.join(FLAGS.train_dir, "events.out.tfevents.*"))
    tags = {}
    for event in tf.train.summary_iterator(events):
        for value in event.summary.value:
            tags.setdefault(value.tag, []).append(event.step)
    for tag in sorted(tags):
        print("SUMMARY %s %d %d" % (tag, len(tags[tag]), max(tags[tag])))


if __name__ == "__main__":
    tf.app.run()
