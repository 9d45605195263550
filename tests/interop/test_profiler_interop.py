"""``tf.profiler`` (``profile``, ``ProfileOptionBuilder``, ``write_op_log``) checked live
against TF 2.21 as classic TF1: the option dicts, the float operation and parameter
counts, the scope view's children (names, numbers, order), the report TF prints or
writes, and the ``NotImplementedError`` where jtrain cannot give TF's numbers.

Each graph is built with TF's ``compat.v1`` (``twin.classic_tf1``) and with
``adapters.v1``; TF's ``GraphNodeProto`` parses into jtrain's (same wire format).
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from adapters import v1 as jtf
from jtrain.protos import tfprof_log_pb2, tfprof_output_pb2
from tests.interop.twin import classic_tf1, tf1

pytestmark = pytest.mark.interop


def _profile(tf: Any, build: Any, capfd: Any, **kwargs: Any) -> tuple[Any, str, str]:
    """``(GraphNodeProto, stdout, stderr)`` of ``tf.profiler.profile`` on ``build(tf)``'s
    graph; ``kwargs['options']`` may be a function of ``tf``."""
    with classic_tf1() if tf is tf1 else contextlib.nullcontext():
        graph = tf.Graph()
        with graph.as_default():
            build(tf)
            capfd.readouterr()
            if callable(kwargs.get("options")):
                kwargs["options"] = kwargs["options"](tf)
            node = tf.profiler.profile(graph, **kwargs)
            out, err = capfd.readouterr()
    proto = tfprof_output_pb2.GraphNodeProto()
    proto.ParseFromString(node.SerializeToString())
    return proto, out, err


def _both(build: Any, capfd: Any, **kwargs: Any) -> tuple[Any, Any]:
    """TF's and jtrain's ``_profile``; the protos are compared by ``assert_same``."""
    return _profile(tf1, build, capfd, **dict(kwargs)), _profile(jtf, build, capfd, **kwargs)


def _nodes(proto: Any) -> list[Any]:
    return [proto] + [n for c in proto.children for n in _nodes(c)]


def assert_same(ours: Any, theirs: Any) -> None:
    """The same tree and numbers; ``input_shapes`` the same for the ops whose inputs are
    TF's (a jtrain reduction takes its axes as an argument, TF's NodeDef as input 1)."""
    for a, b in zip(_nodes(ours), _nodes(theirs), strict=True):
        assert a.name == b.name
        if a.name.rsplit("/", 1)[-1].startswith(("MatMul", "Conv2D", "BiasAdd", "add")):
            assert a.input_shapes == b.input_shapes, a.name
    assert _stripped(ours) == _stripped(theirs)


def _stripped(proto: Any) -> Any:
    out = type(proto)()
    out.CopyFrom(proto)
    for node in _nodes(out):
        node.ClearField("input_shapes")
    return out


def _mlp(tf: Any, batch: int | None = 8, reduce: bool = True) -> None:
    x = tf.placeholder(tf.float32, [batch, 20], name="x")
    with tf.variable_scope("layer1"):
        w = tf.get_variable("w", [20, 16], initializer=tf.constant_initializer(0.1))
        b = tf.get_variable("b", [16], initializer=tf.constant_initializer(0.0))
        h = tf.nn.relu(tf.matmul(x, w) + b)
    with tf.variable_scope("layer2"):
        w2 = tf.get_variable("w", [16, 10], initializer=tf.constant_initializer(0.2))
        b2 = tf.get_variable("b", [10], initializer=tf.constant_initializer(0.0))
        logits = tf.matmul(h, w2) + b2
    tf.nn.softmax(logits)
    if reduce:  # TF's reduction has its axes as a Const op, jtrain's as an argument
        tf.reduce_mean(tf.square(logits))


def _mlp_without_reduction(tf: Any) -> None:
    _mlp(tf, reduce=False)


def _convnet(tf: Any) -> None:
    x = tf.placeholder(tf.float32, [4, 8, 8, 3], name="x")
    h = tf.layers.conv2d(
        x, 6, 3, padding="same", activation=tf.nn.relu,
        kernel_initializer=tf.constant_initializer(0.1),
    )  # fmt: skip
    h = tf.layers.max_pooling2d(h, 2, 2)
    h = tf.nn.avg_pool(h, [1, 2, 2, 1], [1, 1, 1, 1], "VALID")
    w = tf.get_variable("dw", [3, 3, 6, 2], initializer=tf.constant_initializer(0.5))
    h = tf.nn.depthwise_conv2d(h, w, [1, 1, 1, 1], "SAME")
    h = tf.reshape(h, [4, -1])
    logits = tf.layers.dense(h, 5, kernel_initializer=tf.zeros_initializer())
    tf.argmax(logits, 1)
    tf.reduce_sum(tf.nn.l2_loss(logits))


FLOPS = lambda tf: tf.profiler.ProfileOptionBuilder.float_operation()  # noqa: E731
PARAMS = lambda tf: tf.profiler.ProfileOptionBuilder.trainable_variables_parameter()  # noqa: E731


def test_option_builder_dicts_are_tfs():
    for tf_ in (tf1, jtf):
        assert hasattr(tf_.profiler, "ProfileOptionBuilder")

    def built(tf: Any) -> list[Any]:
        b = tf.profiler.ProfileOptionBuilder
        return [
            b.float_operation(),
            b.trainable_variables_parameter(),
            b.time_and_memory(),
            b.time_and_memory(3, 4, 5, 6, 7, 8, 9),
            b().build(),
            b(b.float_operation())
            .with_max_depth(3)
            .with_min_memory(1, 2, 3, 4)
            .with_min_execution_time(5, 6, 7)
            .with_min_parameters(8)
            .with_min_occurrence(9)
            .with_min_float_operations(10)
            .with_accounted_types(["MatMul"])
            .with_node_names(["a"], ["b"], ["c"], ["d"])
            .account_displayed_op_only(False)
            .order_by("params")
            .select(["params", "float_ops"])
            .with_step(2)
            .build(),
            b().with_node_names(show_name_regexes=["x"]).with_empty_output().build(),
            b().with_file_output("/tmp/f").build(),
            b().with_timeline_output("/tmp/t").build(),
            b().with_pprof_output("/tmp/p").build(),
            b().with_min_memory().with_min_execution_time().with_stdout_output().build(),
        ]

    theirs, ours = built(tf1), built(jtf)
    assert ours == theirs
    assert [list(d) for d in ours] == [list(d) for d in theirs]  # key order too


@pytest.mark.parametrize("options", [FLOPS, PARAMS], ids=["float_operation", "params"])
@pytest.mark.parametrize("build", [_mlp, _convnet], ids=["mlp", "convnet"])
def test_report_and_proto_are_tfs(build, options, capfd):
    (theirs, t_out, _), (ours, o_out, _) = _both(build, capfd, options=options)
    assert_same(ours, theirs)  # names, numbers, children and their order
    assert theirs.total_float_ops > 0 or theirs.total_parameters > 0
    assert o_out == t_out  # character for character


def test_default_options_count_trainable_parameters(capfd):
    (theirs, t_out, _), (ours, o_out, _) = _both(_convnet, capfd)
    assert ours.total_parameters == theirs.total_parameters == 162 + 6 + 108 + 540 + 5
    assert_same(ours, theirs)
    assert o_out == t_out


def test_incomplete_shapes_count_zero(capfd):
    (theirs, t_out, t_err), (ours, o_out, o_err) = _both(
        lambda tf: _mlp(tf, batch=None), capfd, options=FLOPS
    )
    assert_same(ours, theirs)
    assert o_out == t_out
    assert ours.total_float_ops == 0
    message = "7 ops no flops stats due to incomplete shapes.\n"  # matmuls, adds, softmax...
    assert message in t_err
    assert message in o_err


def _custom(**changes: Any) -> Any:
    def options(tf: Any) -> Any:
        b = tf.profiler.ProfileOptionBuilder(tf.profiler.ProfileOptionBuilder.float_operation())
        for method, args in changes.items():
            b = getattr(b, method)(*args)
        return b.build()

    return options


@pytest.mark.parametrize(
    "options",
    [
        _custom(with_max_depth=(1,)),
        _custom(with_node_names=([".*layer1.*"],)),
        _custom(with_node_names=(None, [".*MatMul.*", "Mean"])),
        _custom(with_node_names=(None, None, [".*add.*"])),
        _custom(with_node_names=(None, None, None, ["layer2"])),
        _custom(with_accounted_types=(["MatMul"],)),
        _custom(order_by=("name",)),
        _custom(with_min_float_operations=(200,)),
        lambda tf: tf.profiler.ProfileOptionBuilder.time_and_memory(),
    ],
    ids=[
        "max_depth",
        "start",
        "show",
        "hide",
        "trim",
        "account_types",
        "order_by_name",
        "min_float_ops",
        "time_and_memory",
    ],
)
def test_filters_are_tfs(options, capfd):
    (theirs, t_out, _), (ours, o_out, _) = _both(_mlp, capfd, options=options)
    assert_same(ours, theirs)
    assert o_out == t_out


@pytest.mark.parametrize(
    "options",
    [
        _custom(account_displayed_op_only=(False,)),
        _custom(select=(["float_ops", "params"],), with_min_float_operations=(0,)),
        lambda tf: tf.profiler.ProfileOptionBuilder().build(),
        lambda tf: tf.profiler.ProfileOptionBuilder().select(["bytes", "params"]).build(),
    ],
    ids=["account_all", "select_both", "builder_defaults", "bytes"],
)
@pytest.mark.parametrize("batch", [8, None])
def test_views_of_every_op_are_tfs(options, batch, capfd):
    """Views showing every op, on a graph without a reduction (see ``_mlp``); an unknown
    batch size shows as ``-1`` in the placeholder's shape."""
    (theirs, t_out, _), (ours, o_out, _) = _both(
        lambda tf: _mlp(tf, batch=batch, reduce=False), capfd, options=options
    )
    assert_same(ours, theirs)
    assert o_out == t_out


