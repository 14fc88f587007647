"""array-api-strict's namespace (itself) and the deviations it inherits from numpy."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import array_api_strict as xs
import numpy as np
from array_api_strict._array_object import Array

from ..._device import CPU, Device
from ..._dtypes import DType
from ..._errors import arg_error
from .._fixes import (
    expm1_fixed,
    floor_divide_fixed,
    integers_by_nonzero,
    items_copied,
    new_array,
    read_only_items,
    sign_fixed,
    tanh_fixed,
)
from .interop import _TO_STRICT, copy

ARRAY = Array


def _isin(x1: Array | int, x2: Array | int, /, *, invert: bool = False) -> Array:
    """array-api-strict's isin ignores ``invert`` (2.6.1): the test, negated here."""
    found = xs.isin(x1, x2)
    return xs.logical_not(found) if invert else found


# array-api-strict computes with numpy and inherits its special-case deviations.
_COMPLEX = frozenset({xs.complex64, xs.complex128})
FIXES: dict[str, Callable[..., Any]] = {"floor_divide": floor_divide_fixed(xs, np),
                            "remainder": integers_by_nonzero(xs, "remainder"),
                            "expm1": expm1_fixed(xs, _COMPLEX),
                            "tanh": tanh_fixed(xs, _COMPLEX), "sign": sign_fixed(xs),
                            "isin": _isin,
                            "unstack": items_copied(xs.unstack, copy),
                            # (an Array's numpy array: what its readonly reads)
                            "broadcast_arrays": read_only_items(
                                xs.broadcast_arrays, lambda a: a._array),
                            **{name: new_array(getattr(xs, name), copy)
                               for name in ("floor", "ceil", "trunc")}}


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



def device_from_native(native_device: object) -> Device:
    return CPU

