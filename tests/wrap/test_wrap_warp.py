"""ut.wrap with Warp (#34): a Warp-taped function as the body of torch, jax and
tensorflow callers, in reverse mode (wp.Tape) and under jax.jit, vmap and
torch.compile, checked against finite differences and Warp's own routes; a
Warp caller whose wp.Tape records the call; the refusals (forward mode, a
second derivative) and the guards (an output the body keeps, an input kept
under jax.jit).

The kernels live in tests/helpers/warp_kernels.py, loaded once per module; the
first load on a machine compiles them (seconds: those tests are slow), later
ones read Warp's kernel cache. Tests without a kernel are quick.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import unitensor as ut

wp = pytest.importorskip("warp", reason="warp-lang is not installed (the warp extra)")
torch = pytest.importorskip("torch")
jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
tf = pytest.importorskip("tensorflow")

import warp_kernels as wk  # noqa: E402  (needs warp)

X = [0.5, -1.25, 2.0, 3.0]


@pytest.fixture(scope="module", autouse=True)
def _warp_started():
    wp.init()  # (about a second, once: no test's own time)


@pytest.fixture(scope="module")
def kernels():
    wk.load()
    return wk


def cubed_grad(values):
    return 3 * np.asarray(values) ** 2


# -- a torch caller ------------------------------------------------------------
@pytest.mark.slow
def test_torch_backward_through_a_warp_body_matches_finite_differences(kernels):
    f = ut.wrap("torch", "warp")(kernels.cube_body)
    x = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    y = f(x)
    assert isinstance(y, torch.Tensor)
    np.testing.assert_allclose(y.detach().numpy(), np.asarray(X) ** 3)
    # finite differences against the backward (torch's gradcheck, reverse only)
    assert torch.autograd.gradcheck(f, (x,), check_forward_ad=False)
    y.backward(torch.ones(4, dtype=torch.float64))
    np.testing.assert_allclose(x.grad.numpy(), cubed_grad(X))


@pytest.mark.slow
def test_torch_result_is_what_warp_s_own_from_torch_and_tape_give(kernels):
    # the reference route: wp.from_torch + wp.Tape, by hand
    x_ref = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    xw = wp.from_torch(x_ref, requires_grad=True)
    tape = wp.Tape()
    with tape:
        yw = kernels.cube_body(xw)
    tape.backward(grads={yw: wp.array(np.arange(1.0, 5.0))})
    x = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    ut.wrap("torch", "warp")(kernels.cube_body)(x).backward(
        torch.arange(1.0, 5.0, dtype=torch.float64))
    np.testing.assert_array_equal(x.grad.numpy(), xw.grad.numpy())


@pytest.mark.slow
def test_a_second_backward_keeps_the_first_gradient_and_no_backward_copies_it(
        kernels, monkeypatch):
    # the tape's gradient array is handed out as it is (no copy); a second
    # backward of the same graph (retain_graph) adds into fresh ones
    clones, clone = [], wp.clone
    monkeypatch.setattr(wp, "clone", lambda *a, **k: clones.append(a) or
                        clone(*a, **k))
    f = ut.wrap("torch", "warp")(kernels.cube_body)
    x = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    y = f(x)
    first, = torch.autograd.grad(y, x, torch.ones(4, dtype=torch.float64),
                                 retain_graph=True)
    second, = torch.autograd.grad(y, x, torch.full((4,), 2.0, dtype=torch.float64),
                                  retain_graph=True)
    third, = torch.autograd.grad(y, x, torch.ones(4, dtype=torch.float64))
    np.testing.assert_allclose(first.numpy(), cubed_grad(X))
    np.testing.assert_allclose(second.numpy(), 2 * cubed_grad(X))
    np.testing.assert_allclose(third.numpy(), cubed_grad(X))
    assert clones == []


@pytest.mark.slow
def test_an_integer_input_is_not_differentiated(kernels):
    f = ut.wrap("torch", "warp")(kernels.sin_body)
    x = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    n = torch.tensor([1, 2, 3, 4])
    f(x, n).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos(X) * np.arange(1, 5))


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch.compile's imports
@pytest.mark.filterwarnings("ignore:The .grad attribute:UserWarning")  # Dynamo's
def test_torch_func_grad_vmap_and_compile_run_a_warp_body(kernels):
    f = ut.wrap("torch", "warp")(kernels.cube_body)
    x = torch.tensor(X, dtype=torch.float64)
    g = torch.func.grad(lambda a: f(a).sum())(x)
    np.testing.assert_allclose(g.numpy(), cubed_grad(X))
    batch = torch.arange(8.0, dtype=torch.float64).reshape(2, 4)
    np.testing.assert_allclose(torch.func.vmap(f)(batch).numpy(), batch.numpy() ** 3)
    # the bridge: one op of the graph (its shapes from a run on zeros)
    compiled = torch.compile(lambda a: f(a) * 2, fullgraph=True)
    xc = x.clone().requires_grad_()
    compiled(xc).sum().backward()
    np.testing.assert_allclose(xc.grad.numpy(), 2 * cubed_grad(X))


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # forward AD's decompositions
def test_forward_mode_and_a_second_derivative_are_refused(kernels):
    f = ut.wrap("torch", "warp")(kernels.cube_body)
    x = torch.tensor(X, dtype=torch.float64)
    with pytest.raises(NotImplementedError, match="no forward mode"):
        torch.func.jvp(f, (x,), (torch.ones(4, dtype=torch.float64),))
    with pytest.raises(NotImplementedError, match="no second order"):
        torch.func.grad(lambda a: torch.func.grad(lambda b: f(b).sum())(a).sum())(x)


@pytest.mark.slow
def test_vmap_over_an_empty_batch_gives_empty_outputs_of_the_items_shape(kernels):
    # no item to run: the items' output shapes from a run on zeros (a kernel
    # body launches nothing there), as for a batch of items
    for body, body32 in ((kernels.cube_body, kernels.cube_body),
                         (kernels.cube, kernels.cube32)):
        out = torch.func.vmap(ut.wrap("torch", "warp")(body))(
            torch.ones((0, 4), dtype=torch.float64))
        assert (out.shape, out.dtype) == ((0, 4), torch.float64)
        f = ut.wrap("jax", "warp")(body32)
        for vmapped in (jax.vmap(f), jax.jit(jax.vmap(f))):
            out = vmapped(jnp.ones((0, 4), dtype=jnp.float32))
            assert (out.shape, out.dtype) == ((0, 4), jnp.float32)


# -- a jax caller --------------------------------------------------------------
@pytest.mark.slow
def test_jax_grad_jit_and_vmap_of_a_warp_body_match_finite_differences(kernels):
    jax.config.update("jax_enable_x64", True)  # (reset after the test)
    f = ut.wrap("jax", "warp")(kernels.cube_body)
    x = jnp.asarray(X)
    from jax.test_util import check_grads
    check_grads(f, (x,), order=1, modes=["rev"])
    loss = lambda a: f(a).sum()  # noqa: E731
    np.testing.assert_allclose(jax.grad(loss)(x), cubed_grad(X))
    np.testing.assert_allclose(jax.jit(jax.grad(loss))(x), cubed_grad(X))
    batch = jnp.arange(8.0).reshape(2, 4)
    np.testing.assert_allclose(jax.jit(jax.vmap(f))(batch), np.asarray(batch) ** 3)
    np.testing.assert_allclose(jax.vmap(jax.grad(loss))(batch),
                               cubed_grad(np.asarray(batch)))
    with pytest.raises(NotImplementedError, match="no forward mode"):
        jax.jvp(f, (x,), (x,))


@pytest.mark.slow
def test_jax_matches_warp_s_own_jax_kernel(kernels):
    x = jnp.asarray(X, dtype=jnp.float32)
    (ref,) = jax.jit(wp.jax_kernel(kernels.cube32))(x)
    ours = jax.jit(ut.wrap("jax", "warp")(kernels.cube_body))(x)
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(ref))


# -- a tensorflow caller --------------------------------------------------------
@pytest.mark.slow
def test_tensorflow_tape_through_a_warp_body_eagerly_and_in_tf_function(kernels):
    f = ut.wrap("tensorflow", "warp")(kernels.cube_body)
    x = tf.constant(X, dtype=tf.float64)

    def value_and_grad(a):
        with tf.GradientTape() as tape:
            tape.watch(a)
            s = tf.reduce_sum(f(a))
        return s, tape.gradient(s, a)

    for run in (value_and_grad, tf.function(value_and_grad)):
        s, g = run(x)
        np.testing.assert_allclose(s.numpy(), np.sum(np.asarray(X) ** 3))
        np.testing.assert_allclose(g.numpy(), cubed_grad(X))


def test_tensorflow_tape_through_a_warp_body_keeping_its_output(kernels):
    """An output the body keeps is copied for TF's immutable tensor: the copy
    is Warp's clone on the body's tape, so the cotangent seeded on it reaches
    the body's output (the gradient was zeros)."""
    made = []

    def body(a):
        y = kernels.cube_body(a)
        made.append(y)  # kept by the body
        return y

    f = ut.wrap("tensorflow", "warp")(body)
    x = tf.constant(X, dtype=tf.float32)
    with tf.GradientTape() as tape:
        tape.watch(x)
        with pytest.warns(ut.CopyWarning, match="keeps"):
            y = f(x)
        s = tf.reduce_sum(y * 2.0)
    np.testing.assert_allclose(tape.gradient(s, x).numpy(), 2 * cubed_grad(X),
                               rtol=1e-6)
    assert made


