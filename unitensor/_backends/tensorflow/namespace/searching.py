"""The standard's searching functions for TensorFlow.

Indices are the standard's index dtype (``_base.INDEX``); argmax and argmin
refuse an empty reduction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorflow as tf

from ..._fixes import refuse_empty_reduction
from ._base import INDEX, Tensor, _axes, _common


# -- searching and sorting ------------------------------------------------------------
def _arg(op: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def function(x: Tensor, /, *, axis: int | None = None,
                 keepdims: bool = False) -> Tensor:
        refuse_empty_reduction("argmax" if op is tf.math.argmax else "argmin",
                               tuple(x.shape), axis)
        if x.dtype == tf.bool:
            x = tf.cast(x, tf.uint8)
        if axis is None:
            result = _first_nan_wins(op, tf.reshape(x, [-1]), 0)
            return tf.reshape(result, [1] * x.ndim) if keepdims else result
        result = _first_nan_wins(op, x, axis)
        return tf.expand_dims(result, axis) if keepdims else result
    return function


def _first_nan_wins(op: Callable[..., Tensor], x: Tensor, axis: int) -> Tensor:
    """``op`` along ``axis``, where a NaN is the answer: the index of the first
    one, as numpy, torch and jax give (TF's ArgMax and ArgMin skip NaNs).
    """
    result = op(x, axis=axis, output_type=INDEX)
    if not x.dtype.is_floating:
        return result
    nan = tf.math.is_nan(x)
    first = tf.math.argmax(tf.cast(nan, tf.uint8), axis=axis, output_type=INDEX)
    return tf.where(tf.reduce_any(nan, axis=axis), first, result)


argmax = _arg(tf.math.argmax)
argmin = _arg(tf.math.argmin)


def where(condition: Tensor, x1: Any, x2: Any, /) -> Tensor:
    a, b = _common(x1, x2, "where")
    if condition.dtype != tf.bool:  # its truth, as numpy's (TF takes bools only)
        condition = condition != tf.zeros_like(condition)
    return tf.where(condition, a, b)


def nonzero(x: Tensor, /) -> tuple[Tensor, ...]:
    if x.ndim == 0:
        raise ValueError("nonzero(): a 0-d array has no axes to index")
    found = tf.where(x != tf.zeros_like(x))
    return tuple(found[:, i] for i in range(x.ndim))


def count_nonzero(x: Tensor, /, *, axis: Any = None, keepdims: bool = False) -> Tensor:
    return tf.math.count_nonzero(x != tf.zeros_like(x), axis=_axes(axis, x.ndim),
                                 keepdims=keepdims, dtype=INDEX)


def searchsorted(x1: Tensor, x2: Any, /, *, side: str = "left",
                 sorter: Tensor | None = None) -> Tensor:
    if sorter is not None:
        x1 = tf.gather(x1, sorter)
    a, b = _common(x1, x2, "searchsorted")
    found = tf.searchsorted(tf.reshape(a, [1, -1]), tf.reshape(b, [1, -1]),
                            side=side, out_type=INDEX)
    return tf.reshape(found, tf.shape(b))
