"""A tiny Transformer encoder in the style of tensor2tensor-era TF1 examples (no contrib).

The task: reverse a padded sequence of word ids. Token embeddings (shared with the
output layer through ``tf.matmul(..., transpose_b=True)``) are scaled by
``sqrt(d_model)`` and added to a sinusoidal position encoding built from ``tf.range``,
``tf.exp``, ``tf.sin``/``tf.cos`` and ``tf.concat``. Each of the two layers is
multi-head self-attention (``tf.layers.dense`` projections split into heads by
``tf.reshape``/``tf.transpose``, ``tf.matmul(q, k, transpose_b=True)`` scaled by
``tf.rsqrt``, padded keys masked with ``-1e9``, ``tf.nn.softmax``, ``tf.nn.dropout``)
and a ReLU feed-forward block, each wrapped in a residual and a layer norm computed
from ``tf.nn.moments``. The loss is ``tf.losses.softmax_cross_entropy`` with
``label_smoothing=0.1`` weighted by the padding mask; ``AdamOptimizer(beta1=0.9,
beta2=0.98, epsilon=1e-9)`` gets the Noam learning rate
``d**-0.5 * min(step**-0.5, step * warmup**-1.5)`` (``tf.minimum``, ``tf.rsqrt``,
``tf.cast`` of the global step) and gradients clipped by ``tf.clip_by_global_norm``.
``tf.summary.scalar``s and a ``tf.summary.histogram`` of the attention weights go
through ``merge_all`` to a ``FileWriter``, read back with
``tf.train.summary_iterator``; the model is saved with a ``Saver`` and restored from
``tf.train.latest_checkpoint`` into a new graph (no dropout) to predict. Weights come
from seeded TF initializers, dropout masks from TF's stream under
``tf.set_random_seed``.

The warmup (120 steps) outlasts the 20-step run, so the printed rates come from the
linear branch of the ``tf.minimum``, and keeps the rates small. Measured: TF's CPU
``Rsqrt`` is Eigen's hardware estimate refined by one Newton step, one ulp away from
the correctly rounded value (which jtrain computes) for 18 of the integers 1..29, so
rates after the warmup differ in the last bit (in the layer norms and the attention
scale those ulps stay below the tolerances); with an 8-step warmup the peak rate
(0.088) makes training chaotic and the losses of TF's and jtrain's runs part by 2e-4
after 19 steps, even with ``1 / tf.sqrt`` in place of ``tf.rsqrt``; and Adam divides
the rounding differences of small gradient elements (XLA and Eigen sum in other
orders) by those elements' size, so the saved weights differ in proportion to the
rate: by up to 1.6 times the checkpoint tolerance with a 30-step warmup (already
after 12 steps), 0.53 times with 60 steps, 0.20 times with 120.
"""

import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()

import glob
import os

import numpy as np

flags = tf.app.flags
flags.DEFINE_string("train_dir", "/tmp/transformer_style", "Summaries and checkpoints.")
flags.DEFINE_integer("max_steps", 20, "Number of training steps.")
flags.DEFINE_integer("warmup_steps", 120, "Noam warmup steps.")
flags.DEFINE_float("adam_epsilon", 1e-9, "Adam's epsilon.")
flags.DEFINE_float("dropout", 0.1, "Dropout rate.")
FLAGS = flags.FLAGS

PAD = 0
VOCAB = 20
SEQ = 6
D_MODEL = 16
HEADS = 2
FF = 32
LAYERS = 2
BATCH = 8


def make_batch(rng):
    """Padded sequences of lengths 3..SEQ and their reversals."""
    lengths = rng.randint(3, SEQ + 1, size=BATCH)
    source = np.full((BATCH, SEQ), PAD, np.int32)
    target = np.full((BATCH, SEQ), PAD, np.int32)
    for b, n in enumerate(lengths):
        words = rng.randint(1, VOCAB, size=n)
        source[b, :n] = words
        target[b, :n] = words[::-1]
    return source, target


