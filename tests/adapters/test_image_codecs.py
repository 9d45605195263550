"""TF's image codecs as host ops (``adapters/v1/ops/image_codecs.py``): round trips,
static shapes, the places they run (fed strings, ``tf.data`` map functions, queue
pipelines reading files) and the errors for what jtrain does not reproduce. Values
against TF 2.21 are checked live in ``tests/interop/test_image_codecs_interop.py``.
"""

from __future__ import annotations

import struct
import sys

import numpy as np
import pytest

from adapters import v1 as tf
from jtrain.image import png

RNG = np.random.default_rng(0)


def _image(h, w, c, dtype=np.uint8):
    return RNG.integers(0, np.iinfo(dtype).max + 1, (h, w, c)).astype(dtype)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
@pytest.mark.parametrize("channels", [1, 2, 3, 4])
def test_encode_png_then_decode_png_gives_the_image(graph, dtype, channels):
    img = _image(6, 9, channels, dtype)
    encoded = [tf.io.encode_png(tf.constant(img), compression=c) for c in (-1, 0, 9)]
    decoded = [tf.image.decode_png(e, dtype=tf.as_dtype(dtype)) for e in encoded]
    assert encoded[0].shape.as_list() == [] and encoded[0].dtype == tf.string
    assert decoded[0].shape.as_list() == [None, None, None]
    with tf.Session() as sess:
        files, images = sess.run([encoded, decoded])
    for data, out in zip(files, images, strict=True):
        assert data.startswith(png.SIGNATURE)
        assert out.dtype == dtype
        np.testing.assert_array_equal(out, img)
    assert len(files[2]) <= len(files[1])  # level 9 compresses, level 0 stores


@pytest.mark.parametrize("depth", [1, 2, 4, 8, 16])
def test_interlaced_png_decodes_as_the_plain_one(depth):
    samples = RNG.integers(0, 1 << depth, (13, 11, 1))
    plain = png.write(samples, png.GRAY, depth)
    adam7 = png.write(samples, png.GRAY, depth, interlace=True)
    assert adam7 != plain
    for bits in (8, 16):
        np.testing.assert_array_equal(png.decode(adam7, 1, bits), png.decode(plain, 1, bits))


def test_static_shapes_and_dtypes(graph):
    s = tf.placeholder(tf.string, [])
    assert tf.io.decode_png(s, channels=3).shape.as_list() == [None, None, 3]
    assert tf.io.decode_png(s, dtype=tf.uint16).dtype == tf.uint16
    assert tf.io.decode_jpeg(s, channels=1).shape.as_list() == [None, None, 1]
    assert tf.io.decode_bmp(s).shape.as_list() == [None, None, None]
    assert tf.io.decode_gif(s).shape.as_list() == [None, None, None, 3]
    assert tf.io.decode_image(s).shape.ndims is None
    no_anim = tf.io.decode_image(s, channels=4, expand_animations=False)
    assert no_anim.shape.as_list() == [None, None, 4]
    assert tf.io.decode_image(s, dtype=tf.float64).dtype == tf.float64
    assert tf.io.decode_and_crop_jpeg(s, [0, 0, 5, 6], channels=3).shape.as_list() == [5, 6, 3]
    shape = tf.io.extract_jpeg_shape(s, output_type=tf.int64)
    assert shape.shape.as_list() == [3] and shape.dtype == tf.int64
    assert tf.io.is_jpeg(s).dtype == tf.bool
    assert tf.image.decode_png is tf.io.decode_png


