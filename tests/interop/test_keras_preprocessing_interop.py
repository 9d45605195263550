"""``tf.keras.preprocessing``'s ``sequence``, ``text`` and ``image`` helpers, checked
live against TF 2.21's legacy Keras (``tf.compat.v1.keras.preprocessing`` with
``TF_USE_LEGACY_KERAS=1``).

Compared: the arrays (dtype, shape, bits), lists and JSON they give, the batches of
``TimeseriesGenerator`` (``shuffle=True`` after the same ``np.random.seed``),
``skipgrams`` after the same ``random.seed`` (and with its ``seed``), ``Tokenizer``'s
indices, matrices and JSON, ``one_hot``/``hashing_trick`` (md5 across the two; Python's
``hash`` within this process only), the images (mode, size, pixels, the PNG files
written) and TF's errors (class; the message names the argument). Each test failed
before ``adapters.v1.keras.preprocessing`` existed (``AttributeError``).
"""

from __future__ import annotations

import io
import json
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import tensorflow as real_tf

from adapters import v1 as jtf
from tests.interop.test_keras_fit_interop import (  # noqa: F401 (the autouse fixture)
    _both,
    _close,
    _fix,
    _tf1_behaviour,
)

pytestmark = pytest.mark.interop

tf1 = real_tf.compat.v1


def _each(call: Callable[[Any], Any], seed: int | None = None) -> tuple[Any, Any]:
    """``call(preprocessing)`` with TF's ``tf.keras.preprocessing`` and adapters.v1's
    (Python's and NumPy's global streams seeded with ``seed`` before each); an
    exception comes back as ``(class name, message)``."""
    out = []
    for module in (tf1.keras.preprocessing, jtf.keras.preprocessing):
        if seed is not None:
            random.seed(seed)
            np.random.seed(seed)  # noqa: NPY002 (the streams Keras draws from)
        try:
            out.append(call(module))
        except Exception as e:  # noqa: BLE001 (compared: the class and the message)
            out.append((type(e).__name__, str(e)))
    return out[0], out[1]


def _result(theirs: Any) -> Any:
    """``theirs``, asserted not to be an error ``_each`` caught."""
    assert not (
        isinstance(theirs, tuple)
        and len(theirs) == 2
        and all(isinstance(t, str) for t in theirs)
        and theirs[0].endswith(("Error", "Exception"))
    ), theirs
    return theirs


def _same(theirs: Any, ours: Any) -> None:
    """Equal structures; arrays of the same dtype, shape and bytes."""
    if isinstance(theirs, np.ndarray):
        assert isinstance(ours, np.ndarray), ours
        assert (theirs.dtype, theirs.shape) == (ours.dtype, ours.shape), (theirs, ours)
        assert theirs.tobytes() == ours.tobytes(), (theirs, ours)
    elif isinstance(theirs, (list, tuple)):
        assert type(theirs) is type(ours) and len(theirs) == len(ours), (theirs, ours)
        for t, o in zip(theirs, ours, strict=True):
            _same(t, o)
    elif isinstance(theirs, dict):
        assert list(theirs) == list(ours), (theirs, ours)
        for k in theirs:
            _same(theirs[k], ours[k])
    else:
        assert type(theirs) is type(ours) and theirs == ours, (theirs, ours)


# -- sequence ----------------------------------------------------------------------------
_SERIES = np.arange(40, dtype=np.float32).reshape(20, 2)
_TARGETS = np.arange(20) * 10


def _batches(gen: Any) -> Any:
    return {"len": len(gen), "batches": [gen[i] for i in range(len(gen))]}


