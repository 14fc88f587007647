"""The standard's ``fft`` extension for TensorFlow, through ``tf.signal``.

``tf.signal`` transforms the innermost axis only (``fft``, ``ifft``, ``rfft``,
``irfft``; ``ifft`` already divides by the length): the axis asked for is
swapped to the end and back, ``n`` crops or zero-pads it first (``rfft`` and
``irfft`` do that themselves from ``fft_length``), and the standard's ``norm``
scales the result. The n-dimensional transforms apply the 1-d ones axis by axis.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import tensorflow as tf

Tensor = Any  # a tf.Tensor

_COMPLEX_OF = {tf.float32: tf.complex64, tf.float64: tf.complex128,
               tf.complex64: tf.complex64, tf.complex128: tf.complex128}
_NORMS = ("backward", "ortho", "forward")


def _complex(x: Tensor) -> Tensor:
    target = _COMPLEX_OF.get(x.dtype, tf.complex128)
    return x if x.dtype == target else tf.cast(x, target)


def _check_norm(norm: str) -> None:
    if norm not in _NORMS:
        raise ValueError(f"norm must be one of {_NORMS}, got {norm!r}")


def _along(x: Tensor, axis: int, transform: Callable[[Tensor], Tensor]) -> Tensor:
    """``transform`` (of the innermost axis) applied along ``axis``."""
    if x.ndim == 0:
        raise ValueError("a transform needs an array of at least one dimension")
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"axis {axis} is out of range for {x.ndim} dimensions")
    axis %= x.ndim
    last = x.ndim - 1
    if axis == last:
        return transform(x)
    perm = list(range(x.ndim))
    perm[axis], perm[last] = last, axis  # a swap: its own inverse
    return tf.transpose(transform(tf.transpose(x, perm)), perm)


def _resize(x: Tensor, n: int | None) -> Tensor:
    """The innermost axis cropped or zero-padded to ``n``."""
    if n is None:
        return x
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    m = x.shape[-1]
    if m >= n:
        return x[..., :n]
    pad = [[0, 0]] * (x.ndim - 1) + [[0, n - m]]
    return tf.pad(x, pad)


def _scale(y: Tensor, n: int, norm: str, inverse: bool) -> Tensor:
    """The standard's ``norm`` for a transform of length ``n`` (TF's inverse
    transforms already divide by ``n``).
    """
    _check_norm(norm)
    if norm == "backward":
        return y
    factor = (math.sqrt(n) if norm == "ortho" else n) if inverse else \
        (1 / math.sqrt(n) if norm == "ortho" else 1 / n)
    real = y.dtype.real_dtype if y.dtype.is_complex else y.dtype
    return y * tf.cast(tf.constant(factor, real), y.dtype)


def _complex_transform(op: Callable[[Tensor], Tensor],
                       inverse: bool) -> Callable[..., Tensor]:
    def transform(x: Tensor, /, *, n: int | None = None, axis: int = -1,
                  norm: str = "backward") -> Tensor:
        _check_norm(norm)

        def inner(v: Tensor) -> Tensor:
            v = _resize(v, n)
            return _scale(op(v), v.shape[-1], norm, inverse)
        return _along(_complex(x), axis, inner)
    return transform


fft = _complex_transform(tf.signal.fft, False)
ifft = _complex_transform(tf.signal.ifft, True)


def rfft(x: Tensor, /, *, n: int | None = None, axis: int = -1,
         norm: str = "backward") -> Tensor:
    _check_norm(norm)
    if x.dtype.is_complex:
        raise TypeError("rfft(): x must be real")

    def inner(v: Tensor) -> Tensor:
        length = v.shape[-1] if n is None else n
        if length < 1:
            raise ValueError(f"n must be at least 1, got {length}")
        return _scale(tf.signal.rfft(v, fft_length=[length]), length, norm, False)
    return _along(x if x.dtype.is_floating else tf.cast(x, tf.float64), axis, inner)


def irfft(x: Tensor, /, *, n: int | None = None, axis: int = -1,
          norm: str = "backward") -> Tensor:
    _check_norm(norm)

    def inner(v: Tensor) -> Tensor:
        length = 2 * (v.shape[-1] - 1) if n is None else n
        if length < 1:
            raise ValueError(f"n must be at least 1, got {length}")
        return _scale(tf.signal.irfft(v, fft_length=[length]), length, norm, True)
    return _along(_complex(x), axis, inner)


def _swap(norm: str) -> str:
    _check_norm(norm)
    return {"backward": "forward", "forward": "backward"}.get(norm, norm)


def hfft(x: Tensor, /, *, n: int | None = None, axis: int = -1,
         norm: str = "backward") -> Tensor:
    return irfft(tf.math.conj(_complex(x)), n=n, axis=axis, norm=_swap(norm))


def ihfft(x: Tensor, /, *, n: int | None = None, axis: int = -1,
          norm: str = "backward") -> Tensor:
    return tf.math.conj(rfft(x, n=n, axis=axis, norm=_swap(norm)))


def _shape_and_axes(x: Tensor, s: Sequence[int] | None,
                    axes: Sequence[int] | None) -> tuple[list[Any], list[int]]:
    if axes is None:
        axes = list(range(x.ndim)) if s is None else \
            list(range(x.ndim - len(s), x.ndim))
    axes = list(axes)
    sizes: list[Any] = [None] * len(axes) if s is None else list(s)
    if len(sizes) != len(axes):
        raise ValueError(f"s and axes have different lengths: {len(sizes)} and "
                         f"{len(axes)}")
    sizes = [None if size == -1 else size for size in sizes]
    return sizes, axes


def _n_dimensional(one: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def transform(x: Tensor, /, *, s: Sequence[int] | None = None,
                  axes: Sequence[int] | None = None,
                  norm: str = "backward") -> Tensor:
        _check_norm(norm)
        sizes, axes_ = _shape_and_axes(x, s, axes)
        result = _complex(x)
        for size, axis in zip(sizes, axes_, strict=True):
            result = one(result, n=size, axis=axis, norm=norm)
        return result
    return transform


fftn = _n_dimensional(fft)
ifftn = _n_dimensional(ifft)


def rfftn(x: Tensor, /, *, s: Sequence[int] | None = None,
          axes: Sequence[int] | None = None, norm: str = "backward") -> Tensor:
    sizes, axes_ = _shape_and_axes(x, s, axes)
    if not axes_:
        raise ValueError("rfftn(): axes must name at least one axis")
    result = rfft(x, n=sizes[-1], axis=axes_[-1], norm=norm)
    for size, axis in zip(sizes[:-1], axes_[:-1], strict=True):
        result = fft(result, n=size, axis=axis, norm=norm)
    return result


def irfftn(x: Tensor, /, *, s: Sequence[int] | None = None,
           axes: Sequence[int] | None = None, norm: str = "backward") -> Tensor:
    sizes, axes_ = _shape_and_axes(x, s, axes)
    if not axes_:
        raise ValueError("irfftn(): axes must name at least one axis")
    result = _complex(x)
    for size, axis in zip(sizes[:-1], axes_[:-1], strict=True):
        result = ifft(result, n=size, axis=axis, norm=norm)
    return irfft(result, n=sizes[-1], axis=axes_[-1], norm=norm)


def _frequencies(values: Tensor, spacing: float, n: int, dtype: Any,
                 device: Any) -> Tensor:
    result = values / tf.constant(spacing * n, tf.float64)
    return tf.cast(result, dtype or tf.float64)


def fftfreq(n: int, /, *, d: float = 1.0, dtype: Any = None,
            device: Any = None) -> Tensor:
    with tf.device(device) if device is not None else _nothing():
        k = tf.range(n, dtype=tf.int64)
        k = tf.where(k < (n + 1) // 2, k, k - n)
        return _frequencies(tf.cast(k, tf.float64), d, n, dtype, device)


def rfftfreq(n: int, /, *, d: float = 1.0, dtype: Any = None,
             device: Any = None) -> Tensor:
    with tf.device(device) if device is not None else _nothing():
        k = tf.range(n // 2 + 1, dtype=tf.float64)
        return _frequencies(k, d, n, dtype, device)


def _nothing() -> Any:
    import contextlib
    return contextlib.nullcontext()


def _shift(sign: int) -> Callable[..., Tensor]:
    def shift(x: Tensor, /, *, axes: Any = None) -> Tensor:
        if axes is None:
            axes = list(range(x.ndim))
        elif isinstance(axes, int):
            axes = [axes]
        axes = list(axes)
        if not axes:
            return x
        shifts = [sign * (x.shape[a] // 2) for a in axes]
        return tf.roll(x, shifts, axes)
    return shift


fftshift = _shift(1)
ifftshift = _shift(-1)

FUNCTIONS = ("fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn",
             "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift")
