"""ut.wrap: a function written in one framework, called and differentiated from
another (first slice of #14: torch->jax, jax->torch; CPU). Plain calls (numpy,
array_api_strict, cupy): tests/wrap/test_wrap_plain.py.

Gradients are checked against the same function written natively in the caller's
framework, and against finite differences (torch.autograd.gradcheck and
gradgradcheck, jax.test_util.check_grads).
"""

from __future__ import annotations

import gc
import inspect
import os
import threading
import time
import types
import warnings
import weakref

import numpy as np
import pytest
from frameworks import aligned_empty

import unitensor as ut

torch = pytest.importorskip("torch")
jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

# torch's forward-mode machinery imports modules that call the deprecated
# torch.jit.script (torch._decomp.decompositions_for_jvp): torch's own warning.
torch_jit_script_deprecated = pytest.mark.filterwarnings(
    "ignore:`torch.jit.script` is deprecated:DeprecationWarning")


def pow2_body(n, x):
    for k in range(3):
        x = jnp.where(k < n, x * x, x)
    return x


# -- the API ---------------------------------------------------------------------
def test_wrap_is_public_and_keeps_the_function_s_name():
    assert "wrap" in ut.__all__

    @ut.wrap("torch", "jax")
    def body(x):
        """Doc."""
        return x

    assert body.__name__ == "body"
    assert body.__doc__ == "Doc."
    assert body.__qualname__.endswith("body")
    assert body.__module__ == __name__
    assert str(inspect.signature(body)) == "(x)"


@pytest.mark.parametrize(("source", "target"), [
    ("torch", "torch"), ("jax", "jax"), ("tensorflow", "tensorflow"),
    ("numpy", "numpy"), ("dask", "numpy"), ("torch", "dask")])
def test_pairs_not_bridged_yet_are_refused_naming_the_supported_ones(source, target):
    with pytest.raises(NotImplementedError, match=r"^wrap\(\): source, target: "
                       r"expected a pair bridged so far: any two of torch, jax, "
                       r"tensorflow, warp and drjit "
                       r".*got source=.*target="):
        ut.wrap(source, target)


def test_bad_names_and_bodies_are_refused():
    with pytest.raises(TypeError, match=r"^wrap\(\): source: expected a framework's "
                       r"name \(a str\), got 1 of type 'int'"):
        ut.wrap(1, "jax")
    with pytest.raises(ValueError, match=r"^wrap\(\): target: expected one of"):
        ut.wrap("torch", "jaxx")
    with pytest.raises(TypeError, match=r"^wrap\(\): func: expected a callable"):
        ut.wrap("torch", "jax")(3)


# -- torch caller, jax body ------------------------------------------------------
def test_seed_pow2_gradient_float64(x64):
    pow2 = ut.wrap(source="torch", target="jax")(pow2_body)
    x = torch.tensor([4.0, 4, 4, 4], dtype=torch.float64, requires_grad=True)
    n = torch.tensor([0, 1, 2, 3])  # int64: JAX holds it with x64 only
    y = pow2(n, x)
    assert y.requires_grad
    torch.testing.assert_close(y.detach(), x.detach() ** (2.0 ** n))
    y.sum().backward()  # a stride-0 cotangent: no CopyWarning (warnings are errors)
    torch.testing.assert_close(x.grad, torch.tensor([1.0, 8, 256, 131072],
                                                    dtype=torch.float64))
    assert n.grad is None


def test_seed_pow2_gradient_float32_without_x64():
    pow2 = ut.wrap("torch", "jax")(pow2_body)
    x = torch.tensor([4.0, 4, 4, 4], requires_grad=True)
    n = torch.tensor([0, 1, 2, 3], dtype=torch.int32)
    (grad,) = torch.autograd.grad(pow2(n, x).sum(), x)
    torch.testing.assert_close(grad, torch.tensor([1.0, 8, 256, 131072]))


def test_64_bit_data_without_x64_is_refused_naming_the_switch():
    pow2 = ut.wrap("torch", "jax")(pow2_body)
    with pytest.raises(BufferError, match=r"^wrap\(\): args: .*jax_enable_x64"):
        pow2(torch.tensor([0, 1]), torch.ones(2))


def test_64_bit_refusal_is_one_buffer_error_in_every_mode():
    # an input or an output JAX cannot hold: the same error eagerly and traced
    tf = pytest.importorskip("tensorflow")
    to_jax = ut.wrap("jax", "torch")(lambda v: v.to(torch.int64))
    tf_to_jax = ut.wrap("tensorflow", "jax")(lambda v: v * 2)
    output = r"^wrap\(\): func \(an output of the body\): expected a dtype JAX " \
        r"holds with x64 disabled"
    args = r"^wrap\(\): args: expected a dtype JAX holds with x64 disabled"
    for call, match in (
            (lambda: to_jax(jnp.ones(2)), output),
            (lambda: jax.jit(to_jax)(jnp.ones(2)), output),
            (lambda: tf_to_jax(tf.ones(2, tf.float64)), args),
            (lambda: tf.function(tf_to_jax)(tf.ones(2, tf.float64)), args)):
        with pytest.raises(BufferError, match=match):
            call()


def test_torch_to_jax_is_zero_copy_both_ways():
    seen = {}

    @ut.wrap("torch", "jax")
    def body(x):
        seen["in"] = x.unsafe_buffer_pointer()
        y = jnp.sin(x)
        seen["out"] = y.unsafe_buffer_pointer()
        return y

    x = torch.linspace(0, 1, 64)
    y = body(x)
    assert seen["in"] == x.data_ptr()
    assert seen["out"] == y.data_ptr()
    torch.testing.assert_close(y, torch.sin(x))


@pytest.mark.slow  # compiles or a fresh interpreter: seconds (the whole suite runs it)
def test_torch_to_jax_gradient_matches_native_torch_and_finite_differences(x64):
    @ut.wrap("torch", "jax")
    def body(x, y):
        return jnp.sin(x) * y + x ** 2, jnp.tanh(y)

    def native(x, y):
        return torch.sin(x) * y + x ** 2, torch.tanh(y)

    gen = torch.Generator().manual_seed(0)
    x = torch.rand(3, dtype=torch.float64, generator=gen, requires_grad=True)
    y = torch.rand(3, dtype=torch.float64, generator=gen, requires_grad=True)
    got = torch.autograd.grad([o.sum() for o in body(x, y)], (x, y))
    want = torch.autograd.grad([o.sum() for o in native(x, y)], (x, y))
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w)
    assert torch.autograd.gradcheck(body, (x, y))
    assert torch.autograd.gradgradcheck(body, (x, y))


def test_torch_to_jax_double_backward_matches_native_torch(x64):
    pow2 = ut.wrap("torch", "jax")(pow2_body)
    x = torch.tensor([4.0, 4, 4, 4], dtype=torch.float64, requires_grad=True)
    n = torch.tensor([0, 1, 2, 3])
    (g,) = torch.autograd.grad(pow2(n, x).sum(), x, create_graph=True)
    assert g.requires_grad
    torch.testing.assert_close(g.detach(), torch.tensor(
        [1.0, 8, 256, 131072], dtype=torch.float64))
    g.sum().backward()  # d/dx of (2^n) x^(2^n - 1)
    torch.testing.assert_close(x.grad, torch.tensor([0.0, 2, 192, 229376],
                                                    dtype=torch.float64))


def test_torch_differentiates_only_what_requires_grad():
    @ut.wrap("torch", "jax")
    def body(x, y):  # reverse mode through while_loop fails: y must stay constant
        def step(carry):
            return carry[0] + 1, carry[1] * y
        _, power = jax.lax.while_loop(lambda c: c[0] < 3, step, (0, jnp.ones_like(y)))
        return x * power

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.tensor([2.0, 3.0])
    (grad,) = torch.autograd.grad(body(x, y).sum(), x)
    torch.testing.assert_close(grad, y ** 3)


def test_torch_func_grad_and_vjp_work():
    @ut.wrap("torch", "jax")
    def body(x):
        return jnp.sin(x) * 3

    x = torch.tensor([0.5, 1.0, 2.0])
    torch.testing.assert_close(torch.func.grad(lambda x: body(x).sum())(x),
                               3 * torch.cos(x))
    _, vjp = torch.func.vjp(body, x)
    torch.testing.assert_close(vjp(torch.ones(3))[0], 3 * torch.cos(x))
    torch.testing.assert_close(  # grad of grad: the backward is a bridge again
        torch.func.grad(lambda x: torch.func.grad(lambda x: body(x).sum())(x).sum())(x),
        -3 * torch.sin(x))


# -- torch caller, jax body: forward mode and vmap --------------------------------
def _torch_pair():
    @ut.wrap("torch", "jax")
    def body(x, y):
        return jnp.sin(x) * y ** 2 + x * y

    def native(x, y):
        return torch.sin(x) * y ** 2 + x * y

    return body, native


def _torch_args():
    gen = torch.Generator().manual_seed(1)
    x = torch.rand(3, dtype=torch.float64, generator=gen)
    y = torch.rand(3, dtype=torch.float64, generator=gen)
    return x, y


