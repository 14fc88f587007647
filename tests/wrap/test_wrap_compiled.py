"""ut.wrap keeps what it compiles or learns per input signature (#34): the
forward and pullback of a ``jax.jit`` body a torch caller differentiates, compiled
once and reused; and the output shapes of a torch body under ``jax.jit``, found by
one run on real memory (zeros), never on meta or fake tensors.

Gradients are checked against the same function natively and against finite
differences (torch.autograd.gradcheck).
"""

from __future__ import annotations

import numpy as np
import pytest

import unitensor as ut
from unitensor._wrap._bridge import BRIDGES

torch = pytest.importorskip("torch")
jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


def _bridge_of(func):
    """The Bridge wrap() made for ``func`` (a torch caller's: BRIDGES)."""
    (bridge,) = [b for b in BRIDGES.values() if b.func is func]
    return bridge


def _kept(bridge, kind):
    return [key for key in bridge.compiled if key[0] == kind]


# -- a jax.jit body's pullback, compiled once per input signature ---------------------
def test_a_jitted_jax_body_is_differentiated_by_one_compiled_pullback(x64):
    @jax.jit
    def body(x, y):
        return jnp.sin(x) * y + x ** 2, jnp.tanh(y)

    def native(x, y):
        return torch.sin(x) * y + x ** 2, torch.tanh(y)

    f = ut.wrap("torch", "jax")(body)
    bridge = _bridge_of(body)
    gen = torch.Generator().manual_seed(0)
    x = torch.rand(3, dtype=torch.float64, generator=gen, requires_grad=True)
    y = torch.rand(3, dtype=torch.float64, generator=gen, requires_grad=True)
    for scale in (1.0, 2.0, -0.5):  # new values, the same signature
        got = torch.autograd.grad([(o * scale).sum() for o in f(x, y)], (x, y))
        want = torch.autograd.grad([(o * scale).sum() for o in native(x, y)], (x, y))
        for g, w in zip(got, want, strict=True):
            torch.testing.assert_close(g, w)
    (key,) = _kept(bridge, "pullback")
    kept = bridge.compiled[key]
    # each traced once: later calls reuse the compiled functions
    assert kept.forward._cache_size() == 1
    assert kept.backward._cache_size() == 1
    assert torch.autograd.gradcheck(f, (x, y))
    # another signature (shape; which inputs are differentiated): its own entry
    torch.autograd.grad(f(x[:2], y[:2])[0].sum(), x)
    torch.autograd.grad(f(x, y.detach())[0].sum(), x)
    assert len(_kept(bridge, "pullback")) == 3


def test_the_compiled_pullback_keys_on_constants_with_their_types():
    @jax.jit
    def body(x, s, n=None):
        return jnp.sin(x) * s, (x * 2).astype(jnp.int32)

    f = ut.wrap("torch", "jax")(body)
    x = torch.linspace(0.0, 1.0, 5, requires_grad=True)
    for s in (2, 2.0, True, -0.0, 0.0, 2.0):
        y, n = f(x, s, n=None)
        assert y.dtype == torch.float32
        assert n.dtype == torch.int32
        (grad,) = torch.autograd.grad(y.sum(), x)
        torch.testing.assert_close(grad, torch.cos(x.detach()) * float(s))
    # 2, 2.0 and True are equal as keys of a dict, -0.0 and 0.0 too: each has
    # its own compiled pullback (2.0 twice: once)
    assert len(_kept(_bridge_of(body), "pullback")) == 5


def test_an_unhashable_argument_or_a_body_not_jitted_is_not_compiled():
    @jax.jit
    def jitted(x, a):
        return x * jnp.asarray(a)

    f = ut.wrap("torch", "jax")(jitted)
    x = torch.ones(3, requires_grad=True)
    (grad,) = torch.autograd.grad(f(x, np.full(3, 3.0, np.float32)).sum(), x)
    torch.testing.assert_close(grad, torch.full((3,), 3.0))
    assert not _kept(_bridge_of(jitted), "pullback")  # (a numpy array: traced)
    runs = []

    def plain(x):
        runs.append(1)  # a side effect each call: the body is not compiled
        return jnp.sin(x)

    g = ut.wrap("torch", "jax")(plain)
    for _ in range(2):
        (grad,) = torch.autograd.grad(g(x).sum(), x)
        torch.testing.assert_close(grad, torch.cos(x.detach()))
    assert len(runs) == 2
    assert not _kept(_bridge_of(plain), "pullback")


