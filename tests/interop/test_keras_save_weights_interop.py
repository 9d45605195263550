"""``tf.keras.Model.save_weights``/``load_weights`` (TF's object-based checkpoint)
and ``tf.keras.callbacks.ModelCheckpoint`` (weights, or the whole model as HDF5), checked live
against TF 2.21's legacy Keras v1 engine (``TF_USE_LEGACY_KERAS=1``, classic TF1
graphs: ``twin.py``).

Round trips: a checkpoint one side writes is loaded by the other into a model of
the same structure, whose weights and ``predict`` then equal the writer's bit for
bit; the files, the checkpoint's keys and shapes, its object graph (edges, keys,
slot variables) and the ``checkpoint`` state file are TF's. Errors: TF's classes
and messages. ``ModelCheckpoint``: TF's file names (``w.{epoch:02d}-{val_loss:.2f}``),
printed messages and state file. Every test failed before save_weights existed
(``NotImplementedError``).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
from typing import Any

import numpy as np
import pytest
import tensorflow as real_tf

from adapters import v1 as jtf
from tests.interop.twin import classic_tf1, tf2_behaviour_off

pytestmark = pytest.mark.interop

tf1 = real_tf.compat.v1


@pytest.fixture(autouse=True)
def _tf1_behaviour():
    """TF's Keras as a TF1 script runs it (``disable_v2_behavior()`` turns ``tf2`` off),
    this process's setting restored after."""
    with tf2_behaviour_off():
        yield


def _in_graph(tf: Any, body: Any) -> Any:
    """``body(tf)`` in a fresh graph and default session of ``tf``'s (TF's as classic
    TF1), with NumPy's global stream seeded (``fit`` shuffles with it)."""
    with classic_tf1() if tf is tf1 else contextlib.nullcontext():
        graph = tf.Graph()
        with graph.as_default(), tf.Session(graph=graph).as_default():
            np.random.seed(0)  # noqa: NPY002
            return body(tf)


def _fix(model: Any) -> None:
    values = []
    for i, w in enumerate(model.weights):
        shape = w.shape.as_list()
        values.append(np.random.RandomState(10 + i).uniform(-0.6, 0.6, shape).astype(np.float32))
    model.set_weights(values)


X = np.random.RandomState(1).randn(20, 3).astype(np.float32)
Y = (X @ np.random.RandomState(2).randn(3, 2)).astype(np.float32)


def _sequential(tf: Any) -> Any:
    return tf.keras.Sequential(
        [
            tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
            tf.keras.layers.Dropout(0.2),
            tf.keras.layers.Dense(2),
        ]
    )


def _functional(tf: Any) -> Any:
    inp = tf.keras.Input((3,))
    h = tf.keras.layers.Dense(4, activation="tanh")(inp)
    h = tf.keras.layers.BatchNormalization()(h)
    return tf.keras.Model(inp, tf.keras.layers.Dense(2)(h))


def _subclassed(tf: Any) -> Any:
    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.blocks = [tf.keras.layers.Dense(4, activation="relu")]  # keys blocks/0/...
            self.second = tf.keras.layers.Dense(2)

        def call(self, x):
            return self.second(self.blocks[0](x))

    model = Net()
    model(tf.placeholder(tf.float32, [None, 3]))
    return model


def _plain(tf: Any) -> Any:
    """Dense layers only (no Dropout): both sides train alike."""
    return tf.keras.Sequential(
        [tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)), tf.keras.layers.Dense(2)]
    )


def _nested(tf: Any) -> Any:
    """A functional model calling a ``Sequential`` as a layer (keys
    ``layer_with_weights-0/layer_with_weights-1/...``)."""
    inner = tf.keras.Sequential(
        [tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)), tf.keras.layers.Dense(3)]
    )
    inp = tf.keras.Input((3,))
    return tf.keras.Model(inp, tf.keras.layers.Dense(2)(inner(inp)))


