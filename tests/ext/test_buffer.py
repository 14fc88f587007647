"""The C Buffer itself: imports, metadata, exports, copies, errors, lifetime, threads.

Catalogue cases of docs/reliability.md are checked here at the Buffer level
and named by their number (P-xx). After every test, every forged capsule has been
freed exactly once (the ``forged_balance`` fixture).
"""

from __future__ import annotations

import array
import ctypes
import datetime
import gc
import math
import random
import re
import sys
import threading
import weakref
from typing import ClassVar

import numpy as np
import pytest
from forge import (
    IS_COPIED,
    IS_SUBBYTE_TYPE_PADDED,
    READ_ONLY,
    DLManagedTensorVersioned,
    capsule_name,
    counters,
    forge,
    read_capsule,
    versioned_tensor,
)

from unitensor import _core

MESSAGE = re.compile(r"^[\w.]+\(\): [\w ]+: expected .+, got .+", re.S)

# numpy dtype name -> DLPack (code, bits, lanes); bfloat16 is tested on its own.
DTYPES = {"bool": (6, 8, 1), "int8": (0, 8, 1), "int16": (0, 16, 1),
          "int32": (0, 32, 1), "int64": (0, 64, 1), "uint8": (1, 8, 1),
          "uint16": (1, 16, 1), "uint32": (1, 32, 1), "uint64": (1, 64, 1),
          "float16": (2, 16, 1), "float32": (2, 32, 1), "float64": (2, 64, 1),
          "complex64": (5, 64, 1), "complex128": (5, 128, 1)}


@pytest.fixture(scope="module", autouse=True)
def collected_first():
    """Start with no garbage of earlier modules: the tests below read counters before
    and after (``forged_balance`` collects after each test; conftest has frozen the
    frameworks' objects, so a collection is cheap)."""
    gc.collect()


@pytest.fixture(autouse=True)
def forged_balance():
    """Every forged deleter ran at most once, and nothing forged outlives a test."""
    double = counters.double_calls
    yield
    gc.collect()
    assert counters.double_calls == double
    assert counters.live == 0


def imported(x, max_version=(1, 1)) -> _core.Buffer:
    """A Buffer over ``x``'s memory through its own ``__dlpack__``."""
    if max_version is None:
        return _core.from_capsule(x.__dlpack__())
    return _core.from_capsule(x.__dlpack__(max_version=max_version))


def address(x: np.ndarray) -> int:
    return x.__array_interface__["data"][0]


def values(kind: str, n: int = 6) -> np.ndarray:
    if kind == "bool":
        return np.arange(n) % 3 == 0
    return (np.arange(n) * 3 + 1).astype(kind)


def check_message(exc: pytest.ExceptionInfo) -> None:
    assert MESSAGE.match(str(exc.value)), str(exc.value)


class PyBuffer(ctypes.Structure):
    """CPython's Py_buffer, to make buffer requests with exact flags."""

    _fields_ = [("buf", ctypes.c_void_p), ("obj", ctypes.c_void_p),
                ("len", ctypes.c_ssize_t), ("itemsize", ctypes.c_ssize_t),
                ("readonly", ctypes.c_int), ("ndim", ctypes.c_int),
                ("format", ctypes.c_char_p),
                ("shape", ctypes.POINTER(ctypes.c_ssize_t)),
                ("strides", ctypes.POINTER(ctypes.c_ssize_t)),
                ("suboffsets", ctypes.c_void_p), ("internal", ctypes.c_void_p)]


PyBUF_SIMPLE, PyBUF_WRITABLE, PyBUF_FORMAT, PyBUF_ND = 0, 0x1, 0x4, 0x8
PyBUF_STRIDES = 0x10 | PyBUF_ND
_get_buffer = ctypes.pythonapi.PyObject_GetBuffer
_get_buffer.argtypes = [ctypes.py_object, ctypes.POINTER(PyBuffer), ctypes.c_int]
_release_buffer = ctypes.pythonapi.PyBuffer_Release
_release_buffer.argtypes = [ctypes.POINTER(PyBuffer)]


def request(obj, flags: int) -> dict:
    """What a consumer asking for ``flags`` gets (raises what the exporter raises)."""
    view = PyBuffer()
    _get_buffer(obj, ctypes.byref(view), flags)
    try:
        n = view.ndim
        return {"buf": view.buf, "readonly": bool(view.readonly), "ndim": n,
                "format": view.format, "itemsize": view.itemsize, "len": view.len,
                "shape": None if not view.shape else tuple(view.shape[:n]),
                "strides": None if not view.strides else tuple(view.strides[:n])}
    finally:
        _release_buffer(ctypes.byref(view))


# ------------------------------------------------------------------- metadata ---


def test_module_constants_and_counters():
    assert _core.DLPACK_VERSION == (1, 1)
    assert set(_core.stats()) == {"buffers_alive", "capsules_exported",
                                  "exported_alive", "imported_deleters_run"}


def test_metadata_at_c_speed():
    x = np.arange(24, dtype=np.int32).reshape(4, 6)[1:, ::2]
    buf = imported(x, (1, 0))
    assert buf.shape == (3, 3)
    assert buf.strides == (6, 2)
    assert buf.ndim == 2
    assert buf.size == 9
    assert buf.itemsize == 4
    assert buf.nbytes == 36
    assert buf.dtype == (0, 32, 1)
    assert buf.device == (1, 0)
    assert buf.byte_offset == 0
    assert buf.data_ptr == address(x)
    assert buf.readonly is False
    assert buf.is_copied is False
    assert buf.version == (1, 0)
    assert buf.source == "dlpack_versioned"
    assert buf.c_contiguous is False
    assert buf.base is None
    assert buf.stream is None
    assert repr(buf) == ("<unitensor._core.Buffer shape=(3, 3) dtype=int(32) "
                         "device=(1, 0) readonly=False source='dlpack_versioned'>")


def test_buffers_are_final_weakly_referenceable_and_not_constructible():
    with pytest.raises(TypeError, match="from_capsule") as info:
        _core.Buffer()
    check_message(info)
    with pytest.raises(TypeError):
        type("Sub", (_core.Buffer,), {})
    buf = _core.empty((1,), 2, 32)
    ref = weakref.ref(buf)
    del buf
    assert ref() is None


# ------------------------------------------------------------------- imports ---


@pytest.mark.parametrize(("max_version", "source", "version"), [
    ((1, 1), "dlpack_versioned", (1, 0)), (None, "dlpack", None)])
def test_numpy_import_is_zero_copy_and_writes_through(max_version, source, version):
    x = np.arange(6.0).reshape(2, 3)
    buf = imported(x, max_version)
    assert buf.source == source
    assert buf.version == version
    assert buf.data_ptr == address(x)
    assert buf.shape == (2, 3)
    assert buf.strides == (3, 1)
    out = np.from_dlpack(buf)
    assert address(out) == address(x)
    out[1, 2] = 42.0
    assert x[1, 2] == 42.0
    x[0, 0] = -1.0
    assert out[0, 0] == -1.0


def test_torch_import_and_export_share_memory():
    torch = pytest.importorskip("torch")
    t = torch.arange(12.0).reshape(3, 4)
    buf = imported(t)
    assert buf.data_ptr == t.data_ptr()
    assert buf.strides == (4, 1)
    back = torch.from_dlpack(buf)
    assert back.data_ptr() == t.data_ptr()
    assert back.stride() == (4, 1)
    back[2, 3] = 99.0
    assert t[2, 3] == 99.0
    through_numpy = np.from_dlpack(buf)
    through_numpy[0, 0] = -5.0
    assert t[0, 0] == -5.0
    assert back[0, 0] == -5.0
    transposed = imported(t.T, None)
    assert transposed.strides == (1, 4)
    assert not transposed.c_contiguous
    np.testing.assert_array_equal(np.from_dlpack(transposed), t.T.numpy())


