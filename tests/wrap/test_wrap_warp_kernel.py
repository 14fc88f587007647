"""ut.wrap with a bare Warp kernel as the body (#34): a ``@wp.kernel`` taken as
Warp's own ``jax_kernel`` takes one (``outputs=``: its last parameters that are
outputs; ``dim=``: the launch dimensions; scalar parameters as Python numbers),
from torch, jax and tensorflow callers, in reverse mode through the kernel's
adjoint launch, under jax.jit, vmap and torch.compile; values checked against
Warp's own routes (``wp.from_torch`` + ``wp.launch``, ``wp.jax_kernel``) and
gradients against finite differences.

Tests that launch a kernel are slow (the first load of tests/helpers/
warp_kernels.py on a machine compiles it); the refusals, found before any
launch, are quick.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import unitensor as ut

wp = pytest.importorskip("warp", reason="warp-lang is not installed (the warp extra)")
torch = pytest.importorskip("torch")
jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
tf = pytest.importorskip("tensorflow")

import warp._src.context as wp_context  # noqa: E402
import warp_kernels as wk  # noqa: E402  (needs warp)

from unitensor import _core  # noqa: E402
from unitensor._wrap import _bridge  # noqa: E402
from unitensor._wrap import warp as warp_part  # noqa: E402  (needs warp)

X = np.array([0.5, -1.25, 2.0, 3.0])
W = np.array([1.0, 2.0, -1.0, 0.5])
S = 3.0


@pytest.fixture(scope="module", autouse=True)
def _warp_started():
    wp.init()  # (about a second, once: no test's own time)


@pytest.fixture(scope="module")
def kernels():
    wk.load()
    return wk


def affine_grads(x, w, s, gy, gz):
    """The cotangents of affine's x and w (y = s·x·w, z = sin x + w²)."""
    return s * w * gy + np.cos(x) * gz, s * x * gy + 2 * w * gz


# -- a torch caller ------------------------------------------------------------------
@pytest.mark.slow
def test_torch_values_and_gradients_match_warp_s_own_launch_and_adjoint(kernels):
    f = ut.wrap("torch", "warp", outputs=2)(kernels.affine)
    x = torch.tensor(X, requires_grad=True)
    w = torch.tensor(W, requires_grad=True)
    y, z = f(x, w, S)
    gy = torch.arange(1.0, 5.0, dtype=torch.float64)
    gz = torch.full((4,), 0.5, dtype=torch.float64)
    torch.autograd.backward((y, z), (gy, gz))
    # Warp's own route: from_torch views, a launch, the adjoint launch
    xw, ww = wp.from_torch(x.detach()), wp.from_torch(w.detach())
    yw, zw = wp.zeros(4, dtype=wp.float64), wp.zeros(4, dtype=wp.float64)
    wp.launch(kernels.affine, dim=4, inputs=[xw, ww, S], outputs=[yw, zw])
    adj_x, adj_w = wp.zeros(4, dtype=wp.float64), wp.zeros(4, dtype=wp.float64)
    wp.launch(kernels.affine, dim=4, inputs=[xw, ww, S], outputs=[yw, zw],
              adj_inputs=[adj_x, adj_w, 0.0],
              adj_outputs=[wp.from_torch(gy), wp.from_torch(gz)], adjoint=True)
    np.testing.assert_array_equal(y.detach().numpy(), yw.numpy())
    np.testing.assert_array_equal(z.detach().numpy(), zw.numpy())
    np.testing.assert_array_equal(x.grad.numpy(), adj_x.numpy())
    np.testing.assert_array_equal(w.grad.numpy(), adj_w.numpy())
    np.testing.assert_allclose(x.grad.numpy(),
                               affine_grads(X, W, S, gy.numpy(), gz.numpy())[0])
    # finite differences (reverse mode), the scalar by keyword
    assert torch.autograd.gradcheck(lambda a, b: f(a, b, s=1.5), (x, w),
                                    check_forward_ad=False)


@pytest.mark.slow
def test_an_integer_input_is_not_differentiated_and_outputs_start_at_zero(kernels):
    f = ut.wrap("torch", "warp")(kernels.scaled_sin)
    x = torch.tensor(X, requires_grad=True)
    n = torch.tensor([1, 2, 3, 4])
    f(x, n).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos(X) * np.arange(1, 5))
    # a kernel that adds into its output (atomic_add) starts from zeros on
    # every call; the output's shape given, the launch 2-d
    rows = ut.wrap("torch", "warp", output_shapes=torch.empty(3, dtype=torch.float64)
                   )(kernels.row_sums)
    m = torch.arange(12.0, dtype=torch.float64).reshape(3, 4)
    for _ in range(2):
        np.testing.assert_array_equal(rows(m).numpy(), (m.numpy() ** 2).sum(1))


