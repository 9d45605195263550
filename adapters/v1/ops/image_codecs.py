"""TF's image codecs (``tf.io.decode_png``, ``decode_jpeg``, ``encode_png``...) as host ops.

A string tensor is a host value (``string_ops.py``): like ``tf.io.decode_raw`` these
ops run in Python, where TF runs them, in the input pipeline: inside a ``tf.data``
map function with the element, in a queue pipeline, or in ``Session.run`` on fed or
read strings (``"pre"`` before the step's program when their inputs are host values
or placeholders, ``"post"`` after it otherwise). Their output's height and width are
known only once the image is read, as in TF.

TF 2.21 decodes every format with one kernel (``decode_image_op.cc``): ``decode_png``
and ``decode_jpeg`` also read JPEG, PNG and single-frame GIF files, ``decode_bmp``
only BMP. The same dispatch on the file's first bytes is kept here.

- PNG: :mod:`jtrain.image.png` (pure Python and NumPy), values equal to TF's libpng
  settings for every colour type, bit depth, ``tRNS`` chunk and interlacing.
- BMP: TF's own reader (8, 24 and 32 bits per pixel, uncompressed), here in NumPy.
- JPEG and GIF: Pillow, an optional dependency (``pip install 'jtrain[image]'``),
  imported when an image is first decoded.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from adapters.v1.framework import ops
from adapters.v1.ops.data_flow_ops import host_inputs, placement
from jtrain import errors
from jtrain.image import png

__all__ = [
    "adjust_jpeg_quality",
    "decode_and_crop_jpeg",
    "decode_bmp",
    "decode_gif",
    "decode_image",
    "decode_jpeg",
    "decode_png",
    "encode_jpeg",
    "encode_png",
    "extract_jpeg_shape",
    "is_jpeg",
    "random_jpeg_quality",
]

_STRING = np.dtype(object)
_UINT8, _UINT16, _FLOAT32 = np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.float32)
_INSTALL = "pip install 'jtrain[image]'"


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _pillow() -> Any:
    """Pillow's ``Image`` module, imported on first use."""
    try:
        from PIL import Image
    except ImportError:
        raise ImportError(
            f"jtrain decodes and encodes JPEG and GIF images with Pillow: {_INSTALL}"
        ) from None
    return Image


# -- the file's format ------------------------------------------------------------------


def _format(data: bytes) -> str:
    """The format TF's ``ClassifyFileFormat`` reads in the first bytes."""
    if data.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    if data.startswith(png.SIGNATURE):
        return "PNG"
    if data.startswith(b"GIF8"):
        return "GIF"
    if data.startswith(b"BM"):
        return "BMP"
    if data.startswith(b"RIFF") and len(data) > 12 and data[8:12] == b"WEBP":
        return "WebP"
    if data.startswith(b"\xff\x0a") or data.startswith(b"\x00\x00\x00\x0cJXL \r\n\x87\n"):
        return "JXL"
    return "UNKNOWN"


class _Settings:
    """One op's attributes (TF's ``DecodeImageV2Op`` members)."""

    def __init__(self, op_type: str, channels: int, dtype: np.dtype, expand_animations=True):
        self.op_type = op_type
        self.channels = channels
        self.dtype = dtype
        self.expand_animations = expand_animations
        self.ratio = 1
        self.crop: tuple[int, int, int, int] | None = None
        self.error: str | None = None  # an attribute TF's kernel refuses
        self.accurate = False  # dct_method="INTEGER_ACCURATE" (else TF's INTEGER_FAST)


