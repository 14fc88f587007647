"""Conversions (unitensor/_convert.py): asarray and from_dlpack of every kind of
input, views in other frameworks, the copy rule, and bad input. The full matrix of
source x target x dtype x layout is tests/test_interop.py."""

from __future__ import annotations

import array
import datetime
import gc
import importlib.util
import sys

import numpy as np
import pytest
from frameworks import make, pointer, to_numpy
from owners import FRAMEWORKS

import unitensor as ut


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_framework_arrays_are_wrapped_not_copied(framework):
    source = make(framework, np.arange(6, dtype=np.float32).reshape(2, 3))
    t = ut.asarray(source)
    assert t.owner == framework
    assert t.native is source
    assert t.shape == (2, 3)
    assert t.ndim == 2
    assert t.size == 6
    assert t.dtype == ut.float32
    assert str(t.device) == "cpu"
    assert ut.asarray(t) is t


def test_tensor_from_tensor_keeps_identity_and_copy_makes_new():
    t = ut.asarray(np.arange(3))
    assert ut.asarray(t) is t
    c = ut.asarray(t, copy=True)
    assert c is not t
    assert not np.shares_memory(c.native, t.native)


@pytest.mark.parametrize(("obj", "dtype", "shape"), [
    (True, ut.bool, ()), (3, ut.int64, ()), (2.5, ut.float64, ()),
    (1 + 2j, ut.complex128, ()), ([1, 2, 3], ut.int64, (3,)),
    ([[1.0], [2.0]], ut.float64, (2, 1)), ((), ut.float64, (0,)),
])
def test_python_data_goes_to_the_default_owner(obj, dtype, shape):
    t = ut.asarray(obj)
    assert t.owner == "numpy"
    assert t.dtype == dtype
    assert t.shape == shape


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
    assert t.shape == ()
    assert t.dtype == ut.float32
    assert t.owner == "numpy"


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
    assert t.dtype == ut.int32
    assert t.shape == (3,)
    t.numpy()[0] = 10
    assert arr[0] == 10
    b = ut.asarray(b"abc")
    assert b.dtype == ut.uint8
    assert b.readonly
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
        assert t.owner == "numpy"
        assert pointer(t.numpy()) == pointer(a)


def test_from_dlpack_of_capsules_and_arrays():
    a = np.arange(4, dtype=np.int16)
    t = ut.from_dlpack(a.__dlpack__(max_version=(1, 0)))
    assert t.dtype == ut.int16
    assert pointer(t.numpy()) == pointer(a)
    legacy = ut.from_dlpack(a.__dlpack__())
    assert pointer(legacy.numpy()) == pointer(a)
    assert ut.from_dlpack(a).native is a


@pytest.mark.parametrize("bad", [42, None, b"dltensor", object()])
def test_from_dlpack_rejects_non_producers(bad):
    with pytest.raises(TypeError, match=r"from_dlpack\(\): x: expected"):
        ut.from_dlpack(bad)


def test_from_dlpack_rejects_foreign_capsules_untouched():
    capsule = datetime.datetime_CAPI
    with pytest.raises(TypeError, match=r"datetime\.datetime_CAPI"):
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


def _nested(depth: int) -> list:
    obj: list = [1.0]
    for _ in range(depth - 1):
        obj = [obj]
    return obj


def _cyclic() -> list:
    obj: list = [1.0]
    obj.append(obj)
    return obj


@pytest.mark.parametrize("owner", FRAMEWORKS)
@pytest.mark.parametrize("make_bad", [_cyclic, lambda: _nested(65),
                                      lambda: _nested(10_000),
                                      lambda: (_nested(64),)],
                         ids=["cyclic", "65 deep", "10000 deep", "a tuple of 64 deep"])
def test_asarray_refuses_nesting_no_array_can_have(owner, make_bad):
    # 64 dimensions at most (DLPack's and numpy's limit); a cycle nests forever
    ut.set_default_owner(owner)
    with ut.owner(owner), pytest.raises(ValueError, match="nested at most 64") as info:
        ut.asarray(make_bad())
    assert str(info.value) == (
        "asarray(): obj: expected a sequence nested at most 64 deep, got one "
        "nested deeper, or containing itself")
    assert ut.asarray(_nested(64)).ndim == 64


def test_byteswapped_arrays_are_copied_to_native_order_and_reported():
    a = np.arange(4, dtype=">i8")
    with pytest.warns(ut.CopyWarning, match="byte order"):
        t = ut.asarray(a)
    assert t.dtype == ut.int64
    np.testing.assert_array_equal(t.numpy(), [0, 1, 2, 3])
    with pytest.raises(ValueError, match=r"^asarray\(\): copy: expected True or "
                       r"None, since a copy is needed: the array is in non-native "
                       r"byte order, got False$"):  # the standard's type for asarray
        ut.asarray(a, copy=False)