def test_output_none_and_file(capfd, tmp_path):
    none = _custom(with_empty_output=())
    (theirs, t_out, _), (ours, o_out, _) = _both(_mlp, capfd, options=none)
    assert_same(ours, theirs)
    assert t_out == o_out == ""
    texts = []
    for tf, name in ((tf1, "tf.txt"), (jtf, "jtrain.txt")):
        path = str(tmp_path / name)
        _, out, _ = _profile(tf, _mlp, capfd, options=_custom(with_file_output=(path,)))
        assert out == ""
        with open(path) as f:
            texts.append(f.read())
    assert texts[1] == texts[0]
    assert "layer1/MatMul (5.12k/5.12k flops)" in texts[0]


@pytest.mark.parametrize(
    "initializer",
    [
        lambda tf: None,  # get_variable's glorot_uniform
        lambda tf: tf.random_uniform_initializer(-1.0, 2.0),
        lambda tf: tf.random_normal_initializer(),
        lambda tf: tf.truncated_normal_initializer(stddev=0.5),
        lambda tf: tf.glorot_normal_initializer(),
        lambda tf: tf.variance_scaling_initializer(distribution="uniform"),
    ],
    ids=["glorot_uniform", "uniform", "normal", "truncated_normal", "glorot_normal", "vs_uniform"],
)
def test_random_initializers_count_tfs_float_ops(initializer, capfd):
    def build(tf: Any) -> None:
        w = tf.get_variable("w", [30, 7], initializer=initializer(tf))
        tf.matmul(tf.ones([2, 30]), w)

    (theirs, _, _), (ours, _, _) = _both(build, capfd, options=FLOPS)
    assert theirs.total_float_ops > 2 * 2 * 30 * 7
    assert ours.total_float_ops == theirs.total_float_ops
    assert [c.name for c in ours.children][0] == "MatMul"


