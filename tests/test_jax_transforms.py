"""unitensor code inside jax.jit, grad and vmap (#14 item 8): on tracers,
Tensors owned by jax whose functions trace as jax code; what needs memory is a
clear TypeError. Values are checked against the same code in jax.numpy.
"""

from __future__ import annotations

import numpy as np
import pytest
from frameworks import aligned_empty

import unitensor as ut

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


def through_unitensor(a):
    t = ut.asarray(a)
    return ut.sum(ut.sin(t) * 2 + ut.where(t > 1, t, ut.zeros_like(t))).jax()


def natively(a):
    return jnp.sum(jnp.sin(a) * 2 + jnp.where(a > 1, a, jnp.zeros_like(a)))


@pytest.mark.parametrize("transform", [
    jax.jit, jax.grad, jax.vmap, lambda f: jax.jit(jax.grad(f)),
    lambda f: jax.vmap(jax.grad(f)), jax.hessian], ids=[
    "jit", "grad", "vmap", "jit(grad)", "vmap(grad)", "hessian"])
def test_unitensor_code_traces_as_jax_code(transform):
    x = jnp.linspace(0.0, 2.0, 6, dtype=jnp.float32).reshape(2, 3)
    got = transform(through_unitensor)(x)
    np.testing.assert_allclose(got, transform(natively)(x), rtol=1e-6)


def test_a_traced_tensor_is_jax_s_on_the_default_device():
    seen = {}
    ones = aligned_empty((3,), np.float32)  # numpy's memory, which JAX aliases
    ones[:] = 1.0

    def f(a):
        t = ut.asarray(a)
        seen.update(owner=t.owner, device=str(t.device), dtype=t.dtype,
                    shape=t.shape)
        return (t[1:] * t.shape[0] + ut.asarray(ones)).jax()  # mixed owners

    out = jax.jit(f)(jnp.arange(4.0, dtype=jnp.float32))
    np.testing.assert_array_equal(out, [5.0, 9.0, 13.0])
    assert seen == {"owner": "jax", "device": "cpu", "dtype": ut.float32,
                    "shape": (4,)}


@pytest.mark.parametrize("read", [lambda t: t.numpy(), lambda t: t.torch(),
                                  lambda t: t.__dlpack__()],
                         ids=["numpy", "torch", "__dlpack__"])
def test_memory_of_a_tracer_is_refused_naming_the_transformation(read):
    pytest.importorskip("torch")
    with pytest.raises(TypeError, match=r"self: expected an array with memory "
                       r"\(inside tf\.function or a jax transformation.*got a jax "
                       r"tracer inside a jax transformation"):
        jax.jit(lambda a: read(ut.asarray(a)))(jnp.ones(2))


@pytest.mark.parametrize("setting", ["cpu", "a device"])
def test_a_traced_tensor_s_device_follows_jax_s_default_device_setting(setting):
    seen = []
    jax.config.update("jax_default_device",
                      setting if setting == "cpu" else jax.devices("cpu")[0])
    try:
        jax.jit(lambda a: seen.append(str(ut.asarray(a).device)) or a)(jnp.ones(2))
    finally:
        jax.config.update("jax_default_device", None)
    assert seen == ["cpu"]


def test_a_traced_operand_not_left_most_decides_the_owner():
    # a tracer carries jax's autodiff/trace state: it decides the owner over a
    # plain numpy array left of it (docs/namespace.md, the owner rule)
    ones = aligned_empty((4,), np.float32)
    ones[:] = 1.0
    np.testing.assert_array_equal(
        jax.jit(lambda a: (ut.asarray(ones) + ut.asarray(a)).jax())(jnp.ones(4)),
        [2.0] * 4)

    def in_jax(a):
        with ut.owner("jax"):
            return (ut.asarray(ones) + ut.asarray(a)).jax()
    np.testing.assert_array_equal(jax.jit(in_jax)(jnp.ones(4)), [2.0] * 4)
    np.testing.assert_array_equal(
        jax.jit(lambda a: (ut.asarray(a) + ut.asarray(ones)).jax())(jnp.ones(4)),
        [2.0] * 4)
