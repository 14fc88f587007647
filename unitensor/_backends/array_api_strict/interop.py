"""array-api-strict: its arrays (numpy memory inside) and the routes to them."""

from __future__ import annotations

import array_api_strict as xs
from array_api_strict._array_object import Array

from ... import _core
from ..._device import CPU, Device
from ..._dtypes import DTYPES, DType, from_dlpack_code
from ..._errors import arg_error
from .._dlpack import buffer_from_dlpack, cpu_only_reason

NATIVE_DTYPES = {getattr(xs, n): d for n, d in DTYPES.items() if hasattr(xs, n)}
_TO_STRICT = {d: k for k, d in NATIVE_DTYPES.items()}
_HELD = frozenset(d.dlpack for d in NATIVE_DTYPES.values())  # as a Buffer names them


ARRAY_TYPES = (Array,)


def device(x: Array) -> Device:
    return CPU  # its extra devices are simulated; the memory is numpy's, on the CPU


def readonly(x: Array) -> bool:
    # an Array keeps the numpy array it was made from, read-only ones too
    # (xs.asarray of np.asarray(a jax array)); no public way to ask
    return not x._array.flags.writeable


def export(x: Array) -> _core.Buffer:
    return buffer_from_dlpack(x)


def copy_reason(buf: _core.Buffer, reading: bool = False) -> str | None:
    if buf.dtype not in _HELD:  # float16, bfloat16 (not in the standard): no copy helps
        raise arg_error(BufferError, "to", "x", "a dtype array_api_strict has",
                        from_dlpack_code(buf.dtype).name)
    return cpu_only_reason(buf, "array_api_strict")


def alias(buf: _core.Buffer) -> Array:
    return xs.from_dlpack(buf)


def copy(x: Array) -> Array:
    return xs.asarray(x, copy=True)


def astype(x: Array, dtype: DType) -> Array:
    return xs.astype(x, _TO_STRICT[dtype])


def to_device(x: Array, device: Device) -> Array:
    raise arg_error(ValueError, "to_device", "device",
                    "cpu for array_api_strict arrays", repr(str(device)))


def from_python(obj: object, dtype: DType | None) -> Array:
    return xs.asarray(obj, dtype=None if dtype is None else _TO_STRICT[dtype])
