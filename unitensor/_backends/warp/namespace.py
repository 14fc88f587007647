"""Warp has no Array API namespace: a Warp-owned Tensor computes in numpy.

Warp computes in kernels the user writes, not through array functions, so its
adapter gives no namespace (``namespace()`` is None) and the dispatcher runs
the standard's functions on numpy's zero-copy views of Warp's CPU memory; the
results are numpy's (``.warp()`` gives them back to Warp, zero-copy). Warp's
CUDA memory has no computing owner here: convert it (``.to("torch")``, ``.to("cupy")``)
to compute on it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import warp as wp

from ..._device import CPU, Device
from ..._dtypes import DType
from ..._errors import arg_error
from .interop import TO_WARP

ARRAY = wp.array
FIXES: dict[str, Callable[..., Any]] = {}


def namespace() -> None:
    return None


def result(value: object) -> Any:
    return value  # never asked: the results are numpy's (namespace() is None)


def native_dtype(dtype: DType) -> Any:
    try:
        return TO_WARP[dtype]
    except KeyError:
        raise arg_error(TypeError, "warp", "dtype", "a dtype Warp has (bool, "
                        "(u)int8-64, float16/32/64)", dtype.name) from None


def native_device(device: Device) -> Any:
    if device == CPU:
        return wp.get_device("cpu")
    if device.kind == "cuda":
        return wp.get_device(f"cuda:{device.index}")
    raise arg_error(ValueError, "warp", "device", "cpu or cuda:N", repr(str(device)))


def device_from_native(native_device: Any) -> Device:
    d = wp.get_device(native_device)
    return CPU if d.is_cpu else Device("cuda", d.ordinal)


def setitem(x: Any, key: Any, value: Any) -> Any:
    """``x[key] = value`` through numpy's view of ``x``'s CPU memory (a Warp
    array takes no item assignment outside kernels).
    """
    if not x.device.is_cpu:
        raise arg_error(ValueError, "__setitem__", "self", "a Warp array in CPU "
                        "memory (CUDA memory: write through .to('torch') or a "
                        "kernel)", f"one on {x.device}")
    x.numpy()[key] = value.numpy() if isinstance(value, wp.array) else value
    return x
