"""``tf.RaggedTensor`` and ``tf.ragged`` in graphs, checked live against TF 2.21 as
classic TF1 (``twin.py``): values, dtypes, static shapes, ragged structure (nested row
splits and flat values), what ``Session.run`` returns and TF's errors.

adapters.v1 had neither name (an ``AttributeError``) until ``ops/ragged/``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.interop.test_strings_unicode_interop import _check, _message
from tests.interop.twin import run_both

pytestmark = pytest.mark.interop


def _rc(tf: Any, rows: Any, **kw: Any) -> Any:
    return tf.ragged.constant(rows, **kw)


NESTED = [[[1, 2], [3]], [], [[4]]]

CASES = {
    "constant": lambda tf: _rc(tf, [[1, 2], [3]]),
    "constant_float": lambda tf: _rc(tf, [[1.0, 2], [3], []]),
    "constant_nested": lambda tf: _rc(tf, NESTED),
    "constant_inner": lambda tf: _rc(tf, [[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1),
    "constant_strings": lambda tf: _rc(tf, [["a", "b"], ["c"]]),
    "constant_int32_splits": lambda tf: _rc(tf, [[1, 2], [3]], row_splits_dtype=tf.int32),
    "constant_dtype": lambda tf: _rc(tf, [[1, 2], [3]], dtype=tf.int64),
    "constant_flat": lambda tf: _rc(tf, [1, 2, 3]),
    "constant_bad_nesting": lambda tf: _rc(tf, [[1, [2]], [3]]),
    "from_row_splits": lambda tf: tf.RaggedTensor.from_row_splits([1, 2, 3, 4], [0, 1, 1, 4]),
    "from_row_lengths": lambda tf: tf.RaggedTensor.from_row_lengths([1, 2, 3, 4], [1, 0, 3]),
    "from_row_starts": lambda tf: tf.RaggedTensor.from_row_starts([1, 2, 3, 4], [0, 1, 1]),
    "from_row_limits": lambda tf: tf.RaggedTensor.from_row_limits([1, 2, 3, 4], [1, 1, 4]),
    "from_value_rowids": lambda tf: tf.RaggedTensor.from_value_rowids(
        [1, 2, 3, 4], [0, 0, 2, 2], nrows=4
    ),
    "from_value_rowids_no_nrows": lambda tf: tf.RaggedTensor.from_value_rowids(
        [1, 2, 3, 4], [0, 0, 2, 2]
    ),
    "from_nested_row_splits": lambda tf: tf.RaggedTensor.from_nested_row_splits(
        [1, 2, 3, 4], [[0, 2, 2, 3], [0, 2, 3, 4]]
    ),
    "from_nested_row_lengths": lambda tf: tf.RaggedTensor.from_nested_row_lengths(
        [1.0, 2.0, 3.0, 4.0], [[2, 0, 1], [2, 1, 1]]
    ),
    "from_tensor": lambda tf: tf.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0]]),
    "from_tensor_padding": lambda tf: tf.RaggedTensor.from_tensor(
        [[1, 2, 0], [3, 0, 0], [0, 0, 0]], padding=0
    ),
    "from_tensor_lengths": lambda tf: tf.RaggedTensor.from_tensor(
        [[1, 2, 0], [3, 0, 0]], lengths=[2, 1]
    ),
    "from_tensor_rank2": lambda tf: tf.RaggedTensor.from_tensor(
        tf.reshape(tf.range(12), [2, 3, 2]), ragged_rank=2
    ),
    "from_tensor_padding_inner": lambda tf: tf.RaggedTensor.from_tensor(
        [[[1, 2], [0, 0]], [[3, 0], [4, 0]]], padding=[0, 0]
    ),
    "from_tensor_fed_lengths": lambda tf: tf.RaggedTensor.from_tensor(
        tf.placeholder_with_default([[1.0, 2.0], [3.0, 4.0]], [None, 2]),
        lengths=tf.placeholder_with_default(tf.constant([0, 2], tf.int64), [None]),
    ),
    "from_sparse": lambda tf: tf.RaggedTensor.from_sparse(
        tf.SparseTensor([[0, 0], [0, 1], [2, 0]], [1, 2, 3], [3, 4])
    ),
    "to_tensor": lambda tf: _rc(tf, [[1, 2], [3]]).to_tensor(),
    "to_tensor_default": lambda tf: _rc(tf, [[1, 2], [3], []]).to_tensor(default_value=9),
    "to_tensor_nested": lambda tf: _rc(tf, NESTED).to_tensor(),
    "to_tensor_strings": lambda tf: _rc(tf, [["a", "b"], ["c"]]).to_tensor(),
    "to_tensor_inner": lambda tf: _rc(tf, [[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1).to_tensor(),
    "to_tensor_shape": lambda tf: _rc(tf, [[1, 2, 3], [4]]).to_tensor(shape=[3, 2]),
    # TF 2.21: no rows give a (0, 0) value under a static (0, 3) shape
    "to_tensor_uniform": lambda tf: (
        tf.RaggedTensor.from_tensor(tf.reshape(tf.range(12), [2, 3, 2]), ragged_rank=2).to_tensor(),
        tf.RaggedTensor.from_tensor(tf.zeros([0, 3])).to_tensor(),
    ),
    "to_sparse": lambda tf: _rc(tf, [[1, 2], [3]]).to_sparse(),
    "to_sparse_nested": lambda tf: _rc(tf, NESTED).to_sparse(),
    "row_lengths": lambda tf: _rc(tf, [[1, 2], [3], []]).row_lengths(),
    "row_lengths_axis2": lambda tf: _rc(tf, NESTED).row_lengths(axis=2),
    "nested_row_lengths": lambda tf: _rc(tf, NESTED).nested_row_lengths(),
    "value_rowids": lambda tf: _rc(tf, [[1, 2], [], [3]]).value_rowids(),
    "nrows": lambda tf: _rc(tf, [[1, 2], [], [3]]).nrows(),
    "row_starts_limits": lambda tf: (
        _rc(tf, [[1, 2], [], [3]]).row_starts(),
        _rc(tf, [[1, 2], [], [3]]).row_limits(),
    ),
    "with_values": lambda tf: _rc(tf, [[1, 2], [3]]).with_values(tf.constant([4.0, 5.0, 6.0])),
    "range": lambda tf: tf.ragged.range([3, 5], [5, 8]),
    "range_limit_only": lambda tf: tf.ragged.range([0, 3, 1]),
    "range_deltas": lambda tf: tf.ragged.range([0, 10], [7, 2], [2, -3]),
    "range_float": lambda tf: tf.ragged.range(0.0, [1.0, 0.35], 0.1),
    "range_zero_delta": lambda tf: tf.ragged.range([0], [3], 0),
    "row_splits_to_segment_ids": lambda tf: tf.ragged.row_splits_to_segment_ids([0, 2, 2, 5]),
    "segment_ids_to_row_splits": lambda tf: tf.ragged.segment_ids_to_row_splits([0, 0, 2]),
    "segment_ids_to_row_splits_n": lambda tf: tf.ragged.segment_ids_to_row_splits(
        [0, 0, 2], num_segments=5
    ),
    "map_flat_values": lambda tf: tf.ragged.map_flat_values(tf.multiply, _rc(tf, [[1, 2], [3]]), 2),
    "boolean_mask": lambda tf: tf.ragged.boolean_mask(
        tf.constant([[1, 2], [3, 4]]), tf.constant([[True, False], [True, True]])
    ),
    "boolean_mask_vector": lambda tf: tf.ragged.boolean_mask(
        tf.constant([1, 2, 3]), tf.constant([True, False, True])
    ),
    "stack": lambda tf: tf.ragged.stack([_rc(tf, [[1, 2], [3]]), _rc(tf, [[4]])]),
    "to_list_graph": lambda tf: _rc(tf, [[1, 2], [3]]).to_list(),
    "bounding_shape": lambda tf: _rc(tf, NESTED).bounding_shape(),
    "bounding_shape_axis": lambda tf: _rc(tf, [[1, 2], [3]]).bounding_shape(axis=1),
    "getitem_row": lambda tf: _rc(tf, [[1, 2], [3]])[0],
    "getitem_negative": lambda tf: _rc(tf, [["a"], ["b", "c"]])[-1],
    "getitem_fed": lambda tf: tf.RaggedTensor.from_row_splits(
        tf.constant([1, 2, 3]),
        tf.placeholder_with_default(tf.constant([0, 1, 3], tf.int64), [None]),
    )[1],
    "getitem_nested": lambda tf: _rc(tf, NESTED)[0],
    "getitem_out_of_range": lambda tf: tf.RaggedTensor.from_row_splits(
        tf.constant([1, 2, 3]),
        tf.placeholder_with_default(tf.constant([0, 1, 3], tf.int64), [None]),
    )[5],
    "getitem_slice": lambda tf: _rc(tf, [[1, 2], [3], [4, 5, 6]])[1:],
    "getitem_empty_slice": lambda tf: _rc(tf, [[1, 2], [3]])[5:],
    "stack_dense_and_ragged": lambda tf: tf.ragged.stack(
        [tf.constant([[1, 2], [3, 4]]), _rc(tf, [[5], [], [6, 7]])]
    ),
    "constant_inner_shape": lambda tf: _rc(tf, [[[1, 2]], [], [[3, 4], [5, 6]]], inner_shape=(2,)),
    "constant_ragged_rank2_inner": lambda tf: _rc(
        tf, [[[[1], [2]]], [[[3]]]], ragged_rank=2, inner_shape=(1,)
    ),
    "constant_numpy_rows": lambda tf: _rc(tf, [np.array([1.5, 2.5]), np.array([3.5])]),
    "constant_empty": lambda tf: _rc(tf, [[], []]),
    "constant_scalar": lambda tf: _rc(tf, 7),
    "merge_dims": lambda tf: (
        _rc(tf, NESTED).merge_dims(0, 1),
        _rc(tf, NESTED).merge_dims(0, 2),
        _rc(tf, [[1, 2], [3]]).merge_dims(0, -1),
    ),
    "with_row_splits_dtype": lambda tf: _rc(tf, NESTED).with_row_splits_dtype(tf.int32),
    "uniform_row_length": lambda tf: (
        tf.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0]]).uniform_row_length
    ),
    "stack_dynamic_partitions": lambda tf: (
        tf.ragged.stack_dynamic_partitions(["a", "b", "c", "d", "e"], [3, 0, 2, 2, 3], 5),
        tf.ragged.stack_dynamic_partitions([[1, 2], [3, 4], [5, 6]], [1, 0, 1], 2),
        tf.ragged.stack_dynamic_partitions(
            tf.constant([1.5, 2.5]), tf.constant([1, 1], tf.int64), 3
        ),
    ),
    "operators_scalar": lambda tf: (
        _rc(tf, NESTED) * 2,
        10 - _rc(tf, [[1, 2], [3]]),
        _rc(tf, [[1.5], [-2.0, 3.0]]) / 2.0,
        _rc(tf, [[1, 2], [3]]) / 2,
        -_rc(tf, [[1, 2], [3]]),
        _rc(tf, [[1, 2], [3]]) > 1,
        abs(_rc(tf, [[-1.5], []])),
    ),
    "operators_same_partition": lambda tf: (lambda rt: (rt + rt, rt * rt.values.dtype.min))(
        _rc(tf, [[1, 2], [3]])
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_ragged(case: str) -> None:
    _check(CASES[case])


def test_session_run_gives_ragged_tensor_value() -> None:
    """``Session.run`` of a RaggedTensor: TF1's ``RaggedTensorValue`` (nested for more
    ragged dimensions), with its ``to_list``, ``shape``, ``ragged_rank``, ``dtype``."""

    def script(tf: Any) -> Any:
        rt = _rc(tf, NESTED)
        flat = _rc(tf, [["a", "b"], ["c"]])

        def run(sess: Any) -> Any:
            value, strings = sess.run([rt, flat])
            out = []
            for v in (value, strings):
                assert isinstance(v, tf.ragged.RaggedTensorValue)
                out.append(
                    (type(v.values).__name__, v.to_list(), v.shape, v.ragged_rank, str(v.dtype))
                )
            out.append(type(rt.values).__name__)
            return out

        return run

    theirs, ours = run_both(script)
    assert ours == theirs


def test_invalid_splits_raise_tf_assertion() -> None:
    """Row splits not ending at the number of values: TF's InvalidArgumentError at run
    time, its assertion message's first part."""

    def script(tf: Any) -> Any:
        rt = tf.RaggedTensor.from_row_splits([1, 2, 3, 4], [0, 1, 1, 3])

        def run(sess: Any) -> Any:
            try:
                sess.run(rt)
            except tf.errors.InvalidArgumentError as e:
                return _message(e)[:129]
            return None

        return run

    theirs, ours = run_both(script)
    assert theirs.startswith("assertion failed: [Arguments to _from_row_partition")
    assert ours == theirs


