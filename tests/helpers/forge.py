"""A test-only DLPack producer that forges capsules and counts deleter calls.

``forge(...)`` makes a PyCapsule from ctypes structs with any name, version,
flags, shape, strides, dtype, device, byte_offset or NULL fields. Its deleter
records each call, so tests can prove that every deleter ran exactly once:
``counters.live`` is the number of forged tensors not yet deleted,
``counters.double_calls`` the number of deleter calls on an already deleted one.
"""

from __future__ import annotations

import ctypes
import threading
from dataclasses import dataclass, field

import numpy as np


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", DELETER)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", DELETER), ("flags", ctypes.c_uint64),
                ("dl_tensor", DLTensor)]


READ_ONLY, IS_COPIED, IS_SUBBYTE_TYPE_PADDED = 1, 2, 4
_NUMPY_CODES = {"b": 6, "i": 0, "u": 1, "f": 2, "c": 5}


@dataclass
class Counters:
    created: int = 0
    deleter_calls: int = 0
    double_calls: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def live(self) -> int:
        return len(_records)

    def snapshot(self) -> dict[str, int]:
        return {"created": self.created, "deleter_calls": self.deleter_calls,
                "double_calls": self.double_calls, "live": self.live}


counters = Counters()
_records: dict[int, tuple] = {}  # struct address -> everything kept alive for it
_deleted: set[int] = set()
_unmanaged: list[tuple] = []  # forged with a NULL deleter: kept forever
_names: dict[bytes, ctypes.Array] = {}  # capsule names outlive their capsules


@DELETER
def _deleter(address: int) -> None:
    with counters.lock:
        counters.deleter_calls += 1
        if _records.pop(address, None) is None:
            counters.double_calls += 1
        else:
            _deleted.add(address)


# The destructor receives a capsule that is being deallocated: it must be seen
# as a raw pointer (a py_object argument would resurrect it).
_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_api = ctypes.PyDLL(None)  # the interpreter's own symbols, called with the GIL
_capsule_new = _api.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _CAPSULE_DESTRUCTOR]
_capsule_name = _api.PyCapsule_GetName
_capsule_name.restype = ctypes.c_char_p
_capsule_name.argtypes = [ctypes.c_void_p]
_capsule_pointer = _api.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]


@_CAPSULE_DESTRUCTOR
def _capsule_destructor(capsule) -> None:
    """Free the tensor unless a consumer renamed (consumed) the capsule."""
    name = _capsule_name(capsule)
    if name is not None and not name.startswith(b"used_"):
        address = _capsule_pointer(capsule, name)
        if address in _records:
            _deleter(address)


def forge(array: np.ndarray | None = None, *, shape=None, strides=None, dtype=None,
          device=(1, 0), byte_offset=0, name=None, versioned=True, version=(1, 1),
          flags=0, null_data=False, null_shape=False, null_strides=False,
          deleter=True, ndim=None):
    """A DLPack capsule over ``array`` (default: float64 arange of ``shape``).

    ``strides`` are in elements; ``None`` uses the array's own (or NULL with
    ``null_strides``). ``dtype`` is a DLPack (code, bits, lanes) triple that
    overrides the array's. ``ndim`` overrides the dimension count (for the
    ndim bound). ``deleter=False`` forges a NULL deleter.
    """
    if array is None:
        shape = (3,) if shape is None else tuple(shape)
        array = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    shape = tuple(array.shape) if shape is None else tuple(shape)
    if strides is None:
        strides = tuple(s // array.itemsize for s in array.strides) if len(
            shape) == array.ndim else (1,) * len(shape)
    if dtype is None:
        dtype = (_NUMPY_CODES[array.dtype.kind], array.itemsize * 8, 1)
    n = len(shape)
    shape_arr = (ctypes.c_int64 * max(n, 1))(*shape)
    strides_arr = (ctypes.c_int64 * max(n, 1))(*strides)
    tensor = DLTensor(
        data=None if null_data else array.ctypes.data - byte_offset,
        device=DLDevice(*device), ndim=n if ndim is None else ndim,
        dtype=DLDataType(*dtype),
        shape=None if null_shape else ctypes.cast(shape_arr,
                                                  ctypes.POINTER(ctypes.c_int64)),
        strides=None if null_strides else ctypes.cast(
            strides_arr, ctypes.POINTER(ctypes.c_int64)),
        byte_offset=byte_offset)
    fn = _deleter if deleter else DELETER()
    if versioned:
        managed = DLManagedTensorVersioned(DLPackVersion(*version), None, fn, flags,
                                           tensor)
        default_name = b"dltensor_versioned"
    else:
        managed = DLManagedTensor(tensor, None, fn)
        default_name = b"dltensor"
    name = default_name if name is None else name
    address = ctypes.addressof(managed)
    keep = (managed, deleter, array, shape_arr, strides_arr)
    with counters.lock:
        counters.created += 1
        if deleter:
            _records[address] = keep
        else:  # a NULL deleter: the producer keeps the memory for good
            _unmanaged.append(keep)
    if name not in _names:
        _names[name] = ctypes.create_string_buffer(name)
    return _capsule_new(address, _names[name], _capsule_destructor)


_py_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_py_capsule_name.restype = ctypes.c_char_p
_py_capsule_name.argtypes = [ctypes.py_object]
_py_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_py_capsule_pointer.restype = ctypes.c_void_p
_py_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def capsule_name(capsule) -> bytes:
    """The current name of a live capsule (consumers rename it to 'used_*')."""
    return _py_capsule_name(capsule)


def versioned_tensor(capsule) -> DLManagedTensorVersioned:
    """The struct inside an unconsumed 'dltensor_versioned' capsule.

    It lives only as long as the capsule: keep the capsule referenced while the
    struct is read (or use ``read_capsule``).
    """
    address = _py_capsule_pointer(capsule, b"dltensor_versioned")
    return DLManagedTensorVersioned.from_address(address)


def read_capsule(capsule) -> dict:
    """A copy of everything in an unconsumed capsule of either format."""
    name = capsule_name(capsule)
    address = _py_capsule_pointer(capsule, name)
    if name == b"dltensor_versioned":
        managed = DLManagedTensorVersioned.from_address(address)
        version = (managed.version.major, managed.version.minor)
        flags = managed.flags
    else:
        managed, version, flags = DLManagedTensor.from_address(address), None, 0
    t = managed.dl_tensor
    return {"name": name, "version": version, "flags": flags, "data": t.data or 0,
            "device": (t.device.device_type, t.device.device_id), "ndim": t.ndim,
            "dtype": (t.dtype.code, t.dtype.bits, t.dtype.lanes),
            "shape": tuple(t.shape[:t.ndim]) if t.shape else None,
            "strides": tuple(t.strides[:t.ndim]) if t.strides else None,
            "byte_offset": t.byte_offset}
