"""The standard's sorting functions for TensorFlow.

Sorts are stable, descending ones too (equal elements keep their order); ``sort``
is ``argsort`` then ``take_along_axis``. NaNs sort last, as numpy's (ascending;
first when descending, the reversed sort): TF's comparison sort leaves the
elements around a NaN unsorted.
"""

from __future__ import annotations

import tensorflow as tf

from ._base import INDEX, Tensor, _axis
from .indexing import take_along_axis


def _sortable(x: Tensor) -> Tensor:
    return tf.cast(x, tf.uint8) if x.dtype == tf.bool else x


def _ascending(y: Tensor, axis: int) -> Tensor:
    """The stable ascending order of ``y`` along ``axis``, NaNs last: sorted by
    value with NaNs read as 0, then (stably) by being NaN.
    """
    if not y.dtype.is_floating:
        return tf.argsort(y, axis=axis, stable=True)
    nan = tf.math.is_nan(y)
    order = tf.argsort(tf.where(nan, tf.zeros_like(y), y), axis=axis, stable=True)
    last = tf.argsort(take_along_axis(tf.cast(nan, tf.uint8), order, axis=axis),
                      axis=axis, stable=True)
    return take_along_axis(order, last, axis=axis)


def argsort(x: Tensor, /, *, axis: int = -1, descending: bool = False,
            stable: bool = True) -> Tensor:
    if x.ndim == 0:
        return tf.zeros((), INDEX)
    y = _sortable(x)
    axis = _axis(axis, x.ndim)
    if descending:  # stable: equal elements keep their order
        y = tf.reverse(y, [axis])
        n = tf.shape(x, INDEX)[axis]
        order = tf.cast(tf.reverse(_ascending(y, axis), [axis]), INDEX)
        return n - 1 - order
    return tf.cast(_ascending(y, axis), INDEX)


def sort(x: Tensor, /, *, axis: int = -1, descending: bool = False,
         stable: bool = True) -> Tensor:
    if x.ndim == 0 or x.shape.num_elements() == 0:
        _axis(axis, x.ndim)  # (refused as for any other array)
        return x
    order = argsort(x, axis=axis, descending=descending)
    return take_along_axis(x, order, axis=axis)
