"""CuPy's Array API namespace (array-api-compat's)."""

from __future__ import annotations

import cupy

from ..._device import Device
from ..._dtypes import DType
from ..._errors import arg_error
from .interop import _TO_CUPY

ARRAY = cupy.ndarray

def namespace() -> object:
    import array_api_compat.cupy
    return array_api_compat.cupy


def result(value: object) -> cupy.ndarray:
    return cupy.asarray(value)


def native_dtype(dtype: DType) -> object:
    return _TO_CUPY[dtype]


def native_device(device: Device) -> object:
    if device.kind != "cuda":
        raise arg_error(ValueError, "cupy", "device", "a cuda device",
                        repr(str(device)))
    return cupy.cuda.Device(device.index)



def device_from_native(native_device: cupy.cuda.Device) -> Device:
    return Device("cuda", native_device.id)

