"""``tf.keras.utils.Sequence`` in ``Model.fit``/``evaluate``/``predict`` and the
``*_generator`` methods, checked live against TF 2.21's legacy Keras v1 engine
(``training_generator_v1``: an ``OrderedEnqueuer`` when ``workers`` > 0,
``iter_sequence_infinite`` when 0).

Compared: History, the weights after training, ``evaluate``/``predict`` results,
the batches the Sequence was asked for (in order, with ``workers`` of 0 and 1, where
TF's one thread asks in order) and TF's errors. ``shuffle=True`` shuffles the batch
order with Python's ``random`` (seeded here: TF's order); ``on_epoch_end`` runs between
epochs (a Sequence that permutes its samples there trains to TF's weights). Every test
failed before ``adapters.v1.keras.utils.Sequence`` existed (``fit_generator`` raised
NotImplementedError on a Sequence, ``fit`` refused a generator); the enqueuers are
compared directly too.

.. note:: TF's enqueuer thread prefetches batches beyond the last step it runs and
   calls ``on_epoch_end`` after the last epoch only if it notices the pass consumed
   within its 0.1 s polling (timing dependent): those calls are compared only up to
   the steps run.
"""

from __future__ import annotations

import contextlib
import io
import random
from typing import Any

import numpy as np
import pytest

from adapters import v1 as jtf
from tests.interop.test_keras_fit_interop import (  # noqa: F401 (the autouse fixture)
    _both,
    _close,
    _data,
    _fix,
    _tf1_behaviour,
    tf1,
)

pytestmark = pytest.mark.interop


