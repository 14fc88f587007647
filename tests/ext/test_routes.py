"""The direct conversion routes: torch's DLPack 1.3 C exchange API (ext/_core.c's
exchange_import, exchange_export and exchange_host_view) and numpy's route from
torch built on it. Each must give exactly what the public route gives.

Each adapter's own direct import and its fallback to the public one (jaxlib's and
TensorFlow's DLPack imports, torch without the exchange API, numpy's export through
the buffer protocol) are tested with the adapter, in tests/backends/."""

from __future__ import annotations

import gc
import sys
import warnings
import weakref

import numpy as np
import pytest
import torch
from forge import counters, forge

import unitensor as ut
from unitensor import _backends, _core
from unitensor._backends import _dlpack
from unitensor._backends.torch import interop as torch_interop

TORCH = _backends.get("torch")
NUMPY = _backends.get("numpy")
LAYOUTS = {
    "contiguous": lambda: torch.arange(24.0).reshape(2, 3, 4),
    "transposed": lambda: torch.arange(24.0).reshape(2, 3, 4).transpose(0, 2),
    "sliced": lambda: torch.arange(24, dtype=torch.int32).reshape(4, 6)[1:, ::2],
    "0-d": lambda: torch.tensor(3.5),
    "empty": lambda: torch.empty(0, 3),
    "complex": lambda: torch.arange(6.0).to(torch.complex64),
    "bool": lambda: torch.tensor([True, False]),
}
requires_exchange = pytest.mark.skipif(not torch_interop._EXCHANGE,
                                       reason="torch without the DLPack C exchange API")


def layout(buf):
    return (buf.shape, buf.strides, buf.dtype, buf.device, buf.data_ptr, buf.readonly)


@requires_exchange
@pytest.mark.parametrize("name", LAYOUTS)
def test_exchange_import_describes_what_dlpack_describes(name):
    t = LAYOUTS[name]()
    assert layout(_core.exchange_import(t)) == layout(_dlpack.buffer_from_dlpack(t))
    assert _core.exchange_import(t).source == "dlpack_versioned"


@requires_exchange
def test_exchange_import_shares_memory_and_frees_it_once():
    gc.collect()  # no earlier garbage may run a deleter in between
    t = torch.zeros(4)
    before = _core.stats()["imported_deleters_run"]
    buf = _core.exchange_import(t)
    np.asarray(buf)[1] = 7.0
    assert t[1] == 7.0
    del buf
    assert _core.stats()["imported_deleters_run"] == before + 1


@requires_exchange
@pytest.mark.parametrize("name", LAYOUTS)
def test_torch_route_to_numpy_shares_what_tensor_numpy_shares(name):
    """numpy's route from torch (one C call: exchange import + buffer protocol)
    gives the array Tensor.numpy() gives, over the same memory."""
    t = LAYOUTS[name]()
    a = NUMPY.ROUTES["torch"](t)
    expected = t.numpy()
    assert type(a) is np.ndarray
    assert a.dtype == expected.dtype
    assert a.shape == expected.shape
    assert a.strides == expected.strides
    assert a.flags.writeable
    assert (a.size == 0 or a.ctypes.data == expected.ctypes.data)
    np.testing.assert_array_equal(a, expected)


@requires_exchange
def test_torch_route_to_numpy_keeps_the_memory_and_frees_it_once():
    gc.collect()  # no earlier garbage may run a deleter in between
    t = torch.zeros(3)
    before = _core.stats()["imported_deleters_run"]
    a = NUMPY.ROUTES["torch"](t)
    a[0] = 5.0
    assert t[0].item() == 5.0
    del t
    assert a[0] == 5.0  # the array keeps torch's memory alive
    del a
    assert _core.stats()["imported_deleters_run"] == before + 1


@requires_exchange
def test_torch_route_to_numpy_declines_what_the_general_path_must_decide():
    route = NUMPY.ROUTES["torch"]
    c = torch.tensor([1 + 2j, 3 - 4j], dtype=torch.complex64)
    gc.collect()  # no earlier garbage may run a deleter in between
    before = _core.stats()["imported_deleters_run"]
    assert route(c.conj()) is None  # the conj bit: complex data only
    assert route(c.conj().imag) is None  # the neg bit: any dtype
    assert route(torch.zeros(2, dtype=torch.bfloat16)) is None  # no numpy name
    assert route(np.zeros(2)) is None  # no exchange API on the type
    # a graph numpy would drop: the general path refuses it, as torch does
    assert route(torch.zeros(2, requires_grad=True)) is None
    assert _core.stats()["imported_deleters_run"] == before + 2  # declined after import
    with pytest.warns(ut.CopyWarning):  # so the general path resolves the bit
        assert ut.asarray(c.conj()).numpy().tolist() == [1 - 2j, 3 + 4j]