SEQUENCE_CASES = {
    "timeseries": lambda p: _batches(
        p.sequence.TimeseriesGenerator(_SERIES, _TARGETS, length=3, batch_size=4)
    ),
    "timeseries_strided": lambda p: _batches(
        p.sequence.TimeseriesGenerator(
            _SERIES,
            _TARGETS,
            length=6,
            sampling_rate=2,
            stride=3,
            start_index=1,
            end_index=17,
            reverse=True,
            batch_size=2,
        )
    ),
    "timeseries_shuffle": lambda p: _batches(
        p.sequence.TimeseriesGenerator(
            _SERIES[:, 0], _TARGETS, length=2, shuffle=True, batch_size=5
        )
    ),
    "timeseries_lists_config": lambda p: (
        lambda g: (g.get_config(), json.loads(g.to_json()), g.to_json(indent=1), _batches(g))
    )(p.sequence.TimeseriesGenerator([[1], [2], [3], [4], [5]], [0, 1, 2, 3, 4], length=2)),
    "sampling_table": lambda p: p.sequence.make_sampling_table(12),
    "sampling_table_factor": lambda p: p.sequence.make_sampling_table(7, sampling_factor=0.3),
    "skipgrams": lambda p: p.sequence.skipgrams([1, 2, 0, 3, 4, 2, 5], 6, window_size=2),
    "skipgrams_seed_categorical": lambda p: p.sequence.skipgrams(
        [3, 1, 4, 1, 5, 9, 2, 6],
        10,
        window_size=1,
        negative_samples=0.5,
        categorical=True,
        seed=11,
    ),
    "skipgrams_table_no_shuffle": lambda p: p.sequence.skipgrams(
        [1, 2, 3, 4, 5, 6], 8, shuffle=False, sampling_table=np.linspace(0, 1, 8)
    ),
    "skipgrams_no_negatives": lambda p: p.sequence.skipgrams(
        [1, 2, 3], 4, negative_samples=0, shuffle=False
    ),
    "pad_sequences": lambda p: p.sequence.pad_sequences([[1, 2, 3], [4]], maxlen=2),
}
SEQUENCE_ERRORS = {
    "lengths": (
        lambda p: p.sequence.TimeseriesGenerator(_SERIES, _TARGETS[:5], length=2),
        "ValueError",
        "length",
    ),
    "no_rows": (
        lambda p: p.sequence.TimeseriesGenerator(_SERIES, _TARGETS, length=25),
        "ValueError",
        "end_index",
    ),
    "json": (
        lambda p: p.sequence.TimeseriesGenerator([object()] * 4, [0] * 4, length=1).get_config(),
        "TypeError",
        "JSON",
    ),
}


@pytest.mark.parametrize("case", list(SEQUENCE_CASES))
def test_sequence(case):
    theirs, ours = _each(SEQUENCE_CASES[case], seed=3)
    _same(_result(theirs), ours)


@pytest.mark.parametrize("case", list(SEQUENCE_ERRORS))
def test_sequence_errors(case):
    call, cls, word = SEQUENCE_ERRORS[case]
    theirs, ours = _each(call)
    assert theirs[0] == ours[0] == cls
    assert word in theirs[1] and word in ours[1], (theirs, ours)


def test_timeseries_generator_is_a_sequence_fit_takes():
    """``fit`` runs a ``TimeseriesGenerator`` (a ``Sequence``) as any: TF's History."""
    series = np.sin(np.arange(30, dtype=np.float32) / 3).reshape(30, 1)

    def body(tf):
        gen = tf.keras.preprocessing.sequence.TimeseriesGenerator(
            series, series[:, 0], length=4, batch_size=6
        )
        m = tf.keras.Sequential(
            [tf.keras.layers.Flatten(input_shape=(4, 1)), tf.keras.layers.Dense(1)]
        )
        _fix(m)
        m.compile(tf.train.GradientDescentOptimizer(0.1), "mse")
        h = m.fit(gen, epochs=2, verbose=0, shuffle=False)
        return {"history": h.history, "weights": m.get_weights()}

    theirs, ours = _both(body)
    _close(theirs, ours)


# -- text --------------------------------------------------------------------------------
_TEXTS = [
    "The cat sat on the mat.",
    "The dog ate my homework!",
    "A cat, a dog; and THE bird?",
    "",
]


def _tokenizer_summary(tok: Any, texts: list[Any], probe: list[Any]) -> dict[str, Any]:
    tok.fit_on_texts(texts)
    seqs = tok.texts_to_sequences(probe)
    out = {
        "word_index": tok.word_index,
        "index_word": tok.index_word,
        "word_counts": dict(tok.word_counts),
        "word_docs": dict(tok.word_docs),
        "index_docs": dict(tok.index_docs),
        "document_count": tok.document_count,
        "sequences": seqs,
        "generator": list(tok.texts_to_sequences_generator(probe)),
        "texts": tok.sequences_to_texts(seqs + [[1, 99, 2]]),
        "json": json.loads(tok.to_json()),
    }
    for mode in ("binary", "count", "freq", "tfidf"):
        out[mode] = tok.texts_to_matrix(probe, mode=mode)
    return out