# -- without kernels: quick ------------------------------------------------------
def test_a_warp_tape_records_a_bridged_torch_body_against_finite_differences():
    f = ut.wrap("warp", "torch")(lambda a, k: (a ** 3 * k).sum(0, keepdim=True))
    values = np.asarray(X)
    a = wp.array(values, dtype=wp.float64, requires_grad=True)
    k = wp.array(np.arange(1.0, 5.0))
    tape = wp.Tape()
    with tape:
        out = f(a, k)
    assert isinstance(out, wp.array)
    tape.backward(grads={out: wp.array(np.ones(1))})
    eps = 1e-6
    numeric = [((values + eps * e) ** 3 * np.arange(1, 5)).sum() / (2 * eps)
               - ((values - eps * e) ** 3 * np.arange(1, 5)).sum() / (2 * eps)
               for e in np.eye(4)]
    np.testing.assert_allclose(a.grad.numpy(), numeric, rtol=1e-6)
    assert not k.requires_grad  # a constant of the pullback


def test_a_warp_caller_without_a_tape_makes_a_plain_call():
    f = ut.wrap("warp", "jax")(lambda a: a * 2)
    a = wp.array(np.asarray(X, dtype=np.float32))
    out = f(a)
    assert isinstance(out, wp.array)
    np.testing.assert_allclose(out.numpy(), np.asarray(X) * 2)


