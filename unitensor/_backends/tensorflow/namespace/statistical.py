"""The standard's statistical functions for TensorFlow.

Reductions accumulate in the standard's dtype (small integers widen to the
default integer of their signedness), propagate NaN where TF's extrema drop it,
and refuse an empty reduction where the standard leaves no identity.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import tensorflow as tf

from ..._fixes import reduced_sizes, refuse_empty_reduction
from ..interop import no_memory
from ._base import DEFAULT_INT, Tensor, _axes, _cast, fast_op
from .elementwise import _isfinite


# -- statistical and utility ----------------------------------------------------------
def _sum_dtype(x: Tensor, dtype: Any) -> Any:
    """The standard's accumulation dtype: small integers widen to the default
    integer of their signedness; bools sum as the default integer.
    """
    if dtype is not None:
        return dtype
    if x.dtype == tf.bool:
        return DEFAULT_INT
    if x.dtype.is_integer:
        return tf.uint64 if x.dtype.is_unsigned else DEFAULT_INT
    return x.dtype


def _reduce(op: Callable[..., Tensor], x: Tensor, axis: Any, keepdims: bool) -> Tensor:
    return op(x, axis=_axes(axis, x.ndim), keepdims=keepdims)


# The dtypes a sum accumulates in as they are (_sum_dtype gives them back).
_OWN_DTYPE_SUMS = frozenset({tf.float16, tf.bfloat16, tf.float32, tf.float64,
                             tf.complex64, tf.complex128, tf.uint64, DEFAULT_INT})


def _sum_over(keepdims: bool) -> Callable[[Tensor, Tensor], Tensor]:
    """TF's Sum over the axes in a tensor, through its C fast path."""
    return fast_op("Sum", lambda x, axes: tf.math.reduce_sum(x, axes, keepdims),
                   "keep_dims", keepdims)


_SUM_OVER = {False: _sum_over(False), True: _sum_over(True)}
# every axis of an array of n dimensions, made once per n (tf.math.reduce_sum
# makes this constant on every call)
_ALL_AXES: dict[int, Tensor] = {}


def sum(x: Tensor, /, *, axis: Any = None, dtype: Any = None,
        keepdims: bool = False) -> Tensor:
    if axis is None and dtype is None and x.dtype in _OWN_DTYPE_SUMS:
        # the whole array in its own dtype: what _reduce calls, without reading
        # the dtype three more times (each a Python property of TF's)
        ndim = x.shape.rank
        axes = _ALL_AXES.get(ndim)
        if axes is None and ndim is not None and tf.executing_eagerly():
            axes = _ALL_AXES.setdefault(ndim, tf.range(ndim))
        if axes is None:
            return tf.math.reduce_sum(x, axis=None, keepdims=keepdims)
        return _SUM_OVER[bool(keepdims)](x, axes)
    return _reduce(tf.math.reduce_sum, _cast(x, _sum_dtype(x, dtype)), axis, keepdims)


def prod(x: Tensor, /, *, axis: Any = None, dtype: Any = None,
         keepdims: bool = False) -> Tensor:
    x = _cast(x, _sum_dtype(x, dtype))
    if x.dtype.is_complex:
        result = _sequential_prod(x, _axes(axis, x.ndim), keepdims)
        if no_memory(result) is None and not bool(tf.math.reduce_all(
                _isfinite(result))):
            # TF's complex multiplication recovers infinities (C99 Annex G:
            # -inf+infj) where numpy's gives NaN: numpy's there, eagerly
            raise tf.errors.NotFoundError(None, None, "complex product overflow")
        return result
    return _reduce(tf.math.reduce_prod, x, axis, keepdims)