TEXT_CASES = {
    "word_sequence": lambda p: p.text.text_to_word_sequence("Hello, World! It's  a TEST.\tx"),
    "word_sequence_args": lambda p: p.text.text_to_word_sequence(
        "a-b_c d-E", filters="_", lower=False, split="-"
    ),
    "hashing_md5": lambda p: p.text.hashing_trick("the quick brown fox, the end", 17, "md5"),
    "hashing_function_analyzer": lambda p: p.text.hashing_trick(
        "ab cd", 5, hash_function=len, analyzer=lambda s: s.split() + ["xyz"]
    ),
    "tokenizer": lambda p: _tokenizer_summary(
        p.text.Tokenizer(), _TEXTS, ["the cat ate the unknown bird", "dog dog dog", ""]
    ),
    "tokenizer_oov_num_words": lambda p: _tokenizer_summary(
        p.text.Tokenizer(num_words=4, oov_token="<unk>"),
        _TEXTS,
        ["the cat ate the unknown bird", "mat"],
    ),
    "tokenizer_char_level_lists": lambda p: _tokenizer_summary(
        p.text.Tokenizer(char_level=True, lower=False),
        ["abca", ["Ab", "c"], "CC"],
        ["abcZ", ["c", "Ab"]],
    ),
    "tokenizer_sequences": lambda p: (
        lambda t: (
            t.fit_on_sequences([[1, 2, 2], [3], [2, 5]]),
            t.document_count,
            dict(t.index_docs),
            t.sequences_to_matrix([[1, 2, 2, 7], [5]], "tfidf"),
            t.sequences_to_matrix([[1, 2, 2, 7], []], "count"),
        )
    )(p.text.Tokenizer(num_words=6, document_count=2)),
    "tokenizer_from_json": lambda p: (
        lambda t: (
            t.fit_on_texts(_TEXTS),
            (
                lambda r: (
                    r.word_index,
                    r.index_word,
                    dict(r.index_docs),
                    r.word_counts,
                    r.texts_to_sequences(["the dog sat"]),
                    r.texts_to_matrix(["a cat"]),
                )
            )(p.text.tokenizer_from_json(t.to_json())),
        )
    )(p.text.Tokenizer(num_words=9, filters="!.", oov_token="?")),
}
TEXT_ERRORS = {
    "kwargs": (lambda p: p.text.Tokenizer(bad=1), "TypeError", "bad"),
    "no_dimension": (
        lambda p: p.text.Tokenizer().sequences_to_matrix([[1]]),
        "ValueError",
        "num_words",
    ),
    "tfidf_unfitted": (
        lambda p: p.text.Tokenizer(num_words=3).sequences_to_matrix([[1]], mode="tfidf"),
        "ValueError",
        "tfidf",
    ),
    "mode": (
        lambda p: p.text.Tokenizer(num_words=3).sequences_to_matrix([[1]], mode="bad"),
        "ValueError",
        "mode",
    ),
}


@pytest.mark.parametrize("case", list(TEXT_CASES))
def test_text(case):
    theirs, ours = _each(TEXT_CASES[case])
    _same(_result(theirs), ours)


@pytest.mark.parametrize("case", list(TEXT_ERRORS))
def test_text_errors(case):
    call, cls, word = TEXT_ERRORS[case]
    theirs, ours = _each(call)
    assert theirs[0] == ours[0] == cls
    assert word in theirs[1] and word in ours[1], (theirs, ours)


def test_one_hot_and_default_hash_within_a_process():
    """Python's ``hash`` differs between processes: compared within this one."""
    text = "Some words, some more WORDS"
    theirs, ours = _each(lambda p: (p.text.one_hot(text, 50), p.text.hashing_trick(text, 9)))
    _same(theirs, ours)
    with pytest.warns(UserWarning, match="num_words"):
        tok = jtf.keras.preprocessing.text.Tokenizer(nb_words=3)
    assert tok.num_words == 3


# -- image -------------------------------------------------------------------------------
_RS = np.random.RandomState(4)
_RGB = _RS.uniform(-3, 9, (5, 7, 3)).astype(np.float32)
_GRAY_BIG = _RS.uniform(0, 2000, (4, 3, 1))
_FIRST4 = _RS.uniform(0, 1, (4, 3, 2))


