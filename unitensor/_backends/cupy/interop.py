"""CuPy: its CUDA arrays and their memory. Needs a GPU (tests/test_cuda.py)."""

from __future__ import annotations

import cupy

from ... import _core
from ..._device import CUDA_READABLE, Device
from ..._dtypes import DTYPES, DType
from ..._errors import arg_error, warn_read_only_alias
from .._dlpack import StreamOrder, buffer_from_dlpack

NATIVE_DTYPES = {cupy.dtype(n): d for n, d in DTYPES.items() if n != "bfloat16"}
_TO_CUPY = {d: k for k, d in NATIVE_DTYPES.items()}


ARRAY_TYPES = (cupy.ndarray,)


def device(x: cupy.ndarray) -> Device:
    return Device("cuda", x.device.id)


def export(x: cupy.ndarray) -> _core.Buffer:
    # -1 syncs nothing now: each consumer waits for cupy's stream when it imports
    # (producer() below). cupy reads the current device's stream: x's device.
    with x.device:
        return buffer_from_dlpack(x, stream=-1)


def cuda_devices() -> int:
    try:
        return int(cupy.cuda.runtime.getDeviceCount())
    except cupy.cuda.runtime.CUDARuntimeError:  # no driver, or no device
        return 0


def consumer_stream(device: int) -> int:
    """The framework's current stream on ``device``: it reads and writes there."""
    with cupy.cuda.Device(device):
        # the null stream (0) is the legacy default stream: DLPack's 1
        return cupy.cuda.get_current_stream().ptr or 1


def _order_streams(device: int, first: int, then: int) -> None:
    with cupy.cuda.Device(device):
        event = cupy.cuda.Event(disable_timing=True)
        event.record(cupy.cuda.ExternalStream(first))
        cupy.cuda.ExternalStream(then).wait_event(event)


def producer(device: int) -> StreamOrder:
    return StreamOrder(device, consumer_stream, _order_streams)


def copy_reason(buf: _core.Buffer, reading: bool = False) -> str | None:
    if not _cuda_usable():
        raise arg_error(BufferError, "cupy", "x", "a machine with a CUDA device",
                        "none usable (cupy is installed; the driver or GPU is not)")
    if buf.device[0] not in CUDA_READABLE:
        return "cupy reads CUDA memory only"
    if buf.readonly and not reading:  # aliased all the same, as torch's are
        warn_read_only_alias("cupy", "cupy")
    return None


def _cuda_usable() -> bool:
    try:
        return cupy.cuda.runtime.getDeviceCount() > 0
    except cupy.cuda.runtime.CUDARuntimeError:
        return False


def alias(buf: _core.Buffer) -> cupy.ndarray:
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