def test_jax_import_and_export():
    jax = pytest.importorskip("jax")
    j = jax.numpy.arange(6.0, dtype=jax.numpy.float32).reshape(2, 3)
    buf = _core.from_capsule(j.__dlpack__())
    assert buf.shape == (2, 3)
    assert buf.dtype == (2, 32, 1)
    assert buf.data_ptr == j.unsafe_buffer_pointer()
    np.testing.assert_array_equal(np.from_dlpack(buf), np.asarray(j))
    owned = _core.empty((4, 4), 2, 32)  # 64-byte aligned: jax can alias it
    np.asarray(owned)[:] = 3.0
    alias = jax.numpy.from_dlpack(owned)
    assert alias.unsafe_buffer_pointer() == owned.data_ptr
    assert alias.sum() == 48.0


@pytest.mark.parametrize("kind", DTYPES)
def test_every_dtype_round_trips_bit_identically(kind):  # P-14
    x = values(kind)
    buf = imported(x)
    assert buf.dtype == DTYPES[kind]
    assert buf.itemsize == x.itemsize
    for out in (np.from_dlpack(buf), np.asarray(buf), np.asarray(memoryview(buf))):
        assert out.dtype == x.dtype
        assert address(out) == address(x)
        assert out.tobytes() == x.tobytes()
    iface = buf.__array_interface__
    assert np.dtype(iface["typestr"]) == x.dtype
    again = _core.from_array_interface(x)
    assert again.dtype == DTYPES[kind]
    assert again.data_ptr == address(x)
    assert _core.from_buffer(x).dtype == DTYPES[kind]


@pytest.mark.parametrize("kind", ["bool", "int8", "uint8", "int64", "float16",
                                  "float32", "complex64", "complex128"])
def test_every_dtype_round_trips_through_torch(kind):
    torch = pytest.importorskip("torch")
    x = values(kind)
    buf = imported(x)
    t = torch.from_dlpack(buf)
    assert t.data_ptr() == address(x)
    np.testing.assert_array_equal(t.numpy(), x)
    assert imported(t).dtype == DTYPES[kind]


def test_bool_stays_bool():  # P-15
    jax = pytest.importorskip("jax")
    for source in (np.array([True, False]), jax.numpy.array([True, False])):
        buf = imported(source) if isinstance(source, np.ndarray) else \
            _core.from_capsule(source.__dlpack__())
        assert buf.dtype == (6, 8, 1)
        assert np.from_dlpack(buf).dtype == np.bool_
    forged = _core.from_capsule(forge(np.array([1, 0, 1], np.uint8), dtype=(6, 8, 1)))
    assert np.from_dlpack(forged).tolist() == [True, False, True]
    assert forged.__array_interface__["typestr"] == "|b1"


def test_bfloat16_from_every_producer():  # P-16
    torch = pytest.importorskip("torch")
    ml_dtypes = pytest.importorskip("ml_dtypes")
    jax = pytest.importorskip("jax")
    t = torch.tensor([1.5, -2.0, 3.25], dtype=torch.bfloat16)
    buf = imported(t)
    assert buf.dtype == (4, 16, 1)
    assert buf.itemsize == 2
    back = torch.from_dlpack(buf)
    assert back.dtype == torch.bfloat16
    assert back.data_ptr() == t.data_ptr()
    iface = buf.__array_interface__
    assert iface["typestr"] == "|V2"
    assert iface["strides"] == (2,)
    as_numpy = np.asarray(buf).view(ml_dtypes.bfloat16)
    assert as_numpy.tolist() == [1.5, -2.0, 3.25]
    assert address(as_numpy) == t.data_ptr()
    with pytest.raises(BufferError, match="bfloat16"):
        memoryview(buf)
    m = np.array([0.5, 8.0], ml_dtypes.bfloat16)
    wrapped = _core.from_array_interface(m, dtype=(4, 16, 1))
    assert wrapped.dtype == (4, 16, 1)
    assert wrapped.data_ptr == address(m)
    with pytest.raises(BufferError, match="typestr"):
        _core.from_array_interface(m)  # '<V2' names no dtype by itself
    with pytest.raises(BufferError, match="item size"):
        _core.from_array_interface(m, dtype=(2, 32, 1))
    with pytest.raises(TypeError, match="dtype"):
        _core.from_array_interface(m, dtype=(4, 16))
    j = jax.numpy.zeros(2, jax.numpy.bfloat16)
    assert _core.from_capsule(j.__dlpack__()).dtype == (4, 16, 1)
    forged = _core.from_capsule(forge(np.zeros(3, np.uint16), dtype=(4, 16, 1)))
    assert forged.dtype == (4, 16, 1)
    assert torch.from_dlpack(forged).dtype == torch.bfloat16



# torch dtype name -> DLPack code (DLPack 1.1's table; torch names them alike).
FLOAT8_CODES = {"float8_e4m3fn": 10, "float8_e4m3fnuz": 11, "float8_e5m2": 12,
                "float8_e5m2fnuz": 13, "float8_e8m0fnu": 14}


def test_float8_kinds_cross_zero_copy():
    torch = pytest.importorskip("torch")
    ml_dtypes = pytest.importorskip("ml_dtypes")
    jax = pytest.importorskip("jax")
    for name, code in FLOAT8_CODES.items():
        if not hasattr(torch, name) or not hasattr(ml_dtypes, name):
            continue
        t = torch.tensor([0.5, 2.0, 4.0]).to(getattr(torch, name))
        buf = imported(t, max_version=None)
        assert buf.dtype == (code, 8, 1), name
        assert buf.itemsize == 1
        assert name in repr(buf)
        back = torch.from_dlpack(buf)
        assert back.dtype == getattr(torch, name)
        assert back.data_ptr() == t.data_ptr()
        assert buf.__array_interface__["typestr"] == "|V1"
        as_numpy = np.asarray(buf).view(getattr(ml_dtypes, name))
        assert as_numpy.astype(np.float32).tolist() == [0.5, 2.0, 4.0]
        assert address(as_numpy) == t.data_ptr()
        with pytest.raises(BufferError, match="float8"):
            memoryview(buf)
    j = jax.numpy.array([1.0, 3.0], jax.numpy.float8_e5m2)
    from_jax = _core.from_capsule(j.__dlpack__())
    assert from_jax.dtype == (12, 8, 1)
    assert torch.from_dlpack(from_jax).float().tolist() == [1.0, 3.0]
    m = np.array([0.25, 8.0], ml_dtypes.float8_e4m3fn)
    wrapped = _core.from_array_interface(m, dtype=(10, 8, 1))
    assert wrapped.dtype == (10, 8, 1)
    assert wrapped.data_ptr == address(m)
    assert torch.from_dlpack(wrapped).float().tolist() == [0.25, 8.0]
    assert _core.empty((2,), 8, 8).dtype == (8, 8, 1)  # float8_e4m3 (code 8): held too


def test_sub_byte_floats_refused():
    # float6/float4 (DLPack 15-17) count bits, not bytes, in sizes; refused.
    for code, bits in ((15, 6), (16, 6), (17, 4), (10, 16)):
        capsule = forge(np.zeros(3, np.uint8), dtype=(code, bits, 1))
        with pytest.raises(BufferError, match=f"code={code}, bits={bits}") as info:
            _core.from_capsule(capsule)
        check_message(info)
        del capsule  # its deleter is a Python callback: run it with no error pending

# -------------------------------------------------------------------- layouts ---


def odd_unit_strides():
    raw = np.arange(50.0)
    return np.ndarray((10, 5, 1), "f8", strides=(8, 80, 4), buffer=raw)