def _img(img: Any) -> Any:
    return (img.mode, img.size, np.asarray(img).copy())


IMAGE_CASES = {
    "rgb_scaled": lambda p: _img(p.image.array_to_img(_RGB)),
    "rgb_unscaled": lambda p: _img(p.image.array_to_img(np.abs(_RGB) * 20, scale=False)),
    "rgba_channels_first": lambda p: _img(
        p.image.array_to_img(_FIRST4, data_format="channels_first")
    ),
    "gray": lambda p: _img(p.image.array_to_img(_RGB[:, :, :1])),
    "gray_int32": lambda p: _img(p.image.array_to_img(_GRAY_BIG, scale=False)),
    "float64_dtype": lambda p: _img(p.image.array_to_img(_RGB, dtype="float64")),
    "to_array": lambda p: p.image.img_to_array(p.image.array_to_img(_RGB)),
    "to_array_first_dtype": lambda p: p.image.img_to_array(
        p.image.array_to_img(_RGB[:, :, :1]), data_format="channels_first", dtype="uint8"
    ),
    "to_array_2d": lambda p: p.image.img_to_array(np.ones((2, 3))),
}
IMAGE_ERRORS = {
    "rank": (lambda p: p.image.array_to_img(np.ones((2, 2))), "ValueError", "rank"),
    "format": (
        lambda p: p.image.array_to_img(_RGB, data_format="nhwc"),
        "ValueError",
        "data_format",
    ),
    "channels": (lambda p: p.image.array_to_img(np.ones((2, 2, 2))), "ValueError", "channel"),
    "to_array_format": (
        lambda p: p.image.img_to_array(np.ones((2, 2)), data_format="x"),
        "ValueError",
        "data_format",
    ),
    "to_array_shape": (lambda p: p.image.img_to_array(np.ones(3)), "ValueError", "shape"),
    "load_type": (lambda p: p.image.load_img(3), "TypeError", "path"),
}


@pytest.mark.parametrize("case", list(IMAGE_CASES))
def test_image_arrays(case):
    theirs, ours = _each(IMAGE_CASES[case])
    _same(_result(theirs), ours)


@pytest.mark.parametrize("case", list(IMAGE_ERRORS))
def test_image_errors(case):
    call, cls, word = IMAGE_ERRORS[case]
    theirs, ours = _each(call)
    assert theirs[0] == ours[0] == cls
    assert word in theirs[1] and word in ours[1], (theirs, ours)


def test_save_and_load_img(tmp_path):
    """The PNG files each writes (the same bytes; each reads the other's), and
    ``load_img``'s color modes, resizing and cropping."""
    rgba = _RS.uniform(0, 1, (6, 8, 4)).astype(np.float32)
    results = []
    for name, p in (("tf", tf1.keras.preprocessing), ("ours", jtf.keras.preprocessing)):
        d = tmp_path / name
        d.mkdir()
        p.image.save_img(str(d / "rgb.png"), _RGB)
        p.image.save_img(d / "rgba.png", rgba)
        p.image.save_img(str(d / "gray.bmp"), _RGB[:, :, :1], scale=False)
        buf = io.BytesIO()
        p.image.save_img(buf, _RGB, file_format="png")
        files = {f.name: f.read_bytes() for f in sorted(d.iterdir())}
        loads = {}
        for mode in ("rgb", "rgba", "grayscale"):
            loads[mode] = _img(p.image.load_img(str(d / "rgba.png"), color_mode=mode))
        loads["pathlib"] = _img(p.image.load_img(d / "rgb.png"))
        loads["bytesio"] = _img(p.image.load_img(io.BytesIO(buf.getvalue())))
        for interpolation in ("nearest", "bilinear", "bicubic", "lanczos", "box", "hamming"):
            loads[interpolation] = _img(
                p.image.load_img(
                    str(d / "rgba.png"), target_size=(3, 5), interpolation=interpolation
                )
            )
        loads["aspect"] = _img(
            p.image.load_img(str(d / "rgb.png"), target_size=(4, 2), keep_aspect_ratio=True)
        )
        loads["aspect_wide"] = _img(
            p.image.load_img(str(d / "rgb.png"), target_size=(2, 6), keep_aspect_ratio=True)
        )
        errors = []
        for kwargs in (
            dict(color_mode="cmyk"),
            dict(target_size=(2, 2), interpolation="x"),
        ):
            try:
                p.image.load_img(str(d / "rgb.png"), **kwargs)
            except ValueError as e:
                errors.append(str(e).split(" ")[0])
        with pytest.warns(UserWarning, match="grayscale"):
            loads["deprecated_grayscale"] = _img(p.image.load_img(d / "rgb.png", grayscale=True))
        results.append((files, buf.getvalue(), loads, errors))
    theirs, ours = results
    _same(theirs, ours)
    assert len(theirs[3]) == 2
    # each reads the other's files
    cross = jtf.keras.preprocessing.image.load_img(str(tmp_path / "tf" / "rgb.png"))
    _same(np.asarray(cross), theirs[2]["pathlib"][2])