_F = torch.func
TORCH_TRANSFORMS = {
    "jvp": lambda f, x, y: _F.jvp(f, (x, y), (y, x)),
    "jacfwd": lambda f, x, y: _F.jacfwd(f, argnums=(0, 1))(x, y),
    "jacrev": lambda f, x, y: _F.jacrev(f, argnums=(0, 1))(x, y),
    "hessian": lambda f, x, y: _F.hessian(lambda x, y: f(x, y).sum())(x, y),
    "jacrev(jacrev)": lambda f, x, y: _F.jacrev(_F.jacrev(f))(x, y),
    "jvp(grad)": lambda f, x, y: _F.jvp(_F.grad(lambda x, y: f(x, y).sum()),
                                        (x, y), (y, x)),
    "vmap": lambda f, x, y: _F.vmap(f, in_dims=(0, None))(torch.stack([x, y, x * 2]),
                                                          y),
    "vmap(in_dims=1)": lambda f, x, y: _F.vmap(f, in_dims=(1, 0))(
        torch.stack([x, y]), torch.stack([y, x + 1], 1)),
    "vmap(grad)": lambda f, x, y: _F.vmap(_F.grad(lambda x, y: f(x, y).sum()),
                                          in_dims=(0, None))(torch.stack([x, y]), y),
    "vmap(vmap)": lambda f, x, y: _F.vmap(_F.vmap(f))(
        torch.stack([torch.stack([x, y])] * 2), torch.stack([torch.stack([y, x])] * 2)),
    "vmap(jvp)": lambda f, x, y: _F.vmap(lambda t: _F.jvp(f, (x, y), (t, y))[1])(
        torch.stack([x, y])),
}


@torch_jit_script_deprecated
@pytest.mark.parametrize("name", list(TORCH_TRANSFORMS))
def test_torch_transformations_match_native_torch(name, x64):
    body, native = _torch_pair()
    x, y = _torch_args()
    got = torch.utils._pytree.tree_leaves(TORCH_TRANSFORMS[name](body, x, y))
    want = torch.utils._pytree.tree_leaves(TORCH_TRANSFORMS[name](native, x, y))
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w)


@torch_jit_script_deprecated
def test_torch_forward_ad_dual_tensors_match_native_torch(x64):
    from torch.autograd import forward_ad
    body, native = _torch_pair()
    x, y = _torch_args()
    with forward_ad.dual_level():
        got = forward_ad.unpack_dual(body(forward_ad.make_dual(x, y), x))
        want = forward_ad.unpack_dual(native(forward_ad.make_dual(x, y), x))
    torch.testing.assert_close(got.primal, want.primal)
    torch.testing.assert_close(got.tangent, want.tangent)


@torch_jit_script_deprecated
@pytest.mark.slow  # compiles or a fresh interpreter: seconds (the whole suite runs it)
def test_torch_forward_and_reverse_mode_match_finite_differences(x64):
    body, _ = _torch_pair()
    x, y = (a.requires_grad_() for a in _torch_args())
    # check_batched_grad uses torch's legacy vmap (refused, tested below);
    # torch.func.vmap of the gradients is tested against native torch above
    assert torch.autograd.gradcheck(body, (x, y), check_forward_ad=True,
                                    check_batched_grad=False,
                                    check_batched_forward_grad=False)
    assert torch.autograd.gradgradcheck(body, (x, y), check_fwd_over_rev=True,
                                        check_batched_grad=False)


def test_torch_vmap_is_one_batched_call_of_the_body():
    seen = []

    @ut.wrap("torch", "jax")
    def body(x, w):
        seen.append((type(x).__name__, x.shape, w.shape))
        return jnp.tanh(x @ w)

    xs = torch.rand(5, 3)
    w = torch.rand(3, 2)
    got = torch.func.vmap(body, in_dims=(0, None))(xs, w)
    assert seen == [("BatchTracer", (3,), (3, 2))]  # one call, traced by jax.vmap
    torch.testing.assert_close(got, torch.tanh(xs @ w))


@torch_jit_script_deprecated
def test_torch_forward_mode_with_integer_outputs_and_inputs(x64):
    @ut.wrap("torch", "jax")
    def body(x, n):
        return jnp.argmax(x), x ** n

    x = torch.tensor([1.0, 3.0, 2.0], dtype=torch.float64)
    n = torch.tensor([1, 2, 3])
    (i, p), (ti, tp) = torch.func.jvp(lambda x: body(x, n), (x,), (torch.ones(3,
                                      dtype=torch.float64),))
    assert i.item() == 1
    torch.testing.assert_close(p, x ** n)
    torch.testing.assert_close(tp, n * x ** (n - 1))
    # as torch's own jvp of argmax: an integer zero of the output's dtype
    assert ti.dtype == i.dtype
    assert ti.item() == 0
    jac = torch.func.jacfwd(lambda x: body(x, n)[1])(x)
    torch.testing.assert_close(jac, torch.diag(n * x ** (n - 1)))


def test_torch_legacy_vmap_is_a_clear_error():
    from torch._vmap_internals import _vmap
    body = ut.wrap("torch", "jax")(jnp.sin)
    with pytest.raises(NotImplementedError, match=r"^wrap\(\): args: .*legacy vmap"):
        _vmap(body)(torch.ones(2, 2))


def check_make_fx_and_linearize(body, native):
    """make_fx (torch.func.linearize's tracer) records the ops it sees: a body it
    does not see, run on memory, would be a constant of its graph (stale values
    on new inputs; linearize's tangents are uninitialised memory)."""
    from torch.fx.experimental.proxy_tensor import make_fx
    x, y = torch.tensor([0.3, 0.8, -1.1]), torch.tensor([1.5, -2.0, 0.5])
    x2, y2 = torch.tensor([1.0, 2.0, 3.0]), torch.tensor([0.5, 0.25, -1.0])
    out, jvp = torch.func.linearize(body, x, y)
    want, want_jvp = torch.func.linearize(native, x, y)
    torch.testing.assert_close(out, want)
    torch.testing.assert_close(jvp(x2, y2), want_jvp(x2, y2))
    for mode in ("real", "fake"):
        traced = make_fx(body, tracing_mode=mode)(x, y)
        torch.testing.assert_close(traced(x2, y2), native(x2, y2))
    grad = make_fx(torch.func.grad(lambda x, y: body(x, y)[0].sum()))(x, y)
    torch.testing.assert_close(grad(x2, y2), torch.func.grad(
        lambda x, y: native(x, y)[0].sum())(x2, y2))


@torch_jit_script_deprecated
# torch's own linearize warns so (the native reference too, torch 2.13)
@pytest.mark.filterwarnings("ignore:Attempted to insert a get_attr Node:UserWarning")
def test_torch_make_fx_and_linearize_record_the_bridge_as_an_op():
    check_make_fx_and_linearize(
        ut.wrap("torch", "jax")(lambda x, y: (jnp.sin(x) * y, x * 2)),
        lambda x, y: (torch.sin(x) * y, x * 2))


def test_traced_calls_keep_their_own_constants():
    # the op names a call by its constants: 1, 1.0 and True (equal, one hash)
    # and 0.0, -0.0 are different calls, not the first one traced
    from torch.fx.experimental.proxy_tensor import make_fx
    scale = ut.wrap("torch", "jax")(lambda x, k: x * k)
    signed = ut.wrap("torch", "jax")(lambda x, s: x * jnp.copysign(1.0, s))
    x, ones = torch.arange(3, dtype=torch.int32), torch.ones(3)
    assert make_fx(lambda v: scale(v, 1))(x)(x).dtype == torch.int32
    assert make_fx(lambda v: scale(v, 1.0))(x)(x).dtype == torch.float32
    torch.testing.assert_close(make_fx(lambda v: signed(v, 0.0))(ones)(ones), ones)
    torch.testing.assert_close(make_fx(lambda v: signed(v, -0.0))(ones)(ones), -ones)
    # an array is no constant of a graph: a clear error
    with pytest.raises(TypeError, match=r"^wrap\(\): args: expected tensors, or "
                       r"constants that can be hashed .* got an object of type "
                       r"'numpy.ndarray'"):
        make_fx(lambda v: scale(v, np.ones(3)))(ones)


def test_outputs_autograd_saved_are_lent_and_kept_memory_still_copied():
    # sin(y) saves y, sort saves its indices: holders that go with the call,
    # not memory the body keeps (no copy, no warning); a parameter still is
    lin = torch.nn.Linear(2, 2)

    def body(v):
        y = v * 2
        return y, torch.sin(y), torch.sort(v).values

    def kept(v):
        return lin(v), lin.weight.detach()

    x = jnp.array([[3.0, 1.0], [2.0, 5.0]])
    for f, loss, copies in ((body, lambda o: o[0].sum() + o[1].sum() + o[2].sum(), 0),
                            (kept, lambda o: o[0].sum() + o[1].sum(), 1)):
        bridged = ut.wrap("jax", "torch")(f)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            jax.grad(lambda v, b=bridged, total=loss: total(b(v)))(x)
        # (the body runs twice under jax.grad: the call, whose value is lent,
        # then its pullback's, whose outputs go to no caller: copied once)
        found = sum(issubclass(w.category, ut.CopyWarning) for w in seen)
        assert found == copies, [str(w.message)[:80] for w in seen]