LAYOUTS = {
    "0-d": lambda: np.array(3.5),
    "size-0 rows": lambda: np.empty((0, 3)),
    "size-0 columns": lambda: np.empty((3, 0)),
    "size-1 slice": lambda: np.arange(16.0)[::3][:1],
    "size-1 odd strides": odd_unit_strides,  # numpy's __dlpack__ refuses it
    "reversed": lambda: np.arange(10)[::-1],
    "reversed columns": lambda: np.arange(12.0).reshape(3, 4)[:, ::-1],
    "column": lambda: np.arange(12.0).reshape(3, 4)[:, 0],
    "transposed": lambda: np.arange(12.0).reshape(3, 4).T,
    "stepped": lambda: np.arange(30.0).reshape(5, 6)[::2, 1::3],
    "broadcast": lambda: np.broadcast_to(np.arange(3.0), (4, 3)),
}


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_layout_is_zero_copy_and_exports_valid_strides(layout):  # P-07..P-11
    x = LAYOUTS[layout]()
    try:
        buf = imported(x)
    except BufferError:
        buf = _core.from_array_interface(x)
    assert buf.shape == x.shape
    assert buf.ndim == x.ndim
    assert buf.size == x.size
    if x.size:
        assert buf.data_ptr == address(x)
    out = np.from_dlpack(buf)
    assert out.shape == x.shape
    np.testing.assert_array_equal(out, x)
    if x.size:
        assert address(out) == address(x)
    np.testing.assert_array_equal(np.asarray(buf), x)
    copy = buf.copy()
    assert copy.c_contiguous
    assert copy.is_copied
    assert not copy.readonly
    np.testing.assert_array_equal(np.from_dlpack(copy), x)
    for capsule in (buf.__dlpack__(max_version=(1, 1)),
                    buf.export_legacy(allow_readonly=True)):
        exported = read_capsule(capsule)
        assert exported["strides"] == buf.strides  # always strides, never NULL
        assert exported["shape"] == buf.shape
        assert exported["byte_offset"] == 0


def test_size_one_dimensions_get_compact_strides():  # P-09
    buf = _core.from_capsule(forge(np.arange(12.0).reshape(4, 1, 3),
                                   strides=(3, 999, 1)))
    assert buf.strides == (3, 3, 1)
    assert buf.c_contiguous
    np.testing.assert_array_equal(np.from_dlpack(buf), np.arange(12.0).reshape(4, 1, 3))
    torch = pytest.importorskip("torch")
    assert torch.from_dlpack(buf).is_contiguous()


def test_negative_strides_stay_inside_the_source():  # P-10
    base = np.arange(12.0).reshape(3, 4)
    buf = imported(base[::-1, ::-1])
    assert buf.strides == (-4, -1)
    assert buf.data_ptr == address(base) + 11 * 8
    assert np.from_dlpack(buf)[0, 0] == 11.0
    assert np.asarray(buf.copy()).tolist() == base[::-1, ::-1].tolist()


def test_forged_zero_d_and_empty_tensors():  # P-07, P-08
    scalar = _core.from_capsule(forge(np.array(2.5), null_shape=True,
                                      null_strides=True))
    assert scalar.shape == ()
    assert scalar.strides == ()
    assert scalar.size == 1
    assert np.from_dlpack(scalar)[()] == 2.5
    empty = _core.from_capsule(forge(shape=(0, 3), null_data=True))
    assert empty.shape == (0, 3)
    assert empty.size == 0
    assert empty.data_ptr == 0
    assert np.from_dlpack(empty).shape == np.asarray(empty).shape == (0, 3)
    torch, jax = pytest.importorskip("torch"), pytest.importorskip("jax")
    assert torch.from_dlpack(empty).shape == (0, 3)
    assert jax.numpy.from_dlpack(empty).shape == (0, 3)
    assert empty.copy().data_ptr != 0
    assert empty.alignment == 4096


def test_null_strides_mean_compact_row_major():  # P-13
    data = np.arange(6.0).reshape(2, 3)
    legacy = _core.from_capsule(forge(data, null_strides=True, versioned=False))
    explicit = _core.from_capsule(forge(data, strides=(3, 1)))
    assert legacy.strides == explicit.strides == (3, 1)
    np.testing.assert_array_equal(np.from_dlpack(legacy), np.from_dlpack(explicit))


def test_byte_offset_is_folded_into_the_exported_pointer():
    base = np.arange(10.0)
    buf = _core.from_capsule(forge(base[2:], byte_offset=16, versioned=False))
    assert buf.source == "dlpack"
    assert buf.version is None
    assert buf.byte_offset == 16
    assert buf.data_ptr == address(base) + 16
    np.testing.assert_array_equal(np.from_dlpack(buf), base[2:])
    exported = read_capsule(buf.__dlpack__(max_version=(1, 1)))
    assert exported["data"] == buf.data_ptr
    assert exported["byte_offset"] == 0


def test_the_largest_rank_is_accepted():  # P-12
    buf = imported(np.zeros((1,) * 64))
    assert buf.shape == (1,) * 64
    assert buf.ndim == 64
    assert np.from_dlpack(buf).shape == (1,) * 64


# --------------------------------------------------------- malformed capsules ---


def test_a_foreign_capsule_name_is_a_type_error_and_untouched():  # P-01
    capsule = forge(name=b"not_a_dltensor")
    deleted = counters.deleter_calls
    with pytest.raises(TypeError) as info:
        _core.from_capsule(capsule)
    assert str(info.value) == (
        "from_capsule(): capsule: expected a PyCapsule named 'dltensor_versioned' or "
        "'dltensor', got a capsule named 'not_a_dltensor'")
    assert capsule_name(capsule) == b"not_a_dltensor"
    assert counters.deleter_calls == deleted
    del capsule
    assert counters.deleter_calls == deleted + 1


def test_a_consumed_capsule_is_a_value_error():  # P-02
    x = np.arange(3)
    baseline = sys.getrefcount(x)
    capsule = x.__dlpack__(max_version=(1, 0))
    buf = _core.from_capsule(capsule)
    with pytest.raises(ValueError, match="already consumed") as info:
        _core.from_capsule(capsule)
    check_message(info)
    legacy = x.__dlpack__()
    legacy_buf = _core.from_capsule(legacy)
    with pytest.raises(ValueError, match="used_dltensor"):
        _core.from_capsule(legacy)
    del capsule, buf, legacy, legacy_buf
    gc.collect()
    assert sys.getrefcount(x) == baseline


def test_another_modules_capsule_is_left_alone():  # P-03
    with pytest.raises(TypeError, match=r"'datetime\.datetime_CAPI'") as info:
        _core.from_capsule(datetime.datetime_CAPI)
    check_message(info)
    assert "datetime.datetime_CAPI" in repr(datetime.datetime_CAPI)
    assert datetime.datetime.now().year >= 2024


@pytest.mark.parametrize(("obj", "kind"), [(42, "int"), (None, "NoneType"),
                                       (b"dltensor", "bytes"), (object(), "object")])
def test_a_non_capsule_is_a_type_error_naming_its_type(obj, kind):  # P-04
    alive = _core.stats()["buffers_alive"]
    with pytest.raises(TypeError, match=f"an object of type '{kind}'") as info:
        _core.from_capsule(obj)
    check_message(info)
    assert _core.stats()["buffers_alive"] == alive


