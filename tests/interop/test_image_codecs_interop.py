"""TF's image codecs (``tf.io.decode_png``, ``decode_jpeg``, ``encode_png``...) under TF
2.21's ``compat.v1`` and under ``adapters.v1`` (``twin.py``): decoded values bit for bit,
dtypes, static shapes and TF's errors.

PNG files of every colour type, bit depth and ``tRNS`` chunk, plain and Adam7
interlaced, are written sample by sample with zlib (``jtrain.image.png.write``) and by
TF's ``encode_png``; JPEG files by TF's ``encode_jpeg``; GIF files by Pillow; BMP
files byte by byte. Before ``adapters/v1/ops/image_codecs.py`` every name here raised
AttributeError ("no image codecs in jtrain").
"""

from __future__ import annotations

import io
import struct
import warnings

import numpy as np
import PIL.Image
import pytest
import tensorflow as real_tf

from adapters.v1.ops import image_codecs
from jtrain.image import png
from tests.interop.twin import assert_twins, run_both

pytestmark = pytest.mark.interop

RNG = np.random.default_rng(0)


def _png_cases() -> list[tuple[str, bytes]]:
    """One small PNG file of each kind the format allows."""
    rng = np.random.default_rng(1)
    out = []
    for interlace in (False, True):
        h, w = (11, 13) if interlace else (5, 7)
        for color, depths in png._DEPTHS.items():
            n = png._SAMPLES[color]
            for d in depths:
                tag = f"color{color}-{d}bit{'-interlaced' if interlace else ''}"
                if color == png.PALETTE:
                    size = min(1 << d, 6)
                    idx = rng.integers(0, size, (h, w, 1))
                    pal = rng.integers(0, 256, (size, 3))
                    trns = bytes(rng.integers(0, 256, max(1, size - 2)).astype(np.uint8))
                    out.append((tag, png.write(idx, color, d, palette=pal, interlace=interlace)))
                    out.append(
                        (
                            tag + "-tRNS",
                            png.write(idx, color, d, palette=pal, trns=trns, interlace=interlace),
                        )
                    )
                    continue
                s = rng.integers(0, 1 << d, (h, w, n))
                if n >= 3:
                    s[0, :, 1] = s[0, :, 2] = s[0, :, 0]  # gray pixels in a colour image
                out.append((tag, png.write(s, color, d, interlace=interlace)))
                if color in (png.GRAY, png.RGB):
                    key = struct.pack(f">{n}H", *(int(v) for v in s[1, 1]))
                    out.append(
                        (tag + "-tRNS", png.write(s, color, d, trns=key, interlace=interlace))
                    )
    for dtype in (np.uint8, np.uint16):
        top = np.iinfo(dtype).max
        for c in (1, 2, 3, 4):
            img = rng.integers(0, top + 1, (6, 9, c)).astype(dtype)
            data = real_tf.io.encode_png(img).numpy()
            out.append((f"tf-encoded-{np.dtype(dtype).name}-{c}", data))
    return out


PNG_CASES = _png_cases()


def _signature(t):
    return (t.shape.as_list() if t.shape.rank is not None else None, t.dtype.name)


def _decode_script(data: bytes, build):
    """A script decoding fed ``data`` with each of ``build(tf, s)``'s ops."""

    def script(tf):
        s = tf.placeholder(tf.string, [])
        ops = build(tf, s)
        sigs = {k: _signature(v) for k, v in ops.items()}
        return lambda sess: (sess.run(ops, {s: data}), sigs)

    return script


def _png_ops(tf, s):
    return {
        f"{c}-{dt}": tf.io.decode_png(s, channels=c, dtype=getattr(tf, dt))
        for c in (0, 1, 3, 4)
        for dt in ("uint8", "uint16")
    }


@pytest.mark.parametrize(("name", "data"), PNG_CASES, ids=[n for n, _ in PNG_CASES])
def test_decode_png_matches_tf(name, data):
    theirs, ours = run_both(_decode_script(data, _png_ops))
    assert ours[1] == theirs[1]
    assert_twins(theirs[0], ours[0], rtol=0)


