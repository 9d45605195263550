"""What TF1 language-model and seq2seq scripts (``ptb_word_lm.py``'s style) use,
run under TF 2.21's ``compat.v1`` and under ``adapters.v1``: the same values.

Each test is a crash or difference found porting ``tests/interop/port_scripts``'s
``ptb_style.py``/``seq2seq_style.py``, reduced to the construct that caused it.
"""

from __future__ import annotations

import numpy as np

from tests.interop.twin import assert_twins, run_both


def test_range_input_producer_of_a_tensor_limit():
    """``ptb_producer``'s ``range_input_producer(epoch_size)``: the limit a scalar tensor
    computed in the graph (``(tf.size(data) // batch - 1) // steps``), as TF's
    ``tf.range(limit)``; jtrain raised ValueError at graph build."""

    def script(tf):
        raw = tf.convert_to_tensor(np.arange(47), dtype=tf.int32)
        epoch_size = (tf.size(raw) // 4 - 1) // 3
        with tf.control_dependencies([tf.assert_positive(epoch_size)]):
            epoch_size = tf.identity(epoch_size, name="epoch_size")
        i = tf.train.range_input_producer(epoch_size, num_epochs=2, shuffle=False).dequeue()

        def run(sess):
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            values = [sess.run(i) for _ in range(6)]
            try:
                sess.run(i)
                ended = False
            except tf.errors.OutOfRangeError:
                ended = True
            coord.request_stop()
            coord.join(threads)
            return values, np.asarray(ended), i.shape.as_list()

        return run

    theirs, ours = run_both(script)
    assert theirs[0] == [0, 1, 2, 0, 1, 2] and bool(theirs[1])
    assert_twins(theirs, ours)
