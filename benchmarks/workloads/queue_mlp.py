"""TFRecord queue pipeline feeding the MLP 784-128-32-10 (batch 100): ``TFRecordReader``
-> ``parse_single_example`` -> ``decode_raw`` -> ``shuffle_batch`` (2 threads), a plain
``Session`` loop with queue runners. The records are written first (untimed)."""

import os

import numpy as np

from ._timing import timed

UNIT = "examples/s"
WARMUP = 20
BATCH = 100
SIZES = (784, 128, 32, 10)
FILES, PER_FILE = 4, 512


def write_records(tf, workdir: str) -> list:
    rng = np.random.RandomState(0)
    paths = []
    for f in range(FILES):
        path = os.path.join(workdir, f"train-{f}.tfrecord")
        with tf.python_io.TFRecordWriter(path) as writer:
            for _ in range(PER_FILE):
                image = rng.uniform(0, 1, SIZES[0]).astype("<f4").tobytes()
                example = tf.train.Example(features=tf.train.Features(feature={
                    "image_raw": tf.train.Feature(bytes_list=tf.train.BytesList(value=[image])),
                    "label": tf.train.Feature(int64_list=tf.train.Int64List(
                        value=[int(rng.randint(SIZES[-1]))])),
                }))  # fmt: skip
                writer.write(example.SerializeToString())
        paths.append(path)
    return paths


def run(tf, workdir: str, seconds: float, fed: bool = False, train: bool = True) -> dict:
    """Trains for ``seconds``; ``fed``: the same model fed one NumPy batch per step (the
    anchor of the pipeline's "busy": its examples/s over the fed step's); ``train=False``:
    the pipeline alone, a dequeued batch fetched each step (what it delivers unshared)."""
    if fed:
        x = tf.placeholder(tf.float32, [None, SIZES[0]])
        y = tf.placeholder(tf.int32, [None])
        rng = np.random.RandomState(2)
        feed = {x: rng.uniform(0, 1, (BATCH, SIZES[0])).astype(np.float32),
                y: rng.randint(SIZES[-1], size=BATCH).astype(np.int32)}  # fmt: skip
        train_op, loss = _model(tf, x, y)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return timed(lambda: sess.run([train_op, loss], feed)[1], WARMUP, seconds, BATCH)
    files = write_records(tf, workdir)
    queue = tf.train.string_input_producer(files, shuffle=True, seed=0)
    _, serialized = tf.TFRecordReader().read(queue)
    features = tf.parse_single_example(serialized, {
        "image_raw": tf.FixedLenFeature([], tf.string),
        "label": tf.FixedLenFeature([], tf.int64),
    })  # fmt: skip
    image = tf.reshape(tf.decode_raw(features["image_raw"], tf.float32), [SIZES[0]])
    label = tf.cast(features["label"], tf.int32)
    x, y = tf.train.shuffle_batch(
        [image, label], BATCH, capacity=20 * BATCH, min_after_dequeue=10 * BATCH,
        num_threads=2, seed=0,
    )  # fmt: skip
    if train:
        train_op, loss = _model(tf, x, y)
        fetches = [train_op, loss]
    else:
        fetches = [x, tf.reduce_mean(x)]  # the batch, and a float standing for a loss

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        try:
            return timed(lambda: sess.run(fetches)[1], WARMUP, seconds, BATCH)
        finally:
            coord.request_stop()
            sess.run(queue.close(cancel_pending_enqueues=True))
            coord.join(threads, stop_grace_period_secs=10)


def _model(tf, x, y):
    """The MLP on ``(x, y)``: its Adam train op and loss."""
    rng = np.random.RandomState(1)
    h = x
    for i, (n_in, n_out) in enumerate(zip(SIZES[:-1], SIZES[1:], strict=True)):
        w0 = rng.normal(0, 1 / np.sqrt(n_in), (n_in, n_out)).astype(np.float32)
        w = tf.get_variable(f"dense{i}/kernel", initializer=tf.constant(w0))
        b = tf.get_variable(f"dense{i}/bias", [n_out], initializer=tf.zeros_initializer())
        h = tf.matmul(h, w) + b
        if i < len(SIZES) - 2:
            h = tf.nn.relu(h)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))
    return tf.train.AdamOptimizer(1e-3).minimize(loss), loss
