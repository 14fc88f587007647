"""Dr.Jit has no Array API namespace: a Dr.Jit-owned Tensor computes in numpy.

Dr.Jit traces its own operators into kernels; it offers no namespace of the
standard's functions, so its adapter gives none (``namespace()`` is None) and
the dispatcher runs the standard's functions on numpy's zero-copy views of its
evaluated CPU memory; the results are numpy's (``.drjit()`` gives them back,
zero-copy). A write into a Dr.Jit-owned Tensor writes its evaluated memory.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import drjit as dr
import numpy as np

from ..._device import CPU, Device
from ..._dtypes import DType
from ..._errors import arg_error
from .interop import TENSOR, export

ARRAY = dr.ArrayBase  # (every Dr.Jit array type derives from it)
FIXES: dict[str, Callable[..., Any]] = {}


def namespace() -> None:
    return None


def result(value: object) -> Any:
    return value  # never asked: the results are numpy's (namespace() is None)


def native_dtype(dtype: DType) -> Any:
    try:
        return TENSOR[dtype]
    except KeyError:
        raise arg_error(TypeError, "drjit", "dtype", "a dtype Dr.Jit has",
                        dtype.name) from None


def native_device(device: Device) -> Any:
    if device == CPU:
        return "llvm"
    if device.kind == "cuda":
        return "cuda"
    raise arg_error(ValueError, "drjit", "device", "cpu or cuda", repr(str(device)))


def device_from_native(native_device: Any) -> Device:
    return CPU if str(native_device).lower().endswith("llvm") else Device("cuda", 0)


def setitem(x: Any, key: Any, value: Any) -> Any:
    """``x[key] = value`` through numpy's view of ``x``'s evaluated CPU memory."""
    buf = export(x)
    if buf.device != (1, 0):
        raise arg_error(ValueError, "__setitem__", "self", "a Dr.Jit array in CPU "
                        "memory", "one in CUDA memory")
    if isinstance(value, dr.ArrayBase):
        value = np.asarray(export(value))
    np.asarray(buf)[key] = value
    return x