def test_a_torch_output_on_memory_torch_did_not_allocate_is_a_copy():
    # torch.from_numpy of a buffer the body keeps: its owner is out of torch's
    # counts, so the output is copied (reported) rather than lent
    table = aligned_empty((4,), np.float32)  # 64-byte aligned: JAX could alias it
    table[:] = 0.0
    f = ut.wrap("jax", "torch")(lambda v: torch.from_numpy(table))
    with pytest.warns(ut.CopyWarning, match="memory torch did not allocate"):
        y = f(jnp.zeros(1))
    table[:] = 42.0  # the body's buffer changes later
    np.testing.assert_array_equal(y, [0.0] * 4)


@pytest.mark.parametrize("mode", ["eager", "jit", "grad"])
def test_jax_array_of_memory_the_torch_body_keeps_is_a_copy(mode):
    # a JAX array never changes: an output on a parameter the body keeps is
    # copied (reported), so a later optimizer step leaves it as it was
    lin = torch.nn.Linear(2, 2)
    cache = {}

    def body(x):
        cache["y"] = x * 2
        return lin.weight.detach(), lin.weight.T, cache["y"], (x * 3).reshape(-1), x
    f = ut.wrap("jax", "torch")(body)
    x = jnp.ones((2, 2))
    run = {"eager": f, "jit": jax.jit(f), "grad": lambda x: jax.vjp(f, x)[0]}[mode]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = run(x)
    reports = [w for w in seen if issubclass(w.category, ut.CopyWarning)]
    # not the fresh ones; under jit every output is written into XLA's buffer,
    # the way a jitted output always arrives: nothing more to copy or report
    expected = 0 if mode == "jit" else 3
    assert len(reports) == expected, [str(w.message) for w in reports]
    before = [np.array(y) for y in out]
    with torch.no_grad():
        lin.weight.add_(100.0)
        cache["y"].add_(100.0)
    for y, b in zip(out, before, strict=True):
        np.testing.assert_array_equal(np.asarray(y), b)
    np.testing.assert_allclose(before[0], lin.weight.detach().numpy() - 100.0,
                               atol=1e-4)
    np.testing.assert_allclose(before[3], np.full(4, 3.0))


@torch_jit_script_deprecated
def test_torch_caller_gets_the_body_s_exception_under_jvp_and_vmap():
    @ut.wrap("torch", "jax")
    def body(x):
        raise KeyError("from the body")

    with pytest.raises(KeyError, match="from the body"):
        torch.func.jvp(body, (torch.ones(2),), (torch.ones(2),))
    with pytest.raises(KeyError, match="from the body"):
        torch.func.vmap(body)(torch.ones(2, 2))


@ut.wrap(source="torch", target="jax")
def compiled_body(x, y, n, scale=1.0):
    return {"f": jnp.sin(x) * y * scale + n, "g": (jnp.sum(x ** 2), n, 3), "y": y}


def compiled_program(a, b, n):
    """A torch program calling a jax body: keywords, an integer input, a Python
    constant, a dict and a tuple out, an input returned as it is."""
    out = compiled_body(a * 2, b, n, scale=3.0)
    f, (g, m, three), y = out["f"], out["g"], out["y"]
    return f.sum() * three + g + m.sum() + y.sum()


def compiled_inputs():
    return (torch.randn(5, dtype=torch.float64, requires_grad=True),
            torch.randn(5, dtype=torch.float64, requires_grad=True),
            torch.arange(5))


@pytest.mark.slow  # torch.compile (~2.5 s): the whole suite runs it
# Dynamo reads .grad of the non-leaf tensors it meets while tracing: its warning
@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a "
                            "leaf:UserWarning")
@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_torch_compile_fullgraph_compiles_the_bridge_as_one_op(backend, x64):
    torch._dynamo.reset()
    graphs = []

    def counting(gm, example_inputs):
        graphs.append(gm)
        return torch._dynamo.backends.registry.lookup_backend(backend)(
            gm, example_inputs)
    args = compiled_inputs()
    compiled = torch.compile(compiled_program, fullgraph=True, backend=counting)
    got, want = compiled(*args), compiled_program(*args)
    torch.testing.assert_close(got, want)
    grads = torch.autograd.grad(got, args[:2])
    for g, w in zip(grads, torch.autograd.grad(want, args[:2]), strict=True):
        torch.testing.assert_close(g, w)
    assert len(graphs) == 1
    ops = [node.target for node in graphs[0].graph.nodes]
    assert torch.ops.unitensor.bridge.default in ops or \
        torch.ops.unitensor.bridge in ops, ops
    # a second call runs the compiled graph (no retrace), with new values
    args2 = compiled_inputs()
    torch.testing.assert_close(compiled(*args2), compiled_program(*args2))
    assert len(graphs) == 1
    torch._dynamo.reset()


@pytest.mark.slow  # (a torch.compile of a backward: ~4 s; the whole suite runs it)
@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a "
                            "leaf:UserWarning")
def test_torch_compile_backward_through_the_bridge_op_matches_the_derivative(x64):
    torch._dynamo.reset()
    body = ut.wrap("torch", "jax")(lambda v: jnp.sin(v) * v)
    compiled = torch.compile(lambda v: body(v * 2) + 1, fullgraph=True,
                             backend="aot_eager")
    x = torch.tensor([0.5, 1.0, 2.0], dtype=torch.float64, requires_grad=True)
    y = compiled(x)
    y.sum().backward()
    v = 2 * x.detach()
    torch.testing.assert_close(y.detach(), torch.sin(v) * v + 1)
    torch.testing.assert_close(x.grad, 2 * (torch.cos(v) * v + torch.sin(v)))
    torch._dynamo.reset()


def test_torch_compile_of_a_body_returning_a_tuple_of_arrays():
    # Call.run marks a tuple of arrays without a tree; the op's structure too
    torch._dynamo.reset()
    body = ut.wrap("torch", "jax")(lambda v: (jnp.sin(v), v * 2))
    x = torch.tensor([0.5, 1.0, 2.0])
    got = torch.compile(body, fullgraph=True, backend="eager")(x)
    torch.testing.assert_close(got, (torch.sin(x), x * 2))
    torch._dynamo.reset()


@pytest.mark.slow  # six traces of torch.compile (~10 s with its first import)
@pytest.mark.parametrize("values", [(2, 3, 4), (2.0, 3.0, 4.5)], ids=["int", "float"])
def test_torch_compile_retraces_for_a_changed_number(values):
    # Dynamo makes a number symbolic once it changed (automatic dynamic
    # shapes): the third value reached the op as a SymInt (Unsupported, or a
    # TypeError of the fake tensor); a new value is a new trace instead
    torch._dynamo.reset()
    body = ut.wrap("torch", "jax")(lambda v, s, k=1.0: v * s + k)
    compiled = torch.compile(lambda v, s: body(v, s, k=s * 2) + 1, fullgraph=True,
                             backend="eager")
    x = torch.arange(3.0)
    for s in values:
        torch.testing.assert_close(compiled(x, s), x * s + s * 2 + 1)
    torch._dynamo.reset()


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # inductor's imports
@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a "
                            "leaf:UserWarning")
def test_torch_compile_inductor_with_operators_and_the_bridge(x64):
    torch._dynamo.reset()
    body = ut.wrap("torch", "jax")(lambda v: jnp.sin(v) * v)

    def f(a):
        y = body((ut.asarray(a) * 2.0).torch())
        return (ut.asarray(y)[1:] + 1.0).torch().sum()
    a = torch.randn(6, dtype=torch.float64, requires_grad=True)
    got = torch.compile(f, fullgraph=True, backend="inductor")(a)
    want = f(a)
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(torch.autograd.grad(got, a)[0],
                               torch.autograd.grad(want, a)[0])
    torch._dynamo.reset()


COMPLEX_W = (0.3 - 1j, 2 + 0.1j, -1 + 0.5j)


def _complex_bodies(xp):
    """A holomorphic function and one that is not, written in ``xp``."""
    conj = xp.conj if xp is jnp else torch.conj
    real = xp.real if xp is jnp else torch.real

    def holomorphic(z, w):
        return z * z * w + xp.exp(z)

    def not_holomorphic(z, w):
        return conj(z) * z * w + real(z) * z
    return {"holomorphic": holomorphic, "not holomorphic": not_holomorphic}


