"""Reference data for jtrain.records, produced by real TensorFlow (run under venv-tf).

Writes tests/goldens/records/*.json: TFRecord files written by TF's writer (NONE, GZIP,
ZLIB, with and without a mid-file flush), TF1 summary protos (scalar, histogram, image,
audio, text) from ``tf.compat.v1.summary`` ops, an event file written by TF's
``FileWriter``, and ``tf.io.parse_example`` / ``parse_single_sequence_example`` results.
Binary data is base64 in JSON. Does not import jtrain.
"""

from __future__ import annotations

import base64
import glob
import json
import os
import tempfile

import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "goldens", "records")
tf1 = tf.compat.v1


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def dump(name: str, obj) -> None:
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(obj, f, indent=1, sort_keys=True)
        f.write("\n")


def records() -> list[bytes]:
    rng = np.random.default_rng(0)
    out = [b"", b"a", b"hello tfrecord"]
    for i in range(60):
        n = int(rng.integers(0, 300))
        out.append(bytes(rng.integers(0, 8, size=n, dtype=np.uint8)) + str(i).encode())
    out.append(b"xy" * 2500)
    return out


def gen_tfrecord() -> None:
    recs = records()
    files = {}
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ["", "ZLIB", "GZIP"]:
            for flushed in [False, True]:
                path = os.path.join(tmp, f"f{kind}{flushed}")
                with tf.io.TFRecordWriter(path, kind) as w:
                    for i, r in enumerate(recs):
                        w.write(r)
                        if flushed and i in (5, 6, 40):
                            w.flush()
                with open(path, "rb") as f:
                    files[f"{kind or 'NONE'}{'_flushed' if flushed else ''}"] = b64(f.read())
    dump(
        "tfrecord.json",
        {
            "records": [b64(r) for r in recs],
            "flush_after": [5, 6, 40],
            "files": files,
        },
    )


def run_summary(fn):
    with tf.Graph().as_default():
        op = fn()
        with tf1.Session() as sess:
            return sess.run(op)


def gen_summaries() -> None:
    rng = np.random.default_rng(1)
    hist_inputs = {
        "normal": rng.normal(size=257).astype(np.float64).tolist(),
        "wide": (rng.standard_cauchy(size=100) * 1e6).tolist(),
        "with_zero_and_ints": [0.0, 0.0, 1.0, -1.0, 2.0, 3.0, 1e-13, -1e-13, 5e21],
        "single": [0.5],
        "empty": [],
    }
    hist = {}
    for name, values in hist_inputs.items():
        arr = np.asarray(values, dtype=np.float64)
        hist[name] = b64(run_summary(lambda a=arr, n=name: tf1.summary.histogram(n, a)))
    float32_hist = rng.normal(size=50).astype(np.float32)
    hist["float32"] = b64(run_summary(lambda: tf1.summary.histogram("float32", float32_hist)))
    hist_inputs["float32"] = float32_hist.astype(np.float64).tolist()

    scalars = {
        "loss": b64(run_summary(lambda: tf1.summary.scalar("loss", np.float32(0.25)))),
        "int": b64(run_summary(lambda: tf1.summary.scalar("int", np.int64(7)))),
        "double": b64(run_summary(lambda: tf1.summary.scalar("double", np.float64(1.0 / 3.0)))),
    }

    img_u8 = rng.integers(0, 256, size=(2, 5, 4, 3), dtype=np.uint8)
    img_gray = rng.integers(0, 256, size=(1, 3, 6, 1), dtype=np.uint8)
    img_float = rng.uniform(-0.5, 1.5, size=(1, 4, 4, 4)).astype(np.float32)
    images = {
        "rgb": b64(run_summary(lambda: tf1.summary.image("rgb", img_u8, max_outputs=3))),
        "gray": b64(run_summary(lambda: tf1.summary.image("gray", img_gray))),
        "rgba_float": b64(run_summary(lambda: tf1.summary.image("rgba_float", img_float))),
        "rgb_max1": b64(run_summary(lambda: tf1.summary.image("rgb_max1", img_u8, max_outputs=1))),
    }
    # The pixels TF encodes for each image (decoded back with TF's PNG decoder).
    decoded = {}
    for key, s in images.items():
        summary = tf1.Summary.FromString(base64.b64decode(s))
        decoded[key] = [
            {
                "tag": v.tag,
                "pixels": tf.io.decode_png(v.image.encoded_image_string).numpy().tolist(),
            }
            for v in summary.value
        ]

    audio_in = np.clip(rng.normal(scale=0.5, size=(2, 100, 2)), -1.5, 1.5).astype(np.float32)
    audio = {
        "stereo": b64(
            run_summary(lambda: tf1.summary.audio("stereo", audio_in, 16000.0, max_outputs=2))
        )
    }
    text = {
        "note": b64(run_summary(lambda: tf1.summary.text("note", tf.constant("hello *world*")))),
        "batch": b64(run_summary(lambda: tf1.summary.text("batch", tf.constant(["a", "b"])))),
    }
    dump(
        "summaries.json",
        {
            "histogram_inputs": hist_inputs,
            "histogram": hist,
            "scalar_inputs": {"loss": 0.25, "int": 7, "double": 1.0 / 3.0},
            "scalar": scalars,
            "image_inputs": {
                "rgb": img_u8.tolist(),
                "gray": img_gray.tolist(),
                "rgba_float": img_float.tolist(),
                "rgb_max1": img_u8.tolist(),
            },
            "image": images,
            "image_pixels": decoded,
            "audio_inputs": {"stereo": audio_in.tolist()},
            "audio": audio,
            "text": text,
        },
    )


