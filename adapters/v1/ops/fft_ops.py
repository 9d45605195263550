"""TF's FFT ops (``tf.signal.fft``... ``tf.spectral``; ops ``FFT``, ``IFFT``, ``FFT2D``,
``RFFT``, ``IRFFT``, ``FFTND``...) on the op table, with TF's registered gradients.

.. math::

   \\mathrm{fft}(x)_k = \\sum_{n=0}^{N-1} x_n e^{-2\\pi i k n / N}, \\qquad
   \\mathrm{ifft}(y)_n = \\frac{1}{N} \\sum_{k=0}^{N-1} y_k e^{2\\pi i k n / N}

over the innermost 1, 2 or 3 dimensions (``fftnd``: over ``axes``). ``rfft`` of a
real signal keeps the ``N // 2 + 1`` non-negative frequencies; ``irfft`` is its
inverse (the imaginary parts of the zero and Nyquist bins are ignored).
``fft_length`` crops or zero-pads the signal (``rfft``) or the half spectrum
(``irfft``: ``fft_length[-1] // 2 + 1`` bins) on each transformed dimension.

Values: XLA's CPU FFT and TF's CPU FFT (both DUCC) agree bit for bit on every size
measured (``tests/interop/test_signal_interop.py``). Gradients are TF's registered
formulas (``FFT``: ``ifft(grad) * N``; ``RFFT``: ``irfft`` plus TF's correction of
the zero and Nyquist bins...), computed as TF computes them, so they round as TF's.
``RFFT3D``/``IRFFT3D`` and the ``*FFTND`` ops have no gradient in TF: ``tf.gradients``
through them raises TF's ``LookupError``.

.. note:: Gradients of complex tensors follow JAX's convention in ``tf.gradients``
   (the conjugate of TF's, see ``gradients_impl``); gradients of real tensors
   through these ops (``rfft`` of a float signal, ``tf.complex(re, im)``) are TF's.
.. note:: TF 2.21 registers no CPU kernel for ``FFTND``/``IFFTND``/``RFFTND``/
   ``IRFFTND`` (its ``Session.run`` raises ``InvalidArgumentError``); jtrain computes
   them with the semantics TF documents (its GPU kernels: ``fft_length[i]`` crops or
   pads ``axes[i]``), checked against TF's fixed-rank FFTs of the same axes. TF's
   wrapper pads the innermost dimensions to ``fft_length`` whatever the axes, and so
   does jtrain. TF's shape function keeps the input's shape; jtrain's static shape is
   the output's. One ``fft_length`` per axis is required (``NotImplementedError``
   otherwise: TF's default ``fft_length``, the whole input shape, with fewer axes).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from adapters.v1.framework import ops, shape_values
from adapters.v1.framework.op_def import COMPLEX, FUNCTIONS, OpValueError, define, np_dtype
from adapters.v1.ops._no_gradient import without_gradient
from jtrain._numerics import rounded

__all__: list[str] = []

_FFT, _IFFT = lax.FftType.FFT, lax.FftType.IFFT
_RFFT, _IRFFT = lax.FftType.RFFT, lax.FftType.IRFFT


def _rank_at_least(x: Any, rank: int, op_type: str) -> None:
    if x.ndim < rank:
        raise OpValueError(
            f"Shape must be at least rank {rank} but is rank {x.ndim} for '{op_type}' with "
            f"input shapes: {list(x.shape)}."
        )


def _lengths(x: Any, fft_length: Any, rank: int, op_type: str) -> tuple[int, ...]:
    """``fft_length`` as ``rank`` Python ints (TF's checks of the op's shape function)."""
    lengths = np.asarray(fft_length).reshape(-1) if np.ndim(fft_length) else None
    if lengths is None:
        raise OpValueError(f"Shape must be rank 1 but is rank 0 for '{op_type}'")
    if lengths.size != rank:
        raise OpValueError(
            f"Dimension must be {rank} but is {lengths.size} for '{op_type}' with input "
            f"shapes: {list(x.shape)}, [{lengths.size}]."
        )
    for i, n in enumerate(lengths.tolist()):
        if n < 0:
            raise OpValueError(f"fft_length[{i}] must >= 0, but got: {n}")
    return tuple(int(n) for n in lengths.tolist())


def _pad_end(x: Any, sizes: Sequence[int]) -> Any:
    """``x`` zero-padded at the end of its innermost ``len(sizes)`` dimensions shorter
    than ``sizes``."""
    lead = x.ndim - len(sizes)
    inner = x.shape[lead:]
    pads = [(0, 0)] * lead + [(0, max(n - d, 0)) for n, d in zip(sizes, inner, strict=True)]
    return jnp.pad(x, pads) if any(p for _, p in pads) else x


def _fit(x: Any, sizes: Sequence[int]) -> Any:
    """``x`` cropped or zero-padded at the end of its innermost ``len(sizes)`` dimensions."""
    return _pad_end(x[(Ellipsis, *(slice(0, n) for n in sizes))], sizes)


def _size(shape: Sequence[int], rank: int) -> int:
    return math.prod(shape[len(shape) - rank :])


# --- complex FFTs: FFT, IFFT, FFT2D, IFFT2D, FFT3D, IFFT3D ---------------------------


@functools.cache
def _complex_fft(rank: int, inverse: bool) -> Callable[[Any], Any]:
    """The complex transform with TF's gradient: ``FFT``: ``ifft(grad) * N``;
    ``IFFT``: ``fft(grad) * (1 / N)`` (``N`` the transformed size; TF's
    ``_fft_grad``/``_ifft_grad``)."""

    @jax.custom_vjp
    def f(x: Any) -> Any:
        return lax.fft(x, _IFFT if inverse else _FFT, x.shape[x.ndim - rank :])

    def fwd(x: Any) -> tuple[Any, None]:
        return f(x), None

    def bwd(_: None, ct: Any) -> tuple[Any]:
        grad = jnp.conj(ct)  # TF's gradient of a complex tensor (JAX's is its conjugate)
        lengths = ct.shape[ct.ndim - rank :]
        n = _size(ct.shape, rank)
        real = np_dtype(ct.dtype).type(0).real.dtype
        if inverse:
            scale = jnp.asarray(np.asarray(1.0, real) / np.asarray(n, real), ct.dtype)
            back = lax.fft(grad, _FFT, lengths) * scale
        else:
            back = lax.fft(grad, _IFFT, lengths) * jnp.asarray(n, ct.dtype)
        return (jnp.conj(back),)

    f.defvjp(fwd, bwd)
    return f


def _complex_impl(rank: int, inverse: bool, op_type: str) -> Callable[[Any], Any]:
    def impl(input: Any) -> Any:  # noqa: A002 - TF's name
        _rank_at_least(input, rank, op_type)
        return _complex_fft(rank, inverse)(input)

    return impl


for _rank, _suffix in ((1, ""), (2, "2d"), (3, "3d")):
    for _inverse in (False, True):
        _name = ("ifft" if _inverse else "fft") + _suffix
        _type = _name.upper()
        define(
            (_name, f"signal.{_name}", f"spectral.{_name}"),
            _type,
            _complex_impl(_rank, _inverse, _type),
            params="input, name=None",
            allowed=COMPLEX,
            tf_gradient=(
                f"{'fft' if _inverse else 'ifft'}{_suffix}(grad) * "
                f"{'(1 / N)' if _inverse else 'N'}, N the transformed size"
            ),
        )


# --- real FFTs: RFFT, IRFFT, RFFT2D, IRFFT2D, RFFT3D, IRFFT3D ------------------------


def _rfft_tf_grad(grad: Any, n: int, rank: int) -> Any:
    """TF's ``_rfft_grad_helper``: the gradient of a real signal of ``n`` samples on
    its innermost dimension (``grad`` TF's gradient of the half spectrum)."""
    complex_dtype = grad.dtype
    real = np.dtype(np_dtype(complex_dtype).type(0).real.dtype)
    lengths = (*grad.shape[grad.ndim - rank : -1], n)
    is_even = jnp.asarray(1 - n % 2, complex_dtype)
    ymask = jnp.asarray(1 - 2 * (np.arange(n) % 2), complex_dtype)
    y0 = grad[..., 0:1]
    ym = grad[..., -1:]
    if rank == 1:
        extra = y0 + is_even * ym * ymask
    else:
        m = grad.shape[-2]
        ab = np.arange(m)[None, :] * np.arange(m)[:, None]
        mask = jnp.exp(
            jnp.asarray(-2j * np.pi, complex_dtype)
            * jnp.asarray(ab, complex_dtype)
            / jnp.asarray(m, complex_dtype)
        )
        mask = jnp.broadcast_to(mask, (*y0.shape[:-2], m, m))
        extra = jnp.matmul(mask, jnp.conj(y0))
        ym_term = jnp.matmul(mask, jnp.conj(ym))
        ym_term = jnp.tile(ym_term, (1,) * (grad.ndim - 1) + (n,)) * ymask
        extra = extra + is_even * ym_term
    half = _fit(grad, (*lengths[:-1], n // 2 + 1))
    irfft = lax.fft(half, _IRFFT, lengths)
    size = jnp.asarray(_size(lengths, rank), real)
    # (the product rounded before the sum, as TF's Mul then AddV2: no FMA)
    return jnp.asarray(0.5, real) * (rounded(irfft * size) + jnp.real(extra))


def _irfft_tf_grad(grad: Any, lengths: tuple[int, ...], width: int, rank: int) -> Any:
    """TF's ``_irfft_grad_helper``: the gradient of the half spectrum (last dimension
    ``width``) of an inverse real FFT of sizes ``lengths``."""
    real = np.dtype(grad.dtype)
    complex_dtype = np.result_type(real, np.complex64)
    is_odd = lengths[-1] % 2
    mask = np.concatenate(
        [np.ones(1, real), np.full(width - 2 + is_odd, 2.0, real), np.ones(1 - is_odd, real)]
    )
    rsize = np.reciprocal(np.asarray(_size(grad.shape, rank), real))
    rfft = lax.fft(_fit(grad, lengths), _RFFT, lengths)
    return rfft * jnp.asarray((rsize * mask).astype(real), complex_dtype)


def _grad_shape_error(op_type: str, given: tuple[int, ...], used: tuple[int, ...]) -> None:
    given = tuple(int(d) for d in given)  # (JAX's residuals hold typed ints)
    raise ValueError(
        f"Dimensions must be equal, but are {used[-1]} and {given[-1]} for the gradient of "
        f"'{op_type}': TF's gradient of {op_type} needs the input's transformed dimensions "
        f"to match fft_length (the op cropped {list(given)} to {list(used)}); crop the "
        "input before the op to differentiate it"
    )


@functools.cache
def _real_fft(rank: int, lengths: tuple[int, ...], op_type: str) -> Callable[[Any], Any]:
    """``RFFT`` of the ``rank`` innermost dimensions cropped to ``lengths`` (the input
    is padded before, as TF's wrapper does), with TF's gradient."""

    def forward(x: Any) -> Any:
        x = x[(Ellipsis, *(slice(0, n) for n in lengths))]
        return lax.fft(x, _RFFT, lengths)

    if rank == 3:
        return lambda x: forward(without_gradient(op_type)(x))

    @jax.custom_vjp
    def f(x: Any) -> Any:
        return forward(x)

    def fwd(x: Any) -> tuple[Any, tuple[int, ...]]:
        return f(x), tuple(x.shape[x.ndim - rank :])

    def bwd(given: tuple[int, ...], ct: Any) -> tuple[Any]:
        if given != lengths:
            _grad_shape_error(op_type, given, lengths)
        return (_rfft_tf_grad(jnp.conj(ct), lengths[-1], rank),)

    f.defvjp(fwd, bwd)
    return f


@functools.cache
def _inverse_real_fft(rank: int, lengths: tuple[int, ...], op_type: str) -> Callable[[Any], Any]:
    """``IRFFT`` of sizes ``lengths`` (the half spectrum cropped to
    ``lengths[-1] // 2 + 1`` bins, padded before as TF's wrapper), with TF's gradient."""
    half = (*lengths[:-1], lengths[-1] // 2 + 1)

    def forward(x: Any) -> Any:
        x = x[(Ellipsis, *(slice(0, n) for n in half))]
        return lax.fft(x, _IRFFT, lengths)

    if rank == 3:
        return lambda x: forward(without_gradient(op_type)(x))

    @jax.custom_vjp
    def f(x: Any) -> Any:
        return forward(x)

    def fwd(x: Any) -> tuple[Any, tuple[int, ...]]:
        return f(x), tuple(x.shape[x.ndim - rank :])

    def bwd(given: tuple[int, ...], ct: Any) -> tuple[Any]:
        if given != half:
            _grad_shape_error(op_type, given, half)
        return (jnp.conj(_irfft_tf_grad(ct, lengths, given[-1], rank)),)

    f.defvjp(fwd, bwd)
    return f


def _pad_to(x: Any, sizes: Sequence[int]) -> Any:
    """TF's ``_maybe_pad_for_rfft``: zeros after the innermost dimensions shorter than
    ``sizes`` (an input with an empty dimension is left as it is)."""
    return x if 0 in x.shape else _pad_end(x, sizes)


def _rfft_impl(rank: int, op_type: str) -> Callable[..., Any]:
    def impl(input_tensor: Any, fft_length: Any = None) -> Any:
        if input_tensor.ndim < rank:
            raise OpValueError(f"Shape {tuple(input_tensor.shape)} must have rank at least {rank}")
        if fft_length is None:
            fft_length = input_tensor.shape[input_tensor.ndim - rank :]
        lengths = _lengths(input_tensor, fft_length, rank, op_type)
        x = _pad_to(input_tensor, lengths)
        return _real_fft(rank, lengths, op_type)(x)

    return impl


def _irfft_impl(rank: int, op_type: str) -> Callable[..., Any]:
    def impl(input_tensor: Any, fft_length: Any = None) -> Any:
        if input_tensor.ndim < rank:
            raise OpValueError(f"Shape {tuple(input_tensor.shape)} must have rank at least {rank}")
        if fft_length is None:
            inner = list(input_tensor.shape[input_tensor.ndim - rank :])
            inner[-1] = max(0, 2 * (inner[-1] - 1))
            fft_length = inner
        lengths = _lengths(input_tensor, fft_length, rank, op_type)
        x = _pad_to(input_tensor, (*lengths[:-1], lengths[-1] // 2 + 1))
        return _inverse_real_fft(rank, lengths, op_type)(x)

    return impl


def _convert_real(name: str, dtypes_: tuple[str, ...], what: str, preferred: str):
    """The input of TF's ``rfft``/``irfft`` wrappers: converted with ``preferred`` dtype
    for Python values; another dtype raises TF's ``ValueError``."""

    def convert(value: Any) -> ops.Tensor:
        if isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_tensor"):
            tensor = ops.convert_to_tensor(value)
        else:
            try:
                tensor = ops.convert_to_tensor(value, dtype=preferred)
            except (TypeError, ValueError):
                tensor = ops.convert_to_tensor(value)
        if np_dtype(tensor.dtype).name not in dtypes_:
            raise ValueError(
                f"{what} requires {' or '.join(f'tf.{d}' for d in dtypes_)} inputs, got: {tensor}"
            )
        return tensor

    convert.__name__ = name
    return convert


_to_real = _convert_real("real", ("float32", "float64"), "RFFT", "float32")
_to_complex = _convert_real("complex", ("complex64", "complex128"), "IRFFT", "complex64")


def _tf_static_shape(
    given: tuple[Any, ...], out: tuple[Any, ...], fft_length: Any, rank: int
) -> tuple[Any, ...]:
    """The static shape TF gives a real FFT's output (``out`` the exact one): TF's
    wrapper pads with a ``Pad`` of computed paddings unless ``fft_length`` and the
    input's transformed dimensions are known (or a dimension is 0), which leaves every
    dimension unknown but those ``fft_length`` sets; an ``fft_length`` taken from an
    unknown dimension leaves the transformed dimensions unknown too."""
    inner = given[len(given) - rank :]
    constant = fft_length is None or shape_values.is_static(ops.convert_to_tensor(fft_length))
    if fft_length is None and None in inner:
        constant = False
    if (constant and None not in inner) or 0 in given:
        return out
    lead = (None,) * (len(out) - rank)
    return (*lead, *(out[len(out) - rank :] if constant else (None,) * rank))


_RANK_OF = {
    f"{kind}{suffix}": rank
    for rank, suffix in ((1, ""), (2, "2d"), (3, "3d"))
    for kind in ("rfft", "irfft")
}


def _wrapped(table_fn: Callable[..., Any], convert: Callable[[Any], ops.Tensor], public: str):
    """TF's Python wrapper around a real FFT op: converts and checks the input's dtype
    (``ValueError`` as TF), then builds the op."""

    def wrapper(input_tensor: Any, fft_length: Any = None, name: str | None = None) -> Any:
        x = convert(input_tensor)
        out = table_fn(x, fft_length, name=name)
        if x._shape is not None and out._shape is not None:
            out._shape = _tf_static_shape(x._shape, out._shape, fft_length, _RANK_OF[public])
        return out

    wrapper.__name__ = wrapper.__qualname__ = public
    wrapper.__doc__ = table_fn.__doc__
    wrapper._op_def = table_fn._op_def
    return wrapper


_REAL_NAMES: dict[str, Callable[..., Any]] = {}
for _rank, _suffix in ((1, ""), (2, "2d"), (3, "3d")):
    for _inverse in (False, True):
        _name = ("irfft" if _inverse else "rfft") + _suffix
        _type = _name.upper()
        _impl = (_irfft_impl if _inverse else _rfft_impl)(_rank, _type)
        _table = define(
            (f"signal.{_name}", f"spectral.{_name}"),
            _type,
            _impl,
            params="input_tensor, fft_length=None, name=None",
            tensors="input_tensor",
            default_name=_name,
            tf_gradient=(
                "TF registers none (LookupError)"
                if _rank == 3
                else (
                    "rfft(grad, fft_length) / N times [1, 2, ..., 2, (1)] (TF's _irfft_grad)"
                    if _inverse
                    else "(irfft(grad) * N + the zero and Nyquist bins' terms) / 2 "
                    "(TF's _rfft_grad)"
                )
            ),
        )
        _REAL_NAMES[_name] = _wrapped(_table, _to_complex if _inverse else _to_real, _name)
for _name, _fn in _REAL_NAMES.items():
    FUNCTIONS[f"signal.{_name}"] = FUNCTIONS[f"spectral.{_name}"] = _fn


# --- N-dimensional FFTs: FFTND, IFFTND, RFFTND, IRFFTND --------------------------------

_ND_KINDS = {
    # name: (op type, jnp transform, input dtypes, TF's error word, preferred dtype)
    "fftnd": ("FFTND", jnp.fft.fftn, COMPLEX, None, "complex64"),
    "ifftnd": ("IFFTND", jnp.fft.ifftn, COMPLEX, None, "complex64"),
    "rfftnd": ("RFFTND", jnp.fft.rfftn, ("float32", "float64"), "RFFT", "float32"),
    "irfftnd": ("IRFFTND", jnp.fft.irfftn, COMPLEX, "IRFFT", "complex64"),
}


def _nd_impl(kind: str) -> Callable[..., Any]:
    op_type, transform, _, _, _ = _ND_KINDS[kind]

    def impl(input_tensor: Any, fft_length: Any = None, axes: Any = None, norm: Any = None) -> Any:
        x = input_tensor
        axes = list(range(x.ndim)) if axes is None else [int(a) for a in np.ravel(axes)]
        if fft_length is None:
            lengths = list(x.shape)
            if kind == "irfftnd" and lengths:
                lengths[-1] = max(0, 2 * (lengths[-1] - 1))
        else:
            lengths = [int(n) for n in np.ravel(fft_length)]
        if len(lengths) != len(axes):
            raise NotImplementedError(
                f"tf.signal.{kind}: {len(lengths)} fft_length values for {len(axes)} axes; "
                "TF's kernel pairs fft_length[i] with axes[i]: give one length per axis"
            )
        if x.ndim < len(axes):
            raise OpValueError(f"Shape {tuple(x.shape)} must have rank at least {len(axes)}")
        # TF's wrapper pads the innermost dimensions to fft_length (whatever the axes)
        padded = list(lengths)
        if kind == "irfftnd" and padded:
            padded[-1] = padded[-1] // 2 + 1
        x = _pad_to(x, padded)
        if norm not in (None, "backward"):
            n = math.prod(lengths)
            scale = n if norm == "forward" else np.sqrt(n)
            factor = jnp.asarray(scale, x.dtype)
            x = x * factor if kind in ("ifftnd", "irfftnd") else x / factor
        x = without_gradient(op_type)(x)
        return transform(x, s=lengths, axes=axes).astype(
            np.result_type(x.dtype, np.complex64) if kind != "irfftnd" else x.real.dtype
        )

    return impl


def _nd_wrapper(kind: str, table_fn: Callable[..., Any]) -> Callable[..., Any]:
    op_type, _, allowed, word, preferred = _ND_KINDS[kind]

    def wrapper(
        input_tensor: Any,
        fft_length: Any = None,
        axes: Any = None,
        norm: Any = None,
        name: str | None = None,
    ) -> Any:
        if isinstance(input_tensor, ops.Tensor) or hasattr(input_tensor, "_as_graph_tensor"):
            x = ops.convert_to_tensor(input_tensor)
        else:
            try:
                x = ops.convert_to_tensor(input_tensor, dtype=preferred)
            except (TypeError, ValueError):
                x = ops.convert_to_tensor(input_tensor)
        dtype = np_dtype(x.dtype).name
        if dtype not in allowed:
            if word is None:
                raise TypeError(
                    f"Value passed to parameter 'input' has DataType {dtype} not in list of "
                    f"allowed values: {', '.join(allowed)}"
                )
            need = " or ".join(f"tf.{d}" for d in allowed)
            raise ValueError(f"{word} requires {need} inputs, got: {x}")
        if norm not in (None, "backward") and fft_length is None:
            raise TypeError(
                f"tf.signal.{kind}: norm={norm!r} without fft_length: TF 2.21's graph mode "
                "raises OperatorNotAllowedInGraphError (a TypeError) here, iterating over "
                "the fft_length it infers; give fft_length"
            )
        return table_fn(x, fft_length, axes, norm, name=name)

    wrapper.__name__ = wrapper.__qualname__ = kind
    wrapper.__doc__ = table_fn.__doc__
    wrapper._op_def = table_fn._op_def
    return wrapper


for _kind, (_type, *_) in _ND_KINDS.items():
    _table = define(
        (_kind, f"signal.{_kind}"),
        _type,
        _nd_impl(_kind),
        params="input_tensor, fft_length=None, axes=None, norm=None, name=None",
        tensors="input_tensor",
        default_name=_kind,
        tf_gradient="TF registers none (LookupError)",
    )
    FUNCTIONS[_kind] = FUNCTIONS[f"signal.{_kind}"] = _nd_wrapper(_kind, _table)


# --- fftshift / ifftshift (TF: a Roll by half of each dimension) -----------------------


def _shift(x: Any, axes: Any, name: str | None, default_name: str, sign: int) -> ops.Tensor:
    from adapters import v1 as tf

    with tf.name_scope(name, default_name) as scope:
        x = ops.convert_to_tensor(x)
        if axes is None:
            axes = tuple(range(x.shape.ndims))
            shift = tf.shape(x) // 2
        elif isinstance(axes, int):
            shift = tf.shape(x)[axes] // 2
        else:
            rank = tf.rank(x)
            axes = tf.where(tf.less(axes, 0), axes + rank, axes)
            shift = tf.gather(tf.shape(x), axes) // 2
        return tf.roll(x, -shift if sign < 0 else shift, axes, name=scope)


def fftshift(x: Any, axes: Any = None, name: str | None = None) -> ops.Tensor:
    """The zero-frequency bin moved to the centre (``tf.signal.fftshift``): a roll by
    ``n // 2`` along each of ``axes`` (default all), as ``numpy.fft.fftshift``.

    Args:
      x: a tensor.
      axes: an int or a sequence of ints (default None: every axis).
      name: the name scope (default ``"fftshift"``).

    Returns:
      ``x`` shifted.
    """
    return _shift(x, axes, name, "fftshift", 1)


def ifftshift(x: Any, axes: Any = None, name: str | None = None) -> ops.Tensor:
    """The inverse of ``fftshift`` (``tf.signal.ifftshift``): a roll by ``-(n // 2)``
    (one sample apart from ``fftshift`` for odd lengths).

    Args:
      x: a tensor.
      axes: an int or a sequence of ints (default None: every axis).
      name: the name scope (default ``"ifftshift"``).

    Returns:
      ``x`` shifted back.
    """
    return _shift(x, axes, name, "ifftshift", -1)


FUNCTIONS["signal.fftshift"] = fftshift
FUNCTIONS["signal.ifftshift"] = ifftshift
