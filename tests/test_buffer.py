"""The C Buffer itself: imports, metadata, exports, copies, GC and counters."""

from __future__ import annotations

import array
import ctypes
import gc
import weakref

import numpy as np
import pytest
from forge import DLManagedTensorVersioned, forge

from unitensor import _core


def test_metadata_at_c_speed():
    x = np.arange(24, dtype=np.int32).reshape(4, 6)[1:, ::2]
    buf = _core.from_capsule(x.__dlpack__(max_version=(1, 0)))
    assert buf.shape == (3, 3) and buf.strides == (6, 2) and buf.ndim == 2
    assert buf.size == 9 and buf.itemsize == 4 and buf.nbytes == 36
    assert buf.dtype == (0, 32, 1) and buf.device == (1, 0)
    assert buf.data_ptr == x.__array_interface__["data"][0]
    assert buf.readonly is False and buf.is_copied is False
    assert buf.version[0] == 1 and buf.source == "dlpack_versioned"
    assert buf.c_contiguous is False and buf.base is None
    assert "shape=(3, 3)" in repr(buf) and "int(32)" in repr(buf)


def test_legacy_capsules_and_byte_offset():
    base = np.arange(10.0)
    buf = _core.from_capsule(forge(base[2:], byte_offset=16, versioned=False))
    assert buf.source == "dlpack" and buf.version is None
    assert buf.byte_offset == 16
    assert buf.data_ptr == base[2:].__array_interface__["data"][0]
    np.testing.assert_array_equal(np.from_dlpack(buf), base[2:])


def test_one_import_serves_many_consumers():
    x = np.arange(5.0)
    buf = _core.from_capsule(x.__dlpack__(max_version=(1, 0)))
    views = [np.from_dlpack(buf) for _ in range(50)]
    views[7][0] = 9.0
    assert x[0] == 9.0 and all(v[0] == 9.0 for v in views)
    assert _core.stats()["exported_alive"] >= 50
    before = _core.stats()["exported_alive"]
    del views
    gc.collect()
    assert _core.stats()["exported_alive"] == before - 50


def test_every_exported_deleter_runs_exactly_once():
    stats = _core.stats()
    buf = _core.from_capsule(np.arange(3.0).__dlpack__(max_version=(1, 0)))
    consumed = [np.from_dlpack(buf) for _ in range(3)]
    unconsumed = [buf.__dlpack__(max_version=(1, 0)) for _ in range(4)]
    legacy = buf.__dlpack__()
    del consumed, unconsumed, legacy, buf
    gc.collect()
    after = _core.stats()
    assert after["capsules_exported"] - stats["capsules_exported"] == 8
    assert after["exported_alive"] == stats["exported_alive"]
    assert after["imported_deleters_run"] - stats["imported_deleters_run"] == 1
    assert after["buffers_alive"] == stats["buffers_alive"]


def test_array_interface_import_keeps_the_exporter_alive():
    class Exporter:
        def __init__(self):
            self.a = np.arange(6.0).reshape(2, 3)
            self.__array_interface__ = self.a.T.__array_interface__

    exporter = Exporter()
    buf = _core.from_array_interface(exporter)
    assert buf.base is exporter and buf.shape == (3, 2) and buf.strides == (1, 3)
    ref = weakref.ref(exporter)
    del exporter
    gc.collect()
    assert ref() is not None
    np.testing.assert_array_equal(np.asarray(buf), np.arange(6.0).reshape(2, 3).T)


