"""``tf.profiler`` without TF: its names, outputs and the ``NotImplementedError``s where
jtrain cannot give TF's numbers (TF's numbers: tests/interop/test_profiler_interop.py)."""

from __future__ import annotations

import os

import pytest

from adapters import v1 as tf

B = tf.profiler.ProfileOptionBuilder


def _graph(loss: bool = False) -> tf.Graph:
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        w = tf.get_variable("w", [3, 4], initializer=tf.zeros_initializer())
        y = tf.matmul(x, w)
        if loss:
            tf.losses.mean_squared_error(tf.zeros([2, 4]), y)
    return g


def test_names():
    for name in [
        "AdviceProto",
        "GraphNodeProto",
        "MultiGraphNodeProto",
        "OpLogProto",
        "ProfileOptionBuilder",
        "Profiler",
        "advise",
        "profile",
        "write_op_log",
    ]:
        assert hasattr(tf.profiler, name), name
    assert tf.profiler.GraphNodeProto(name="a").name == "a"


def test_outputs(capsys, tmp_path):
    g = _graph()
    node = tf.profiler.profile(g, options=B(B.float_operation()).with_empty_output().build())
    assert capsys.readouterr().out == ""
    assert node.total_float_ops == 48
    assert [c.name for c in node.children] == ["MatMul"]
    path = tmp_path / "report.txt"
    tf.profiler.profile(g, options=B(B.float_operation()).with_file_output(str(path)).build())
    assert capsys.readouterr().out == ""
    assert "MatMul (48/48 flops)" in path.read_text()
    assert os.listdir(tmp_path) == ["report.txt"]
    tf.profiler.profile(g)  # default: trainable parameters, printed
    assert "w (3x4, 12/12 params)" in capsys.readouterr().out


def test_unsupported_raise():
    g = _graph(loss=True)
    params = B(B.trainable_variables_parameter()).with_empty_output().build()
    assert tf.profiler.profile(g, options=params).total_parameters == 12
    with pytest.raises(NotImplementedError, match="mean_squared_error.*Loss"):
        tf.profiler.profile(g, options=B.float_operation())
    with pytest.raises(NotImplementedError, match="'code'"):
        tf.profiler.profile(g, cmd="code", options=params)
    with pytest.raises(NotImplementedError, match="show_name_regexes"):
        tf.profiler.profile(
            g, cmd="op", options=B(params).with_node_names(show_name_regexes=["a"]).build()
        )
    ops = tf.profiler.profile(g, cmd="op", options=params)
    assert isinstance(ops, tf.profiler.MultiGraphNodeProto)
    assert ops.total_parameters == 12
    with pytest.raises(NotImplementedError, match="select 'device'"):
        tf.profiler.profile(g, options=B(params).select(["device"]).build())
    with pytest.raises(NotImplementedError, match="output 'timeline'"):
        tf.profiler.profile(g, options=B(params).with_timeline_output("/tmp/t").build())
    profiler = tf.profiler.Profiler(g)
    assert profiler.profile_name_scope(params).total_parameters == 12
    with pytest.raises(NotImplementedError, match="jax.profiler"):
        profiler.add_step(1, object())
    assert profiler.advise(None) == tf.profiler.AdviceProto()
    with pytest.raises(NotImplementedError, match="RunMetadata"):
        tf.profiler.advise(g, run_meta=object())
