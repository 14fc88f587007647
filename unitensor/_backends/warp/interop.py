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

import numpy as np
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


def _public_view(ptr: int, shape: tuple[int, ...], strides: tuple[int, ...],
                 dtype: Any, capacity: int, device: Any) -> Any:
    """Warp's own constructor of an array over memory it does not own."""
    return wp.array(ptr=ptr, shape=shape, strides=strides, dtype=dtype,
                    capacity=capacity, device=device)


def _made_like(ptr: int, shape: tuple[int, ...], strides: tuple[int, ...],
               dtype: Any, capacity: int, device: Any) -> Any:
    """The array ``_public_view`` makes, its attributes set at once (Warp's
    constructor costs ~8 µs, most of it checks of arguments made right here).
    """
    array = _new(wp.array)
    if len(shape) == 1:  # (the common case inline: ~0.5 µs less a view)
        size = shape[0]
        contiguous = strides[0] == ITEMSIZES[dtype]
    else:
        size = 1
        for n in shape:
            size *= n
        contiguous = _contiguous(shape, strides, ITEMSIZES[dtype])
    array.__dict__.update(_ATTRIBUTES, dtype=dtype, ndim=len(shape), size=size,
                          capacity=capacity, shape=shape, strides=strides, ptr=ptr,
                          device=device, is_contiguous=contiguous)
    return array


def _contiguous(shape: tuple[int, ...], strides: tuple[int, ...], item: int) -> bool:
    step = item
    for n, s in zip(reversed(shape), reversed(strides), strict=True):
        if s != step:
            return False
        step *= n
    return True


def _checked_maker() -> Any:
    """``_made_like`` where it makes exactly what Warp's constructor makes (every
    attribute, a value of its own or one shared safely), else ``_public_view``:
    a Warp release that adds or changes an attribute takes the public path.
    """
    host = np.zeros(6, np.float32)
    cpu = wp.get_device("cpu")
    args = (host.ctypes.data + 20, (3,), (-8,), wp.float32, 24, cpu)
    public, fast = _public_view(*args), _made_like(*args)
    immutable = (type(None), bool, int, tuple, type, type(cpu), type(
        public.__dict__.get("_memory_kind")))
    same = (public.__dict__ == fast.__dict__
            and all(isinstance(v, immutable) for v in _ATTRIBUTES.values()))
    return _made_like if same else _public_view


_new = wp.array.__new__  # (sets the two attributes its __del__ reads)
# the attributes of an array over memory Warp does not own, as its constructor
# sets them, less those of each array (dtype, shape, strides, ptr, ...)
_ATTRIBUTES = {k: v for k, v in _public_view(
    1, (1,), (4,), wp.float32, 4, wp.get_device("cpu")).__dict__.items()
    if k not in ("dtype", "ndim", "size", "capacity", "shape", "strides", "ptr",
                 "device", "is_contiguous")}
# each scalar dtype's size in bytes (a view's contiguity; the bridge's copies)
ITEMSIZES = {k: wp.types.type_size_in_bytes(k) for k in NATIVE_DTYPES}
_view = _checked_maker()
_CPU = wp.get_device("cpu")


def alias(buf: _core.Buffer) -> wp.array:
    kind, index = buf.device
    device = _CPU if kind in CPU_READABLE else wp.get_device(f"cuda:{index}")
    dt = TO_WARP[from_dlpack_code(buf.dtype)]
    if buf.size == 0:  # no memory to alias; Warp's empty arrays hold none either
        return wp.empty(buf.shape, dtype=dt, device=device)
    item = buf.itemsize
    # Warp reads the first element at ``ptr``, strides in bytes (negative ones too)
    array = _view(buf.data_ptr, buf.shape, tuple(map(item.__mul__, buf.strides)), dt,
                  buf.nbytes, device)
    array._ref = buf  # Warp's keep-alive slot: the Buffer outlives the view
    return array


def view(x: wp.array) -> wp.array:
    """A new array over ``x``'s memory (a ``wp.array`` of a scalar dtype), as
    Warp's constructor makes one from its pointer, at the cost of ``alias``.
    """
    return _view(x.ptr, x.shape, x.strides, x.dtype, x.capacity, x.device)


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