@pytest.mark.parametrize("iface, problem", [
    ({"typestr": ">i8", "shape": (2,), "data": (8, False), "version": 3},
     "byte order"),
    ({"typestr": "|V8", "shape": (2,), "data": (8, False)}, "typestr"),
    ({"typestr": "<M8", "shape": (2,), "data": (8, False)}, "typestr"),
    ({"typestr": "<f8", "shape": (2,), "data": 8}, "data"),
    ({"typestr": "<f8", "shape": (2,), "data": (0, False)}, "NULL data"),
    ({"typestr": "<f8", "shape": (2,), "data": (8, False), "mask": object()}, "mask"),
    ({"typestr": "<f8", "shape": (3,), "data": (8, False), "strides": (12,)},
     "multiples"),
    ({"typestr": "<f8", "shape": (-1,), "data": (8, False)}, "non-negative"),
    ({"shape": (2,), "data": (8, False)}, "typestr"),
])
def test_bad_array_interfaces_are_buffer_errors(iface, problem):
    class Bad:
        __array_interface__ = iface

    with pytest.raises(BufferError, match=problem):
        _core.from_array_interface(Bad())


@pytest.mark.parametrize("make, dtype", [
    (lambda: np.array([1, 0, 1], bool), (6, 8, 1)),
    (lambda: array.array("b", [1, 0, 1]), (0, 8, 1)),
    (lambda: array.array("H", [1, 0, 1]), (1, 16, 1)),
    (lambda: array.array("i", [1, 0, 1]), (0, 32, 1)),
    (lambda: array.array("Q", [1, 0, 1]), (1, 64, 1)),
    (lambda: np.array([1, 0, 1], np.float16), (2, 16, 1)),
    (lambda: array.array("d", [1, 0, 1]), (2, 64, 1)),
    (lambda: np.array([1, 0, 1], np.complex64), (5, 64, 1))])
def test_buffer_protocol_import(make, dtype):
    source = make()
    buf = _core.from_buffer(source)
    assert buf.dtype == dtype and buf.shape == (3,) and buf.base is source
    assert buf.source == "buffer"


def test_buffer_protocol_refuses_strange_formats():
    with pytest.raises(BufferError, match="format"):
        _core.from_buffer(np.zeros(2, "i4,f4"))
    with pytest.raises(BufferError, match="byte order"):
        _core.from_buffer(np.zeros(2, ">i4"))
    with pytest.raises(TypeError):
        _core.from_buffer(42)


def test_buffer_protocol_export_honours_flags():
    buf = _core.from_capsule(np.arange(12.0).reshape(3, 4)[:, ::2].__dlpack__(
        max_version=(1, 0)))
    view = memoryview(buf)
    assert view.shape == (3, 2) and view.strides == (32, 16) and view.format == "d"
    assert view.tolist() == [[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]]
    assert not view.c_contiguous
    with pytest.raises(TypeError):
        view.cast("B")  # a cast needs C-contiguous memory
    frozen = np.arange(3.0)
    frozen.flags.writeable = False
    readonly = _core.from_capsule(frozen.__dlpack__(max_version=(1, 0)))
    assert memoryview(readonly).readonly
    assert not np.asarray(readonly).flags.writeable


def test_array_interface_export_and_bfloat16():
    buf = _core.empty((2, 3), 4, 16)
    iface = buf.__array_interface__
    assert iface["typestr"] == "|V2" and iface["shape"] == (2, 3)
    assert iface["strides"] == (6, 2) and iface["version"] == 3
    with pytest.raises(BufferError, match="bfloat16"):
        memoryview(buf)
    assert not hasattr(buf, "__cuda_array_interface__")


def test_empty_is_aligned_zeroed_and_validated():
    buf = _core.empty((5, 7), 2, 32, alignment=256)
    assert buf.data_ptr % 256 == 0 and buf.alignment >= 256
    assert np.asarray(buf).sum() == 0 and buf.source == "owned"
    assert _core.empty((0,), 2, 64).data_ptr != 0
    with pytest.raises(ValueError, match="alignment"):
        _core.empty((2,), 2, 32, alignment=48)
    with pytest.raises(TypeError, match="dtype"):
        _core.empty((2,), 2, 8)
    with pytest.raises(ValueError, match="non-negative"):
        _core.empty((-1,), 2, 32)
    with pytest.raises(TypeError, match="shape"):
        _core.empty([2], 2, 32)


