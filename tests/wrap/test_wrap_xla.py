"""Under ``jax.jit`` on the CPU a bridged call runs in unitensor's own XLA FFI
handler (ext/_xla.c, its ABI declared in ext/xla_ffi.h): these tests check that
route is taken, that the ABI as declared matches the installed jaxlib (values of
every dtype and layout the handler maps, through jax itself, nothing compiled),
that a body's exception surfaces with its type's code, and that the guards of
the caller's immutable inputs hold. The fallbacks (JAX's buffer_callback, then
pure_callback) are chosen in one place, ``jit_route``.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

import unitensor as ut

torch = pytest.importorskip("torch")
jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
_xla = pytest.importorskip("unitensor._xla", reason="the C extension is not built")
autodiff = pytest.importorskip("unitensor._wrap.jax")
torch_part = pytest.importorskip("unitensor._wrap.torch")


def _doubled(x):
    return x * 2


def _looking(monkeypatch, look):
    """Every runner lowered from now on calls ``look(buffers, outs)`` (the
    handler's Lents) before it runs the body."""
    original = autodiff._in_place

    def spy(fn, **how):
        run = original(fn, **how)

        def run_looking(buffers, outs):
            look(buffers, outs)
            return run(buffers, outs)
        return run_looking
    monkeypatch.setattr(autodiff, "_in_place", spy)


def test_jax_jit_of_a_torch_body_runs_in_unitensors_ffi_handler():
    f = jax.jit(ut.wrap("jax", "torch")(_doubled))
    x = jnp.arange(5.0)
    assert "custom_call @unitensor_wrap_cpu" in f.lower(x).as_text()
    before = _xla.calls()
    np.testing.assert_array_equal(f(x), [0.0, 2.0, 4.0, 6.0, 8.0])
    np.testing.assert_array_equal(f(x + 1), [2.0, 4.0, 6.0, 8.0, 10.0])
    assert _xla.calls() == before + 2  # one handler call a jitted call
    assert autodiff.jit_route("cpu") == "ffi"


def test_a_jitted_call_writes_compact_outputs_in_c_and_guards_from_one_look(
        monkeypatch):
    # per call, the lean path: a compact output is one memcpy (Lent.fill), not
    # a DLPack import and copy_; which inputs are immutable is found once per
    # traced call (its shape pass), not on every execution
    looks = []
    immutable = ut._wrap._bridge.Call.immutable

    def counted(self, arrays):
        looks.append(len(arrays))
        return immutable(self, arrays)

    monkeypatch.setattr(ut._wrap._bridge.Call, "immutable", counted)
    f = jax.jit(ut.wrap("jax", "torch")(lambda a, b: (a * b, (a + b).t())))
    a, b = jnp.arange(6.0).reshape(2, 3), jnp.ones((2, 3))
    fills = _xla.fills()
    for k in range(3):
        prod, tsum = f(a + k, b)
        np.testing.assert_array_equal(prod, (a + k) * b)
        np.testing.assert_array_equal(tsum, (a + k + b).T)  # not compact: copy_
    assert _xla.fills() == fills + 3  # the compact product, once a call
    assert looks == [2]
    # a large output: torch's copy_, which splits it among torch's threads (one
    # memcpy was 1.2x torch2jax at 10^7 elements)
    big = jnp.arange(40000.0)
    fills = _xla.fills()
    np.testing.assert_array_equal(jax.jit(ut.wrap("jax", "torch")(
        lambda v: v * 2))(big), 2 * np.arange(40000.0))
    assert _xla.fills() == fills

    def writes(x):  # the guard still refuses a write into XLA's input
        x.add_(1)
        return x * 1

    spec = jax.ShapeDtypeStruct((2, 3), jnp.float32)  # (no shape pass: it runs)
    with pytest.raises(jax.errors.JaxRuntimeError, match="does not write"):
        jax.jit(ut.wrap("jax", "torch", output_shapes=spec)(writes))(a)
    np.testing.assert_array_equal(a, jnp.arange(6.0).reshape(2, 3))


# (a jit compile each: the whole sweep in the slow tier, two in the fast one)
@pytest.mark.parametrize(("dtype", "shape"), [
    ("float32", (2, 3)), ("bfloat16", (3, 1))] + [
    pytest.param(dtype, shape, marks=pytest.mark.slow) for dtype, shape in [
        ("float64", ()), ("float16", (4,)), ("complex64", (2,)),
        ("complex128", (1, 2, 2)), ("int8", (5,)), ("int16", (2,)), ("int32", (0, 3)),
        ("int64", (3,)), ("uint8", (4,)), ("uint16", (2,)), ("uint32", (1,)),
        ("uint64", (2,)), ("bool", (2, 2))]])
def test_the_declared_abi_reads_every_dtype_and_shape_jaxlib_lends(dtype, shape, x64):
    # ext/xla_ffi.h against the installed jaxlib: the buffers' element types,
    # ranks, dims and data, in and out (a wrong offset reads garbage or crashes)
    n = int(np.prod(shape))
    x = jnp.asarray((np.arange(n) % 2 if dtype == "bool" else np.arange(n))
                    .reshape(shape).astype(np.dtype("bool") if dtype == "bool"
                                           else jnp.dtype(dtype)))
    seen = []

    def body(v):
        seen.append((tuple(v.shape), v.dtype))
        return v.clone(), v.flatten()

    same, flat = jax.jit(ut.wrap("jax", "torch")(body))(x)
    assert seen[-1][0] == shape
    assert same.dtype == x.dtype
    assert same.shape == shape
    want = np.asarray(x).astype(np.complex128)  # (every dtype compares so)
    np.testing.assert_array_equal(np.asarray(same).astype(np.complex128), want)
    np.testing.assert_array_equal(np.asarray(flat).astype(np.complex128),
                                  want.ravel())


@pytest.mark.slow  # two compiles (~1 s); the fast tier's jit(grad) tests run here too
def test_gradients_and_vmap_under_jit_run_in_the_handler():
    f = ut.wrap("jax", "torch")(lambda v: torch.sin(v) * v)
    x = jnp.linspace(-1.0, 1.0, 6)
    before = _xla.calls()
    grad = jax.jit(jax.grad(lambda v: f(v).sum()))(x)
    np.testing.assert_allclose(grad, np.cos(x) * x + np.sin(x), rtol=1e-6)
    batched = jax.jit(jax.vmap(f))(x.reshape(2, 3))
    np.testing.assert_allclose(batched, (np.sin(x) * x).reshape(2, 3), rtol=1e-6)
    # the pullback (grad drops the unused forward); the batched call
    assert _xla.calls() == before + 2


@pytest.mark.parametrize(("error", "code"), [
    (ValueError, "INVALID_ARGUMENT"), (NotImplementedError, "UNIMPLEMENTED")] + [
    pytest.param(error, code, marks=pytest.mark.slow) for error, code in [
        (TypeError, "INVALID_ARGUMENT"), (IndexError, "OUT_OF_RANGE"),
        (KeyError, "UNKNOWN")]])
def test_an_exception_in_the_body_under_jit_surfaces_with_its_type(error, code):
    # JAX raises an XLA error of a jitted call as its JaxRuntimeError: the
    # status code follows the body's exception type, the text is the exception
    calls = []

    def body(v):
        calls.append(1)
        if len(calls) > 1:  # (the first: the shape pass, on zeros)
            raise error("the body's own message")
        return v * 2

    f = jax.jit(ut.wrap("jax", "torch")(body))
    with pytest.raises(jax.errors.JaxRuntimeError, match=(
            rf"^{code}: (.|\n)*{error.__name__}: .?the body's own message")):
        f(jnp.ones(3)).block_until_ready()


def test_a_body_keeping_its_input_is_refused_and_its_buffer_expires(monkeypatch):
    kept = {}
    # the Lents the handler passes, kept past the call
    _looking(monkeypatch, lambda buffers, outs: kept.update(buffers=buffers))

    def body(v):
        kept["view"] = v
        return v * 2

    f = ut.wrap("jax", "torch")(body)
    with pytest.raises(jax.errors.JaxRuntimeError, match=r"INVALID_ARGUMENT: "
                       r"(.|\n)*ValueError: wrap\(\): func: expected a body that "
                       r"keeps none of its inputs"):
        jax.jit(lambda v: f(v + 1.0))(jnp.ones(4)).block_until_ready()
    buffer = kept["buffers"][0]
    assert buffer.expired
    assert not buffer.writeable
    assert buffer.shape == (4,)
    with pytest.raises(BufferError, match="whose call has returned"):
        buffer.__dlpack__()
    with pytest.raises(BufferError, match=r"Lent.address: the call has returned"):
        buffer.address  # noqa: B018 - a getter that refuses
    with pytest.raises(BufferError, match=r"Lent.zero\(\): the call has returned"):
        buffer.zero()


_KEPT = {}


@pytest.mark.parametrize(("keep", "kept"), [
    (lambda v: v[1:], True),  # a view: its memory, not the tensor, is held
    (lambda v: v.numpy(), True),  # numpy's view
    (lambda v: v.exp(), False),  # a fresh tensor, whose autograd keeps nothing
], ids=["a view", "numpy's view", "a fresh result"])
def test_any_holder_of_an_input_is_found_by_its_export(keep, kept):
    # the handler counts holders of each argument (its exports alive), not of
    # the tensor the body got: a view or numpy's alias of it counts too
    def body(v):
        _KEPT["held"] = keep(v)
        return v * 2

    f = jax.jit(ut.wrap("jax", "torch")(body))
    try:
        if not kept:
            np.testing.assert_array_equal(f(jnp.ones(3)), [2.0] * 3)
            return
        with pytest.raises(jax.errors.JaxRuntimeError,
                           match="a body that kept input 0"):
            f(jnp.ones(3)).block_until_ready()
    finally:
        _KEPT.clear()


@pytest.mark.parametrize("make", [
    lambda v: torch.complex(v, v).conj(),  # conjugate bit: torch will not export
    lambda v: torch.complex(v, v).conj().imag,  # negative bit
    lambda v: torch.nn.Parameter(v * 2),  # a subclass
    lambda v: (v * 2).requires_grad_(),
    lambda v: (v * 2).to(torch.bfloat16),
    lambda v: v > 1,
    lambda v: v.sum(),
    lambda v: v[:0],
    lambda v: torch.stack([v, v]).t(),  # not compact
    lambda v: torch.stack([v, v])[:, :1].squeeze(1),  # a view with an offset
], ids=["conj", "neg", "Parameter", "requires_grad", "bfloat16", "bool", "0-d",
        "empty", "transposed", "offset view"])
def test_every_output_is_written_with_its_value_in_c_or_not(make):
    # the handler fills compact outputs in C (torch's exchange API reads them)
    # and leaves the others to torch's copy_: the values are the body's either way
    x = np.arange(1.0, 4.0, dtype=np.float32)
    expected = make(torch.from_numpy(x.copy())).detach().resolve_conj().resolve_neg()
    f = jax.jit(ut.wrap("jax", "torch")(make))
    y = f(jnp.asarray(x))
    assert y.shape == tuple(expected.shape)
    np.testing.assert_array_equal(np.asarray(y.astype(jnp.float32)) if y.dtype ==
                                  jnp.bfloat16 else y,
                                  expected.float().numpy() if expected.dtype ==
                                  torch.bfloat16 else expected.numpy())


def test_the_handlers_c_helpers_refuse_wrong_arguments(monkeypatch):
    seen = {}

    def look(buffers, outs):
        with pytest.raises(TypeError, match=r"lend\(\): type: expected an array "
                           r"type declaring a DLPack 1.x C exchange API"):
            _xla.lend(buffers, int)
        with pytest.raises(TypeError, match=r"lend\(\): lents: expected a tuple "
                           r"of Lents, got 1"):
            _xla.lend((1,), torch.Tensor)
        with pytest.raises(TypeError, match=r"fill\(\): expected \(outs"):
            _xla.fill(outs, (), torch.Tensor, 10)
        with pytest.raises(TypeError, match=r"held\(\): lents: expected a tuple "
                           r"of Lents, got 1"):
            _xla.held((1,))
        # a tensor of another shape, or a subclass: not filled, nothing written
        assert not _xla.fill(outs, [torch.ones(2)], torch.Tensor, 10)
        assert not _xla.fill(outs, [torch.nn.Parameter(torch.ones(4))],
                             torch.Tensor, 10)
        assert not _xla.fill(outs, [torch.ones(4)], torch.Tensor, 4)  # (most)
        seen["lent"] = _xla.lend(buffers, torch.Tensor)
        seen["held"] = _xla.held(buffers)
        del seen["lent"]
        seen["free"] = _xla.held(buffers)
        seen["buffers"] = buffers

    _looking(monkeypatch, look)
    f = ut.wrap("jax", "torch")(lambda v: v * 2)
    y = jax.jit(lambda v: f(v + 1.0))(jnp.ones(4, jnp.float32))
    np.testing.assert_array_equal(y, [4.0] * 4)
    assert seen["held"] == 0
    assert seen["free"] == -1
    with pytest.raises(BufferError, match=r"lend\(\): lents\[0\]: the call has "
                       r"returned"):
        _xla.lend(seen["buffers"], torch.Tensor)


def test_a_lent_argument_gives_its_address_and_refuses_to_be_zeroed(monkeypatch):
    seen = {}

    def look(buffers, outs):
        seen["address"] = buffers[0].address
        seen["view"] = np.from_dlpack(buffers[0]).__array_interface__["data"][0]
        with pytest.raises(BufferError, match=r"Lent.zero\(\): an argument is "
                           r"read-only"):
            buffers[0].zero()
        outs[0].zero()

    _looking(monkeypatch, look)
    f = ut.wrap("jax", "torch")(lambda v: v * 2)
    y = jax.jit(lambda v: f(v + 1.0))(jnp.ones(4))
    np.testing.assert_array_equal(y, [4.0] * 4)
    assert seen["address"] == seen["view"]


def _add_one(v):
    v.add_(1.0)


def _through_numpy(v):
    v.numpy()[0] = 7.0


def _through_storage(v):
    v.untyped_storage()[0] = 255


def _through_its_address(v):  # no torch function sees it
    ctypes.memset(v.data_ptr() + 4, 0, 4)  # v[1] = 0


def _then_raise(v):
    v.mul_(3.0)
    raise KeyError("the body's own error")


@pytest.mark.parametrize("write", [_add_one, _through_numpy, _through_storage,
                                   _through_its_address])
def test_a_torch_body_writing_into_a_small_input_under_jit_is_undone_and_refused(
        monkeypatch, write):
    # arguments of 16 KiB or less in all are watched, not guarded op by op: the
    # handler's runner copies their bytes, sets back what the body changed,
    # and refuses the call, however the body wrote (its address included,
    # which no torch function mode sees)
    guarded = []
    read_only = torch_part.read_only
    monkeypatch.setattr(torch_part, "read_only",
                        lambda *a: guarded.append(1) or read_only(*a))

    def body(u, v):
        write(v)
        return u * v

    spec = jax.ShapeDtypeStruct((4,), jnp.float32)
    f = jax.jit(ut.wrap("jax", "torch", output_shapes=spec)(body))
    u, v = jnp.ones(4), jnp.arange(4.0)
    with pytest.raises(jax.errors.JaxRuntimeError, match=(
            r"INVALID_ARGUMENT: (.|\n)*ValueError: wrap\(\): func: expected a body "
            r"that does not write into its inputs \(jax's arrays are immutable\), "
            r"got a body that wrote into input 1 in place \(found when it returned, "
            r"and undone")):
        f(u, v).block_until_ready()
    np.testing.assert_array_equal(v, [0.0, 1.0, 2.0, 3.0])
    np.testing.assert_array_equal(u, [1.0] * 4)
    assert guarded == []  # watched: no torch function mode ran
    g = jax.jit(ut.wrap("jax", "torch")(lambda a, b: a * b))
    np.testing.assert_array_equal(g(u, v), [0.0, 1.0, 2.0, 3.0])
    shape_pass = len(guarded)  # (the shape pass, on zeros, is guarded)
    np.testing.assert_array_equal(g(u, v + 1), [1.0, 2.0, 3.0, 4.0])
    assert len(guarded) == shape_pass


def test_snapshot_and_restore_refuse_what_they_cannot_watch(monkeypatch):
    seen = {}

    def look(buffers, outs):
        before = _xla.snapshot(buffers)
        seen["sizes"] = len(before)
        with pytest.raises(ValueError, match=r"restore\(\): snapshot: expected "
                           r"the 24 bytes snapshot\(\) took of these lents, got 8"):
            _xla.restore(buffers, before[:8])
        with pytest.raises(TypeError, match=r"snapshot\(\): lents: expected a "
                           r"tuple of Lents"):
            _xla.snapshot([*buffers])
        with pytest.raises(TypeError, match=r"snapshot\(\): lents: expected a "
                           r"tuple of Lents, got 1"):
            _xla.snapshot((*buffers, 1))
        seen["restored"] = _xla.restore(buffers, before)
        seen["buffers"] = buffers

    _looking(monkeypatch, look)
    f = ut.wrap("jax", "torch")(lambda u, v: u[:2] * v)
    y = jax.jit(lambda u: f(u, u[:2]))(jnp.ones(4, jnp.float32))
    np.testing.assert_array_equal(y, [1.0, 1.0])
    assert seen["sizes"] == 24
    assert seen["restored"] == -1
    with pytest.raises(BufferError, match=r"snapshot\(\): lents\[0\]: the call has "
                       r"returned"):
        _xla.snapshot(seen["buffers"])


def test_a_watched_body_raising_after_a_write_surfaces_its_own_error():
    x = jnp.arange(3.0)
    spec = jax.ShapeDtypeStruct((3,), jnp.float32)
    with pytest.raises(jax.errors.JaxRuntimeError, match="the body's own error"):
        jax.jit(ut.wrap("jax", "torch", output_shapes=spec)(_then_raise))(
            x).block_until_ready()
    np.testing.assert_array_equal(x, [0.0, 1.0, 2.0])


def test_a_torch_body_writing_into_a_large_input_under_jit_is_refused_before():
    # past 16 KiB the torch function mode guards: the write is refused before
    # it happens, naming the call that would have made it
    n = (autodiff._WATCHED_BYTES // 4) + 1

    def body(v):
        v.add_(1.0)
        return v * 2

    x = jnp.arange(float(n), dtype=jnp.float32)
    with pytest.raises(jax.errors.JaxRuntimeError, match=r"INVALID_ARGUMENT: "
                       r"(.|\n)*wrote into one in place \(add_\)"):
        jax.jit(ut.wrap("jax", "torch", output_shapes=jax.ShapeDtypeStruct(
            (n,), jnp.float32))(body))(x).block_until_ready()
    np.testing.assert_array_equal(x, np.arange(n, dtype=np.float32))


@pytest.mark.parametrize("route", ["buffer_callback", "pure_callback"])
def test_the_fallback_routes_still_run(monkeypatch, route):
    # where the handler is not built (or on another platform), JAX's callbacks
    if route == "buffer_callback" and autodiff.buffer_callback is None:
        pytest.skip("jax < 0.6.1 has no buffer_callback")
    monkeypatch.setattr(autodiff, "_xla_target", lambda: None)
    if route == "pure_callback":
        monkeypatch.setattr(autodiff, "buffer_callback", None)
    assert autodiff.jit_route("cpu") == route
    f = jax.jit(ut.wrap("jax", "torch")(_doubled))
    x = jnp.arange(3.0)
    assert "unitensor_wrap_cpu" not in f.lower(x).as_text()
    before = _xla.calls()
    np.testing.assert_array_equal(f(x), [0.0, 2.0, 4.0])
    assert _xla.calls() == before


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


@pytest.mark.slow  # many calls to see memory settle: ~2 s
def test_the_handlers_calls_leak_nothing_kept_or_refused():
    # every call makes Lents and Exports (C, malloc'd), views, a snapshot; a
    # refused call (a write undone, an input kept) takes the error paths
    import tracemalloc

    f = jax.jit(ut.wrap("jax", "torch")(lambda a, b: (a * b + 1, a.sum())))
    spec = jax.ShapeDtypeStruct((16,), jnp.float32)
    writes = jax.jit(ut.wrap("jax", "torch", output_shapes=spec)(_doubled_in_place))
    x, y = jnp.arange(16.0, dtype=jnp.float32), jnp.ones(16, jnp.float32)

    def calls(n):
        for _ in range(n):
            jax.block_until_ready(f(x, y))
        for _ in range(n // 100):
            with pytest.raises(jax.errors.JaxRuntimeError, match="undone"):
                writes(x).block_until_ready()

    calls(2000)
    tracemalloc.start()
    before = _rss_bytes()
    snapshot = tracemalloc.take_snapshot()
    calls(30_000)
    grown = sum(s.size_diff for s in tracemalloc.take_snapshot().compare_to(
        snapshot, "filename"))
    tracemalloc.stop()
    # (measured: 0.3 MiB and 45 KiB; a leaked Export a call would be 5 MiB)
    assert _rss_bytes() - before < 2 * 2**20
    assert grown < 256 * 1024
    np.testing.assert_array_equal(x, np.arange(16.0))


def _doubled_in_place(v):
    v.mul_(2.0)
    return v * 1