@pytest.mark.parametrize("name", [*LAYOUTS, "read-only"])
def test_ndarray_view_gives_what_np_asarray_of_the_buffer_gives(name):
    """numpy's C API over a Buffer (_core.ndarray_view, the end of numpy's route
    from torch): the array the buffer protocol gives, the Buffer its base."""
    t = LAYOUTS.get(name, LAYOUTS["sliced"])()
    buf = _core.exchange_import(t) if torch_interop._EXCHANGE else (
        _dlpack.buffer_from_dlpack(t))
    if name == "read-only":
        buf.mark_readonly()
    a, expected = _core.ndarray_view(buf), np.asarray(buf)
    assert type(a) is np.ndarray
    assert a.base is buf
    assert (a.dtype, a.shape, a.strides) == (expected.dtype, expected.shape,
                                             expected.strides)
    assert a.size == 0 or a.ctypes.data == expected.ctypes.data
    # (numpy's buffer import gives an empty array memory of its own: its owndata)
    for flag in ("writeable", "c_contiguous", "f_contiguous", "aligned") + (
            ("owndata",) if a.size else ()):
        assert getattr(a.flags, flag) == getattr(expected.flags, flag), flag
    np.testing.assert_array_equal(a, expected)


def test_ndarray_view_keeps_the_buffer_and_refuses_what_numpy_cannot_name():
    gc.collect()
    alive = _core.stats()["buffers_alive"]
    a = _core.ndarray_view(_core.from_buffer(bytearray(8)))
    assert _core.stats()["buffers_alive"] == alive + 1  # held by the array alone
    del a
    assert _core.stats()["buffers_alive"] == alive
    with pytest.raises(BufferError, match="ndarray_view"):
        _core.ndarray_view(_dlpack.buffer_from_dlpack(
            torch.zeros(2, dtype=torch.bfloat16)))
    with pytest.raises(TypeError, match="ndarray_view"):
        _core.ndarray_view(np.zeros(2))


@requires_exchange
def test_torch_route_to_numpy_makes_the_array_in_c_over_the_buffer():
    a = NUMPY.ROUTES["torch"](torch.zeros(3))
    assert type(a.base) is _core.Buffer  # (np.asarray's: a memoryview of it)
    assert a.base.source == "dlpack_versioned"


NUMPY_CASES = {
    **{dt: (lambda dt=dt: np.ones((2, 3), dt)) for dt in (
        "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint64",
        "float16", "float32", "float64", "complex64", "complex128", "longdouble",
        ">f4", "q", "M8[s]")},
    "transposed": lambda: np.arange(12.0).reshape(3, 4).T,
    "sliced": lambda: np.arange(12.0).reshape(3, 4)[:, ::2],
    "reversed": lambda: np.arange(4.0)[::-1],
    "0-d": lambda: np.array(2.5),
    "empty": lambda: np.empty((0, 3), np.float32),
    "read-only": lambda: np.frombuffer(bytes(16), np.float32),
    "unaligned": lambda: np.frombuffer(bytearray(20), np.float32, 4, 4),
    "byte strides": lambda: np.ndarray((2,), np.int32, bytearray(12), strides=(6,)),
    "subclass": lambda: np.ma.masked_array(np.arange(3.0)),
    "structured": lambda: np.zeros(2, [("a", "f4")]),
}


@requires_exchange
@pytest.mark.parametrize("name", NUMPY_CASES)
def test_numpy_route_to_torch_shares_what_torch_from_numpy_shares(name):
    """torch's route from numpy, whole in C (torch's exchange import over the
    numpy array): the tensor torch.from_numpy gives, or None where the Python
    route declines (the general path decides), held by an Export (rule 3)."""
    gc.collect()
    exported = _core.stats()["exported_alive"]
    a = NUMPY_CASES[name]()
    t, expected = TORCH.ROUTES["numpy"](a), torch_interop._from_numpy(a)
    if expected is None:
        assert t is None
        assert _core.stats()["exported_alive"] == exported
        return
    assert type(t) is torch.Tensor
    assert not t.requires_grad
    assert t.is_cpu
    assert (t.dtype, t.shape, t.stride()) == (expected.dtype, expected.shape,
                                              expected.stride())
    assert t.numel() == 0 or t.data_ptr() == expected.data_ptr()
    assert torch.equal(t, expected)
    assert _core.stats()["exported_alive"] == exported + 1  # not torch.from_numpy
    del t
    assert _core.stats()["exported_alive"] == exported