@torch_jit_script_deprecated
@pytest.mark.parametrize("kind", ["holomorphic", "not holomorphic"])
@pytest.mark.slow  # compiles or a fresh interpreter: seconds (the whole suite runs it)
def test_torch_complex_derivatives_follow_torch_s_convention(kind, x64):
    body = ut.wrap("torch", "jax")(_complex_bodies(jnp)[kind])
    native = _complex_bodies(torch)[kind]
    z = torch.tensor([1 + 2j, -0.5 + 0.3j, 0.2 - 0.7j], dtype=torch.complex128,
                     requires_grad=True)
    w = torch.tensor(COMPLEX_W, dtype=torch.complex128)

    def loss(f):  # a real loss: torch's gradient is the conjugate Wirtinger one
        return lambda z: (f(z, w).abs() ** 2).sum() + f(z, w).real.sum()

    torch.testing.assert_close(torch.autograd.grad(loss(body)(z), z)[0],
                               torch.autograd.grad(loss(native)(z), z)[0])
    t = torch.tensor([0.1 + 0.4j, 1 - 1j, 0.5j], dtype=torch.complex128)
    for got, want in zip(  # second order, forward over reverse
            torch.func.jvp(torch.func.grad(loss(body)), (z.detach(),), (t,)),
            torch.func.jvp(torch.func.grad(loss(native)), (z.detach(),), (t,)),
            strict=True):
        torch.testing.assert_close(got, want)
    for got, want in zip(torch.func.jvp(lambda z: body(z, w), (z.detach(),), (t,)),
                         torch.func.jvp(lambda z: native(z, w), (z.detach(),), (t,)),
                         strict=True):
        torch.testing.assert_close(got, want)
    assert torch.autograd.gradcheck(lambda z: body(z, w), (z,), check_forward_ad=True,
                                    check_batched_grad=False,
                                    check_batched_forward_grad=False)
    assert torch.autograd.gradgradcheck(lambda z: body(z, w), (z,),
                                        check_batched_grad=False)


def test_torch_without_grad_is_a_plain_call():
    body = ut.wrap("torch", "jax")(jnp.sin)
    x = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        y = body(x)
    assert not y.requires_grad
    assert body(torch.ones(3)).grad_fn is None


def test_torch_integer_outputs_and_unused_inputs():
    @ut.wrap("torch", "jax")
    def body(x, unused, n):
        return {"argmax": jnp.argmax(x), "scaled": x * n, "none": None, "k": 3}

    x = torch.tensor([1.0, 3.0, 2.0], requires_grad=True)
    unused = torch.ones(2, requires_grad=True)
    out = body(x, unused, torch.tensor(2, dtype=torch.int32))
    assert out["none"] is None
    assert out["k"] == 3
    assert out["argmax"].dtype == torch.int32
    assert not out["argmax"].requires_grad
    assert out["argmax"].item() == 1
    gx, gu = torch.autograd.grad(out["scaled"].sum(), (x, unused))
    torch.testing.assert_close(gx, torch.full((3,), 2.0))
    torch.testing.assert_close(gu, torch.zeros(2))  # unused: zeros, not None


def test_torch_pytrees_scalars_and_keywords():
    @ut.wrap("torch", "jax")
    def body(pair, table, scale, *, shift, label):
        a, b = pair
        assert isinstance(a, jax.Array)
        assert isinstance(table["w"], jax.Array)
        assert table["nothing"] is None
        assert isinstance(scale, float)
        assert label == "tag"
        return [a * table["w"] * scale + shift, (b,)]

    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([5.0])
    w = torch.tensor([3.0, 4.0], requires_grad=True)
    y, (b_out,) = body((a, b), {"w": w, "nothing": None}, 2.0, shift=1.0, label="tag")
    assert isinstance(b_out, torch.Tensor)
    torch.testing.assert_close(b_out, b)
    y.sum().backward()
    torch.testing.assert_close(a.grad, 2 * w.detach())
    torch.testing.assert_close(w.grad, 2 * a.detach())


@pytest.mark.parametrize("source", ["torch", "jax"])
def test_flat_arguments_and_results_keep_their_structure(source):
    # positional arrays only, and results that are one array or a tuple of
    # arrays, skip the tree walk: the same structures as the general path
    target = "jax" if source == "torch" else "torch"
    make = {"torch": torch.tensor, "jax": jnp.asarray}[source]
    kind = {"torch": torch.Tensor, "jax": jax.Array}[source]
    a, b = make([1.0, 2.0]), make([3.0, 4.0])
    shapes = {"one": lambda x, y: x * y, "tuple": lambda x, y: (x, y * 2),
              "empty": lambda x, y: (), "list": lambda x, y: [x, (y,)],
              "mixed": lambda x, y: (x, 3, None)}
    calls = [jax.jit] if source == "jax" else []
    for name, f in shapes.items():
        bridged = ut.wrap(source, target)(f)
        for call in [lambda g: g, *calls]:
            if call is jax.jit and name == "mixed":  # jit returns arrays only
                continue
            got = call(bridged)(a, b)
            again = bridged(a, y=b)  # a keyword: the general path
            for out in (got, again):
                if name == "one":
                    assert isinstance(out, kind)
                elif name == "list":
                    assert type(out) is list
                    assert type(out[1]) is tuple
                    assert isinstance(out[1][0], kind)
                else:
                    assert type(out) is tuple
                    assert len(out) == {"tuple": 2, "empty": 0, "mixed": 3}[name]
            if name == "mixed":
                assert got[1:] == (3, None)
                assert isinstance(got[0], kind)
            if name == "tuple":
                np.testing.assert_allclose(np.asarray(got[1]), [6.0, 8.0])


def test_torch_caller_gets_the_body_s_exception():
    @ut.wrap("torch", "jax")
    def body(x):
        raise KeyError("from the body")

    with pytest.raises(KeyError, match="from the body"):
        body(torch.ones(2))
    with pytest.raises(KeyError, match="from the body"):
        body(torch.ones(2, requires_grad=True))


def test_torch_input_jax_cannot_alias_is_copied_and_reported():
    body = ut.wrap("torch", "jax")(jnp.sin)
    x = torch.zeros(17)[1:]  # 4-byte aligned: JAX on CPU wants 64
    with pytest.warns(ut.CopyWarning, match=r"^wrap\(\): args: copied because JAX on "
                      r"CPU copies memory that is not 64-byte aligned.*docs/wrap.md"):
        y = body(x)
    torch.testing.assert_close(y, torch.sin(x))


@pytest.mark.slow  # compiles or a fresh interpreter: seconds (the whole suite runs it)
def test_rosenbrock_torch_adam_over_a_jax_body_converges():
    @ut.wrap("torch", "jax")
    @jax.jit
    def rosenbrock(p):
        x, y = p[0], p[1]
        return (1 - x) ** 2 + 100 * (y - x * x) ** 2

    p = torch.tensor([-1.0, 1.0], requires_grad=True)
    opt = torch.optim.Adam([p], lr=0.05)
    steps = 0
    while steps < 1000 and not torch.allclose(p.detach(), torch.ones(2), atol=1e-3):
        opt.zero_grad()
        rosenbrock(p).backward()
        opt.step()
        steps += 1
    assert steps < 1000  # about 730
    torch.testing.assert_close(p.detach(), torch.ones(2), atol=1e-3, rtol=0)


# -- jax caller, torch body ------------------------------------------------------
def test_jax_to_torch_is_zero_copy_both_ways():
    seen = {}

    @ut.wrap("jax", "torch")
    def body(a):
        seen["in"] = a.data_ptr()
        y = torch.sin(a)
        seen["out"] = y.data_ptr()
        return y

    a = jnp.linspace(0, 1, 64)
    y = body(a)
    assert seen["in"] == a.unsafe_buffer_pointer()
    assert seen["out"] == y.unsafe_buffer_pointer()
    np.testing.assert_allclose(y, jnp.sin(a), rtol=1e-6)


def test_mse_loss_example_of_torch2jax():
    loss = ut.wrap("jax", "torch")(torch.nn.MSELoss())
    gen = np.random.default_rng(0)
    x = jnp.asarray(gen.standard_normal(5), dtype=jnp.float32)
    y = jnp.asarray(gen.standard_normal(5), dtype=jnp.float32)
    got = jax.jit(jax.grad(loss, argnums=(0, 1)))(x, y)
    want = jax.grad(lambda a, b: jnp.mean((a - b) ** 2), argnums=(0, 1))(x, y)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-6)
    np.testing.assert_allclose(loss(x, y), jnp.mean((x - y) ** 2), rtol=1e-6)


@pytest.mark.parametrize("transform", ["eager", "jit"])
def test_jax_to_torch_grad_and_value_and_grad_match_native_jax(transform):
    @ut.wrap("jax", "torch")
    def body(x, y):
        return (torch.sin(x) * y + x ** 2).sum()

    def native(x, y):
        return (jnp.sin(x) * y + x ** 2).sum()

    x, y = jnp.linspace(0.1, 1, 5), jnp.linspace(1, 2, 5)
    pick = jax.jit if transform == "jit" else (lambda f: f)
    for g, w in zip(pick(jax.grad(body, argnums=(0, 1)))(x, y),
                    jax.grad(native, argnums=(0, 1))(x, y), strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-6)
    value, grad = pick(jax.value_and_grad(body))(x, y)
    np.testing.assert_allclose(value, native(x, y), rtol=1e-6)
    np.testing.assert_allclose(grad, jax.grad(native)(x, y), rtol=1e-6)
    np.testing.assert_allclose(pick(body)(x, y), native(x, y), rtol=1e-6)