# -- ImageDataGenerator ------------------------------------------------------------------
_IMAGES = np.random.RandomState(8).uniform(0, 255, (6, 9, 7, 3)).astype(np.float32)
_LABELS = np.array([0, 1, 0, 1, 1, 0])


def _flow_batches(p: Any, kwargs: dict[str, Any], flow: dict[str, Any], count: int = 3) -> Any:
    gen = p.image.ImageDataGenerator(**kwargs)
    it = gen.flow(_IMAGES, _LABELS, **flow)
    return {
        "len": len(it),
        "next": [next(it) for _ in range(count)],
        "getitem": it[1],
    }


GENERATOR_CASES = {
    "plain": (dict(), dict(batch_size=4, shuffle=False)),
    "shuffled_rescale": (dict(rescale=1 / 255.0), dict(batch_size=4)),
    "rotation_shift_zoom": (
        dict(rotation_range=30, width_shift_range=0.2, height_shift_range=2, zoom_range=0.3),
        dict(batch_size=3, seed=4),
    ),
    "shear_flips_fill": (
        dict(
            shear_range=20, horizontal_flip=True, vertical_flip=True, fill_mode="constant", cval=7.0
        ),
        dict(batch_size=5, shuffle=False),
    ),
    "shift_lists_reflect_order": (
        dict(
            width_shift_range=[1, 2],
            height_shift_range=[-1, 3],
            fill_mode="reflect",
            interpolation_order=3,
        ),
        dict(batch_size=2),
    ),
    "channel_brightness": (
        dict(channel_shift_range=40.0, brightness_range=(0.5, 1.5)),
        dict(batch_size=4, shuffle=False),
    ),
    "samplewise": (
        dict(samplewise_std_normalization=True, zoom_range=(0.8, 1.0)),
        dict(batch_size=4),
    ),
    "channels_first": (
        dict(data_format="channels_first", rotation_range=10, dtype="float64"),
        dict(batch_size=4, shuffle=False),
    ),
}


@pytest.mark.parametrize("case", list(GENERATOR_CASES))
def test_image_data_generator_flow(case):
    kwargs, flow = GENERATOR_CASES[case]
    if kwargs.get("data_format") == "channels_first":

        def call(p):
            gen = p.image.ImageDataGenerator(**kwargs)
            it = gen.flow(_IMAGES.transpose(0, 3, 1, 2), _LABELS, **flow)
            return [next(it) for _ in range(2)]

    else:

        def call(p):
            return _flow_batches(p, kwargs, flow)

    theirs, ours = _each(call, seed=21)
    _same(_result(theirs), ours)


