"""A Keras classifier trained with ``compile``/``fit`` in a TF1 graph, in the style of
TF 1.x's Keras tutorials (``tf.keras.Sequential`` + ``model.fit`` on NumPy arrays).

Synthetic 3-class data (NumPy); ``Sequential`` of ``Dense``/``BatchNormalization``/
``Dropout`` layers with seeded initializers and an L2 regularizer; ``compile`` with
the string optimizer ``'adam'`` (Keras' optimizer, its ``training/Adam/...``
variables), ``sparse_categorical_crossentropy`` and ``accuracy``; ``fit`` with
``validation_split``, shuffling by NumPy's seeded stream, a ``LambdaCallback``
printing each batch's loss and a ``LearningRateScheduler``; ``evaluate`` and
``predict``; then a ``tf.train.Saver`` checkpoint of every global variable from
Keras' session.
"""

import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()

import os

import numpy as np

flags = tf.app.flags
flags.DEFINE_string("train_dir", "/tmp/keras_fit_style", "Directory for the checkpoint.")
flags.DEFINE_integer("epochs", 3, "Training epochs.")
flags.DEFINE_integer("batch_size", 16, "Batch size.")
FLAGS = flags.FLAGS


def data(num, seed):
    rng = np.random.RandomState(seed)
    x = rng.normal(size=(num, 12)).astype(np.float32)
    y = (x[:, :3].sum(axis=1) > 0).astype(np.int32) + (x[:, 3] > 0.8).astype(np.int32)
    return x, y


def main(_):
    np.random.seed(0)  # noqa: NPY002 - Keras shuffles with NumPy's global stream
    x, y = data(96, seed=1)
    x_test, y_test = data(32, seed=2)
    init = tf.keras.initializers.RandomNormal
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(16, activation="relu", input_shape=(12,),
                              kernel_initializer=init(stddev=0.3, seed=1),
                              kernel_regularizer=tf.keras.regularizers.l2(1e-3)),
        tf.keras.layers.BatchNormalization(),
        tf.keras.layers.Dropout(0.0),
        tf.keras.layers.Dense(3, activation="softmax", kernel_initializer=init(stddev=0.3, seed=2)),
    ])  # fmt: skip
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    print("METRICS %s" % model.metrics_names)

    step = [0]

    def log_batch(batch, logs):
        print("LOSS %d %.9g" % (step[0], logs["loss"]))
        step[0] += 1

    history = model.fit(
        x, y, batch_size=FLAGS.batch_size, epochs=FLAGS.epochs, validation_split=0.25,
        verbose=0,
        callbacks=[tf.keras.callbacks.LambdaCallback(on_batch_end=log_batch),
                   tf.keras.callbacks.LearningRateScheduler(lambda epoch: 0.01 / (epoch + 1))],
    )  # fmt: skip
    print("HISTORY %s" % sorted(history.history))
    print("EPOCHS %s" % history.epoch)
    loss, accuracy = model.evaluate(x_test, y_test, batch_size=8, verbose=0)
    print("EVAL %.4f %.4f" % (loss, accuracy))
    print("PRED %s" % np.argmax(model.predict(x_test), axis=1).tolist())

    sess = tf.keras.backend.get_session()
    saver = tf.train.Saver()
    path = saver.save(sess, os.path.join(FLAGS.train_dir, "model.ckpt"), global_step=step[0])
    print("CKPT %s" % path)


if __name__ == "__main__":
    tf.app.run()