@requires_exchange
def test_numpy_route_to_torch_keeps_the_array_until_its_last_tensor_goes():
    gc.collect()
    exported = _core.stats()["exported_alive"]
    a = np.zeros(16, np.float32)
    refs, gone = sys.getrefcount(a), weakref.ref(a)
    views = [ut.asarray(a).torch() for _ in range(100)]  # a new Tensor each time
    views[-1][3] = 7.0
    assert a[3] == 7.0
    assert sys.getrefcount(a) == refs + 100
    del a
    assert gone() is not None
    assert views[0][3] == 7.0
    del views
    assert gone() is None
    assert _core.stats()["exported_alive"] == exported


@requires_exchange
def test_torch_subclasses_take_the_python_protocol():
    """A subclass inherits __dlpack_c_exchange_api__ but may have changed what its
    data means (its own __dlpack__): only a type's own declaration counts."""
    p = torch.nn.Parameter(torch.arange(3.0), requires_grad=False)
    assert NUMPY.ROUTES["torch"](p) is None
    with pytest.raises(TypeError, match="obj: expected an array type declaring"):
        _core.exchange_import(p)
    a = ut.asarray(p).numpy()  # the general path: torch's __dlpack__
    assert a.ctypes.data == p.data_ptr()
    assert a.tolist() == [0.0, 1.0, 2.0]


@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")
def test_torch_tensors_without_exportable_memory_are_refused_clearly():
    route = NUMPY.ROUTES["torch"]
    for t, got in ((torch.empty(3, device="meta"), "a strided tensor on meta"),
                   (torch.nested.nested_tensor([torch.ones(2), torch.ones(3)]),
                    "a nested tensor on cpu")):
        assert route(t) is None  # torch refused the export: the general path says why
        with pytest.raises(BufferError, match=f"obj: expected a strided torch tensor "
                                              f"with memory on cpu or cuda, got {got}"):
            ut.asarray(t).numpy()
    sparse = torch.zeros(2).to_sparse()
    assert route(sparse) is None
    with pytest.raises(TypeError, match=r"asarray\(\): obj: expected a dense"):
        ut.asarray(sparse)  # refused where it comes in (tests/test_refusals.py)


def test_exchange_host_view_names_what_it_takes():
    with pytest.raises(TypeError, match=r"exchange_host_view\(\): args: expected "
                                        r"\(make, refusals, complex_refusals, obj\)"):
        _core.exchange_host_view(np.asarray, ("is_neg",), torch.zeros(1))
    with pytest.raises(AttributeError):  # a refusal the array cannot answer
        _core.exchange_host_view(np.asarray, ("no_such_method",), (), torch.zeros(1))


@requires_exchange
def test_a_guarded_refusal_is_asked_only_while_its_table_is_filled():
    # numpy's route from torch asks whether memory was lent read-only only once
    # some was (a Python call: as costly as the rest of the route's checks)
    asked = []

    def refusal(x):
        asked.append(x)
        return True

    table: dict = {}
    t = torch.arange(3.0)
    a = _core.exchange_host_view(np.asarray, ((table, refusal),), (), t)
    assert a is not None
    assert a.tolist() == [0.0, 1.0, 2.0]
    assert asked == []
    table[0] = None
    assert _core.exchange_host_view(np.asarray, ((table, refusal),), (), t) is None
    assert asked == [t]
    assert NUMPY.ROUTES["torch"].args[1][-1][0] is torch_interop._LENT_READ_ONLY


@requires_exchange
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint8, np.bool_,
                                   np.complex128, np.float16])
def test_exchange_export_gives_torch_the_same_memory(dtype):
    a = np.zeros((3, 4), dtype)[:, ::2]
    buf = NUMPY.export(a)
    t = _core.exchange_export(buf, torch.Tensor)
    assert t.data_ptr() == a.ctypes.data
    assert t.shape == (3, 2)
    assert t.stride() == (4, 2)
    assert t.numpy().dtype == a.dtype
    t[1, 1] = 1
    assert a[1, 1] == 1


