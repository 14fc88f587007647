"""A torch training loop over a ``jax.jit`` body (#34): a real scalar loss runs
as one compiled call giving the value and the gradients at a cotangent of 1
once a backward followed its forward (the backward then calls no jax and
hands jax no cotangent), and an input unchanged since the last call (the
loop's data) is not handed over again. Counted, not timed: the arrays handed
to jax (the jax adapter's alias), per forward and per backward.
"""

from __future__ import annotations

import gc

import pytest

import unitensor as ut

torch = pytest.importorskip("torch")
jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jax_wrap = pytest.importorskip("unitensor._wrap.jax")
StorageWeakRef = pytest.importorskip("torch.multiprocessing.reductions").StorageWeakRef


@pytest.fixture
def handed(monkeypatch):
    """The torch arrays handed to jax by the parts' route, counted."""
    seen = []
    alias = jax_wrap._interop.alias

    def counted(buf):
        seen.append(buf)
        return alias(buf)

    monkeypatch.setattr(jax_wrap._interop, "alias", counted)
    return seen


def _loss(x, t):
    return jnp.sum((x * x - t) ** 2)


def test_a_scalar_loss_backward_hands_jax_nothing(handed):
    f = ut.wrap("torch", "jax")(jax.jit(_loss))
    x = torch.linspace(0.5, 1.5, 16, requires_grad=True)
    t = torch.linspace(0.0, 1.0, 16)
    for step in range(3):
        x.grad = None
        loss = f(x, t)
        handed.clear()
        loss.backward()
        # the first backward calls the compiled pullback (its cotangent handed
        # to jax); then a backward followed, and each forward gives the
        # gradients with the value: the backward multiplies them in torch
        assert len(handed) == (1 if step == 0 else 0)
        with torch.no_grad():
            torch.testing.assert_close(loss, ((x * x - t) ** 2).sum())
            torch.testing.assert_close(x.grad, 4 * x * (x * x - t))


def test_forwards_without_their_backward_take_the_pullback_again(handed):
    f = ut.wrap("torch", "jax")(jax.jit(_loss))
    x = torch.linspace(0.5, 1.5, 16, requires_grad=True)
    t = torch.linspace(0.0, 1.0, 16)
    for _ in range(2):  # a backward follows: the next forward fuses
        f(x, t).backward()
    x.grad = None
    # the first fuses; the second finds its gradients not asked for: the
    # forward alone again, as the third, until a backward follows
    losses = [f(x, t), f(x, t), f(x, t)]
    handed.clear()
    torch.stack(losses).sum().backward()
    assert len(handed) == 2  # the cotangents of the second and third
    with torch.no_grad():
        torch.testing.assert_close(x.grad, 3 * 4 * x * (x * x - t))
    f(x, t)  # fused, its gradients never asked for: the next forward alone,
    f(x, t).backward()  # which a backward follows: the next one fuses again
    handed.clear()
    x.grad = None
    f(x, t).backward()
    assert handed == []  # no cotangent handed to jax (nor x or t: kept)
    with torch.no_grad():
        torch.testing.assert_close(x.grad, 4 * x * (x * x - t))


def test_a_complex_input_of_a_real_loss_has_torch_s_gradient():
    f = ut.wrap("torch", "jax")(jax.jit(lambda z: jnp.sum(jnp.abs(z * z) ** 2)))
    z = torch.tensor([1 + 2j, 0.5 - 1j, -1 + 0.25j], requires_grad=True)
    expected = torch.autograd.grad((z * z).abs().pow(2).sum(), z)[0]
    for _ in range(3):  # the pullback, then the fused call twice
        z.grad = None
        (f(z) * 2).backward()
        torch.testing.assert_close(z.grad, 2 * expected)


def test_an_unchanged_input_is_handed_over_once(handed):
    f = ut.wrap("torch", "jax")(jax.jit(_loss))
    x = torch.linspace(0.5, 1.5, 16, requires_grad=True)
    t = torch.linspace(0.0, 1.0, 16)
    counts = []
    for _ in range(3):
        x.grad = None
        handed.clear()
        loss = f(x, t)
        counts.append(len(handed))
        loss.backward()
        with torch.no_grad():  # x changes in place: its kept view aliases it
            x -= 0.01 * x.grad
        torch.testing.assert_close(f(x, t).detach(), ((x * x - t) ** 2).sum())
    assert counts == [2, 0, 0]  # each once only
    with torch.no_grad():
        t.mul_(2)  # a write into the data: its new values read through the view
        handed.clear()
        torch.testing.assert_close(f(x, t), ((x * x - t) ** 2).sum())
    assert handed == []
    x2 = torch.linspace(0.5, 1.5, 32, requires_grad=True)  # other memory: handed
    f(x2, torch.linspace(0.0, 1.0, 32))
    assert len(handed) == 2


def test_a_kept_view_does_not_keep_the_callers_memory():
    f = ut.wrap("torch", "jax")(jax.jit(_loss))
    x = torch.linspace(0.5, 1.5, 16, requires_grad=True)
    t = torch.linspace(0.0, 1.0, 16)
    memory = StorageWeakRef(t.untyped_storage())
    for _ in range(2):
        f(x, t).backward()
    del t
    gc.collect()
    assert memory.expired()