BAD_CAPSULES = {  # forge(...) arguments -> words the BufferError must contain
    "null data": ({"shape": (3,), "null_data": True}, "NULL data with 3 elements"),
    "null shape": ({"shape": (2, 3), "null_shape": True}, "NULL shape"),
    "ndim 65": ({"array": np.zeros((1,) * 64), "shape": (1,) * 65,
                 "strides": (1,) * 65}, "ndim=65"),
    "ndim -1": ({"ndim": -1}, "ndim=-1"),
    "negative dimension": ({"array": np.zeros(4), "shape": (2, -2)},
                           "dimension 1 of size -2"),
    "lanes": ({"array": np.zeros(4, np.float32), "dtype": (2, 32, 4)}, "lanes=4"),
    "float7": ({"array": np.zeros(4, np.float32), "dtype": (2, 7, 1)},
               "code=2, bits=7"),
    "code 0 bits 0": ({"dtype": (0, 0, 1)}, "code=0, bits=0"),
    "code 255": ({"dtype": (255, 32, 1)}, "code=255, bits=32"),
    "opaque handle": ({"dtype": (3, 64, 1)}, "code=3, bits=64"),
    "int128": ({"dtype": (0, 128, 1)}, "code=0, bits=128"),
    "major 0": ({"version": (0, 9)}, "version 0.9"),
    "major 2": ({"version": (2, 0)}, "version 2.0"),
    "sub-byte": ({"flags": IS_SUBBYTE_TYPE_PADDED}, "IS_SUBBYTE_TYPE_PADDED"),
    "unknown device": ({"device": (99, 0)}, "unknown device type 99"),
    "device 5": ({"device": (5, 0)}, "unknown device type 5"),
    "cpu device -1": ({"device": (1, -1)}, "got device CPU (1, -1)"),
    "cuda device -1": ({"device": (2, -1)}, "got device CUDA (2, -1)"),
    "size overflow": ({"array": np.zeros(4), "shape": (2**62, 4)}, "overflowing"),
    "stride overflow": ({"shape": (3, 2), "strides": (2**62, 1)}, "extent"),
    "stride INT64_MIN": ({"shape": (3,), "strides": (-(2**63),)}, "extent"),
    "wrapping extent": ({"shape": (3,), "strides": (-(2**50),)},
                        "an extent inside the address space"),
    "wrapping offset": ({"byte_offset": 2**64 - 8}, "byte_offset"),
}


@pytest.mark.parametrize(("case", "versioned"), [
    (case, versioned) for case, (kwargs, _) in BAD_CAPSULES.items()
    for versioned in (True, False)
    if versioned or not {"version", "flags"} & set(kwargs)])  # legacy: neither
def test_a_malformed_capsule_is_refused_and_stays_its_producers(case, versioned):
    # P-05, P-12, P-17, P-18: refused before ownership is taken, so the producer's
    # own capsule destructor frees the tensor, exactly once.
    kwargs, words = BAD_CAPSULES[case]
    capsule = forge(versioned=versioned, **kwargs)
    name = capsule_name(capsule)
    stats, deleted = _core.stats(), counters.deleter_calls
    with pytest.raises(BufferError) as info:
        _core.from_capsule(capsule)
    assert words in str(info.value)
    assert str(info.value).startswith("from_capsule(): ")
    check_message(info)
    assert capsule_name(capsule) == name
    assert _core.stats()["buffers_alive"] == stats["buffers_alive"]
    assert counters.deleter_calls == deleted
    del capsule
    assert counters.deleter_calls == deleted + 1


def test_the_legacy_format_ignores_version_and_flags():
    buf = _core.from_capsule(forge(versioned=False, version=(7, 7), flags=READ_ONLY))
    assert buf.version is None
    assert not buf.readonly


def test_flags_and_version_are_read():
    buf = _core.from_capsule(forge(flags=READ_ONLY | IS_COPIED, version=(1, 3)))
    assert buf.readonly
    assert buf.is_copied
    assert buf.version == (1, 3)
    assert not np.from_dlpack(buf).flags.writeable


def test_a_null_deleter_is_legal():  # P-06
    runs = _core.stats()["imported_deleters_run"]
    buf = _core.from_capsule(forge(shape=(4,), deleter=False))
    assert np.from_dlpack(buf).sum() == 6.0
    del buf
    gc.collect()
    assert _core.stats()["imported_deleters_run"] == runs + 1


def test_other_devices_are_carried_not_touched():
    buf = _core.from_capsule(forge(shape=(2, 2), device=(2, 1)))
    assert buf.device == (2, 1)
    assert buf.__dlpack_device__() == (2, 1)
    assert not hasattr(buf, "__array_interface__")
    assert set(buf.__cuda_array_interface__) >= {"shape", "typestr", "data", "stream"}
    with pytest.raises(BufferError, match=r"device CUDA \(2, 1\)"):
        buf.copy()
    with pytest.raises(BufferError, match="not on the CPU"):
        memoryview(buf)
    rocm = _core.from_capsule(forge(device=(10, 0)))
    assert not hasattr(rocm, "__cuda_array_interface__")
    assert not hasattr(rocm, "__array_interface__")


def test_cpu_memory_is_one_device_whatever_id_the_producer_gives():
    # JAX's virtual CPU devices export their own index (tests/backends/test_jax.py)
    buf = _core.from_capsule(forge(device=(1, 3)))
    assert buf.device == (1, 0)
    assert read_capsule(buf.__dlpack__(dl_device=(1, 0)))["device"] == (1, 0)
    with pytest.raises(BufferError, match=r"got \(1, 3\)$"):
        buf.__dlpack__(dl_device=(1, 3))


# ------------------------------------------------------------------- exports ---


def test_one_import_serves_many_consumers():
    x = np.arange(5.0)
    buf = imported(x)
    views = [np.from_dlpack(buf) for _ in range(50)]
    views[7][0] = 9.0
    assert x[0] == 9.0
    assert all(v[0] == 9.0 for v in views)
    before = _core.stats()["exported_alive"]
    del views
    gc.collect()
    assert _core.stats()["exported_alive"] == before - 50


def test_versioned_only_when_asked_and_strides_always():
    buf = _core.from_capsule(forge(np.arange(6.0).reshape(2, 3)))
    assert capsule_name(buf.__dlpack__(max_version=(1, 1))) == b"dltensor_versioned"
    assert capsule_name(buf.__dlpack__(max_version=(2, 0))) == b"dltensor_versioned"
    assert capsule_name(buf.__dlpack__(max_version=(0, 8))) == b"dltensor"
    assert capsule_name(buf.__dlpack__()) == b"dltensor"
    exported = read_capsule(buf.__dlpack__(max_version=(1, 0)))
    assert exported["version"] == (1, 1)
    assert exported["flags"] == 0
    assert exported["strides"] == (3, 1)
    assert exported["dtype"] == (2, 64, 1)
    assert read_capsule(buf.__dlpack__())["strides"] == (3, 1)
    assert buf.__dlpack_device__() == (1, 0)


def test_dl_device_and_copy():  # P-21
    x = np.arange(4.0)
    buf = imported(x)
    with pytest.raises(BufferError) as info:
        buf.__dlpack__(dl_device=(2, 0))
    assert "(1, 0)" in str(info.value)
    assert str(info.value).endswith("got (2, 0)")
    same = read_capsule(buf.__dlpack__(max_version=(1, 0), dl_device=(1, 0),
                                       copy=False))
    assert same["data"] == address(x)
    assert not same["flags"] & IS_COPIED
    copied = buf.__dlpack__(max_version=(1, 0), dl_device=(1, 0), copy=True)
    exported = read_capsule(copied)
    assert exported["flags"] == IS_COPIED  # and not READ_ONLY
    assert exported["data"] != address(x)
    assert exported["data"] % 64 == 0
    out = np.asarray(_core.from_capsule(copied))
    out[0] = 7.0
    assert x[0] == 0.0
    assert out.tolist() == [7.0, 1.0, 2.0, 3.0]


