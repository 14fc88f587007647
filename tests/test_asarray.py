"""asarray and from_dlpack: every kind of input, the copy rules, and bad input."""

from __future__ import annotations

import array
import datetime
import gc
import sys

import numpy as np
import pytest
from conftest import FRAMEWORKS
from frameworks import make, pointer

import unitensor as ut


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_framework_arrays_are_wrapped_not_copied(framework):
    source = make(framework, np.arange(6, dtype=np.float32).reshape(2, 3))
    t = ut.asarray(source)
    assert t.owner == framework
    assert t.native is source
    assert t.shape == (2, 3) and t.ndim == 2 and t.size == 6
    assert t.dtype == ut.float32
    assert str(t.device) == "cpu"
    assert ut.asarray(t) is t


def test_tensor_from_tensor_keeps_identity_and_copy_makes_new():
    t = ut.asarray(np.arange(3))
    assert ut.asarray(t) is t
    c = ut.asarray(t, copy=True)
    assert c is not t and not np.shares_memory(c.native, t.native)


@pytest.mark.parametrize("obj, dtype, shape", [
    (True, ut.bool, ()), (3, ut.int64, ()), (2.5, ut.float64, ()),
    (1 + 2j, ut.complex128, ()), ([1, 2, 3], ut.int64, (3,)),
    ([[1.0], [2.0]], ut.float64, (2, 1)), ((), ut.float64, (0,)),
])
def test_python_data_goes_to_the_default_owner(obj, dtype, shape):
    t = ut.asarray(obj)
    assert t.owner == "numpy" and t.dtype == dtype and t.shape == shape


def test_dtype_argument_converts_and_copy_false_refuses():
    t = ut.asarray([1, 2], dtype=ut.float32)
    assert t.dtype == ut.float32
    assert ut.asarray(np.arange(3), dtype="float64").dtype == ut.float64
    with pytest.raises(ValueError, match="copy"):
        ut.asarray(np.arange(3), dtype=ut.float32, copy=False)
    with pytest.raises(TypeError, match="dtype"):
        ut.asarray([1], dtype="float128")


def test_numpy_scalar_becomes_0d():
    t = ut.asarray(np.float32(1.5))
    assert t.shape == () and t.dtype == ut.float32 and t.owner == "numpy"


class ArrayInterface:
    def __init__(self, a):
        self.a = a
        self.__array_interface__ = a.__array_interface__


def test_array_interface_object_is_zero_copy_and_kept_alive():
    a = np.arange(12.0).reshape(3, 4)[:, 1:]
    obj = ArrayInterface(a)
    t = ut.asarray(obj)
    assert t.owner == "numpy"
    assert pointer(t.numpy()) == pointer(a)
    del obj, a
    np.testing.assert_array_equal(t.numpy(), np.arange(12.0).reshape(3, 4)[:, 1:])


def test_buffer_protocol_objects():
    arr = array.array("i", [1, 2, 3])
    t = ut.asarray(arr)
    assert t.dtype == ut.int32 and t.shape == (3,)
    t.numpy()[0] = 10
    assert arr[0] == 10
    b = ut.asarray(b"abc")
    assert b.dtype == ut.uint8 and b.readonly
    assert ut.asarray(memoryview(bytearray(4))).shape == (4,)


