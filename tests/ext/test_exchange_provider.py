"""unitensor.Tensor as a producer of the DLPack 1.3 C exchange API.

The table is read here as a C consumer reads it: through ctypes, from the type's
``__dlpack_c_exchange_api__`` capsule, calling its function pointers (ctypes'
PYFUNCTYPE holds the GIL and raises the Python error a function sets). The
C-side counters of ``_core.stats()`` prove that each deleter runs exactly once.
tests/ext/test_exchange_tvm_ffi.py does the same through a real consumer.
"""

from __future__ import annotations

import ctypes
import gc
import threading

import numpy as np
import pytest
from forge import READ_ONLY, DLDataType, DLDevice, DLTensor
from owners import has_cuda, needs_cuda

import unitensor as ut
from unitensor import _core

KDL_CPU, KDL_CUDA, KDL_OPENCL = 1, 2, 4


class DLManaged(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManaged))  # drops the GIL
DLManaged._fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                      ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER),
                      ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]
MANAGED_P = ctypes.POINTER(DLManaged)
SET_ERROR = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p)
ALLOCATOR = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(DLTensor),
                             ctypes.POINTER(MANAGED_P), ctypes.c_void_p, SET_ERROR)
FROM_OBJECT = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object,
                                ctypes.POINTER(MANAGED_P))
TO_OBJECT = ctypes.PYFUNCTYPE(ctypes.c_int, MANAGED_P, ctypes.POINTER(ctypes.c_void_p))
DLTENSOR_FROM_OBJECT = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object,
                                         ctypes.POINTER(DLTensor))
WORK_STREAM = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_int32,
                                ctypes.POINTER(ctypes.c_void_p))


class ExchangeAPI(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                ("prev_api", ctypes.c_void_p), ("allocator", ALLOCATOR),
                ("from_object", FROM_OBJECT), ("to_object", TO_OBJECT),
                ("dltensor_from_object", DLTENSOR_FROM_OBJECT),
                ("work_stream", WORK_STREAM)]


def table() -> ExchangeAPI:
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    address = get(ut.Tensor.__dlpack_c_exchange_api__, b"dlpack_exchange_api")
    return ExchangeAPI.from_address(address)


def export(t: object) -> DLManaged:
    out = MANAGED_P()
    assert table().from_object(t, ctypes.byref(out)) == 0
    return out.contents


def delete(managed: DLManaged) -> None:
    managed.deleter(ctypes.pointer(managed))


def read(managed: DLManaged, dtype: type, n: int) -> list:
    """The elements of a compact 1-d managed tensor, read at its data pointer."""
    buf = (ctypes.c_char * (n * np.dtype(dtype).itemsize)).from_address(
        managed.dl_tensor.data)
    return np.frombuffer(buf, dtype).tolist()


def test_the_type_publishes_a_dlpack_1_3_table():
    capsule = ut.Tensor.__dlpack_c_exchange_api__
    assert type(capsule).__name__ == "PyCapsule"
    api = table()
    assert (api.major, api.minor, api.prev_api) == (1, 3, None)
    for name in ("allocator", "from_object", "to_object", "dltensor_from_object",
                 "work_stream"):
        assert ctypes.cast(getattr(api, name), ctypes.c_void_p).value, name


def test_managed_tensor_describes_the_memory_and_keeps_it_after_the_tensor():
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = ut.asarray(base[:, ::2])  # strided: strides must be exported as they are
    before = _core.stats()
    managed = export(t)
    dl = managed.dl_tensor
    assert (managed.major, managed.minor, managed.flags) == (1, 1, 0)
    assert dl.data == base.ctypes.data
    assert dl.byte_offset == 0
    assert (dl.device.device_type, dl.device.device_id, dl.ndim) == (KDL_CPU, 0, 2)
    assert (dl.dtype.code, dl.dtype.bits, dl.dtype.lanes) == (2, 32, 1)
    assert [dl.shape[i] for i in range(2)] == [3, 2]
    assert [dl.strides[i] for i in range(2)] == [4, 2]
    after = _core.stats()
    assert after["capsules_exported"] == before["capsules_exported"] + 1
    assert after["exported_alive"] == before["exported_alive"] + 1
    # the Tensor and its array gone, the memory is still the consumer's
    del t, base
    gc.collect()
    assert read(managed, np.float32, 12)[4:8] == [4.0, 5.0, 6.0, 7.0]
    delete(managed)  # exactly once: the count of live exports is back
    assert _core.stats()["exported_alive"] == before["exported_alive"]
    assert _core.stats()["buffers_alive"] <= before["buffers_alive"]