@pytest.mark.parametrize("dl_device", [(1, 1), (1, 2**30), (1, -1)])
def test_dl_device_names_the_device_id_too(dl_device):  # P-21
    buf = imported(np.arange(4.0))  # the CPU has one device, id 0
    with pytest.raises(BufferError) as info:
        buf.__dlpack__(dl_device=dl_device)
    assert str(info.value).startswith("__dlpack__(): dl_device: expected the "
                                      "tensor's own device (1, 0)")
    assert str(info.value).endswith(f"got {dl_device}")
    check_message(info)


@pytest.mark.parametrize("stream", [1, 0, -1])
def test_cpu_streams_must_be_none(stream):  # P-22
    buf = imported(np.arange(2.0))
    with pytest.raises(ValueError, match="None for memory on the CPU") as info:
        buf.__dlpack__(stream=stream)
    check_message(info)
    assert capsule_name(buf.__dlpack__(stream=None)) == b"dltensor"


def test_read_only_memory_keeps_its_flag_where_the_format_can():  # P-31
    x = np.arange(3.0)
    x.flags.writeable = False
    buf = imported(x)
    assert buf.readonly
    out = np.from_dlpack(buf)
    assert not out.flags.writeable
    assert address(out) == address(x)
    assert read_capsule(buf.__dlpack__(max_version=(1, 0)))["flags"] == READ_ONLY
    for legacy in ({}, {"max_version": (0, 8)}):  # the flag is lost, the memory kept
        assert read_capsule(buf.__dlpack__(**legacy))["data"] == address(x)
    copy = _core.from_capsule(buf.__dlpack__(copy=True))  # legacy: a writable copy
    assert not copy.readonly
    assert copy.data_ptr != address(x)
    np.asarray(copy)[0] = 7.0
    assert x[0] == 0.0
    assert not np.asarray(buf).flags.writeable
    assert memoryview(buf).readonly
    with pytest.raises(BufferError, match="read-only"):
        request(buf, PyBUF_WRITABLE)
    with pytest.raises(BufferError, match="allow_readonly"):
        buf.export_legacy()
    assert capsule_name(buf.export_legacy(allow_readonly=True)) == b"dltensor"


def test_mark_readonly_is_one_way():
    buf = imported(np.arange(3.0))
    buf.mark_readonly()
    assert buf.readonly
    assert not np.from_dlpack(buf).flags.writeable


@pytest.mark.parametrize("kwargs", [
    {"max_version": ("1", "0")}, {"max_version": (1,)}, {"max_version": [1, 0]},
    {"max_version": (1, 0, 0)}, {"max_version": (2**70, 0)}, {"stream": object()},
    {"stream": 1.0}, {"copy": "yes"}, {"copy": 1}, {"dl_device": (1,)},
    {"dl_device": "cpu"}])
def test_bad_dlpack_arguments_are_type_errors(kwargs):  # P-38
    buf = imported(np.arange(2.0))
    with pytest.raises(TypeError) as info:
        buf.__dlpack__(**kwargs)
    check_message(info)
    assert next(iter(kwargs)) in str(info.value)


def test_dlpack_arguments_are_keyword_only():  # P-38
    buf = imported(np.arange(2.0))
    with pytest.raises(TypeError):
        buf.__dlpack__(None)
    with pytest.raises(TypeError):
        buf.__dlpack__(version=1)
    with pytest.raises(TypeError):
        buf.__dlpack_device__(1)


# ---------------------------------------------------------- array interfaces ---


def test_array_interface_import_keeps_the_exporter_alive():
    class Exporter:
        def __init__(self):
            self.a = np.arange(6.0).reshape(2, 3)
            self.__array_interface__ = self.a.T.__array_interface__

    exporter = Exporter()
    buf = _core.from_array_interface(exporter)
    assert buf.base is exporter
    assert buf.source == "array_interface"
    assert buf.shape == (3, 2)
    assert buf.strides == (1, 3)
    assert buf.device == (1, 0)
    ref = weakref.ref(exporter)
    del exporter
    gc.collect()
    assert ref() is not None
    np.testing.assert_array_equal(np.asarray(buf), np.arange(6.0).reshape(2, 3).T)
    del buf
    gc.collect()
    assert ref() is None


def test_array_interface_readonly_and_compact_defaults():
    x = np.arange(6, dtype=np.int16).reshape(2, 3)
    x.flags.writeable = False
    buf = _core.from_array_interface(x)
    assert buf.readonly
    assert buf.strides == (3, 1)
    assert buf.c_contiguous
    assert buf.version is None
    assert buf.stream is None


def interface(**fields):
    class Exporter:
        __array_interface__: ClassVar[dict] = {
            "typestr": "<f8", "shape": (2,), "data": (4096, False), "version": 3,
            **fields}
    return Exporter()


@pytest.mark.parametrize(("fields", "problem"), [
    ({"typestr": ">i8"}, "byte order"),
    ({"typestr": "|V2"}, "'|V2'"),
    ({"typestr": "|V8"}, "typestr"),
    ({"typestr": "<M8"}, "'<M8'"),
    ({"typestr": "<m8"}, "'<m8'"),
    ({"typestr": "|O"}, "'|O'"),
    ({"typestr": "<U4"}, "'<U4'"),
    ({"typestr": "|S4"}, "'|S4'"),
    ({"typestr": "xf8"}, "'xf8'"),
    ({"typestr": "<f3"}, "'<f3'"),
    ({"typestr": "f8"}, "'f8'"),
    ({"typestr": 8}, "typestr"),
    ({"data": 4096}, "data"),
    ({"data": (4096,)}, "data"),
    ({"data": ("4096", False)}, "data"),
    ({"data": (-8, False)}, "address"),
    ({"data": (0, False)}, "NULL data"),
    ({"mask": object()}, "mask"),
    ({"strides": (12,)}, "multiples"),
    ({"strides": (8, 8)}, "one stride per dimension"),
    ({"strides": [8]}, "strides"),
    ({"shape": (-1,)}, "non-negative"),
    ({"shape": [2]}, "shape"),
    ({"shape": (2.0,)}, "shape"),
    ({"shape": (2**62, 2**62)}, "overflowing"),
])
def test_bad_array_interfaces_are_buffer_errors(fields, problem):
    with pytest.raises(BufferError) as info:
        _core.from_array_interface(interface(**fields))
    assert problem in str(info.value)
    check_message(info)


def test_array_interface_type_errors():
    with pytest.raises(TypeError, match="__array_interface__") as info:
        _core.from_array_interface(42)
    check_message(info)

    class NotADict:
        __array_interface__: ClassVar[list] = [("typestr", "<f8")]

    with pytest.raises(BufferError, match="a dict"):
        _core.from_array_interface(NotADict())

    class Missing:
        __array_interface__: ClassVar[dict] = {"shape": (2,), "data": (8, False)}

    with pytest.raises(BufferError, match="'typestr', 'shape' and 'data'"):
        _core.from_array_interface(Missing())
    with pytest.raises(BufferError, match=r"'\|V8'"):
        _core.from_array_interface(np.zeros(2, "i4,f4"))  # structured
    with pytest.raises(BufferError, match=r"'\|O'"):
        _core.from_array_interface(np.zeros(2, object))


def test_array_interface_export():
    x = np.arange(12, dtype=np.int32).reshape(3, 4)[:, ::2]
    buf = _core.from_array_interface(x)
    iface = buf.__array_interface__
    assert iface == {"shape": (3, 2), "typestr": "<i4", "data": (address(x), False),
                     "strides": (16, 8), "version": 3}
    scalar = _core.from_array_interface(np.array(5, np.uint8)).__array_interface__
    assert scalar["strides"] == ()
    assert scalar["typestr"] == "|u1"
    assert not hasattr(buf, "__cuda_array_interface__")


class FakeCuda:
    """A CUDA array interface over an address nobody dereferences."""

    def __init__(self, **fields):
        self.__cuda_array_interface__ = {"shape": (2, 3), "typestr": "<f4",
                                         "data": (0xDEAD000, False), "version": 3,
                                         "strides": None, **fields}


