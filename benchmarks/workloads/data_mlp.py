"""``tf.data`` pipeline feeding the MLP 784-128-32-10 (batch 100), as TF 1.4+ scripts
read their records: ``TFRecordDataset`` -> ``map(parse_single_example, decode_raw,
reshape, cast)`` -> ``shuffle(1000)`` -> ``repeat`` -> ``batch`` -> ``prefetch`` (TF's
guide's order: every batch full), a one-shot iterator's ``get_next`` feeding a plain
``Session`` loop. The records are ``queue_mlp``'s, written first (untimed).

With ``batch`` before ``repeat`` each epoch would end with a short batch, whose new
shape costs jtrain one compilation of the step (about 1-2 s here, once per shape;
TF1 pays none): a 2 s measurement would be mostly that."""

from ._timing import timed
from .queue_mlp import BATCH, SIZES, WARMUP, _model, write_records

UNIT = "examples/s"


def run(tf, workdir: str, seconds: float) -> dict:
    files = write_records(tf, workdir)

    def parse(serialized):
        features = tf.parse_single_example(serialized, {
            "image_raw": tf.FixedLenFeature([], tf.string),
            "label": tf.FixedLenFeature([], tf.int64),
        })  # fmt: skip
        image = tf.reshape(tf.decode_raw(features["image_raw"], tf.float32), [SIZES[0]])
        return image, tf.cast(features["label"], tf.int32)

    dataset = (
        tf.data.TFRecordDataset(files)
        .map(parse, num_parallel_calls=2)
        .shuffle(1000, seed=0)
        .repeat()
        .batch(BATCH)
        .prefetch(1)
    )
    x, y = tf.data.make_one_shot_iterator(dataset).get_next()
    train_op, loss = _model(tf, x, y)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return timed(lambda: sess.run([train_op, loss])[1], WARMUP, seconds, BATCH)