MODELS = {
    "sequential": _sequential,
    "functional": _functional,
    "subclassed": _subclassed,
    "nested": _nested,
}
OPTIMIZERS = {
    "none": None,
    "keras_adam": lambda tf: "adam",
    "keras_sgd_momentum": lambda tf: tf.keras.optimizers.SGD(0.01, momentum=0.9),
    "train_adam": lambda tf: tf.train.AdamOptimizer(0.01),
}


def _trained(tf: Any, kind: str, optimizer: str) -> Any:
    model = MODELS[kind](tf)
    _fix(model)
    if OPTIMIZERS[optimizer] is not None:
        model.compile(optimizer=OPTIMIZERS[optimizer](tf), loss="mse")
        model.fit(X, Y, batch_size=5, epochs=2, verbose=0)
    return model


def _predict(tf: Any, model: Any) -> Any:
    """``model.predict(X)``; a subclassed model that was not compiled (whose
    ``predict`` jtrain does not provide) called on ``X`` in Keras' session."""
    if model.inputs is None and getattr(model, "optimizer", None) is None:
        return tf.keras.backend.get_session().run(model(tf.constant(X)))
    return model.predict(X)


def _object_graph(prefix: str) -> list[Any]:
    """Each node's edges, attributes and slot variables (TF's reader)."""
    from tensorflow.core.protobuf import trackable_object_graph_pb2

    reader = real_tf.train.load_checkpoint(prefix)
    graph = trackable_object_graph_pb2.TrackableObjectGraph()
    graph.ParseFromString(reader.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"))
    return [
        (
            [(c.local_name, c.node_id) for c in node.children],
            [(a.name, a.full_name, a.checkpoint_key) for a in node.attributes],
            [
                (s.original_variable_node_id, s.slot_name, s.slot_variable_node_id)
                for s in node.slot_variables
            ],
        )
        for node in graph.nodes
    ]


def _saved(tf: Any, directory: str, kind: str, optimizer: str) -> Any:
    """A trained model saved at ``directory/weights``: its weights and predictions."""

    def body(tf: Any) -> Any:
        model = _trained(tf, kind, optimizer)
        model.save_weights(os.path.join(directory, "weights"))
        return model.get_weights(), _predict(tf, model)

    return _in_graph(tf, body)


def _loaded(tf: Any, prefix: str, kind: str, weights: list[Any]) -> Any:
    """A fresh model of ``kind`` loaded from ``prefix``: its weights and predictions,
    and the predictions of another fresh model given ``weights`` by ``set_weights``."""

    def body(tf: Any) -> Any:
        model = MODELS[kind](tf)
        status = model.load_weights(prefix)
        assert type(status).__name__ == "CheckpointLoadStatus"
        reference = MODELS[kind](tf)
        reference.set_weights(weights)
        return model.get_weights(), _predict(tf, model), _predict(tf, reference)

    return _in_graph(tf, body)


def _by_path(graph: list[Any]) -> dict[str, Any]:
    """The object graph keyed by each node's first path from the root, TF's
    BatchNormalization ``axis`` list (an empty node: no value) left out."""
    paths = {0: ""}
    todo = [0]
    while todo:
        i = todo.pop(0)
        for name, child in graph[i][0]:
            if child not in paths and name != "axis":
                paths[child] = f"{paths[i]}/{name}"
                todo.append(child)
    for node in graph:
        for var, slot_name, slot in node[2]:
            paths[slot] = f"{paths[var]}'s {slot_name}"
    return {
        paths[i]: (
            [(name, paths[c]) for name, c in node[0] if name != "axis"],
            node[1],
            [(paths[v], name, paths[s]) for v, name, s in node[2]],
        )
        for i, node in enumerate(graph)
        if i in paths
    }


# Every optimizer with the two plain models; none and one with the others.
CASES = [
    (kind, opt)
    for kind in MODELS
    for opt in OPTIMIZERS
    if kind in ("sequential", "functional") or opt in ("none", "keras_adam")
]


@pytest.mark.parametrize(("kind", "optimizer"), CASES)
def test_checkpoint_files_keys_and_object_graph_are_tfs(tmp_path, kind, optimizer):
    _saved(tf1, str(tmp_path / "tf"), kind, optimizer)
    _saved(jtf, str(tmp_path / "jt"), kind, optimizer)
    assert (
        sorted(os.listdir(tmp_path / "jt"))
        == sorted(os.listdir(tmp_path / "tf"))
        == [
            "checkpoint",
            "weights.data-00000-of-00001",
            "weights.index",
        ]
    )
    theirs_state = (tmp_path / "tf" / "checkpoint").read_text()
    assert (tmp_path / "jt" / "checkpoint").read_text() == theirs_state
    theirs, ours = str(tmp_path / "tf" / "weights"), str(tmp_path / "jt" / "weights")
    assert real_tf.train.list_variables(ours) == real_tf.train.list_variables(theirs)
    t_graph, o_graph = _object_graph(theirs), _object_graph(ours)
    assert _by_path(o_graph) == _by_path(t_graph)
    if kind != "functional":  # no BatchNormalization ``axis`` node: the same ids
        assert o_graph == t_graph
    t_reader, o_reader = real_tf.train.load_checkpoint(theirs), real_tf.train.load_checkpoint(ours)
    for name, _ in real_tf.train.list_variables(theirs):
        if name != "_CHECKPOINTABLE_OBJECT_GRAPH":
            assert o_reader.get_tensor(name).dtype == t_reader.get_tensor(name).dtype


@pytest.mark.parametrize("optimizer", ["none", "keras_adam", "train_adam"])
@pytest.mark.parametrize("kind", list(MODELS))
@pytest.mark.parametrize("writer", ["jtrain", "tf"])
def test_round_trip_restores_weights_bit_for_bit(tmp_path, kind, optimizer, writer):
    """jtrain's checkpoint loaded by TF, and TF's by jtrain: the loaded model's
    weights equal the writer's bit for bit."""
    saver, loader = (jtf, tf1) if writer == "jtrain" else (tf1, jtf)
    weights, predicted = _saved(saver, str(tmp_path), kind, optimizer)
    loaded, ours, reference = _loaded(loader, str(tmp_path / "weights"), kind, weights)
    assert len(loaded) == len(weights)
    for a, b in zip(weights, loaded, strict=True):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(b, a)
    # The loader's predictions are those of its model given the weights directly, bit
    # for bit; against the writer's (another framework's kernels) within float32 ulps.
    assert ours.dtype == reference.dtype == predicted.dtype
    np.testing.assert_array_equal(ours, reference)
    np.testing.assert_allclose(ours, predicted, rtol=2e-6, atol=2e-7)


@pytest.mark.parametrize("writer", ["jtrain", "tf"])
def test_optimizer_state_restored_into_a_trained_model(tmp_path, writer):
    """A compiled, trained model loading a checkpoint gets the optimizer's ``iter``,
    hyperparameters and slots too: one more epoch after loading trains as the
    writer's model would have."""
    saver, loader = (jtf, tf1) if writer == "jtrain" else (tf1, jtf)

    def save(tf: Any) -> Any:
        model = _plain(tf)
        _fix(model)
        model.compile(optimizer="adam", loss="mse")
        model.fit(X, Y, batch_size=5, epochs=2, verbose=0)
        model.save_weights(str(tmp_path / "weights"))
        model.fit(X, Y, batch_size=5, epochs=1, verbose=0, shuffle=False)
        return model.get_weights(), _predict(tf, model)

    def load(tf: Any) -> Any:
        model = _plain(tf)
        model.compile(optimizer="adam", loss="mse")
        model.fit(X[:5], Y[:5], batch_size=5, epochs=1, verbose=0)  # creates the slots
        model.load_weights(str(tmp_path / "weights"))
        model.fit(X, Y, batch_size=5, epochs=1, verbose=0, shuffle=False)
        return model.get_weights(), _predict(tf, model)

    theirs = _in_graph(saver, save)
    ours = _in_graph(loader, load)
    (t_w, t_p), (o_w, o_p) = theirs, ours
    for a, b in [*zip(t_w, o_w, strict=True), (t_p, o_p)]:
        np.testing.assert_allclose(b, a, rtol=2e-6, atol=1e-7)


def _error(tf: Any, tmp_path: Any, case: str) -> Any:
    path = str(tmp_path / "weights")

    def body(tf: Any) -> Any:
        model = _sequential(tf)
        model.save_weights(path)
        v = tf.Variable(np.ones(3, np.float32), name="v")
        tf.keras.backend.get_session().run(v.initializer)
        if case == "float64":
            other = tf.keras.Sequential(
                [tf.keras.layers.Dense(4, input_shape=(3,), dtype="float64")]
            )
            return other.load_weights(path)
        if case == "empty":
            return tf.keras.Sequential([]).load_weights(path)
        if case == "missing":
            return model.load_weights(str(tmp_path / "nothing"))
        if case == "by_name":
            return model.load_weights(path, by_name=True)
        if case == "skip_mismatch":
            return model.load_weights(path, skip_mismatch=True)
        if case == "format":
            return model.save_weights(path, save_format="pickle")
        if case == "tf_h5":
            return model.save_weights(path + ".h5", save_format="tf")
        if case == "unbuilt":
            return tf.keras.Sequential([tf.keras.layers.Dense(2)]).save_weights(path)
        if case == "name_based":
            tf.train.Saver([v]).save(tf.keras.backend.get_session(), str(tmp_path / "saver"))
            return model.load_weights(str(tmp_path / "saver"))
        raise AssertionError(case)

    try:
        _in_graph(tf, body)
    except Exception as e:  # noqa: BLE001 (the class is what is compared)
        return type(e).__name__, str(e).replace(str(tmp_path), "DIR")
    return None


@pytest.mark.parametrize(
    ("case", "same_message"),
    [
        ("float64", False),
        ("empty", False),
        ("missing", False),
        ("by_name", True),
        ("skip_mismatch", True),
        ("format", True),
        ("tf_h5", True),
        ("unbuilt", True),
        ("name_based", True),
    ],
)
def test_errors_are_tfs(tmp_path, case, same_message):
    (tmp_path / "tf").mkdir()
    (tmp_path / "jt").mkdir()
    theirs = _error(tf1, tmp_path / "tf", case)
    ours = _error(jtf, tmp_path / "jt", case)
    assert theirs is not None and ours is not None, (theirs, ours)
    assert ours[0] == theirs[0], (theirs, ours)
    if same_message:
        assert ours[1] == theirs[1]
    elif case == "empty":  # the object's repr differs
        assert ours[1].startswith("Nothing to load. No dependencies have been added to ")
        assert theirs[1].startswith("Nothing to load. No dependencies have been added to ")
    elif case == "missing":
        assert "DIR/nothing" in ours[1]


def _checkpointing(
    tf: Any, directory: str, name: str, weights_only: bool = True, **kwargs: Any
) -> Any:
    pattern = os.path.join(directory, name)

    def body(tf: Any) -> Any:
        model = _plain(tf)
        _fix(model)
        model.compile(optimizer=tf.train.GradientDescentOptimizer(0.05), loss="mse")
        callback = tf.keras.callbacks.ModelCheckpoint(
            pattern, save_weights_only=weights_only, verbose=1, **kwargs
        )
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            model.fit(
                X, Y, batch_size=5, epochs=4, verbose=0, validation_split=0.2, callbacks=[callback]
            )
        return out.getvalue().replace(directory, "DIR"), model.get_weights()

    return _in_graph(tf, body)


def _prefixes(directory: Any) -> set[str]:
    return {re.sub(r"\.(index|data-\d{5}-of-\d{5})$", "", f) for f in os.listdir(directory)}


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("w.{epoch:02d}-{val_loss:.2f}", {}),
        ("w.{epoch:02d}-{val_loss:.2f}", {"save_best_only": True}),
        (
            "w.{epoch:02d}-{val_loss:.2f}",
            {"save_best_only": True, "monitor": "loss", "mode": "max"},
        ),
        ("w.{epoch:02d}-{val_loss:.2f}", {"period": 2}),
        ("w.{epoch:02d}-{batch:02d}-{loss:.3f}", {"save_freq": 3}),
        ("weights", {}),
    ],
    ids=["every_epoch", "best_only", "best_only_max", "period", "save_freq", "one_prefix"],
)
def test_model_checkpoint_files_and_messages(tmp_path, name, kwargs):
    t_text, t_weights = _checkpointing(tf1, str(tmp_path / "tf"), name, **kwargs)
    o_text, o_weights = _checkpointing(jtf, str(tmp_path / "jt"), name, **kwargs)
    assert o_text == t_text
    # The same prefixes; a prefix saved again has its data in 2 shards (jtrain's
    # atomic same-prefix save), which TF reads as it reads its own single shard.
    assert _prefixes(tmp_path / "jt") == _prefixes(tmp_path / "tf")
    for prefix in _prefixes(tmp_path / "tf") - {"checkpoint"}:
        theirs = real_tf.train.list_variables(str(tmp_path / "tf" / prefix))
        assert real_tf.train.list_variables(str(tmp_path / "jt" / prefix)) == theirs
    assert (tmp_path / "jt" / "checkpoint").read_text() == (
        tmp_path / "tf" / "checkpoint"
    ).read_text()
    for a, b in zip(t_weights, o_weights, strict=True):
        np.testing.assert_allclose(b, a, rtol=2e-6, atol=1e-7)


