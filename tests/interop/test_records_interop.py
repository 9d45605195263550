"""jtrain.records against real TensorFlow and TensorBoard: each reads what the other wrote.

Run with ``nox -s interop`` (or ``/work/venv-tf/bin/python -m pytest tests/interop``).
"""

from __future__ import annotations

import glob
import os

import numpy as np
import pytest
import tensorflow as tf
from tensorflow.core.example import example_pb2 as tf_example_pb2
from tensorflow.core.example import feature_pb2 as tf_feature_pb2
from tensorflow.core.framework import summary_pb2 as tf_summary_pb2
from tensorflow.core.framework import tensor_pb2 as tf_tensor_pb2
from tensorflow.core.protobuf import config_pb2 as tf_config_pb2
from tensorflow.core.protobuf import queue_runner_pb2 as tf_queue_runner_pb2
from tensorflow.core.protobuf import rewriter_config_pb2 as tf_rewriter_config_pb2
from tensorflow.core.protobuf import saver_pb2 as tf_saver_pb2
from tensorflow.core.protobuf import tensorflow_server_pb2 as tf_server_pb2
from tensorflow.core.util import event_pb2 as tf_event_pb2

from jtrain import errors, records
from jtrain.protos import (
    config_pb2,
    event_pb2,
    example_pb2,
    feature_pb2,
    queue_runner_pb2,
    saver_pb2,
    summary_pb2,
    tensor_pb2,
    tensorflow_server_pb2,
)
from jtrain.records import summary as jsummary

tf1 = tf.compat.v1

# TF fields that jtrain's protos leave out on purpose (kept as unknown fields on read).
_LEFT_OUT = {
    "tensorflow.TensorProto": {"resource_handle_val", "variant_val"},
    "tensorflow.ConfigProto": {"rpc_options"},
    "tensorflow.ConfigProto.Experimental": {"coordination_config"},
    "tensorflow.GraphOptions": {"rewrite_options"},
    "tensorflow.RunOptions": {"debug_options"},
    # (graph.proto and node_def.proto say what they leave out: kept as unknown fields when read)
    "tensorflow.GraphDef": {"library", "debug_info"},
    "tensorflow.NodeDef": {"experimental_type"},
}

# (jtrain message, TF message): every message jtrain defines, checked recursively.
_PAIRS = [
    (feature_pb2.BytesList, tf_feature_pb2.BytesList),
    (feature_pb2.FloatList, tf_feature_pb2.FloatList),
    (feature_pb2.Int64List, tf_feature_pb2.Int64List),
    (feature_pb2.Feature, tf_feature_pb2.Feature),
    (feature_pb2.Features, tf_feature_pb2.Features),
    (feature_pb2.FeatureList, tf_feature_pb2.FeatureList),
    (feature_pb2.FeatureLists, tf_feature_pb2.FeatureLists),
    (example_pb2.Example, tf_example_pb2.Example),
    (example_pb2.SequenceExample, tf_example_pb2.SequenceExample),
    (event_pb2.Event, tf_event_pb2.Event),
    (event_pb2.LogMessage, tf_event_pb2.LogMessage),
    (event_pb2.TaggedRunMetadata, tf_event_pb2.TaggedRunMetadata),
    (summary_pb2.SummaryDescription, tf_summary_pb2.SummaryDescription),
    (tensor_pb2.TensorProto, tf_tensor_pb2.TensorProto),
    (saver_pb2.SaverDef, tf_saver_pb2.SaverDef),
    (queue_runner_pb2.QueueRunnerDef, tf_queue_runner_pb2.QueueRunnerDef),
    (tensorflow_server_pb2.ServerDef, tf_server_pb2.ServerDef),
    (config_pb2.ConfigProto, tf_config_pb2.ConfigProto),
    (config_pb2.GPUOptions, tf_config_pb2.GPUOptions),
    (config_pb2.GraphOptions, tf_config_pb2.GraphOptions),
    (config_pb2.OptimizerOptions, tf_config_pb2.OptimizerOptions),
    (config_pb2.RunOptions, tf_config_pb2.RunOptions),
    (config_pb2.RunMetadata, tf_config_pb2.RunMetadata),
]


