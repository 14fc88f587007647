"""The standard's manipulation functions for TensorFlow.

Each is TF's reshaping op with the standard's arguments; arrays joined together
are promoted to one dtype first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

from ..._fixes import check_repeats
from ._base import Tensor, _axes, _cast, _promote_all


# -- manipulation ---------------------------------------------------------------------
def reshape(x: Tensor, /, shape: Any, *, copy: bool | None = None) -> Tensor:
    return tf.reshape(x, list(shape))


def permute_dims(x: Tensor, /, axes: Any) -> Tensor:
    return tf.transpose(x, _axes(tuple(axes), x.ndim))


def expand_dims(x: Tensor, /, axis: Any = 0) -> Tensor:
    if not isinstance(axis, (tuple, list)):
        return tf.expand_dims(x, axis)
    ndim = x.ndim + len(axis)  # 2025.12: several axes, placed in the result
    places = sorted(a % ndim for a in axis if -ndim <= a < ndim)
    if len(set(places)) != len(axis):
        raise IndexError(f"expand_dims(): axes {axis} for {ndim} dimensions")
    for place in places:  # in increasing order, each already in its final place
        x = tf.expand_dims(x, place)
    return x


def squeeze(x: Tensor, /, axis: Any) -> Tensor:
    axes = _axes(axis, x.ndim) or []
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze(): axis {a} has size {x.shape[a]}, not 1")
    return tf.squeeze(x, axes) if axes else x


def concat(arrays: Sequence[Tensor], /, *, axis: int | None = 0) -> Tensor:
    arrays = _promote_all(arrays, "concat")
    if axis is None:
        return tf.concat([tf.reshape(a, [-1]) for a in arrays], 0)
    return tf.concat(arrays, axis)


def stack(arrays: Sequence[Tensor], /, *, axis: int = 0) -> Tensor:
    return tf.stack(_promote_all(arrays, "stack"), axis)


def flip(x: Tensor, /, *, axis: Any = None) -> Tensor:
    axes = list(range(x.ndim)) if axis is None else _axes(axis, x.ndim)
    return tf.reverse(x, axes)


def roll(x: Tensor, /, shift: Any, *, axis: Any = None) -> Tensor:
    if axis is None:
        return tf.reshape(tf.roll(tf.reshape(x, [-1]), shift, 0), tf.shape(x))
    return tf.roll(x, shift, axis)


def broadcast_to(x: Tensor, /, shape: Any) -> Tensor:
    return tf.broadcast_to(x, list(shape))


def broadcast_arrays(*arrays: Tensor) -> list[Tensor]:
    shape = tf.TensorShape([])
    for a in arrays:
        shape = tf.broadcast_static_shape(shape, a.shape)
    return [tf.broadcast_to(a, shape) for a in arrays]


def tile(x: Tensor, repetitions: Any, /) -> Tensor:
    reps = list(repetitions)
    if len(reps) > x.ndim:
        x = tf.reshape(x, [1] * (len(reps) - x.ndim) + list(x.shape))
    reps = [1] * (x.ndim - len(reps)) + reps
    return tf.tile(x, reps)


def repeat(x: Tensor, repeats: Any, /, *, axis: int | None = None) -> Tensor:
    if isinstance(repeats, tf.Tensor):
        check_repeats(repeats.shape.rank or 0, tf.executing_eagerly() and bool(
            tf.math.reduce_any(repeats < 0)))
    else:
        check_repeats(0, repeats < 0)
    if axis is None:
        x, axis = tf.reshape(x, [-1]), 0
    if x.shape.num_elements() == 0:  # TF's repeat fails on empty arrays along a
        # non-empty axis with an array of repeats ("shape (0, 2) is not
        # compatible with (0, 0)"): the result is empty, of the standard's shape
        shape = tf.unstack(tf.shape(x, tf.int64))
        counts = _cast(repeats, tf.int64) if isinstance(repeats, tf.Tensor) else \
            tf.fill([x.shape[axis]], tf.constant(repeats, tf.int64))
        shape[axis] = tf.math.reduce_sum(tf.broadcast_to(counts, [x.shape[axis]]))
        return tf.zeros(tf.stack(shape), x.dtype)
    return tf.repeat(x, repeats, axis=axis)


def unstack(x: Tensor, /, *, axis: int = 0) -> tuple[Tensor, ...]:
    return tuple(tf.unstack(x, axis=axis))


def moveaxis(x: Tensor, source: Any, destination: Any, /) -> Tensor:
    src = _axes(source, x.ndim) or []
    dst = _axes(destination, x.ndim) or []
    order = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return tf.transpose(x, order)


def broadcast_shapes(*shapes: Any) -> tuple[int, ...]:
    result = tf.TensorShape([])
    for shape in shapes:
        result = tf.broadcast_static_shape(result, tf.TensorShape(list(shape)))
    return tuple(result.as_list())