def test_cuda_array_interface_import_and_export():
    source = FakeCuda(stream=7)
    buf = _core.from_cuda_array_interface(source, 1)
    assert buf.device == (2, 1)
    assert buf.stream == 7
    assert buf.base is source
    assert buf.source == "cuda_array_interface"
    assert buf.data_ptr == 0xDEAD000
    assert buf.__cuda_array_interface__ == {
        "shape": (2, 3), "typestr": "<f4", "data": (0xDEAD000, False),
        "strides": (12, 4), "version": 3, "stream": 7}  # ready on the exporter's
    assert not hasattr(buf, "__array_interface__")
    with pytest.raises(BufferError):
        memoryview(buf)
    with pytest.raises(BufferError, match="CUDA"):
        buf.copy()
    with pytest.raises(BufferError, match="CUDA"):
        buf.__dlpack__(copy=True)
    with pytest.raises(BufferError, match=r"got \(2, 0\)"):
        buf.__dlpack__(dl_device=(2, 0))
    exported = _core.stats()["exported_alive"]
    capsule = buf.__dlpack__(stream=5, max_version=(1, 1), dl_device=(2, 1))
    assert read_capsule(capsule)["device"] == (2, 1)
    del capsule
    assert _core.stats()["exported_alive"] == exported
    readonly = _core.from_cuda_array_interface(FakeCuda(data=(0xDEAD000, True)))
    assert readonly.readonly
    assert readonly.stream is None
    assert readonly.device == (2, 0)
    with pytest.raises(BufferError, match="version"):
        _core.from_cuda_array_interface(FakeCuda(version=None))
    with pytest.raises(TypeError, match="__cuda_array_interface__"):
        _core.from_cuda_array_interface(np.arange(3.0))


class Producer:
    """The producer protocol ext/_core.c calls (the torch and cupy adapters give
    _dlpack.StreamOrder): records which consumer streams were made to wait.
    """

    def __init__(self, ready_on=42, fails=False):
        self.waited, self.ready_on, self.fails = [], ready_on, fails

    def wait(self, stream):
        if self.fails:
            raise RuntimeError("the producer's event failed")
        self.waited.append(stream)

    def stream(self):
        return self.ready_on


def test_cuda_consumers_wait_for_the_producer():  # #16 item 4
    buf = _core.from_cuda_array_interface(FakeCuda())
    producer = buf.producer = Producer()
    buf.__dlpack__(stream=7, max_version=(1, 0))
    buf.__dlpack__()  # None: the legacy default stream, DLPack's 1
    buf.__dlpack__(stream=-1)  # no synchronisation
    buf.export_legacy(stream=2)
    buf.export_legacy()
    buf.order(5)
    assert producer.waited == [7, 1, 2, 1, 5]
    assert buf.__cuda_array_interface__["stream"] == 42  # the producer's stream now
    buf.producer = None
    buf.__dlpack__(stream=3)
    assert producer.waited == [7, 1, 2, 1, 5]
    assert buf.__cuda_array_interface__["stream"] is None


def test_cuda_streams_are_checked_before_anything_waits():
    buf = _core.from_cuda_array_interface(FakeCuda())
    producer = buf.producer = Producer()
    exported = _core.stats()["exported_alive"]
    for stream in (0, -2, 2**64):
        with pytest.raises(ValueError, match=r"__dlpack__\(\): stream: expected None, "
                                             r"-1 .*legacy default stream"):
            buf.__dlpack__(stream=stream)
    for stream in (True, 1.0, "1"):
        with pytest.raises(TypeError, match="stream: expected None or an int"):
            buf.__dlpack__(stream=stream)
    with pytest.raises(BufferError, match="dl_device"):
        buf.__dlpack__(stream=5, dl_device=(2, 3))
    with pytest.raises(ValueError, match=r"order\(\): stream"):
        buf.order(0)
    assert producer.waited == []
    buf.producer = Producer(fails=True)  # the producer's error reaches the consumer
    with pytest.raises(RuntimeError, match="event failed"):
        buf.__dlpack__(stream=5)
    assert _core.stats()["exported_alive"] == exported  # and no capsule was made
    with pytest.raises(TypeError, match="producer"):
        buf.producer = object()
    with pytest.raises(TypeError, match="producer"):
        del buf.producer


def test_cpu_memory_orders_nothing():
    buf = _core.from_array_interface(np.arange(3.0))
    buf.producer = Producer()
    buf.order(None)
    with pytest.raises(ValueError, match="None for memory on the CPU"):
        buf.order(1)
    assert buf.producer.waited == []


def test_imported_cuda_array_interface_streams_are_checked():
    assert _core.from_cuda_array_interface(FakeCuda(stream=1)).stream == 1
    for stream in (0, -1, True, "s"):  # 0 is ambiguous: v3 refuses it
        with pytest.raises(BufferError, match="stream: expected None, 1"):
            _core.from_cuda_array_interface(FakeCuda(stream=stream))


def test_a_producer_cycle_is_collected():
    buf = _core.from_cuda_array_interface(FakeCuda())
    producer = Producer()
    producer.buf = buf  # a producer that holds its Buffer: a cycle
    buf.producer = producer
    alive = _core.stats()["buffers_alive"]
    ref = weakref.ref(buf)
    del buf, producer
    gc.collect()
    assert ref() is None
    assert _core.stats()["buffers_alive"] == alive - 1


# ---------------------------------------------------------- buffer protocol ---


@pytest.mark.parametrize(("make", "dtype"), [
    (lambda: np.array([1, 0, 1], bool), (6, 8, 1)),
    (lambda: array.array("b", [1, 0, 1]), (0, 8, 1)),
    (lambda: array.array("H", [1, 0, 1]), (1, 16, 1)),
    (lambda: array.array("i", [1, 0, 1]), (0, 32, 1)),
    (lambda: array.array("l", [1, 0, 1]), (0, 64, 1)),
    (lambda: array.array("Q", [1, 0, 1]), (1, 64, 1)),
    (lambda: np.array([1, 0, 1], np.float16), (2, 16, 1)),
    (lambda: array.array("f", [1, 0, 1]), (2, 32, 1)),
    (lambda: array.array("d", [1, 0, 1]), (2, 64, 1)),
    (lambda: np.array([1, 0, 1], np.complex64), (5, 64, 1)),
    (lambda: np.array([1, 0, 1], np.complex128), (5, 128, 1)),
    (lambda: (ctypes.c_double * 3)(1, 0, 1), (2, 64, 1)),  # format '<d'
    (lambda: (ctypes.c_bool * 3)(1, 0, 1), (6, 8, 1)),  # format '<?'
    (lambda: bytearray(b"\x01\x00\x01"), (1, 8, 1)),
])
def test_buffer_protocol_import(make, dtype):
    source = make()
    buf = _core.from_buffer(source)
    assert buf.dtype == dtype
    assert buf.shape == (3,)
    assert buf.base is source
    assert buf.source == "buffer"
    assert not buf.readonly
    assert np.asarray(buf).tolist() == [1, 0, 1]


def test_buffer_protocol_import_holds_the_view():
    data = bytearray(8)
    buf = _core.from_buffer(data)
    with pytest.raises(BufferError):
        data.extend(b"x")  # exported: cannot be resized under the Buffer
    del buf
    data.extend(b"x")
    assert _core.from_buffer(b"abc").readonly
    strided = _core.from_buffer(np.arange(12.0).reshape(3, 4)[::2, ::-1])
    assert strided.strides == (8, -1)
    assert np.asarray(strided)[1, 0] == 11.0