@requires_exchange
def test_exchange_export_refuses_what_it_cannot_do():
    writable = NUMPY.export(np.zeros(3))
    with pytest.raises(TypeError, match="type: expected an array type declaring"):
        _core.exchange_export(writable, np.ndarray)
    with pytest.raises(TypeError, match=r"\(a Buffer, an array type\[, lent\]\)"):
        _core.exchange_export(writable)
    with pytest.raises(TypeError,
                       match=r"lent: expected None or a LentTable, got \(\{\}"):
        _core.exchange_export(writable, torch.Tensor, ({}, 3))
    readonly = np.zeros(3)
    readonly.flags.writeable = False
    with pytest.raises(BufferError, match="read-only memory"):
        _core.exchange_export(NUMPY.export(readonly), torch.Tensor)
    # torch's import throws a C++ exception through the C API on these (the
    # process ends): refused before torch is called
    with pytest.raises(BufferError, match="non-negative strides, got stride -1 in"):
        _core.exchange_export(NUMPY.export(np.arange(4.0)[::-1]), torch.Tensor)
    one = _core.exchange_export(NUMPY.export(np.arange(4.0)[:1][::-1]), torch.Tensor)
    assert one.tolist() == [0.0]  # a stride never stepped is not refused
    with pytest.raises(TypeError, match="obj: expected an array type declaring"):
        _core.exchange_import(np.zeros(3))


@requires_exchange
def test_exchange_export_records_read_only_memory_until_torch_frees_it():
    gc.collect()
    a = np.arange(6.0)
    a.flags.writeable = False
    table = _core.LentTable()
    t = _core.exchange_export(NUMPY.export(a), torch.Tensor, table)
    assert t.data_ptr() == a.ctypes.data  # the same memory, not a copy
    assert table.counts() == {t.untyped_storage().data_ptr(): 1}  # readonly()'s key
    assert t.untyped_storage().data_ptr() in table
    again = _core.exchange_export(NUMPY.export(a), torch.Tensor, table)
    assert table.counts() == {a.ctypes.data: 2}  # one count per storage alive over it
    view = t[2:4]
    del t
    gc.collect()
    assert table.counts() == {a.ctypes.data: 2}  # a view keeps the storage, its count
    del view
    gc.collect()
    assert table.counts() == {a.ctypes.data: 1}  # the export's deleter took it back
    del again
    gc.collect()
    assert table.counts() == {}
    assert len(table) == 0
    assert a.ctypes.data not in table


@requires_exchange
def test_exchange_export_records_nothing_of_writable_memory():
    table = _core.LentTable()
    a = np.arange(3.0)
    t = _core.exchange_export(NUMPY.export(a), torch.Tensor, table)
    assert table.counts() == {}
    t += 1
    assert a.tolist() == [1.0, 2.0, 3.0]


@requires_exchange
def test_exchange_export_hands_out_nothing_unrecorded():
    gc.collect()
    a = np.arange(3.0)
    a.flags.writeable = False
    buf = NUMPY.export(a)
    alive = _core.stats()["exported_alive"]

    # a dict (the table's type before) is refused before anything is made
    with pytest.raises(TypeError, match="lent: expected None or a LentTable"):
        _core.exchange_export(buf, torch.Tensor, {})
    assert _core.stats()["exported_alive"] == alive


@requires_exchange
def test_the_lent_table_counts_many_addresses_freed_in_any_order():
    """The table is open addressing in C: it grows past its first 16 slots, and an
    address freed from the middle of a run of collisions leaves every other
    findable (deletion shifts the run back)."""
    gc.collect()
    table = _core.LentTable()
    arrays = [np.arange(float(n % 7 + 1)) for n in range(300)]
    for a in arrays:
        a.flags.writeable = False
    lent = [_core.exchange_export(NUMPY.export(a), torch.Tensor, table)
            for a in arrays]
    assert len(table) == 300
    assert table.counts() == {a.ctypes.data: 1 for a in arrays}
    order = np.random.default_rng(0).permutation(300)
    for done, i in enumerate(order, 1):
        lent[i] = None
        if done % 50 == 0:
            gc.collect()
            gone = {arrays[j].ctypes.data for j in order[:done]}
            assert all((a.ctypes.data in table) == (a.ctypes.data not in gone)
                       for a in arrays)
            assert len(table) == 300 - done
    assert table.counts() == {}
    assert 12 not in table
    assert "an address" not in table
    with pytest.raises(TypeError, match="takes no arguments"):
        _core.LentTable({})