def test_gradients_in_layouts_the_other_framework_cannot_alias_are_quiet():
    # torch's gradient of a sum is a stride-0 expansion, which JAX cannot alias:
    # copied without a CopyWarning (the layout is torch's choice, not the caller's)
    total = ut.wrap("jax", "torch")(lambda a: a.sum())
    a = jnp.arange(4.0)
    np.testing.assert_array_equal(jax.grad(total)(a), jnp.ones(4))
    np.testing.assert_array_equal(jax.jit(jax.grad(total))(a), jnp.ones(4))
    x = torch.arange(4.0, requires_grad=True)
    square = ut.wrap("torch", "jax")(lambda v: v * v)
    (g,) = torch.autograd.grad(square(x).sum(), x, create_graph=True)
    g.sum().backward()
    torch.testing.assert_close(x.grad, torch.full((4,), 2.0))


@pytest.mark.slow  # compiles or a fresh interpreter: seconds (the whole suite runs it)
def test_jax_to_torch_finite_differences_to_second_order(x64):
    from jax.test_util import check_grads

    @ut.wrap("jax", "torch")
    def body(x, y):
        return torch.sin(x) * y ** 2

    x = jnp.linspace(0.1, 1, 4)
    y = jnp.linspace(1, 2, 4)
    check_grads(body, (x, y), order=2, modes=["fwd", "rev"])
    check_grads(jax.jit(body), (x, y), order=2, modes=["fwd", "rev"])
    check_grads(jax.vmap(body), (x[None], y[None]), order=2, modes=["fwd", "rev"])


def test_jax_to_torch_grad_of_grad_matches_native():
    cube = ut.wrap("jax", "torch")(lambda a: (a ** 3).sum())
    x = jnp.float32(2.0)
    assert jax.grad(jax.grad(cube))(x) == 12.0
    assert jax.jit(jax.grad(jax.grad(cube)))(x) == 12.0
    assert jax.grad(jax.grad(jax.grad(cube)))(x) == 6.0


# -- jax caller, torch body: every transformation ---------------------------------
def _jax_pair():
    @ut.wrap("jax", "torch")
    def body(x, y):
        return torch.sin(x) * y ** 2 + x * y

    def native(x, y):
        return jnp.sin(x) * y ** 2 + x * y

    return body, native


def _total(f):
    return lambda x, y: f(x, y).sum()


JAX_TRANSFORMS = {
    "jit": lambda f, x, y: jax.jit(f)(x, y),
    "grad": lambda f, x, y: jax.grad(_total(f), argnums=(0, 1))(x, y),
    "value_and_grad": lambda f, x, y: jax.value_and_grad(_total(f))(x, y),
    "jvp": lambda f, x, y: jax.jvp(f, (x, y), (y, x)),
    "jit(jvp)": lambda f, x, y: jax.jit(lambda x, y: jax.jvp(f, (x, y), (y, x)))(x, y),
    "jacfwd": lambda f, x, y: jax.jacfwd(f, argnums=(0, 1))(x, y),
    "jacrev": lambda f, x, y: jax.jacrev(f, argnums=(0, 1))(x, y),
    "hessian": lambda f, x, y: jax.hessian(_total(f), argnums=(0, 1))(x, y),
    "jit(hessian)": lambda f, x, y: jax.jit(jax.hessian(_total(f)))(x, y),
    "jit(grad)": lambda f, x, y: jax.jit(jax.grad(_total(f)))(x, y),
    "grad(grad(grad))": lambda f, x, y: jax.grad(lambda x: jax.grad(
        lambda x: jax.grad(_total(f))(x, y).sum())(x).sum())(x),
    "vmap": lambda f, x, y: jax.vmap(f, in_axes=(0, None))(jnp.stack([x, y, x * 2]), y),
    "vmap(in_axes=1)": lambda f, x, y: jax.vmap(f, in_axes=(1, 0))(
        jnp.stack([x, y]), jnp.stack([y, x + 1], 1)),
    "jit(vmap)": lambda f, x, y: jax.jit(jax.vmap(f, in_axes=(0, None)))(
        jnp.stack([x, y]), y),
    "vmap(grad)": lambda f, x, y: jax.vmap(jax.grad(_total(f)), in_axes=(0, None))(
        jnp.stack([x, y]), y),
    "jit(vmap(grad))": lambda f, x, y: jax.jit(
        jax.vmap(jax.grad(_total(f)), (0, None)))(jnp.stack([x, y]), y),
    "grad(vmap)": lambda f, x, y: jax.grad(
        lambda x: jax.vmap(f, (0, None))(x, y).sum())(jnp.stack([x, y])),
    "vmap(vmap)": lambda f, x, y: jax.vmap(jax.vmap(f))(
        jnp.stack([jnp.stack([x, y])] * 2), jnp.stack([jnp.stack([y, x])] * 2)),
    "linearize": lambda f, x, y: jax.linearize(f, x, y)[1](y, x),
    "vjp": lambda f, x, y: jax.vjp(f, x, y)[1](x),
    "linear_transpose(jvp)": lambda f, x, y: jax.linear_transpose(
        lambda t: jax.jvp(lambda x: f(x, y), (x,), (t,))[1], x)(y),
}


@torch_jit_script_deprecated  # (torch's forward AD, first used here when run alone)
@pytest.mark.parametrize("name", list(JAX_TRANSFORMS))
def test_jax_transformations_match_native_jax(name, x64):
    body, native = _jax_pair()
    x, y = jnp.linspace(0.1, 1, 3), jnp.linspace(1, 2, 3)
    got = jax.tree_util.tree_leaves(JAX_TRANSFORMS[name](body, x, y))
    want = jax.tree_util.tree_leaves(JAX_TRANSFORMS[name](native, x, y))
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_jax_vmap_is_one_batched_call_of_the_body():
    seen = []

    @ut.wrap("jax", "torch")
    def body(x, w):
        seen.append((torch._C._functorch.is_batchedtensor(x), tuple(x.shape),
                     x.device.type))
        return torch.tanh(x @ w)

    xs = jnp.asarray(np.random.default_rng(0).random((5, 3)), jnp.float32)
    w = jnp.ones((3, 2)) / 3
    np.testing.assert_allclose(jax.vmap(body, (0, None))(xs, w), jnp.tanh(xs @ w),
                               rtol=1e-6)
    assert seen == [(True, (3,), "cpu")]  # one call, batched by torch.func.vmap
    seen.clear()
    np.testing.assert_allclose(jax.jit(jax.vmap(body, (0, None)))(xs, w),
                               jnp.tanh(xs @ w), rtol=1e-6)
    # at trace time on zeros (the output shapes), then one batched run
    assert seen == [(False, (3,), "cpu"), (True, (3,), "cpu")]


def test_jax_forward_mode_with_integer_outputs_and_inputs(x64):
    @ut.wrap("jax", "torch")
    def body(x, n):
        return torch.argmax(x), x ** n

    x = jnp.array([1.0, 3.0, 2.0])
    n = jnp.array([1, 2, 3])
    (i, p), (ti, tp) = jax.jvp(lambda x: body(x, n), (x,), (jnp.ones(3),))
    assert i == 1
    assert ti.dtype == jax.dtypes.float0
    np.testing.assert_allclose(p, x ** n)
    np.testing.assert_allclose(tp, n * x ** (n - 1))
    np.testing.assert_allclose(jax.jacfwd(lambda x: body(x, n)[1])(x),
                               jnp.diag(n * x ** (n - 1)))
    np.testing.assert_allclose(jax.jacrev(lambda x: body(x, n)[1])(x),
                               jnp.diag(n * x ** (n - 1)))
    # the integer input batched, the float one not: both reach torch.func.vmap
    np.testing.assert_allclose(jax.vmap(lambda n: body(x, n)[1])(jnp.stack([n, n])),
                               jnp.stack([x ** n] * 2))


def test_jax_caller_gets_the_body_s_exception_under_jvp_and_vmap():
    @ut.wrap("jax", "torch")
    def body(x):
        raise KeyError("from the body")

    with pytest.raises(KeyError, match="from the body"):
        jax.jvp(body, (jnp.ones(2),), (jnp.ones(2),))
    with pytest.raises(KeyError, match="from the body"):
        jax.vmap(body)(jnp.ones((2, 2)))


