"""``adapters.v1.keras.utils``/``preprocessing``: what adapters.v1 does on its own
(atomic files, the Sequence reader's pass bookkeeping, missing names). TF's outputs
are checked live in tests/interop/test_keras_utils_interop.py,
test_keras_preprocessing_interop.py and test_keras_sequence_fit_interop.py; these
failed before the modules existed (``AttributeError``)."""

from __future__ import annotations

import hashlib
import os
import random

import numpy as np
import pytest

from adapters import v1 as tf
from adapters.v1.keras.data_utils import iter_sequence_infinite

K = tf.keras


def _files(path):
    return sorted(os.listdir(path))


def test_get_file_keeps_no_partial_or_corrupt_download(tmp_path, capsys):
    src = tmp_path / "data.bin"
    src.write_bytes(b"x" * 20000)
    cache = tmp_path / "cache"
    cache.mkdir()  # (Keras falls back to /tmp/.keras for a cache_dir it cannot write)
    with pytest.raises(ValueError, match="file hash does not match"):
        K.utils.get_file("d.bin", src.as_uri(), file_hash="0" * 64, cache_dir=str(cache))
    assert _files(cache / "datasets") == []
    with pytest.raises(Exception, match="URL fetch failure on .*missing"):
        K.utils.get_file("m.bin", (tmp_path / "missing").as_uri(), cache_dir=str(cache))
    assert _files(cache / "datasets") == []
    sha = hashlib.sha256(src.read_bytes()).hexdigest()
    path = K.utils.get_file("d.bin", src.as_uri(), file_hash=sha, cache_dir=str(cache))
    assert path == str(cache / "datasets" / "d.bin") and _files(cache / "datasets") == ["d.bin"]
    assert "Downloading data from" in capsys.readouterr().out


def test_save_img_is_atomic(tmp_path, monkeypatch):
    pytest.importorskip("PIL")
    target = tmp_path / "img.png"
    K.utils.save_img(str(target), np.ones((2, 2, 3)))
    before = target.read_bytes()
    from PIL import Image

    def fail(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(Image.Image, "save", fail)
    with pytest.raises(OSError, match="disk full"):
        K.utils.save_img(str(target), np.zeros((2, 2, 3)))
    assert _files(tmp_path) == ["img.png"] and target.read_bytes() == before


class _Seq(K.utils.Sequence):
    def __init__(self, n):
        self.n, self.ends, self.asked = n, 0, []

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        self.asked.append(i)
        return i

    def on_epoch_end(self):
        self.ends += 1


@pytest.mark.parametrize(
    ("workers", "shuffle", "reads", "ends_before_close", "ends_after_close"),
    [(0, True, 7, 0, 0), (1, False, 6, 1, 2), (1, False, 5, 1, 1), (2, True, 3, 0, 1)],
)
def test_sequence_reader_passes(workers, shuffle, reads, ends_before_close, ends_after_close):
    """Passes of 3 batches: ``on_epoch_end`` once a pass is read entirely (the
    ``OrderedEnqueuer``, ``workers`` > 0), the last one at ``stop``; no shuffle and no
    ``on_epoch_end`` with ``iter_sequence_infinite`` (``workers=0``)."""
    seq = _Seq(3)
    random.seed(1)
    if workers:
        enqueuer = K.utils.OrderedEnqueuer(seq, shuffle=shuffle)
        enqueuer.start(workers=workers)
        reader = enqueuer.get()
    else:
        reader = iter_sequence_infinite(seq)
    got = [next(reader) for _ in range(reads)]
    assert seq.ends == ends_before_close
    if workers:
        assert enqueuer.is_running()
        enqueuer.stop()
        assert not enqueuer.is_running() and list(reader) == []
    assert seq.ends == ends_after_close
    for start in range(0, reads, 3):
        one_pass = got[start : start + 3]
        if workers == 0 or not shuffle:
            assert one_pass == [0, 1, 2][: len(one_pass)]
        else:
            assert sorted(one_pass) == [0, 1, 2]


def test_empty_sequence_runs_out():
    assert list(iter_sequence_infinite(_Seq(0))) == []
    enqueuer = K.utils.OrderedEnqueuer(_Seq(0))
    enqueuer.start()
    assert list(enqueuer.get()) == []


def test_generator_enqueuer_skips_none_and_ends():
    enqueuer = K.utils.GeneratorEnqueuer(iter([1, None, 2]))
    assert not enqueuer.is_running()
    enqueuer.start(workers=1, max_queue_size=2)
    assert list(enqueuer.get()) == [1, 2]


def test_missing_names_say_so():
    with pytest.raises(AttributeError, match="DataFrameIterator"):
        K.preprocessing.image.DataFrameIterator  # noqa: B018
    with pytest.raises(NotImplementedError, match="flow_from_dataframe"):
        K.preprocessing.image.ImageDataGenerator().flow_from_dataframe(None)
    with pytest.raises(AttributeError, match="StepsPerExecutionTuner"):
        K.utils.StepsPerExecutionTuner  # noqa: B018