def test_constructor_is_private() -> None:
    def script(tf: Any) -> Any:
        try:
            tf.RaggedTensor(tf.constant([1]), tf.constant([0, 1], tf.int64))
        except ValueError as e:
            found = str(e)
        return lambda sess: found

    theirs, ours = run_both(script)
    assert ours == theirs
    assert np.asarray(theirs).size


def test_feed_ragged_placeholder() -> None:
    """A ``tf.ragged.placeholder`` fed a ``RaggedTensorValue`` (TF1's feed expansion:
    nested row splits and flat values); a value of another type fails as in TF."""

    def script(tf: Any) -> Any:
        p = tf.ragged.placeholder(tf.int32, 2, [])
        q = tf.ragged.placeholder(tf.float32, 1, [2])
        dense = p.to_tensor(default_value=-1)
        statics = [_static(x) for x in (p, q, p.flat_values, q.flat_values, dense)]
        value = tf.ragged.constant_value(NESTED, dtype=np.int32)
        qv = tf.ragged.constant_value([[[1.0, 2.0]], []], ragged_rank=1, dtype=np.float32)

        def run(sess: Any) -> Any:
            got_p, got_dense, got_q = sess.run([p, dense, q], {p: value, q: qv})
            try:
                sess.run(dense, {p: [[1, 2], [3]]})
                error = None
            except Exception as e:  # noqa: BLE001 - compared with TF's
                error = (type(e).__name__, str(e))
            return statics, got_p.to_list(), got_dense.tolist(), got_q.to_list(), error

        return run

    theirs, ours = run_both(script)
    assert ours == theirs


