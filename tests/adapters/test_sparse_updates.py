"""A TF1 embedding step updates only the looked-up rows of the table and its slots.

``embedding_lookup`` of fed ids (a placeholder of unknown batch size, as scripts
feed them) gives the table an ``IndexedSlices`` gradient; the optimizers apply TF's
sparse update. The session's compiled step must read and write only those rows,
as TF's sparse kernels do: no operation over the whole table (a dense gradient,
zeros, an elementwise update, a copy because a donation failed). The values are
compared with TF in ``test_embedding_ops.py`` (``train_*`` cases).
"""

from __future__ import annotations

import numpy as np

from adapters import v1 as tf
from tests._helpers import full_table_ops, step_program
from tests.adapters import embedding_cases

ROWS, DIM = 4099, 6  # a shape no other array of the step has
# Every TF1 optimizer with a row-sparse update (TF's sparse Adam decays every row).
OPTIMIZERS = {k: v for k, v in embedding_cases.OPTIMIZERS.items() if k != "adam"}


def test_embedding_step_touches_only_the_looked_up_rows():
    rng = np.random.RandomState(0)
    with tf.Graph().as_default():
        ids = tf.placeholder(tf.int64, [None, 5], name="ids")
        step = tf.train.get_or_create_global_step()
        train_ops, tables = [], {}
        for name, (cls_name, args, kwargs) in OPTIMIZERS.items():
            table = tf.get_variable(name, initializer=np.full((ROWS, DIM), 0.5, np.float32))
            loss = tf.reduce_sum(tf.reduce_mean(tf.nn.embedding_lookup(table, ids), 1) ** 2)
            extra = (step,) if cls_name == "AdagradDAOptimizer" else ()
            train_ops.append(getattr(tf.train, cls_name)(*args, *extra, **kwargs).minimize(loss))
            tables[name] = table
        train = tf.group(*train_ops, tf.assign_add(step, 1))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            feed = {ids: rng.randint(0, ROWS, (3, 5))}
            hlo = step_program(sess, train, feed)
            after = sess.run(tables)
    assert "scatter" in hlo
    assert full_table_ops(hlo, (ROWS, DIM)) == []
    touched = np.unique(feed[ids])
    for name, value in after.items():
        untouched = np.delete(value, touched, axis=0)
        assert (untouched == 0.5).all(), name  # only the fed rows moved
        assert (value[touched] != 0.5).all(), name
