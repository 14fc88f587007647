"""PyTorch: CPU and CUDA tensors.

Quirks handled here:
- torch has no read-only tensors and ``torch.from_dlpack`` aliases read-only memory
  as writable; unitensor copies instead (never a writable alias of read-only data).
- torch tensors cannot have negative strides, and importing such a DLPack tensor
  can abort the process (pytorch#188023): copied before torch sees it.
- tensors that require grad, or carry a lazy conj/neg bit, refuse ``__dlpack__``:
  detached (no copy) or resolved (a copy) first.
"""

from __future__ import annotations

import array_api_compat.torch as compat_torch
import numpy as np
import torch

from .. import _core
from .._device import CPU, Device
from .._dtypes import DTYPES, DType
from .._errors import arg_error, copy_or_refuse
from ._common import buffer_from_dlpack, dtype_in, floor_divide_fixed, require

NAME = "torch"
module = torch
_DTYPES = {getattr(torch, n): d for n, d in DTYPES.items() if hasattr(torch, n)}
_TO_TORCH = {d: t for t, d in _DTYPES.items()}


def native(obj: object) -> torch.Tensor:
    return require(obj, torch.Tensor, "a torch.Tensor")  # type: ignore[return-value]


def dtype(x: torch.Tensor) -> DType:
    return dtype_in(_DTYPES, x.dtype, NAME)


def device(x: torch.Tensor) -> Device:
    dev = x.device
    if dev.type == "cpu":
        return CPU
    if dev.type == "cuda":
        return Device("cuda", dev.index or 0)
    raise arg_error(ValueError, "asarray", "obj", "a torch tensor on cpu or cuda",
                    f"a tensor on {dev}")


def readonly(x: torch.Tensor) -> bool:
    return False


def export(x: torch.Tensor) -> _core.Buffer:
    if x.requires_grad:
        x = x.detach()  # same memory; the graph stays with the original tensor
    if x.is_conj() or x.is_neg():
        copy_or_refuse("asarray", "obj", None,
                       "torch keeps a lazy conjugate/negation bit that DLPack "
                       "cannot carry")
        x = x.resolve_conj().resolve_neg()
    return buffer_from_dlpack(x)


def from_native(source: str, x: object) -> torch.Tensor | None:
    """``torch.from_numpy``: torch's own zero-copy route, 3x cheaper than DLPack.

    Only for what it shares exactly: writable (torch would alias read-only memory
    as writable), non-negative strides that are whole elements, native dtypes.
    """
    if source != "numpy" or not x.flags.writeable:  # type: ignore[attr-defined]
        return None
    if x.dtype not in _FROM_NUMPY:  # type: ignore[attr-defined]
        return None
    itemsize = x.itemsize  # type: ignore[attr-defined]
    if any(s < 0 or s % itemsize for s in x.strides):  # type: ignore[attr-defined]
        return None
    return torch.from_numpy(x)


# numpy dtypes (native byte order) that torch.from_numpy shares exactly.
_FROM_NUMPY = {np.dtype(n) for n in ("bool", "int8", "int16", "int32", "int64",
                                     "uint8", "float16", "float32", "float64",
                                     "complex64", "complex128")}


def copy_reason(buf: _core.Buffer, reading: bool = False) -> str | None:
    if buf.readonly and not reading:  # an operand only read may alias it
        return ("the memory is read-only and torch tensors are always writable "
                "(torch.from_dlpack would alias it as writable)")
    if any(s < 0 for s in buf.strides):
        return "torch tensors cannot have negative strides"
    if buf.device[0] == 2 and not torch.backends.cuda.is_built():
        raise arg_error(BufferError, "torch", "x",
                        "CPU memory (this build of torch has no CUDA support)",
                        "CUDA memory")
    if buf.device[0] not in (1, 2):
        return "torch reads CPU and CUDA memory only"
    return None


def wrap(buf: _core.Buffer) -> torch.Tensor:
    return torch.from_dlpack(buf)


def copy(x: torch.Tensor) -> torch.Tensor:
    return x.clone()


def astype(x: torch.Tensor, dtype: DType) -> torch.Tensor:
    return x.to(torch_dtype(dtype))


def torch_dtype(dtype: DType) -> torch.dtype:
    return _TO_TORCH[dtype]


def to_device(x: torch.Tensor, device: Device) -> torch.Tensor:
    return x.to(str(device))


def from_python(obj: object, dtype: DType | None) -> torch.Tensor:
    return torch.asarray(obj, dtype=None if dtype is None else torch_dtype(dtype))


# -- the Array API namespace ------------------------------------------------------
ARRAY = torch.Tensor
_UNSIGNED = (torch.uint8, torch.uint16, torch.uint32, torch.uint64)
_LIMITED = {torch.uint16: torch.int32, torch.uint32: torch.int64,
            torch.uint64: torch.int64}  # torch's uint16/32/64: storage, little math


def _unsigned_accumulation(func: object) -> object:
    """torch sums unsigned integers into int64 and has no uint16/32/64 arithmetic;
    the standard's default is uint64. Computed in int64, returned as uint64 (or
    as the dtype asked for)."""
    def fixed(x: torch.Tensor, /, **kw: object) -> torch.Tensor:
        wanted = kw.get("dtype")
        if x.dtype not in _UNSIGNED and wanted not in _LIMITED:
            return func(x, **kw)  # type: ignore[operator]
        if wanted in _LIMITED:
            kw["dtype"] = torch.int64
        elif x.dtype in _LIMITED:
            x = x.to(_LIMITED[x.dtype])
        result = func(x, **kw)  # type: ignore[operator]
        target = wanted or (torch.uint64 if result.dtype == torch.int64 else None)
        return result if target is None else result.to(target)
    return fixed


FIXES: dict[str, object] = {
    name: _unsigned_accumulation(getattr(compat_torch, name))
    for name in ("sum", "prod", "cumulative_sum", "cumulative_prod")}
FIXES["floor_divide"] = floor_divide_fixed(compat_torch)


def namespace() -> object:
    return compat_torch


def result(value: object) -> torch.Tensor:
    return torch.asarray(value)


def native_dtype(dtype: DType) -> torch.dtype:
    return torch_dtype(dtype)


def native_device(device: Device) -> torch.device:
    return torch.device(str(device))


def dtype_from_native(native_dtype: object) -> DType | None:
    return _DTYPES.get(native_dtype)


def device_from_native(native_device: torch.device) -> Device:
    if native_device.type == "cpu":
        return CPU
    return Device(native_device.type, native_device.index or 0)


def setitem(x: torch.Tensor, key: object, value: object) -> torch.Tensor:
    x[key] = value  # type: ignore[index]
    return x