def _walk(ours, theirs, seen):
    if ours.full_name in seen:
        return
    seen.add(ours.full_name)
    assert ours.name == theirs.name
    theirs_by_number = {f.number: f for f in theirs.fields}
    for f in ours.fields:
        t = theirs_by_number.pop(f.number)
        where = f"{ours.full_name}.{f.name}"
        assert (f.name, f.type, f.is_repeated, f.is_packed) == (
            t.name,
            t.type,
            t.is_repeated,
            t.is_packed,
        ), where
        assert (f.containing_oneof and f.containing_oneof.name) == (
            t.containing_oneof and t.containing_oneof.name
        ), where
        if f.message_type is not None:
            _walk(f.message_type, t.message_type, seen)
        if f.enum_type is not None:
            theirs_values = {v.name: v.number for v in t.enum_type.values}
            for v in f.enum_type.values:
                assert theirs_values[v.name] == v.number, f"{where}: {v.name}"
    left = {f.name for f in theirs_by_number.values()}
    assert left == _LEFT_OUT.get(theirs.full_name, set()), ours.full_name


@pytest.mark.parametrize("ours, theirs", _PAIRS, ids=[p[0].__name__ for p in _PAIRS])
def test_protos_match_tf_field_by_field(ours, theirs):
    _walk(ours.DESCRIPTOR, theirs.DESCRIPTOR, set())


def _tf_example(i):
    return tf.train.Example(
        features=tf.train.Features(
            feature={
                "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[i, -i, 2**62])),
                "x": tf.train.Feature(float_list=tf.train.FloatList(value=[0.5 * i, np.pi])),
                "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"n%d" % i])),
            }
        )
    )


def test_example_bytes_round_trip_both_ways():
    tf_bytes = _tf_example(7).SerializeToString()
    ours = records.Example.FromString(tf_bytes)
    assert list(ours.features.feature["id"].int64_list.value) == [7, -7, 2**62]
    assert ours.SerializeToString(deterministic=True) == _tf_example(7).SerializeToString(
        deterministic=True
    )
    back = tf.train.Example.FromString(ours.SerializeToString())
    assert back == _tf_example(7)


def test_server_def_and_config_round_trip_keep_unknown_fields():
    theirs = tf.train.ServerDef(
        cluster=tf.train.ClusterSpec({"ps": ["a:1"], "worker": ["b:2", "c:3"]}).as_cluster_def(),
        job_name="worker",
        task_index=1,
        protocol="grpc",
        port=2222,
        default_session_config=tf1.ConfigProto(
            allow_soft_placement=True,
            inter_op_parallelism_threads=3,
            gpu_options=tf1.GPUOptions(allow_growth=True),
        ),
    )
    ours = tensorflow_server_pb2.ServerDef.FromString(theirs.SerializeToString())
    assert ours.default_session_config.inter_op_parallelism_threads == 3
    assert dict(ours.cluster.job[1].tasks) == {0: "b:2", 1: "c:3"}
    assert ours.default_session_config.gpu_options.allow_growth
    assert tf.train.ServerDef.FromString(ours.SerializeToString()) == theirs


def _tf_config():
    return tf1.ConfigProto(
        device_count={"GPU": 0, "CPU": 2},
        intra_op_parallelism_threads=4,
        allow_soft_placement=True,
        log_device_placement=True,
        operation_timeout_in_ms=1500,
        session_inter_op_thread_pool=[
            tf_config_pb2.ThreadPoolOptionProto(num_threads=2, global_name="g")
        ],
        gpu_options=tf1.GPUOptions(
            per_process_gpu_memory_fraction=0.4,
            allow_growth=True,
            visible_device_list="0,1",
            experimental=tf1.GPUOptions.Experimental(
                virtual_devices=[
                    tf1.GPUOptions.Experimental.VirtualDevices(memory_limit_mb=[512.0, 256.0])
                ]
            ),
        ),
        graph_options=tf1.GraphOptions(
            optimizer_options=tf1.OptimizerOptions(
                opt_level=tf1.OptimizerOptions.L0,
                global_jit_level=tf1.OptimizerOptions.ON_1,
            ),
            infer_shapes=True,
            rewrite_options=tf_rewriter_config_pb2.RewriterConfig(
                constant_folding=tf_rewriter_config_pb2.RewriterConfig.OFF
            ),
        ),
        experimental=tf1.ConfigProto.Experimental(
            collective_group_leader="/job:worker/replica:0/task:0",
            session_metadata=tf_config_pb2.SessionMetadata(name="s", version=3),
        ),
    )


