"""array-api-strict: the standard's reference namespace (numpy memory inside)."""

from __future__ import annotations

import array_api_strict as xs
import numpy as np
from array_api_strict._array_object import Array

from .. import _core
from .._device import CPU, Device
from .._dtypes import DTYPES, DType
from .._errors import arg_error
from ._common import (
    buffer_from_dlpack,
    cpu_only_reason,
    dtype_in,
    expm1_fixed,
    floor_divide_fixed,
    require,
    sign_fixed,
)

NAME = "array_api_strict"
module = xs
_DTYPES = {getattr(xs, n): d for n, d in DTYPES.items() if hasattr(xs, n)}
_TO_STRICT = {d: k for k, d in _DTYPES.items()}


NATIVE_DTYPES = tuple(_DTYPES)


def wraps_as_is(kind: type) -> bool:
    return issubclass(kind, Array)


def native(obj: object) -> Array:
    return require(obj, Array, "an array_api_strict.Array")  # type: ignore[return-value]


def dtype(x: Array) -> DType:
    return dtype_in(_DTYPES, x.dtype, NAME)


def device(x: Array) -> Device:
    return CPU  # its extra devices are simulated; the memory is numpy's, on the CPU


def readonly(x: Array) -> bool:
    return False


def export(x: Array) -> _core.Buffer:
    return buffer_from_dlpack(x)


ROUTES: dict[str, object] = {}  # no faster route than DLPack


def copy_reason(buf: _core.Buffer, reading: bool = False) -> str | None:
    if buf.dtype == (4, 16, 1):
        raise arg_error(BufferError, "to", "x", "a dtype array_api_strict has",
                        "bfloat16")
    return cpu_only_reason(buf, "array_api_strict")


def wrap(buf: _core.Buffer) -> Array:
    return xs.from_dlpack(buf)


def copy(x: Array) -> Array:
    return xs.asarray(x, copy=True)


def astype(x: Array, dtype: DType) -> Array:
    return xs.astype(x, _TO_STRICT[dtype])


def to_device(x: Array, device: Device) -> Array:
    raise arg_error(ValueError, "to_device", "device",
                    "cpu for array_api_strict arrays", repr(str(device)))


def from_python(obj: object, dtype: DType | None) -> Array:
    return xs.asarray(obj, dtype=None if dtype is None else _TO_STRICT[dtype])



# -- the Array API namespace ------------------------------------------------------
ARRAY = Array
# array-api-strict computes with numpy and inherits its special-case deviations.
FIXES: dict[str, object] = {"floor_divide": floor_divide_fixed(xs, np),
                            "expm1": expm1_fixed(xs), "sign": sign_fixed(xs)}

# Functions for operands of one dtype that skip the namespace: none needed here.
SAME_DTYPE: dict[str, object] = {}


def namespace() -> object:
    return xs


def result(value: object) -> Array:
    return xs.asarray(value)


def native_dtype(dtype: DType) -> object:
    return _TO_STRICT[dtype]


def native_device(device: Device) -> object:
    if device != CPU:
        raise arg_error(ValueError, "array_api_strict", "device", "cpu",
                        repr(str(device)))
    return xs.__array_namespace_info__().default_device()


def dtype_from_native(native_dtype: object) -> DType | None:
    return _DTYPES.get(native_dtype)


def device_from_native(native_device: object) -> Device:
    return CPU


def setitem(x: Array, key: object, value: object) -> Array:
    x[key] = value  # type: ignore[index]
    return x
