"""``Dataset.shuffle``'s order checked live against TF 2.21: the same seeds give TF's
order, epoch after epoch (before, jtrain's order came from NumPy: every case failed).
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

from adapters import v1 as jtf
from tests.interop.twin import classic_tf1, tf1

pytestmark = pytest.mark.interop


def _orders(tf, build, steps, sessions=1, inits=1):
    """The elements ``build``'s iterator gives in each session and initialization."""
    out = []
    with classic_tf1() if tf is tf1 else contextlib.nullcontext():
        with tf.Graph().as_default():
            initializer, element = build(tf)
            for _ in range(sessions):
                with tf.Session() as sess:
                    for _ in range(inits):
                        if initializer is not None:
                            sess.run(initializer)
                        out.append([_plain(sess.run(element)) for _ in range(steps)])
    return out


def _plain(value):
    if isinstance(value, (tuple, list)):
        return tuple(_plain(v) for v in value)
    return np.asarray(value).tolist()


def _one_shot(dataset_fn):
    def build(tf):
        return None, tf.data.make_one_shot_iterator(dataset_fn(tf)).get_next()

    return build


def _graph_seeded(seed, dataset_fn):
    def build(tf):
        tf.set_random_seed(seed)
        return None, tf.data.make_one_shot_iterator(dataset_fn(tf)).get_next()

    return build


def _initializable(dataset_fn):
    def build(tf):
        iterator = tf.data.make_initializable_iterator(dataset_fn(tf))
        return iterator.initializer, iterator.get_next()

    return build


def _two_shuffles(tf):
    a = tf.data.Dataset.range(9).shuffle(4)
    b = tf.data.Dataset.range(100, 109).shuffle(9)
    return tf.data.Dataset.zip((a, b))


CASES = {
    # op seed, buffer smaller than the data, a new order each epoch, two sessions
    "op_seed_repeat": (
        _one_shot(lambda tf: tf.data.Dataset.range(10).shuffle(5, seed=3).repeat(3)), 30, 2, 1
    ),
    # graph seed only (TF's per-graph op-seed counter), buffer larger than the data
    "graph_seed": (
        _graph_seeded(7, lambda tf: tf.data.Dataset.range(12).shuffle(100).repeat(2)), 24, 1, 1
    ),
    "graph_seed_two_shuffles": (_graph_seeded(1, _two_shuffles), 9, 1, 1),
    "same_order_each_epoch": (
        _one_shot(
            lambda tf: tf.data.Dataset.range(10)
            .shuffle(4, seed=11, reshuffle_each_iteration=False)
            .repeat(2)
        ),
        20, 1, 1,
    ),
    # initializing again starts the same sequence again (TF 2.21's V1 kernel)
    "initialized_twice": (
        _initializable(lambda tf: tf.data.Dataset.range(8).shuffle(8, seed=5).repeat(2)),
        16, 1, 2,
    ),
    "repeat_then_shuffle": (
        _one_shot(lambda tf: tf.data.Dataset.range(10).repeat(2).shuffle(6, seed=2)), 20, 1, 1
    ),
    "tuples_batched": (
        _one_shot(
            lambda tf: tf.data.Dataset.from_tensor_slices(
                (np.arange(20, dtype=np.float32), np.arange(20, dtype=np.int64) * 3)
            )
            .shuffle(7, seed=123)
            .batch(3)
        ),
        6, 1, 1,
    ),
    "buffer_of_one": (_one_shot(lambda tf: tf.data.Dataset.range(6).shuffle(1, seed=9)), 6, 1, 1),
    "shuffle_and_repeat": (
        _one_shot(
            lambda tf: tf.data.Dataset.range(7).apply(
                tf.data.experimental.shuffle_and_repeat(4, count=3, seed=5)
            )
        ),
        21, 1, 1,
    ),
    "large_op_seed": (
        _one_shot(lambda tf: tf.data.Dataset.range(50).shuffle(50, seed=2**31 - 2)), 50, 1, 1
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CASES))
def test_shuffle_order_is_tfs(case):
    build, steps, sessions, inits = CASES[case]
    theirs = _orders(tf1, build, steps, sessions, inits)
    ours = _orders(jtf, build, steps, sessions, inits)
    assert ours == theirs


def test_unseeded_shuffle_is_a_permutation_each_time():
    """No seeds: random seeds for each initialization, in TF as here (orders differ)."""

    def build(tf):
        iterator = tf.data.make_initializable_iterator(tf.data.Dataset.range(64).shuffle(64))
        return iterator.initializer, iterator.get_next()

    orders = _orders(jtf, build, 64, 1, 3)
    assert all(sorted(o) == list(range(64)) for o in orders)
    assert len({tuple(o) for o in orders}) == 3


def test_list_files_shuffled_order_is_tfs(tmp_path):
    for i in range(12):
        (tmp_path / f"part-{i:02d}.txt").write_text("x")
    pattern = str(tmp_path / "*.txt")

    def build(tf):
        tf.set_random_seed(3)
        names = tf.data.Dataset.list_files(pattern)  # the graph seed's op seed
        seeded = tf.data.Dataset.list_files(pattern, seed=4)
        return None, (
            tf.data.make_one_shot_iterator(names).get_next(),
            tf.data.make_one_shot_iterator(seeded).get_next(),
        )

    theirs, ours = _orders(tf1, build, 12), _orders(jtf, build, 12)
    assert ours == theirs
    assert len({name for name, _ in theirs[0]}) == 12