def test_config_run_options_bytes_equal_tf_both_ways():
    """Our config protos serialize to TF's bytes; TF's bytes parse and write back unchanged."""
    theirs = _tf_config()
    ours = config_pb2.ConfigProto(
        device_count={"GPU": 0, "CPU": 2},
        intra_op_parallelism_threads=4,
        allow_soft_placement=True,
        log_device_placement=True,
        operation_timeout_in_ms=1500,
        session_inter_op_thread_pool=[
            config_pb2.ThreadPoolOptionProto(num_threads=2, global_name="g")
        ],
        gpu_options=config_pb2.GPUOptions(
            per_process_gpu_memory_fraction=0.4,
            allow_growth=True,
            visible_device_list="0,1",
            experimental=config_pb2.GPUOptions.Experimental(
                virtual_devices=[
                    config_pb2.GPUOptions.Experimental.VirtualDevices(
                        memory_limit_mb=[512.0, 256.0]
                    )
                ]
            ),
        ),
        graph_options=config_pb2.GraphOptions(
            optimizer_options=config_pb2.OptimizerOptions(
                opt_level=config_pb2.OptimizerOptions.L0,
                global_jit_level=config_pb2.OptimizerOptions.ON_1,
            ),
            infer_shapes=True,
        ),
        experimental=config_pb2.ConfigProto.Experimental(
            collective_group_leader="/job:worker/replica:0/task:0",
            session_metadata=config_pb2.SessionMetadata(name="s", version=3),
        ),
    )
    # rewrite_options is the one field set above that jtrain leaves out.
    without_rewrite = tf1.ConfigProto()
    without_rewrite.CopyFrom(theirs)
    without_rewrite.graph_options.ClearField("rewrite_options")
    assert ours.SerializeToString(deterministic=True) == without_rewrite.SerializeToString(
        deterministic=True
    )
    parsed = config_pb2.ConfigProto.FromString(theirs.SerializeToString(deterministic=True))
    assert parsed.gpu_options.per_process_gpu_memory_fraction == 0.4
    assert parsed.graph_options.optimizer_options.opt_level == config_pb2.OptimizerOptions.L0
    assert tf1.ConfigProto.FromString(parsed.SerializeToString()) == theirs

    run_theirs = tf1.RunOptions(
        trace_level=tf1.RunOptions.FULL_TRACE,
        timeout_in_ms=250,
        report_tensor_allocations_upon_oom=True,
        experimental=tf1.RunOptions.Experimental(collective_graph_key=7),
    )
    run_ours = config_pb2.RunOptions(
        trace_level=config_pb2.RunOptions.FULL_TRACE,
        timeout_in_ms=250,
        report_tensor_allocations_upon_oom=True,
        experimental=config_pb2.RunOptions.Experimental(collective_graph_key=7),
    )
    assert run_ours.SerializeToString() == run_theirs.SerializeToString()
    meta_theirs = tf1.RunMetadata(
        session_metadata=tf_config_pb2.SessionMetadata(name="m", version=1)
    )
    meta_theirs.step_stats.dev_stats.add(device="/cpu:0")
    meta = config_pb2.RunMetadata.FromString(meta_theirs.SerializeToString())
    assert meta.session_metadata.name == "m"
    assert tf1.RunMetadata.FromString(meta.SerializeToString()) == meta_theirs


_RECORDS = [b"", b"a", os.urandom(300 << 10), b"tail" * 1000] + [
    b"r%d" % i * (i % 17) for i in range(500)
]