def test_decode_fed_strings_and_is_jpeg(graph):
    img = _image(5, 7, 3)
    data = png.encode(img)
    s = tf.placeholder(tf.string, [])
    outs = [tf.io.decode_png(s, channels=4), tf.io.decode_image(s, dtype=tf.float32)]
    with tf.Session() as sess:
        rgba, as_float = sess.run(outs, {s: data})
        assert not sess.run(tf.io.is_jpeg(s), {s: data})
    np.testing.assert_array_equal(rgba[..., :3], img)
    assert (rgba[..., 3] == 255).all()  # an opaque alpha channel added
    # TF's kernel reads a PNG as uint16 (v * 257) for float32, then scales by 1/65535.
    wide = img.astype(np.uint16) * np.uint16(257)
    np.testing.assert_array_equal(as_float, wide.astype(np.float32) * np.float32(1 / 65535))


def test_dataset_map_decodes_each_element(graph):
    images = [_image(3 + i, 2 + i, 3) for i in range(3)]
    ds = tf.data.Dataset.from_tensor_slices([png.encode(i) for i in images])
    element = ds.map(lambda s: tf.image.decode_png(s, channels=1)).make_one_shot_iterator()
    nxt = element.get_next()
    assert nxt.shape.as_list() == [None, None, 1]
    with tf.Session() as sess:
        got = [sess.run(nxt) for _ in images]
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(nxt)
    assert [g.shape for g in got] == [(3, 2, 1), (4, 3, 1), (5, 4, 1)]


def test_queue_pipeline_reads_and_decodes_files(graph, tmp_path):
    img = _image(4, 6, 3)
    path = tmp_path / "a.png"
    path.write_bytes(png.encode(img))
    queue = tf.FIFOQueue(4, tf.string)
    enqueue = queue.enqueue([str(path)])
    image = tf.image.decode_png(tf.read_file(queue.dequeue()), channels=3)
    with tf.Session() as sess:
        sess.run(enqueue)
        np.testing.assert_array_equal(sess.run(image), img)


def _bmp(pixels: np.ndarray, top_down: bool) -> bytes:
    h, w, c = pixels.shape
    stored = pixels[..., ::-1] if c == 3 else pixels
    rows = stored.reshape(h, w * c)
    rows = rows if top_down else rows[::-1]
    pad = b"\0" * ((-w * c) % 4)
    body = b"".join(r.tobytes() + pad for r in rows)
    info = struct.pack("<IiiHHIIiiII", 40, w, -h if top_down else h, 1, c * 8, 0, 0, 0, 0, 0, 0)
    return b"BM" + struct.pack("<IHHI", 54 + len(body), 0, 0, 54) + info + body


@pytest.mark.parametrize("top_down", [False, True])
def test_decode_bmp_rows_and_channels(graph, top_down):
    img = _image(3, 5, 3)
    data = _bmp(img, top_down)
    outs = [tf.io.decode_bmp(data), tf.io.decode_bmp(data, channels=4)]
    # TF 2.21 aborts the process for a top-down BMP in decode_image with dtype uint16
    # or float32 (it sizes a buffer by the negative height); jtrain decodes it.
    outs.append(tf.io.decode_image(data, dtype=tf.uint16))
    with tf.Session() as sess:
        rgb, rgba, wide = sess.run(outs)
    np.testing.assert_array_equal(rgb, img)
    np.testing.assert_array_equal(rgba[..., :3], img)
    assert (rgba[..., 3] == 255).all()
    np.testing.assert_array_equal(wide, img.astype(np.uint16) * 256)


def test_decode_png_errors(graph):
    s = tf.placeholder(tf.string, [])
    image = tf.io.decode_png(s)
    with tf.Session() as sess:
        for data, message in [
            (b"", "Input is empty."),
            (b"garbage", "Unknown image file format"),
            (png.SIGNATURE + b"\0\0", "Invalid PNG. Failed to initialize decoder."),
            (png.encode(_image(2, 2, 1))[:-20], "Invalid PNG data, size"),
        ]:
            with pytest.raises(tf.errors.InvalidArgumentError, match=message):
                sess.run(image, {s: data})
    with pytest.raises(ValueError, match="Shape must be rank 0"):
        tf.io.decode_png(tf.constant([b"a", b"b"]))
    with pytest.raises(TypeError, match="uint8, uint16"):
        tf.io.decode_png(s, dtype=tf.float32)
    with pytest.raises(TypeError):
        tf.io.encode_png(tf.zeros([2, 2, 3]))