def test_ops_jtrain_cannot_count_raise(capfd):
    def build(tf: Any) -> None:
        _mlp(tf)
        logits = tf.get_default_graph().get_tensor_by_name("layer2/add:0")
        loss = tf.reduce_mean(
            tf.nn.softmax_cross_entropy_with_logits_v2(labels=tf.ones([8, 10]), logits=logits)
        )
        tf.train.GradientDescentOptimizer(0.1).minimize(loss)

    forward, _, _ = _profile(tf1, _mlp, capfd, options=FLOPS)
    theirs, _, _ = _profile(tf1, build, capfd, options=FLOPS)
    assert theirs.total_float_ops > 2 * forward.total_float_ops  # TF counts the gradients
    with pytest.raises(NotImplementedError, match="Gradients"):
        _profile(jtf, build, capfd, options=FLOPS)
    # parameters are still TF's
    (theirs, t_out, _), (ours, o_out, _) = _both(build, capfd, options=PARAMS)
    assert_same(ours, theirs)
    assert o_out == t_out


def test_write_op_log(tmp_path, capfd):
    logs = []
    for tf in (tf1, jtf):
        with classic_tf1() if tf is tf1 else contextlib.nullcontext():
            graph = tf.Graph()
            with graph.as_default():
                _mlp(tf)
                with pytest.raises(tf.errors.NotFoundError, match="No such file or directory"):
                    tf.profiler.write_op_log(graph, str(tmp_path / "missing"), add_trace=False)
                (tmp_path / tf.__name__).mkdir()
                tf.profiler.write_op_log(graph, str(tmp_path / tf.__name__), add_trace=False)
        log = tfprof_log_pb2.OpLogProto()
        with open(tmp_path / tf.__name__ / "tfprof_log", "rb") as f:
            log.ParseFromString(f.read())
        logs.append({e.name: (e.float_ops, list(e.types)) for e in log.log_entries})
    assert logs[1] == logs[0]