@pytest.mark.parametrize(
    "options",
    [
        None,
        "ZLIB",
        "GZIP",
        {"compression_type": "ZLIB", "compression_level": 9, "mem_level": 5},
        {"compression_type": "GZIP", "compression_level": 1, "window_bits": 12},
        {"compression_type": "ZLIB", "flush_mode": 2, "input_buffer_size": 1000},
        {"compression_type": "GZIP", "flush_mode": 3},
    ],
    ids=[
        "NONE",
        "ZLIB",
        "GZIP",
        "ZLIB-level9-mem5",
        "GZIP-level1-wbits12",
        "ZLIB-sync-flush-1000",
        "GZIP-full-flush",
    ],
)
def test_tfrecord_bytes_identical_to_tf(tmp_path, options):
    if isinstance(options, dict):
        tf_options, j_options = tf.io.TFRecordOptions(**options), records.TFRecordOptions(**options)
    else:
        tf_options = j_options = options
    tf_path, j_path = tmp_path / "tf", tmp_path / "jtrain"
    with tf.io.TFRecordWriter(str(tf_path), tf_options) as w:
        for i, r in enumerate(_RECORDS):
            w.write(r)
            if i in (1, 200):
                w.flush()
    with records.TFRecordWriter(j_path, j_options) as w:
        for i, r in enumerate(_RECORDS):
            w.write(r)
            if i in (1, 200):
                w.flush()
    # GZIP too: both zlibs write a header with mtime 0, no name, OS byte 3 (Unix).
    assert j_path.read_bytes() == tf_path.read_bytes()


@pytest.mark.parametrize("kind", ["", "ZLIB", "GZIP"])
def test_tf_reads_jtrain_tfrecords_and_back(tmp_path, kind):
    j_path, tf_path = str(tmp_path / "j"), str(tmp_path / "t")
    with records.TFRecordWriter(j_path, kind) as w:
        for r in _RECORDS:
            w.write(r)
    assert list(tf1.io.tf_record_iterator(j_path, kind)) == _RECORDS
    dataset = tf.data.TFRecordDataset([j_path], compression_type=kind)
    assert [t.numpy() for t in dataset] == _RECORDS
    with tf.io.TFRecordWriter(tf_path, kind) as w:
        for r in _RECORDS:
            w.write(r)
    assert list(records.tf_record_iterator(tf_path, kind)) == _RECORDS


def test_tf_rejects_what_jtrain_rejects(tmp_path):
    path = str(tmp_path / "f")
    with records.TFRecordWriter(path) as w:
        w.write(b"hello")
        w.write(b"world")
    data = bytearray(open(path, "rb").read())
    data[30] ^= 1  # inside the 2nd record's data
    open(path, "wb").write(bytes(data))
    with pytest.raises(tf.errors.DataLossError):
        list(tf1.io.tf_record_iterator(path))
    with pytest.raises(errors.DataLossError, match="corrupted record at 21"):
        list(records.tf_record_iterator(path))


def test_examples_parse_the_same_in_tf_and_jtrain(tmp_path):
    path = str(tmp_path / "ex.tfrecord")
    with records.TFRecordWriter(path, "GZIP") as w:
        for i in range(20):
            feats = {
                "id": records.Feature(int64_list=records.Int64List(value=[i])),
                "x": records.Feature(float_list=records.FloatList(value=[i / 3.0] * (i % 4))),
                "tags": records.Feature(bytes_list=records.BytesList(value=[b"t"] * (i % 3))),
            }
            w.write(records.Example(features=records.Features(feature=feats)).SerializeToString())
    serialized = list(records.tf_record_iterator(path, "GZIP"))
    tf_spec = {
        "id": tf.io.FixedLenFeature([], tf.int64),
        "x": tf.io.FixedLenSequenceFeature([], tf.float32, allow_missing=True, default_value=-1.0),
        "tags": tf.io.VarLenFeature(tf.string),
        "w": tf.io.FixedLenFeature([2], tf.float32, default_value=[1.0, 2.0]),
    }
    j_spec = {
        "id": records.FixedLenFeature([], np.int64),
        "x": records.FixedLenSequenceFeature([], np.float32, True, -1.0),
        "tags": records.VarLenFeature(bytes),
        "w": records.FixedLenFeature([2], np.float32, [1.0, 2.0]),
    }
    dataset = tf.data.TFRecordDataset([path], compression_type="GZIP").batch(20)
    theirs = tf.io.parse_example(next(iter(dataset)), tf_spec)
    ours = records.parse_example(serialized, j_spec)
    for key in ("id", "x", "w"):
        np.testing.assert_array_equal(ours[key], theirs[key].numpy())
        assert ours[key].dtype == theirs[key].numpy().dtype
    np.testing.assert_array_equal(ours["tags"].indices, theirs["tags"].indices.numpy())
    np.testing.assert_array_equal(ours["tags"].values, theirs["tags"].values.numpy())
    np.testing.assert_array_equal(ours["tags"].dense_shape, theirs["tags"].dense_shape.numpy())


