"""Warp: its arrays, their memory, and the routes to and from them.

The rule: memory crosses through Warp's array interfaces, never its
``__dlpack__``: ``__array_interface__`` on the CPU (0.15 µs against 11.5 µs for
its DLPack export) and ``__cuda_array_interface__`` on CUDA, into a Buffer;
Warp's view of a Buffer is a ``wp.array`` over its pointer that holds the
Buffer (``_ref``, Warp's own attribute for the array a view keeps alive) and
frees nothing. Warp arrays have at least one dimension and scalar dtypes only
cross (a vector, matrix or struct dtype is refused, naming its scalar view).
"""

from __future__ import annotations

from typing import Any

import warp as wp

from ... import _core
from ..._device import CPU, CPU_READABLE, CUDA_READABLE, Device
from ..._dtypes import DTYPES, DType, from_dlpack_code
from ..._errors import arg_error, describe, warn_read_only_alias
from ..numpy.interop import NATIVE_DTYPES as NATIVE_DTYPES_OF_NUMPY
from ..numpy.interop import from_python as from_numbers
from ..numpy.interop import numpy_dtype

# Warp's scalar types by the standard's names (Warp has no complex type; its
# bfloat16, where the installed Warp has one, crosses as DLPack's bfloat16)
NATIVE_DTYPES: dict[Any, DType] = {
    getattr(wp, n): d for n, d in DTYPES.items() if isinstance(getattr(wp, n, None),
                                                               type)}
TO_WARP = {d: k for k, d in NATIVE_DTYPES.items()}
_HELD = frozenset(d.dlpack for d in NATIVE_DTYPES.values())  # as a Buffer names them
_BFLOAT16 = DTYPES["bfloat16"]
_SCALARS = "a scalar dtype (bool, (u)int8-64, float16/32/64)"

ARRAY_TYPES = (wp.array,)


def dtype(x: wp.array) -> DType:
    try:
        return NATIVE_DTYPES[x.dtype]
    except (KeyError, TypeError):  # a struct type may not hash
        raise arg_error(TypeError, "asarray", "obj", f"a Warp array of {_SCALARS}; "
                        "a vector or matrix array crosses as its scalar view "
                        "(wp.array(ptr=a.ptr, shape=(*a.shape, *a.dtype._shape_), "
                        "dtype=a.dtype._wp_scalar_type_))",
                        f"a Warp array of {wp.types.type_repr(x.dtype)}") from None


def device(x: Any) -> Device:
    d = x.device
    return CPU if d.is_cpu else Device("cuda", d.ordinal)


def export(x: Any) -> _core.Buffer:
    dtype(x)  # refuses vector, matrix and struct dtypes (the interface flattens them)
    if x.device.is_cpu:
        # bfloat16's typestr is a void: the Buffer is told its dtype
        code = _BFLOAT16.dlpack if x.dtype is TO_WARP.get(_BFLOAT16) else None
        return _core.from_array_interface(x, dtype=code)
    return _core.from_cuda_array_interface(x, x.device.ordinal)


def copy_reason(buf: _core.Buffer, reading: bool = False) -> str | None:
    if buf.ndim == 0:  # no copy helps: Warp has no 0-d arrays
        raise arg_error(BufferError, "warp", "x", "an array of at least one "
                        "dimension (Warp has no 0-d arrays)", "a 0-d array")
    if buf.dtype not in _HELD:  # complex: no copy helps
        raise arg_error(BufferError, "warp", "x", f"an array of {_SCALARS}",
                        from_dlpack_code(buf.dtype).name)
    kind = buf.device[0]
    if kind in CUDA_READABLE:
        if not wp.is_cuda_available():
            return "warp sees no CUDA device in this process"
    elif kind not in CPU_READABLE:
        return "warp reads CPU and CUDA memory only"
    if buf.readonly and not reading:  # aliased all the same, as torch's are
        warn_read_only_alias("warp", "warp")
    return None


def alias(buf: _core.Buffer) -> wp.array:
    kind, index = buf.device
    where = "cpu" if kind in CPU_READABLE else f"cuda:{index}"
    dt = TO_WARP[from_dlpack_code(buf.dtype)]
    if buf.size == 0:  # no memory to alias; Warp's empty arrays hold none either
        return wp.empty(buf.shape, dtype=dt, device=where)
    item = buf.itemsize
    # Warp reads the first element at ``ptr``, strides in bytes (negative ones too)
    array: Any = wp.array(ptr=buf.data_ptr, shape=buf.shape,
                     strides=tuple(s * item for s in buf.strides), dtype=dt,
                     capacity=buf.nbytes, device=where)
    array._ref = buf  # Warp's keep-alive slot: the Buffer outlives the view
    return array


def copy(x: wp.array) -> wp.array:
    return wp.clone(x)


def astype(x: wp.array, dtype: DType) -> wp.array:
    # Warp casts only inside kernels: numpy casts a host copy
    host = x.numpy().astype(numpy_dtype(dtype))
    return wp.array(host, dtype=TO_WARP[dtype], device=x.device)


def to_device(x: wp.array, device: Device) -> wp.array:
    return wp.clone(x, device="cpu" if device.kind == "cpu" else
                    f"cuda:{device.index}")


def from_python(obj: object, dtype: DType | None) -> wp.array:
    host = from_numbers(obj, dtype)
    if host.ndim == 0:
        raise arg_error(ValueError, "asarray", "obj", "a nested sequence (Warp has "
                        "no 0-d arrays)", describe(obj))
    found = NATIVE_DTYPES_OF_NUMPY[host.dtype]
    if found not in TO_WARP:  # complex
        raise arg_error(TypeError, "asarray", "obj", f"numbers of {_SCALARS}",
                        f"elements of dtype {found.name}")
    return wp.array(host, dtype=TO_WARP[found])


def cuda_devices() -> int:
    return int(wp.get_cuda_device_count())
