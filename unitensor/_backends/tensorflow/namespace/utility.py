"""The standard's utility functions for TensorFlow: ``all``, ``any``, ``diff``.

Non-bool arrays are truth-tested as ``x != 0`` (both parts of a complex number).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorflow as tf

from ._base import Tensor, _axis
from .manipulation import concat
from .statistical import _reduce


def _truth(op: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def function(x: Tensor, /, *, axis: Any = None, keepdims: bool = False) -> Tensor:
        if x.dtype != tf.bool:
            x = x != tf.zeros_like(x)
        return _reduce(op, x, axis, keepdims)
    return function


all = _truth(tf.math.reduce_all)
any = _truth(tf.math.reduce_any)


def diff(x: Tensor, /, *, axis: int = -1, n: int = 1, prepend: Any = None,
         append: Any = None) -> Tensor:
    if n == 0:
        return x  # as numpy: nothing appended where nothing is differenced
    axis = _axis(axis, x.ndim)
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        x = concat(parts, axis=axis)
    head = [slice(None)] * x.ndim
    tail = [slice(None)] * x.ndim
    head[axis], tail[axis] = slice(1, None), slice(None, -1)
    for _ in range(n):
        x = (x[tuple(head)] != x[tuple(tail)] if x.dtype == tf.bool
             else x[tuple(head)] - x[tuple(tail)])
    return x
