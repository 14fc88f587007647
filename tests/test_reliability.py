"""The bad-input and lifetime catalogue (docs/reliability.md), case by case.

Each test is named after its case (P-01 ... P-38). Forged capsules come from
tests/helpers/forge.py; after every test the autouse fixture checks that no forged
deleter ran twice and that nothing forged is left alive. The leak cases (P-26, P-33) run
here at 100,000 iterations; the threads case (P-27) runs here and, at the Buffer
level, in tests/ext/test_buffer.py.
"""

from __future__ import annotations

import datetime
import gc
import random
import subprocess
import sys
import tracemalloc
import warnings
from contextlib import contextmanager

import numpy as np
import pytest
from forge import (
    IS_COPIED,
    READ_ONLY,
    capsule_name,
    counters,
    forge,
    versioned_tensor,
)
from frameworks import aligned_empty

import unitensor as ut
from unitensor import _core
from unitensor._convert import buffer_of


@pytest.fixture(scope="module", autouse=True)
def _collected_first():
    """Start with no garbage of earlier modules: the cases read deleter counts,
    refcounts and ``_core.stats()`` before and after (the fixture below collects
    after each test)."""
    gc.collect()


@pytest.fixture(autouse=True)
def _forged_deleters_balanced():
    before = counters.double_calls
    yield
    gc.collect()
    assert counters.double_calls == before, "a forged deleter ran twice"
    assert counters.live == 0, "a forged tensor was never deleted"


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


