"""``Dataset.map`` functions run a chunk of elements as one batch (``_Map._chunked``,
``HostGraph.call_rows``) where they have a batch form (the Example parse,
``decode_raw``, casts and scaling): checked live against TF 2.21 that the elements,
their order, dtypes and static shapes, each element's error at its own place
(with and without ``ignore_errors``) and the end of the data stay TF's, on inputs of
more than one chunk, with a bad record in the middle of a chunk and elements that do
not stack (``decode_raw`` of different lengths).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tensorflow as real_tf

from adapters import v1 as jtf
from adapters.v1.data import dataset_ops
from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

N = dataset_ops.MAP_CHUNK * 2 + 7  # more than two chunks, a short last one
RNG = np.random.RandomState(11)
PIXELS = RNG.randint(0, 256, (N, 12)).astype(np.uint8)


def _example(i: int, image: bytes | None, label: int | None) -> bytes:
    feature = {}
    if image is not None:
        feature["image"] = real_tf.train.Feature(bytes_list=real_tf.train.BytesList(value=[image]))
    if label is not None:
        feature["label"] = real_tf.train.Feature(int64_list=real_tf.train.Int64List(value=[label]))
    example = real_tf.train.Example(features=real_tf.train.Features(feature=feature))
    return example.SerializeToString()


def _write(path: str, records: list[bytes]) -> str:
    with real_tf.io.TFRecordWriter(path) as w:
        for r in records:
            w.write(r)
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory: Any) -> dict[str, str]:
    d = tmp_path_factory.mktemp("records")
    good = [_example(i, PIXELS[i].tobytes(), i % 10) for i in range(N)]
    bad = list(good)
    bad[70] = _example(70, PIXELS[70].tobytes(), None)  # no label: the parse fails
    bad[100] = b"not an Example"  # not a proto
    ragged = list(good)
    ragged[5] = _example(5, PIXELS[5, :8].tobytes(), 5)  # a shorter image
    return {
        "good": _write(str(d / "good.tfrecord"), good),
        "bad": _write(str(d / "bad.tfrecord"), bad),
        "ragged": _write(str(d / "ragged.tfrecord"), ragged),
    }


def _parse(tf: Any, record: Any, reshape: bool = True) -> Any:
    f = tf.parse_single_example(
        record,
        {
            "image": tf.FixedLenFeature([], tf.string),
            "label": tf.FixedLenFeature([], tf.int64),
        },
    )
    image = tf.decode_raw(f["image"], tf.uint8)
    if reshape:
        image = tf.reshape(image, [3, 4])
    scaled = tf.cast(image, tf.float32) / 255.0 - 0.5
    return scaled, tf.cast(f["label"], tf.int32), image


def _outcomes(tf: Any, sess: Any, fetch: Any, limit: int = 1000) -> list:
    """Each run's value, or its error's class and message, until OutOfRangeError."""
    out: list = []
    for _ in range(limit):
        try:
            out.append(sess.run(fetch))
        except tf.errors.OutOfRangeError:
            return out
        except tf.errors.OpError as e:
            out.append((type(e).__name__, e.message.split("\n")[0][:60]))
    raise AssertionError("no OutOfRangeError")


def _both(build: Any) -> tuple[list, list]:
    def script(tf: Any) -> Any:
        ds = build(tf)
        nxt = tf.data.make_one_shot_iterator(ds).get_next()
        static = [(t.shape.as_list(), t.dtype.name) for t in jtf.nest.flatten(nxt)]
        return lambda sess: (static, _outcomes(tf, sess, nxt))

    return run_both(script)


def _assert_same(theirs: tuple, ours: tuple) -> None:
    assert ours[0] == theirs[0]  # static shapes and dtypes
    assert len(ours[1]) == len(theirs[1])  # the same runs before the end
    for t, o in zip(theirs[1], ours[1], strict=True):
        if isinstance(t, tuple) and isinstance(t[0], str):
            assert isinstance(o, tuple) and o[0] == t[0], (t, o)  # the error's class
        else:
            assert_twins(t, o, rtol=0)  # bit for bit


CASES = {
    "parse, decode, scale": lambda files: (
        lambda tf: tf.data.TFRecordDataset(files["good"]).map(lambda r: _parse(tf, r))
    ),
    "then batch": lambda files: (
        lambda tf: (
            tf.data.TFRecordDataset(files["good"])
            .map(lambda r: _parse(tf, r), num_parallel_calls=2)
            .batch(10)
            .repeat(2)
        )
    ),
    "then shuffle and batch": lambda files: (
        lambda tf: (
            tf.data.TFRecordDataset(files["good"])
            .map(lambda r: _parse(tf, r))
            .shuffle(50, seed=3)
            .batch(16, drop_remainder=True)
        )
    ),
    "bad records": lambda files: (
        lambda tf: tf.data.TFRecordDataset(files["bad"]).map(lambda r: _parse(tf, r))
    ),
    "bad records ignored": lambda files: (
        lambda tf: (
            tf.data.TFRecordDataset(files["bad"])
            .map(lambda r: _parse(tf, r))
            .apply(tf.data.experimental.ignore_errors())
        )
    ),
    "elements of different lengths": lambda files: (
        lambda tf: tf.data.TFRecordDataset(files["ragged"]).map(
            lambda r: _parse(tf, r, reshape=False)
        )
    ),
    "a reshape failing in one element": lambda files: (
        lambda tf: tf.data.TFRecordDataset(files["ragged"]).map(lambda r: _parse(tf, r))
    ),
    "take after map": lambda files: (
        lambda tf: tf.data.TFRecordDataset(files["good"]).map(lambda r: _parse(tf, r)).take(3)
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_map_in_chunks_as_tf(case, files):
    theirs, ours = _both(CASES[case](files))
    _assert_same(theirs, ours)


def test_the_parse_and_decode_map_has_a_batch_form(files):
    """The map functions above take the batch path (the speed of TF1's scripts'
    input pipelines depends on it); one reading a random op or a placeholder does not."""
    with jtf.Graph().as_default():
        ds = jtf.data.TFRecordDataset(files["good"])
        mapped = ds.map(lambda r: _parse(jtf, r))
        graph = mapped._fn.graph
        assert graph.batchable
        nxt = jtf.data.make_one_shot_iterator(mapped).get_next()
        with jtf.Session() as sess:
            for _ in range(N):
                sess.run(nxt)
        # Every chunk ran as a batch: its device program was built, nothing fell back.
        assert graph.batchable and len(graph._rows_programs) == 2  # full chunks, the last
        noisy = ds.map(lambda r: _parse(jtf, r)[0] + jtf.random_uniform([3, 4]))
        assert not noisy._fn.graph.batchable
        scale = jtf.placeholder(jtf.float32, [])
        assert not ds.map(lambda r: _parse(jtf, r)[0] * scale)._fn.graph.batchable