def test_buffer_protocol_refuses_strange_formats():
    with pytest.raises(BufferError, match=r"format 'T\{") as info:
        _core.from_buffer(np.zeros(2, "i4,f4"))
    check_message(info)
    with pytest.raises(BufferError, match="byte order"):
        _core.from_buffer(np.zeros(2, ">i4"))
    with pytest.raises(BufferError, match="byte order"):
        _core.from_buffer((ctypes.c_double.__ctype_be__ * 2)())
    with pytest.raises(BufferError, match="format"):
        _core.from_buffer(np.zeros(2, "U1"))
    with pytest.raises(BufferError, match="format"):
        _core.from_buffer(memoryview(b"abcd").cast("c"))
    with pytest.raises(TypeError, match="buffer protocol") as info:
        _core.from_buffer(42)
    check_message(info)


def test_buffer_protocol_export_honours_flags():
    buf = imported(np.arange(12.0).reshape(3, 4)[:, ::2])
    view = memoryview(buf)
    assert view.shape == (3, 2)
    assert view.strides == (32, 16)
    assert view.format == "d"
    assert view.tolist() == [[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]]
    assert not view.c_contiguous
    assert view.obj is buf
    full = request(buf, PyBUF_STRIDES | PyBUF_FORMAT)
    assert full["strides"] == (32, 16)
    assert full["format"] == b"d"
    for flags in (PyBUF_SIMPLE, PyBUF_ND):
        with pytest.raises(BufferError, match="did not ask for strides"):
            request(buf, flags)
    contiguous = imported(np.arange(6, dtype=np.int16).reshape(2, 3))
    simple = request(contiguous, PyBUF_SIMPLE)
    assert simple["shape"] is None
    assert simple["format"] is None
    assert simple["len"] == 12
    assert not simple["readonly"]
    assert request(contiguous, PyBUF_ND)["shape"] == (2, 3)
    assert request(contiguous, PyBUF_WRITABLE)["buf"] == contiguous.data_ptr
    bfloat = _core.empty((2,), 4, 16)
    assert request(bfloat, PyBUF_STRIDES)["strides"] == (2,)
    with pytest.raises(BufferError, match="bfloat16"):
        request(bfloat, PyBUF_FORMAT)


def test_views_outlive_every_other_reference():
    view = memoryview(imported(np.arange(4.0)))
    gc.collect()
    assert view.tolist() == [0.0, 1.0, 2.0, 3.0]
    array_view = np.asarray(_core.from_array_interface(np.arange(3.0)))
    gc.collect()
    assert array_view.tolist() == [0.0, 1.0, 2.0]


# ------------------------------------------------------------- owned memory ---


def test_empty_is_aligned_zeroed_and_validated():
    buf = _core.empty((5, 7), 2, 32, alignment=256)
    assert buf.data_ptr % 256 == 0
    assert buf.alignment >= 256
    assert buf.source == "owned"
    assert np.asarray(buf).sum() == 0
    assert not buf.readonly
    assert buf.c_contiguous
    assert _core.empty((0,), 2, 64).data_ptr != 0
    assert _core.empty((2, 3), 2, 64, alignment=4096).alignment == 4096
    assert _core.empty((np.int64(2),), 0, 8).shape == (2,)
    assert _core.empty((), 6, 8).shape == ()
    for alignment in (48, 4, 0, -64, 8192):
        with pytest.raises(ValueError, match="alignment"):
            _core.empty((2,), 2, 32, alignment=alignment)
    with pytest.raises(TypeError, match="alignment"):
        _core.empty((2,), 2, 32, alignment="64")
    for code, bits in ((2, 8), (3, 64), (7, 16), (17, 4), (300, 8), (0, -8)):
        with pytest.raises(TypeError, match="dtype") as info:
            _core.empty((2,), code, bits)
        check_message(info)
    for shape in ((-1,), (2**63,), (2**40, 2**40)):
        with pytest.raises(ValueError, match="shape"):
            _core.empty(shape, 2, 32)
    for shape in ([2], (2.0,), ("2",), (1,) * 65, 3):
        with pytest.raises(TypeError, match="shape"):
            _core.empty(shape, 2, 32)


@pytest.mark.parametrize("view", [
    lambda a: a, lambda a: a[::-1, 1::2], lambda a: a.T, lambda a: a[:0],
    lambda a: a[1:2, 2:3].reshape(()), lambda a: a[:, None, ::3],
    lambda a: a[::-2, ::-1], lambda a: np.broadcast_to(a[0], (3, 6))])
def test_copy_is_compact_aligned_and_equal(view):
    source = view(np.arange(24, dtype=np.int16).reshape(4, 6))
    buf = _core.from_array_interface(source)
    copy = buf.copy(alignment=128)
    assert copy.c_contiguous
    assert copy.alignment >= 128
    assert copy.is_copied
    assert copy.shape == source.shape
    assert not copy.readonly
    assert copy.source == "owned"
    np.testing.assert_array_equal(np.asarray(copy), source)


def test_copy_of_read_only_and_bfloat16_memory():
    x = np.arange(4.0)
    x.flags.writeable = False
    copy = imported(x).copy()
    assert not copy.readonly
    assert copy.data_ptr != address(x)
    np.asarray(copy)[0] = 5.0
    assert x[0] == 0.0
    bf = _core.from_capsule(forge(np.arange(4, dtype=np.uint16)[::-1],
                                  dtype=(4, 16, 1)))
    assert np.asarray(bf.copy()).view(np.uint16).tolist() == [3, 2, 1, 0]
    with pytest.raises(ValueError, match="alignment"):
        bf.copy(alignment=3)


# ------------------------------------------------------------------ lifetime ---


def test_every_deleter_runs_exactly_once():
    stats = _core.stats()
    buf = imported(np.arange(3.0))
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


@pytest.mark.parametrize("order", ["source first", "consumers first", "shuffled"])
def test_a_forged_origin_is_freed_once_by_the_last_consumer(order):  # P-25
    torch = pytest.importorskip("torch")
    deleted, runs = counters.deleter_calls, _core.stats()["imported_deleters_run"]
    objects = [_core.from_capsule(forge(np.arange(6.0).reshape(2, 3)))]
    objects += [np.from_dlpack(objects[0]), torch.from_dlpack(objects[0])]
    objects += [_core.from_capsule(objects[2].__dlpack__(max_version=(1, 1)))]
    objects += [np.from_dlpack(objects[3])]
    assert objects[-1][1, 2] == 5.0
    if order == "consumers first":
        objects.reverse()
    elif order == "shuffled":
        random.Random(7).shuffle(objects)
    while objects:
        assert counters.deleter_calls == deleted
        objects.pop(0)
    gc.collect()
    assert counters.deleter_calls == deleted + 1
    assert _core.stats()["imported_deleters_run"] == runs + 2


def test_refcount_returns_to_baseline_after_1000_imports():  # P-24
    x = np.arange(10.0)
    baseline = sys.getrefcount(x)
    stats = _core.stats()
    buffers = [imported(x, (1, 0) if i % 2 else None) for i in range(1000)]
    views = [np.from_dlpack(b) for b in buffers[::10]]
    assert sys.getrefcount(x) > baseline
    everything = buffers + views
    del buffers, views
    random.Random(0).shuffle(everything)
    while everything:
        everything.pop()
    gc.collect()
    assert sys.getrefcount(x) == baseline
    after = _core.stats()
    assert after["buffers_alive"] == stats["buffers_alive"]
    assert after["exported_alive"] == stats["exported_alive"]
    assert after["imported_deleters_run"] - stats["imported_deleters_run"] == 1000