@pytest.mark.parametrize("batch_norm_scope", [False, True])
@pytest.mark.parametrize(
    "options", [None, {"OperationChecker": {}}, {}, "default"], ids=["none", "op", "empty", "all"]
)
def test_advise_is_tfs(batch_norm_scope, options, capfd):
    results = []
    for tf in (tf1, jtf):
        with classic_tf1() if tf is tf1 else contextlib.nullcontext():
            graph = tf.Graph()
            with graph.as_default():
                _mlp(tf)
                if batch_norm_scope:
                    with tf.name_scope("BatchNorm"):
                        tf.identity(tf.ones([2]))
                capfd.readouterr()
                kwargs = {} if options == "default" else {"options": options}
                advice = tf.profiler.advise(graph, **kwargs)
                out, err = capfd.readouterr()
        proto = tfprof_output_pb2.AdviceProto()
        proto.ParseFromString(advice.SerializeToString())
        # TF prints the checkers in its hash map's order: compare them by name
        blocks: dict[str, list[str]] = {}
        for line in out.splitlines():
            if line.endswith("Checker:"):
                blocks[line] = []
            elif line:
                blocks[list(blocks)[-1]].append(line)
        blocks["length"] = [str(len(out))]
        lines = [line for line in err.splitlines() if "RunMetadata" in line or "run_meta" in line]
        results.append((proto, blocks, lines))
    assert results[1] == results[0]
    if batch_norm_scope and options:
        assert "Maybe use faster FusedBatchNorm" in str(results[0][0])


def test_run_meta_and_advise_raise():
    g = jtf.Graph()
    with g.as_default():
        _mlp(jtf)
        with pytest.raises(NotImplementedError, match="jax.profiler"):
            jtf.profiler.profile(g, run_meta=object(), options=FLOPS(jtf))
        with pytest.raises(NotImplementedError, match="RunMetadata"):
            jtf.profiler.advise(g, run_meta=object())
        with pytest.raises(jtf.errors.InvalidArgumentError, match="unknown cmd: bad"):
            jtf.profiler.profile(g, cmd="bad")
    with classic_tf1():
        with tf1.Graph().as_default() as tg:
            with pytest.raises(tf1.errors.InvalidArgumentError, match="unknown cmd: bad"):
                tf1.profiler.profile(tg, cmd="bad")


