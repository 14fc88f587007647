"""The standard's ``astype`` for TensorFlow (the other data type functions are
unitensor's own table).

A conversion to the tensor's own dtype copies unless ``copy=False``; ``device``
moves first. A conversion to bool is ``x != 0``, true unless both parts of a
complex number are 0 (TF's cast reads the real part only); to another real dtype,
a complex number's real part (numpy's).
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
    if dtype == tf.bool:  # both parts of a complex number (TF's cast: the real one)
        return x != tf.zeros_like(x)
    if x.dtype.is_complex and not dtype.is_complex:
        x = tf.math.real(x)
    return tf.cast(x, dtype)