@pytest.mark.slow
def test_torch_func_grad_and_vmap_run_a_kernel_body(kernels):
    f = ut.wrap("torch", "warp")(kernels.cube)
    x = torch.tensor(X)
    g = torch.func.grad(lambda a: f(a).sum())(x)
    np.testing.assert_allclose(g.numpy(), 3 * X ** 2)
    batch = torch.arange(8.0, dtype=torch.float64).reshape(2, 4)
    np.testing.assert_allclose(torch.func.vmap(f)(batch).numpy(), batch.numpy() ** 3)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch.compile's imports
@pytest.mark.filterwarnings("ignore:The .grad attribute:UserWarning")  # Dynamo's
@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_torch_compile_fullgraph_holds_a_kernel_body_as_one_op(kernels, backend):
    torch._dynamo.reset()
    graphs = []

    def counting(gm, example_inputs):
        graphs.append(gm)
        return torch._dynamo.backends.registry.lookup_backend(backend)(
            gm, example_inputs)
    f = ut.wrap("torch", "warp", outputs=2)(kernels.affine)

    def program(a, b):
        y, z = f(a * 2, b, S)
        return (y * z).sum()
    compiled = torch.compile(program, fullgraph=True, backend=counting)
    for scale in (1.0, 0.5):  # the second call runs the compiled graph
        x = torch.tensor(X * scale, requires_grad=True)
        w = torch.tensor(W, requires_grad=True)
        got, want = compiled(x, w), program(x, w)
        torch.testing.assert_close(got, want)
        for g, h in zip(torch.autograd.grad(got, (x, w)),
                        torch.autograd.grad(want, (x, w)), strict=True):
            torch.testing.assert_close(g, h)
    assert len(graphs) == 1  # (a graph break: two graphs, or fullgraph's error)
    ops = [node.target for node in graphs[0].graph.nodes]
    assert torch.ops.unitensor.bridge in ops, ops
    torch._dynamo.reset()


@pytest.mark.slow
def test_torch_tensors_reach_a_kernel_body_and_come_back_by_the_parts_hand_overs(
        kernels, monkeypatch):
    lent = []
    lend = _bridge.lend
    monkeypatch.setattr(_bridge, "lend",
                        lambda *a, **k: lent.append(a) or lend(*a, **k))
    f = ut.wrap("torch", "warp")(kernels.cube)
    x = torch.tensor(X, requires_grad=True)
    y = f(x)
    y.backward(torch.ones(4, dtype=torch.float64))
    np.testing.assert_array_equal(y.detach().numpy(), X ** 3)
    np.testing.assert_allclose(x.grad.numpy(), 3 * X ** 2)
    # inputs, outputs, cotangents and gradients: none took the general
    # conversion (a Tensor, its cache of views, Warp's constructor)
    assert lent == []


# -- a jax caller --------------------------------------------------------------------
@pytest.mark.slow
def test_jax_jit_values_equal_warp_s_own_jax_kernel(kernels, monkeypatch):
    jax.config.update("jax_enable_x64", True)  # (reset after the test)
    x, w = jnp.asarray(X), jnp.asarray(W)
    ref = wp.jax_kernel(kernels.affine, num_outputs=2)
    ref_y, ref_z = jax.jit(lambda a, b: ref(a, b, S))(x, w)
    f = ut.wrap("jax", "warp", outputs=2)(kernels.affine)
    copies = []
    monkeypatch.setattr(warp_part, "write", lambda *a: copies.append(a))
    y, z = jax.jit(lambda a, b: f(a, b, S))(x, w)
    np.testing.assert_array_equal(np.asarray(y), np.asarray(ref_y))
    np.testing.assert_array_equal(np.asarray(z), np.asarray(ref_z))
    assert copies == []  # launched into XLA's buffers: nothing copied
    with warnings.catch_warnings():
        warnings.simplefilter("error", ut.CopyWarning)  # fresh outputs are lent
        eager_y, _ = f(x, w, S)
    np.testing.assert_array_equal(np.asarray(eager_y), np.asarray(ref_y))