def _many_ops(tf: Any) -> None:
    a = tf.placeholder(tf.float32, [3, 4], name="a")
    b = tf.placeholder(tf.float32, [3, 4], name="b")
    tf.reciprocal(a, name="reciprocal")
    tf.rsqrt(a, name="rsqrt")
    tf.log(a, name="log")
    tf.negative(a, name="neg")
    tf.subtract(a, b, name="sub")
    tf.realdiv(a, b, name="realdiv")
    tf.maximum(a, b, name="maximum")
    tf.minimum(a, b, name="minimum")
    tf.pow(a, b, name="pow")
    tf.squared_difference(a, b, name="sqdiff")
    tf.greater_equal(a, b, name="ge")
    tf.less(a, b, name="lt")
    tf.equal(a, b, name="eq")
    tf.not_equal(a, b, name="ne")
    tf.add_n([a, b, a], name="addn")
    tf.reduce_sum(a, axis=0, name="sum0")
    tf.reduce_mean(a, axis=1, keepdims=True, name="mean1")
    tf.argmin(a, 1, name="argmin")
    tf.matmul(a, b, transpose_b=True, name="mm_tb")
    tf.matmul(a, b, transpose_a=True, name="mm_ta")
    tf.matmul(tf.ones([2, 3, 4]), tf.ones([2, 4, 5]), name="bmm")
    tf.nn.softmax(a, name="softmax")
    tf.nn.l2_loss(a, name="l2")
    tf.nn.bias_add(a, tf.ones([4]), name="bias")
    x = tf.placeholder(tf.float32, [2, 6, 6, 3], name="x")
    f = tf.ones([3, 3, 3, 4], name="f")
    tf.nn.conv2d(x, f, [1, 2, 2, 1], "VALID", name="conv_s2")
    tf.nn.avg_pool(x, [1, 3, 3, 1], [1, 1, 1, 1], "SAME", name="avg")
    tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID", name="maxp")
    tf.nn.conv2d_transpose(
        tf.ones([2, 3, 3, 4]), f, [2, 6, 6, 3], [1, 2, 2, 1], "SAME", name="deconv"
    )
    tf.nn.conv3d(tf.ones([1, 4, 4, 4, 2]), tf.ones([2, 2, 2, 2, 3]), [1] * 5, "VALID", name="c3")
    tf.nn.dilation2d(x, tf.ones([2, 2, 3]), [1, 1, 1, 1], [1, 1, 1, 1], "SAME", name="dil")


def test_registered_op_counts_are_tfs(capfd):
    (theirs, t_out, _), (ours, o_out, _) = _both(_many_ops, capfd, options=FLOPS)
    assert len(theirs.children) >= 28
    assert_same(ours, theirs)
    assert o_out == t_out