def test_read_only_numpy_memory_is_flagged_read_only():
    readonly = np.arange(3.0)
    readonly.flags.writeable = False
    managed = export(ut.asarray(readonly))
    assert managed.flags & READ_ONLY
    delete(managed)
    managed = export(ut.asarray(np.arange(3.0)))
    assert not managed.flags & READ_ONLY  # a writable numpy array stays writable
    delete(managed)


def test_jax_and_tensorflow_memory_is_flagged_read_only():
    jnp = pytest.importorskip("jax.numpy", reason="jax is not installed")
    sources = [jnp.arange(3.0)]
    try:
        import tensorflow as tf
        sources.append(tf.constant([0.0, 1.0, 2.0]))
    except ImportError:
        pass
    for source in sources:
        managed = export(ut.asarray(source))
        assert managed.flags & READ_ONLY, type(source)
        delete(managed)


def test_dltensor_view_of_a_tensor():
    base = np.arange(6, dtype=np.int64).reshape(2, 3)
    t = ut.asarray(base)
    out = DLTensor()
    assert table().dltensor_from_object(t, ctypes.byref(out)) == 0
    assert out.data == base.ctypes.data
    assert out.ndim == 2
    assert [out.shape[i] for i in range(2)] == [2, 3]
    assert [out.strides[i] for i in range(2)] == [3, 1]


def test_to_object_makes_a_tensor_that_owns_the_managed_tensor():
    base = np.arange(4.0)
    before = _core.stats()
    managed = export(ut.asarray(base))
    out = ctypes.c_void_p()
    assert table().to_object(ctypes.pointer(managed), ctypes.byref(out)) == 0
    back = ctypes.cast(out, ctypes.py_object).value
    ctypes.pythonapi.Py_DecRef(ctypes.py_object(back))  # the reference it gave us
    assert isinstance(back, ut.Tensor)
    assert back.owner == "numpy"
    assert back.native.ctypes.data == base.ctypes.data
    assert back.numpy().tolist() == [0.0, 1.0, 2.0, 3.0]
    del back
    gc.collect()  # the Tensor's Buffer ran the managed tensor's deleter, once
    assert _core.stats()["exported_alive"] == before["exported_alive"]


def test_allocator_gives_host_memory_freed_by_its_deleter():
    shape = (ctypes.c_int64 * 2)(2, 3)
    prototype = DLTensor(None, DLDevice(KDL_CPU, 0), 2, DLDataType(2, 64, 1), shape,
                         None, 0)
    errors = []
    set_error = SET_ERROR(lambda ctx, kind, msg: errors.append((kind, msg)))
    before = _core.stats()
    out = MANAGED_P()
    assert table().allocator(ctypes.byref(prototype), ctypes.byref(out), None,
                             set_error) == 0
    assert errors == []
    managed = out.contents
    assert managed.dl_tensor.data % 64 == 0
    assert not managed.flags & READ_ONLY
    assert [managed.dl_tensor.strides[i] for i in range(2)] == [3, 1]
    assert read(managed, np.float64, 6) == [0.0] * 6  # zero-filled
    assert _core.stats()["exported_alive"] == before["exported_alive"] + 1
    delete(managed)
    assert _core.stats()["exported_alive"] == before["exported_alive"]
    assert _core.stats()["buffers_alive"] == before["buffers_alive"]


