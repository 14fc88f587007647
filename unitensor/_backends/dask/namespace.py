"""dask's Array API namespace (array-api-compat's) and the fixes of its deviations.

Every function builds a graph and computes nothing. Where dask cannot know a
size before computing (after a boolean mask, ``unique_*``, ``nonzero``), the
result's shape holds None; a function that needs that size is refused naming
itself and dask (:func:`needs_known_shape`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import array_api_compat.dask.array as compat
import dask.array as da
import numpy as np

from ..._device import CPU, Device
from ..._dtypes import DType
from ..._errors import arg_error, standard_type
from ..numpy.interop import numpy_dtype

ARRAY = da.Array

FIXES: dict[str, Callable[..., Any]] = {}


def namespace() -> object:
    return compat


def result(value: object) -> da.Array:
    """A dask array from any other result (a numpy scalar, a Python number)."""
    return da.from_array(np.asarray(value), chunks=(), name=False)


def native_dtype(dtype: DType) -> np.dtype:
    return numpy_dtype(dtype)


def native_device(device: Device) -> str:
    if device != CPU:
        raise arg_error(ValueError, "dask", "device", "cpu (dask arrays of numpy "
                        "chunks live in CPU memory)", repr(str(device)))
    return "cpu"


def device_from_native(native_device: object) -> Device:
    return CPU


def setitem(x: da.Array, key: object, value: object, /) -> da.Array:
    """dask's ``x[key] = value`` replaces ``x``'s graph in the array object, which
    other Tensors may share: written into a new array object (a graph over ``x``),
    to which the Tensor is rebound.
    """
    updated = da.Array(x.dask, x.name, x.chunks, meta=x._meta)
    updated[key] = value
    return updated


def error_type(exc: Exception, /) -> type[Exception]:
    return standard_type(exc)