@pytest.mark.slow
def test_jax_grad_jit_and_vmap_of_a_kernel_body_match_finite_differences(kernels):
    jax.config.update("jax_enable_x64", True)
    f = ut.wrap("jax", "warp", outputs=2)(kernels.affine)
    x, w = jnp.asarray(X), jnp.asarray(W)
    from jax.test_util import check_grads
    check_grads(lambda a, b: f(a, b, S), (x, w), order=1, modes=["rev"])

    def loss(a, b):
        y, z = f(a, b, S)
        return y.sum() + 0.5 * z.sum()
    want = affine_grads(X, W, S, np.ones(4), np.full(4, 0.5))
    for grad in (jax.grad(loss, (0, 1)), jax.jit(jax.grad(loss, (0, 1)))):
        gx, gw = grad(x, w)
        np.testing.assert_allclose(gx, want[0])
        np.testing.assert_allclose(gw, want[1])
    batch = jnp.stack([x, 2 * x])
    ys = jax.jit(jax.vmap(lambda a: f(a, w, S)[0]))(batch)
    np.testing.assert_allclose(ys, S * np.asarray(batch) * W)
    rows = ut.wrap("jax", "warp", output_shapes=jax.ShapeDtypeStruct((3,), jnp.float64)
                   )(kernels.row_sums)
    m = jnp.arange(12.0).reshape(3, 4)
    for _ in range(2):  # XLA's output buffer is zero-filled before each launch
        np.testing.assert_array_equal(jax.jit(rows)(m), (np.asarray(m) ** 2).sum(1))
    check_grads(rows, (m,), order=1, modes=["rev"])


def _calls(monkeypatch, owner, name):
    """The objects ``owner.name`` is called on while a test runs, in order."""
    made = []
    real = getattr(owner, name)

    def counted(self, *args, **kwargs):
        made.append(self)
        return real(self, *args, **kwargs)
    monkeypatch.setattr(owner, name, counted)
    return made


@pytest.fixture
def launches(monkeypatch):
    """The launches Warp's own replay makes (``Launch.launch``), in order."""
    return _calls(monkeypatch, wp_context.Launch, "launch")


def test_vmap_launches_items_after_the_first_in_one_c_call(kernels, launches):
    """Warp's own replay (Python, ~3.5 µs a launch) launches item 0 of a batch;
    the others are one C call (_core.replay_launches) on the struct it built,
    each item's pointers moved in place: values as the kernel gives them alone,
    for a batch axis that is not the first and a kernel that adds per item.
    """
    jax.config.update("jax_enable_x64", True)
    f = ut.wrap("jax", "warp", outputs=2)(kernels.affine)
    xs = np.stack([X, 2 * X, -X, 4 * X])
    ws = np.stack([W, -W, 3 * W, W])
    y, z = jax.jit(jax.vmap(lambda a, b: f(a, b, S), in_axes=1))(
        jnp.asarray(xs.T), jnp.asarray(ws.T))
    np.testing.assert_array_equal(y, S * xs * ws)
    np.testing.assert_allclose(z, np.sin(xs) + ws ** 2)
    assert len(launches) == 1
    rows = ut.wrap("jax", "warp", output_shapes=jax.ShapeDtypeStruct(
        (3,), jnp.float64))(kernels.row_sums)
    ms = np.arange(60.0).reshape(5, 3, 4)
    np.testing.assert_array_equal(jax.vmap(rows)(jnp.asarray(ms)), (ms ** 2).sum(2))
    assert len(launches) == 2


def test_replay_launches_refuses_what_it_cannot_call():
    with pytest.raises(TypeError, match=r"replay_launches\(\): args: expected "
                       r"\(function, bounds, args, moves, first, items\)"):
        _core.replay_launches(1, 2, 3, [], 1, 4)
    with pytest.raises(ValueError, match="expected non-null addresses"):
        _core.replay_launches(0, 2, 3, (), 1, 4)
    with pytest.raises(TypeError, match=r"moves: expected a tuple of \(offset, "):
        _core.replay_launches(1, 2, 3, ((0, 1),), 1, 4)
    with pytest.raises(ValueError, match="moves: expected non-negative offsets"):
        _core.replay_launches(1, 2, 3, ((-8, 1, 1),), 1, 4)