@requires_exchange
def test_exchange_export_failure_frees_the_export_exactly_once():
    gc.collect()  # nothing forged by earlier tests may be left alive
    buf = _core.from_capsule(forge(device=(4, 0)))  # OpenCL: torch refuses it
    alive = _core.stats()["exported_alive"]
    # Any error will do: it is torch's own (today an internal-assert RuntimeError
    # about the OpenCL device), and the test is about the export, not the message.
    with pytest.raises(Exception):  # noqa: B017, PT011 - torch's error, whatever it is
        _core.exchange_export(buf, torch.Tensor)
    assert _core.stats()["exported_alive"] == alive
    del buf
    assert counters.live == 0
    assert counters.double_calls == 0




# -- torch <-> tensorflow: each framework's own route from the other -------------------
def _address(x) -> int:
    from unitensor._convert import buffer_of
    return buffer_of(ut.asarray(x)).data_ptr


def _immutable_arrays(source):
    """A 3x4 array of ``source`` (jax, tensorflow) and a function of 3 elements."""
    if source == "jax":
        jnp = pytest.importorskip("jax.numpy")
        return jnp.arange(12.0, dtype=jnp.float32).reshape(3, 4), jnp.arange
    tf = pytest.importorskip("tensorflow")
    return tf.reshape(tf.range(12.0), (3, 4)), lambda n: tf.range(float(n))


def _quiet() -> None:
    """A hand-over's warn() that gives no warning."""


@pytest.fixture
def alias_unwarned():
    """The process's alias warning not given yet, and as it was afterwards."""
    given = _core.alias_warned()
    _core.set_alias_warned(False)
    yield
    _core.set_alias_warned(given)


