"""unitensor code inside torch.compile(fullgraph=True): one graph, eager's values
and gradients (the twins in unitensor/_compile.py, the bridge op in
unitensor/_wrap/torch_ops.py)."""

from __future__ import annotations

import pytest

import unitensor as ut
from unitensor import _fast

torch = pytest.importorskip("torch")
dynamo = pytest.importorskip("torch._dynamo")


def program(a, b):
    """Array API code on torch tensors: asarray, functions, .torch() and .native."""
    x, y = ut.asarray(a), ut.asarray(b)
    z = ut.add(ut.multiply(ut.sin(x), y), 1.0)
    z = ut.where(ut.greater(z, 0.5), z, ut.exp(z))
    product = ut.matmul(z, ut.matrix_transpose(y))
    return ut.sum(z, axis=0).torch(), ut.mean(product).native


class Counting:
    """A backend that counts the graphs Dynamo hands it and the torch ops in them."""

    def __init__(self) -> None:
        self.graphs: list[torch.fx.GraphModule] = []

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        return gm.forward


@pytest.fixture(autouse=True)
def fresh_dynamo():
    dynamo.reset()
    yield
    dynamo.reset()


# aot_eager traces as eager does and adds AOTAutograd: the whole suite runs it,
# the long checks both (~20 s each)
@pytest.mark.parametrize("backend", [pytest.param("eager", marks=pytest.mark.long),
                                     "aot_eager"])
@pytest.mark.slow  # compiles or a fresh interpreter: seconds (the whole suite runs it)
def test_values_and_gradients_match_eager(backend):
    a = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    b = torch.randn(4, 3, dtype=torch.float64)
    compiled = torch.compile(program, fullgraph=True, backend=backend)
    got, want = compiled(a, b), program(a, b)
    for g, w in zip(got, want, strict=True):
        assert type(g) is torch.Tensor
        torch.testing.assert_close(g, w)
    (grad,) = torch.autograd.grad(got[0].sum() + got[1], a)
    (expected,) = torch.autograd.grad(want[0].sum() + want[1], a)
    torch.testing.assert_close(grad, expected)


@pytest.mark.slow  # compiles or a fresh interpreter: seconds (the whole suite runs it)
def test_one_graph_holding_the_torch_ops():
    counting = Counting()
    a, b = torch.randn(4, 3), torch.randn(4, 3)
    torch.compile(program, fullgraph=True, backend=counting)(a, b)
    assert len(counting.graphs) == 1
    targets = {node.target for node in counting.graphs[0].graph.nodes
               if node.op in ("call_function", "call_method")}
    for op in (torch.sin, torch.exp, torch.where, torch.matmul, torch.sum):
        assert any(op is t or getattr(op, "__name__", None) == getattr(t, "__name__", 0)
                   for t in targets), (op, targets)
    explained = dynamo.explain(program)(a, b)
    assert explained.graph_break_count == 0


def test_first_call_inside_the_compiled_function():
    # No eager call taught the fast paths anything: the general path is traced.
    def fresh(a):
        return ut.max(ut.tanh(ut.asarray(a)), axis=0).torch()
    a = torch.randn(5)
    torch.testing.assert_close(torch.compile(fresh, fullgraph=True,
                                             backend="eager")(a), fresh(a))


@pytest.mark.slow
# inductor's own imports use torch.jit's deprecated decorators
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_inductor():
    a, b = torch.randn(8, 3), torch.randn(8, 3)
    got = torch.compile(program, fullgraph=True, backend="inductor")(a, b)
    for g, w in zip(got, program(a, b), strict=True):
        torch.testing.assert_close(g, w)


def with_operators(a, b, v, idx):
    """The same kind of code spelled with Tensor's operators and indexing."""
    x, y = ut.asarray(a), ut.asarray(b)
    z = x * y + 1.0
    z = 2.0 - z / (abs(y) + 1.0)  # reflected, abs
    z = -(z ** 2) + (+x) - 3.0 * y
    keep = ((z < y) | (0.5 < x)) & (x != y) ^ (x == x)  # a reflected comparison
    z = ut.where(keep & (x >= -1.0) & (y <= 1.0) | (x > 2.0), z, z * 0.5)
    w = z * 1.0
    w += y  # in place
    w *= 2.0
    w -= x
    w[0, ...] = ut.asarray(v)  # a write, with a gradient to v
    s = x * 0.0
    s[...] = y
    s /= 2.0
    picked = (w[1:], w[ut.asarray(idx)], w[w > 0.0], w[:, 0], w.mT[0], w[-1, 1])
    return (z.torch(), s.torch(), *(p.torch() for p in picked))


def integer_operators(c):
    i = ut.asarray(c)
    return (((i << 1) >> 1) + i % 3 + (i & 6) + (i | 1) + (i ^ 5) + 2 ** i
            - 10 % (i + 1) - (1 << i)).torch()