# Model functions: jtrain's total is TF's, or (None) jtrain raises NotImplementedError
# because it builds them as one op where TF counts several (TF's total is not 0 there).
FUNCTIONS = {
    "softmax_xent": lambda tf, x, y: tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=x),
    "softmax_xent_rank3": lambda tf, x, y: tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=tf.reshape(y, [2, 3, 5]), logits=tf.reshape(x, [2, 3, 5])
    ),
    "sparse_xent": lambda tf, x, y: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.zeros([6], tf.int32), logits=x
    ),
    "sigmoid_xent": lambda tf, x, y: tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=x),
    "clip_by_value": lambda tf, x, y: tf.clip_by_value(x, -1.0, 1.0),
    "dropout": lambda tf, x, y: tf.nn.dropout(x, rate=0.5),
    "layers_dropout": lambda tf, x, y: tf.layers.dropout(x, 0.3, training=True),
    "random_uniform_01": lambda tf, x, y: tf.random_uniform([6, 5]),
    "random_uniform": lambda tf, x, y: tf.random_uniform([6, 5], -1.0, 3.0),
    "random_uniform_int": lambda tf, x, y: tf.random_uniform([6, 5], 0, 10, dtype=tf.int32),
    "random_normal": lambda tf, x, y: tf.random_normal([6, 5], 1.0, 2.0),
    "truncated_normal": lambda tf, x, y: tf.truncated_normal([6, 5]),
    "activations": lambda tf, x, y: (
        tf.nn.leaky_relu(x) + tf.nn.elu(x) + tf.nn.selu(x) + tf.nn.relu6(x) + tf.sigmoid(x)
    ),
    "log_softmax": lambda tf, x, y: tf.nn.log_softmax(x),
    "accuracy": lambda tf, x, y: tf.reduce_mean(
        tf.cast(tf.equal(tf.argmax(x, 1), tf.argmax(y, 1)), tf.float32)
    ),
    "arithmetic": lambda tf, x, y: 2.0 * x / y - x // y + x % y - 1.0,
    "math": lambda tf, x, y: tf.sqrt(x) + tf.exp(x) + tf.abs(x) + tf.square(x) - x,
    "reductions": lambda tf, x, y: tf.reduce_max(x) + tf.reduce_prod(x) + tf.reduce_sum(x),
    "where": lambda tf, x, y: tf.where(x > y, x, y),
    "l2_regularization": lambda tf, x, y: tf.add_n([tf.nn.l2_loss(x), tf.nn.l2_loss(y)]) * 0.01,
    "embedding": lambda tf, x, y: tf.nn.embedding_lookup(x, [0, 1]),
    "einsum": lambda tf, x, y: tf.einsum("ij,kj->ik", x, y),
    "moments": lambda tf, x, y: tf.nn.moments(x, [0]),
    "moments_keep_dims": lambda tf, x, y: tf.nn.moments(x, [1], keep_dims=True),
    "moments_4d": lambda tf, x, y: tf.nn.moments(tf.reshape(x, [1, 2, 3, 5]), [0, 1, 2]),
    "batch_normalization": lambda tf, x, y: tf.nn.batch_normalization(
        x, tf.ones([5]), tf.ones([5]), tf.zeros([5]), tf.ones([5]), 1e-3
    ),
    "batch_normalization_bare": lambda tf, x, y: tf.nn.batch_normalization(
        x, tf.ones([1, 5]), tf.ones([5]), None, None, 1e-3
    ),
    "batch_normalization_4d": lambda tf, x, y: tf.nn.batch_normalization(
        tf.reshape(x, [1, 2, 3, 5]), tf.ones([5]), tf.ones([5]), tf.zeros([5]), tf.ones([5]), 1e-3
    ),
    "layers_batch_norm": lambda tf, x, y: tf.layers.batch_normalization(x, training=False),
    "layers_batch_norm_training": lambda tf, x, y: tf.layers.batch_normalization(x, training=True),
    "layers_batch_norm_fused": lambda tf, x, y: tf.layers.batch_normalization(
        tf.reshape(x, [1, 2, 3, 5]), training=False
    ),
    "layers_batch_norm_4d_not_fused": lambda tf, x, y: tf.layers.batch_normalization(
        tf.reshape(x, [1, 2, 3, 5]), training=False, fused=False
    ),
    "batch_normalization_offset_only": None,
    "layers_batch_norm_no_scale": None,
    "l2_normalize": lambda tf, x, y: tf.nn.l2_normalize(x, 1),  # TF's composite's nodes
    "losses": None,
    "clip_by_global_norm": lambda tf, x, y: tf.clip_by_global_norm([x, y], 1.0)[0][0],
    "clip_by_norm": lambda tf, x, y: tf.clip_by_norm(x, 1.0, axes=[1]),  # TF's nodes
    "tensordot": None,
}
RAISING = {
    "batch_normalization_offset_only": lambda tf, x, y: tf.nn.batch_normalization(
        x, tf.ones([5]), tf.ones([5]), tf.zeros([5]), None, 1e-3
    ),
    "layers_batch_norm_no_scale": lambda tf, x, y: tf.layers.batch_normalization(
        x, training=False, scale=False
    ),
    "losses": lambda tf, x, y: tf.losses.mean_squared_error(y, x),
    "tensordot": lambda tf, x, y: tf.tensordot(x, tf.ones([5, 2]), 1),
}


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_model_functions_count_tfs_float_ops_or_raise(name, capfd):
    function = FUNCTIONS[name] or RAISING[name]

    def build(tf: Any) -> None:
        x = tf.placeholder(tf.float32, [6, 5], name="x")
        y = tf.placeholder(tf.float32, [6, 5], name="y")
        function(tf, x, y)

    options = _custom(with_empty_output=())
    theirs, _, _ = _profile(tf1, build, capfd, options=options)
    if FUNCTIONS[name] is None:
        assert theirs.total_float_ops > 0
        with pytest.raises(NotImplementedError, match="as one op where TF builds several"):
            _profile(jtf, build, capfd, options=options)
        return
    ours, _, _ = _profile(jtf, build, capfd, options=options)
    assert ours.total_float_ops == theirs.total_float_ops
    if name.startswith(("moments", "batch_norm")):
        assert theirs.total_float_ops > 0  # the counts modeled are not 0