@requires_exchange
@pytest.mark.parametrize("source", ["tensorflow", "jax"])
def test_torch_takes_immutable_memory_by_its_route_warned_and_known_read_only(
        alias_unwarned, source):
    a, arange = _immutable_arrays(source)
    ut.asarray(a).numpy()  # the source's adapter loaded, as a Tensor's would be
    route = TORCH.ROUTES[source]
    t = route(a)
    assert t is not None
    assert t.data_ptr() == _address(a)  # TF's own memory, no Buffer in between
    assert ut.asarray(t).readonly  # remembered as lent: read-only when it comes back
    x = ut.asarray(a)
    _core.set_alias_warned(False)
    with pytest.warns(ut.AliasWarning, match="read-only memory handed to torch"):
        v = x.torch()
    assert v is x.torch()  # cached, as a view is
    assert v.data_ptr() == _address(a)
    np.testing.assert_array_equal(v.numpy(), np.asarray(a))
    # an operand only read takes the general path: no warning, nothing cached
    y = ut.asarray(arange(3))
    _core.set_alias_warned(False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ut.add(ut.asarray(torch.ones(3)), y).numpy().tolist() == [1.0, 2.0, 3.0]
    assert y._aliases is None or "torch" not in y._aliases.views


@requires_exchange
@pytest.mark.parametrize("source", ["tensorflow", "jax"])
def test_the_alias_warning_as_an_error_is_raised_by_every_such_hand_over(
        alias_unwarned, source):
    """A fast path retries a route that raised on the general path, which takes
    the route again: the warning, raised as an error, must not be lost there."""
    a, _ = _immutable_arrays(source)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(2):
            with pytest.raises(ut.AliasWarning, match="read-only memory handed"):
                ut.asarray(a).torch()
    with pytest.warns(ut.AliasWarning):
        ut.asarray(a).torch()
    assert _core.alias_warned()


@pytest.mark.parametrize("source", ["tensorflow", "jax"])
def test_numpy_takes_immutable_memory_by_its_route_read_only(source):
    a, _ = _immutable_arrays(source)
    x = ut.asarray(a)  # (the source's adapter loaded)
    v = NUMPY.ROUTES[source](a)
    assert v is not None
    assert not v.flags.writeable
    assert v.ctypes.data == _address(a)  # the framework's own memory
    np.testing.assert_array_equal(v, np.asarray(a))
    assert x.numpy().ctypes.data == _address(a)
    with pytest.raises(ValueError, match="read-only"):
        x.numpy()[0, 0] = 1.0


def test_tensorflow_takes_jax_memory_by_its_route_or_leaves_it_to_the_general_path():
    tf = pytest.importorskip("tensorflow")
    jax = pytest.importorskip("jax")
    route = _backends.get("tensorflow").ROUTES["jax"]
    a = jax.numpy.arange(12.0, dtype=jax.numpy.float32).reshape(3, 4)
    ut.asarray(a).numpy()  # jax loaded
    t = route(a)
    assert isinstance(t, tf.Tensor)
    np.testing.assert_array_equal(t.numpy(), np.asarray(a))
    assert ut.asarray(t).numpy().ctypes.data == _address(a)  # jax's own memory
    seen = []

    def f(y):
        seen.append(route(y))
        return y
    jax.jit(f)(a)
    assert seen == [None]  # a tracer has no memory: the general path says so


def test_numpy_takes_warp_memory_by_its_route_writable():
    wp = pytest.importorskip("warp", reason="warp-lang is not installed")
    w = wp.array(np.arange(6.0, dtype=np.float32), dtype=wp.float32, device="cpu")
    x = ut.asarray(w)  # (warp loaded)
    v = NUMPY.ROUTES["warp"](w)
    assert v.ctypes.data == w.ptr  # Warp's own memory, writable as Warp's is
    v[1] = 7.0
    assert w.numpy()[1] == 7.0
    assert x.numpy().ctypes.data == w.ptr
    vectors = wp.zeros(2, dtype=wp.vec3, device="cpu")
    assert NUMPY.ROUTES["warp"](vectors) is None  # refused: the general path says why


def test_numpy_route_leaves_traced_jax_arrays_to_the_general_path():
    jax = pytest.importorskip("jax")
    ut.asarray(jax.numpy.ones(2)).numpy()  # jax loaded
    seen = []

    def f(y):
        seen.append(NUMPY.ROUTES["jax"](y))
        return y
    jax.jit(f)(jax.numpy.ones(3))
    assert seen == [None]


@requires_exchange
def test_exchange_host_capsule_is_tensorflow_s_route_from_torch_in_one_c_call():
    """torch's memory as a legacy capsule for TF's C++ import, made in C: the
    capsule's Export holds the Buffer until the capsule (or its consumer) goes."""
    gc.collect()
    alive = _core.stats()["buffers_alive"]
    t = torch.arange(64.0)
    capsule = _core.exchange_host_capsule(("is_neg",), ("is_conj",), 64, t)
    assert type(capsule).__name__ == "PyCapsule"
    assert _core.stats()["buffers_alive"] == alive + 1
    imported = _core.from_capsule(capsule)  # (the Buffer is then the import's)
    assert imported.data_ptr == t.data_ptr()
    assert imported.shape == (64,)
    del capsule, imported
    gc.collect()
    assert _core.stats()["buffers_alive"] == alive
    take = _core.exchange_host_capsule
    assert take(("is_neg",), ("is_conj",), 64, t[1:]) is None  # 64-byte alignment
    assert take(("is_neg",), ("is_conj",), 64, t.reshape(8, 8).T) is None
    assert take(("is_neg",), ("is_conj",), 64, t._neg_view()) is None
    assert take(("is_neg",), ("is_conj",), 64, np.zeros(2)) is None  # no exchange
    with pytest.raises(TypeError, match="exchange_host_capsule"):
        take(("is_neg",), ("is_conj",), 0, t)


def test_tensorflow_takes_torch_memory_by_its_route_or_leaves_it_to_the_general_path():
    pytest.importorskip("tensorflow")
    route = _backends.get("tensorflow").ROUTES["torch"]
    t = torch.arange(64.0)  # torch's allocations: 64-byte aligned
    view = route(t)
    assert view is not None
    assert _address(view) == t.data_ptr()
    np.testing.assert_array_equal(view.numpy(), t.numpy())
    assert route(t.reshape(8, 8)[:, 1:]) is None  # not row-major compact
    assert route(t[1:5]) is None  # not 64-byte aligned
    assert route(t._neg_view()) is None  # the exchange would lose the sign
    assert route(torch.tensor([1 + 2j]).conj()) is None  # ... or the conjugation
    assert route(torch.empty(3, device="meta")) is None  # torch cannot export it
    assert ut.asarray(t).tf() is not None


@requires_exchange
def test_exchange_lend_hands_an_immutable_export_to_torch_recorded():
    gc.collect()
    a = np.arange(6.0)
    a.flags.writeable = False
    table = _core.LentTable()

    def export(x):
        return _core.immutable_from_capsule(x.__dlpack__(max_version=(1, 0)))
    t = _core.exchange_lend(export, torch.Tensor, table, _quiet, a)
    assert t.data_ptr() == a.ctypes.data  # the same memory, not a copy
    assert table.counts() == {a.ctypes.data: 1}
    del t
    gc.collect()
    assert table.counts() == {}


@requires_exchange
def test_exchange_lend_leaves_what_it_cannot_lend_to_the_general_path():
    alive = _core.stats()["exported_alive"]

    def refused(x):
        raise ValueError("a tracer has no memory")
    table = _core.LentTable()
    assert _core.exchange_lend(refused, torch.Tensor, table, _quiet,
                               np.zeros(3)) is None

    def interrupted(x):
        raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):  # not an Exception: it goes on up
        _core.exchange_lend(interrupted, torch.Tensor, table, _quiet, np.zeros(3))
    # writable memory is not an immutable framework's: not lent
    writable = np.zeros(3)
    assert _core.exchange_lend(NUMPY.export, torch.Tensor, table, _quiet,
                               writable) is None
    backwards = np.arange(4.0)[::-1]
    backwards.flags.writeable = False
    assert _core.exchange_lend(NUMPY.export, torch.Tensor, table, _quiet,
                                backwards) is None
    assert table.counts() == {}
    gc.collect()
    assert _core.stats()["exported_alive"] == alive
    with pytest.raises(TypeError, match="export: expected a function returning a "
                       "Buffer"):
        _core.exchange_lend(lambda x: x, torch.Tensor, table, _quiet, np.zeros(3))
    for lent in ([], {}):
        with pytest.raises(TypeError, match=r"args: expected \(export, array_type, "
                           r"lent, warn, obj\)"):
            _core.exchange_lend(NUMPY.export, torch.Tensor, lent, _quiet, np.zeros(3))
    with pytest.raises(TypeError, match=r"args: expected \(export, array_type, "
                       r"lent, warn, obj\)"):
        _core.exchange_lend(NUMPY.export, torch.Tensor, table, np.zeros(3))