def _h5_arrays(group: Any) -> dict[str, np.ndarray]:
    """The datasets below an HDF5 group by path."""
    import h5py

    arrays: dict[str, np.ndarray] = {}
    group.visititems(
        lambda key, item: arrays.update({key: item[()]}) if isinstance(item, h5py.Dataset) else None
    )
    return arrays


def test_model_checkpoint_saves_the_whole_model(tmp_path):
    """Without ``save_weights_only``, ``Model.save`` (HDF5, TF1's default format) at each
    save: TF's files, model configs and weights (jtrain raised NotImplementedError)."""
    import h5py

    name = "m.{epoch:02d}-{val_loss:.2f}"
    t_text, t_weights = _checkpointing(tf1, str(tmp_path / "tf"), name, False, period=2)
    o_text, o_weights = _checkpointing(jtf, str(tmp_path / "jt"), name, False, period=2)
    assert o_text == t_text
    files = sorted(os.listdir(tmp_path / "tf"))
    assert sorted(os.listdir(tmp_path / "jt")) == files and len(files) == 2
    for file in files:
        with h5py.File(tmp_path / "tf" / file, "r") as t, h5py.File(tmp_path / "jt" / file) as o:
            assert o.attrs["model_config"] == t.attrs["model_config"]
            t_arrays, o_arrays = _h5_arrays(t["model_weights"]), _h5_arrays(o["model_weights"])
            assert sorted(o_arrays) == sorted(t_arrays)
            for key in t_arrays:
                np.testing.assert_allclose(o_arrays[key], t_arrays[key], rtol=2e-6, atol=1e-7)
    for a, b in zip(t_weights, o_weights, strict=True):
        np.testing.assert_allclose(b, a, rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("weights_only", [True, False])
def test_model_checkpoint_options_errors(weights_only):
    with pytest.raises(TypeError) as theirs:
        tf1.keras.callbacks.ModelCheckpoint("m", save_weights_only=weights_only, options=3)
    with pytest.raises(TypeError) as ours:
        jtf.keras.callbacks.ModelCheckpoint("m", save_weights_only=weights_only, options=3)
    assert str(ours.value) == str(theirs.value)