def positional_encoding(length, depth):
    """sin on the first half of the channels, cos on the second (tensor2tensor's layout)."""
    position = tf.cast(tf.range(length), tf.float32)
    num_timescales = depth // 2
    log_increment = np.log(10000.0) / (num_timescales - 1)
    inv_timescales = tf.exp(tf.cast(tf.range(num_timescales), tf.float32) * -log_increment)
    scaled_time = tf.expand_dims(position, 1) * tf.expand_dims(inv_timescales, 0)
    signal = tf.concat([tf.sin(scaled_time), tf.cos(scaled_time)], axis=1)
    return tf.reshape(signal, [1, length, depth])


def layer_norm(x, name, epsilon=1e-6):
    with tf.variable_scope(name):
        depth = x.get_shape()[-1]
        scale = tf.get_variable("scale", [depth], initializer=tf.ones_initializer())
        bias = tf.get_variable("bias", [depth], initializer=tf.zeros_initializer())
        mean, variance = tf.nn.moments(x, axes=[-1], keep_dims=True)
        return (x - mean) * tf.rsqrt(variance + epsilon) * scale + bias


def split_heads(x, batch_size):
    x = tf.reshape(x, [batch_size, -1, HEADS, D_MODEL // HEADS])
    return tf.transpose(x, [0, 2, 1, 3])


def multihead_attention(x, bias, dropout_rate, seed):
    batch_size = tf.shape(x)[0]
    q, k, v = (
        tf.layers.dense(x, D_MODEL, use_bias=False, name=name,
                        kernel_initializer=tf.glorot_uniform_initializer(seed=seed + i))
        for i, name in enumerate(("q", "k", "v"))
    )
    q, k, v = (split_heads(t, batch_size) for t in (q, k, v))
    q *= tf.rsqrt(tf.cast(D_MODEL // HEADS, tf.float32))
    logits = tf.matmul(q, k, transpose_b=True) + bias
    weights = tf.nn.softmax(logits, name="attention_weights")
    tf.summary.histogram("attention_weights", weights)
    weights = tf.nn.dropout(weights, rate=dropout_rate)
    context = tf.matmul(weights, v)
    context = tf.reshape(tf.transpose(context, [0, 2, 1, 3]), [batch_size, -1, D_MODEL])
    return tf.layers.dense(context, D_MODEL, use_bias=False, name="output_transform",
                           kernel_initializer=tf.glorot_uniform_initializer(seed=seed + 3))


def feed_forward(x, dropout_rate, seed):
    init = tf.glorot_uniform_initializer
    h = tf.layers.dense(x, FF, activation=tf.nn.relu, name="conv1",
                        kernel_initializer=init(seed=seed))
    h = tf.nn.dropout(h, rate=dropout_rate)
    return tf.layers.dense(h, D_MODEL, name="conv2", kernel_initializer=init(seed=seed + 1))


class Transformer:
    def __init__(self):
        self.inputs = tf.placeholder(tf.int32, [None, SEQ], name="inputs")
        self.targets = tf.placeholder(tf.int32, [None, SEQ], name="targets")
        self.dropout_rate = tf.placeholder_with_default(0.0, [], name="dropout_rate")

        padding = tf.cast(tf.equal(self.inputs, PAD), tf.float32)
        attention_bias = tf.expand_dims(tf.expand_dims(padding * -1e9, 1), 1)

        self.embedding = tf.get_variable(
            "embedding", [VOCAB, D_MODEL],
            initializer=tf.random_normal_initializer(0.0, D_MODEL ** -0.5, seed=7),
        )
        x = tf.nn.embedding_lookup(self.embedding, self.inputs) * (D_MODEL ** 0.5)
        x += positional_encoding(SEQ, D_MODEL)
        x = tf.nn.dropout(x, rate=self.dropout_rate)

        for i in range(LAYERS):
            with tf.variable_scope("layer_%d" % i):
                with tf.variable_scope("self_attention"):
                    y = multihead_attention(x, attention_bias, self.dropout_rate, seed=100 * i)
                    x = layer_norm(x + tf.nn.dropout(y, rate=self.dropout_rate), "layer_norm")
                with tf.variable_scope("ffn"):
                    y = feed_forward(x, self.dropout_rate, seed=100 * i + 50)
                    x = layer_norm(x + tf.nn.dropout(y, rate=self.dropout_rate), "layer_norm")

        flat = tf.reshape(x, [-1, D_MODEL])
        logits = tf.matmul(flat, self.embedding, transpose_b=True)
        mask = tf.cast(tf.not_equal(tf.reshape(self.targets, [-1]), PAD), tf.float32)
        self.loss = tf.losses.softmax_cross_entropy(
            onehot_labels=tf.one_hot(tf.reshape(self.targets, [-1]), VOCAB),
            logits=logits, weights=mask, label_smoothing=0.1,
        )
        self.predictions = predictions = tf.argmax(logits, axis=-1, output_type=tf.int32)
        correct = tf.cast(tf.equal(predictions, tf.reshape(self.targets, [-1])), tf.float32)
        self.accuracy = tf.reduce_sum(correct * mask) / tf.reduce_sum(mask)

        self.global_step = tf.train.get_or_create_global_step()
        step = tf.cast(self.global_step + 1, tf.float32)
        self.learning_rate = D_MODEL ** -0.5 * tf.minimum(
            tf.rsqrt(step), step * FLAGS.warmup_steps ** -1.5
        )
        optimizer = tf.train.AdamOptimizer(
            self.learning_rate, beta1=0.9, beta2=0.98, epsilon=FLAGS.adam_epsilon
        )
        params = tf.trainable_variables()
        gradients = tf.gradients(self.loss, params)
        clipped, self.gradient_norm = tf.clip_by_global_norm(gradients, 1.0)
        self.train_op = optimizer.apply_gradients(
            zip(clipped, params, strict=True), global_step=self.global_step
        )

        tf.summary.scalar("loss", self.loss)
        tf.summary.scalar("learning_rate", self.learning_rate)
        tf.summary.scalar("gradient_norm", self.gradient_norm)
        self.summaries = tf.summary.merge_all()


def main(_):
    if tf.gfile.Exists(FLAGS.train_dir):
        tf.gfile.DeleteRecursively(FLAGS.train_dir)
    tf.gfile.MakeDirs(FLAGS.train_dir)
    with tf.Graph().as_default():
        tf.set_random_seed(2017)
        with tf.variable_scope("transformer"):
            model = Transformer()
        for v in tf.trainable_variables():
            print("VAR %s %s" % (v.op.name, v.get_shape().as_list()))
        saver = tf.train.Saver(max_to_keep=2)
        rng = np.random.RandomState(11)
        with tf.Session() as sess:
            writer = tf.summary.FileWriter(FLAGS.train_dir, sess.graph)
            sess.run(tf.global_variables_initializer())
            for step in range(FLAGS.max_steps):
                source, target = make_batch(rng)
                feed = {model.inputs: source, model.targets: target,
                        model.dropout_rate: FLAGS.dropout}
                _, loss, lr, summary = sess.run(
                    [model.train_op, model.loss, model.learning_rate, model.summaries], feed
                )
                writer.add_summary(summary, step)
                print("LOSS %d %r" % (step, float(loss)))
                print("LR %d %r" % (step, float(lr)))
            writer.close()

            source, target = make_batch(np.random.RandomState(99))
            accuracy = sess.run(model.accuracy, {model.inputs: source, model.targets: target})
            print("ACC %.4f" % accuracy)
            print("STEP %d" % sess.run(model.global_step))
            path = saver.save(
                sess, os.path.join(FLAGS.train_dir, "model.ckpt"), global_step=model.global_step
            )
            print("CKPT %s" % path)

    with tf.Graph().as_default():
        with tf.variable_scope("transformer"):
            model = Transformer()
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, tf.train.latest_checkpoint(FLAGS.train_dir))
            predictions = sess.run(model.predictions, {model.inputs: source})
            for row in predictions.reshape(-1, SEQ):
                print("PRED %s" % " ".join(str(i) for i in row))

    (events,) = glob.glob(os.path.join(FLAGS.train_dir, "events.out.tfevents.*"))
    for event in tf.train.summary_iterator(events):
        for value in event.summary.value:
            if value.tag == "learning_rate":
                print("EVENT %d %s %r" % (event.step, value.tag, value.simple_value))
            else:
                print("TAG %d %s" % (event.step, value.tag))


if __name__ == "__main__":
    tf.app.run()