def test_allocator_reports_a_device_it_cannot_allocate_on():
    shape = (ctypes.c_int64 * 1)(4)
    prototype = DLTensor(None, DLDevice(KDL_CUDA, 0), 1, DLDataType(2, 32, 1), shape,
                         None, 0)
    errors = []
    set_error = SET_ERROR(lambda ctx, kind, msg: errors.append((kind, msg)))
    out = MANAGED_P()
    assert table().allocator(ctypes.byref(prototype), ctypes.byref(out), None,
                             set_error) == -1
    [(kind, message)] = errors
    assert kind == b"ValueError"
    assert message.startswith(b"managed_tensor_allocator(): prototype: expected a "
                              b"tensor on the CPU")
    assert b"got device CUDA (2, 0)" in message


def test_current_work_stream_is_none_on_the_cpu_and_refuses_other_devices():
    api = table()
    stream = ctypes.c_void_p(123)
    assert api.work_stream(KDL_CPU, 0, ctypes.byref(stream)) == 0
    assert stream.value is None
    with pytest.raises(ValueError, match=r"current_work_stream\(\): device_type: "
                       r"expected a device unitensor holds memory on.*, got 4 "
                       r"\(OpenCL\)"):
        api.work_stream(KDL_OPENCL, 0, ctypes.byref(stream))
    with pytest.raises(ValueError, match=r"current_work_stream\(\): device_id: "
                       r"expected a device id of 0 or more, got -1"):
        api.work_stream(KDL_CPU, -1, ctypes.byref(stream))


def test_from_object_refuses_what_is_no_tensor():
    out = MANAGED_P()
    with pytest.raises(TypeError, match=r"managed_tensor_from_py_object_no_sync\(\): "
                       r"py_object: expected a unitensor.Tensor, got an object of "
                       r"type 'numpy.ndarray'"):
        table().from_object(np.arange(3), ctypes.byref(out))


def test_to_object_gives_back_a_tensor_it_refuses_exactly_once():
    before = _core.stats()
    managed = export(ut.asarray(np.arange(4.0)))
    managed.dl_tensor.ndim = 65  # more dimensions than DLPack consumers take
    out = ctypes.c_void_p()
    with pytest.raises(BufferError, match=r"managed_tensor_to_py_object_no_sync\(\): "
                       r"ndim: expected 0 <= ndim <= 64, got ndim=65"):
        table().to_object(ctypes.pointer(managed), ctypes.byref(out))
    gc.collect()
    assert _core.stats()["exported_alive"] == before["exported_alive"]


def test_current_work_stream_on_cuda_without_a_device_says_why():
    pytest.importorskip("torch", reason="torch is not installed")
    if has_cuda():
        pytest.skip("this machine has CUDA: the stream is asked of cupy")
    stream = ctypes.c_void_p()
    with pytest.raises(ValueError, match=r"^current_work_stream\(\): device_type: "
                       r"expected .*, got CUDA memory"):
        table().work_stream(KDL_CUDA, 0, ctypes.byref(stream))


@needs_cuda
def test_current_work_stream_on_cuda_is_cupys_current_stream():
    import cupy
    stream = ctypes.c_void_p(123)
    with cupy.cuda.Stream() as current:
        assert table().work_stream(KDL_CUDA, 0, ctypes.byref(stream)) == 0
        assert stream.value == current.ptr
    assert table().work_stream(KDL_CUDA, 0, ctypes.byref(stream)) == 0
    assert stream.value is None  # cupy's default: CUDA's legacy default stream


def test_the_deleter_runs_from_another_thread_without_the_gil():
    before = _core.stats()
    managed = [export(ut.asarray(np.arange(8.0))) for _ in range(16)]
    # ctypes' CFUNCTYPE releases the GIL around the call: the deleter takes it
    worker = threading.Thread(target=lambda: [delete(m) for m in managed])
    worker.start()
    worker.join()
    assert _core.stats()["exported_alive"] == before["exported_alive"]