def _write_jtrain_events(logdir, rng):
    with records.FileWriter(logdir, flush_secs=1) as w:
        for step in range(5):
            w.add_scalar("loss", 1.0 / (step + 1), global_step=step)
            w.add_histogram("weights", rng.normal(size=100) * (step + 1), global_step=step)
        w.add_image("img", rng.integers(0, 256, size=(2, 4, 5, 3), dtype=np.uint8), 5)
        w.add_audio("snd", rng.uniform(-1, 1, size=(1, 50, 2)), 8000, 5)
        w.add_text("note", "hello *TensorBoard*", 5)
        w.add_session_log(records.SessionLog(status=records.SessionLog.STOP), 6)


def test_tf_reads_jtrain_event_file(tmp_path):
    _write_jtrain_events(str(tmp_path), np.random.default_rng(0))
    (path,) = glob.glob(str(tmp_path / "events.out.tfevents.*"))
    theirs = list(tf1.train.summary_iterator(path))
    ours = list(records.summary_iterator(path))
    assert [e.SerializeToString() for e in theirs] == [e.SerializeToString() for e in ours]
    assert theirs[0].file_version == "brain.Event:2"
    images = [v for e in theirs for v in e.summary.value if v.HasField("image")]
    assert [v.tag for v in images] == ["img/image/0", "img/image/1"]
    pixels = tf.io.decode_png(images[0].image.encoded_image_string).numpy()
    assert pixels.shape == (4, 5, 3)
    (clip,) = [v for e in theirs for v in e.summary.value if v.HasField("audio")]
    decoded, rate = tf.audio.decode_wav(clip.audio.encoded_audio_string)
    assert decoded.shape == (50, 2) and int(rate) == 8000


def test_tensorboard_event_accumulator_loads_jtrain_scalars_histograms(tmp_path):
    from tensorboard.backend.event_processing import event_accumulator as ea

    rng = np.random.default_rng(1)
    _write_jtrain_events(str(tmp_path), rng)
    acc = ea.EventAccumulator(
        str(tmp_path), size_guidance={ea.SCALARS: 0, ea.HISTOGRAMS: 0, ea.IMAGES: 0, ea.AUDIO: 0}
    )
    acc.Reload()
    tags = acc.Tags()
    assert tags["scalars"] == ["loss"]
    assert tags["histograms"] == ["weights"]
    assert tags["images"] == ["img/image/0", "img/image/1"]
    assert tags["audio"] == ["snd/audio/0"]
    assert "note" in tags["tensors"]
    scalars = acc.Scalars("loss")
    assert [s.step for s in scalars] == [0, 1, 2, 3, 4]
    np.testing.assert_allclose(
        [s.value for s in scalars], [1.0 / (i + 1) for i in range(5)], rtol=1e-7
    )
    histos = acc.Histograms("weights")
    assert [h.step for h in histos] == [0, 1, 2, 3, 4]
    assert all(h.histogram_value.num == 100 for h in histos)
    assert histos[0].histogram_value.bucket_limit[-1] > 0


