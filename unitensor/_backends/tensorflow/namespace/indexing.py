"""The standard's indexing for TensorFlow: ``take``, ``take_along_axis``, and
``x[key]`` / ``x[key] = value`` (the adapter's ``getitem`` and ``setitem``).

Negative indices count from the end; an assignment returns a new tensor (TF's are
immutable), which the caller rebinds.
"""

from __future__ import annotations

import builtins
from typing import Any

import tensorflow as tf

from ..interop import constant, no_memory
from ._base import Tensor, _axis, _cast
from ._numpy_route import through_numpy


# -- indexing -------------------------------------------------------------------------
def _normalised(indices: Tensor, size: Any) -> Tensor:
    indices = _cast(indices, tf.int64)
    return tf.where(indices < 0, indices + tf.cast(size, tf.int64), indices)


def take(x: Tensor, indices: Tensor, /, *, axis: int | None = None) -> Tensor:
    if axis is None:
        if x.ndim != 1:
            raise ValueError("take(): axis=None needs a one-dimensional array")
        axis = 0
    axis = _axis(axis, x.ndim)
    return tf.gather(x, _normalised(indices, x.shape[axis]), axis=axis)


def take_along_axis(x: Tensor, indices: Tensor, /, *, axis: int = -1) -> Tensor:
    axis = _axis(axis, x.ndim)
    indices = _normalised(indices, x.shape[axis])
    xs, ids = tf.experimental.numpy.moveaxis(x, axis, -1), \
        tf.experimental.numpy.moveaxis(indices, axis, -1)
    batch = tf.broadcast_static_shape(xs.shape[:-1], ids.shape[:-1])
    xs = tf.broadcast_to(xs, batch.concatenate(xs.shape[-1:]))
    ids = tf.broadcast_to(ids, batch.concatenate(ids.shape[-1:]))
    result = tf.gather(xs, ids, axis=-1, batch_dims=len(batch))
    return tf.experimental.numpy.moveaxis(result, -1, axis)


def _is_array_key(item: Any) -> bool:
    return isinstance(item, tf.Tensor) and (item.ndim > 0 or item.dtype == tf.bool)


def _index64(item: Any) -> Any:
    """A 0-d integer tensor (or one in a slice) as int64: TF packs the parts of
    a basic key into one tensor, which fails for int32 beside int64.
    """
    if isinstance(item, tf.Tensor) and item.dtype.is_integer:
        return _cast(item, tf.int64)
    if isinstance(item, slice) and builtins.any(
            isinstance(p, tf.Tensor) for p in (item.start, item.stop, item.step)):
        return slice(_index64(item.start), _index64(item.stop), _index64(item.step))
    return item


# TF's StridedSlice (its basic indexing) takes at most this many dimensions
_STRIDED_SLICE_DIMS = 8


def _axis_by_axis(x: Tensor, items: tuple[Any, ...]) -> Tensor:
    """A basic key on more dimensions than StridedSlice takes: each int or slice
    applied on ``x`` reshaped to three dimensions (the axes before it, its own,
    the axes after it), and the result reshaped back; ``None`` a new axis.
    """
    count = builtins.sum(k is not None and k is not Ellipsis for k in items)
    at = next((i for i, k in enumerate(items) if k is Ellipsis), None)  # (no ==:
    if at is not None:  # a tensor in the key would compare elementwise)
        items = (*items[:at], *(slice(None),) * (x.ndim - count), *items[at + 1:])
    axis = 0
    for item in items:
        if item is None:
            x = tf.expand_dims(x, axis)
            axis += 1
            continue
        shape = tf.shape(x, tf.int64)
        before, after = shape[:axis], shape[axis + 1:]
        cube = tf.reshape(x, tf.stack([tf.reduce_prod(before), shape[axis],
                                       tf.reduce_prod(after)]))
        if isinstance(item, slice):
            part = cube[:, item, :]
            x = tf.reshape(part, tf.concat([before, tf.shape(part, tf.int64)[1:2],
                                            after], 0))
            axis += 1
        else:  # an int: its axis goes
            x = tf.reshape(cube[:, item, :], tf.concat([before, after], 0))
    return x


def getitem(x: Tensor, key: Any) -> Tensor:
    """``x[key]``: TF's own for basic keys; boolean masks and integer arrays here."""
    items = key if isinstance(key, tuple) else (key,)
    if not builtins.any(_is_array_key(k) for k in items):
        if builtins.any(isinstance(k, (tf.Tensor, slice)) for k in items):
            items = tuple(_index64(k) for k in items)
            key = items if isinstance(key, tuple) else items[0]
        if x.ndim > _STRIDED_SLICE_DIMS:
            return _axis_by_axis(x, items)
        return x[key]
    if len(items) == 1 and items[0].dtype == tf.bool:
        mask = items[0]
        if mask.ndim == 0:  # a new axis, kept or emptied (also when traced)
            return tf.boolean_mask(tf.expand_dims(x, 0), tf.reshape(mask, [1]))
        return tf.boolean_mask(x, mask)
    integers = builtins.all(isinstance(k, int) or (
        isinstance(k, tf.Tensor) and k.dtype.is_integer) for k in items)
    if integers and len(items) <= x.ndim:
        indices = [_normalised(tf.constant(k) if isinstance(k, int) else k,
                               x.shape[i]) for i, k in enumerate(items)]
        shape = tf.TensorShape([])
        for i in indices:
            shape = tf.broadcast_static_shape(shape, i.shape)
        for i, size in zip(indices, tf.unstack(tf.shape(x, tf.int64)), strict=False):
            outside = tf.reduce_any((i < 0) | (i >= size))
            if no_memory(outside) is not None:  # traced: checked when it runs
                tf.debugging.assert_equal(outside, False,
                                          "__getitem__(): index out of bounds")
            elif bool(outside):
                raise IndexError("__getitem__(): index out of bounds for size "
                                 f"{int(size)}")
        stacked = tf.stack([tf.broadcast_to(i, shape) for i in indices], -1)
        return tf.gather_nd(x, stacked)
    return through_numpy("__getitem__")(x, key)


def setitem(x: Tensor, key: Any, value: Any, /) -> Tensor:
    """TF tensors are immutable: the Tensor is rebound to an updated tensor, made
    by TF (``tf.tensor_scatter_nd_update`` at the positions ``x[key]`` reads), and
    the original ``tf.Tensor`` is unchanged.
    """
    value = _cast(value, x.dtype) if isinstance(value, tf.Tensor) else \
        constant(value, x.dtype)
    if key is Ellipsis:
        return tf.broadcast_to(value, tf.shape(x))
    positions = getitem(tf.reshape(tf.range(tf.size(x, tf.int64), dtype=tf.int64),
                                   tf.shape(x)), key)
    value = tf.broadcast_to(value, tf.shape(positions))
    flat = tf.tensor_scatter_nd_update(tf.reshape(x, [-1]),
                                       tf.reshape(positions, [-1, 1]),
                                       tf.reshape(value, [-1]))
    return tf.reshape(flat, tf.shape(x))
