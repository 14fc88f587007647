"""The standard's creation functions for TensorFlow.

Arrays are made on ``device`` where one is given, else where TF places them (its
default device); a dtype not given is the standard's default for the values
(``_base.DEFAULT_FLOAT``, ``DEFAULT_INT``, ``DEFAULT_COMPLEX``).
"""

from __future__ import annotations

import builtins
import contextlib
import math
from collections.abc import Callable
from typing import Any

import tensorflow as tf

from ..interop import constant
from ._base import DEFAULT_COMPLEX, DEFAULT_FLOAT, DEFAULT_INT, Tensor, _cast


# -- creation -------------------------------------------------------------------------
def _device(device: Any) -> Any:
    """Where a creation function makes its array: ``device``, else TF's own
    placement (its default device).
    """
    return tf.device(device) if device is not None else contextlib.nullcontext()


def _shape_of(shape: Any) -> list[int]:
    return [shape] if isinstance(shape, int) else list(shape)


def zeros(shape: Any, *, dtype: Any = None, device: Any = None) -> Tensor:
    with _device(device):
        return tf.zeros(_shape_of(shape), dtype or DEFAULT_FLOAT)


def ones(shape: Any, *, dtype: Any = None, device: Any = None) -> Tensor:
    with _device(device):
        return tf.ones(_shape_of(shape), dtype or DEFAULT_FLOAT)


empty = zeros


def _fill_dtype(value: Any) -> Any:
    if isinstance(value, bool):
        return tf.bool
    if isinstance(value, int):
        return DEFAULT_INT
    if isinstance(value, float):
        return DEFAULT_FLOAT
    return DEFAULT_COMPLEX


def full(shape: Any, fill_value: Any, *, dtype: Any = None,
         device: Any = None) -> Tensor:
    if isinstance(fill_value, tf.Tensor):
        with _device(device):
            return tf.fill(_shape_of(shape),
                           _cast(fill_value, dtype or fill_value.dtype))
    dtype = dtype or _fill_dtype(fill_value)
    with _device(device):
        return tf.fill(_shape_of(shape), constant(fill_value, dtype))


def _like(make: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def function(x: Tensor, /, *args: Any, dtype: Any = None,
                 device: Any = None) -> Tensor:
        return make(x.shape, *args, dtype=dtype or x.dtype,
                    device=device or x.device)
    function.__name__ = f"{make.__name__}_like"
    return function


zeros_like, ones_like, empty_like, full_like = (
    _like(zeros), _like(ones), _like(empty), _like(full))


def arange(start: Any, /, stop: Any = None, step: Any = 1, *, dtype: Any = None,
           device: Any = None) -> Tensor:
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        floating = builtins.any(isinstance(v, float) for v in (start, stop, step))
        dtype = DEFAULT_FLOAT if floating else DEFAULT_INT
    size = builtins.max(math.ceil((stop - start) / step), 0)
    with _device(device):
        if dtype.is_floating:
            values = tf.range(size, dtype=dtype) * constant(step, dtype)
            return values + constant(start, dtype)
        if size == 0:  # bounds outside the dtype need not fit then
            return tf.zeros([0], dtype)
        if dtype.is_unsigned:  # in uint64: int64 would wrap at 2**63
            k = tf.cast(tf.range(size, dtype=tf.int64), tf.uint64)
            base, magnitude = (tf.constant(v, tf.uint64) for v in (start, abs(step)))
            return tf.cast(base + k * magnitude if step > 0 else base - k * magnitude,
                           dtype)
        return tf.cast(tf.range(start, start + size * step, step, dtype=tf.int64),
                       dtype)


def linspace(start: Any, stop: Any, /, num: int, *, dtype: Any = None,
             device: Any = None, endpoint: bool = True) -> Tensor:
    complex_ = isinstance(start, complex) or isinstance(stop, complex)
    if dtype is None:
        dtype = DEFAULT_COMPLEX if complex_ else DEFAULT_FLOAT
    real = dtype.real_dtype if dtype.is_complex else dtype
    with _device(device):
        steps = tf.range(num, dtype=tf.float64)
        divisions = (num - 1) if endpoint else num
        if dtype.is_complex:
            a, b = complex(start), complex(stop)
            fraction = steps / divisions if divisions > 0 else steps * 0
            re = a.real + fraction * (b.real - a.real)
            im = a.imag + fraction * (b.imag - a.imag)
            if endpoint and num > 1:
                re = tf.concat([re[:-1], [b.real]], 0)
                im = tf.concat([im[:-1], [b.imag]], 0)
            return tf.complex(tf.cast(re, real), tf.cast(im, real))
        a, b = float(start), float(stop)
        delta = (b - a) / divisions if divisions > 0 else 0.0
        values = a + steps * delta
        if endpoint and num > 1:
            values = tf.concat([values[:-1], [b]], 0)
        return tf.cast(values, dtype)


def eye(n_rows: int, n_cols: int | None = None, /, *, k: int = 0, dtype: Any = None,
        device: Any = None) -> Tensor:
    n_cols = n_rows if n_cols is None else n_cols
    k = builtins.max(builtins.min(k, n_cols), -n_rows)  # beyond: no diagonal (and
    with _device(device):  # within int64)
        rows = tf.range(n_rows, dtype=tf.int64)[:, None]
        cols = tf.range(n_cols, dtype=tf.int64)[None, :]
        return tf.cast(cols - rows == k, dtype or DEFAULT_FLOAT)


def _band(x: Tensor, k: int, lower: bool) -> Tensor:
    n, m = x.shape[-2], x.shape[-1]
    rows = tf.range(n, dtype=tf.int64)[:, None]
    cols = tf.range(m, dtype=tf.int64)[None, :]
    keep = cols - rows <= k if lower else cols - rows >= k
    return tf.where(keep, x, tf.zeros_like(x))


def tril(x: Tensor, /, *, k: int = 0) -> Tensor:
    return _band(x, k, True)


def triu(x: Tensor, /, *, k: int = 0) -> Tensor:
    return _band(x, k, False)


def meshgrid(*arrays: Tensor, indexing: str = "xy") -> list[Tensor]:
    return list(tf.meshgrid(*arrays, indexing=indexing))
