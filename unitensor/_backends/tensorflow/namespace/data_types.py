"""The standard's ``astype`` for TensorFlow (the other data type functions are
unitensor's own table).

A conversion to the tensor's own dtype copies unless ``copy=False``; ``device``
moves first.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from ..interop import device_of_name
from ._base import Tensor


def astype(x: Tensor, dtype: Any, /, *, copy: bool = True,
           device: Any = None) -> Tensor:
    if device is not None and device_of_name(device) != device_of_name(x.device):
        with tf.device(device):
            x = tf.identity(x)
    if x.dtype == dtype:
        return tf.identity(x) if copy else x
    if x.dtype.is_complex and not dtype.is_complex:
        x = tf.math.real(x)
    if dtype == tf.bool:
        return x != tf.zeros_like(x)
    return tf.cast(x, dtype)
