"""Keras' image helpers ``array_to_img``, ``img_to_array``, ``load_img`` and
``save_img`` (``tf.keras.utils`` and ``tf.keras.preprocessing.image``), as TF 2.21's
legacy Keras (``tf_keras/utils/image_utils.py``), on Pillow (jtrain's ``image``
extra: ``pip install jtrain[image]``).
"""

from __future__ import annotations

import io
import os
import pathlib
import tempfile
import warnings
from typing import Any

import numpy as np

from adapters.v1.keras import backend

__all__ = ["array_to_img", "img_to_array", "load_img", "save_img"]

_INTERPOLATIONS = ("nearest", "bilinear", "bicubic", "hamming", "box", "lanczos")


def _pil(what: str) -> Any:
    try:
        from PIL import Image
    except ImportError as e:
        raise ImportError(
            f"Could not import PIL.Image. The use of `{what}` requires PIL "
            "(pip install jtrain[image])."
        ) from e
    return Image


def array_to_img(
    x: Any, data_format: str | None = None, scale: bool = True, dtype: Any = None
) -> Any:
    """A PIL image of the rank-3 array ``x``.

    Args (TF's defaults): x, data_format=None (``image_data_format()``), scale=True
    (shift to a minimum of 0 and stretch to a maximum of 255), dtype=None
    (``floatx()``: the array is cast to it first).

    Returns:
      An 'RGBA', 'RGB' or 'L' image (4, 3 or 1 channels; 'I' for one channel above
      255), the values truncated to ``uint8`` (``int32`` for 'I').

    Raises:
      ImportError: no Pillow.
      ValueError: not rank 3, another ``data_format`` or number of channels (TF's
        messages).
    """
    data_format = backend.image_data_format() if data_format is None else data_format
    dtype = backend.floatx() if dtype is None else dtype
    image = _pil("array_to_img")
    x = np.asarray(x, dtype=dtype)
    if x.ndim != 3:
        raise ValueError(
            f"Expected image array to have rank 3 (single image). Got array with shape: {x.shape}"
        )
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError(f"Invalid data_format: {data_format}")
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        top = np.max(x)
        if top != 0:
            x /= top
        x *= 255
    channels = x.shape[2]
    if channels in (3, 4):
        return image.fromarray(x.astype("uint8"), "RGBA" if channels == 4 else "RGB")
    if channels == 1:
        if np.max(x) > 255:
            return image.fromarray(x[:, :, 0].astype("int32"), "I")
        return image.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError(f"Unsupported channel number: {channels}")


def img_to_array(img: Any, data_format: str | None = None, dtype: Any = None) -> np.ndarray:
    """The array of a PIL image (or anything ``np.asarray`` takes): rank 3, channels
    last or first.

    Args (TF's defaults): img, data_format=None (``image_data_format()``),
    dtype=None (``floatx()``).

    Raises:
      ValueError: another ``data_format``, an image neither 2-D nor 3-D (TF's
        messages).
    """
    data_format = backend.image_data_format() if data_format is None else data_format
    dtype = backend.floatx() if dtype is None else dtype
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError(f"Unknown data_format: {data_format}")
    x = np.asarray(img, dtype=dtype)
    if x.ndim == 3:
        return x.transpose(2, 0, 1) if data_format == "channels_first" else x
    if x.ndim == 2:
        return x.reshape((1, *x.shape) if data_format == "channels_first" else (*x.shape, 1))
    raise ValueError(f"Unsupported image shape: {x.shape}")


def save_img(
    path: Any,
    x: Any,
    data_format: str | None = None,
    file_format: str | None = None,
    scale: bool = True,
    **kwargs: Any,
) -> None:
    """Writes the array ``x`` as an image file (``array_to_img``, then Pillow's
    ``save``; an RGBA image saved as JPEG converted to RGB with TF's warning).

    Args (TF's defaults): path (a path or a file object), x, data_format=None,
    file_format=None (from the file's extension), scale=True, kwargs (Pillow's).

    .. note:: A path is written atomically (a temporary file with the same
       extension in its directory, then renamed); TF writes it in place.
    """
    data_format = backend.image_data_format() if data_format is None else data_format
    img = array_to_img(x, data_format=data_format, scale=scale)
    if img.mode == "RGBA" and file_format in ("jpg", "jpeg"):
        warnings.warn(
            "The JPG format does not support RGBA images, converting to RGB.", stacklevel=2
        )
        img = img.convert("RGB")
    if not isinstance(path, (str, bytes, os.PathLike)):
        img.save(path, format=file_format, **kwargs)
        return
    target = os.fsdecode(path)
    fd, partial = tempfile.mkstemp(
        dir=os.path.dirname(os.path.abspath(target)),
        prefix=os.path.basename(target) + ".",
        suffix=os.path.splitext(target)[1],
    )
    os.close(fd)
    try:
        img.save(partial, format=file_format, **kwargs)
        os.replace(partial, target)
    finally:
        if os.path.exists(partial):
            os.remove(partial)


def load_img(
    path: Any,
    grayscale: bool = False,
    color_mode: str = "rgb",
    target_size: tuple[int, int] | None = None,
    interpolation: str = "nearest",
    keep_aspect_ratio: bool = False,
) -> Any:
    """A PIL image read from ``path``, converted to ``color_mode`` and resized.

    Args (TF's defaults): path (a path or ``io.BytesIO``), grayscale=False
    (deprecated: ``color_mode='grayscale'``), color_mode='rgb' ('grayscale',
    'rgb', 'rgba'), target_size=None (``(height, width)``), interpolation='nearest'
    (Pillow's nearest, bilinear, bicubic, hamming, box, lanczos),
    keep_aspect_ratio=False (crop the centre to the target's aspect ratio first).

    Raises:
      ImportError: no Pillow.
      TypeError: another kind of ``path``.
      ValueError: another ``color_mode`` or ``interpolation`` (TF's messages).
    """
    if grayscale:
        warnings.warn('grayscale is deprecated. Please use color_mode = "grayscale"', stacklevel=2)
        color_mode = "grayscale"
    image = _pil("load_img")
    if isinstance(path, io.BytesIO):
        img = image.open(path)
    elif isinstance(path, (pathlib.Path, bytes, str)):
        if isinstance(path, pathlib.Path):
            path = str(path.resolve())
        with open(path, "rb") as f:
            img = image.open(io.BytesIO(f.read()))
    else:
        raise TypeError(f"path should be path-like or io.BytesIO, not {type(path)}")
    modes = {"grayscale": ("L", ("L", "I;16", "I")), "rgba": ("RGBA", ("RGBA",))}
    modes["rgb"] = ("RGB", ("RGB",))
    if color_mode not in modes:
        raise ValueError('color_mode must be "grayscale", "rgb", or "rgba"')
    convert_to, kept = modes[color_mode]
    if img.mode not in kept:
        img = img.convert(convert_to)
    if target_size is None:
        return img
    size = (target_size[1], target_size[0])
    if img.size == size:
        return img
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(
            f"Invalid interpolation method {interpolation} specified. Supported methods "
            f"are {', '.join(_INTERPOLATIONS)}"
        )
    resample = getattr(image.Resampling, interpolation.upper())
    if not keep_aspect_ratio:
        return img.resize(size, resample)
    width, height = img.size
    crop_height = min(height, (width * size[1]) // size[0])
    crop_width = min(width, (height * size[0]) // size[1])
    left, top = (width - crop_width) // 2, (height - crop_height) // 2
    return img.resize(size, resample, box=[left, top, left + crop_width, top + crop_height])
