"""ut.wrap with Dr.Jit (#34): a Dr.Jit function as the body of torch, jax and
tensorflow callers, in reverse and forward mode and under torch.func,
jax.jit and vmap, checked against finite differences. The case Dr.Jit's own
``dr.wrap`` gets wrong: its documented ``pow2`` (``x *= x`` in a loop) gives
``[1, 1, 1, 1]`` for ``[1, 8, 256, 131072]`` and fails under forward mode and
torch.func; the bridge gets all three right.
"""

from __future__ import annotations

import numpy as np
import pytest

import unitensor as ut

dr = pytest.importorskip("drjit", reason="drjit is not installed (the drjit extra)")
ad = pytest.importorskip("drjit.llvm.ad")
torch = pytest.importorskip("torch")
jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
tf = pytest.importorskip("tensorflow")


@dr.syntax
def pow2(n, x):
    """Dr.Jit's documented example (dr.wrap): x squared n times, in place."""
    i, n = dr.auto.ad.Int(0), dr.auto.ad.Int(n)
    while dr.hint(i < n, max_iterations=10):
        x *= x
        i += 1
    return x


EXPECTED = [1.0, 8.0, 256.0, 131072.0]  # d/dx x**(2**n) at x = 4, n = 0..3


def torch_args(dtype=torch.float32):
    return (torch.tensor([0, 1, 2, 3], dtype=torch.int32),
            torch.tensor([4.0, 4.0, 4.0, 4.0], dtype=dtype))


def test_torch_backward_through_pow2_is_right_where_dr_wrap_s_is_not():
    f = ut.wrap("torch", "drjit")(pow2)
    n, x = torch_args()
    x.requires_grad_()
    y = f(n, x)
    np.testing.assert_array_equal(y.detach().numpy(), [4.0, 16.0, 256.0, 65536.0])
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), EXPECTED)


@pytest.mark.slow  # torch's forward-mode decompositions load on first use: seconds
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # forward AD's decompositions
def test_torch_forward_mode_and_torch_func_through_pow2():
    import torch.autograd.forward_ad as fwad
    f = ut.wrap("torch", "drjit")(pow2)
    n, x = torch_args()
    with fwad.dual_level():
        tangent = fwad.unpack_dual(f(n, fwad.make_dual(x, torch.ones(4)))).tangent
    np.testing.assert_array_equal(tangent.numpy(), EXPECTED)
    grad = torch.func.grad(lambda a: f(n, a).sum())(x)
    np.testing.assert_array_equal(grad.numpy(), EXPECTED)
    jac = torch.func.jacfwd(lambda a: f(n, a))(x)
    np.testing.assert_array_equal(jac.numpy(), np.diag(EXPECTED))


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # forward AD's decompositions
def test_torch_gradcheck_reverse_and_forward_against_finite_differences():
    f = ut.wrap("torch", "drjit")(pow2)
    n = torch.tensor([0, 1, 2, 3], dtype=torch.int32)
    x = torch.tensor([1.1, 0.9, 1.2, 0.8], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda a: f(n, a), (x,), check_forward_ad=True)


def test_torch_vmap_runs_the_body_per_item():
    f = ut.wrap("torch", "drjit")(pow2)
    n = torch.tensor([0, 1, 2, 3], dtype=torch.int32)
    out = torch.func.vmap(lambda a: f(n, a))(torch.full((2, 4), 2.0))
    np.testing.assert_array_equal(out.numpy(), [[2, 4, 16, 256]] * 2)


def test_vmap_over_an_empty_batch_gives_empty_outputs_of_the_items_shape():
    # no item to run the body on: the items' output shapes from a run on zeros
    f = ut.wrap("torch", "drjit")(pow2)
    n = torch.tensor([0, 1, 2, 3], dtype=torch.int32)
    out = torch.func.vmap(lambda a: f(n, a))(torch.ones((0, 4)))
    assert (out.shape, out.dtype) == ((0, 4), torch.float32)
    g = ut.wrap("jax", "drjit")(pow2)
    out = jax.vmap(lambda a: g(jnp.asarray(n.numpy()), a))(jnp.ones((0, 4)))
    assert (out.shape, out.dtype) == ((0, 4), jnp.float32)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # forward AD's decompositions