def _static(t: Any) -> Any:
    shape = t.shape
    return (t.dtype.name, shape.as_list() if shape.ndims is not None else None)


def test_constant_value() -> None:
    """``tf.compat.v1.ragged.constant_value``: NumPy's dtypes (int64, float64), TF's
    structure."""

    def script(tf: Any) -> Any:
        values = [
            tf.ragged.constant_value([[1, 2], [3]]),
            tf.ragged.constant_value([[1.0], []]),
            tf.ragged.constant_value(NESTED, row_splits_dtype="int32"),
            tf.ragged.constant_value([[[1, 2]], []], ragged_rank=1),
        ]
        found = [
            (v.to_list(), str(v.dtype), v.ragged_rank, v.shape, str(v.row_splits.dtype))
            for v in values
        ]
        return lambda sess: found

    theirs, ours = run_both(script)
    assert ours == theirs


def test_stack_dynamic_partitions_out_of_range() -> None:
    def script(tf: Any) -> Any:
        rt = tf.ragged.stack_dynamic_partitions(["a", "b"], [0, 5], 5)

        def run(sess: Any) -> Any:
            try:
                sess.run(rt)
            except tf.errors.InvalidArgumentError as e:
                return _message(e)[:108]
            return None

        return run

    theirs, ours = run_both(script)
    assert theirs.startswith("assertion failed: [partitions must be less than num_partitions]")
    assert ours == theirs