def test_from_dlpack_copy_false_never_copies_a_byteswapped_array():
    """from_dlpack(copy=False) copied such an array, reporting it as asarray's
    copy; it refuses now, with the standard's type for from_dlpack."""
    a = np.arange(4, dtype=">i8")
    with pytest.raises(BufferError, match=r"^from_dlpack\(\): copy: expected True "
                       r"or None, since a copy is needed: the array is in non-native "
                       r"byte order, got False$"):
        ut.from_dlpack(a, copy=False)
    with pytest.warns(ut.CopyWarning, match=r"^from_dlpack\(\): copied because "):
        t = ut.from_dlpack(a)
    np.testing.assert_array_equal(t.numpy(), [0, 1, 2, 3])
    np.testing.assert_array_equal(ut.from_dlpack(a, copy=True).numpy(), [0, 1, 2, 3])


@pytest.mark.parametrize("a", [np.zeros(2, "M8[s]"), np.zeros(2, "i4,f4"),
                               np.array(["x"]), np.zeros(2, object)])
def test_unsupported_numpy_dtypes_raise_buffer_error(a):
    with pytest.raises(BufferError, match="dtype"):
        ut.asarray(a)


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


def test_cuda_capsule_without_cuda_is_buffer_error():
    from forge import counters, forge
    gc.collect()  # no forged garbage of earlier tests may be freed in between
    before = counters.snapshot()
    capsule = forge(shape=(3,), device=(2, 0))
    with pytest.raises(BufferError, match=r"(?i)cuda"):
        ut.from_dlpack(capsule)
    del capsule
    gc.collect()
    assert counters.snapshot()["deleter_calls"] - before["deleter_calls"] == 1


def test_cuda_producer_without_cuda_is_buffer_error():
    # A foreign producer of CUDA memory on a machine without a CUDA device: the
    # stream to order it on is never asked for (torch's CPU build asserted, its
    # CUDA build without a GPU raised RuntimeError); the refusal is a BufferError.
    from forge import forge
    from owners import has_cuda
    torch = sys.modules.get("torch")  # preloaded by conftest where installed
    if has_cuda() or (torch is not None and torch.cuda.is_available()):
        pytest.skip("this machine has CUDA")

    class Producer:
        def __dlpack_device__(self):
            return (2, 0)

        def __dlpack__(self, **kwargs):
            return forge(shape=(3,), device=(2, 0))

    with pytest.raises(BufferError, match=r"(?i)cuda"):
        ut.from_dlpack(Producer())
    with pytest.raises(BufferError, match=r"(?i)cuda"):
        ut.asarray(Producer())


@pytest.mark.parametrize(
    "dst", [f for f in FRAMEWORKS if f in ("torch", "array_api_strict")])
def test_writes_through_a_view_are_seen_by_the_source(dst):
    source = np.zeros((3, 4), np.float32)
    view = ut.asarray(source).to(dst).native
    if dst == "torch":
        view[1, 2] = 7.0
    else:
        import array_api_strict as xs
        view[1, 2] = xs.asarray(7.0, dtype=xs.float32)
    assert source[1, 2] == 7.0
    back = ut.asarray(view).numpy()
    back[0, 0] = 5.0
    assert source[0, 0] == 5.0


def test_torch_to_numpy_write_through():
    torch = pytest.importorskip("torch")
    source = torch.zeros(5)
    a = ut.asarray(source).numpy()
    a[3] = 2.5
    assert source[3].item() == 2.5


def test_views_are_cached():
    pytest.importorskip("torch")
    t = ut.asarray(np.arange(4.0))
    first = t.torch()
    assert t.torch() is first
    assert t.to("torch").torch() is first
    assert t.numpy() is t.native


def test_readonly_numpy_stays_readonly_everywhere():
    pytest.importorskip("torch")
    x = np.arange(5.0)
    x.flags.writeable = False
    t = ut.asarray(x)
    assert t.readonly
    assert not t.numpy().flags.writeable
    assert not np.from_dlpack(t).flags.writeable
    tt = t.torch()  # aliased, as torch.from_dlpack does (AliasWarning, once)
    assert tt.data_ptr() == x.ctypes.data
    assert t.torch(copy=False).data_ptr() == x.ctypes.data
    assert t.to("torch").readonly  # unitensor still knows
    fresh = t.torch(copy=True)
    fresh[0] = 100.0
    assert x[0] == 0.0


@pytest.mark.parametrize("src", [f for f in FRAMEWORKS if f in ("jax", "tensorflow")])
def test_immutable_sources_come_back_read_only(src):
    t = ut.asarray(make(src, np.arange(4.0, dtype=np.float32)))
    assert t.readonly
    view = t.numpy()
    assert not view.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        view[0] = 1.0
    np.testing.assert_array_equal(to_numpy(t.native), [0, 1, 2, 3])