def test_the_compiled_pullback_keeps_complex_cotangents_in_torchs_convention():
    def body(z):
        return jnp.sin(z) * jnp.conj(z)

    f = ut.wrap("torch", "jax")(jax.jit(body))
    g = ut.wrap("torch", "jax")(body)  # jax.vjp per call: the reference
    z = torch.tensor([0.5 + 1j, -1 + 0.25j], dtype=torch.complex64, requires_grad=True)
    (got,) = torch.autograd.grad(f(z).abs().sum(), z)
    (want,) = torch.autograd.grad(g(z).abs().sum(), z)
    (native,) = torch.autograd.grad((torch.sin(z) * torch.conj(z)).abs().sum(), z)
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(got, native)


# -- output shapes: one run on zeros, never meta or fake memory ---------------------
def _hands_memory_to_numpy(x):
    # another framework reads the tensor's memory (as a Warp kernel or ctypes
    # would): a meta tensor has none (null pointer), a fake one refuses
    assert x.data_ptr() != 0
    a = np.asarray(x.detach())  # (refused for meta and fake tensors)
    return torch.from_numpy(a * 2 + 1)


def test_under_jax_jit_a_torch_body_never_gets_meta_or_fake_tensors():
    seen = []

    def body(x):
        seen.append((x.device.type, type(x).__name__))
        return _hands_memory_to_numpy(x)

    f = jax.jit(ut.wrap("jax", "torch")(body))
    x = jnp.arange(4.0)
    np.testing.assert_array_equal(f(x), [1.0, 3.0, 5.0, 7.0])
    np.testing.assert_array_equal(f(x + 1), [3.0, 5.0, 7.0, 9.0])
    # the shape pass (zeros, real memory) once, then one run per call
    assert seen == [("cpu", "Tensor")] * 3


def test_the_shape_pass_runs_once_per_input_signature():
    runs = []

    def body(x, k):
        runs.append(x.device.type)  # (a meta pass: "meta")
        return x * k

    bridged = ut.wrap("jax", "torch")(body)
    x = jnp.arange(3.0)
    np.testing.assert_array_equal(jax.jit(bridged, static_argnums=1)(x, 2), x * 2)
    assert runs == ["cpu", "cpu"]  # the pass on zeros, then the call
    for fn in (jax.jit(bridged, static_argnums=1),  # another trace: no pass
               jax.jit(jax.grad(lambda v, k: bridged(v, k).sum()), static_argnums=1)):
        runs.clear()
        fn(x, 2)
        assert runs == ["cpu"]
    runs.clear()
    np.testing.assert_array_equal(jax.jit(bridged, static_argnums=1)(x, 3), x * 3)
    assert runs == ["cpu", "cpu"]  # a new constant: a new signature, a pass


def test_a_body_reading_values_runs_under_jax_jit_without_and_with_output_shapes():
    runs = []

    def body(x):
        runs.append(float(x.sum().item()))
        return x * x.sum().item(), torch.tensor(int(x[0].item()) + 1,
                                                dtype=torch.int32)

    x = jnp.arange(1.0, 4.0)
    y, n = jax.jit(ut.wrap("jax", "torch")(body))(x)
    np.testing.assert_array_equal(y, [6.0, 12.0, 18.0])
    assert int(n) == 2
    assert runs == [0.0, 6.0]  # the pass read zeros, the call the values
    given = (jax.ShapeDtypeStruct((3,), jnp.float32),
             jax.ShapeDtypeStruct((), jnp.int32))
    f = ut.wrap("jax", "torch", output_shapes=given)(body)
    runs.clear()
    y, n = jax.jit(f)(x)
    np.testing.assert_array_equal(y, [6.0, 12.0, 18.0])
    assert runs == [6.0]  # no pass at all
    # the derivative against finite differences (.item(): a constant of
    # torch's autograd, so d/dx of x * c is c)
    grad = jax.jit(jax.grad(lambda v: f(v)[0].sum()))(x)
    eps = 1e-2
    fd = [(float(jnp.sum(x.at[i].add(eps) * 6.0)) - float(jnp.sum(x * 6.0))) / eps
          for i in range(3)]
    np.testing.assert_allclose(grad, fd, rtol=1e-3)