def test_jtrain_summaries_equal_tf1_summary_ops(tf_graph):
    rng = np.random.default_rng(2)
    values = rng.normal(size=300) * 10
    audio = rng.uniform(-1.2, 1.2, size=(2, 64, 1)).astype(np.float32)
    ops = {
        "scalar": tf1.summary.scalar("s", tf.constant(2.5)),
        "histogram": tf1.summary.histogram("h", tf.constant(values)),
        "audio": tf1.summary.audio("a", tf.constant(audio), 22050.0),
        "text": tf1.summary.text("t", tf.constant([["x", "y"], ["z", "w"]])),
    }
    with tf1.Session(graph=tf_graph) as sess:
        out = sess.run(ops)
    ours = {
        "scalar": jsummary.scalar("s", 2.5),
        "histogram": jsummary.histogram("h", values),
        "audio": jsummary.audio("a", audio, 22050.0),
        "text": jsummary.text("t", [["x", "y"], ["z", "w"]]),
    }
    for key, theirs in out.items():
        assert ours[key] == summary_pb2.Summary.FromString(theirs), key


def test_jtrain_reads_tf_file_writer_events(tmp_path, tf_graph):
    writer = tf1.summary.FileWriter(str(tmp_path), graph=tf_graph)
    writer.add_summary(tf1.Summary(value=[tf1.Summary.Value(tag="a", simple_value=3.0)]), 9)
    writer.close()
    (path,) = glob.glob(str(tmp_path / "events.out.tfevents.*"))
    ours = list(records.summary_iterator(path))
    theirs = list(tf1.train.summary_iterator(path))
    assert [e.SerializeToString() for e in ours] == [e.SerializeToString() for e in theirs]
    assert ours[-1].step == 9 and ours[-1].summary.value[0].simple_value == 3.0


def _tf_written(path, kind, records_):
    with tf.io.TFRecordWriter(str(path), kind) as w:
        for r in records_:
            w.write(r)
    return path.read_bytes()


def test_concatenated_tf_gzip_files_read_as_tf_reads_them(tmp_path):
    """Two TF-written GZIP files joined with ``cat``: TF reads every member, so does jtrain."""
    first = [b"a%d" % i for i in range(50)]
    second = [b"b%d" % i for i in range(50)]
    joined = tmp_path / "joined"
    joined.write_bytes(
        _tf_written(tmp_path / "1", "GZIP", first) + _tf_written(tmp_path / "2", "GZIP", second)
    )
    tf_reads = list(tf.compat.v1.io.tf_record_iterator(str(joined), "GZIP"))
    assert tf_reads == first + second
    assert list(records.tf_record_iterator(joined, "GZIP")) == tf_reads


@pytest.mark.parametrize("kind", ["GZIP", "ZLIB"])
def test_trailing_garbage_is_data_loss(tmp_path, kind):
    """TF 2.21 raises DataLossError after a GZIP file's last member but reads a ZLIB
    file with garbage after its stream without a word; jtrain raises for both."""
    path = tmp_path / "f"
    path.write_bytes(_tf_written(tmp_path / "w", kind, [b"x"] * 10) + b"garbage!")
    if kind == "GZIP":
        with pytest.raises(tf.errors.DataLossError):
            list(tf.compat.v1.io.tf_record_iterator(str(path), kind))
    else:
        assert len(list(tf.compat.v1.io.tf_record_iterator(str(path), kind))) == 10
    with pytest.raises(errors.DataLossError, match=str(path)):
        list(records.tf_record_iterator(path, kind))


def test_missing_gzip_trailer_tf_accepts_jtrain_refuses(tmp_path):
    """TF 2.21 reads a GZIP file cut before its 8-byte trailer without a word; jtrain
    raises DataLossError (the file was cut short), a deliberate difference."""
    path = tmp_path / "f"
    path.write_bytes(_tf_written(tmp_path / "w", "GZIP", [b"x"] * 10)[:-8])
    assert len(list(tf.compat.v1.io.tf_record_iterator(str(path), "GZIP"))) == 10
    with pytest.raises(errors.DataLossError, match="without its trailer"):
        list(records.tf_record_iterator(path, "GZIP"))
