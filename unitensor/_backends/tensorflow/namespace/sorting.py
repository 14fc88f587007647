"""The standard's sorting functions for TensorFlow.

Sorts are stable, descending ones too (equal elements keep their order); ``sort``
is ``argsort`` then ``take_along_axis``.
"""

from __future__ import annotations

import tensorflow as tf

from ._base import INDEX, Tensor
from .indexing import take_along_axis


def _sortable(x: Tensor) -> Tensor:
    return tf.cast(x, tf.uint8) if x.dtype == tf.bool else x


def argsort(x: Tensor, /, *, axis: int = -1, descending: bool = False,
            stable: bool = True) -> Tensor:
    if x.ndim == 0:
        return tf.zeros((), INDEX)
    y = _sortable(x)
    axis %= x.ndim
    if descending:  # stable: equal elements keep their order
        y = tf.reverse(y, [axis])
        n = tf.shape(x, INDEX)[axis]
        order = tf.argsort(y, axis=axis, direction="ASCENDING", stable=True)
        order = tf.cast(tf.reverse(order, [axis]), INDEX)
        return n - 1 - order
    return tf.cast(tf.argsort(y, axis=axis, stable=True), INDEX)


def sort(x: Tensor, /, *, axis: int = -1, descending: bool = False,
         stable: bool = True) -> Tensor:
    if x.ndim == 0 or x.shape.num_elements() == 0:
        return x
    order = argsort(x, axis=axis, descending=descending)
    return take_along_axis(x, order, axis=axis)