def gen_events() -> None:
    with tempfile.TemporaryDirectory() as tmp, tf.Graph().as_default():
        writer = tf1.summary.FileWriter(tmp)
        for step in range(3):
            s = tf1.Summary(value=[tf1.Summary.Value(tag="loss", simple_value=1.0 / (step + 1))])
            writer.add_summary(s, global_step=step)
        writer.add_session_log(tf1.SessionLog(status=tf1.SessionLog.START), global_step=3)
        writer.close()
        (path,) = glob.glob(os.path.join(tmp, "events.out.tfevents.*"))
        with open(path, "rb") as f:
            data = f.read()
        name = os.path.basename(path)
        events = [tf1.Event.FromString(r) for r in tf1.io.tf_record_iterator(path)]
    dump(
        "events.json",
        {
            "file_name": name,
            "file": b64(data),
            "events": [b64(e.SerializeToString()) for e in events],
        },
    )


def feature(values):
    if not values:
        return tf.train.Feature()
    if isinstance(values[0], bytes):
        return tf.train.Feature(bytes_list=tf.train.BytesList(value=values))
    if isinstance(values[0], float):
        return tf.train.Feature(float_list=tf.train.FloatList(value=values))
    return tf.train.Feature(int64_list=tf.train.Int64List(value=values))


def example(**kw) -> bytes:
    return tf.train.Example(
        features=tf.train.Features(feature={k: feature(v) for k, v in kw.items()})
    ).SerializeToString()


def encode(value):
    if isinstance(value, tf.SparseTensor):
        return {
            "indices": value.indices.numpy().tolist(),
            "values": encode_array(value.values.numpy()),
            "dense_shape": value.dense_shape.numpy().tolist(),
        }
    return encode_array(np.asarray(value.numpy()))


def encode_array(a: np.ndarray):
    if a.dtype.kind in "OS":
        return {
            "dtype": "string",
            "shape": list(a.shape),
            "b64": [b64(bytes(x)) for x in a.ravel()],
        }
    return {"dtype": a.dtype.name, "shape": list(a.shape), "values": a.ravel().tolist()}


def spec_json(spec):
    out = {}
    for k, f in spec.items():
        d = {"kind": type(f).__name__, "dtype": f.dtype.name}
        if hasattr(f, "shape"):
            d["shape"] = list(f.shape)
        if getattr(f, "default_value", None) is not None:
            dv = f.default_value
            d["default_value"] = (
                [x.decode() if isinstance(x, bytes) else x for x in np.ravel(dv).tolist()]
                if not isinstance(dv, (bytes, str, int, float))
                else (dv.decode() if isinstance(dv, bytes) else dv)
            )
        if hasattr(f, "allow_missing"):
            d["allow_missing"] = f.allow_missing
        out[k] = d
    return out


def gen_parsing() -> None:
    F = tf.io.FixedLenFeature
    V = tf.io.VarLenFeature
    S = tf.io.FixedLenSequenceFeature
    serialized = [
        example(a=[1.5, 2.5], b=[3], c=[b"x\x00", b"yz"], d=[1, 2, 3, 4, 5, 6], v=[7, 8, 9]),
        example(a=[0.5, -1.0], c=[b""], d=[], v=[], s=[1.0, 2.0]),
        example(a=[9.0, 9.0], b=[-4], d=[10, 11, 12], v=[1]),
    ]
    spec = {
        "a": F([2], tf.float32),
        "b": F([], tf.int64, default_value=-1),
        "c": V(tf.string),
        "d": S([3], tf.int64, allow_missing=True, default_value=0),
        "v": V(tf.int64),
        "s": S([], tf.float32, allow_missing=True, default_value=-2.0),
        "m": F([2, 1], tf.string, default_value=[b"p", b"q"]),
    }
    out = tf.io.parse_example(serialized, spec)
    single = tf.io.parse_single_example(serialized[0], spec)
    cases = [
        {
            "name": "batch",
            "serialized": [b64(s) for s in serialized],
            "spec": spec_json(spec),
            "expected": {k: encode(v) for k, v in out.items()},
        },
        {
            "name": "single",
            "serialized": b64(serialized[0]),
            "spec": spec_json(spec),
            "expected": {k: encode(v) for k, v in single.items()},
        },
    ]
    seq = tf.train.SequenceExample(
        context=tf.train.Features(feature={"len": feature([3]), "name": feature([b"s"])}),
        feature_lists=tf.train.FeatureLists(
            feature_list={
                "tok": tf.train.FeatureList(feature=[feature([1]), feature([2]), feature([3])]),
                "emb": tf.train.FeatureList(
                    feature=[feature([0.1, 0.2]), feature([0.3, 0.4]), feature([0.5, 0.6])]
                ),
                "var": tf.train.FeatureList(feature=[feature([b"a", b"b"]), feature([b"c"])]),
            }
        ),
    ).SerializeToString()
    ctx_spec = {"len": F([], tf.int64), "name": F([], tf.string), "opt": F([], tf.float32, 1.5)}
    seq_spec = {"tok": S([], tf.int64), "emb": S([2], tf.float32), "var": V(tf.string)}
    ctx, sq = tf.io.parse_single_sequence_example(seq, ctx_spec, seq_spec)
    cases.append(
        {
            "name": "sequence",
            "serialized": b64(seq),
            "context_spec": spec_json(ctx_spec),
            "sequence_spec": spec_json(seq_spec),
            "expected_context": {k: encode(v) for k, v in ctx.items()},
            "expected_sequence": {k: encode(v) for k, v in sq.items()},
        }
    )
    dump("parsing.json", cases)


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    gen_tfrecord()
    gen_summaries()
    gen_events()
    gen_parsing()
