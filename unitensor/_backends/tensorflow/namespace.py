"""TensorFlow has no Array API namespace: its arrays compute in numpy, zero-copy.

What the contract asks beyond that (dtypes, devices, results, ``x[key] = v``) is
answered here in TF's terms.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from ..._device import Device
from ..._dtypes import DType
from .interop import _TO_TF, device_name, device_of_name

ARRAY = type(tf.constant(0))


def namespace() -> None:
    """None: the dispatcher computes TF-owned data in numpy, on zero-copy views."""
    return None


def result(value: Any, /) -> tf.Tensor:
    return tf.convert_to_tensor(value)


def native_dtype(dtype: DType, /) -> tf.DType:
    return _TO_TF[dtype]


native_device = device_name



def device_from_native(native_device: Any, /) -> Device:
    return device_of_name(str(native_device))


def setitem(x: tf.Tensor, key: Any, value: Any, /) -> tf.Tensor:
    """TF tensors are immutable: the Tensor is rebound to an updated copy, made
    in numpy (where the owner's operations run too).
    """
    updated = x.numpy().copy()
    updated[_numpy_key(key)] = value.numpy() if isinstance(value, tf.Tensor) else value
    with tf.device(x.device):
        return tf.constant(updated)


def _numpy_key(key: Any) -> Any:
    if isinstance(key, tf.Tensor):
        return key.numpy()
    if isinstance(key, tuple):
        return tuple(_numpy_key(k) for k in key)
    return key