@requires_exchange
def test_exchange_lend_warns_until_the_warning_was_given(alias_unwarned):
    """The hand-over calls warn() while the process has not given the alias
    warning; a warn() that raises (a filter making it an error) drops the array
    it would have handed out, and nothing of it stays lent."""
    a = np.arange(6.0)
    a.flags.writeable = False
    table = _core.LentTable()
    calls = []

    def export(x):
        return _core.immutable_from_capsule(x.__dlpack__(max_version=(1, 0)))

    def refuse():
        calls.append("refused")
        raise ut.AliasWarning("as an error")
    alive = _core.stats()["exported_alive"]
    with pytest.raises(ut.AliasWarning, match="as an error"):
        _core.exchange_lend(export, torch.Tensor, table, refuse, a)
    gc.collect()
    assert table.counts() == {}
    assert _core.stats()["exported_alive"] == alive
    t = _core.exchange_lend(export, torch.Tensor, table,
                            lambda: calls.append("warned"), a)
    assert t.data_ptr() == a.ctypes.data
    assert calls == ["refused", "warned"]  # not given yet: warn() is called each time
    _core.set_alias_warned(True)
    u = _core.exchange_lend(export, torch.Tensor, table, refuse, a)
    assert u.data_ptr() == a.ctypes.data
    assert calls == ["refused", "warned"]
    assert table.counts() == {a.ctypes.data: 2}


def test_immutable_from_capsule_marks_the_buffer_read_only():
    buf = _core.immutable_from_capsule(np.arange(3.0).__dlpack__())
    assert buf.readonly
    with pytest.raises(TypeError, match="capsule: expected a PyCapsule"):
        _core.immutable_from_capsule(3)


def test_immutable_export_is_the_read_only_buffer_of_the_capsule_made():
    a = np.arange(3.0)
    buf = _core.immutable_export(lambda x: x.__dlpack__(), a)
    assert buf.readonly
    assert buf.data_ptr == a.ctypes.data

    def refused(x):
        raise ValueError("no capsule")
    with pytest.raises(ValueError, match="no capsule"):  # the maker's own error
        _core.immutable_export(refused, a)
    with pytest.raises(TypeError, match="capsule: expected a PyCapsule"):
        _core.immutable_export(lambda x: 3, a)
    with pytest.raises(TypeError, match=r"args: expected \(capsule_of, obj\)"):
        _core.immutable_export(None, a)