_BY_NAME = _custom(order_by=("name",))
_BY_PARAMS = _custom(order_by=("params",), select=(["params", "float_ops"],))
_TIME_AND_MEMORY = lambda tf: tf.profiler.ProfileOptionBuilder.time_and_memory(  # noqa: E731
    min_micros=0, min_bytes=0
)


_OP_VIEW_OPTIONS = {
    "float_operation": FLOPS,
    "params": PARAMS,
    "max_depth": _custom(with_max_depth=(2,)),
    "min_float_ops": _custom(with_min_float_operations=(100,)),
    "account_types": _custom(with_accounted_types=(["MatMul", "Conv2D"],)),
    "account_all": _custom(account_displayed_op_only=(False,)),
}
_OP_VIEW_CASES = [
    *[(b, o) for b in ("mlp", "convnet") for o in _OP_VIEW_OPTIONS],
    # every op type shown: on a graph without a reduction (see _mlp)
    *[("mlp_plain", o) for o in [*_OP_VIEW_OPTIONS, "by_name", "by_params", "time_memory"]],
]
_OP_VIEW_OPTIONS.update(by_name=_BY_NAME, by_params=_BY_PARAMS, time_memory=_TIME_AND_MEMORY)
_BUILDS = {"mlp": _mlp, "convnet": _convnet, "mlp_plain": _mlp_without_reduction}


@pytest.mark.parametrize(("build", "options"), _OP_VIEW_CASES, ids="-".join)
def test_op_view_is_tfs(build, options, capfd):
    (theirs, t_out, _), (ours, o_out, _) = _both_op(
        _BUILDS[build], capfd, options=_OP_VIEW_OPTIONS[options]
    )
    assert _stripped_multi(ours) == _stripped_multi(theirs)
    assert o_out == t_out


def _both_op(build: Any, capfd: Any, **kwargs: Any) -> tuple[Any, Any]:
    out = []
    for tf in (tf1, jtf):
        with classic_tf1() if tf is tf1 else contextlib.nullcontext():
            graph = tf.Graph()
            with graph.as_default():
                build(tf)
                capfd.readouterr()
                options = kwargs["options"](tf)
                node = tf.profiler.profile(graph, cmd="op", options=options)
                printed, err = capfd.readouterr()
        proto = tfprof_output_pb2.MultiGraphNodeProto()
        proto.ParseFromString(node.SerializeToString())
        out.append((proto, printed, err))
    return out[0], out[1]


def _stripped_multi(proto: Any) -> Any:
    """``proto`` without the graph nodes' ``input_shapes`` (see ``assert_same``)."""
    out = type(proto)()
    out.CopyFrom(proto)
    node = out
    while True:
        for g in node.graph_nodes:
            g.ClearField("input_shapes")
        if not node.children:
            return out
        node = node.children[0]
