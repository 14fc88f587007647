"""unitensor code inside torch.compile(fullgraph=True): one graph, eager's values
and gradients (the twins in unitensor/_backends/torch/compile.py)."""

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


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
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


def test_operators_are_refused_under_fullgraph_not_miscompiled():
    # Tensor's operators and x[key] are C (no Python to trace): an error under
    # fullgraph, a graph break otherwise (docs/namespace.md, "Under compilers").
    def with_operator(a):
        x = ut.asarray(a)
        return (x * x).torch()
    a = torch.randn(3)
    with pytest.raises(dynamo.exc.Unsupported):
        torch.compile(with_operator, fullgraph=True, backend="eager")(a)
    torch.testing.assert_close(torch.compile(with_operator, backend="eager")(a), a * a)


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