def test_ndarray_lend_views_what_the_export_gives_and_leaves_refusals_to_python():
    tf = pytest.importorskip("tensorflow")
    x = tf.constant([1.0, 2.0, 3.0])
    view = _core.ndarray_lend(_backends.get("tensorflow").export, x)
    assert type(view) is np.ndarray
    assert not view.flags.writeable  # TF's memory: read-only
    assert view.ctypes.data == _backends.get("tensorflow").export(x).data_ptr
    np.testing.assert_array_equal(view, [1.0, 2.0, 3.0])

    def refused(x):
        raise ValueError("a symbolic tensor has no memory")
    assert _core.ndarray_lend(refused, x) is None

    def interrupted(x):
        raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):  # not an Exception: it goes on up
        _core.ndarray_lend(interrupted, x)
    bf16 = _dlpack.immutable_buffer(
        torch.zeros(2, dtype=torch.bfloat16).__dlpack__())  # no numpy dtype
    assert _core.ndarray_lend(lambda x: bf16, x) is None
    with pytest.raises(TypeError, match=r"buffer: expected a unitensor\._core\.Buffer"):
        _core.ndarray_lend(lambda x: x, x)
    with pytest.raises(TypeError, match=r"args: expected \(export, obj\)"):
        _core.ndarray_lend(None, x)


def test_the_routes_from_immutable_frameworks_to_numpy_are_one_c_call():
    tf = pytest.importorskip("tensorflow")
    from unitensor._backends.numpy import interop as numpy_interop
    t = ut.asarray(tf.constant([1.0, 2.0]))
    view = t.numpy()
    np.testing.assert_array_equal(view, [1.0, 2.0])
    assert not view.flags.writeable
    route = numpy_interop.ROUTES["tensorflow"]  # (put there by its first call)
    assert route.func is _core.ndarray_lend
    assert route.args == (_backends.get("tensorflow").export,)
    assert _backends.get("tensorflow").export.func is _core.immutable_export


def test_bound_calls_a_core_function_with_its_leading_arguments_in_one_step():
    """_core.bound: what functools.partial does for the routes, without a Python
    frame or partial's layer: the arguments in order, the function's own
    errors, attributes settable (a route's lends_read_only), freed with what it
    holds, also in a cycle."""
    a = np.arange(4.0)
    route = _core.bound(_core.exchange_from_ndarray, torch.Tensor)
    assert route.func is _core.exchange_from_ndarray
    assert route.args == (torch.Tensor,)
    assert "exchange_from_ndarray with 1 arguments" in repr(route)
    t = route(a)
    assert t.data_ptr() == a.ctypes.data
    assert t.tolist() == a.tolist()
    with pytest.raises(TypeError, match=r"expected \(an array type, an array\)"):
        route(a, a)  # the function's own refusal of its arguments
    with pytest.raises(TypeError, match="no keyword arguments"):
        route(array=a)
    with pytest.raises(TypeError, match="got 13 arguments"):
        route(*range(12))  # more than the call's stack holds: still passed on
    route.lends_read_only = True
    assert route.lends_read_only is True

    class Marker:
        pass
    marker, holder = Marker(), []
    cyclic = _core.bound(_core.exchange_from_ndarray, marker, holder)
    holder.append(cyclic)
    ref = weakref.ref(marker)
    del marker, holder, cyclic
    gc.collect()
    assert ref() is None  # the cycle through it was collected


@pytest.mark.parametrize("func", [len, print, _core.from_capsule, "exchange_lend"])
def test_bound_refuses_what_is_not_a_positional_core_function(func):
    with pytest.raises(TypeError, match=r"bound\(\): func: expected a function of "
                                        r"unitensor._core"):
        _core.bound(func)


def test_bound_takes_at_most_four_arguments():
    assert _core.bound(_core.exchange_lend, 1, 2, 3, 4).args == (1, 2, 3, 4)
    with pytest.raises(TypeError, match="at most 4 arguments"):
        _core.bound(_core.exchange_lend, 1, 2, 3, 4, 5)


@requires_exchange
def test_exports_of_any_rank_are_kept_and_reused_each_over_its_own_memory():
    """Exports of up to INLINE_NDIM (6) dimensions are made at one size and kept
    when freed for the next; a larger one is freed as made. Interleaved, each
    torch tensor sees its own array's memory, shape and strides, and every
    export is freed once."""
    alive = _core.stats()["exported_alive"]
    arrays = [(np.arange(2.0 ** n) * (n + 1)).reshape((2,) * n).T for n in range(10)]
    for _ in range(3):
        tensors = [_core.exchange_from_ndarray(torch.Tensor, x) for x in arrays]
        for x, t in zip(arrays, tensors, strict=True):
            assert t.data_ptr() == x.ctypes.data
            assert t.shape == x.shape
            assert t.tolist() == x.tolist()
        assert _core.stats()["exported_alive"] == alive + len(arrays)
        del tensors, t
        assert _core.stats()["exported_alive"] == alive