def test_an_output_the_body_keeps_is_copied_for_a_jax_caller():
    kept = wp.array(np.arange(4.0, dtype=np.float32))
    f = ut.wrap("jax", "warp")(lambda a: (kept, a))
    x = jnp.asarray(X, dtype=jnp.float32)
    with pytest.warns(ut.CopyWarning, match="keeps"):
        y, same = f(x)
    assert y.unsafe_buffer_pointer() != kept.ptr
    kept.numpy()[0] = 9.0  # the jax array does not change with it
    assert float(y[0]) == 0.0
    assert same.unsafe_buffer_pointer() == x.unsafe_buffer_pointer()


@pytest.mark.slow
def test_jax_grad_of_a_body_keeping_its_output_differentiates_that_output(kernels):
    # the vjp's forward is the pullback's alone: nothing is lent, so nothing
    # is copied (a copy would take the cotangent off the tape: zeros)
    made = []

    def body(a):
        y = kernels.cube_body(a)
        made.append(y)  # kept by the body
        return y

    loss = lambda a: ut.wrap("jax", "warp")(body)(a).sum()  # noqa: E731
    x = jnp.asarray(X, dtype=jnp.float32)
    with pytest.warns(ut.CopyWarning, match="keeps"):  # the value, lent to jax
        grad = jax.grad(loss)(x)
    np.testing.assert_allclose(grad, cubed_grad(X), rtol=1e-6)
    with warnings.catch_warnings():  # jax.jit's value is written into XLA's
        warnings.simplefilter("error", ut.CopyWarning)
        np.testing.assert_allclose(jax.jit(jax.grad(loss))(x), cubed_grad(X),
                                   rtol=1e-6)
    assert made


def test_a_fresh_output_is_lent_as_it_is():
    seen = []

    def body(a):
        y = wp.clone(a)
        seen.append(y.ptr)  # the address only: nothing holds the array
        return y

    out = ut.wrap("jax", "warp")(body)(jnp.asarray(X, dtype=jnp.float32))
    assert out.unsafe_buffer_pointer() == seen[0]


def test_a_body_keeping_its_input_under_jax_jit_is_refused():
    kept = []

    def body(a):
        kept.append(a)
        return wp.clone(a)

    f = jax.jit(ut.wrap("jax", "warp")(body))
    with pytest.raises(jax.errors.JaxRuntimeError, match="kept input 0"):
        f(jnp.asarray(X, dtype=jnp.float32))


def test_output_shapes_given_skip_the_shape_run_under_jax_jit():
    runs = []

    def body(a):
        runs.append(a.shape)
        return wp.clone(a)

    shapes = jax.ShapeDtypeStruct((4,), jnp.float32)
    f = jax.jit(ut.wrap("jax", "warp", output_shapes=shapes)(body))
    np.testing.assert_array_equal(f(jnp.asarray(X, dtype=jnp.float32)), X)
    assert runs == [(4,)]  # the call alone: no run on zeros for the shapes