@torch_jit_script_deprecated
@pytest.mark.parametrize("kind", ["holomorphic", "not holomorphic"])
@pytest.mark.slow  # compiles or a fresh interpreter: seconds (the whole suite runs it)
def test_jax_complex_derivatives_follow_jax_s_convention(kind, x64):
    from jax.test_util import check_grads
    body = ut.wrap("jax", "torch")(_complex_bodies(torch)[kind])
    native = _complex_bodies(jnp)[kind]
    z = jnp.array([1 + 2j, -0.5 + 0.3j, 0.2 - 0.7j])
    w = jnp.array(COMPLEX_W)

    def loss(f):  # a real loss: JAX's gradient is the conjugate of torch's
        return lambda z: (jnp.abs(f(z, w)) ** 2).sum() + f(z, w).real.sum()

    t = jnp.array([0.1 + 0.4j, 1 - 1j, 0.5j])
    for transform in (jax.grad, lambda f: jax.jit(jax.grad(f)),
                      lambda f: lambda z: jax.jvp(jax.grad(f), (z,), (t,))):
        for got, want in zip(jax.tree_util.tree_leaves(transform(loss(body))(z)),
                             jax.tree_util.tree_leaves(transform(loss(native))(z)),
                             strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-12)
    for got, want in zip(jax.jvp(lambda z: body(z, w), (z,), (t,)),
                         jax.jvp(lambda z: native(z, w), (z,), (t,)), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    if kind == "holomorphic":
        for jac in (jax.jacfwd, jax.jacrev):
            np.testing.assert_allclose(
                jac(lambda z: body(z, w), holomorphic=True)(z),
                jac(lambda z: native(z, w), holomorphic=True)(z), rtol=1e-12)
    check_grads(lambda z: body(z, w), (z,), order=2, modes=["fwd", "rev"])


def test_jax_integer_inputs_pytrees_and_keywords(x64):
    @ut.wrap("jax", "torch")
    def body(params, n, *, scale, note=None):
        assert isinstance(params["w"], torch.Tensor)
        assert note is None
        w, (b,) = params["w"], params["rest"]
        return {"loss": ((w * n).sum() + b.sum()) * scale, "n": n, "tag": "ok"}

    params = {"w": jnp.array([1.0, 2.0]), "rest": (jnp.array([3.0]),)}
    n = jnp.array([2, 3])

    def loss(p):
        return body(p, n, scale=2.0)["loss"]

    for f in (jax.grad(loss), jax.jit(jax.grad(loss))):
        g = f(params)
        np.testing.assert_allclose(g["w"], [4.0, 6.0])
        np.testing.assert_allclose(g["rest"][0], [2.0])
    def arrays_only(p):
        out = body(p, n, scale=1.0)
        assert out["tag"] == "ok"  # a static leaf of the output, under jit too
        return out["n"], out["loss"]

    out_n, out_loss = jax.jit(arrays_only)(params)
    assert out_n.dtype == jnp.int64
    np.testing.assert_array_equal(out_n, n)
    assert out_loss == 11.0
    # an integer argument differentiated by JAX itself: float0, as for any function
    grad_n = jax.grad(lambda p, n: body(p, n, scale=1.0)["loss"], argnums=1,
                      allow_int=True)(params, n)
    assert grad_n.dtype == jax.dtypes.float0


def test_jax_caller_gets_the_body_s_exception():
    @ut.wrap("jax", "torch")
    def body(x):
        raise KeyError("from the body")

    with pytest.raises(KeyError, match="from the body"):
        body(jnp.ones(2))
    with pytest.raises(KeyError, match="from the body"):
        jax.grad(lambda x: body(x).sum())(jnp.ones(2))
    with pytest.raises(KeyError, match="from the body") as info:  # at trace time
        jax.jit(body)(jnp.ones(2))
    assert "on zeros" in "".join(info.value.__notes__)


def test_jax_jit_falls_back_to_pure_callback_without_buffer_callback(monkeypatch):
    from unitensor._wrap import jax as autodiff
    monkeypatch.setattr(autodiff, "_xla_target", lambda: None)  # (no handler)
    monkeypatch.setattr(autodiff, "buffer_callback", None)
    loss = ut.wrap("jax", "torch")(torch.nn.MSELoss())
    x, y = jnp.arange(4.0), jnp.ones(4)
    gx, gy = jax.jit(jax.grad(loss, argnums=(0, 1)))(x, y)
    np.testing.assert_allclose(gx, (x - y) / 2)
    np.testing.assert_allclose(gy, (y - x) / 2)


def test_a_torch_module_body_under_jax_jit_and_tf_function():
    # the shape pass meets the module's real parameters and buffers
    tf = pytest.importorskip("tensorflow")
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4),
                                torch.nn.Tanh()).eval()
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    with torch.no_grad():
        want = model(torch.from_numpy(x)).numpy()
    grad = torch.func.grad(lambda v: model(v).sum())(torch.from_numpy(x))
    grad = grad.detach().numpy()
    f = ut.wrap("jax", "torch")(model)
    np.testing.assert_allclose(jax.jit(f)(jnp.asarray(x)), want, rtol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.grad(lambda v: f(v).sum()))(
        jnp.asarray(x)), grad, rtol=1e-6)
    g = tf.function(ut.wrap("tensorflow", "torch")(model))
    np.testing.assert_allclose(g(tf.constant(x)), want, rtol=1e-6)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch.compile's imports
@pytest.mark.filterwarnings("ignore:The .grad attribute:UserWarning")  # Dynamo's
@pytest.mark.slow  # compiles or a fresh interpreter: seconds (the whole suite runs it)
def test_a_compiled_torch_module_body_under_jax_jit():
    # the shape pass runs the compiled module eagerly on fakes (its compiled
    # kernels would read the fakes' missing data)
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    compiled = torch.compile(lambda v: v.sin() * 2)

    def body(v):
        return compiled(model(v))

    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    with torch.no_grad():
        want = body(torch.from_numpy(x)).numpy()
    f = ut.wrap("jax", "torch")(body)
    np.testing.assert_allclose(jax.jit(f)(jnp.asarray(x)), want, rtol=1e-6)


# -- jax caller, torch body: the caller's memory is immutable --------------------
_WRITTEN = (r"^wrap\(\): func: expected a torch body that does not write into its "
            r"inputs \(jax's arrays are immutable\), got a body that wrote into one "
            r"in place \(")


def _setitem(x):
    x[0] = 9.0
    return x * 1


def _iadd(x):
    x += 1
    return x * 1


_WRITES = {
    "add_": lambda x: x.add_(1),
    "setitem": _setitem,
    "iadd": _iadd,
    "a view's mul_": lambda x: x[1:].mul_(2),
    "out": lambda x: torch.add(x, 1, out=x),
    "out, a view": lambda x: torch.sin(x[:2], out=x[:2]),
    "inplace": lambda x: torch.nn.functional.relu(x, inplace=True),
    "nn.init": lambda x: torch.nn.init.uniform_(x),
    "copy_": lambda x: x.copy_(x * 2),
    "foreach": lambda x: torch._foreach_add_([x], 1),
    "torch.ops": lambda x: torch.ops.aten.add_.Tensor(x, 1),
    "running statistics": lambda x: torch.nn.functional.batch_norm(
        x.reshape(2, 2), x[:2], x[2:], training=True),
    "embedding max_norm": lambda x: torch.nn.functional.embedding(
        torch.tensor([1]), x.reshape(2, 2), max_norm=0.5),
}
_TRANSFORMS = {
    "plain": lambda f: f,
    "grad": lambda f: jax.grad(lambda v: f(v).sum()),
    "vmap": lambda f: jax.vmap(f, in_axes=1, out_axes=1),
    "jvp": lambda f: lambda v: jax.jvp(f, (v,), (v,)),
}


@pytest.mark.parametrize("how", list(_TRANSFORMS))
@pytest.mark.parametrize("write", list(_WRITES))
def test_a_torch_body_s_write_into_a_jax_input_is_refused_before_it_writes(
        write, how):
    f = _TRANSFORMS[how](ut.wrap("jax", "torch")(_WRITES[write]))
    x = jnp.arange(4.0).reshape(4, 1) if how == "vmap" else jnp.arange(4.0)
    with pytest.raises(ValueError, match=_WRITTEN):
        f(x)
    np.testing.assert_array_equal(x.ravel(), [0.0, 1.0, 2.0, 3.0])


def test_a_torch_body_s_write_under_jax_jit_is_refused_before_it_writes():
    f = jax.jit(ut.wrap("jax", "torch")(lambda x: x.add_(1)))
    x = jnp.arange(4.0)
    # raised at trace time, by the shape pass on zeros (the guard is on there
    # too); in XLA's callback it would be JAX's runtime error with the message
    with pytest.raises(ValueError, match="wrote into one in place"):
        f(x).block_until_ready()
    np.testing.assert_array_equal(x, [0.0, 1.0, 2.0, 3.0])


def test_a_torch_body_s_numpy_view_of_a_jax_input_is_read_only():
    def body(x):
        x.numpy()[0] = 9.0
        return x * 1

    x = jnp.arange(4.0)
    with pytest.raises(ValueError, match="read-only"):
        ut.wrap("jax", "torch")(body)(x)
    np.testing.assert_array_equal(x, [0.0, 1.0, 2.0, 3.0])


def _unseen_write(x):
    with torch._C.DisableTorchFunction():  # the mode sees nothing in here
        x.add_(1)
    return x * 1


def test_a_write_the_mode_cannot_see_is_found_after_the_body():
    # the version counter tells
    f = ut.wrap("jax", "torch")(_unseen_write)
    with pytest.raises(ValueError, match=_WRITTEN + r"found after the body ran"):
        f(jnp.arange(4.0))