def test_jit_launches_later_calls_by_the_first_calls_plan(kernels, launches):
    """Under jax.jit, the first call of a kernel body (plain or batched) makes
    Warp's arrays over XLA's buffers and launches through Warp's replay; every
    later call is the results zeroed and one C call, on the new buffers' own
    addresses: right values on new inputs each call, none of Warp's Python.
    """
    jax.config.update("jax_enable_x64", True)
    f = ut.wrap("jax", "warp", outputs=2)(kernels.affine)
    plain = jax.jit(lambda a, b: f(a, b, S))
    batched = jax.jit(jax.vmap(lambda a, b: f(a, b, S), in_axes=(1, None)))
    for k in range(3):
        x, w = (k + 1) * X, W - k
        y, z = plain(jnp.asarray(x), jnp.asarray(w))
        np.testing.assert_array_equal(y, S * x * w)
        np.testing.assert_allclose(z, np.sin(x) + w ** 2)
        xs = np.stack([x, -x, 2 * x])
        y, z = batched(jnp.asarray(xs.T), jnp.asarray(w))
        np.testing.assert_array_equal(y, S * xs * w)
        np.testing.assert_allclose(z, np.sin(xs) + w ** 2)
    assert len(launches) == 2  # the first call of each
    rows = jax.jit(jax.vmap(ut.wrap("jax", "warp", output_shapes=jax.ShapeDtypeStruct(
        (3,), jnp.float64))(kernels.row_sums)))
    for k in range(2):  # an atomic sum into each item's rows: zeroed each call
        ms = np.arange(60.0).reshape(5, 3, 4) + k
        np.testing.assert_array_equal(rows(jnp.asarray(ms)), (ms ** 2).sum(2))
    assert len(launches) == 3


def test_vmap_of_a_kernel_body_launches_each_item_in_one_batched_replay(
        kernels, monkeypatch):
    """jax.vmap and torch.func.vmap of a kernel body: the outputs made once for
    the batch and one replayed launch per item on the batch's own memory (one
    replay_items call for the batch, not a body run per item), each item's
    values as the kernel gives them alone, whatever the batch axis, with
    unbatched inputs, and for a kernel that adds into one element per item.
    """
    jax.config.update("jax_enable_x64", True)
    batched = []
    real = warp_part.Kernel.replay_items

    def spy(self, dim, inputs, outs, steps, items, *rest, **kwargs):
        batched.append(items)
        return real(self, dim, inputs, outs, steps, items, *rest, **kwargs)
    monkeypatch.setattr(warp_part.Kernel, "replay_items", spy)
    f = ut.wrap("jax", "warp", outputs=2)(kernels.affine)
    w = jnp.asarray(W)
    xs = np.stack([X, 2 * X, -X])
    y, z = jax.vmap(lambda a: f(a, w, S))(jnp.asarray(xs))
    np.testing.assert_array_equal(y, S * xs * W)
    np.testing.assert_allclose(z, np.sin(xs) + W ** 2)
    assert batched == [3]
    ws = np.stack([W, -W, 3 * W])  # batch axis 1 of both inputs, under jit:
    copied = []  # launched into XLA's output buffers, nothing copied into them
    monkeypatch.setattr(warp_part, "write", lambda *a: copied.append(a))
    y, z = jax.jit(jax.vmap(lambda a, b: f(a, b, S), in_axes=1))(
        jnp.asarray(xs.T), jnp.asarray(ws.T))
    assert copied == []
    np.testing.assert_array_equal(y, S * xs * ws)
    np.testing.assert_allclose(z, np.sin(xs) + ws ** 2)
    rows = ut.wrap("jax", "warp", output_shapes=jax.ShapeDtypeStruct(
        (3,), jnp.float64))(kernels.row_sums)
    ms = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(jax.vmap(rows)(jnp.asarray(ms)), (ms ** 2).sum(2))
    cube = ut.wrap("torch", "warp")(kernels.cube)
    ts = torch.tensor(xs)
    np.testing.assert_array_equal(torch.func.vmap(cube)(ts).numpy(), xs ** 3)
    assert batched[-1] == 3


@pytest.mark.slow
def test_the_shape_pass_under_jax_jit_launches_nothing(kernels, monkeypatch):
    launches = []
    replay = warp_part.Kernel.replay_items
    monkeypatch.setattr(
        warp_part.Kernel, "replay_items",
        lambda self, *a, **k: launches.append(a) or replay(self, *a, **k))
    f = jax.jit(ut.wrap("jax", "warp")(kernels.cube32))
    x = jnp.asarray(X, dtype=jnp.float32)
    np.testing.assert_allclose(f(x), X ** 3, rtol=1e-6)
    assert len(launches) == 1  # the call's own: the shapes came without one