@contextmanager
def ignore_copies():
    """Copies that a case allows (e.g. unaligned memory going to jax)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ut.CopyWarning)
        yield


# -- 4.1 Malformed capsules -------------------------------------------------------
def test_p01_wrong_capsule_name_is_type_error_and_left_to_its_producer():
    calls = counters.deleter_calls
    capsule = forge(name=b"not_a_dltensor")
    with pytest.raises(TypeError, match="not_a_dltensor"):
        ut.from_dlpack(capsule)
    assert capsule_name(capsule) == b"not_a_dltensor"
    del capsule
    gc.collect()
    assert counters.deleter_calls == calls + 1


def test_p02_a_consumed_capsule_is_refused_and_refcounts_return():
    x = np.arange(3)
    baseline = sys.getrefcount(x)
    c = x.__dlpack__(max_version=(1, 0))
    t = ut.from_dlpack(c)
    with pytest.raises(ValueError, match="already consumed"):
        ut.from_dlpack(c)
    del c, t
    gc.collect()
    assert sys.getrefcount(x) == baseline


def test_p03_a_foreign_capsule_is_untouched():
    with pytest.raises(TypeError, match=r"datetime\.datetime_CAPI"):
        ut.from_dlpack(datetime.datetime_CAPI)
    assert "datetime.datetime_CAPI" in repr(datetime.datetime_CAPI)
    assert datetime.datetime.now().year >= 2024


@pytest.mark.parametrize("bad", [42, None, b"dltensor", object()])
def test_p04_non_producers_are_type_errors_and_allocate_nothing(bad):
    alive = _core.stats()["buffers_alive"]
    with pytest.raises(TypeError, match=type(bad).__name__):
        ut.from_dlpack(bad)
    with pytest.raises(TypeError, match=type(bad).__name__):
        _core.from_capsule(bad)
    assert _core.stats()["buffers_alive"] == alive


@pytest.mark.parametrize(("fields", "problem"), [
    ({"shape": (3,), "null_data": True}, "NULL data"),
    ({"shape": (2, 3), "null_shape": True}, "NULL shape"),
])
def test_p05_null_fields_are_buffer_errors_and_the_producer_frees(fields, problem):
    calls = counters.deleter_calls
    capsule = forge(**fields)
    with pytest.raises(BufferError, match=problem):
        ut.from_dlpack(capsule)
    assert capsule_name(capsule) == b"dltensor_versioned"
    del capsule
    gc.collect()
    assert counters.deleter_calls == calls + 1


def test_p06_a_null_deleter_is_legal():
    t = ut.from_dlpack(forge(shape=(4,), deleter=False))
    assert t.numpy().tolist() == [0.0, 1.0, 2.0, 3.0]
    del t
    gc.collect()


# -- 4.2 Odd layouts --------------------------------------------------------------
def test_p07_zero_dimensional_tensors(x64):
    import jax.numpy as jnp
    for source, value in ((np.array(3.5), 3.5), (jnp.array(3.5), 3.5),
                          (forge(np.array(3.5), null_shape=True, null_strides=True),
                           3.5)):
        t = ut.from_dlpack(source)
        assert t.shape == ()
        assert t.numpy().shape == ()
        assert float(t.numpy()) == value
        with ignore_copies():
            j = t.jax()
        assert j.shape == ()
        assert float(j) == value


@pytest.mark.parametrize("make", [
    lambda: np.empty((0, 3)), lambda: np.empty((3, 0)),
    lambda: forge(shape=(0, 3), null_data=True)])
def test_p08_size_zero_tensors(make, x64):
    source = make()
    t = ut.from_dlpack(source)
    shape = t.shape
    assert 0 in shape
    assert t.numpy().shape == shape
    with ignore_copies():
        assert t.jax().shape == shape


def test_p09_size_one_dimensions_with_any_stride():
    raw = np.arange(50.0)
    odd = np.ndarray((10, 5, 1), "f8", strides=(8, 80, 4), buffer=raw)
    sliced = np.arange(16.0)[::3][:1]
    forged = forge(np.arange(12.0).reshape(4, 1, 3), strides=(3, 999, 1))
    for source, expected in ((odd, odd.copy()), (sliced, [0.0]),
                             (forged, np.arange(12.0).reshape(4, 1, 3))):
        t = ut.from_dlpack(source)
        np.testing.assert_array_equal(t.numpy(), expected)
        out = t.torch()
        np.testing.assert_array_equal(out.numpy(), expected)
        assert all(isinstance(s, int) for s in buffer_of(t).strides)


@pytest.mark.parametrize("make", [lambda: np.arange(10)[::-1],
                                  lambda: np.arange(12.0).reshape(3, 4)[:, ::-1]])
def test_p10_negative_strides_are_zero_copy_and_torch_copies(make):
    x = make()
    t = ut.from_dlpack(x)
    buf = buffer_of(t)
    base = x.base if x.base is not None else x
    start = base.__array_interface__["data"][0]
    assert start <= buf.data_ptr < start + base.nbytes
    np.testing.assert_array_equal(t.numpy(), x)
    with pytest.warns(ut.CopyWarning, match="negative strides"):
        out = t.torch()
    np.testing.assert_array_equal(out.numpy(), x)


@pytest.mark.parametrize("view", [lambda x: x[:, 0], lambda x: x.T,
                                  lambda x: x[::2, 1::3]])
def test_p11_non_contiguous_to_jax_is_a_reported_copy_with_right_values(view, x64):
    x = np.arange(48.0).reshape(6, 8)
    source = view(x)
    t = ut.from_dlpack(source)
    np.testing.assert_array_equal(t.numpy(), source)
    if source.flags.c_contiguous:
        pytest.skip("this view happens to be contiguous")
    with pytest.warns(ut.CopyWarning, match="row-major"):
        j = t.jax()
    np.testing.assert_array_equal(np.asarray(j), source)
    with pytest.raises(BufferError, match="row-major"):
        t.jax(copy=False)


def test_p12_ndim_64_is_accepted_65_is_refused():
    t = ut.from_dlpack(np.zeros((1,) * 64))
    assert t.shape == (1,) * 64
    assert t.numpy().shape == (1,) * 64
    capsule = forge(np.zeros((1,) * 64), shape=(1,) * 65, strides=(1,) * 65)
    with pytest.raises(BufferError, match="ndim"):
        ut.from_dlpack(capsule)
    del capsule


def test_p13_null_strides_mean_compact_row_major():
    base = np.arange(6.0).reshape(2, 3)
    legacy = ut.from_dlpack(forge(base, null_strides=True, versioned=False))
    explicit = ut.from_dlpack(forge(base, strides=(3, 1)))
    np.testing.assert_array_equal(legacy.numpy(), explicit.numpy())
    np.testing.assert_array_equal(legacy.numpy(), base)


# -- 4.3 dtypes -------------------------------------------------------------------
NUMPY_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                "uint32", "uint64", "float16", "float32", "float64", "complex64",
                "complex128"]


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_p14_numpy_round_trip_of_every_dtype(dtype):
    x = (np.arange(7) % 2 == 0) if dtype == "bool" else (
        np.arange(7) * 3 + (1j if dtype.startswith("complex") else 0)).astype(dtype)
    for source in (x, x.__dlpack__(max_version=(1, 0))):
        t = ut.from_dlpack(source)
        assert t.dtype.name == dtype
        back = t.numpy()
        assert back.dtype == x.dtype
        assert back.tobytes() == x.tobytes()
        assert back.__array_interface__["data"][0] == x.__array_interface__["data"][0]


def test_p15_bool_stays_bool():
    import jax.numpy as jnp
    sources = [np.array([True, False]), jnp.array([True, False]),
               forge(np.array([1, 0], np.uint8), dtype=(6, 8, 1))]
    for source in sources:
        t = ut.from_dlpack(source)
        assert t.dtype == ut.bool
        assert t.numpy().dtype == np.bool_
        with ignore_copies():
            assert str(t.jax().dtype) == "bool"
        assert t.numpy().tolist() == [True, False]


def test_p16_bfloat16_stays_bfloat16():
    import jax.numpy as jnp
    import ml_dtypes
    sources = [jnp.zeros(2, jnp.bfloat16),
               forge(np.array([0x3F80, 0x4000], np.uint16), dtype=(4, 16, 1))]
    for source, expected in zip(sources, ([0.0, 0.0], [1.0, 2.0]), strict=True):
        t = ut.from_dlpack(source)
        assert t.dtype == ut.bfloat16
        a = t.to("numpy").native
        assert a.dtype == ml_dtypes.bfloat16
        assert a.astype(np.float32).tolist() == expected


def test_p17_lanes_are_refused():
    capsule = forge(np.zeros(4, np.float32), dtype=(2, 32, 4))
    with pytest.raises(BufferError, match="lanes"):
        ut.from_dlpack(capsule)
    del capsule


@pytest.mark.parametrize("dtype", [(2, 7, 1), (0, 0, 1), (255, 32, 1)])
def test_p18_unknown_dtypes_name_code_and_bits(dtype):
    capsule = forge(np.zeros(4, np.float32), dtype=dtype)
    with pytest.raises(BufferError, match=f"code={dtype[0]}, bits={dtype[1]}"):
        ut.from_dlpack(capsule)
    del capsule


def test_p19_byteswapped_is_copied_to_native_order_others_refused():
    swapped = np.arange(4, dtype=">i8")
    with pytest.warns(ut.CopyWarning, match="byte order"):
        t = ut.asarray(swapped)
    assert t.numpy().tolist() == [0, 1, 2, 3]
    assert t.numpy().dtype.isnative
    for other in (np.zeros(2, "M8[s]"), np.zeros(2, "i4,f4")):
        with pytest.raises(BufferError):
            ut.asarray(other)


# -- 4.4 Devices ------------------------------------------------------------------
def test_p20_cuda_capsule_on_a_cpu_machine():
    from owners import has_cuda
    if has_cuda():
        pytest.skip("this machine has CUDA")
    calls = counters.deleter_calls
    capsule = forge(shape=(3,), device=(2, 0))
    with pytest.raises(BufferError, match="CUDA"):
        ut.from_dlpack(capsule)
    del capsule
    gc.collect()
    assert counters.deleter_calls == calls + 1


def test_p21_dl_device_and_copy_on_export():
    x = np.arange(4.0)
    t = ut.asarray(x)
    with pytest.raises(BufferError, match="dl_device"):
        t.__dlpack__(dl_device=(2, 0))
    same = ut.from_dlpack(t.__dlpack__(dl_device=(1, 0), copy=False,
                                       max_version=(1, 0)))
    assert buffer_of(same).data_ptr == x.ctypes.data
    capsule = t.__dlpack__(max_version=(1, 0), dl_device=(1, 0), copy=True)
    assert capsule_name(capsule) == b"dltensor_versioned"
    managed = versioned_tensor(capsule)
    assert managed.flags & IS_COPIED
    assert managed.dl_tensor.data != x.ctypes.data
    del managed, capsule


@pytest.mark.parametrize("stream", [1, 0, -1])
def test_p22_cpu_streams_must_be_none(stream):
    t = ut.asarray(np.arange(3.0))
    with pytest.raises(ValueError, match="stream"):
        t.__dlpack__(stream=stream)
    assert t.__dlpack__(stream=None) is not None


# -- 4.5 Lifetime -----------------------------------------------------------------
def test_p23_the_source_may_die_first():
    x = np.arange(1e6)
    t = ut.from_dlpack(x.__dlpack__(max_version=(1, 0)))
    del x
    gc.collect()
    assert t.numpy().sum() == 499999500000.0


def test_p24_a_thousand_imports_of_one_array_return_its_refcount():
    x = np.arange(10.0)
    baseline = sys.getrefcount(x)
    tensors = [ut.from_dlpack(x.__dlpack__(max_version=(1, 0))) for _ in range(1000)]
    assert sys.getrefcount(x) > baseline
    random.Random(0).shuffle(tensors)
    while tensors:
        tensors.pop()
    gc.collect()
    assert sys.getrefcount(x) == baseline


def test_p25_chains_survive_losing_their_middle():
    calls = counters.deleter_calls
    origin = ut.from_dlpack(forge(np.arange(5.0)))
    as_torch = origin.torch()
    back = ut.asarray(as_torch).numpy()
    del origin
    gc.collect()
    del as_torch
    gc.collect()
    assert back.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert counters.deleter_calls == calls
    del back
    gc.collect()
    assert counters.deleter_calls == calls + 1


def test_p26_many_unconsumed_exports_neither_leak_nor_break():
    t = ut.asarray(np.arange(8.0))
    for _ in range(2000):  # warm up allocator pools
        del_capsule = t.__dlpack__(max_version=(1, 0))
        del del_capsule
    before, exported = rss_bytes(), _core.stats()["exported_alive"]
    for _ in range(100_000):
        c = t.__dlpack__(max_version=(1, 0))
        del c
    assert rss_bytes() - before < 5 * 2**20
    assert _core.stats()["exported_alive"] == exported
    assert t.numpy().tolist() == list(np.arange(8.0))


def test_p27_threads_share_one_buffer():
    import threading
    shared = np.arange(1000.0)
    baseline = sys.getrefcount(shared)
    errors: list[BaseException] = []

    def work():
        try:
            for _ in range(2000):
                t = ut.from_dlpack(shared.__dlpack__(max_version=(1, 0)))
                assert np.from_dlpack(t)[999] == 999.0
        except BaseException as exc:  # reported below, not lost in the thread
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    gc.collect()
    assert not errors
    assert sys.getrefcount(shared) == baseline


# -- 4.6 Read-only propagation ----------------------------------------------------
def test_p28_read_only_numpy_stays_read_only():
    x = np.arange(5)
    x.flags.writeable = False
    t = ut.from_dlpack(x)
    assert t.readonly is True
    with pytest.raises(ValueError, match="read-only"):
        t.numpy()[0] = 10
    if hasattr(type(t), "__iadd__"):
        with pytest.raises(ValueError, match="read-only"):
            t += 1
    assert x.tolist() == [0, 1, 2, 3, 4]


def test_p29_read_only_to_torch_is_an_alias_that_unitensor_still_guards():
    x = np.arange(5.0)
    x.flags.writeable = False
    t = ut.from_dlpack(x)
    as_torch = t.to("torch")
    assert as_torch.native.data_ptr() == x.ctypes.data  # zero-copy, as torch's own
    assert as_torch.readonly
    assert t.readonly
    with pytest.raises(ValueError, match="read-only"):
        as_torch[0] = 42.0
    with pytest.raises(ValueError, match="read-only"):
        as_torch += 1.0
    fresh = t.to("torch", copy=True)
    assert not fresh.readonly
    fresh[0] = 42.0
    assert x[0] == 0.0


def test_p29_jax_to_torch_aliases_without_a_per_call_warning():
    import jax.numpy as jnp
    j = jnp.arange(2.0**20)  # 4 MiB
    t = ut.asarray(j)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ut.CopyWarning)  # never a copy
        out = t.torch()
    assert out.data_ptr() == j.unsafe_buffer_pointer()
    assert t.readonly


@pytest.mark.slow  # compiles or a fresh interpreter: seconds (the whole suite runs it)
def test_p29_the_alias_warning_comes_once_per_process():
    code = """if True:
        import warnings
        import numpy as np
        import unitensor as ut
        x = np.arange(3.0)
        x.flags.writeable = False
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            for _ in range(3):
                ut.asarray(x).torch()
            ut.asarray(x).__dlpack__()
        print(sum(issubclass(w.category, ut.AliasWarning) for w in seen))
    """
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "1"


def test_p30_jax_arrays_are_read_only():
    import jax.numpy as jnp
    j = jnp.arange(4.0)
    t = ut.from_dlpack(j)
    assert t.readonly is True
    with pytest.raises(ValueError, match="read-only"):
        t.numpy()[0] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        np.from_dlpack(t)[0] = 1.0
    assert j.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_p31_read_only_exports():
    x = np.arange(3.0)
    x.flags.writeable = False
    t = ut.from_dlpack(x)
    assert not np.from_dlpack(t).flags.writeable
    capsule = t.__dlpack__(max_version=(1, 0))
    assert versioned_tensor(capsule).flags & READ_ONLY
    del capsule
    legacy = t.__dlpack__()  # the flag is lost, the memory is the same (as JAX's)
    assert _core.from_capsule(legacy).data_ptr == x.ctypes.data


# -- 4.7 Memory -------------------------------------------------------------------
@pytest.mark.slow  # a gigabyte (~2 s): the whole suite runs it
def test_p32_a_gigabyte_crosses_without_copies(x64):
    x = aligned_empty((2**27,), np.float64)  # 1 GiB, 64-byte aligned
    x.fill(1.0)
    before = rss_bytes()
    t = ut.from_dlpack(x)
    as_numpy = np.from_dlpack(t)
    as_jax = t.to("jax").native
    assert rss_bytes() - before < 16 * 2**20
    assert buffer_of(t).data_ptr == x.__array_interface__["data"][0]
    assert as_numpy.__array_interface__["data"][0] == x.__array_interface__["data"][0]
    assert as_jax.unsafe_buffer_pointer() == x.__array_interface__["data"][0]
    del as_jax, as_numpy, t, x
    gc.collect()


@pytest.mark.slow  # many round trips to see memory settle: ~4.5 s
def test_p33_round_trips_do_not_leak():
    x = np.arange(16.0)
    for _ in range(2000):
        np.from_dlpack(ut.from_dlpack(x))
    tracemalloc.start()
    before_rss = rss_bytes()
    snapshot = tracemalloc.take_snapshot()
    for _ in range(100_000):
        np.from_dlpack(ut.from_dlpack(x.__dlpack__(max_version=(1, 0))))
    grown = sum(s.size_diff for s in tracemalloc.take_snapshot().compare_to(
        snapshot, "filename"))
    tracemalloc.stop()
    assert rss_bytes() - before_rss < 5 * 2**20
    assert grown < 256 * 1024
    for _ in range(1000):
        np.from_dlpack(ut.from_dlpack(forge(np.arange(4.0))))
    gc.collect()
    assert counters.live == 0


# -- 4.8 API misuse ---------------------------------------------------------------
@pytest.mark.parametrize("bad", [object(), {"a": 1}, lambda: 0, iter([1, 2]),
                                 [[1], [1, 2]]])
def test_p34_non_arrays_are_refused_leaving_nothing(bad):
    alive = _core.stats()["buffers_alive"]
    with pytest.raises((TypeError, ValueError)):
        ut.asarray(bad)
    gc.collect()
    assert _core.stats()["buffers_alive"] == alive


def test_p35_unknown_framework_names():
    t = ut.asarray([1.0])
    for name in ("pytorchh", ""):
        with pytest.raises(ValueError, match="'numpy', 'torch', 'jax'"):
            t.to(name)
    for bad in (None, 42):
        with pytest.raises(TypeError):
            t.to(bad)


def test_p36_a_missing_framework_is_an_import_error_with_a_hint(monkeypatch):
    from unitensor import _backends
    monkeypatch.setitem(sys.modules, "tensorflow", None)
    monkeypatch.delitem(_backends._loaded, "tensorflow", raising=False)
    for module in ("interop", "namespace"):
        monkeypatch.delitem(sys.modules, f"unitensor._backends.tensorflow.{module}",
                            raising=False)
    with pytest.raises(ImportError, match="pip install tensorflow"):
        ut.asarray([1.0]).to("tensorflow")


def test_p37_mixed_owners_follow_the_documented_rule():
    torch = pytest.importorskip("torch")
    a = ut.asarray(np.arange(3, dtype=np.float32))
    b = ut.asarray(torch.ones(3, dtype=torch.float64))
    result = ut.add(a, b)
    assert result.owner == "numpy"  # the left-most Tensor's owner
    assert result.dtype == ut.float64  # float32 + float64 promotes to float64
    assert result.numpy().tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("kwargs", [
    {"max_version": ("1", "0")}, {"max_version": (1,)}, {"stream": object()},
    {"copy": "yes"}, {"version": 1}])
def test_p38_bad_dlpack_arguments_are_type_errors(kwargs):
    t = ut.asarray(np.arange(3.0))
    with pytest.raises(TypeError):
        t.__dlpack__(**kwargs)
    with pytest.raises(TypeError):
        t.__dlpack__(None)


# -- P-39: pickling never moves memory unitensor has exposed ------------------------
def _forking_dumps(obj):
    from multiprocessing.reduction import ForkingPickler
    return bytes(ForkingPickler.dumps(obj))


def test_p39_a_pickler_never_moves_memory_a_view_points_into():
    torch = pytest.importorskip("torch")
    t = ut.asarray(torch.arange(4096.0))
    n, before = t.numpy(), t.native.data_ptr()
    _forking_dumps(t)  # what a Queue's feeder thread does (issue 30's case)
    junk = [np.full(4096, 123.0, np.float32) for _ in range(100)]
    assert t.native.data_ptr() == before  # torch did not swap the storage
    assert n[7] == 7.0
    assert t.numpy()[7] == 7.0
    del junk


@pytest.mark.parametrize("sibling", ["native", "index view", "second wrap",
                                     "other dtype view"])
def test_p39_every_tensor_over_the_exposed_storage_is_sent_as_a_copy(sibling):
    # the exposure is the storage's, not one Tensor's record: a view of it, a
    # second Tensor wrapping the same torch tensor, or the torch tensor itself
    # on a queue would move it all the same
    torch = pytest.importorskip("torch")
    x = torch.arange(4096.0)
    t = ut.asarray(x)
    n, before = t.numpy(), x.data_ptr()
    other = {"native": lambda: t.native, "index view": lambda: t[100:200],
             "second wrap": lambda: ut.asarray(x),
             "other dtype view": lambda: x.view(torch.int32)}[sibling]()
    _forking_dumps(other)
    assert x.data_ptr() == before
    assert not x.is_shared()
    assert n[7] == 7.0


def test_p39_an_alias_of_numpy_memory_stays_an_alias_when_pickled():
    # torch's move would leave the cached torch view pointing at a shared copy:
    # writes through it would no longer reach the numpy array
    pytest.importorskip("torch")
    a = np.arange(8.0)
    n = ut.asarray(a)
    as_torch = n.to("torch")
    _forking_dumps(as_torch)
    n.torch()[0] = 42.0
    assert a[0] == 42.0
    assert as_torch.native[0] == 42.0
    via_buffer = ut.from_dlpack(a[::2]).to("torch")  # torch over a Buffer
    _forking_dumps(via_buffer)
    via_buffer.native[1] = -1.0
    assert a[2] == -1.0


def test_p39_memory_nobody_else_sees_is_shared_zero_copy_as_torch_shares_it():
    torch = pytest.importorskip("torch")
    t = ut.asarray(torch.arange(16.0))
    _forking_dumps(t)  # nothing of unitensor's points into it: torch moves it
    assert t.native.is_shared()
    shared = torch.zeros(16).share_memory_()  # already shared: nothing moves
    s = ut.asarray(shared)
    s.numpy()
    before = shared.data_ptr()
    _forking_dumps(s)
    assert shared.data_ptr() == before


@pytest.mark.slow
# jax, where imported, warns at every fork (its threads): not this test's subject
@pytest.mark.filterwarnings("ignore:os.fork:RuntimeWarning")
@pytest.mark.parametrize("start", ["spawn", "fork"])
def test_p39_a_child_receives_the_values_and_the_parent_keeps_its_views(start):
    import multiprocessing

    import children
    torch = pytest.importorskip("torch")
    context = multiprocessing.get_context(start)
    # (a spawned child imports this file's folder's `children` by name)
    t = ut.asarray(torch.arange(4096.0))
    n, before = t.numpy(), t.native.data_ptr()
    shared = ut.asarray(torch.zeros(4).share_memory_())
    shared_view = shared.numpy()
    inbox, outbox = context.Queue(), context.Queue()
    child = context.Process(target=children.read_and_write, args=(inbox, outbox))
    child.start()
    try:
        inbox.put(t)
        owner, values = outbox.get(timeout=120)
        assert outbox.get(timeout=60) == "written"
        inbox.put(shared)
        assert outbox.get(timeout=60) == ("torch", [0.0] * 4)
        assert outbox.get(timeout=60) == "written"
    finally:
        inbox.put(None)
        child.join(60)
    junk = [np.full(4096, 123.0, np.float32) for _ in range(100)]
    assert (owner, values) == ("torch", list(range(4096)))
    assert t.native.data_ptr() == before
    assert (n[0], n[7]) == (0.0, 7.0)  # the child's write went to its copy
    assert shared_view[0] == 1.0  # shared memory stays shared: the child's write
    del junk


# -- P-41: made once and cached, also under threads ----------------------------------
@contextmanager
def _switching_often():
    # a thread switch every microsecond: the window between a cache miss and the
    # cache's fill is entered by the other threads, as on a free-threaded build
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def _at_once(func, threads=8):
    """``func()`` in ``threads`` threads released together; their results."""
    import threading
    start = threading.Barrier(threads)
    results: list = [None] * threads
    errors: list[BaseException] = []

    def work(i):
        try:
            start.wait()
            results[i] = func()
        except BaseException as exc:  # reported below, not lost in the thread
            errors.append(exc)

    workers = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    with _switching_often():
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    assert not errors
    return results


def test_p41_threads_reading_one_lazy_tensor_compute_it_once():
    da = pytest.importorskip("dask.array")
    for _ in range(5):
        calls = []

        def chunk(block, calls=calls):
            if block.size:  # (dask calls it once on an empty block for its meta)
                calls.append(block.shape)
            return block + np.random.default_rng().random(block.shape)

        t = ut.asarray(da.map_blocks(chunk, da.zeros(8, chunks=4), dtype=float))
        views = _at_once(t.numpy)
        assert len(calls) == 2  # two chunks, each computed once
        assert all(v is views[0] for v in views)  # one content, not eight


@pytest.mark.parametrize("method", ["torch", "tf", "to", "__dlpack__"])
def test_p41_threads_converting_one_fresh_tensor_get_one_view(method):
    framework = {"torch": "torch", "tf": "tensorflow"}.get(method, "torch")
    pytest.importorskip(framework)
    for _ in range(10):
        t = ut.asarray(aligned_empty((64,), np.float32))  # zero-copy for TF too
        if method == "to":
            views = _at_once(lambda t=t: t.to("torch").native)
        elif method == "__dlpack__":  # one Buffer, however many exports
            views = _at_once(lambda t=t: (t.__dlpack__(), buffer_of(t))[1])
        else:
            views = _at_once(getattr(t, method))
        assert all(v is views[0] for v in views)
        cached = t._aliases.buffer if method == "__dlpack__" else (
            t._aliases.views[framework])
        assert cached is views[0]