# -- P-45: the routes around the guard -------------------------------------------
_REFUSED, _COPY = "refused", "a copy"
# torch 2.13 aliases the read-only capsule (the guard refuses the write), torch 2.15
# imports a copy of it (the write lands there): either keeps the jax array
_EITHER = "refused or a copy"
# route into the memory of a jax input -> what the body meets: a refusal before
# the write, or a copy (the write lands there, never in the jax array)
_AROUND = {
    "storage copy_": (lambda x: x.untyped_storage().copy_(
        torch.full_like(x, 9.0).untyped_storage()), _COPY),
    "storage fill_": (lambda x: x.untyped_storage().fill_(7), _COPY),
    "storage item": (lambda x: x.untyped_storage().__setitem__(0, 7), _COPY),
    "a tensor set_ on its storage": (
        lambda x: torch.empty(0).set_(x.untyped_storage()).fill_(7.0), _COPY),
    "a legacy capsule": (
        lambda x: torch.utils.dlpack.from_dlpack(x.__dlpack__()).add_(1), _COPY),
    "np.from_dlpack": (lambda x: np.from_dlpack(x).__setitem__(0, 9.0), "read-only"),
    "torch.from_dlpack": (lambda x: torch.from_dlpack(x).add_(1), _EITHER),
    "torch.ops in place": (lambda x: torch.ops.aten.add_.Tensor(x, 1), _REFUSED),
    "torch.ops out=": (lambda x: torch.ops.aten.add.out(x, 1, out=x), _REFUSED),
    "torch.ops packet": (lambda x: torch.ops.aten.index_put_(
        x, (torch.tensor([0]),), torch.tensor(9.0)), _REFUSED),
    ".data": (lambda x: x.data.add_(1), _REFUSED),
    ".detach()": (lambda x: x.detach().mul_(2), _REFUSED),
    ".view()": (lambda x: x.view(2, 2).add_(1), _REFUSED),
    ".as_strided()": (lambda x: x.as_strided((2,), (2,)).add_(1), _REFUSED),
    "set_ to it": (lambda x: torch.empty(0).set_(x).add_(1), _REFUSED),
}
# under jax.jit too (the body on XLA's buffers; output_shapes: no meta pass,
# on which DLPack and storages fail). There a small input is watched, not
# guarded: every route writes, and the write is undone and refused
_AROUND_JIT = ("storage copy_", "np.from_dlpack", "torch.from_dlpack",
               "torch.ops in place", "a legacy capsule", "a tensor set_ on its storage",
               ".data")


def _around(route):
    def body(x):
        _AROUND[route][0](x)
        return x * 1
    return body


@pytest.mark.parametrize(("route", "jit"), [(r, False) for r in _AROUND] + [
    (r, True) for r in _AROUND_JIT])
def test_p45_a_torch_body_never_writes_into_a_jax_input_around_the_guard(
        route, jit):
    if jit:
        f = jax.jit(ut.wrap("jax", "torch", output_shapes=jax.ShapeDtypeStruct(
            (4,), jnp.float32))(_around(route)))
    else:
        f = ut.wrap("jax", "torch")(_around(route))
    x = jnp.arange(4.0)
    outcome = _AROUND[route][1]
    if jit:
        with pytest.raises(jax.errors.JaxRuntimeError,
                           match=r"wrote into input 0 in place \(found when it "
                           r"returned, and undone"):
            jax.block_until_ready(f(x))
    elif outcome == _EITHER:
        try:
            y, message = jax.block_until_ready(f(x)), None
        except (ValueError, jax.errors.JaxRuntimeError) as refused:
            y, message = None, str(refused)
        if message is None:  # a copy: the body read x as it was
            np.testing.assert_array_equal(y, [0.0, 1.0, 2.0, 3.0])
        else:
            assert "wrote into one in place" in message
    elif outcome == _COPY:  # the write went to a copy: the body reads x as it was
        np.testing.assert_array_equal(f(x), [0.0, 1.0, 2.0, 3.0])
    else:
        match = "read-only" if outcome == "read-only" else "wrote into one in place"
        with pytest.raises(jax.errors.JaxRuntimeError if jit else ValueError,
                           match=match):
            jax.block_until_ready(f(x))
    np.testing.assert_array_equal(x, [0.0, 1.0, 2.0, 3.0])


# -- P-46: under jax.jit, the outputs are what JAX traced the call with --------------
def _shape_of_the_run(x):
    return x * 2 if not x.any() else x[:1] * 2  # (the shape pass: zeros)


def _dtype_of_the_run(x):
    return x * 2 if not x.any() else (x * 2).to(torch.int32)


@pytest.mark.parametrize("body", [_shape_of_the_run, _dtype_of_the_run])
def test_p46_under_jax_jit_an_output_unlike_the_shape_pass_is_refused(body):
    # XLA's output buffer has the traced shape: a copy into it would broadcast
    # (x[:1] * 2 came back as [0, 0, 0]) or cast silently
    f = jax.jit(ut.wrap("jax", "torch")(body))
    with pytest.raises(jax.errors.JaxRuntimeError,
                       match=r"func \(an output of the body\): expected an array of "
                             r"shape \(3,\) and dtype float32 at output 0"):
        jax.block_until_ready(f(jnp.arange(3.0)))


def test_p46_outputs_unlike_the_given_output_shapes_are_refused():
    given = jax.ShapeDtypeStruct((2,), jnp.float32)
    f = ut.wrap("jax", "torch", output_shapes=given)(lambda x: x * 2)
    with pytest.raises(jax.errors.JaxRuntimeError, match=r"got shape \(3,\)"):
        jax.block_until_ready(jax.jit(f)(jnp.arange(3.0)))
    np.testing.assert_array_equal(f(jnp.arange(3.0)), [0.0, 2.0, 4.0])  # eagerly:
    # the body's own outputs (output_shapes stand in for a shape pass only)


def test_p46_a_64_bit_numpy_result_under_jax_jit_is_refused_as_eagerly():
    # a numpy array among the body's results is a constant of JAX's trace,
    # which JAX narrows to int32 with x64 disabled ([0, 1, 2] here)
    assert not jax.config.jax_enable_x64
    f = ut.wrap("jax", "torch")(lambda x: (x * 2, np.arange(3) + 2 ** 40))
    _, exact = f(jnp.arange(3.0))  # eagerly: as it is
    assert exact.dtype == np.int64
    assert exact[0] == 2 ** 40
    with pytest.raises(BufferError, match=r"func \(an output of the body\): "
                                          r"expected a dtype JAX holds with x64"):
        jax.jit(f)(jnp.arange(3.0))
    g = ut.wrap("jax", "torch")(lambda x: (x * 2, np.arange(3, dtype=np.int32)))
    np.testing.assert_array_equal(jax.jit(g)(jnp.arange(3.0))[1], [0, 1, 2])


# -- output_shapes: no shape pass -----------------------------------------------------
def _reads_values(x):
    n = int(x[0].item())  # (the shape pass reads zeros)
    return {"y": x * x.sum().item(), "n": torch.tensor(n + 1, dtype=torch.int32)}


_READS_GIVEN = {"y": jax.ShapeDtypeStruct((3,), jnp.float32),
                "n": jax.ShapeDtypeStruct((), jnp.int32)}


def test_a_body_reading_values_runs_under_jax_jit_with_output_shapes():
    x = jnp.arange(1.0, 4.0)
    def divides(v):  # by a value, zero in the shape pass (zeros)
        return v * (1 / v[0].item())

    with pytest.raises(ZeroDivisionError, match="output_shapes"):  # the pass's note
        jax.jit(ut.wrap("jax", "torch")(divides))(x)
    f = ut.wrap("jax", "torch", output_shapes=_READS_GIVEN)(_reads_values)
    out = jax.jit(f)(x)
    np.testing.assert_array_equal(out["y"], [6.0, 12.0, 18.0])
    assert int(out["n"]) == 2
    # its derivative too (.item() a constant of torch's autograd)
    np.testing.assert_array_equal(
        jax.jit(jax.grad(lambda v: f(v)["y"].sum()))(x), [6.0, 6.0, 6.0])


def test_output_shapes_are_read_once_and_refused_naming_the_argument():
    with pytest.raises(TypeError, match=r"wrap\(\): output_shapes: expected the "
                                        r"body's output with an object having"):
        ut.wrap("jax", "torch", output_shapes=3)
    with pytest.raises(TypeError, match=r"output_shapes: expected static shapes"):
        # (a shape TensorFlow leaves unknown, as tf.TensorSpec((None,)) has)
        ut.wrap("jax", "torch", output_shapes=[types.SimpleNamespace(
            shape=(None,), dtype=np.float32)])


def test_a_torch_body_may_read_reshape_and_write_its_own_tensors():
    def body(x, m):
        y = x.reshape(2, 2)
        y.t_()  # metadata only, in place: allowed
        z = torch.zeros(4)
        z += x  # its own tensor
        z.add_(y.reshape(4))
        m.add_(1)  # a numpy array a jax caller passes is mutable
        return z, x.numpy().sum()

    x, m = jnp.arange(4.0), np.array([1.0, 2.0])
    z, total = ut.wrap("jax", "torch")(body)(x, m)
    np.testing.assert_array_equal(z, [0.0, 3.0, 3.0, 6.0])
    assert total == 6.0
    np.testing.assert_array_equal(m, [2.0, 3.0])


@pytest.mark.parametrize("source", ["jax", "numpy"])
def test_a_read_only_numpy_input_is_guarded_like_a_jax_array(source):
    # np.asarray of a jax array is a read-only view of its memory
    a = jnp.arange(4.0)
    v = np.asarray(a)
    assert not v.flags.writeable
    f = ut.wrap(source, "torch")(lambda x: x.add_(100) * 1)
    with pytest.raises(ValueError, match="wrote into one in place"):
        f(v)
    np.testing.assert_array_equal(a, [0.0, 1.0, 2.0, 3.0])
    w = np.arange(4.0, dtype=np.float32)  # writeable: the body's to change
    f(w)
    np.testing.assert_array_equal(w, [100.0, 101.0, 102.0, 103.0])