def test_image_data_generator_fit_standardize_and_extras():
    """``fit`` (feature-wise statistics, ZCA, augmented rounds), ``standardize``,
    ``random_transform`` with a seed, subsets, passed-through arrays and sample
    weights, and the transform functions."""

    def call(p):
        out = {}
        gen = p.image.ImageDataGenerator(
            featurewise_center=True, featurewise_std_normalization=True, rotation_range=15
        )
        gen.fit(_IMAGES, augment=True, rounds=2, seed=3)
        out["mean_std"] = (gen.mean, gen.std)
        out["standardize"] = gen.standardize(_IMAGES[0].copy())
        zca = p.image.ImageDataGenerator(zca_whitening=True, zca_epsilon=0.1)
        zca.fit(_IMAGES[:, :3, :3, :])
        out["zca"] = (
            zca.mean,
            zca.zca_whitening_matrix,
            zca.standardize(_IMAGES[:2, :3, :3, :].copy()),
        )
        out["random_transform"] = gen.random_transform(_IMAGES[1], seed=9)
        out["params"] = gen.get_random_transform((9, 7, 3), seed=2)
        split = p.image.ImageDataGenerator(validation_split=0.5, width_shift_range=0.1)
        weights = np.arange(6.0)
        out["training"] = next(
            split.flow(
                (_IMAGES, [weights, weights * 2]),
                _LABELS,
                sample_weight=weights,
                subset="training",
                batch_size=2,
            )
        )
        out["validation"] = split.flow(_IMAGES, _LABELS, subset="validation", shuffle=False)[0]
        out["no_y"] = next(split.flow(_IMAGES, batch_size=4, shuffle=False))
        x = _IMAGES[0].transpose(2, 0, 1)
        out["functions"] = [
            p.image.random_rotation(x, 40),
            p.image.random_shift(x, 0.2, 0.3),
            p.image.random_shear(x, 25, fill_mode="wrap"),
            p.image.random_zoom(x, (0.7, 1.2)),
            p.image.random_channel_shift(x, 30.0),
            p.image.random_brightness(_IMAGES[0], (0.2, 0.9)),
            p.image.apply_affine_transform(
                _IMAGES[0],
                theta=12,
                tx=1,
                ty=-2,
                shear=5,
                zx=0.9,
                zy=1.1,
                row_axis=0,
                col_axis=1,
                channel_axis=2,
            ),
            p.image.apply_brightness_shift(_IMAGES[0] - 100, 1.3, scale=False),
        ]
        return out

    theirs, ours = _each(call, seed=5)
    assert isinstance(theirs, dict), theirs
    _same(theirs, ours)


IMAGE_GENERATOR_ERRORS = {
    "data_format": (
        lambda p: p.image.ImageDataGenerator(data_format="nchw"),
        "ValueError",
        "data_format",
    ),
    "validation_split": (
        lambda p: p.image.ImageDataGenerator(validation_split=1.5),
        "ValueError",
        "validation_split",
    ),
    "zoom_range": (
        lambda p: p.image.ImageDataGenerator(zoom_range=(1, 2, 3)),
        "ValueError",
        "zoom_range",
    ),
    "brightness_range": (
        lambda p: p.image.ImageDataGenerator(brightness_range=0.5),
        "ValueError",
        "brightness_range",
    ),
    "rank": (lambda p: p.image.ImageDataGenerator().flow(np.ones((2, 3, 3))), "ValueError", "rank"),
    "fit_rank": (
        lambda p: p.image.ImageDataGenerator().fit(np.ones((2, 3, 3))),
        "ValueError",
        "rank",
    ),
    "lengths": (
        lambda p: p.image.ImageDataGenerator().flow(_IMAGES, _LABELS[:2]),
        "ValueError",
        "same length",
    ),
    "subset": (
        lambda p: p.image.ImageDataGenerator(validation_split=0.5).flow(_IMAGES, subset="test"),
        "ValueError",
        "subset",
    ),
    "getitem": (
        lambda p: p.image.ImageDataGenerator().flow(_IMAGES, batch_size=4)[2],
        "ValueError",
        "length",
    ),
    "axes": (
        lambda p: p.image.apply_affine_transform(_IMAGES[0], theta=3, channel_axis=1),
        "ValueError",
        "distinct",
    ),
    "random_zoom": (
        lambda p: p.image.random_zoom(_IMAGES[0], (1, 2, 3)),
        "ValueError",
        "zoom_range",
    ),
}


@pytest.mark.parametrize("case", list(IMAGE_GENERATOR_ERRORS))
def test_image_data_generator_errors(case):
    call, cls, word = IMAGE_GENERATOR_ERRORS[case]
    theirs, ours = _each(call)
    assert theirs[0] == ours[0] == cls
    assert word in theirs[1] and word in ours[1], (theirs, ours)


