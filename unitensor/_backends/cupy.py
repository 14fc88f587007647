"""CuPy: CUDA arrays. Needs a GPU; every path here is tested on the GPU machine."""

from __future__ import annotations

import cupy

from .. import _core
from .._device import Device
from .._dtypes import DTYPES, DType
from .._errors import arg_error
from ._common import buffer_from_dlpack, dtype_in, require

NAME = "cupy"
module = cupy
_DTYPES = {cupy.dtype(n): d for n, d in DTYPES.items() if n != "bfloat16"}
_TO_CUPY = {d: k for k, d in _DTYPES.items()}


NATIVE_DTYPES = tuple(_DTYPES)


def wraps_as_is(kind: type) -> bool:
    return issubclass(kind, cupy.ndarray)


def native(obj: object) -> cupy.ndarray:
    return require(obj, cupy.ndarray, "a cupy.ndarray")  # type: ignore[return-value]


def dtype(x: cupy.ndarray) -> DType:
    return dtype_in(_DTYPES, x.dtype, NAME)


def device(x: cupy.ndarray) -> Device:
    return Device("cuda", x.device.id)


def readonly(x: cupy.ndarray) -> bool:
    return False


def export(x: cupy.ndarray) -> _core.Buffer:
    return buffer_from_dlpack(x)


ROUTES: dict[str, object] = {}  # no faster route than DLPack


def copy_reason(buf: _core.Buffer, reading: bool = False) -> str | None:
    if not _cuda_usable():
        raise arg_error(BufferError, "cupy", "x", "a machine with a CUDA device",
                        "none usable (cupy is installed; the driver or GPU is not)")
    if buf.device[0] not in (2, 13):
        return "cupy reads CUDA memory only"
    if buf.readonly:
        return "the memory is read-only and cupy arrays are always writable"
    return None


def _cuda_usable() -> bool:
    try:
        return cupy.cuda.runtime.getDeviceCount() > 0
    except cupy.cuda.runtime.CUDARuntimeError:
        return False


def wrap(buf: _core.Buffer) -> cupy.ndarray:
    return cupy.from_dlpack(buf)


def copy(x: cupy.ndarray) -> cupy.ndarray:
    return x.copy()


def astype(x: cupy.ndarray, dtype: DType) -> cupy.ndarray:
    return x.astype(_TO_CUPY[dtype])


def to_device(x: cupy.ndarray, device: Device) -> object:
    if device.kind == "cpu":
        return cupy.asnumpy(x)
    with cupy.cuda.Device(device.index):
        return cupy.asarray(x)


def from_python(obj: object, dtype: DType | None) -> cupy.ndarray:
    return cupy.asarray(obj, dtype=None if dtype is None else _TO_CUPY[dtype])


def cuda_device_of(pointer: int) -> int:
    """The CUDA device that holds ``pointer`` (for __cuda_array_interface__)."""
    return cupy.cuda.runtime.pointerGetAttributes(pointer).device


# -- the Array API namespace ------------------------------------------------------
ARRAY = cupy.ndarray
FIXES: dict[str, object] = {}

# Functions for operands of one dtype that skip the namespace: none needed here.
SAME_DTYPE: dict[str, object] = {}


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


def dtype_from_native(native_dtype: object) -> DType | None:
    return _DTYPES.get(native_dtype)


def device_from_native(native_device: object) -> Device:
    return Device("cuda", native_device.id)  # type: ignore[attr-defined]


def setitem(x: cupy.ndarray, key: object, value: object) -> cupy.ndarray:
    x[key] = value  # type: ignore[index]
    return x