# -- the derivatives: the kernel's adjoint launch, no tape ----------------------------
@pytest.fixture
def tapes(monkeypatch):
    """The wp.Tapes made while a test runs (Warp's own, counted as made)."""
    return _calls(monkeypatch, wp.Tape, "__init__")


@pytest.fixture
def adjoints(monkeypatch):
    """The adjoint launches of kernel bodies while a test runs (their kernels:
    not the arrays, views of XLA's buffers that the body must not keep).
    """
    launched = []
    adjoint = warp_part.Kernel.adjoint
    monkeypatch.setattr(warp_part.Kernel, "adjoint", lambda self, *a: launched.append(
        self.kernel.key) or adjoint(self, *a))
    return launched


def warp_s_own_adjoint(kernel, x, w, gy, gz):
    """affine's cotangents of x and w by Warp's own launches (numpy in and out)."""
    xw, ww = wp.array(x, dtype=wp.float64), wp.array(w, dtype=wp.float64)
    yw, zw = wp.zeros(4, dtype=wp.float64), wp.zeros(4, dtype=wp.float64)
    wp.launch(kernel, dim=4, inputs=[xw, ww, S], outputs=[yw, zw])
    adj_x, adj_w = wp.zeros(4, dtype=wp.float64), wp.zeros(4, dtype=wp.float64)
    wp.launch(kernel, dim=4, inputs=[xw, ww, S], outputs=[yw, zw],
              adj_inputs=[adj_x, adj_w, 0.0],
              adj_outputs=[wp.array(gy, dtype=wp.float64),
                           wp.array(gz, dtype=wp.float64)], adjoint=True)
    return adj_x.numpy(), adj_w.numpy()


@pytest.mark.slow
def test_jax_grad_jit_grad_and_vmap_of_grad_launch_the_adjoint_without_a_tape(
        kernels, tapes, adjoints):
    jax.config.update("jax_enable_x64", True)
    f = ut.wrap("jax", "warp", outputs=2)(kernels.affine)
    x, w = jnp.asarray(X), jnp.asarray(W)

    def loss(a, b):
        y, z = f(a, b, S)
        return y.sum() + 0.5 * z.sum()
    want = warp_s_own_adjoint(kernels.affine, X, W, np.ones(4), np.full(4, 0.5))
    for grad in (jax.grad(loss, (0, 1)), jax.jit(jax.grad(loss, (0, 1)))):
        gx, gw = grad(x, w)
        np.testing.assert_array_equal(gx, want[0])  # the same launches: bit-equal
        np.testing.assert_array_equal(gw, want[1])
    per_item = jax.jit(jax.vmap(jax.grad(loss), (0, None)))(jnp.stack([x, 2 * x]), w)
    np.testing.assert_array_equal(per_item[0], want[0])
    np.testing.assert_array_equal(
        per_item[1], warp_s_own_adjoint(kernels.affine, 2 * X, W, np.ones(4),
                                        np.full(4, 0.5))[0])
    assert tapes == []  # (the taped route made one per derivative)
    assert len(adjoints) == 4  # grad, jit(grad), one per item of the batch


@pytest.mark.slow
def test_torch_func_grad_and_vjp_launch_the_adjoint_without_a_tape(
        kernels, tapes, adjoints):
    f = ut.wrap("torch", "warp", outputs=2)(kernels.affine)
    x, w = torch.tensor(X), torch.tensor(W)
    gy, gz = np.arange(1.0, 5.0), np.full(4, 0.5)
    want = warp_s_own_adjoint(kernels.affine, X, W, gy, gz)
    _, pull = torch.func.vjp(lambda a, b: f(a, b, S), x, w)
    gx, gw = pull((torch.tensor(gy), torch.tensor(gz)))
    np.testing.assert_array_equal(gx.numpy(), want[0])
    np.testing.assert_array_equal(gw.numpy(), want[1])
    g = torch.func.grad(lambda a: f(a, w, S)[0].sum())(x)
    np.testing.assert_allclose(g.numpy(), S * W)
    assert tapes == []
    assert len(adjoints) == 2
    # a second derivative is refused (an adjoint launch has none), not zero
    with pytest.raises(NotImplementedError, match="second derivative"):
        torch.func.grad(lambda a: torch.func.grad(
            lambda b: f(b, w, S)[1].sum())(a).sum())(x)