def _image(h, w, c, dtype=np.uint8, seed=0):
    """A smooth image with noise (JPEG-like content)."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    base = np.stack([(x * 7 + y * 3) % 256, (x * x + y * 5) % 256, (x * y) % 256][:c], -1)
    if c == 4:
        base = np.concatenate([base, (x + y)[..., None] * 9 % 256], -1)
    if c == 2:
        base = np.stack([(x * 7 + y * 3) % 256, (x + y) * 9 % 256], -1)
    img = np.clip(base + rng.normal(0, 20, base.shape), 0, 255)
    return (img * 257).astype(np.uint16) if dtype == np.uint16 else img.astype(np.uint8)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
@pytest.mark.parametrize("compression", [-1, 0, 9])
def test_encode_png_decodes_in_tf_to_the_image(dtype, compression):
    images = [_image(7, 10, c, dtype, seed=c) for c in (1, 2, 3, 4)]

    def script(tf):
        encoded = [tf.io.encode_png(tf.constant(img), compression=compression) for img in images]
        sigs = [_signature(e) for e in encoded]
        return lambda sess: (sess.run(encoded), sigs)

    (theirs, their_sigs), (ours, our_sigs) = run_both(script)
    assert our_sigs == their_sigs == [([], "string")] * 4
    for img, data in zip(images, ours, strict=True):
        decoded = real_tf.io.decode_png(data, dtype=real_tf.as_dtype(dtype)).numpy()
        np.testing.assert_array_equal(decoded, img)
        assert decoded.dtype == img.dtype
    assert ours == theirs  # the same bytes (libpng's filters, zlib window, IDAT chunks)


@pytest.mark.parametrize("compression", [-1, 1, 9])
@pytest.mark.parametrize("shape", [(1, 1, 1), (64, 80, 3), (120, 150, 4)])
def test_encode_png_bytes_equal_tf(shape, compression):
    y, x = np.mgrid[0 : shape[0], 0 : shape[1]]
    base = np.stack([(x * 3 + y) % 256, (x * y) % 256, (x + y * 2) % 256, x % 256], -1)
    noise = np.random.default_rng(compression + 2).normal(0, 3, shape)
    img = np.clip(base[..., : shape[2]] + noise, 0, 255).astype(np.uint8)

    def script(tf):
        encoded = tf.io.encode_png(tf.constant(img), compression=compression)
        return lambda sess: sess.run(encoded)

    theirs, ours = run_both(script)
    assert ours == theirs


def _tf_message(run) -> tuple[type, str]:
    try:
        run()
    except Exception as e:  # noqa: BLE001
        return type(e), getattr(e, "message", str(e))
    raise AssertionError("no error")


def _errors_twin(build, feed: bytes | None = None):
    """(TF's error class name and message, jtrain's)."""
    from adapters import v1 as jtf

    out = []
    for tf in (real_tf.compat.v1, jtf):
        graph = tf.Graph()
        with graph.as_default():
            s = tf.placeholder(tf.string, [])
            t = build(tf, s)
            with tf.Session(graph=graph) as sess:
                kind, message = _tf_message(lambda t=t, s=s, sess=sess: sess.run(t, {s: feed}))
        out.append((kind.__name__, message))
    return out


GOOD_PNG = png.encode(_image(4, 5, 3))
GOOD_JPEG = real_tf.io.encode_jpeg(_image(9, 9, 3)).numpy()
_BAD_TYPE = bytearray(GOOD_PNG)
_BAD_TYPE[40] ^= 1  # IDAT's name: an unknown critical chunk

ERROR_CASES = {
    "garbage": (lambda tf, s: tf.io.decode_png(s), b"garbage"),
    "empty": (lambda tf, s: tf.io.decode_png(s), b""),
    "header cut": (lambda tf, s: tf.io.decode_png(s), GOOD_PNG[:20]),
    "data cut": (lambda tf, s: tf.io.decode_png(s), GOOD_PNG[:-20]),
    "no IEND": (lambda tf, s: tf.io.decode_png(s), GOOD_PNG[:-12]),
    "unknown critical chunk": (lambda tf, s: tf.io.decode_png(s), bytes(_BAD_TYPE)),
    "channels 2": (lambda tf, s: tf.io.decode_png(s, channels=2), GOOD_PNG),
    "channels 5": (lambda tf, s: tf.io.decode_png(s, channels=5), GOOD_PNG),
    "png in decode_bmp": (lambda tf, s: tf.io.decode_bmp(s), GOOD_PNG),
    "png in decode_and_crop_jpeg": (
        lambda tf, s: tf.io.decode_and_crop_jpeg(s, [0, 0, 1, 1]),
        GOOD_PNG,
    ),
    "jpeg garbage": (lambda tf, s: tf.io.decode_jpeg(s), b"\xff\xd8\xffgarbage"),
    "jpeg cut": (lambda tf, s: tf.io.decode_jpeg(s), GOOD_JPEG[: len(GOOD_JPEG) // 2]),
    "jpeg 4 channels": (lambda tf, s: tf.io.decode_jpeg(s, channels=4), GOOD_JPEG),
    "jpeg ratio 3": (lambda tf, s: tf.io.decode_jpeg(s, ratio=3), GOOD_JPEG),
    "jpeg dct_method": (lambda tf, s: tf.io.decode_jpeg(s, dct_method="X"), GOOD_JPEG),
    "jpeg in decode_bmp": (lambda tf, s: tf.io.decode_bmp(s), GOOD_JPEG),
    "crop outside": (
        lambda tf, s: tf.io.decode_and_crop_jpeg(s, [0, 0, 10, 10], dct_method="INTEGER_ACCURATE"),
        GOOD_JPEG,
    ),
    "extract_jpeg_shape of png": (lambda tf, s: tf.io.extract_jpeg_shape(s), GOOD_PNG),
    "decode_image unknown": (lambda tf, s: tf.io.decode_image(s), b"xxxx"),
    "encode_png compression 10": (
        lambda tf, s: tf.io.encode_png(tf.zeros([2, 2, 3], tf.uint8), compression=10),
        b"",
    ),
    "encode_png 5 channels": (lambda tf, s: tf.io.encode_png(tf.zeros([2, 2, 5], tf.uint8)), b""),
    "encode_jpeg 2 channels": (
        lambda tf, s: tf.io.encode_jpeg(tf.zeros([2, 2, 2], tf.uint8)),
        b"",
    ),
    "encode_jpeg quality 101": (
        lambda tf, s: tf.io.encode_jpeg(tf.zeros([2, 2, 3], tf.uint8), quality=101),
        b"",
    ),
    "encode_jpeg grayscale of rgb": (
        lambda tf, s: tf.io.encode_jpeg(tf.zeros([2, 2, 3], tf.uint8), format="grayscale"),
        b"",
    ),
}


@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_run_time_errors_as_tf(case):
    build, feed = ERROR_CASES[case]
    (their_kind, theirs), (our_kind, ours) = _errors_twin(build, feed)
    assert our_kind == their_kind == "InvalidArgumentError"
    assert ours in theirs, (ours, theirs)


BUILD_ERRORS = {
    "vector contents": (ValueError, lambda tf: tf.io.decode_png(tf.constant([GOOD_PNG] * 2))),
    "float32 dtype": (TypeError, lambda tf: tf.io.decode_png(GOOD_PNG, dtype=tf.float32)),
    "encode float": (TypeError, lambda tf: tf.io.encode_png(tf.zeros([2, 2, 3]))),
    "encode rank 2": (ValueError, lambda tf: tf.io.encode_png(tf.zeros([2, 2], tf.uint8))),
    "crop window of 3": (
        ValueError,
        lambda tf: tf.io.decode_and_crop_jpeg(GOOD_JPEG, tf.constant([0, 0, 9])),
    ),
    "crop window rank 2": (
        ValueError,
        lambda tf: tf.io.decode_and_crop_jpeg(GOOD_JPEG, tf.constant([[0, 0, 9, 9]])),
    ),
    "encode_jpeg format": (
        ValueError,
        lambda tf: tf.io.encode_jpeg(tf.zeros([2, 2, 3], tf.uint8), format="bad"),
    ),
}


@pytest.mark.parametrize("case", list(BUILD_ERRORS))
def test_graph_build_errors_as_tf(case):
    from adapters import v1 as jtf

    kind, build = BUILD_ERRORS[case]
    messages = []
    for tf in (real_tf.compat.v1, jtf):
        with tf.Graph().as_default(), pytest.raises(kind) as info:
            build(tf)
        messages.append(str(info.value))
    if kind is ValueError:  # TF's shape-function messages: the same first words
        assert messages[1].split(" for ")[0] == messages[0].split(" for ")[0]


# -- JPEG -------------------------------------------------------------------------------


def _jpeg_cases() -> list[tuple[str, bytes]]:
    out = []
    for h, w in ((17, 23), (48, 64)):
        for c in (1, 3):
            img = _image(h, w, c, seed=h + c)
            for q in (50, 90):
                for sub in (True, False) if c == 3 else (True,):
                    data = real_tf.io.encode_jpeg(img, quality=q, chroma_downsampling=sub)
                    out.append((f"{h}x{w}x{c}-q{q}-{'420' if sub else '444'}", data.numpy()))
    img = _image(21, 30, 3, seed=7)
    for options in ({"progressive": True}, {"optimize_size": True}):
        data = real_tf.io.encode_jpeg(img, quality=80, **options).numpy()
        out.append((f"21x30x3-q80-420-{next(iter(options))}", data))
    return out


JPEG_CASES = _jpeg_cases()


def _jpeg_ops(tf, s):
    ops = {
        f"{c}-ratio{r}": tf.io.decode_jpeg(s, channels=c, ratio=r, dct_method="INTEGER_ACCURATE")
        for c in (0, 1, 3)
        for r in (1, 2, 4, 8)
    }
    ops["shape"] = tf.io.extract_jpeg_shape(s)
    ops["shape64"] = tf.io.extract_jpeg_shape(s, output_type=tf.int64)
    ops["is_jpeg"] = tf.io.is_jpeg(s)
    return ops


@pytest.mark.parametrize(("name", "data"), JPEG_CASES, ids=[n for n, _ in JPEG_CASES])
def test_decode_jpeg_integer_accurate_matches_tf(name, data):
    theirs, ours = run_both(_decode_script(data, _jpeg_ops))
    assert ours[1] == theirs[1]
    assert_twins(theirs[0], ours[0], rtol=0)


# Without chroma subsampling (see decode_and_crop_jpeg's note on 4:2:0 files).
UNSUBSAMPLED = [(n, d) for n, d in JPEG_CASES if "x1-" in n or n.endswith("444")]


@pytest.mark.parametrize(("name", "data"), UNSUBSAMPLED, ids=[n for n, _ in UNSUBSAMPLED])
def test_decode_and_crop_jpeg_without_subsampling_matches_tf(name, data):
    h, w = (17, 23) if name.startswith("17") else (48, 64)

    def build(tf, s):
        return {
            str(win): tf.io.decode_and_crop_jpeg(s, win, dct_method="INTEGER_ACCURATE", channels=c)
            for win in ([0, 0, h, w], [3, 5, h - 4, w - 7], [1, 8, 8, 8])
            for c in (0, 3)
        }

    theirs, ours = run_both(_decode_script(data, build))
    assert ours[1] == theirs[1]
    assert_twins(theirs[0], ours[0], rtol=0)


def test_decode_jpeg_default_dct_method_warns(monkeypatch):
    """TF's default is INTEGER_FAST (its kernel maps "" to JDCT_IFAST): jtrain says it
    decodes with INTEGER_ACCURATE instead."""
    from adapters import v1 as jtf

    monkeypatch.setattr(image_codecs, "_warned", set())
    with jtf.Graph().as_default():
        image = jtf.io.decode_jpeg(JPEG_CASES[0][1])
        with jtf.Session() as sess, pytest.warns(UserWarning, match="INTEGER_ACCURATE"):
            sess.run(image)
    monkeypatch.setattr(image_codecs, "_warned", set())
    with jtf.Graph().as_default():
        image = jtf.io.decode_jpeg(JPEG_CASES[0][1], dct_method="INTEGER_ACCURATE")
        with jtf.Session() as sess, warnings.catch_warnings():
            warnings.simplefilter("error")
            sess.run(image)


ENCODE_JPEG_OPTIONS = [
    {},
    {"quality": 50},
    {"quality": 90, "chroma_downsampling": False},
    {"progressive": True},
    {"optimize_size": True},
    {"x_density": 72, "y_density": 96},
    {"format": "rgb", "quality": 75},
]


@pytest.mark.parametrize("options", ENCODE_JPEG_OPTIONS, ids=str)
@pytest.mark.parametrize("channels", [1, 3])
def test_encode_jpeg_bytes_equal_tf(options, channels):
    if channels == 1 and options.get("format") == "rgb":
        options = {**options, "format": "grayscale"}
    img = _image(19, 26, channels, seed=channels)

    def script(tf):
        encoded = tf.io.encode_jpeg(tf.constant(img), **options)
        return lambda sess: (sess.run(encoded), _signature(encoded))

    theirs, ours = run_both(script)
    assert ours[1] == theirs[1] == ([], "string")
    assert ours[0] == theirs[0]


# -- GIF and BMP ------------------------------------------------------------------------


def _gif(frames: int) -> bytes:
    images = []
    for f in range(frames):
        img = _image(9, 11, 3, seed=f)
        img[0, 0] = img[-1, -1] = (f * 40, 0, 0)  # frames differ corner to corner: whole
        images.append(PIL.Image.fromarray(img))
    buf = io.BytesIO()
    images[0].save(buf, "GIF", save_all=frames > 1, append_images=images[1:], optimize=False)
    return buf.getvalue()


def _bmp(pixels: np.ndarray, top_down: bool = False) -> bytes:
    """A BMP file of ``pixels`` ``[h, w, 1|3|4]`` (stored BGR(A), rows padded to 4)."""
    h, w, c = pixels.shape
    stored = pixels[..., ::-1] if c >= 3 else pixels
    if c == 4:
        stored = np.concatenate([pixels[..., 2::-1], pixels[..., 3:]], axis=-1)
    row = w * c
    pad = (-row) % 4
    rows = stored.reshape(h, row)
    if not top_down:
        rows = rows[::-1]
    body = b"".join(r.tobytes() + b"\0" * pad for r in rows)
    header = 54
    info = struct.pack(
        "<IiiHHIIiiII", 40, w, -h if top_down else h, 1, c * 8, 0, len(body), 2835, 2835, 0, 0
    )
    return b"BM" + struct.pack("<IHHI", header + len(body), 0, 0, header) + info + body


BMP_CASES = {
    "24-bit": _bmp(_image(5, 7, 3)),
    "32-bit top-down": _bmp(_image(6, 5, 4), top_down=True),
    "8-bit": _bmp(_image(4, 6, 1)),
}


@pytest.mark.parametrize("name", list(BMP_CASES))
def test_decode_bmp_matches_tf(name):
    def build(tf, s):
        ops = {str(c): tf.io.decode_bmp(s, channels=c) for c in (0, 3, 4)}
        ops["image"] = tf.io.decode_image(s)
        if "top-down" not in name:  # TF 2.21 aborts the process (a negative buffer size)
            ops["image float"] = tf.io.decode_image(s, dtype=tf.float32, expand_animations=False)
            ops["image uint16"] = tf.io.decode_image(s, channels=3, dtype=tf.uint16)
        return ops

    theirs, ours = run_both(_decode_script(BMP_CASES[name], build))
    assert ours[1] == theirs[1]
    assert_twins(theirs[0], ours[0], rtol=0)


@pytest.mark.parametrize("frames", [1, 3])
def test_decode_gif_matches_tf(frames):
    data = _gif(frames)

    def build(tf, s):
        ops = {
            "gif": tf.io.decode_gif(s),
            "image": tf.io.decode_image(s),
            "image first": tf.io.decode_image(s, expand_animations=False),
            "image float": tf.io.decode_image(s, dtype=tf.float32),
        }
        if frames == 1:
            ops["png of gif"] = tf.io.decode_png(s, dtype=tf.uint16)
        return ops

    theirs, ours = run_both(_decode_script(data, build))
    assert ours[1] == theirs[1]
    assert_twins(theirs[0], ours[0], rtol=0)


def test_animated_gif_in_decode_png_is_tf_error():
    (their_kind, theirs), (our_kind, ours) = _errors_twin(
        lambda tf, s: tf.io.decode_png(s), _gif(3)
    )
    assert our_kind == their_kind == "InvalidArgumentError"
    assert ours in theirs


# -- decode_image and pipelines ----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "data"),
    [PNG_CASES[i] for i in (0, 4, 9, 20)] + [("tf-16", PNG_CASES[-1][1])],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_decode_image_of_png_matches_tf(name, data):
    def build(tf, s):
        ops = {
            f"{c}-{dt}-{expand}": tf.io.decode_image(
                s, channels=c, dtype=getattr(tf, dt), expand_animations=expand
            )
            for c in (None, 1, 3, 4)
            for dt in ("uint8", "uint16", "float32", "float64", "int32")
            for expand in (True, False)
        }
        # TF's one kernel: decode_jpeg and decode_gif read PNG files too.
        ops.update({f"jpeg op {c}": tf.io.decode_jpeg(s, channels=c) for c in (0, 1, 3)})
        ops["gif op"] = tf.io.decode_gif(s)
        return ops

    theirs, ours = run_both(_decode_script(data, build))
    assert ours[1] == theirs[1]
    assert_twins(theirs[0], ours[0], rtol=0)


def test_dataset_map_decodes_images_of_different_sizes(tmp_path):
    pngs = [png.encode(_image(3 + i, 4 + 2 * i, 3, seed=i)) for i in range(3)]
    paths = []
    for i, (_, data) in enumerate(JPEG_CASES[:3]):
        path = tmp_path / f"{i}.jpg"
        path.write_bytes(data)
        paths.append(str(path))

    def script(tf):
        ds = tf.data.Dataset.from_tensor_slices(pngs).map(lambda s: tf.image.decode_png(s, 3))
        files = tf.data.Dataset.from_tensor_slices(paths).map(
            lambda p: tf.image.decode_jpeg(tf.read_file(p), 3, dct_method="INTEGER_ACCURATE")
        )
        a = ds.make_one_shot_iterator().get_next()
        b = files.make_one_shot_iterator().get_next()
        sigs = [_signature(a), _signature(b)]
        return lambda sess: ([sess.run(a) for _ in pngs], [sess.run(b) for _ in paths], sigs)

    theirs, ours = run_both(script)
    assert ours[2] == theirs[2] == [([None, None, 3], "uint8")] * 2
    assert_twins(theirs[:2], ours[:2], rtol=0)


@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64"])
def test_adjust_jpeg_quality_matches_tf(dtype):
    images = [_image(10, 13, 3, seed=5), _image(9, 8, 1, seed=6)]

    def script(tf):
        fed = tf.placeholder(getattr(tf, dtype), [10, 13, 3])
        quality = tf.placeholder(tf.int32, [])
        outs = [tf.image.adjust_jpeg_quality(fed, quality, dct_method="INTEGER_ACCURATE")]
        gray = images[1] if dtype == "uint8" else images[1] / 255.0
        ds = tf.data.Dataset.from_tensors(gray.astype(dtype)).map(
            lambda i: tf.image.adjust_jpeg_quality(i, 30, dct_method="INTEGER_ACCURATE")
        )
        outs.append(ds.make_one_shot_iterator().get_next())
        sigs = [_signature(o) for o in outs]
        value = images[0] if dtype == "uint8" else images[0] / 255.0
        feed = {fed: value.astype(dtype), quality: 60}
        return lambda sess: (sess.run(outs, feed), sigs)

    theirs, ours = run_both(script)
    assert ours[1] == theirs[1]
    assert_twins(theirs[0], ours[0], rtol=0)


def test_random_jpeg_quality_arguments_as_tf():
    from adapters import v1 as jtf

    img = _image(4, 4, 3)
    for low, high in ((-1, 50), (10, 101), (50, 50), (60, 20)):
        messages = []
        for tf in (real_tf.compat.v1, jtf):
            with tf.Graph().as_default(), pytest.raises(ValueError) as info:
                tf.image.random_jpeg_quality(img, low, high)
            messages.append(str(info.value))
        assert messages[0] == messages[1]
    for tf in (real_tf.compat.v1, jtf):
        with tf.Graph().as_default():
            out = tf.image.random_jpeg_quality(tf.constant(img), 20, 80)
            assert _signature(out) == ([None, None, 3], "uint8")


GAMMA_CHUNKS = {
    "gAMA 1/2.2": (b"gAMA", struct.pack(">I", 45455)),
    "gAMA 1.0": (b"gAMA", struct.pack(">I", 100000)),
    "sRGB": (b"sRGB", b"\x00"),
}


@pytest.mark.parametrize("chunk", list(GAMMA_CHUNKS))
@pytest.mark.parametrize("depth", [8, 16])
def test_png_gamma_chunks(chunk, depth):
    """libpng ignores gAMA/sRGB under TF's settings except in colour -> gray, which it
    computes in linear light: jtrain matches TF elsewhere and refuses that case."""
    samples = np.random.default_rng(depth).integers(0, 1 << depth, (6, 7, 3))
    data = png.write(samples, png.RGB, depth, extra_chunks=(GAMMA_CHUNKS[chunk],))

    def build(tf, s):
        return {
            f"{c}-{dt}": tf.io.decode_png(s, channels=c, dtype=getattr(tf, dt))
            for c in (0, 3, 4)
            for dt in ("uint8", "uint16")
        }

    theirs, ours = run_both(_decode_script(data, build))
    assert_twins(theirs[0], ours[0], rtol=0)
    gray = _decode_script(data, lambda tf, s: {"gray": tf.io.decode_png(s, channels=1)})
    if chunk == "gAMA 1.0":
        theirs, ours = run_both(gray)
        assert_twins(theirs[0], ours[0], rtol=0)
    else:
        from adapters import v1 as jtf
        from tests.interop.twin import run_once

        with pytest.raises(NotImplementedError, match="linear light"):
            run_once(jtf, gray)


@pytest.mark.parametrize("disposal", [0, 1])
def test_decode_gif_partial_frames_match_tf(disposal):
    base = np.stack([np.random.default_rng(2).integers(0, 4, (12, 14)) * 60] * 3, -1)
    frames = []
    for f in range(3):
        img = base.astype(np.uint8)
        img[2 + f : 5 + f, 3:9] = f * 70  # only this rectangle changes: partial frames
        frames.append(PIL.Image.fromarray(img))
    buf = io.BytesIO()
    frames[0].save(buf, "GIF", save_all=True, append_images=frames[1:], disposal=disposal)
    data = buf.getvalue()
    probe = PIL.Image.open(io.BytesIO(data))
    probe.seek(1)
    assert probe.tile[0][1] != (0, 0, 14, 12)  # the file really holds a partial frame

    def build(tf, s):
        return {"gif": tf.io.decode_gif(s), "image": tf.io.decode_image(s)}

    theirs, ours = run_both(_decode_script(data, build))
    assert ours[1] == theirs[1]
    assert_twins(theirs[0], ours[0], rtol=0)


def test_decode_gif_with_transparency_raises():
    from adapters import v1 as jtf
    from tests.interop.twin import run_once

    img = PIL.Image.fromarray(_image(6, 6, 3))
    buf = io.BytesIO()
    img.save(buf, "GIF", transparency=0)
    script = _decode_script(buf.getvalue(), lambda tf, s: {"gif": tf.io.decode_gif(s)})
    with pytest.raises(NotImplementedError, match="transparency"):
        run_once(jtf, script)