def _to_dtype(image: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A uint8 image (JPEG, GIF, BMP) as ``dtype``, as TF's kernel scales it."""
    if dtype == _UINT16:
        return image.astype(np.uint16) * np.uint16(256)
    if dtype == _FLOAT32:
        return image.astype(np.float32) * np.float32(1.0 / 255)
    return image


def _decode(data: bytes, s: _Settings) -> np.ndarray:
    if not data:
        raise _invalid("Input is empty.")
    fmt = _format(data)
    if fmt == "JPEG":
        return _to_dtype(_decode_jpeg(data, s), s.dtype)
    if fmt == "PNG":
        return _decode_png(data, s)
    if fmt == "GIF":
        return _to_dtype(_decode_gif(data, s), s.dtype)
    if fmt == "BMP":
        return _to_dtype(_decode_bmp(data, s), s.dtype)
    if fmt in ("WebP", "JXL"):
        raise NotImplementedError(
            f"{s.op_type}: jtrain does not decode {fmt} images; decode them with Pillow "
            "in Python and feed the arrays"
        )
    raise _invalid("Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP required.")


def _decode_png(data: bytes, s: _Settings) -> np.ndarray:
    bits = 8 if s.dtype == _UINT8 else 16
    try:
        image = png.decode(data, s.channels, bits)
    except png.PNGError as e:
        if e.header:
            raise _invalid("Invalid PNG. Failed to initialize decoder.") from None
        raise _invalid(f"Invalid PNG data, size {len(data)}") from None
    if s.op_type == "DecodeBmp":
        raise _invalid(
            "Trying to decode PNG format using DecodeBmp op. Use `decode_png` or "
            "`decode_image` instead."
        )
    if s.op_type == "DecodeAndCropJpeg":
        raise _invalid("DecodeAndCropJpeg operation can run on JPEG only, but detected PNG.")
    if s.dtype == _FLOAT32:
        image = image.astype(np.float32) * np.float32(1.0 / 65535)
    return image[None] if s.op_type == "DecodeGif" else image


# -- JPEG (Pillow) ----------------------------------------------------------------------

_warned: set[str] = set()


def _warn_once(key: str, message: str) -> None:
    if key not in _warned:
        _warned.add(key)
        warnings.warn(message, stacklevel=2)


def _open_jpeg(data: bytes) -> Any:
    Image = _pillow()
    try:
        return Image.open(io.BytesIO(data), formats=["JPEG"])
    except Exception:  # noqa: BLE001  (Pillow raises several kinds on bad data)
        raise _invalid("jpeg::Uncompress failed. Invalid JPEG data or crop window.") from None


def _decode_jpeg(data: bytes, s: _Settings) -> np.ndarray:
    if s.channels not in (0, 1, 3):
        raise _invalid("JPEG does not support 4 channels")
    if s.op_type == "DecodeBmp":
        raise _invalid(
            "Trying to decode JPEG format using DecodeBmp op. Use `decode_jpeg` or "
            "`decode_image` instead."
        )
    failed = "jpeg::Uncompress failed. Invalid JPEG data or crop window."
    im = _open_jpeg(data)
    if not s.accurate:
        _warn_once(
            "dct",
            f"{s.op_type}: TF decodes this JPEG with libjpeg's INTEGER_FAST inverse DCT "
            "(dct_method='' or 'INTEGER_FAST', and always in decode_image, decode_png "
            "and decode_gif); jtrain decodes with INTEGER_ACCURATE, TF's values for "
            "dct_method='INTEGER_ACCURATE', which differ from INTEGER_FAST's by a few "
            "levels per pixel",
        )
    width, height = im.size
    components = len(im.getbands())
    channels = s.channels or (1 if components == 1 else 3)
    if components not in (1, 3):
        raise NotImplementedError(
            f"{s.op_type}: jtrain does not decode {im.mode} JPEG images (TF converts them "
            "with libjpeg); convert them to RGB first"
        )
    mode = "L" if channels == 1 else "RGB"
    if s.ratio != 1:
        # libjpeg's DCT scaling (scale_denom = ratio), as TF's ``ratio``.
        im.draft(mode, (max(1, width // s.ratio), max(1, height // s.ratio)))
    elif mode == "L" and im.mode != "L":
        im.draft("L", im.size)  # libjpeg's own YCbCr -> gray: the Y channel, as TF
    try:
        im.load()
    except Exception:  # noqa: BLE001
        raise _invalid(failed) from None
    expected = (-(-width // s.ratio), -(-height // s.ratio))
    if im.size != expected:
        raise NotImplementedError(
            f"{s.op_type}: Pillow could not scale this JPEG by ratio={s.ratio}; decode "
            "with ratio=1 and resize"
        )
    image = np.asarray(im.convert(mode) if im.mode != mode else im)
    if image.ndim == 2:
        image = image[..., None]
    if s.crop is not None:
        y, x, h, w = s.crop
        if min(y, x) < 0 or h <= 0 or w <= 0 or y + h > image.shape[0] or x + w > image.shape[1]:
            raise _invalid(failed)
        image = image[y : y + h, x : x + w]
    return image[None] if s.op_type == "DecodeGif" else np.ascontiguousarray(image)


def _jpeg_settings(
    s: _Settings,
    op_type: str,
    ratio: int,
    fancy_upscaling: bool,
    try_recover_truncated: bool,
    dct_method: str,
) -> None:
    """TF's checks of the JPEG attributes, and what jtrain cannot reproduce."""
    # TF checks these when the kernel is built, at the first run.
    if ratio not in (1, 2, 4, 8):
        s.error = f"ratio must be 1, 2, 4, or 8, got {ratio}"
    elif dct_method not in ("", "INTEGER_FAST", "INTEGER_ACCURATE"):
        s.error = "dct_method must be one of {'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}"
    if not fancy_upscaling:
        raise NotImplementedError(
            f"{op_type}: fancy_upscaling=False is not supported (Pillow always upsamples "
            "chroma smoothly); drop the argument"
        )
    if try_recover_truncated:
        raise NotImplementedError(
            f"{op_type}: try_recover_truncated=True is not supported; a truncated JPEG "
            "raises InvalidArgumentError"
        )
    s.ratio = ratio
    s.accurate = dct_method == "INTEGER_ACCURATE"


# -- GIF (Pillow) -----------------------------------------------------------------------


def _decode_gif(data: bytes, s: _Settings) -> np.ndarray:
    if s.channels not in (0, 3):
        raise _invalid(f"channels must be 0 or 3 for GIF, got {s.channels}")
    if s.op_type == "DecodeBmp":
        raise _invalid(
            "Trying to decode GIF format using DecodeBmp op. Use `decode_gif` or "
            "`decode_image` instead."
        )
    if s.op_type == "DecodeAndCropJpeg":
        raise _invalid("DecodeAndCropJpeg operation can run on JPEG only, but detected GIF.")
    Image = _pillow()
    try:
        im = Image.open(io.BytesIO(data), formats=["GIF"])
        frames = []
        previous_disposal = 0
        for index in range(getattr(im, "n_frames", 1)):
            im.seek(index)
            extent = im.tile[0][1] if im.tile else (0, 0, *im.size)
            partial = tuple(extent) != (0, 0, *im.size)
            # Measured equal to TF: whole frames, and partial ones drawn over the
            # previous frame (its disposal 0 or 1), without transparency.
            if "transparency" in im.info or (
                partial and (index == 0 or previous_disposal not in (0, 1))
            ):
                raise NotImplementedError(
                    f"{s.op_type}: jtrain decodes GIF frames without transparency that "
                    "cover the image or are drawn over the previous frame; TF's "
                    "composition of transparent frames, of a partial first frame and "
                    "after disposal 2 or 3 is not reproduced (decode with Pillow and feed)"
                )
            previous_disposal = getattr(im, "disposal_method", 0)
            frames.append(np.asarray(im.convert("RGB")))
            if not s.expand_animations:
                break
    except (NotImplementedError, ImportError):
        raise
    except Exception as e:  # noqa: BLE001
        raise _invalid(f"Invalid GIF data (size {len(data)}), {e}") from None
    if s.op_type in ("DecodePng", "DecodeJpeg"):
        if len(frames) != 1:
            raise _invalid(
                f"Got {len(frames)} frames, but animated gifs can only be decoded by "
                "tf.io.decode_gif or tf.io.decode_image"
            )
        return frames[0]
    if s.op_type == "DecodeImage" and not s.expand_animations:
        return frames[0]
    return np.stack(frames)


# -- BMP (TF's reader) ------------------------------------------------------------------


def _decode_bmp(data: bytes, s: _Settings) -> np.ndarray:
    if s.channels == 1:
        raise _invalid(f"`channels` must be 0, 3 or 4 for BMP, but got {s.channels}")
    if s.op_type not in ("DecodeBmp", "DecodeImage"):
        if s.op_type == "DecodeAndCropJpeg":
            raise _invalid("DecodeAndCropJpeg operation can run on JPEG only, but detected BMP.")
        raise _invalid(
            "Trying to decode BMP format using a wrong op. Use `decode_bmp` or "
            f"`decode_image` instead. Op used: {s.op_type}"
        )
    if len(data) < 32:
        raise _invalid(
            "Incomplete bmp content, requires at least 32 bytes to find the header size, "
            f"width, height, and bpp, got {len(data)} bytes"
        )
    header_size = int.from_bytes(data[10:14], "little", signed=True)
    width = int.from_bytes(data[18:22], "little", signed=True)
    height = int.from_bytes(data[22:26], "little", signed=True)
    bpp = int.from_bytes(data[28:30], "little", signed=True)
    img_channels = int(bpp / 8)  # C++ integer division truncates toward zero
    if img_channels not in (1, 3, 4):
        raise _invalid(
            f"Number of channels inherent in the image must be 1, 3 or 4, was {img_channels}"
        )
    channels = s.channels or img_channels
    if width <= 0:
        raise _invalid("Width must be positive")
    if height == 0:
        raise _invalid("Height must be nonzero")
    if header_size < 0:
        raise _invalid("header size must be nonnegative")
    if width * abs(height) >= (2**31 - 1) // 8:
        raise _invalid("Total possible pixel bytes must be less than 2^30")
    rows = abs(height)
    row_size = (img_channels * width + 3) // 4 * 4
    size_diff = len(data) - header_size - row_size * rows
    if size_diff != 0:
        raise _invalid(
            "Input size should match (header_size + row_size * abs_height) but they "
            f"differ by {size_diff}"
        )
    pixels = np.frombuffer(data, np.uint8, row_size * rows, header_size).reshape(rows, row_size)
    pixels = pixels[:, : width * img_channels].reshape(rows, width, img_channels)
    if height > 0:  # bottom-up rows
        pixels = pixels[::-1]
    if img_channels == 1:
        color = np.repeat(pixels, 3, axis=2) if channels >= 3 else pixels
    else:
        color = pixels[..., 2::-1]  # BGR(A) -> RGB
    if channels == 4:
        alpha = pixels[..., 3:4] if img_channels == 4 else np.full((rows, width, 1), 255, np.uint8)
        color = np.concatenate([color, alpha], axis=2)
    return np.ascontiguousarray(color)


# -- graph ops --------------------------------------------------------------------------


def _contents(value: Any, op_type: str) -> ops.Tensor:
    (tensor,) = host_inputs([value])
    if tensor._np_dtype is None or tensor._np_dtype.kind != "O":
        raise TypeError(
            f"Input 'contents' of '{op_type}' Op has type {tensor.dtype.name} that does not "
            "match expected type of string."
        )
    if tensor._shape is not None and len(tensor._shape) != 0:
        raise ValueError(
            f"Shape must be rank 0 but is rank {len(tensor._shape)} for '{{{{node {op_type}}}}} "
            f"= {op_type}[]' with input shapes: {list(tensor._shape)}."
        )
    return tensor


def _scalar_bytes(value: Any) -> bytes:
    arr = np.asarray(value, dtype=object)
    if arr.ndim != 0:
        raise _invalid(f"`contents` must be scalar but got shape{list(arr.shape)}")
    item = arr.item()
    return item.encode() if isinstance(item, str) else bytes(item)


def _check_channels(channels: int) -> None:
    if channels not in (0, 1, 3, 4):
        raise _invalid(f"`channels` must be 0, 1, 3 or 4 but got {channels}")


def _decode_op(
    op_type: str,
    name: str | None,
    inputs: list[ops.Tensor],
    settings: _Settings,
    shape: tuple | None,
    extra: Callable[[_Settings, list[Any]], None] | None = None,
) -> ops.Tensor:
    def compute(session: Any, contents: Any, *rest: Any) -> tuple[np.ndarray]:
        if op_type != "DecodeGif":
            _check_channels(settings.channels)
        if settings.error is not None:
            raise _invalid(settings.error)
        s = settings
        if extra is not None:
            s = _Settings(op_type, settings.channels, settings.dtype, settings.expand_animations)
            s.ratio, s.accurate = settings.ratio, settings.accurate
            extra(s, list(rest))
        return (_decode(_scalar_bytes(contents), s),)

    op = ops.get_default_graph().create_op(
        op_type,
        name or op_type,
        inputs=inputs,
        compute=compute,
        output_specs=[(shape, settings.dtype)],
        host=placement(inputs),
    )
    return op.outputs[0]


def _channels_dim(channels: int) -> int | None:
    return channels if channels else None


def decode_png(
    contents: Any, channels: int = 0, dtype: Any = np.uint8, name: str | None = None
) -> ops.Tensor:
    """Decodes a PNG image (``tf.io.decode_png``).

    A 3-D ``[height, width, channels]`` tensor of ``dtype``. ``channels`` 0 keeps the
    file's (a palette gives 3, or 4 with a ``tRNS`` chunk); 1 converts colour to gray
    (libpng's Rec. 601 weights), 3 replicates gray and drops alpha, 4 adds opaque
    alpha. ``uint16`` widens 8-bit samples by ``v * 257``; ``uint8`` keeps the high
    byte of 16-bit ones. As in TF, JPEG and single-frame GIF files decode too.

    Args:
      contents: a scalar string tensor, the file's bytes.
      channels: 0, 1, 3 or 4 (default 0).
      dtype: ``tf.uint8`` (default) or ``tf.uint16``.
      name: the op's name.

    Returns:
      A ``dtype`` tensor of static shape ``[None, None, channels or None]``.

    Raises:
      ValueError: ``contents`` is not a scalar.
      InvalidArgumentError (at run time): bad data or ``channels`` ("Invalid PNG data,
        size N", "Invalid PNG. Failed to initialize decoder.").
    """
    tensor = _contents(contents, "DecodePng")
    out = np.dtype(ops.as_dtype(dtype).dtype)
    if out not in (_UINT8, _UINT16):
        raise TypeError(
            f"Value passed to parameter 'dtype' has DataType {ops.as_dtype(dtype).name} not "
            "in list of allowed values: uint8, uint16"
        )
    s = _Settings("DecodePng", channels, out)
    return _decode_op("DecodePng", name, [tensor], s, (None, None, _channels_dim(channels)))


def decode_jpeg(
    contents: Any,
    channels: int = 0,
    ratio: int = 1,
    fancy_upscaling: bool = True,
    try_recover_truncated: bool = False,
    acceptable_fraction: float = 1,
    dct_method: str = "",
    name: str | None = None,
) -> ops.Tensor:
    """Decodes a JPEG image (``tf.io.decode_jpeg``) with Pillow's libjpeg.

    A uint8 ``[height, width, channels]`` tensor: ``channels`` 0 keeps the file's (1
    or 3), 1 takes the luma, 3 gives RGB. ``ratio`` scales down by libjpeg's DCT
    scaling. PNG and single-frame GIF files decode too, as in TF.

    Args:
      contents: a scalar string tensor, the file's bytes.
      channels: 0, 1 or 3 (default 0).
      ratio: 1, 2, 4 or 8 (default 1).
      fancy_upscaling: must be True (the default).
      try_recover_truncated: must be False (the default).
      acceptable_fraction: used by TF only with ``try_recover_truncated``.
      dct_method: ``""`` (default), ``"INTEGER_FAST"`` or ``"INTEGER_ACCURATE"``.
      name: the op's name.

    Returns:
      A uint8 tensor of static shape ``[None, None, channels or None]``.

    Raises:
      ImportError: Pillow is not installed (``pip install 'jtrain[image]'``).
      NotImplementedError: ``fancy_upscaling=False`` or ``try_recover_truncated=True``.
      InvalidArgumentError (at run time): bad data, 4 channels.

    .. note::
       TF 2.21's default ``dct_method=""`` is libjpeg's INTEGER_FAST inverse DCT (the
       kernel maps ``""`` to ``JDCT_IFAST``, whatever the docs say). Pillow offers only
       INTEGER_ACCURATE, which jtrain uses for every ``dct_method``: the values equal
       TF's for ``dct_method="INTEGER_ACCURATE"`` bit for bit, and differ from TF's
       default by up to 17 levels per pixel (measured on noisy 64x48 images at quality
       50-95, 4:2:0 and 4:4:4, RGB and gray; most pixels differ by 0-3). jtrain warns
       once; pass ``dct_method="INTEGER_ACCURATE"`` for TF's exact values.
    """
    del acceptable_fraction  # TF reads it only when recovering truncated files
    tensor = _contents(contents, "DecodeJpeg")
    s = _Settings("DecodeJpeg", channels, _UINT8)
    _jpeg_settings(s, "DecodeJpeg", ratio, fancy_upscaling, try_recover_truncated, dct_method)
    return _decode_op("DecodeJpeg", name, [tensor], s, (None, None, _channels_dim(channels)))


def decode_and_crop_jpeg(
    contents: Any,
    crop_window: Any,
    channels: int = 0,
    ratio: int = 1,
    fancy_upscaling: bool = True,
    try_recover_truncated: bool = False,
    acceptable_fraction: float = 1,
    dct_method: str = "",
    name: str | None = None,
) -> ops.Tensor:
    """Decodes the ``crop_window`` ``[y, x, height, width]`` of a JPEG image
    (``tf.io.decode_and_crop_jpeg``); arguments as :func:`decode_jpeg`.

    Raises:
      InvalidArgumentError (at run time): the window is not 1-D of 4 elements or leaves
        the image, bad data.

    .. note::
       jtrain decodes the whole image and crops it: the values equal TF's decode_jpeg
       followed by a crop. TF's libjpeg decodes only the window's iMCU columns and
       upsamples chroma at their edges, so for chroma-subsampled (4:2:0) files TF's
       pixels along a window edge inside the image differ from a full decode (by up to
       50 levels measured at quality 75-95); without subsampling (4:4:4, gray) they
       are equal. See also :func:`decode_jpeg`'s note on ``dct_method``.
    """
    tensor = _contents(contents, "DecodeAndCropJpeg")
    (window,) = host_inputs([crop_window])
    s = _Settings("DecodeAndCropJpeg", channels, _UINT8)
    _jpeg_settings(
        s, "DecodeAndCropJpeg", ratio, fancy_upscaling, try_recover_truncated, dct_method
    )
    attrs = (
        "{{node DecodeAndCropJpeg}} = DecodeAndCropJpeg["
        f"acceptable_fraction={acceptable_fraction}, "
        f'channels={channels}, dct_method="{dct_method}", ...](contents, crop_window)'
    )
    wshape = window._shape
    if wshape is not None and len(wshape) != 1:
        raise ValueError(
            f"Shape must be rank 1 but is rank {len(wshape)} for '{attrs}' with input "
            f"shapes: [], {list(wshape)}."
        )
    if wshape is not None and wshape[0] is not None and wshape[0] != 4:
        raise ValueError(
            f"Dimension must be 4 but is {wshape[0]} for '{attrs}' with input shapes: [], "
            f"[{wshape[0]}]."
        )
    const = crop_window if not isinstance(crop_window, ops.Tensor) else window.op._const_value
    shape: tuple = (None, None, _channels_dim(channels))
    if const is not None and np.shape(const) == (4,):
        shape = (int(np.asarray(const)[2]), int(np.asarray(const)[3]), _channels_dim(channels))

    def crop(settings: _Settings, rest: list[Any]) -> None:
        value = np.asarray(rest[0])
        if value.ndim != 1:
            raise _invalid(f"crop_window must be 1-D, got shape {list(value.shape)}")
        if value.shape[0] != 4:
            raise _invalid(f"crop_size must have four elements {list(value.shape)}")
        y, x, h, w = (int(v) for v in value)
        settings.crop = (y, x, h, w)

    return _decode_op("DecodeAndCropJpeg", name, [tensor, window], s, shape, crop)


def decode_bmp(contents: Any, channels: int = 0, name: str | None = None) -> ops.Tensor:
    """Decodes an uncompressed 8, 24 or 32-bit BMP image (``tf.io.decode_bmp``) as TF's
    own reader does: BGR(A) to RGB(A), bottom-up rows flipped, no palette.

    Args:
      contents: a scalar string tensor, the file's bytes.
      channels: 0, 3 or 4 (default 0).
      name: the op's name.

    Returns:
      A uint8 tensor of static shape ``[None, None, channels or None]``.

    Raises:
      InvalidArgumentError (at run time): not a BMP file, sizes that do not match.
    """
    tensor = _contents(contents, "DecodeBmp")
    s = _Settings("DecodeBmp", channels, _UINT8)
    return _decode_op("DecodeBmp", name, [tensor], s, (None, None, _channels_dim(channels)))


def decode_gif(contents: Any, name: str | None = None) -> ops.Tensor:
    """Decodes a GIF image's frames (``tf.io.decode_gif``) with Pillow.

    Returns:
      A uint8 ``[num_frames, height, width, 3]`` tensor (static shape
      ``[None, None, None, 3]``).

    Raises:
      NotImplementedError: a frame with transparency, a first frame smaller than the
        image, a partial frame after one disposed of with method 2 or 3 (TF's
        composition of these is not reproduced).
      InvalidArgumentError (at run time): bad data.
    """
    tensor = _contents(contents, "DecodeGif")
    s = _Settings("DecodeGif", 3, _UINT8)
    return _decode_op("DecodeGif", name, [tensor], s, (None, None, None, 3))


def decode_image(
    contents: Any,
    channels: int | None = None,
    dtype: Any = np.uint8,
    name: str | None = None,
    expand_animations: bool = True,
) -> ops.Tensor:
    """Decodes a BMP, GIF, JPEG or PNG image, chosen by its first bytes
    (``tf.io.decode_image``).

    GIF files give ``[num_frames, height, width, 3]`` unless ``expand_animations`` is
    False (the first frame); the others ``[height, width, channels]``. ``dtype``
    uint8, uint16 or float32 comes from the kernel (8-bit values times 256 or 1/255,
    PNG's 16-bit values times 1/65535); any other dtype is ``convert_image_dtype`` of
    the uint16 result, as TF.

    Returns:
      A ``dtype`` tensor; its static shape is unknown, or ``[None, None, channels or
      None]`` when ``expand_animations`` is False.
    """
    from adapters.v1.ops.image_ops import convert_image_dtype

    with ops.name_scope(name, "decode_image"):
        channels = 0 if channels is None else channels
        target = ops.as_dtype(dtype)
        decode_dtype = np.dtype(target.dtype)
        if decode_dtype not in (_UINT8, _UINT16, _FLOAT32):
            decode_dtype = _UINT16
        tensor = _contents(contents, "DecodeImage")
        s = _Settings("DecodeImage", channels, decode_dtype, expand_animations)
        shape = (None, None, _channels_dim(channels)) if not expand_animations else None
        image = _decode_op("DecodeImage", None, [tensor], s, shape)
        if decode_dtype != np.dtype(target.dtype):
            image = convert_image_dtype(image, target)
        return image


def extract_jpeg_shape(
    contents: Any, output_type: Any = np.int32, name: str | None = None
) -> ops.Tensor:
    """``[height, width, components]`` of a JPEG image, from its header
    (``tf.io.extract_jpeg_shape``).

    Raises:
      InvalidArgumentError (at run time): not a JPEG file.
    """
    tensor = _contents(contents, "ExtractJpegShape")
    out = np.dtype(ops.as_dtype(output_type).dtype)

    def compute(session: Any, value: Any) -> tuple[np.ndarray]:
        data = _scalar_bytes(value)
        if not data.startswith(b"\xff\xd8"):
            raise _invalid(f"Invalid JPEG data, size {len(data)}")
        try:
            im = _open_jpeg(data)
        except errors.InvalidArgumentError:
            raise _invalid(f"Invalid JPEG data, size {len(data)}") from None
        width, height = im.size
        return (np.array([height, width, len(im.getbands())], out),)

    op = ops.get_default_graph().create_op(
        "ExtractJpegShape",
        name or "ExtractJpegShape",
        inputs=[tensor],
        compute=compute,
        output_specs=[((3,), out)],
        host=placement([tensor]),
    )
    return op.outputs[0]


def is_jpeg(contents: Any, name: str | None = None) -> ops.Tensor:
    """Whether ``contents`` starts as a JPEG file does (``tf.io.is_jpeg``): TF's
    ``substr(contents, 0, 3) == b"\\xff\\xd8\\xff"``."""
    from adapters.v1.ops import string_ops

    with ops.name_scope(name, "is_jpeg"):
        prefix = string_ops.substr(contents, 0, 3)
        return string_ops.string_compare("Equal", prefix, b"\xff\xd8\xff", name=name)


def _image_input(image: Any, op_type: str, allowed: tuple[np.dtype, ...]) -> ops.Tensor:
    tensor = ops.convert_to_tensor(image)
    if np.dtype(tensor.dtype.dtype) not in allowed:
        names = ", ".join(np.dtype(d).name for d in allowed)
        raise TypeError(
            f"Value passed to parameter 'image' has DataType {tensor.dtype.name} not in "
            f"list of allowed values: {names}"
        )
    if tensor._shape is not None and len(tensor._shape) != 3:
        at_least = "at least " if op_type == "EncodePng" else ""
        raise ValueError(
            f"Shape must be {at_least}rank 3 but is rank {len(tensor._shape)} for "
            f"'{{{{node {op_type}}}}} = {op_type}[]' with input shapes: {list(tensor._shape)}."
        )
    return tensor


def _encode_op(op_type: str, name: str | None, tensor: ops.Tensor, fn: Callable) -> ops.Tensor:
    op = ops.get_default_graph().create_op(
        op_type,
        name or op_type,
        inputs=[tensor],
        compute=lambda session, value: (np.array(fn(np.asarray(value)), dtype=object),),
        output_specs=[((), _STRING)],
        host=placement([tensor]),
    )
    return op.outputs[0]


def _jpeg_bytes(
    value: np.ndarray,
    format: str,  # noqa: A002
    quality: int,
    progressive: bool = False,
    optimize: bool = False,
    subsample: bool = True,
    dpi: tuple[int, int] = (300, 300),
) -> bytes:
    """``value`` as a JPEG file, written by Pillow's libjpeg with TF's settings."""
    Image = _pillow()
    if value.ndim != 3:
        raise _invalid(f"image must be 3-dimensional{list(value.shape)}")
    channels = value.shape[2]
    shape = ",".join(str(d) for d in value.shape)
    if format:
        want = {"grayscale": 1, "rgb": 3}[format]
        if channels != want:
            raise _invalid(f"format {format} expects {want} channels, got [{shape}]")
    elif channels not in (1, 3):
        raise _invalid(f"image must have 1 or 3 channels, got [{shape}]")
    if not 0 <= quality <= 100:
        raise _invalid(f"quality must be in [0,100], got {quality}")
    im = Image.fromarray(value[..., 0] if channels == 1 else value)
    buf = io.BytesIO()
    im.save(
        buf,
        "JPEG",
        quality=quality,
        progressive=progressive,
        optimize=optimize,
        # 4:2:0 or 4:4:4 (a gray image's one component is never subsampled, as TF)
        subsampling=2 if subsample and channels == 3 else 0,
        dpi=dpi,
    )
    return buf.getvalue()


def encode_png(image: Any, compression: int = -1, name: str | None = None) -> ops.Tensor:
    """PNG-encodes a uint8 or uint16 ``[height, width, channels]`` image
    (``tf.io.encode_png``): 1 to 4 channels (gray, gray and alpha, RGB, RGBA).

    The file's bytes are TF's: libpng's row filters (the smallest sum of absolute
    values), its zlib settings and window and its 8 KiB IDAT chunks are reproduced
    (measured on 80 images, uint8 and uint16, 1-4 channels, every level); with
    ``compression=0`` on more than 8 KiB of data zlib's stored blocks split otherwise,
    so the bytes differ there while the image decodes the same.

    Args:
      image: a 3-D uint8 or uint16 tensor.
      compression: zlib's level, -1 (default: 6) to 9.
      name: the op's name.

    Returns:
      A scalar string tensor.

    Raises:
      TypeError: another dtype.
      ValueError: not rank 3.
      InvalidArgumentError (at run time): ``compression`` out of range, a channel
        count other than 1-4, an empty image.
    """
    tensor = _image_input(image, "EncodePng", (_UINT8, _UINT16))

    def encode(value: np.ndarray) -> bytes:
        if not -1 <= compression <= 9:
            raise _invalid(f"compression should be in [-1,9], got {compression}")
        if value.ndim != 3:
            raise _invalid(f"image must be 3-dimensional{list(value.shape)}")
        if value.shape[2] not in (1, 2, 3, 4):
            raise _invalid(f"image must have 1, 2, 3, or 4 channels, got {value.shape[2]}")
        if value.size == 0:
            raise _invalid("PNG encoding failed")
        return png.encode(value, compression)

    return _encode_op("EncodePng", name, tensor, encode)


def encode_jpeg(
    image: Any,
    format: str = "",  # noqa: A002
    quality: int = 95,
    progressive: bool = False,
    optimize_size: bool = False,
    chroma_downsampling: bool = True,
    density_unit: str = "in",
    x_density: int = 300,
    y_density: int = 300,
    xmp_metadata: str = "",
    name: str | None = None,
) -> ops.Tensor:
    """JPEG-encodes a uint8 ``[height, width, channels]`` image (``tf.io.encode_jpeg``)
    with Pillow's libjpeg: the same bytes as TF's for the defaults (measured at
    qualities 75 and 95, 4:2:0 and 4:4:4, RGB and gray).

    Args:
      image: a 3-D uint8 tensor of 1 or 3 channels.
      format: ``""`` (from the channels), ``"grayscale"`` or ``"rgb"``.
      quality: 0-100 (default 95).
      progressive: a progressive JPEG (default False).
      optimize_size: libjpeg's optimized Huffman tables (default False).
      chroma_downsampling: 4:2:0 (default True) or 4:4:4.
      density_unit: ``"in"`` (default); ``"cm"`` raises NotImplementedError.
      x_density: the JFIF horizontal density (default 300).
      y_density: the JFIF vertical density (default 300).
      xmp_metadata: not supported unless empty.
      name: the op's name.

    Raises:
      ImportError: Pillow is not installed.
      NotImplementedError: ``xmp_metadata``.
      InvalidArgumentError (at run time): channels that do not match ``format``.
    """
    if format not in ("", "grayscale", "rgb"):
        raise ValueError(
            f"Attr 'format' of 'EncodeJpeg' Op passed string '{format}' not in: \"\", "
            '"grayscale", "rgb".'
        )
    if density_unit not in ("in", "cm"):
        raise ValueError(f"density_unit must be 'in' or 'cm', got {density_unit!r}")
    if xmp_metadata:
        raise NotImplementedError("EncodeJpeg: xmp_metadata is not supported; drop it")
    tensor = _image_input(image, "EncodeJpeg", (_UINT8,))

    if density_unit == "cm":
        raise NotImplementedError(
            "EncodeJpeg: density_unit='cm' is not supported (Pillow writes dots per inch); use 'in'"
        )

    def encode(value: np.ndarray) -> bytes:
        return _jpeg_bytes(
            value,
            format,
            quality,
            progressive=progressive,
            optimize=optimize_size,
            subsample=chroma_downsampling,
            dpi=(x_density, y_density),
        )

    return _encode_op("EncodeJpeg", name, tensor, encode)


def adjust_jpeg_quality(
    image: Any, jpeg_quality: Any, dct_method: str = "", name: str | None = None
) -> ops.Tensor:
    """``image`` JPEG-encoded at ``jpeg_quality`` and decoded again
    (``tf.image.adjust_jpeg_quality``), in its dtype: TF's ``convert_image_dtype`` to
    uint8 (saturating), ``EncodeJpegVariableQuality``, ``decode_jpeg`` with
    ``dct_method`` and back.

    Args:
      image: a 3-D image of 1 or 3 channels, any dtype ``convert_image_dtype`` takes.
      jpeg_quality: an int or int32 scalar tensor, 0-100.
      dct_method: as :func:`decode_jpeg` (see its note: only ``"INTEGER_ACCURATE"``
        gives TF's values).
      name: the name scope.

    Raises:
      InvalidArgumentError (at run time): quality outside [0, 100], 2 or 4 channels.

    .. note::
       One host op does TF's four (``convert_image_dtype``, ``EncodeJpegVariableQuality``,
       ``DecodeJpeg``, ``convert_image_dtype``): use it where TF's input pipelines do
       (a ``tf.data`` map function, a fed or read image); a step's own tensors cannot
       feed the step again after a host op.
    """
    with ops.name_scope(name, "adjust_jpeg_quality"):
        tensor = ops.convert_to_tensor(image, name="image")
        channels = tensor.shape.as_list()[-1] if tensor.shape.ndims else None
        dtype = np.dtype(tensor.dtype.dtype)
        if tensor._shape is not None and len(tensor._shape) != 3:
            raise ValueError(
                f"Shape must be rank 3 but is rank {len(tensor._shape)} for "
                "'{{node EncodeJpegVariableQuality}}'"
            )
        (quality,) = host_inputs([jpeg_quality])
        settings = _Settings("DecodeJpeg", channels or 0, _UINT8)
        settings.accurate = dct_method == "INTEGER_ACCURATE"
        if dct_method not in ("", "INTEGER_FAST", "INTEGER_ACCURATE"):
            settings.error = "dct_method must be one of {'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}"

        def compute(session: Any, value: Any, q: Any) -> tuple[np.ndarray]:
            # TF's four ops (convert, encode, decode, convert back) in one host op.
            import jax.numpy as jnp

            from adapters.v1.framework import _x64
            from adapters.v1.ops.image_ops import _convert

            if settings.error is not None:
                raise _invalid(settings.error)
            with _x64.exact():
                as_uint8 = np.asarray(_convert(jnp.asarray(value), np.uint8, saturate=True))
                data = _jpeg_bytes(as_uint8, "", int(np.asarray(q)))
                decoded = _decode_jpeg(data, settings)
                return (np.asarray(_convert(jnp.asarray(decoded), dtype, saturate=True)),)

        inputs = [tensor, quality]
        op = ops.get_default_graph().create_op(
            "AdjustJpegQuality",
            "AdjustJpegQuality",
            inputs=inputs,
            compute=compute,
            output_specs=[((None, None, channels), dtype)],  # decode_jpeg's, as TF
            host=placement(inputs),
        )
        return op.outputs[0]


def random_jpeg_quality(
    image: Any, min_jpeg_quality: int, max_jpeg_quality: int, seed: int | None = None
) -> ops.Tensor:
    """:func:`adjust_jpeg_quality` at a quality drawn uniformly from
    ``[min_jpeg_quality, max_jpeg_quality)`` (``tf.image.random_jpeg_quality``); the
    draws differ from TF's, as every jtrain random op's.

    Raises:
      ValueError: a bound outside [0, 100], or ``min_jpeg_quality >= max_jpeg_quality``.
    """
    from adapters.v1.ops import random_ops

    if not (0 <= min_jpeg_quality <= 100 and 0 <= max_jpeg_quality <= 100):
        raise ValueError("jpeg encoding range must be between 0 and 100.")
    if min_jpeg_quality >= max_jpeg_quality:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")
    quality = random_ops.random_uniform(
        [], min_jpeg_quality, max_jpeg_quality, seed=seed, dtype=ops.as_dtype(np.int32)
    )
    return adjust_jpeg_quality(image, quality)