# -- a tensorflow caller ------------------------------------------------------------
@pytest.mark.slow
def test_tensorflow_tape_through_a_kernel_body_eagerly_and_in_tf_function(kernels):
    f = ut.wrap("tensorflow", "warp", outputs=2)(kernels.affine)

    def value_and_grad(a, b):
        with tf.GradientTape() as tape:
            tape.watch(a)
            y, z = f(a, b, S)
            s = tf.reduce_sum(y) + tf.reduce_sum(0.5 * z)
        return s, tape.gradient(s, a)

    want = affine_grads(X, W, S, np.ones(4), np.full(4, 0.5))[0]
    for run in (value_and_grad, tf.function(value_and_grad)):
        s, g = run(tf.constant(X), tf.constant(W))
        value = np.sum(S * X * W + 0.5 * (np.sin(X) + W ** 2))
        np.testing.assert_allclose(s.numpy(), value)
        np.testing.assert_allclose(g.numpy(), want)


# -- refusals, before any launch: quick ------------------------------------------------
def test_the_bridged_kernel_shows_its_inputs_as_its_signature():
    f = ut.wrap("torch", "warp", outputs=2)(wk.affine)
    assert list(inspect.signature(f).parameters) == ["x", "w", "s"]
    assert f.__name__ == "affine"


def test_outputs_and_dim_are_for_a_kernel_body_only():
    with pytest.raises(TypeError, match=r"wrap\(\): outputs: .*@wp.kernel body"):
        ut.wrap("torch", "warp", outputs=1)(lambda a: a)
    with pytest.raises(TypeError, match=r"wrap\(\): dim: .*target='warp'"):
        ut.wrap("torch", "jax", dim=4)


def test_kernels_the_bridge_cannot_launch_are_refused():
    with pytest.raises(TypeError, match=r"func: .*scalar dtypes.*'v'"):
        ut.wrap("torch", "warp")(wk.norms)  # a vec3d input
    with pytest.raises(ValueError, match=r"outputs: .*1 to 5"):
        ut.wrap("torch", "warp", outputs=0)(wk.affine)
    with pytest.raises(TypeError, match=r"func: .*'s'"):
        ut.wrap("torch", "warp", outputs=3)(wk.affine)  # the scalar as an output
    with pytest.raises(TypeError, match=r"dim: .*launch dimensions"):
        ut.wrap("torch", "warp", dim=(4.0,))(wk.cube)
    with pytest.raises(TypeError, match=r"output_shapes: .*dtype and ndim"):
        ut.wrap("torch", "warp", output_shapes=torch.empty(4))(wk.cube)  # float32


def test_arguments_that_do_not_fit_the_kernel_are_refused_before_a_launch():
    f = ut.wrap("torch", "warp", outputs=2)(wk.affine)
    x, w = torch.tensor(X), torch.tensor(W)
    with pytest.raises(TypeError, match=r"args: .*parameter 'x' of 'affine'.*float32"):
        f(x.float(), w, S)
    with pytest.raises(TypeError, match=r"args: .*parameter 's'.*Python number"):
        f(x, w, torch.tensor([S]))
    with pytest.raises(TypeError, match=r"args: .*inputs of kernel 'affine'"):
        f(x, w)


# -- the hand-overs (no kernel launched): quick --------------------------------------
def test_warp_s_hand_over_gives_the_buffer_a_view_of_unitensor_s_holds():
    buf = _core.from_array_interface(np.arange(6.0))
    view = warp_part.imported(buf, False)
    assert view.ptr == buf.data_ptr
    assert view._ref is buf
    assert warp_part.exported(view, True) is buf  # (a kernel body's outputs too)
    # a strided array of Warp's own: by its array interface, where not compact
    strided = wp.zeros(6, dtype=wp.float32)[::2]
    out = warp_part.exported(strided, False)
    assert out.data_ptr == strided.ptr
    assert out.strides == (2,)
    assert warp_part.exported(strided, True) is None  # copied by lend
    # what Warp aliases only with a warning, or not at all: the general path
    read_only = _core.from_array_interface(np.arange(6.0))
    read_only.mark_readonly()
    assert warp_part.imported(read_only, False) is None
    for refused in (np.float64(1.0), np.zeros(2, np.complex64)):  # 0-d, complex
        assert warp_part.imported(_core.from_array_interface(refused), False) is None
