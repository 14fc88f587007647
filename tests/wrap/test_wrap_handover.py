"""ut.wrap hands torch and jax arrays over by the parts' own route (#34): the
adapters' export and alias through a Buffer, without a unitensor Tensor per
array (``_lend.lend``, the general conversion), for plain CPU arrays each side
can alias; anything else still takes the general conversion, with its copy
rule and reports. Counted, not timed: how many hand-overs take the general
path, and whether torch's ``Function.apply`` reads a signature per call.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import unitensor as ut
from unitensor._wrap import _bridge

readonly = pytest.importorskip("unitensor._backends.torch.interop").readonly

torch = pytest.importorskip("torch")
jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


@pytest.fixture
def general(monkeypatch):
    """The arrays handed over by the general conversion (lend), as they come."""
    seen = []
    lend = _bridge.lend

    def counted(array, *args, **kwargs):
        seen.append(array)
        return lend(array, *args, **kwargs)

    monkeypatch.setattr(_bridge, "lend", counted)
    return seen


def test_a_torch_caller_of_a_jitted_body_hands_over_without_a_tensor(general):
    @jax.jit
    def body(a, b, c):
        return a * b + c

    f = ut.wrap("torch", "jax")(body)
    a = torch.rand(16, requires_grad=True)
    b, c = torch.rand(16), torch.rand(16)
    for _ in range(2):
        a.grad = None
        y = f(a, b, c)
        y.sum().backward()  # its cotangent has stride 0: compacted by torch
        torch.testing.assert_close(y, a * b + c)
        torch.testing.assert_close(a.grad, b)
    # three inputs and a cotangent to jax, the output and a gradient to torch
    assert general == []
    # the guard stays: the output is jax's memory, lent read-only
    assert readonly(y)


def test_a_jax_caller_of_a_torch_body_hands_over_without_a_tensor(general):
    def body(x):
        return torch.sin(x)

    f = ut.wrap("jax", "torch")(body)
    x = jnp.linspace(0.0, 1.0, 16)
    got = f(x)
    assert isinstance(got, jax.Array)
    assert jnp.allclose(got, jnp.sin(x))
    assert general == []

    def writes(x):  # the caller's immutable memory is still guarded
        return x.add_(1)

    with pytest.raises(ValueError, match="wrap"):
        ut.wrap("jax", "torch")(writes)(x)


def test_what_the_parts_route_cannot_alias_takes_the_general_conversion(general):
    f = ut.wrap("torch", "jax")(jax.jit(lambda a: a * 2))
    x = torch.arange(32.0)[::2]  # not compact: jax would copy it
    with pytest.warns(ut.CopyWarning):
        got = f(x)
    torch.testing.assert_close(got, x * 2)
    assert [a is x for a in general] == [True]
    general.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f(torch.arange(16.0))  # compact: the parts' route, no copy
    assert general == []
    # a dtype unitensor does not hold is refused as the general path refuses it
    with pytest.raises(TypeError, match="asarray"):
        f(torch.ones(4, dtype=torch.float8_e4m3fn))


def test_a_torch_caller_of_a_drjit_body_hands_over_without_a_tensor(general):
    # (through lend, the general path, the call was 1.18x dr.wrap's forward +
    # backward; by the parts' route 0.98x, benchmarks/wrap.py --rows drjit)
    dr = pytest.importorskip("drjit")

    def body(x, y):
        return x * x + y

    f = ut.wrap("torch", "drjit")(body)
    x = torch.linspace(0.0, 1.0, 16).requires_grad_()
    y = torch.ones(16)
    for _ in range(2):
        x.grad = None
        out = f(x, y)
        out.sum().backward()
        torch.testing.assert_close(out, x * x + y)
        torch.testing.assert_close(x.grad, 2 * x.detach())
    # two inputs and a cotangent to Dr.Jit, the output and a gradient to torch
    assert general == []
    strided = torch.arange(32.0)[::2]  # Dr.Jit's tensors are compact: a copy
    with pytest.warns(ut.CopyWarning):
        torch.testing.assert_close(f(strided, y), strided * strided + y)
    assert [a is strided for a in general] == [True]
    assert isinstance(ut.wrap("drjit", "torch")(torch.sin)(
        dr.llvm.ad.TensorXf([0.5, 1.0])), dr.llvm.ad.TensorXf)


def test_tensorflow_hands_over_without_a_tensor_both_ways(general):
    # (through lend: tf -> jax body 38.6 µs eager, torch -> tf body 38.4; by the
    # parts' route 32.0 and 34.2, benchmarks/wrap.py --rows tf)
    tf = pytest.importorskip("tensorflow")
    x, y = tf.constant([0.5, 1.0, 2.0]), tf.constant([2.0, 3.0, 4.0])
    got = ut.wrap("tensorflow", "jax")(lambda a, b: jnp.sin(a) * b)(x, y)
    assert isinstance(got, tf.Tensor)
    np_expected = (tf.sin(x) * y).numpy()
    assert abs(got.numpy() - np_expected).max() < 1e-6
    t = torch.tensor([0.5, 1.0, 2.0])
    back = ut.wrap("torch", "tensorflow")(tf.sin)(t)
    torch.testing.assert_close(back, torch.sin(t))
    # a jax caller's read-only memory reaches TF as it is (TF never writes)
    j = jnp.linspace(0.0, 1.0, 16)
    assert jnp.allclose(ut.wrap("jax", "tensorflow")(tf.sin)(j), jnp.sin(j))
    assert general == []
    strided = torch.arange(32.0)[::2]  # TF takes compact memory only: a copy
    with pytest.warns(ut.CopyWarning):
        torch.testing.assert_close(ut.wrap("torch", "tensorflow")(tf.sin)(strided),
                                   torch.sin(strided))
    assert [a is strided for a in general] == [True]
    v = tf.Variable([1.0, 2.0])  # a variable is read by the general path
    assert ut.wrap("tensorflow", "torch")(torch.sin)(v).numpy().tolist() == [
        pytest.approx(float(np.sin(1.0))), pytest.approx(float(np.sin(2.0)))]


def test_a_nested_or_sparse_tensor_is_refused_by_name_not_by_torch(general):
    # a nested tensor reached the kept views' stamp, whose x.shape raised torch's
    # "Internal error: NestedTensorImpl doesn't support sizes" (a RuntimeError)
    f = ut.wrap("torch", "jax")(jax.jit(jnp.sin))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's prototype-stage warning
        nested = torch.nested.nested_tensor([torch.ones(2), torch.ones(3)])
        jagged = torch.nested.nested_tensor([torch.ones(2), torch.ones(3)],
                                            layout=torch.jagged)
    for x, kind in ((nested, BufferError), (jagged, TypeError),
                    (torch.ones(3).to_sparse(), TypeError)):
        with pytest.raises(kind, match="strided"):
            f(x)
    assert len(general) == 3  # each left to the general conversion, which refuses


def test_a_bridged_torch_call_reads_no_signature(monkeypatch):
    f = ut.wrap("torch", "jax")(jax.jit(lambda a: a * 2))
    a = torch.rand(4, requires_grad=True)
    f(a).sum().backward()  # (its first call compiles)
    read = []
    signature = inspect.signature

    def counted(*args, **kwargs):
        read.append(args)
        return signature(*args, **kwargs)

    monkeypatch.setattr(inspect, "signature", counted)
    f(a).sum().backward()
    # torch's Python Function.apply (to 2.14) reads forward's signature on every
    # call; the bridge calls torch's C apply (outside torch.func) and reads none.
    # torch 2.15's Function.apply is that C apply, which binds forward's default
    # arguments itself (one read): then the bridge reads what torch reads.
    in_c = (torch.autograd.Function.__dict__.get("apply")
            is torch._C._FunctionBase.__dict__["apply"])
    assert len(read) == (1 if in_c else 0)  # (torch.func: Function.apply)