def test_gc_collects_a_cycle_through_a_buffer():
    class Holder:
        pass

    class Bytes(bytearray):
        pass

    interface_holder = Holder()
    interface_holder.a = np.arange(4.0)
    interface_holder.__array_interface__ = interface_holder.a.__array_interface__
    buffer_holder = Bytes(32)
    for holder, make in ((interface_holder, _core.from_array_interface),
                         (buffer_holder, _core.from_buffer)):
        holder.buf = make(holder)  # holder -> buf -> holder
        holder.view = memoryview(holder.buf)  # and a view that holds buf
        assert holder.buf.base is holder
    alive = _core.stats()["buffers_alive"]
    refs = [weakref.ref(interface_holder), weakref.ref(buffer_holder)]
    del interface_holder, buffer_holder, holder
    gc.collect()
    assert [ref() for ref in refs] == [None, None]
    assert _core.stats()["buffers_alive"] == alive - 2


def _deleter_of(capsule) -> tuple[int, int]:
    """Take a versioned capsule as a consumer would: (struct address, deleter)."""
    managed_address = ctypes.addressof(versioned_tensor(capsule))
    assert _set_name(capsule, _USED) == 0  # consumed: the capsule will not free it
    managed = DLManagedTensorVersioned.from_address(managed_address)
    return managed_address, ctypes.cast(managed.deleter, ctypes.c_void_p).value


_USED = ctypes.create_string_buffer(b"used_dltensor_versioned")
_set_name = ctypes.pythonapi.PyCapsule_SetName
_set_name.argtypes = [ctypes.py_object, ctypes.c_char_p]


def test_an_export_deleter_may_run_on_another_thread_without_the_gil():
    """CFUNCTYPE calls release the GIL: the deleter must take it itself."""
    buf = imported(np.arange(4.0))
    ref = weakref.ref(buf)
    capsule = buf.__dlpack__(max_version=(1, 0))
    del buf
    managed, deleter = _deleter_of(capsule)
    alive = _core.stats()["exported_alive"]
    call = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(deleter)
    thread = threading.Thread(target=call, args=(managed,))
    thread.start()
    thread.join()
    assert _core.stats()["exported_alive"] == alive - 1
    assert ref() is None  # the export held the last reference to the Buffer
    del capsule  # renamed: its destructor leaves the freed struct alone


def test_an_export_deleter_may_run_on_a_thread_python_never_saw():
    libc = ctypes.CDLL(None)  # ctypes releases the GIL around these calls
    libc.pthread_create.argtypes = [ctypes.POINTER(ctypes.c_ulong), ctypes.c_void_p,
                                    ctypes.c_void_p, ctypes.c_void_p]
    libc.pthread_join.argtypes = [ctypes.c_ulong, ctypes.c_void_p]
    buf = imported(np.arange(4.0))
    ref = weakref.ref(buf)
    capsule = buf.__dlpack__(max_version=(1, 0))
    del buf
    managed, deleter = _deleter_of(capsule)
    alive = _core.stats()["exported_alive"]
    thread = ctypes.c_ulong()
    assert libc.pthread_create(ctypes.byref(thread), None, deleter, managed) == 0
    assert libc.pthread_join(thread, None) == 0
    assert _core.stats()["exported_alive"] == alive - 1
    assert ref() is None
    del capsule


def test_eight_threads_share_one_buffer():  # P-27
    shared = np.arange(1000.0)
    baseline = sys.getrefcount(shared)
    shared_buf = imported(shared)
    stats = _core.stats()
    start, failures = threading.Barrier(8), []

    def work(seed: int) -> None:
        try:
            start.wait()
            for i in range(400):
                buf = imported(shared, (1, 0) if (i + seed) % 2 else None)
                assert np.from_dlpack(buf)[999] == 999.0
                view = np.from_dlpack(shared_buf)
                assert view[seed] == float(seed)
                capsule = shared_buf.__dlpack__(max_version=(1, 1))
                if i % 3 == 0:
                    assert _core.from_capsule(capsule).data_ptr == shared_buf.data_ptr
                assert memoryview(shared_buf)[seed] == float(seed)
                del buf, view, capsule
        except BaseException as exc:  # reported by the main thread
            failures.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures
    gc.collect()
    after = _core.stats()
    assert after["exported_alive"] == stats["exported_alive"]
    assert after["buffers_alive"] == stats["buffers_alive"]
    assert after["capsules_exported"] - stats["capsules_exported"] == 8 * 400 * 3
    shared_buf = None  # the threads are done with it: free the import
    gc.collect()
    assert sys.getrefcount(shared) == baseline


def test_exposed_tells_whether_a_live_buffer_spans_a_range():
    a = np.arange(16.0)
    start = a.ctypes.data
    assert not _core.exposed(start, a.nbytes)
    buf = _core.from_array_interface(a[12:3:-2])  # elements 12, 10, 8, 6, 4
    assert _core.exposed(start, a.nbytes)
    assert _core.exposed(start + 4 * 8, 8)
    assert _core.exposed(start + 12 * 8, 8)
    assert not _core.exposed(start, 4 * 8)
    assert not _core.exposed(start + 13 * 8, 24)
    assert not _core.exposed(start, 0)
    del buf
    assert not _core.exposed(start, a.nbytes)  # dead Buffers are off the list
    with pytest.raises(TypeError):
        _core.exposed(start)


def test_buffers_freed_and_made_again_start_as_new_ones():
    """Freed Buffers are kept for the next ones made: each comes back with
    nothing of the one before (read-only flag, rank, memory, producer), weak
    references to the old one are cleared, and the live count and list are
    right."""
    alive = _core.stats()["buffers_alive"]
    frozen = np.arange(24.0).reshape(2, 3, 4)
    frozen.flags.writeable = False
    for _ in range(40):
        old = _core.from_capsule(frozen.__dlpack__(max_version=(1, 0)))
        old.mark_readonly()
        ref = weakref.ref(old)
        del old
        assert ref() is None
        fresh = np.arange(5.0)
        buf = _core.from_array_interface(fresh)
        assert buf.readonly is False
        assert (buf.shape, buf.strides, buf.data_ptr) == ((5,), (1,), fresh.ctypes.data)
        assert (buf.source, buf.base, buf.version) == ("array_interface", fresh, None)
        assert np.asarray(buf).tolist() == fresh.tolist()
        assert _core.exposed(fresh.ctypes.data, fresh.nbytes)
        assert not _core.exposed(frozen.ctypes.data, frozen.nbytes)
        del buf
    gc.collect()
    assert _core.stats()["buffers_alive"] == alive


@pytest.mark.parametrize("ndim", [0, 1, 6, 7, 12, 64])
@pytest.mark.parametrize("route", [
    "capsule", "array_interface", "buffer", "empty", "copy"])
def test_every_rank_round_trips_through_every_importer(route, ndim):
    """A Buffer keeps up to a few dimensions inline and more in a block of
    their own: each importer writes every dimension, and each reader gets them
    back, on both sides of that limit."""
    shape = tuple(2 if i < 3 else 1 for i in range(ndim))
    # strided where there is an axis: every other row of a larger array
    whole = np.arange(2 * math.prod(shape), dtype=np.float64)
    data = whole.reshape((2 * shape[0], *shape[1:]))[::2] if ndim else whole[0, ...]
    if route == "capsule":
        buf = _core.from_capsule(data.__dlpack__())
    elif route == "array_interface":
        buf = _core.from_array_interface(data)
    elif route == "buffer":
        buf = _core.from_buffer(data)
    elif route == "empty":
        buf = _core.empty(shape, 2, 64)
        np.from_dlpack(buf)[...] = data
    else:
        buf = _core.from_capsule(data.__dlpack__()).copy()
    assert buf.ndim == ndim
    assert buf.shape == shape
    out = np.from_dlpack(buf)
    np.testing.assert_array_equal(out, data)
    assert np.asarray(memoryview(buf)).shape == shape
    np.testing.assert_array_equal(np.asarray(memoryview(buf)), data)
    assert buf.__array_interface__["shape"] == shape