class DLPackOnly:
    """A foreign producer: speaks only DLPack."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, **kwargs):
        return self.a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


class LegacyDLPack(DLPackOnly):
    """A pre-1.0 producer: refuses max_version."""

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__()


@pytest.mark.parametrize("producer", [DLPackOnly, LegacyDLPack])
def test_foreign_dlpack_producers(producer):
    a = np.arange(5.0)
    for t in (ut.asarray(producer(a)), ut.from_dlpack(producer(a))):
        assert t.owner == "numpy" and pointer(t.numpy()) == pointer(a)


def test_from_dlpack_of_capsules_and_arrays():
    a = np.arange(4, dtype=np.int16)
    t = ut.from_dlpack(a.__dlpack__(max_version=(1, 0)))
    assert t.dtype == ut.int16 and pointer(t.numpy()) == pointer(a)
    legacy = ut.from_dlpack(a.__dlpack__())
    assert pointer(legacy.numpy()) == pointer(a)
    assert ut.from_dlpack(a).native is a


@pytest.mark.parametrize("bad", [42, None, b"dltensor", object()])
def test_from_dlpack_rejects_non_producers(bad):
    with pytest.raises(TypeError, match=r"from_dlpack\(\): x: expected"):
        ut.from_dlpack(bad)


def test_from_dlpack_rejects_foreign_capsules_untouched():
    capsule = datetime.datetime_CAPI
    with pytest.raises(TypeError, match="datetime.datetime_CAPI"):
        ut.from_dlpack(capsule)
    assert "datetime.datetime_CAPI" in repr(capsule)
    datetime.datetime.now()


def test_used_capsule_is_refused():
    c = np.arange(3).__dlpack__(max_version=(1, 0))
    ut.from_dlpack(c)
    with pytest.raises(ValueError, match="consumed"):
        ut.from_dlpack(c)


@pytest.mark.parametrize("bad", [object(), {"a": 1}, lambda: 0, iter([1, 2]), {1, 2}])
def test_asarray_rejects_non_arrays_naming_the_type(bad):
    with pytest.raises(TypeError, match=r"asarray\(\): obj: expected an array") as info:
        ut.asarray(bad)
    assert type(bad).__name__ in str(info.value)


@pytest.mark.parametrize("bad", [[[1], [1, 2]], ["a", 1], [object()]])
def test_asarray_rejects_bad_sequences(bad):
    with pytest.raises((TypeError, ValueError)):
        ut.asarray(bad)


def test_byteswapped_arrays_are_copied_to_native_order_and_reported():
    a = np.arange(4, dtype=">i8")
    with pytest.warns(ut.CopyWarning, match="byte order"):
        t = ut.asarray(a)
    assert t.dtype == ut.int64
    np.testing.assert_array_equal(t.numpy(), [0, 1, 2, 3])
    with pytest.raises(BufferError, match="byte order"):
        ut.asarray(a, copy=False)


@pytest.mark.parametrize("a", [np.zeros(2, "M8[s]"), np.zeros(2, "i4,f4"),
                               np.array(["x"]), np.zeros(2, object)])
def test_unsupported_numpy_dtypes_raise_buffer_error(a):
    with pytest.raises(BufferError, match="dtype"):
        ut.asarray(a)


@pytest.mark.parametrize("name", ["pytorchh", ""])
def test_to_unknown_framework_lists_the_valid_names(name):
    t = ut.asarray([1.0])
    with pytest.raises(ValueError, match="numpy.*torch.*jax"):
        t.to(name)


@pytest.mark.parametrize("bad", [None, 42])
def test_to_non_string_is_type_error(bad):
    with pytest.raises(TypeError, match="framework"):
        ut.asarray([1.0]).to(bad)


def test_missing_framework_gives_import_error_with_hint(monkeypatch):
    from unitensor import _backends
    monkeypatch.setitem(sys.modules, "cupy", None)  # as if cupy were not installed
    monkeypatch.delitem(_backends._loaded, "cupy", raising=False)
    with pytest.raises(ImportError, match="pip install cupy"):
        ut.asarray([1.0]).cupy()


def test_copy_argument_is_validated():
    t = ut.asarray([1.0])
    with pytest.raises(TypeError, match="copy"):
        t.numpy(copy="yes")
    with pytest.raises(TypeError, match="copy"):
        ut.asarray([1.0], copy="yes")


def test_devices_print_and_compare():
    assert str(ut.asarray([1]).device) == "cpu"
    assert ut.Device("cuda", 1) == ut.Device("cuda", 1)
    assert str(ut.Device("cuda", 1)) == "cuda:1"
    with pytest.raises(ValueError, match="kind"):
        ut.Device("gpu")
    with pytest.raises(ValueError, match="device"):
        ut.asarray([1], device="tpu:0")


def test_cuda_capsule_without_cuda_is_buffer_error():
    from forge import counters, forge
    gc.collect()  # no forged garbage of earlier tests may be freed in between
    before = counters.snapshot()
    capsule = forge(shape=(3,), device=(2, 0))
    with pytest.raises(BufferError, match="(?i)cuda"):
        ut.from_dlpack(capsule)
    del capsule
    gc.collect()
    assert counters.snapshot()["deleter_calls"] - before["deleter_calls"] == 1


def test_tensor_constructor_points_to_asarray():
    with pytest.raises(TypeError, match="asarray"):
        ut.Tensor([1])


def test_repr_names_owner_dtype_device():
    text = repr(ut.asarray(np.arange(2, dtype=np.int8)))
    assert "owner='numpy'" in text and "int8" in text and "cpu" in text


def test_numpy_export_of_float64_without_ml_dtypes(monkeypatch):
    """Without ml_dtypes numpy's bfloat16 is None, and ``dtype == None`` is True
    for float64 in numpy: the export must not take the bfloat16 route then."""
    numpy_backend = ut._backends.get("numpy")
    monkeypatch.setattr(numpy_backend, "_BFLOAT16", None)
    buf = numpy_backend.export(np.arange(3.0))
    assert buf.dtype == (2, 64, 1) and buf.shape == (3,)