def test_copy_true_always_gives_fresh_memory():
    torch = pytest.importorskip("torch")
    base = np.arange(6.0)
    t = ut.asarray(base)
    c = t.torch(copy=True)
    assert c.data_ptr() != base.ctypes.data
    c[0] = 9
    assert base[0] == 0
    assert t.numpy(copy=True) is not base
    assert not np.shares_memory(t.numpy(copy=True), base)
    assert isinstance(torch.zeros(1), torch.Tensor)


class _ClaimsCuda:
    """A foreign producer whose __dlpack_device__ says CUDA (a buggy or remote
    one): unitensor must not ask a framework without CUDA for a stream."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, **kwargs):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return (2, 0)


def _cuda_count(name):
    return ut._backends.get(name).cuda_devices()


@pytest.mark.parametrize("name", [f for f in ("torch", "jax", "tensorflow")
                                  if f in FRAMEWORKS])
def test_a_cuda_device_the_framework_cannot_reach_is_a_value_error(name):
    """torch's CPU build raised its raw AssertionError; TensorFlow placed the
    array on its CPU, silently, where CUDA was asked for."""
    if _cuda_count(name):
        pytest.skip(f"{name} sees a CUDA device here")
    x = ut.asarray(np.ones(3, np.float32)).to(name, copy=True)
    with pytest.raises(ValueError, match=(
            rf"^asarray\(\): device: expected a device {name} can reach here, got "
            rf"cuda:0, and {name} sees no CUDA devices$")):
        ut.asarray(x, device="cuda")
    with pytest.raises(ValueError, match=r"^to_device\(\): device: .* got cuda:1"):
        x.to_device("cuda:1")


@pytest.mark.skipif("torch" not in FRAMEWORKS, reason="torch is not installed")
@pytest.mark.parametrize("entry", ["asarray", "from_dlpack"])
def test_a_producer_claiming_cuda_is_refused_without_asking_for_a_stream(entry):
    if importlib.util.find_spec("cupy") is not None or _cuda_count("torch"):
        pytest.skip("a framework here can reach CUDA memory")
    arg = "obj" if entry == "asarray" else "x"
    with pytest.raises(BufferError, match=(
            rf"^{entry}\(\): {arg}: expected memory on a CUDA device torch can reach "
            r"here, got memory on cuda:0, and torch sees no CUDA devices$")) as info:
        getattr(ut, entry)(_ClaimsCuda(np.ones(3)))
    assert info.value.__cause__ is None  # torch was not asked (its AssertionError)


class _OnlyArrayMethod:
    """An array-like that offers nothing but numpy's ``__array__`` (as h5py
    datasets, PIL images and many users' classes do)."""

    def __init__(self, a):
        self.a = a

    def __array__(self, dtype=None, copy=None):
        if copy:
            return self.a.copy()
        return self.a


def test_an_object_offering_only_array_is_wrapped_by_numpy_zero_copy():
    a = np.arange(6.0).reshape(2, 3)
    t = ut.asarray(_OnlyArrayMethod(a))
    assert t.owner == "numpy"
    assert pointer(t.numpy()) == pointer(a)  # __array__ gave a view: no copy
    assert pointer(ut.asarray(_OnlyArrayMethod(a), copy=True).numpy()) != pointer(a)
    assert ut.asarray(_OnlyArrayMethod(a), dtype=ut.float32).dtype == ut.float32
    assert ut.asarray(_OnlyArrayMethod(a), copy=False).shape == (2, 3)


def test_pandas_objects_are_wrapped_zero_copy_and_copy_false_is_honoured():
    pd = pytest.importorskip("pandas")
    series = pd.Series([1.0, 2.0, 3.0])
    t = ut.asarray(series)
    assert t.owner == "numpy"
    assert np.shares_memory(t.numpy(), series.to_numpy())
    assert float(ut.sum(t)) == 6.0
    assert not np.shares_memory(ut.asarray(series, copy=True).numpy(),
                                series.to_numpy())
    mixed = pd.DataFrame({"a": [1.0, 2.0], "b": [1, 2]})  # one array needs a copy
    with pytest.raises(ValueError, match=r"^asarray\(\): copy: expected True or None, "
                       r"since a copy is needed: the __array__ of an object of type "
                       r"'pandas.DataFrame' makes one, got False$") as info:
        ut.asarray(mixed, copy=False)
    assert isinstance(info.value.__cause__, ValueError)  # numpy's, kept
    np.testing.assert_array_equal(ut.asarray(mixed).numpy(), [[1.0, 1.0], [2.0, 2.0]])
