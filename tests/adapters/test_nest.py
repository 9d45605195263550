"""``adapters.v1.framework.nest``: TF's ``nest.flatten`` rules, and JAX's for control flow."""

from __future__ import annotations

import collections

import numpy as np
import pytest

from adapters import v1 as tf
from adapters.v1.framework import nest

State = collections.namedtuple("State", "c h")


def test_tf_rules_flatten_subclasses_sequences_and_sort_every_mapping():
    ordered = collections.OrderedDict([("b", 1), ("a", (2, None))])
    assert nest.flatten(ordered) == [2, None, 1]
    assert nest.flatten(collections.UserList([1, [2]])) == [1, 2]
    assert nest.flatten(range(2)) == [0, 1]
    assert nest.flatten({"b": 1, "a": 2}.values()) == [1, 2]
    assert nest.flatten(State(1, [2, 3])) == [1, 2, 3]
    leaves = nest.flatten(["s", b"b", np.arange(3)])
    assert leaves[:2] == ["s", b"b"] and leaves[2].tolist() == [0, 1, 2]
    with pytest.raises(TypeError):
        nest.flatten({1: "x", "a": "y"})


def test_graph_values_and_none_are_leaves_in_both_rules(graph):
    x = tf.constant([1.0, 2.0])
    v = tf.Variable(1.0)
    op = tf.no_op()
    shape = tf.TensorShape([2])
    structure = [x, (v, None), {"op": op, "shape": shape}]
    assert nest.flatten(structure) == [x, v, None, op, shape]
    leaves, tree = nest.flatten(structure, pytree=True)
    assert leaves == [x, v, None, op, shape]
    assert tree.unflatten(leaves) == structure


def test_pytree_rules_keep_jax_containers():
    ordered = collections.OrderedDict([("b", 1), ("a", 2)])
    leaves, tree = nest.flatten(ordered, pytree=True)
    assert leaves == [1, 2] and tree.unflatten(leaves) == ordered
    assert nest.flatten(collections.UserList([1, 2]), pytree=True)[0] == [[1, 2]]
    assert nest.flatten(State(1, 2), pytree=True)[0] == [1, 2]