def operator_inputs():
    a = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    b = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    v = torch.randn(3, dtype=torch.float64, requires_grad=True)
    return a, b, v, torch.tensor([0, 2, 3])


# aot_eager traces as eager does and adds AOTAutograd: the whole suite runs it,
# the long checks both (~20 s each)
@pytest.mark.parametrize("backend", [pytest.param("eager", marks=pytest.mark.long),
                                     "aot_eager"])
@pytest.mark.slow  # compiles or a fresh interpreter: seconds (the whole suite runs it)
def test_operators_and_indexing_match_eager(backend):
    args = operator_inputs()
    compiled = torch.compile(with_operators, fullgraph=True, backend=backend)
    got, want = compiled(*args), with_operators(*args)
    for g, w in zip(got, want, strict=True):
        assert type(g) is torch.Tensor
        torch.testing.assert_close(g, w)
    grads = torch.autograd.grad(sum(g.sum() for g in got), args[:3])
    expected = torch.autograd.grad(sum(w.sum() for w in want), args[:3])
    for g, w in zip(grads, expected, strict=True):
        torch.testing.assert_close(g, w)
    c = torch.arange(12).reshape(4, 3)
    torch.testing.assert_close(
        torch.compile(integer_operators, fullgraph=True, backend=backend)(c),
        integer_operators(c))


@pytest.mark.slow  # compiles or a fresh interpreter: seconds (the whole suite runs it)
def test_operators_and_indexing_make_one_graph():
    counting = Counting()
    counters = torch._dynamo.utils.counters
    counters.clear()
    torch.compile(with_operators, fullgraph=True, backend=counting)(*operator_inputs())
    assert len(counting.graphs) == 1
    assert sum(counters["graph_break"].values()) == 0
    targets = {str(node.target) for node in counting.graphs[0].graph.nodes}
    for name in ("mul", "add", "truediv", "neg", "lt", "getitem", "setitem"):
        assert any(name in t for t in targets), (name, targets)


# torch 2.13's Dynamo traces no `@` and no `~` on an object of a user type (its
# builtin handlers for operator.matmul and operator.invert took torch and Python
# numbers only; ut.matmul and ut.bitwise_invert trace). torch 2.14 traces both: a
# strict xfail before it (a fix there is an XPASS), one graph of eager's values from it.
DYNAMO_OPERATOR_GAPS = torch.torch_version.TorchVersion(torch.__version__) < "2.14"


@pytest.mark.xfail(DYNAMO_OPERATOR_GAPS, raises=dynamo.exc.Unsupported, strict=True,
                   reason="Dynamo: no operator.matmul / operator.invert on user types")
@pytest.mark.parametrize("spelling", [lambda x: x @ x.mT, lambda x: ~(x > 0.0)],
                         ids=["matmul", "invert"])
def test_matmul_and_invert_operators_trace_from_torch_2_14(spelling):
    def run(a):
        return spelling(ut.asarray(a)).torch()
    a = torch.randn(3, 3)
    counting = Counting()
    got = torch.compile(run, fullgraph=True, backend=counting)(a)
    assert len(counting.graphs) == 1
    assert torch.equal(got, run(a))


def test_operators_are_python_functions_for_tracers_and_c_slots_for_cpython():
    # Dynamo follows the Python function in Tensor's dict; CPython calls the
    # fast path from the slot, which gives the same answer.
    x = ut.asarray(torch.arange(1.0, 5.0))
    for name in ("__mul__", "__rmul__", "__lt__", "__neg__", "__getitem__"):
        assert type(ut.Tensor.__dict__[name]).__name__ == "function", name
    assert torch.equal((x * 2.0).torch(), ut.Tensor.__mul__(x, 2.0).torch())
    assert torch.equal((2.0 - x).torch(), ut.Tensor.__rsub__(x, 2.0).torch())
    assert torch.equal((3.0 > x).torch(), ut.Tensor.__lt__(x, 3.0).torch())
    assert torch.equal(x[1:].torch(), ut.Tensor.__getitem__(x, slice(1, None)).torch())
    with pytest.raises(TypeError, match="pow"):
        pow(x, 2, 3)


def test_an_empty_tensor_is_no_tensor_to_the_fast_paths():
    # What object.__new__(Tensor) makes (Dynamo's example object) is refused, not read.
    empty = object.__new__(ut.Tensor)
    with pytest.raises(AttributeError):
        ut.sin(empty)
    with pytest.raises(AttributeError):
        empty.numpy()
    with pytest.raises(TypeError, match=r"unitensor\.asarray"):
        ut.Tensor()


def test_fastpath_get_twin_binds_as_the_c_slot_does():
    get = _fast.FastPath.__dict__["__get__"]
    t = ut.asarray(torch.ones(2))
    assert get(ut.Tensor.torch, None) is ut.Tensor.torch
    assert get(ut.Tensor.torch, t)() is t.torch()