def test_a_torch_body_in_eval_mode_reads_the_caller_s_state():
    # eval-mode batch_norm reads the running statistics, an in-place dropout
    # not training writes nothing: neither is refused
    model = torch.nn.Sequential(torch.nn.Dropout(0.5, inplace=True),
                                torch.nn.BatchNorm1d(3)).eval()
    state = {k: jnp.asarray(v.numpy()) + 1.0 for k, v in model.state_dict().items()
             if v.is_floating_point()}
    x = jnp.linspace(-1.0, 1.0, 6, dtype=jnp.float32).reshape(2, 3)

    def body(params, v):
        return torch.func.functional_call(model, params, (v,))

    f = ut.wrap("jax", "torch")(body)
    with torch.no_grad():
        want = body({k: torch.from_numpy(np.array(v)) for k, v in state.items()},
                    torch.from_numpy(np.array(x))).numpy()
    for call in (f, jax.jit(f)):
        np.testing.assert_allclose(call(state, x), want, rtol=1e-6)
    np.testing.assert_array_equal(state["1.running_mean"], [1.0, 1.0, 1.0])


@pytest.mark.slow  # torch.compile of the body: ~4.5 s
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch.compile's imports
def test_a_compiled_torch_function_inside_a_torch_body_gives_its_values():
    # Dynamo traces the read-only mode of the body: it must not change values
    # (torch 2.13 compiled a str check in the mode into wrong results)
    model = torch.compile(lambda x: (x.sin() * 2).sum())
    f = ut.wrap("jax", "torch")(model)
    x = jnp.arange(4.0)
    np.testing.assert_allclose(f(x), float(jnp.sum(jnp.sin(x) * 2)), rtol=1e-6)
    np.testing.assert_allclose(jax.jit(f)(x), float(jnp.sum(jnp.sin(x) * 2)),
                               rtol=1e-6)


# -- no state, threads -----------------------------------------------------------
def test_nothing_is_registered_per_wrapped_function():
    def body(x):
        return x * 2

    ref = weakref.ref(body)
    _differentiate_both_ways(body)
    del body
    for _ in range(100):  # (JAX's dispatch thread lets go of a finished call's
        gc.collect()      # executable a moment after its result is ready)
        if ref() is None:
            break
        time.sleep(0.01)
    assert ref() is None  # nothing outside the wrapped function kept it


def _differentiate_both_ways(body):
    x = torch.ones(2, requires_grad=True)
    ut.wrap("torch", "jax")(body)(x).sum().backward()
    jwrapped = ut.wrap("jax", "torch")(body)
    # (waited for: a call still running in JAX's dispatch holds its executable,
    # and so the body, until it ends)
    jax.jit(jax.grad(lambda a: jwrapped(a).sum()))(jnp.ones(2)).block_until_ready()


@pytest.mark.parametrize("keep", ["the tensor", "a view"])
def test_a_torch_body_keeping_its_input_under_jax_jit_is_refused(keep):
    # under jit the inputs are views of XLA's buffers, reused after the call:
    # a kept one would read reused memory later (and a write corrupt it)
    cache = {}

    def body(x):
        cache["x"] = x if keep == "the tensor" else x[1:]
        return x * 2

    f = ut.wrap("jax", "torch")(body)
    x = jnp.ones(4)
    with pytest.raises(jax.errors.JaxRuntimeError, match=r"ValueError: wrap\(\): "
                       r"func: expected a body that keeps none of its inputs once "
                       r"it returns under jax.jit"):
        jax.jit(lambda v: f(v + 1.0))(x).block_until_ready()
    cache.clear()
    # eagerly the view holds the caller's array alive: allowed
    np.testing.assert_array_equal(f(x), [2.0] * 4)
    np.testing.assert_array_equal(np.asarray(cache["x"]), [1.0] * (
        4 if keep == "the tensor" else 3))


def test_a_torch_body_may_keep_its_outputs_and_autograd_state_under_jit():
    # what holds an input only while the outputs live (an output that is the
    # input, a gradient node saving it) is not kept by the body
    lin = torch.nn.Linear(2, 2)
    f = ut.wrap("jax", "torch")(lambda v: (lin(v), v, {"n": v * 1}))
    y, same, rest = jax.jit(f)(jnp.ones((3, 2)))
    with torch.no_grad():
        want = lin(torch.ones(3, 2)).numpy()
    np.testing.assert_allclose(y, want, rtol=1e-6)
    np.testing.assert_array_equal(same, np.ones((3, 2)))
    np.testing.assert_array_equal(rest["n"], np.ones((3, 2)))


def test_torch_return_types_reach_the_caller_as_tuples():
    f = ut.wrap("jax", "torch")(lambda v: (torch.sort(v).values,
                                           torch.linalg.slogdet(v.reshape(2, 2))))
    x = jnp.array([3.0, 1.0, 2.0, 5.0])
    for call in (f, jax.jit(f)):
        values, (sign, logabsdet) = call(x)
        np.testing.assert_array_equal(values, [1.0, 2.0, 3.0, 5.0])
        np.testing.assert_allclose([sign, logabsdet], [1.0, np.log(13.0)], rtol=1e-6)
    grad = jax.grad(lambda v: f(v)[1][1])(x)  # (slogdet's saved outputs: lent)
    want = np.linalg.inv(np.array(x).reshape(2, 2)).T.ravel()
    np.testing.assert_allclose(grad, want, rtol=1e-5)


@pytest.mark.slow  # compiles or a fresh interpreter: seconds (the whole suite runs it)
def test_a_wrap_inside_a_wrap_in_every_jax_mode():
    # reentrant: under jax.jit the outer shape pass meets the inner bridge
    # with meta tensors
    inner = ut.wrap("torch", "jax")(jnp.sin)
    outer = ut.wrap("jax", "torch")(lambda v: inner(v * 2) * v)

    def native(v):
        return jnp.sin(v * 2) * v

    def loss(fn):
        return lambda v: fn(v).sum()

    x = jnp.array([0.3, 0.7, -1.2])
    for transform in (lambda fn: fn, jax.jit, lambda fn: jax.grad(loss(fn)),
                      lambda fn: jax.jit(jax.grad(loss(fn)))):
        np.testing.assert_allclose(transform(outer)(x), transform(native)(x),
                                   rtol=1e-6)


def test_bridged_calls_from_threads():
    pow2 = ut.wrap("torch", "jax")(pow2_body)
    n = torch.tensor([0, 1, 2, 3], dtype=torch.int32)
    loss = ut.wrap("jax", "torch")(lambda a, b: ((a - b) ** 2).sum())
    jitted = jax.jit(jax.grad(loss))
    errors = []

    def work(seed):
        try:
            for i in range(10):
                v = float(seed + i % 3 + 1)
                x = torch.full((4,), v, requires_grad=True)
                pow2(n, x).sum().backward()
                want = torch.tensor([1.0, 2 * v, 4 * v ** 3, 8 * v ** 7])
                torch.testing.assert_close(x.grad, want)
                a = jnp.full(3, v)
                np.testing.assert_allclose(jitted(a, jnp.ones(3)), 2 * (a - 1))
        except Exception as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_the_bridge_keeps_no_body_output_alive():
    # before: Call.out held the body's last outputs, for the jit cache's lifetime
    # (found in review); a weak reference to each output must die with the result
    outputs: list[weakref.ref] = []

    @ut.wrap(source="jax", target="torch")
    def double(x):
        y = x * 2.0
        outputs.append(weakref.ref(y))
        return y

    x = jnp.ones((64, 64))
    for run in (jax.jit(double), jax.jit(jax.grad(lambda x: double(x).sum()))):
        result = run(x)
        result.block_until_ready()
        del result
        gc.collect()
        assert outputs
        assert [ref() for ref in outputs] == [None] * len(outputs)
        outputs.clear()


@pytest.mark.slow
def test_a_guarded_body_gets_immutable_inputs_without_an_alias_warning():
    """torch's read-only guard refuses writes into a jax or TensorFlow caller's
    arrays while the body runs, so lending them is no hand-over to warn about
    (the first bridged call warned, once per process, with advice the caller
    could not follow); a user's own .torch() of such memory still warns."""
    import subprocess
    import sys
    code = """
import warnings
warnings.simplefilter("error")
import jax, jax.numpy as jnp, tensorflow as tf, torch, unitensor as ut
f = ut.wrap(source="jax", target="torch")(lambda a: torch.sin(a) * 2)
print(float(f(jnp.ones(3))[0]))
print(float(jax.grad(lambda a: f(a).sum())(jnp.ones(3))[0]))
g = ut.wrap(source="tensorflow", target="torch")(lambda a: torch.sin(a) * 2)
x = tf.ones(3)
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.reduce_sum(g(x))
print(float(tape.gradient(y, x)[0]))
try:
    ut.asarray(jnp.ones(3)).torch()
except ut.AliasWarning:
    print("warned")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["1.6829419136047363", "1.0806046724319458",
                                  "1.0806046724319458", "warned"]