def test_jpeg_without_pillow_names_the_extra(graph, monkeypatch):
    data = _jpeg(_image(8, 8, 3))
    monkeypatch.setitem(sys.modules, "PIL", None)
    image = tf.io.decode_jpeg(data)
    with tf.Session() as sess, pytest.raises(ImportError, match=r"jtrain\[image\]"):
        sess.run(image)


def _jpeg(img: np.ndarray) -> bytes:
    with tf.Graph().as_default(), tf.Session() as sess:
        return sess.run(tf.io.encode_jpeg(tf.constant(img)))


def test_jpeg_round_trip_and_shape(graph):
    img = np.full((10, 14, 3), 120, np.uint8)
    data = _jpeg(img)
    assert data.startswith(b"\xff\xd8\xff")
    outs = [
        tf.io.decode_jpeg(data, dct_method="INTEGER_ACCURATE"),
        tf.io.decode_jpeg(data, channels=1, ratio=2, dct_method="INTEGER_ACCURATE"),
        tf.io.extract_jpeg_shape(data),
        tf.io.is_jpeg(data),
        tf.io.decode_and_crop_jpeg(data, [1, 2, 3, 4], dct_method="INTEGER_ACCURATE"),
    ]
    with tf.Session() as sess:
        full, half, shape, is_jpeg, crop = sess.run(outs)
    assert full.shape == (10, 14, 3) and np.abs(full.astype(int) - 120).max() <= 1
    assert half.shape == (5, 7, 1)
    assert shape.tolist() == [10, 14, 3] and shape.dtype == np.int32
    assert is_jpeg
    np.testing.assert_array_equal(crop, full[1:4, 2:6])


def test_what_jtrain_does_not_reproduce_raises(graph):
    s = tf.placeholder(tf.string, [])
    with pytest.raises(NotImplementedError, match="fancy_upscaling"):
        tf.io.decode_jpeg(s, fancy_upscaling=False)
    with pytest.raises(NotImplementedError, match="try_recover_truncated"):
        tf.io.decode_jpeg(s, try_recover_truncated=True)
    with pytest.raises(NotImplementedError, match="xmp_metadata"):
        tf.io.encode_jpeg(tf.zeros([2, 2, 3], tf.uint8), xmp_metadata="<x/>")
    webp = b"RIFF\x10\x00\x00\x00WEBPVP8 " + b"\0" * 8
    with tf.Session() as sess, pytest.raises(NotImplementedError, match="WebP"):
        sess.run(tf.io.decode_image(s), {s: webp})


def test_adjust_and_random_jpeg_quality_keep_dtype_and_size(graph):
    img = np.full((8, 10, 3), 0.5, np.float32)
    x = tf.placeholder(tf.float32, [8, 10, 3])
    adjusted = tf.image.adjust_jpeg_quality(x, 75, dct_method="INTEGER_ACCURATE")
    noisy = tf.image.random_jpeg_quality(tf.constant(img), 20, 80)
    assert adjusted.shape.as_list() == [None, None, 3] and adjusted.dtype == tf.float32
    with tf.Session() as sess:
        a, n = sess.run([adjusted, noisy], {x: img})
    for out in (a, n):
        assert out.shape == (8, 10, 3) and out.dtype == np.float32
        assert np.ptp(out) == 0  # a flat image stays flat (JPEG keeps only its DC term)
        # 0.5 is 127.5 levels: the quantized DC decodes to 126 at qualities 49-60 (the
        # largest move over random_jpeg_quality's 20-79, measured): 1.5 levels.
        assert np.abs(out - img).max() <= 1.5 / 255 + 1e-6
    with pytest.raises(ValueError, match="less than"):
        tf.image.random_jpeg_quality(img, 50, 50)