def _sequential_prod(x: Tensor, axes: list[int] | None, keepdims: bool) -> Tensor:
    """A complex product in order, element after element (a cumulative product's
    last element), as numpy multiplies: TF's tree-shaped reduction reaches other
    infinities and NaNs where a product overflows (``inf-infj`` for numpy's
    ``-9.7e37-infj``).
    """
    axes = sorted(set(range(x.ndim) if axes is None else axes))
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = tf.transpose(x, kept + axes) if x.ndim else x
    shape = tf.shape(x)
    kept_sizes = tf.gather(shape, tf.constant(kept, tf.int32))
    size = tf.reduce_prod(tf.gather(shape, tf.constant(axes, tf.int32)))
    flat = tf.reshape(moved, tf.concat([kept_sizes, [size]], 0))
    ones = tf.ones(tf.concat([kept_sizes, [1]], 0), x.dtype)  # empty products: 1
    result = tf.math.cumprod(tf.concat([ones, flat], -1), axis=-1)[..., -1]
    if keepdims:
        result = tf.reshape(result, [1 if a in axes else shape[a]
                                     for a in range(x.ndim)])
    return result


def mean(x: Tensor, /, *, axis: Any = None, keepdims: bool = False) -> Tensor:
    if x.dtype == tf.float16:  # numpy (and jax) sum float16 in float32: TF's
        # float16 sum overflows (the mean of 60000 and 60000 was inf)
        return tf.cast(mean(tf.cast(x, tf.float32), axis=axis, keepdims=keepdims),
                       tf.float16)
    result = _reduce(tf.math.reduce_mean, x, axis, keepdims)
    if x.dtype.is_complex:  # TF's complex mean of no element is 0, numpy's NaN
        sizes = reduced_sizes(tuple(x.shape), axis)
        if sizes is not None and 0 in sizes:
            result = result * tf.constant(complex(math.nan, math.nan), x.dtype)
    return result


def _nan_propagating(op: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def function(x: Tensor, /, *, axis: Any = None, keepdims: bool = False) -> Tensor:
        refuse_empty_reduction("max" if op is tf.math.reduce_max else "min",
                               tuple(x.shape), axis)  # TF: -inf, +inf
        if x.dtype == tf.bool:
            logical = tf.math.reduce_any if op is tf.math.reduce_max else \
                tf.math.reduce_all
            return _reduce(logical, x, axis, keepdims)
        result = _reduce(op, x, axis, keepdims)
        if not x.dtype.is_floating:
            return result
        nan = _reduce(tf.math.reduce_any, tf.math.is_nan(x), axis, keepdims)
        return tf.where(nan, tf.constant(math.nan, x.dtype), result)
    return function


max = _nan_propagating(tf.math.reduce_max)
min = _nan_propagating(tf.math.reduce_min)


def var(x: Tensor, /, *, axis: Any = None, correction: float = 0.0,
        keepdims: bool = False) -> Tensor:
    axes = _axes(axis, x.ndim)
    centred = x - tf.math.reduce_mean(x, axis=axes, keepdims=True)
    squares = tf.math.real(centred * tf.math.conj(centred)) if x.dtype.is_complex \
        else centred * centred
    total = tf.math.reduce_sum(squares, axis=axes, keepdims=keepdims)
    shape = tf.shape(x, tf.int64)  # sizes known only when the graph runs, too
    count = tf.math.reduce_prod(shape if axes is None else
                                tf.gather(shape, tf.constant(axes, tf.int64)))
    # as numpy: no fewer than 0 degrees of freedom (0/0 is nan, not -0.0)
    freedom = tf.math.maximum(tf.cast(count, total.dtype)
                              - tf.constant(correction, total.dtype), 0)
    return total / freedom


def std(x: Tensor, /, *, axis: Any = None, correction: float = 0.0,
        keepdims: bool = False) -> Tensor:
    return tf.math.sqrt(var(x, axis=axis, correction=correction, keepdims=keepdims))


def _cumulative(op: Callable[..., Tensor], identity: int) -> Callable[..., Tensor]:
    def function(x: Tensor, /, *, axis: int | None = None, dtype: Any = None,
                 include_initial: bool = False) -> Tensor:
        if axis is None:
            if x.ndim > 1:
                raise ValueError("axis=None needs a one-dimensional array")
            axis = 0
        x = _cast(x, _sum_dtype(x, dtype))
        result = op(x, axis=axis)
        if include_initial:
            shape = list(x.shape)
            shape[axis] = 1
            result = tf.concat([tf.fill(shape, tf.constant(identity, x.dtype)),
                                result], axis)
        return result
    return function


cumulative_sum = _cumulative(tf.math.cumsum, 0)
cumulative_prod = _cumulative(tf.math.cumprod, 1)