@pytest.mark.parametrize("workers", [0, 1])
def test_fit_generator_on_image_data_generator_flow(workers):
    """The TF1 augmentation recipe: ``fit_generator(datagen.flow(x, y), steps_per_epoch=
    len(x) / batch_size)`` (a float), the batches shuffled (Python's ``random``) and
    augmented (NumPy's stream) as TF's; History and weights as TF's."""

    def body(tf):
        random.seed(2)
        datagen = tf.keras.preprocessing.image.ImageDataGenerator(
            rotation_range=20, width_shift_range=0.1, horizontal_flip=True, rescale=1 / 255.0
        )
        m = tf.keras.Sequential(
            [tf.keras.layers.Flatten(input_shape=(9, 7, 3)), tf.keras.layers.Dense(1)]
        )
        _fix(m)
        m.compile(tf.train.GradientDescentOptimizer(0.01), "mse")
        h = m.fit_generator(
            datagen.flow(_IMAGES, _LABELS.astype(np.float32), batch_size=4),
            steps_per_epoch=len(_IMAGES) / 4,
            epochs=3,
            verbose=0,
            workers=workers,
        )
        return {"history": h.history, "weights": m.get_weights()}

    theirs, ours = _both(body)
    _close(theirs, ours)


def _image_tree(root: Any) -> None:
    """Two classes of small PNG/JPEG/BMP images (other files ignored), a nested
    folder, a third class directory."""
    from PIL import Image

    rs = np.random.RandomState(12)
    for cls, count in (("cats", 3), ("dogs", 4), ("zebras", 1)):
        (root / cls / "more").mkdir(parents=True)
        for i in range(count):
            pixels = rs.randint(0, 256, (10 + i, 12, 3)).astype(np.uint8)
            ext = ("png", "jpg", "bmp")[i % 3]
            folder = root / cls / ("more" if i == 2 else "")
            Image.fromarray(pixels).save(folder / f"{cls}{i}.{ext}")
        (root / cls / "notes.txt").write_text("not an image")


DIRECTORY_CASES = {
    "categorical": (dict(), dict(target_size=(8, 6), batch_size=3, shuffle=False)),
    "binary_classes_seed": (
        dict(rotation_range=15, horizontal_flip=True),
        dict(
            target_size=(5, 5), classes=["dogs", "cats"], class_mode="binary", seed=3, batch_size=2
        ),
    ),
    "sparse_grayscale_bilinear": (
        dict(rescale=1 / 255.0),
        dict(
            target_size=(6, 6),
            color_mode="grayscale",
            class_mode="sparse",
            interpolation="bilinear",
        ),
    ),
    "input_rgba_aspect": (
        dict(),
        dict(
            target_size=(4, 7),
            color_mode="rgba",
            class_mode="input",
            keep_aspect_ratio=True,
            shuffle=False,
        ),
    ),
    "none_subsets": (
        dict(validation_split=0.5),
        dict(target_size=(4, 4), class_mode=None, subset="training", shuffle=False),
    ),
    "validation_subset": (
        dict(validation_split=0.5, zoom_range=0.2),
        dict(target_size=(4, 4), subset="validation", batch_size=2),
    ),
}


@pytest.mark.parametrize("case", list(DIRECTORY_CASES))
def test_flow_from_directory(case, tmp_path, capsys):
    _image_tree(tmp_path)
    kwargs, flow = DIRECTORY_CASES[case]

    def call(p):
        it = p.image.ImageDataGenerator(**kwargs).flow_from_directory(str(tmp_path), **flow)
        return {
            "filenames": it.filenames,
            "classes": it.classes,
            "class_indices": it.class_indices,
            "samples": (it.samples, it.num_classes, len(it)),
            "batches": [next(it) for _ in range(len(it) + 1)],
            "first": it[0],
        }

    theirs, ours = _each(call, seed=7)
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == printed[1] and printed[0].startswith("Found ")
    _same(_result(theirs), ours)


def test_flow_from_directory_errors(tmp_path):
    _image_tree(tmp_path)
    for kwargs, word in (
        (dict(color_mode="cmyk"), "color mode"),
        (dict(class_mode="multi"), "class_mode"),
        (dict(subset="test"), "subset"),
    ):
        theirs, ours = _each(
            lambda p, kw=kwargs: p.image.ImageDataGenerator().flow_from_directory(
                str(tmp_path), **kw
            )
        )
        assert theirs[0] == ours[0] == "ValueError"
        assert word in theirs[1] and word in ours[1], (theirs, ours)