def test_a_second_derivative_is_refused():
    f = ut.wrap("torch", "drjit")(pow2)
    n, x = torch_args()
    with pytest.raises(NotImplementedError, match="differentiated once"):
        torch.func.hessian(lambda a: f(n, a).sum())(x)


@pytest.mark.slow  # three jax.jit compiles
def test_jax_grad_jit_jvp_and_vmap_through_pow2():
    f = ut.wrap("jax", "drjit")(pow2)
    n = jnp.array([0, 1, 2, 3], dtype=jnp.int32)
    x = jnp.full(4, 4.0, dtype=jnp.float32)
    loss = lambda a: f(n, a).sum()  # noqa: E731
    np.testing.assert_array_equal(jax.grad(loss)(x), EXPECTED)
    np.testing.assert_array_equal(jax.jit(jax.grad(loss))(x), EXPECTED)
    _, tangent = jax.jvp(lambda a: f(n, a), (x,), (jnp.ones(4),))
    np.testing.assert_array_equal(tangent, EXPECTED)
    batch = jax.jit(jax.vmap(lambda a: f(n, a)))(jnp.full((2, 4), 2.0))
    np.testing.assert_array_equal(batch, [[2, 4, 16, 256]] * 2)


def test_jax_check_grads_in_both_modes_against_finite_differences():
    jax.config.update("jax_enable_x64", True)  # (reset after the test)
    from jax.test_util import check_grads
    f = ut.wrap("jax", "drjit")(lambda x: dr.sin(x) * x)
    check_grads(f, (jnp.asarray([0.3, -1.2, 2.0]),), order=1, modes=["fwd", "rev"])


def test_tensorflow_tape_through_a_drjit_body():
    f = ut.wrap("tensorflow", "drjit")(pow2)
    n = tf.constant([0, 1, 2, 3], dtype=tf.int32)
    x = tf.constant([4.0, 4.0, 4.0, 4.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        s = tf.reduce_sum(f(n, x))
    np.testing.assert_array_equal(tape.gradient(s, x).numpy(), EXPECTED)


def test_the_caller_s_memory_reaches_the_body_zero_copy():
    seen = []

    @ut.wrap("torch", "drjit")
    def body(x):
        seen.append(np.from_dlpack(x).ctypes.data)
        return x + 1

    x = torch.arange(4.0)
    body(x)
    assert seen == [x.data_ptr()]


def test_an_output_the_body_keeps_is_copied_for_a_jax_caller():
    kept = ad.TensorXf(dr.arange(ad.Float, 4))
    dr.eval(kept)
    f = ut.wrap("jax", "drjit")(lambda a: (kept, a))
    with pytest.warns(ut.CopyWarning, match="keeps"):
        y, _ = f(jnp.zeros(4, dtype=jnp.float32))
    np.testing.assert_array_equal(y, [0, 1, 2, 3])


@pytest.mark.parametrize("caller", ["tensorflow", "jax"])
def test_the_gradient_reaches_an_output_the_body_keeps(caller):
    """The copy made of a kept output for an immutable caller keeps its place in
    Dr.Jit's graph: a TensorFlow tape's gradient was zeros."""
    made = []

    def body(x):
        y = x * x * x
        made.append(y)  # kept by the body
        return y

    f = ut.wrap(caller, "drjit")(body)
    values = np.array([0.5, -1.5, 2.0, 3.0], dtype=np.float32)
    def gradient():
        if caller == "jax":
            return jax.grad(lambda x: f(x).sum() * 2.0)(jnp.asarray(values))
        x = tf.constant(values)
        with tf.GradientTape() as tape:
            tape.watch(x)
            s = tf.reduce_sum(f(x) * 2.0)
        return tape.gradient(s, x)

    with pytest.warns(ut.CopyWarning, match="keeps"):
        grad = gradient()
    np.testing.assert_allclose(np.asarray(grad), 6 * values ** 2, rtol=1e-6)
    assert made


def test_a_drjit_caller_makes_a_plain_call_and_refuses_its_gradients():
    f = ut.wrap("drjit", "torch")(lambda a: a * 2)
    x = ad.TensorXf(dr.arange(ad.Float, 3))
    out = f(x)
    assert isinstance(out, ad.TensorXf)
    np.testing.assert_array_equal(out.numpy(), [0, 2, 4])
    dr.enable_grad(x)
    with pytest.raises(NotImplementedError, match="gradients enabled"):
        f(x)