def _sequence(tf: Any, x: np.ndarray, y: np.ndarray, size: int, *, permute: bool = False) -> Any:
    """A ``tf.keras.utils.Sequence`` of ``(x, y)`` batches of ``size`` (the last one
    shorter) recording the indices it is asked for and its ``on_epoch_end`` calls;
    ``permute``: ``on_epoch_end`` permutes the samples (its own seeded stream)."""

    class Batches(tf.keras.utils.Sequence):
        def __init__(self) -> None:
            self.x, self.y = x.copy(), y.copy()
            self.asked: list[int] = []
            self.ends = 0
            self._rs = np.random.RandomState(5)

        def __len__(self) -> int:
            return -(-len(self.x) // size)

        def __getitem__(self, index: int) -> Any:
            self.asked.append(index)
            part = slice(index * size, (index + 1) * size)
            return self.x[part], self.y[part]

        def on_epoch_end(self) -> None:
            self.ends += 1
            if permute:
                order = self._rs.permutation(len(self.x))
                self.x, self.y = self.x[order], self.y[order]

    return Batches()


def _model(tf: Any, metrics: Any = ("mae",)) -> Any:
    m = tf.keras.Sequential(
        [
            tf.keras.layers.Dense(4, activation="tanh", input_shape=(3,)),
            tf.keras.layers.Dense(1),
        ]
    )
    _fix(m)
    m.compile(tf.train.GradientDescentOptimizer(0.05), "mse", metrics=list(metrics))
    return m


@pytest.mark.parametrize("workers", [0, 1, 2])
@pytest.mark.parametrize("shuffle", [False, True])
def test_fit_sequence_history_weights_order(workers, shuffle):
    x, y = _data(11, 3, seed=31)
    xv, yv = _data(5, 3, seed=32)
    epochs = 3

    def body(tf):
        random.seed(7)  # TF's enqueuer shuffles the batch order with Python's random
        m = _model(tf)
        seq, val = _sequence(tf, x, y, 4), _sequence(tf, xv, yv, 2)
        h = m.fit(
            seq,
            epochs=epochs,
            verbose=0,
            shuffle=shuffle,
            workers=workers,
            validation_data=val,
            max_queue_size=3,
        )
        return {
            "history": (h.history, h.epoch),
            "params": h.params,
            "weights": m.get_weights(),
            "asked": seq.asked[: epochs * len(seq)],
            "val_asked": val.asked,
            "ends": seq.ends,
        }

    theirs, ours = _both(body)
    if workers == 0:  # iter_sequence_infinite: in order, no on_epoch_end
        assert theirs["ends"] == ours["ends"] == 0
    else:  # between the epochs, and after the last one (TF: if its thread noticed)
        assert theirs["ends"] in (epochs - 1, epochs) and ours["ends"] == epochs
    # A validation pass reads its Sequence from the first batch, in order (TF: a new
    # enqueuer per pass, whose thread may start another pass before it is stopped).
    # (two threads may ask for a pass's first batches in either order)
    first_pass = theirs["val_asked"][:3]
    assert (sorted(first_pass) if workers == 2 else first_pass) == [0, 1, 2]
    assert ours["val_asked"] == [0, 1, 2] * epochs
    n = epochs * 3  # TF's thread may have asked for more ahead
    if workers == 2:  # two threads ask in either order; the queue keeps TF's order
        assert sorted(ours["asked"]) == sorted(theirs["asked"]) == sorted([0, 1, 2] * epochs)
    else:
        assert ours["asked"] == theirs["asked"] and len(ours["asked"]) == n
    if shuffle and workers:  # some pass out of order
        assert any(ours["asked"][i : i + 3] != [0, 1, 2] for i in range(0, n, 3))
    for name in ("ends", "asked", "val_asked"):
        del theirs[name], ours[name]
    _close(theirs, ours)


def test_on_epoch_end_changes_the_data():
    x, y = _data(12, 3, seed=33)

    def body(tf):
        m = _model(tf)
        seq = _sequence(tf, x, y, 5, permute=True)
        h = m.fit(seq, epochs=3, verbose=0, shuffle=False)
        return {"history": h.history, "weights": m.get_weights()}

    theirs, ours = _both(body)
    _close(theirs, ours)


def test_generator_methods_steps_and_evaluate_predict():
    """``fit_generator`` (shuffles by default), fewer steps than batches (the passes
    carry over epochs), ``evaluate``/``predict`` and their ``*_generator`` forms."""
    x, y = _data(10, 3, seed=34)

    def body(tf):
        random.seed(3)
        m = _model(tf)
        seq = _sequence(tf, x, y, 3)
        h = m.fit_generator(seq, steps_per_epoch=3, epochs=3, verbose=0)
        ev = _sequence(tf, x, y, 4)
        return {
            "history": (h.history, h.params),
            "weights": m.get_weights(),
            "asked": seq.asked[:9],
            "evaluate": m.evaluate(ev, verbose=0),
            "evaluate_steps": m.evaluate(_sequence(tf, x, y, 4), steps=2, verbose=0),
            "evaluate_generator": m.evaluate_generator(_sequence(tf, x, y, 3)),
            "predict": m.predict(_sequence(tf, x, y, 4)),
            "predict_generator": m.predict_generator(_sequence(tf, x, y, 3), steps=5),
            "predict_workers0": m.predict(_sequence(tf, x, y, 4), workers=0),
        }

    theirs, ours = _both(body)
    _close(theirs, ours)


def test_generator_methods_pass_shuffle_and_workers():
    """``fit_generator(shuffle=False)`` reads a Sequence in order, ``workers=0`` on the
    ``*_generator`` methods iterates it without ``on_epoch_end`` (TF's
    ``iter_sequence_infinite``); jtrain's methods dropped both arguments (the batches
    came shuffled, ``on_epoch_end`` ran)."""
    x, y = _data(9, 3, seed=35)

    def body(tf):
        random.seed(4)
        m = _model(tf)
        seq = _sequence(tf, x, y, 3)
        h = m.fit_generator(seq, epochs=2, verbose=0, shuffle=False, workers=1)
        ev, pr = _sequence(tf, x, y, 4), _sequence(tf, x, y, 4)
        out = {
            "history": (h.history, h.params),
            "weights": m.get_weights(),
            "asked": seq.asked[:6],
            "evaluate_generator": m.evaluate_generator(ev, workers=0),
            "predict_generator": m.predict_generator(pr, workers=0),
            "ev_asked": ev.asked,
            "ends": (ev.ends, pr.ends),
        }
        return out

    theirs, ours = _both(body)
    assert ours["asked"] == theirs["asked"] == [0, 1, 2, 0, 1, 2]
    assert ours["ev_asked"] == theirs["ev_asked"] == [0, 1, 2]
    assert ours["ends"] == theirs["ends"] == (0, 0)
    _close(theirs, ours)


def test_fit_python_generator():
    """``fit``/``evaluate``/``predict`` take a Python generator as TF's v1 engine does
    (its steps given)."""
    x, y = _data(10, 3, seed=35)

    def gen(size):
        while True:
            for i in range(0, len(x), size):
                yield x[i : i + size], y[i : i + size]

    def body(tf):
        m = _model(tf)
        h = m.fit(gen(4), steps_per_epoch=3, epochs=2, verbose=0, workers=0)
        return {
            "history": h.history,
            "weights": m.get_weights(),
            "evaluate": m.evaluate(gen(5), steps=2, verbose=0, workers=0),
            "predict": m.predict((b[0] for b in gen(3)), steps=4, workers=0),
        }

    theirs, ours = _both(body)
    _close(theirs, ours)


def _error(call: Any) -> Any:
    try:
        call()
    except (ValueError, TypeError, NotImplementedError) as e:
        return type(e).__name__, str(e).replace("\n", " ")
    return None


def test_sequence_argument_errors():
    x, y = _data(6, 3, seed=36)

    def body(tf):
        m = _model(tf, metrics=())
        seq = _sequence(tf, x, y, 3)
        errors = [
            _error(lambda: m.fit(seq, y, verbose=0)),
            _error(lambda: m.fit(seq, sample_weight=np.ones(6), verbose=0)),
            _error(lambda: m.fit(seq, validation_split=0.5, verbose=0)),
            _error(lambda: m.evaluate(seq, y, verbose=0)),
            _error(lambda: m.fit((b for b in seq), verbose=0)),
        ]
        batch_error = _error(lambda: m.fit(seq, batch_size=2, verbose=0))
        assert batch_error is not None
        assert "batch_size" in batch_error[1] and batch_error[0] == "ValueError"
        return errors

    theirs, ours = _both(body)
    for (cls, theirs_msg), (our_cls, msg), name in zip(
        theirs,
        ours,
        ["`y`", "`sample_weight`", "`validation_split`", "`y`", "`steps_per_epoch`"],
        strict=True,
    ):
        assert cls == our_cls == "ValueError"
        assert name in theirs_msg and name in msg, (theirs_msg, msg)


def test_sequence_base_class():
    """The base class: abstract methods raise NotImplementedError, ``on_epoch_end``
    does nothing, iteration reads ``len`` once and yields the batches in order."""

    def body(tf):
        base = tf.keras.utils.Sequence()
        out: dict[str, Any] = {}
        for name, call in (("getitem", lambda: base[0]), ("len", lambda: len(base))):
            try:
                call()
            except NotImplementedError as e:
                out[name] = type(e).__name__
        out["on_epoch_end"] = base.on_epoch_end()
        seq = _sequence(tf, np.arange(15.0).reshape(5, 3), np.arange(5.0), 2)
        out["iter"] = [b[1].tolist() for b in seq]
        return out

    theirs, ours = _both(body)
    assert ours == theirs


@pytest.mark.parametrize("workers", [0, 1])
def test_array_validation_data(workers):
    """Arrays as ``validation_data`` of a generator loop: TF batches them by the last
    training batch's size (3 here: 11 samples in batches of 4), ``validation_steps``
    ignored; the loss is the mean over those batches (failed before:
    NotImplementedError)."""
    x, y = _data(11, 3, seed=37)
    xv, yv = _data(7, 3, seed=38)
    wv = np.random.RandomState(39).uniform(0.5, 1.5, 7)

    def body(tf):
        random.seed(5)  # fit_generator shuffles the Sequence's batches (workers=1)
        m = _model(tf)
        seen = []
        record = tf.keras.callbacks.LambdaCallback(
            on_test_batch_end=lambda batch, logs: seen.append(dict(logs))
        )
        h = m.fit(
            _sequence(tf, x, y, 4),
            epochs=2,
            verbose=0,
            shuffle=False,
            workers=workers,
            validation_data=(xv, yv),
            validation_steps=1,
            callbacks=[record],
        )
        h2 = m.fit_generator(
            _sequence(tf, x, y, 5),
            epochs=1,
            verbose=0,
            workers=workers,
            validation_data=(xv, yv, wv),
        )
        return {
            "history": (h.history, h2.history),
            "weights": m.get_weights(),
            "test_batches": [(b["batch"], b["size"]) for b in seen],
        }

    theirs, ours = _both(body)
    assert theirs["test_batches"][:3] == [(0, 3), (1, 3), (2, 1)]
    _close(theirs, ours)


def test_verbose_2_text_and_params():
    """``fit(seq, verbose=2)`` prints TF's lines (steps counted; times masked) and sets
    TF's callback params; ``evaluate(seq, verbose=0)`` prints nothing."""
    from tests.interop.test_keras_fit_interop import _mask

    x, y = _data(9, 3, seed=40)
    xv, yv = _data(4, 3, seed=41)

    def body(tf):
        m = _model(tf)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            h = m.fit(
                _sequence(tf, x, y, 4),
                epochs=2,
                verbose=2,
                shuffle=False,
                validation_data=_sequence(tf, xv, yv, 3),
            )
            m.evaluate(_sequence(tf, x, y, 5), verbose=0)
        return _mask(out.getvalue()), h.params

    theirs, ours = _both(body)
    assert "Epoch 2/2" in theirs[0] and "val_loss" in theirs[0]
    assert ours == theirs


def test_enqueuers():
    """``tf.keras.utils.OrderedEnqueuer`` (one worker: TF's batch order, shuffled with
    Python's ``random`` each pass, ``on_epoch_end`` between passes) and
    ``GeneratorEnqueuer`` (the generator's items in order, ``None`` skipped)."""
    x, y = _data(8, 3, seed=42)

    def run(tf: Any) -> Any:
        random.seed(6)
        seq = _sequence(tf, x, np.arange(8), 3)
        enqueuer = tf.keras.utils.OrderedEnqueuer(seq, shuffle=True)
        running = [enqueuer.is_running()]
        enqueuer.start(workers=1, max_queue_size=2)
        running.append(enqueuer.is_running())
        batches = enqueuer.get()
        got = [next(batches)[1].tolist() for _ in range(7)]
        ends = seq.ends  # passes 1 and 2 ended before pass 3's first batch
        enqueuer.stop()
        running.append(enqueuer.is_running())

        def items():
            i = 0
            while True:
                i += 1
                yield None if i % 3 == 0 else i

        gen_enqueuer = tf.keras.utils.GeneratorEnqueuer(items())
        gen_enqueuer.start(workers=1, max_queue_size=3)
        stream = gen_enqueuer.get()
        from_generator = [next(stream) for _ in range(5)]
        gen_enqueuer.stop()
        return got, ends, running, from_generator

    theirs, ours = run(tf1), run(jtf)
    assert theirs[1] == 2 and theirs[3] == [1, 2, 4, 5, 7]
    assert ours == theirs
