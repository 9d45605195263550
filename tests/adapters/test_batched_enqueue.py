"""A queue runner's reader -> parse -> enqueue runs a batch of records per call
(``adapters/v1/training/batched_enqueue.py``) and gives what per-example runs give.

TF parity of the batched path itself: ``tests/interop/test_queue_interop.py`` (a
TFRecord pipeline of this shape against TF's, key by key and batch by batch).
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

from adapters import v1 as tf
from adapters.v1.training import batched_enqueue, queue_runner_impl
from jtrain.protos.example_pb2 import Example
from jtrain.records import TFRecordWriter
from tests.adapters.queue_helpers import drain

SIZES = (5, 3, 7)  # records per file


def _example(label: int, image: np.ndarray) -> bytes:
    ex = Example()
    ex.features.feature["image"].float_list.value.extend(image)
    ex.features.feature["raw"].bytes_list.value.append(image.astype("<f4").tobytes())
    ex.features.feature["label"].int64_list.value.append(label)
    return ex.SerializeToString()


def _write(directory, sizes=SIZES, width=lambda f, i: 6) -> list[str]:
    rng = np.random.default_rng(7)
    paths = []
    for f, n in enumerate(sizes):
        path = str(directory / f"data-{f}.tfrecord")
        with TFRecordWriter(path) as w:
            for i in range(n):
                image = rng.normal(size=width(f, i)).astype(np.float32)
                w.write(_example(10 * f + i, image))
        paths.append(path)
    return paths


def _parsed(value, mode: str):
    """``{"image", "label"}`` from a record: floats parsed, or bytes through decode_raw
    ("scaled": then cast and scaled on the device, as TF1's MNIST reader does)."""
    label = tf.FixedLenFeature([], "int64")
    if mode == "floats":
        return tf.parse_single_example(value, {"image": tf.FixedLenFeature([6], "float32"),
                                               "label": label})  # fmt: skip
    ex = tf.parse_single_example(value, {"raw": tf.FixedLenFeature([], "string"), "label": label})
    image = tf.decode_raw(ex["raw"], "float32")
    if mode == "raw":
        return {"image": image, "label": ex["label"]}
    if mode == "reshaped":  # decode_raw's width unknown until run time (queue_mlp.py)
        return {"image": tf.reshape(image, [6]), "label": tf.cast(ex["label"], tf.int32)}
    image.set_shape([6])
    image = tf.cast(image, tf.float32) * (1.0 / 255) - 0.5
    return {"image": tf.reshape(image, [6]), "label": tf.cast(ex["label"], tf.int64)}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return _write(tmp_path_factory.mktemp("records"))


@pytest.fixture
def spy(monkeypatch):
    """Counts the runner threads that took the batched path."""
    taken = []
    real = queue_runner_impl.batched_step

    def counting(sess, op):
        step = real(sess, op)
        taken.append(step is not None)
        return step

    monkeypatch.setattr(queue_runner_impl, "batched_step", counting)
    return taken


@pytest.mark.parametrize("chunk", [3, batched_enqueue.CHUNK])
@pytest.mark.parametrize("mode", ["floats", "raw", "scaled", "reshaped"])
def test_batches_equal_per_example_runs(files, spy, monkeypatch, mode, chunk):
    monkeypatch.setattr(batched_enqueue, "CHUNK", chunk)

    def pipeline():
        g = tf.Graph()
        with g.as_default():
            q = tf.train.string_input_producer(files, num_epochs=2, shuffle=False)
            key, value = tf.TFRecordReader().read(q)
            ex = _parsed(value, mode)
            batch = tf.train.batch(
                {"key": key, **ex}, 4, capacity=5, allow_smaller_final_batch=True,
                shapes=[[6], [], []],  # sorted by key, as TF flattens a dict
            )  # fmt: skip
        return g, batch

    got = drain(*pipeline())
    taken = list(spy)
    monkeypatch.setattr(queue_runner_impl, "batched_step", lambda sess, op: None)
    want = drain(*pipeline())
    assert sorted(taken) == [False, True]  # the reader's runner batched, the names' not
    assert [len(b["label"]) for b in want] == [4] * 7 + [2]  # 2 epochs of 15
    assert got == want
    # In file order, a file's records in order: the per-example order.
    assert [label for b in got for label in b["label"]] == 2 * [
        10 * f + i for f, n in enumerate(SIZES) for i in range(n)
    ]


def _manual(files, mode: str, shaped: bool):
    """A reader pipeline into a FIFO queue, the file names in a closed queue (no runners)."""
    g = tf.Graph()
    with g.as_default():
        names = tf.FIFOQueue(10, "string")
        fill = [names.enqueue_many([files]), names.close()]
        _, value = tf.TFRecordReader().read(names)
        ex = _parsed(value, mode)
        dtypes = ["float32", ex["label"].dtype]
        q = tf.FIFOQueue(100, dtypes, shapes=[[6], []] if shaped else None)
        enqueue = q.enqueue([ex["image"], ex["label"]])
    return g, fill, enqueue, q.dequeue(), q.size()


def _run_to_end(run) -> list[str]:
    """Calls ``run`` until OutOfRangeError: ``"ok"`` or the error per call."""
    outcomes = []
    while True:
        try:
            run()
            outcomes.append("ok")
        except tf.errors.OutOfRangeError:
            return outcomes
        except tf.errors.OpError as e:
            outcomes.append(f"{type(e).__name__}: {e.message}")


def _contents(sess, dequeue, size):
    rows = [sess.run(dequeue) for _ in range(int(sess.run(size)))]
    return [(image.tolist(), int(label)) for image, label in rows]


@pytest.mark.parametrize(
    "mode, width, shaped, n_errors",
    [
        # Record 2 of file 0 has 5 floats: the two before it are enqueued, then the
        # per-example parse error; the records after it come with the next call.
        ("floats", lambda f, i: 5 if (f, i) == (0, 2) else 6, False, 1),
        # decode_raw's batch needs equal lengths: the batch falls back to per-record
        # runs, which enqueue every record into the unshaped queue.
        ("raw", lambda f, i: 4 if (f, i) == (2, 1) else 6, False, 0),
        # The shaped queue's per-element check fails on the short record only.
        ("raw", lambda f, i: 4 if (f, i) == (2, 1) else 6, True, 1),
        # Every record of file 1 is short: the batch's put fails before it puts any;
        # per-record runs then fail each of them.
        ("raw", lambda f, i: 4 if f == 1 else 6, True, SIZES[1]),
        # The reshape of a short row to one example's shape fails for that row only.
        ("reshaped", lambda f, i: 4 if (f, i) == (2, 1) else 6, False, 1),
        ("reshaped", lambda f, i: 4 if f == 1 else 6, False, SIZES[1]),
    ],
    ids=[
        "parse error",
        "ragged bytes",
        "one short row",
        "short file",
        "reshape row",
        "reshape file",
    ],
)
def test_a_bad_record_fails_as_per_example_runs(tmp_path, mode, width, shaped, n_errors):
    files = _write(tmp_path, width=width)
    results = []
    for batched in (True, False):
        g, fill, enqueue, dequeue, size = _manual(files, mode, shaped)
        with tf.Session(graph=g) as sess:
            sess.run(fill)
            step = batched_enqueue.batched_step(sess, enqueue)
            assert step is not None
            outcomes = _run_to_end(step if batched else lambda op=enqueue: sess.run(op))
            results.append(([o for o in outcomes if o != "ok"], _contents(sess, dequeue, size)))
    (errors_b, contents_b), (errors_s, contents_s) = results
    assert len(errors_s) == n_errors
    assert all(e.startswith("InvalidArgumentError") for e in errors_s)
    assert len(contents_s) == sum(SIZES) - n_errors
    assert errors_b == errors_s
    assert contents_b == contents_s


def test_other_enqueues_keep_per_example_runs(graph, files):
    names = tf.FIFOQueue(10, "string")
    _, value = tf.TFRecordReader().read(names)
    _, other = tf.TFRecordReader().read(names)
    sparse = tf.parse_single_example(value, {"image": tf.VarLenFeature("float32")})["image"]
    dense = _parsed(value, "floats")["image"]
    q = tf.FIFOQueue(10, ["float32"])
    two = tf.FIFOQueue(10, ["float32", "float32"])
    with tf.Session(graph=graph) as sess:
        assert batched_enqueue.batched_step(sess, q.enqueue([dense])) is not None
        # A VarLen feature's rows do not stack; a device op on the parsed values; two
        # readers; an enqueue_many: these keep sess.run per example.
        assert batched_enqueue.batched_step(sess, q.enqueue([sparse.values])) is None
        # Device ops of one example's values run vmapped over the batch; a random op
        # (its state advances per run) or an op outside the allowlist does not batch.
        assert batched_enqueue.batched_step(sess, q.enqueue([dense * 2.0])) is not None
        noise = dense + tf.random_uniform([6])
        assert batched_enqueue.batched_step(sess, q.enqueue([noise])) is None
        assert batched_enqueue.batched_step(sess, q.enqueue([tf.nn.softmax(dense)])) is None
        other_dense = _parsed(other, "floats")["image"]
        assert batched_enqueue.batched_step(sess, two.enqueue([dense, other_dense])) is None
        _, values = tf.TFRecordReader().read_up_to(names, 4)
        rows = tf.parse_example(values, {"image": tf.FixedLenFeature([6], "float32")})
        assert batched_enqueue.batched_step(sess, q.enqueue_many([rows["image"]])) is None


def test_a_corrupted_record_fails_as_per_example_runs(tmp_path):
    # Record 2 of file 0 fails its checksum: records 0 and 1 are enqueued, then
    # DataLossError (naming the file); the reader drops the file and reads the next.
    files = _write(tmp_path)
    with open(files[0], "rb") as f:
        data = bytearray(f.read())
    first = 0
    for _ in range(2):
        first += 16 + int.from_bytes(data[first : first + 8], "little")
    data[first + 12 + 3] ^= 0xFF
    with open(files[0], "wb") as f:
        f.write(bytes(data))
    results = []
    for batched in (True, False):
        g, fill, enqueue, dequeue, size = _manual(files, "floats", True)
        with tf.Session(graph=g) as sess:
            sess.run(fill)
            step = batched_enqueue.batched_step(sess, enqueue)
            outcomes = _run_to_end(step if batched else lambda op=enqueue: sess.run(op))
            results.append(([o for o in outcomes if o != "ok"], _contents(sess, dequeue, size)))
    (errors_b, contents_b), (errors_s, contents_s) = results
    assert len(errors_s) == 1 and errors_s[0].startswith("DataLossError")
    assert files[0] in errors_s[0]
    assert [label for _, label in contents_s] == [0, 1, *range(10, 13), *range(20, 27)]
    assert errors_b == errors_s
    assert contents_b == contents_s


@pytest.mark.parametrize(
    "fn, moves",
    [
        # Reshapes and integer casts run as NumPy moves, bit for bit XLA's (int64 ->
        # int32 wraps around, int -> bool is != 0).
        (lambda a, b: (a.reshape(2, 3), b.astype("int32"), b.astype("bool")), True),
        (lambda a, b: (a.reshape(1, 6).squeeze(0), b.reshape(1), b.astype("uint8")), True),
        # Anything computing, or a float cast, stays an XLA program.
        (lambda a, b: (a.astype("float16"), b), False),
        (lambda a, b: (a * 2.0, b), False),
        (lambda a, b: (a, jax.numpy.broadcast_to(b, (3,))), False),
    ],
    ids=["reshape-cast", "squeeze-unit", "float cast", "arithmetic", "broadcast"],
)
def test_reshapes_and_integer_casts_skip_xla(fn, moves):
    from adapters.v1.framework import _x64

    a = np.random.default_rng(1).normal(size=(5, 6)).astype(np.float32)
    b = np.array([1, -1, 2**40 + 7, -(2**33) - 5, 0], np.int64)
    with _x64.exact():
        vmapped = jax.vmap(fn)
        got = batched_enqueue.numpy_moves(jax.make_jaxpr(vmapped)(a, b))
        want = [np.asarray(v) for v in jax.jit(vmapped)(a, b)]
    assert (got is not None) == moves
    if got is not None:
        outs = got(a, b)
        assert [(o.dtype, o.shape) for o in outs] == [(w.dtype, w.shape) for w in want]
        assert all(np.array_equal(o, w) for o, w in zip(outs, want, strict=True))


def test_reshaped_pipeline_runs_no_program(files, monkeypatch):
    # queue_mlp.py's decode_raw -> reshape, cast int64 -> int32: the batches come
    # from NumPy moves; no vmapped program is built.
    g = tf.Graph()
    with g.as_default():
        names = tf.FIFOQueue(10, "string")
        fill = [names.enqueue_many([files]), names.close()]
        _, value = tf.TFRecordReader().read(names)
        ex = _parsed(value, "reshaped")
        q = tf.FIFOQueue(100, ["float32", "int32"], shapes=[[6], []])
        enqueue = q.enqueue([ex["image"], ex["label"]])
    with tf.Session(graph=g) as sess:
        sess.run(fill)
        step = batched_enqueue.batched_step(sess, enqueue)
        monkeypatch.setattr(batched_enqueue._Plan, "_program", None)  # would fail if used
        assert _run_to_end(step) == ["ok"] * len(SIZES)
        rows = [sess.run(q.dequeue()) for _ in range(sum(SIZES))]
    assert [int(label) for _, label in rows] == [10 * f + i for f, n in enumerate(SIZES)
                                                 for i in range(n)]  # fmt: skip