@pytest.mark.parametrize("view", [
    lambda a: a, lambda a: a[::-1, 1::2], lambda a: a.T, lambda a: a[:0],
    lambda a: a[1:2, 2:3].reshape(()), lambda a: a[:, None, ::3]])
def test_copy_is_compact_aligned_and_equal(view):
    source = view(np.arange(24, dtype=np.int16).reshape(4, 6))
    buf = _core.from_array_interface(source)
    copy = buf.copy()
    assert copy.c_contiguous and copy.alignment >= 64 and copy.is_copied
    assert copy.shape == source.shape and not copy.readonly
    np.testing.assert_array_equal(np.asarray(copy), source)


def test_dlpack_export_is_versioned_only_when_asked():
    buf = _core.from_capsule(np.arange(3.0).__dlpack__(max_version=(1, 0)))
    assert "dltensor_versioned" in repr(buf.__dlpack__(max_version=(1, 1)))
    assert '"dltensor"' in repr(buf.__dlpack__(max_version=(0, 8)))
    assert '"dltensor"' in repr(buf.__dlpack__())
    assert buf.__dlpack_device__() == (1, 0)


def test_mark_readonly_is_one_way_and_legacy_export_needs_consent():
    buf = _core.from_capsule(np.arange(3.0).__dlpack__(max_version=(1, 0)))
    buf.mark_readonly()
    assert buf.readonly
    with pytest.raises(BufferError, match="allow_readonly"):
        buf.export_legacy()
    assert "dltensor" in repr(buf.export_legacy(allow_readonly=True))
    assert not np.from_dlpack(buf).flags.writeable


def test_buffers_cannot_be_made_directly():
    with pytest.raises(TypeError, match="from_capsule"):
        _core.Buffer()


def test_gc_collects_a_cycle_through_a_buffer():
    class Holder:
        pass

    holder = Holder()
    holder.a = np.arange(4.0)
    holder.__array_interface__ = holder.a.__array_interface__
    holder.buf = _core.from_array_interface(holder)  # holder -> buf -> holder
    alive = _core.stats()["buffers_alive"]
    ref = weakref.ref(holder)
    del holder
    gc.collect()
    assert ref() is None
    assert _core.stats()["buffers_alive"] == alive - 1


def test_buffers_support_weak_references():
    buf = _core.empty((1,), 2, 32)
    ref = weakref.ref(buf)
    del buf
    assert ref() is None


_USED = ctypes.create_string_buffer(b"used_dltensor_versioned")


def test_an_export_deleter_may_run_on_a_thread_python_never_saw():
    """A consumer may free from its own C thread: the deleter takes the GIL."""
    libc = ctypes.CDLL(None)  # ctypes releases the GIL around these calls
    libc.pthread_create.argtypes = [ctypes.POINTER(ctypes.c_ulong), ctypes.c_void_p,
                                    ctypes.c_void_p, ctypes.c_void_p]
    libc.pthread_join.argtypes = [ctypes.c_ulong, ctypes.c_void_p]
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    set_name = ctypes.pythonapi.PyCapsule_SetName
    set_name.argtypes = [ctypes.py_object, ctypes.c_char_p]

    buf = _core.from_capsule(np.arange(4.0).__dlpack__(max_version=(1, 0)))
    ref = weakref.ref(buf)
    capsule = buf.__dlpack__(max_version=(1, 0))
    del buf
    address = get_pointer(capsule, b"dltensor_versioned")
    assert set_name(capsule, _USED) == 0  # consumed: the capsule will not free it
    managed = DLManagedTensorVersioned.from_address(address)
    deleter = ctypes.cast(managed.deleter, ctypes.c_void_p).value
    alive = _core.stats()["exported_alive"]
    thread = ctypes.c_ulong()
    assert libc.pthread_create(ctypes.byref(thread), None, deleter, address) == 0
    assert libc.pthread_join(thread, None) == 0
    assert _core.stats()["exported_alive"] == alive - 1
    assert ref() is None  # the export held the last reference to the Buffer
    del capsule
