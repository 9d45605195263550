"""PNG files in pure Python and NumPy (zlib for the compressed stream).

:func:`decode` reads every PNG that the specification allows (grayscale, RGB, palette,
with alpha or a ``tRNS`` transparency chunk, bit depths 1 to 16, Adam7 interlacing)
and converts it as TensorFlow's ``decode_png`` does through libpng
(``tensorflow/core/lib/png/png_io.cc``): the number of channels asked for decides
whether alpha is kept, added (opaque) or dropped and whether colour becomes gray
(libpng's Rec. 601 weights in 15-bit fixed point) or gray colour (replicated), and 8
or 16 bits per sample are returned (16 from 8 by ``v * 257``, 8 from 16 by the high
byte). :func:`encode` writes an 8- or 16-bit image with libpng's choices (one row
filter per row by the smallest sum of absolute values, its zlib window and header,
8 KiB IDAT chunks), so TF's ``encode_png`` bytes, and :func:`write` any PNG from raw
samples (tests make every kind of file with it).

Ancillary chunks other than ``tRNS`` (gamma, colour profiles, text) are read past:
libpng applies none of them under TF's settings, but for one case: colour to gray of a
file with a ``gAMA`` (other than 1.0) or ``sRGB`` chunk, which libpng computes in
linear light; :func:`decode` raises ``NotImplementedError`` for it.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator

import numpy as np

__all__ = ["PNGError", "decode", "encode", "write"]

SIGNATURE = b"\x89PNG\r\n\x1a\n"
GRAY, RGB, PALETTE, GRAY_ALPHA, RGB_ALPHA = 0, 2, 3, 4, 6
_SAMPLES = {GRAY: 1, RGB: 3, PALETTE: 1, GRAY_ALPHA: 2, RGB_ALPHA: 4}
_DEPTHS = {
    GRAY: (1, 2, 4, 8, 16),
    RGB: (8, 16),
    PALETTE: (1, 2, 4, 8),
    GRAY_ALPHA: (8, 16),
    RGB_ALPHA: (8, 16),
}
# Adam7 passes: (x start, y start, x step, y step).
_ADAM7 = (
    (0, 0, 8, 8),
    (4, 0, 8, 8),
    (0, 4, 4, 8),
    (2, 0, 4, 4),
    (0, 2, 2, 4),
    (1, 0, 2, 2),
    (0, 1, 1, 2),
)
# libpng's png_set_rgb_to_gray(png_ptr, 1, 0.299, 0.587) in 15-bit fixed point.
_RED, _GREEN = 29900 * 32768 // 100000, 58700 * 32768 // 100000
_BLUE = 32768 - _RED - _GREEN


class PNGError(ValueError):
    """Bad PNG data. ``header`` tells whether it was found before the image data
    (TF: "Invalid PNG. Failed to initialize decoder.") or in it ("Invalid PNG data")."""

    def __init__(self, message: str, header: bool):
        super().__init__(message)
        self.header = header


class _Info:
    width: int
    height: int
    bit_depth: int
    color_type: int
    interlace: int
    palette: np.ndarray | None = None
    trns: bytes | None = None
    gamma: int | None = None  # gAMA's value (x 100000); sRGB counts as 45455


def _chunks(data: bytes) -> Iterator[tuple[bytes, bytes, bool]]:
    """(type, payload, header) for each chunk; ``header`` before the first IDAT."""
    pos = len(SIGNATURE)
    header = True
    while True:
        if pos + 8 > len(data):
            raise PNGError("PNG data ends before IEND", header)
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        if kind == b"IDAT":
            header = False  # libpng's header reading stops at the first IDAT's name
        end = pos + 12 + length
        if length > 0x7FFFFFFF or end > len(data):
            raise PNGError(f"PNG chunk {kind!r} is truncated", header)
        payload = data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[end - 4 : end])
        critical = not kind[0] & 0x20
        if zlib.crc32(kind + payload) != crc:
            if critical:
                raise PNGError(f"PNG chunk {kind!r}: CRC error", header)
            pos = end
            continue  # libpng drops an ancillary chunk whose CRC is wrong, with a warning
        yield kind, payload, header
        if kind == b"IEND":
            return
        pos = end


def _read(data: bytes) -> tuple[_Info, bytes]:
    if not data.startswith(SIGNATURE):
        raise PNGError("not a PNG file", True)
    info = _Info()
    idat: list[bytes] = []
    seen_ihdr = False
    for kind, payload, header in _chunks(data):
        if kind == b"IHDR":
            if seen_ihdr or len(payload) != 13:
                raise PNGError("bad IHDR", True)
            seen_ihdr = True
            w, h, depth, color, comp, filt, inter = struct.unpack(">IIBBBBB", payload)
            if color not in _DEPTHS or depth not in _DEPTHS[color]:
                raise PNGError(f"bad bit depth {depth} for colour type {color}", True)
            if not (0 < w <= 0x7FFFFFFF and 0 < h <= 0x7FFFFFFF) or comp or filt or inter > 1:
                raise PNGError("bad IHDR", True)
            info.width, info.height, info.bit_depth = w, h, depth
            info.color_type, info.interlace = color, inter
        elif not seen_ihdr:
            raise PNGError(f"PNG chunk {kind!r} before IHDR", True)
        elif kind == b"PLTE":
            if len(payload) % 3 or not payload or len(payload) > 768:
                raise PNGError("bad PLTE", True)
            info.palette = np.frombuffer(payload, np.uint8).reshape(-1, 3)
        elif kind == b"tRNS" and header:
            info.trns = payload
        elif kind == b"gAMA" and header and len(payload) == 4:
            info.gamma = struct.unpack(">I", payload)[0]
        elif kind == b"sRGB" and header:
            info.gamma = 45455
        elif kind == b"IDAT":
            if info.color_type == PALETTE and info.palette is None:
                raise PNGError("palette image without PLTE", True)
            idat.append(payload)
    if not idat:
        raise PNGError("no image data", True)
    if info.trns is not None:
        info.trns = _valid_trns(info)
    return info, b"".join(idat)


def _valid_trns(info: _Info) -> bytes | None:
    """The ``tRNS`` chunk libpng keeps (it drops invalid ones with a warning)."""
    trns = info.trns or b""
    if info.color_type == PALETTE:
        assert info.palette is not None
        return trns[: len(info.palette)] or None
    if info.color_type == GRAY and len(trns) == 2:
        return trns
    if info.color_type == RGB and len(trns) == 6:
        return trns
    return None


def _passes(info: _Info) -> list[tuple[int, int, int, int, int, int]]:
    """(x0, y0, dx, dy, width, height) of each pass with pixels."""
    if not info.interlace:
        return [(0, 0, 1, 1, info.width, info.height)]
    out = []
    for x0, y0, dx, dy in _ADAM7:
        w = (info.width - x0 + dx - 1) // dx if info.width > x0 else 0
        h = (info.height - y0 + dy - 1) // dy if info.height > y0 else 0
        if w and h:
            out.append((x0, y0, dx, dy, w, h))
    return out


def _unfilter(raw: memoryview, pos: int, rows: int, row_bytes: int, bpp: int) -> np.ndarray:
    """Rows ``[rows, row_bytes]`` of filtered data at ``raw[pos:]``, unfiltered."""
    out = np.zeros((rows, row_bytes), np.uint8)
    prior = np.zeros(row_bytes, np.uint8)
    stride = row_bytes + 1
    for y in range(rows):
        start = pos + y * stride
        kind = raw[start]
        line = np.frombuffer(raw[start + 1 : start + stride], np.uint8)
        if kind == 0:
            cur = line.copy()
        elif kind == 1:  # Sub: a running sum along each byte of a pixel, modulo 256
            pad = (-row_bytes) % bpp
            cols = np.concatenate([line, np.zeros(pad, np.uint8)]).reshape(-1, bpp)
            cur = np.cumsum(cols, axis=0, dtype=np.uint8).reshape(-1)[:row_bytes]
        elif kind == 2:  # Up
            cur = line + prior
        elif kind in (3, 4):
            cur = _sequential(kind, line, prior, bpp)
        else:
            raise PNGError(f"bad filter type {kind}", False)
        out[y] = cur
        prior = cur
    return out


def _sequential(kind: int, line: np.ndarray, prior: np.ndarray, bpp: int) -> np.ndarray:
    """Average (3) and Paeth (4) filters: each byte needs the decoded one to its left."""
    cur = bytearray(line.tobytes())
    up = prior.tobytes()
    n = len(cur)
    if kind == 3:
        for i in range(min(bpp, n)):
            cur[i] = (cur[i] + (up[i] >> 1)) & 0xFF
        for i in range(bpp, n):
            cur[i] = (cur[i] + ((cur[i - bpp] + up[i]) >> 1)) & 0xFF
    else:
        for i in range(min(bpp, n)):
            cur[i] = (cur[i] + up[i]) & 0xFF
        for i in range(bpp, n):
            a = cur[i - bpp]
            b = up[i]
            c = up[i - bpp]
            p = a + b - c
            pa = abs(p - a)
            pb = abs(p - b)
            pc = abs(p - c)
            pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            cur[i] = (cur[i] + pred) & 0xFF
    return np.frombuffer(bytes(cur), np.uint8)


def _samples(rows: np.ndarray, width: int, depth: int, channels: int) -> np.ndarray:
    """Unfiltered rows as samples ``[rows, width, channels]`` (uint16 for 16 bits)."""
    if depth == 16:
        vals = rows.view(">u2").astype(np.uint16)
    elif depth == 8:
        vals = rows
    else:
        bits = np.unpackbits(rows, axis=1).reshape(rows.shape[0], -1, depth)
        weights = (1 << np.arange(depth - 1, -1, -1)).astype(np.uint8)
        vals = (bits * weights).sum(axis=2, dtype=np.uint8)
    return vals[:, : width * channels].reshape(rows.shape[0], width, channels)


def _pixels(info: _Info, stream: bytes) -> np.ndarray:
    """The image's samples ``[height, width, samples per pixel]`` at its bit depth."""
    try:
        raw = zlib.decompressobj().decompress(stream)
    except zlib.error as e:
        raise PNGError(f"bad compressed data: {e}", False) from None
    channels = _SAMPLES[info.color_type]
    bits = channels * info.bit_depth
    bpp = max(1, bits // 8)
    dtype = np.uint16 if info.bit_depth == 16 else np.uint8
    image = np.zeros((info.height, info.width, channels), dtype)
    view = memoryview(raw)
    pos = 0
    for x0, y0, dx, dy, w, h in _passes(info):
        row_bytes = (w * bits + 7) // 8
        if pos + h * (row_bytes + 1) > len(raw):
            raise PNGError("not enough image data", False)
        rows = _unfilter(view, pos, h, row_bytes, bpp)
        pos += h * (row_bytes + 1)
        image[y0::dy, x0::dx] = _samples(rows, w, info.bit_depth, channels)
    return image


def _expand_low_bits(gray: np.ndarray, depth: int) -> np.ndarray:
    """1, 2 and 4-bit gray scaled to 8 bits (libpng's expand_gray_1_2_4_to_8)."""
    return (gray.astype(np.uint16) * (255 // ((1 << depth) - 1))).astype(np.uint8)


def _rgb_to_gray(rgb: np.ndarray) -> np.ndarray:
    """libpng's rgb_to_gray without gamma: Rec. 601 weights in 15-bit fixed point,
    truncated for 8-bit samples and rounded for 16-bit ones; a pixel whose channels
    are equal keeps its value."""
    r, g, b = (rgb[..., i].astype(np.uint64) for i in range(3))
    half = 16384 if rgb.dtype == np.uint16 else 0
    gray = (_RED * r + _GREEN * g + _BLUE * b + half) >> 15
    same = (r == g) & (r == b)
    return np.where(same, r, gray).astype(rgb.dtype)


def decode(data: bytes, channels: int = 0, bits: int = 8) -> np.ndarray:
    """The image in ``data`` as ``[height, width, channels]`` samples, as TF's libpng
    settings convert it.

    Args:
      data: a PNG file's bytes.
      channels: 0 (the file's: 3 for a palette, 4 with ``tRNS``), 1 (gray), 2 (gray
        and alpha), 3 (RGB) or 4 (RGBA).
      bits: 8 (uint8 result) or 16 (uint16).

    Raises:
      PNGError: the data is not a valid PNG.
      NotImplementedError: colour to gray (``channels`` 1 or 2) of a file with a
        ``gAMA`` (other than 1.0) or ``sRGB`` chunk.
    """
    info, stream = _read(data)
    pixels = _pixels(info, stream)
    color, depth = info.color_type, info.bit_depth
    has_alpha = color in (GRAY_ALPHA, RGB_ALPHA)
    has_trns = info.trns is not None
    if channels == 0:
        channels = (4 if has_trns else 3) if color == PALETTE else _SAMPLES[color]
    if channels < 3 and color & 2 and info.gamma not in (None, 100000):
        raise NotImplementedError(
            "a PNG with a gAMA or sRGB chunk converted from colour to gray: libpng (TF) "
            "converts in linear light through its gamma tables, which jtrain does not "
            "reproduce; decode with channels=3 (exact) and convert to gray after"
        )
    want_alpha = channels % 2 == 0
    alpha: np.ndarray | None = None
    # Expansion: palette to RGB(A), gray below 8 bits to 8 bits, tRNS to alpha.
    if color == PALETTE:
        assert info.palette is not None
        index = pixels[..., 0]
        palette = info.palette
        if index.size and int(index.max()) >= len(palette):
            # libpng 1.6 pads a short palette with black (index out of range).
            palette = np.concatenate([palette, np.zeros((256 - len(palette), 3), np.uint8)])
        color_values = palette[index]
        if has_trns:
            table = np.full(256, 255, np.uint8)
            trns = np.frombuffer(info.trns or b"", np.uint8)
            table[: len(trns)] = trns
            alpha = table[index]
        values = color_values
        is_gray = False
        depth_now = 8
    else:
        values = pixels[..., : 3 if color & 2 else 1]
        if has_alpha:
            alpha = pixels[..., -1]
        is_gray = not color & 2
        depth_now = depth
        if has_trns and want_alpha:
            assert info.trns is not None
            key = np.array(struct.unpack(f">{len(info.trns) // 2}H", info.trns), np.uint32)
            key &= (1 << depth) - 1 if depth < 16 else 0xFFFF
            transparent = np.all(values.astype(np.uint32) == key, axis=-1)
            top = 255 if depth <= 8 else 65535
            alpha = np.where(transparent, 0, top).astype(values.dtype)
        if is_gray and depth < 8:
            values = _expand_low_bits(values, depth)
            if alpha is not None:
                alpha = np.where(alpha == 0, 0, 255).astype(np.uint8)
            depth_now = 8
    if not want_alpha:
        alpha = None
    # Colour to gray, or gray to colour.
    if channels < 3 and not is_gray:
        values = _rgb_to_gray(values)[..., None]
    elif channels >= 3 and is_gray:
        values = np.repeat(values, 3, axis=-1)
    if want_alpha and alpha is None:
        # png_set_add_alpha with the filler (1 << bit_depth) - 1 of the file's depth,
        # written as the low byte of each sample (1 for a 1-bit file, as libpng does).
        filler = (1 << depth) - 1
        if depth_now == 16 and bits == 8:  # added after the high bytes are kept
            alpha = np.full(values.shape[:2], filler << 8 & 0xFF00, np.uint16)
        elif depth_now == 16:
            alpha = np.full(values.shape[:2], filler, np.uint16)
        else:
            alpha = np.full(values.shape[:2], filler & 0xFF, np.uint8)
    out = values if alpha is None else np.concatenate([values, alpha[..., None]], axis=-1)
    if depth_now == 16 and bits == 8:
        out = (out >> 8).astype(np.uint8)
    elif depth_now <= 8 and bits == 16:
        out = out.astype(np.uint16) * np.uint16(257)
    return np.ascontiguousarray(out)


def _filter_rows(rows: np.ndarray, bpp: int) -> bytes:
    """Each row with the filter libpng's heuristic picks: the smallest sum of the
    filtered bytes read as signed values."""
    height, n = rows.shape
    cur = rows.astype(np.int16)
    up = np.vstack([np.zeros((1, n), np.int16), cur[:-1]])
    left = np.hstack([np.zeros((height, bpp), np.int16), cur[:, :-bpp]])
    upleft = np.hstack([np.zeros((height, bpp), np.int16), up[:, :-bpp]])
    p = left + up - upleft
    pa, pb, pc = np.abs(p - left), np.abs(p - up), np.abs(p - upleft)
    paeth = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, up, upleft))
    candidates = np.stack(
        [cur, cur - left, cur - up, cur - ((left + up) >> 1), cur - paeth]
    ).astype(np.uint8)
    signed = candidates.view(np.int8).astype(np.int32)
    cost = np.abs(signed).sum(axis=2)  # [5, height]
    choice = np.argmin(cost, axis=0)
    out = np.empty((height, n + 1), np.uint8)
    out[:, 0] = choice
    out[:, 1:] = candidates[choice, np.arange(height)]
    return out.tobytes()


def _chunk(kind: bytes, payload: bytes) -> bytes:
    crc = zlib.crc32(kind + payload)
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", crc)


def _pack(samples: np.ndarray, depth: int) -> np.ndarray:
    """Samples ``[rows, width, channels]`` as packed row bytes."""
    rows = samples.reshape(samples.shape[0], -1)
    if depth == 16:
        return rows.astype(">u2").view(np.uint8).reshape(rows.shape[0], -1)
    if depth == 8:
        return rows.astype(np.uint8)
    bits = (rows[..., None].astype(np.uint8) >> np.arange(depth - 1, -1, -1).astype(np.uint8)) & 1
    return np.packbits(bits.reshape(rows.shape[0], -1), axis=1)


def write(
    samples: np.ndarray,
    color_type: int,
    bit_depth: int,
    palette: np.ndarray | None = None,
    trns: bytes | None = None,
    interlace: bool = False,
    compression: int = -1,
    extra_chunks: tuple[tuple[bytes, bytes], ...] = (),
) -> bytes:
    """A PNG file holding ``samples`` ``[height, width, samples per pixel]`` (palette
    indices for ``color_type`` 3) as given: no conversion.

    Args:
      samples: integer samples, each below ``2 ** bit_depth``.
      color_type: 0 gray, 2 RGB, 3 palette, 4 gray and alpha, 6 RGBA.
      bit_depth: 1, 2, 4, 8 or 16 as the colour type allows.
      palette: ``[n, 3]`` uint8 colours (colour type 3).
      trns: the ``tRNS`` chunk's payload, if any.
      interlace: Adam7 interlacing.
      compression: zlib's level, -1 (zlib's default, 6) to 9.
      extra_chunks: (type, payload) chunks written before the image data.
    """
    samples = np.asarray(samples)
    height, width, channels = samples.shape
    header = struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, int(interlace))
    out = [SIGNATURE, _chunk(b"IHDR", header)]
    if palette is not None:
        out.append(_chunk(b"PLTE", np.asarray(palette, np.uint8).tobytes()))
    if trns is not None:
        out.append(_chunk(b"tRNS", trns))
    out.extend(_chunk(k, v) for k, v in extra_chunks)
    info = _Info()
    info.width, info.height, info.interlace = width, height, int(interlace)
    bpp = max(1, channels * bit_depth // 8)
    raw = b"".join(
        _filter_rows(_pack(samples[y0::dy, x0::dx], bit_depth), bpp)
        for x0, y0, dx, dy, _, _ in _passes(info)
    )
    level = zlib.Z_DEFAULT_COMPRESSION if compression < 0 else compression
    deflate = zlib.compressobj(level, zlib.DEFLATED, _window_bits(len(raw)), 9, zlib.Z_FILTERED)
    stream = bytearray(deflate.compress(raw) + deflate.flush())
    _optimize_cmf(stream, len(raw))
    # libpng writes an IDAT chunk each time its 8 KiB output buffer fills.
    out.extend(_chunk(b"IDAT", bytes(stream[i : i + 8192])) for i in range(0, len(stream), 8192))
    out.append(_chunk(b"IEND", b""))
    return b"".join(out)


def _window_bits(size: int) -> int:
    """libpng's zlib window for ``size`` bytes of filtered data: the smallest power of
    two holding them (and zlib's 262-byte lookahead), 2**9 at least."""
    bits = 15
    if size <= 16384:
        half = 1 << (bits - 1)
        while size + 262 <= half:
            half >>= 1
            bits -= 1
    return max(bits, 9)


def _optimize_cmf(stream: bytearray, size: int) -> None:
    """libpng's ``optimize_cmf``: the zlib header's window field lowered to the
    smallest window holding ``size`` bytes, its check bits recomputed."""
    cmf = stream[0]
    if size > 16384 or cmf & 0x0F != 8 or cmf & 0xF0 > 0x70:
        return
    cinfo = cmf >> 4
    half = 1 << (cinfo + 7)
    if size > half:
        return
    while True:
        half >>= 1
        cinfo -= 1
        if not (cinfo > 0 and size <= half):
            break
    cmf = (cmf & 0x0F) | (cinfo << 4)
    flag = stream[1] & 0xE0
    flag += 0x1F - ((cmf << 8) + flag) % 0x1F
    stream[0], stream[1] = cmf, flag


def encode(image: np.ndarray, compression: int = -1) -> bytes:
    """``image`` ``[height, width, channels]`` (uint8 or uint16; 1 to 4 channels: gray,
    gray and alpha, RGB, RGBA) as a PNG file of its bit depth, not interlaced."""
    image = np.asarray(image)
    color = {1: GRAY, 2: GRAY_ALPHA, 3: RGB, 4: RGB_ALPHA}[image.shape[2]]
    depth = 16 if image.dtype == np.uint16 else 8
    return write(image, color, depth, compression=compression)
