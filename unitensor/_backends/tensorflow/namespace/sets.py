"""The standard's set functions for TensorFlow: sort-based, O(n log n) time and
O(n) memory.

Equal values are neighbours in one stable lexicographic order (numpy's: complex
by real then imaginary part, NaNs last); every NaN is a value of its own.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from ._base import INDEX, Tensor, _common


# -- set functions: sort-based, O(n log n) time and O(n) memory ----------------------
def _lexicographic_order(flat: Tensor) -> Tensor:
    """A stable order of ``flat`` in which equal values are neighbours: numpy's
    sort order (complex: by the real part, then the imaginary part; NaNs last,
    as R + nanj, nan + Rj, nan + nanj). Every NaN then differs from its
    neighbours, so each is a value of its own (the standard).
    """
    if flat.dtype == tf.bool:
        flat = tf.cast(flat, tf.uint8)
    parts = [tf.math.real(flat), tf.math.imag(flat)] if flat.dtype.is_complex \
        else [flat]
    keys = parts
    if not flat.dtype.is_integer:
        nans = [tf.math.is_nan(p) for p in parts]
        rank = tf.cast(nans[0], tf.uint8)
        if len(nans) == 2:
            rank = 2 * rank + tf.cast(nans[1], tf.uint8)
        keys = [rank] + [tf.where(nan, tf.zeros_like(p), p)
                         for nan, p in zip(nans, parts, strict=True)]
    order = tf.range(tf.size(flat, INDEX), dtype=INDEX)
    for key in reversed(keys):  # least significant first; each sort is stable
        order = tf.gather(order, tf.argsort(tf.gather(key, order), stable=True))
    return order


def _unique(x: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """The flattened ``x``'s stable sorted order, the first position of each
    value in it (``starts``), each element's value number in sorted order, and
    the number of elements.
    """
    flat = tf.reshape(x, [-1])
    size = tf.size(flat, INDEX)
    order = _lexicographic_order(flat)
    ordered = tf.gather(flat, order)
    first = tf.concat([tf.ones([tf.minimum(size, 1)], tf.bool),
                       tf.math.not_equal(ordered[1:], ordered[:-1])], 0)
    starts = tf.where(first)[:, 0]
    group = tf.math.cumsum(tf.cast(first, INDEX)) - 1
    return order, starts, group, size


def _counts(starts: Tensor, size: Tensor) -> Tensor:
    return tf.concat([starts[1:], tf.reshape(size, [1])], 0) - starts


def _inverse(x: Tensor, order: Tensor, group: Tensor, size: Tensor) -> Tensor:
    inverse = tf.scatter_nd(order[:, None], group, tf.reshape(size, [1]))
    return tf.reshape(inverse, tf.shape(x))


def unique_values(x: Tensor, /) -> Tensor:
    order, starts, _, _ = _unique(x)
    return tf.gather(tf.reshape(x, [-1]), tf.gather(order, starts))


def unique_counts(x: Tensor, /) -> tuple[Tensor, Tensor]:
    order, starts, _, size = _unique(x)
    return (tf.gather(tf.reshape(x, [-1]), tf.gather(order, starts)),
            _counts(starts, size))


def unique_inverse(x: Tensor, /) -> tuple[Tensor, Tensor]:
    order, starts, group, size = _unique(x)
    return (tf.gather(tf.reshape(x, [-1]), tf.gather(order, starts)),
            _inverse(x, order, group, size))


def unique_all(x: Tensor, /) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    order, starts, group, size = _unique(x)
    indices = tf.gather(order, starts)  # stable: each value's first occurrence
    return (tf.gather(tf.reshape(x, [-1]), indices), indices,
            _inverse(x, order, group, size), _counts(starts, size))


def isin(x1: Any, x2: Any, /, *, invert: bool = False) -> Tensor:
    """Sort-based, as ``unique_*``: ``x2``'s and ``x1``'s elements sorted
    together; an element of ``x1`` is in ``x2`` where its run of equal values
    holds one of ``x2``'s (a NaN equals nothing). O(n log n) time, O(n) memory.
    """
    a, b = _common(x1, x2, "isin")
    values = tf.concat([tf.reshape(b, [-1]), tf.reshape(a, [-1])], 0)
    size = tf.size(values, INDEX)
    order = _lexicographic_order(values)
    ordered = tf.gather(values, order)
    first = tf.concat([tf.ones([tf.minimum(size, 1)], tf.bool),
                       tf.math.not_equal(ordered[1:], ordered[:-1])], 0)
    group = tf.math.cumsum(tf.cast(first, INDEX)) - 1
    of_x2 = tf.cast(order < tf.size(b, INDEX), tf.int32)
    holds = tf.math.unsorted_segment_max(of_x2, group, size)
    found = tf.scatter_nd(order[:, None], tf.gather(holds, group),
                          tf.reshape(size, [1]))[tf.size(b, INDEX):]
    found = tf.reshape(found > 0, tf.shape(a))
    return tf.math.logical_not(found) if invert else found
