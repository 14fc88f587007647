"""A torch caller's bridged call as one op of torch's graphs.

Under ``torch.compile``, ``wrap(source="torch", target="jax")`` and
``target="warp"`` (``_parts.COMPILED``) are one opaque op of the graph
(``unitensor::bridge``, a ``torch.library.custom_op``): its shapes from the
body's ``eval_shape`` (``jax.eval_shape``: no data, no computation; a Warp
kernel's outputs made without a launch, a Warp-taped function run once on
zeros, per input signature) or ``output_shapes``, its
backward a second op (``unitensor::bridge_vjp``) running the body's
vector-Jacobian product as the eager bridge does. The op names its call by a
number: the bridge and the arguments that are not tensors (constants of the
graph) are kept in ``_calls`` under it (``bridged_call``, the ``Compiled``
contract of ``_parts``). make_fx (``torch.func.linearize``) and FakeTensorMode
record the same op, for any body (``fx_call``, from the torch part).

Imported once ``torch._dynamo`` is (``_parts.load_compiled``, which
``unitensor/__init__.py`` hands to ``_compile.watch``), or by the torch part
where a tracer of torch's dispatch runs: a program that never compiles never
imports it (it costs seconds).
"""

from __future__ import annotations

from typing import Any

import torch
from torch.compiler import assume_constant_result
from torch.fx.experimental.symbolic_shapes import guard_scalar

from .._backends.torch.interop import torch_dtype
from .._dtypes import parse as parse_dtype
from .._errors import arg_error, describe
from ._bridge import BRIDGES, Call
from ._trees import TUPLE, flatten


class _Traced:
    """One bridged call as torch.compile traced it: the bridge, the flattened
    arguments with None where the tensors go (``positions``), their tree, and,
    once the op's shapes were found, the structure of the body's output.
    """

    __slots__ = ("bridge", "leaves", "out", "positions", "tree")

    def __init__(self, bridge: Any, leaves: list[Any], tree: Any,
                 positions: list[int]) -> None:
        self.bridge = bridge
        self.leaves = leaves
        self.tree = tree
        self.positions = positions
        self.out: tuple[list[Any], Any, list[int]] | None = None

    def call(self, xs: list[torch.Tensor]) -> Any:
        leaves = list(self.leaves)
        for i, x in zip(self.positions, xs, strict=True):
            leaves[i] = x
        return Call(self.bridge, leaves, self.tree, self.positions)


# number -> _Traced; (bridge number, tree, constants) -> number. Kept for the
# process: a compiled graph may call its op at any time.
_calls: dict[int, _Traced] = {}
_numbers: dict[tuple[int, str, tuple[Any, ...]], int] = {}


def _constant_key(c: Any) -> Any:
    """A non-tensor argument as part of a call's key: by its type and repr, so
    that 1, 1.0 and True (equal, one hash) and 0.0 and -0.0 are different calls;
    one that cannot be hashed (an array) cannot be a constant of the graph.
    """
    if c is _TENSOR:
        return c
    try:
        hash(c)
    except TypeError:
        raise arg_error(TypeError, "wrap", "args", "tensors, or constants that "
                        "can be hashed (numbers, strings, tuples of them) under "
                        "torch.compile and make_fx (pass an array as a tensor)",
                        describe(c)) from None
    return type(c), repr(c)


@assume_constant_result
def _call_number(bridge: int, tree: Any, constants: tuple[Any, ...]) -> int:
    """The number of a traced call (run by Dynamo while it traces, its result a
    constant of the graph).
    """
    key = (bridge, repr(tree), tuple(_constant_key(c) for c in constants))
    number = _numbers.get(key)
    if number is None:
        positions = [i for i, c in enumerate(constants) if c is _TENSOR]
        leaves = [None if c is _TENSOR else c for c in constants]
        number = _numbers[key] = len(_calls)
        _calls[number] = _Traced(BRIDGES[bridge], leaves, tree, positions)
    return number


@assume_constant_result
def _out_structure(number: int) -> tuple[list[Any], Any, list[int]]:
    """The structure of the body's output, found with the op's shapes: the
    tree with its containers named by strings (Dynamo takes those as constants,
    not the types).
    """
    out = _calls[number].out
    assert out is not None, "the bridge op's shapes are found first"
    leaves, tree, positions = out

    def named(node: Any) -> Any:
        if node is None:
            return None
        if node[0] is dict:
            return ("dict", list(node[1]), [named(c) for c in node[2]])
        if node[0] is not tuple and node[0] is not list:
            raise arg_error(NotImplementedError, "wrap", "func", "a body returning "
                            "arrays in tuples, lists and dicts under torch.compile",
                            f"a {node[0].__name__}")
        return (node[0].__name__, [named(c) for c in node[1]])
    return leaves, named(tree), positions


def _rebuild(node: Any, items: Any) -> Any:
    """The output tree ``_out_structure`` names, with ``items`` in order."""
    if node is None:
        return next(items)
    if node[0] == "dict":
        return dict(zip(node[1], [_rebuild(c, items) for c in node[2]], strict=True))
    values = [_rebuild(c, items) for c in node[1]]
    return tuple(values) if node[0] == "tuple" else values


_TENSOR = "<unitensor: a tensor of the bridged call>"  # a constant standing for one


_NUMBERS = (int, float, torch.SymInt, torch.SymFloat, torch.SymBool)


def _concrete(leaf: Any) -> Any:
    """A number argument as a plain number. torch.compile's automatic dynamic
    shapes make an int or float argument symbolic once its value changed (a
    second trace), which the op cannot name a call by (nor can
    assume_constant_result take it): ``guard_scalar`` specialises it, Dynamo
    guarding on its value, so a new value makes a new trace, as for the first.
    """
    return guard_scalar(leaf) if isinstance(leaf, _NUMBERS) else leaf


def bridged_call(bridge: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """What torch.compile traces for a bridged call: the op on its tensors."""
    leaves, tree = flatten((args, kwargs))
    leaves = [_concrete(leaf) for leaf in leaves]
    xs = [leaf for leaf in leaves if isinstance(leaf, torch.Tensor)]
    constants = tuple(_TENSOR if isinstance(leaf, torch.Tensor) else leaf
                      for leaf in leaves)
    number = _call_number(bridge.key, tree, constants)
    outs = torch.ops.unitensor.bridge(xs, number)
    out_leaves, out_tree, positions = _out_structure(number)
    out_leaves = list(out_leaves)
    for i, y in zip(positions, outs, strict=True):
        out_leaves[i] = y
    return _rebuild(out_tree, iter(out_leaves))


def _own(ys: list[Any], xs: list[torch.Tensor]) -> list[torch.Tensor]:
    """An op's outputs alias none of its inputs (a body returning an input
    as it is gives a copy).
    """
    lent = {x.untyped_storage().data_ptr() for x in xs if x.numel()}
    return [y.clone() if y.numel() and y.untyped_storage().data_ptr() in lent
            else y for y in ys]


def _structure(c: Call, n: int) -> tuple[list[Any], Any, list[int]]:
    """The structure of ``c``'s output (``n`` arrays) as a tree, also where it
    is a tuple of arrays (``Call.run`` marks that without a tree).
    """
    assert c.out is not None, "the body has run"
    if c.out is TUPLE:
        return [None] * n, (tuple, [None] * n), list(range(n))
    return c.out


def fx_call(c: Call, xs: list[torch.Tensor]) -> list[torch.Tensor]:
    """The body's outputs for ``xs`` (``c``'s tensors) as the op, where a
    tracer of torch's dispatch runs (make_fx: ``torch.func.linearize``,
    ``torch.export``; a FakeTensorMode): it records the op, where the body's
    run on memory would be a constant of its graph (or has no memory to read).
    """
    constants = tuple(_TENSOR if i in c.positions else leaf
                      for i, leaf in enumerate(c.leaves))
    number = _call_number(c.bridge.key, c.tree, constants)
    outs = torch.ops.unitensor.bridge(xs, number)
    c.out = _calls[number].out
    return list(outs)


@torch.library.custom_op("unitensor::bridge", mutates_args=())
def _bridge(xs: list[torch.Tensor], number: int) -> list[torch.Tensor]:
    """The bridged call, run as the eager bridge runs it (views in and out)."""
    traced = _calls[number]
    c = traced.call(xs)
    ys = c.plain_arrays(xs)
    traced.out = _structure(c, len(ys))  # (make_fx runs this, not the shapes)
    return _own(ys, xs)


@_bridge.register_fake
def _bridge_shapes(xs: list[torch.Tensor], number: int) -> list[torch.Tensor]:
    traced = _calls[number]
    c = traced.call(xs)
    specs = []
    for x in xs:
        if not all(isinstance(d, int) for d in x.shape):
            raise arg_error(NotImplementedError, "wrap", "args", "tensors of static "
                            "shapes under torch.compile (dynamic=False) and make_fx "
                            "(tracing_mode 'real' or 'fake')",
                            f"a tensor of symbolic shape {tuple(x.shape)}")
        specs.append((tuple(x.shape), parse_dtype(x.dtype, "wrap")))
    shapes = c.shapes(specs)
    traced.out = _structure(c, len(shapes))
    device = xs[0].device if xs else torch.device("cpu")
    return [torch.empty(shape, dtype=torch_dtype(dtype), device=device)
            for shape, dtype in shapes]


def _inexact(x: torch.Tensor) -> bool:
    return x.is_floating_point() or x.is_complex()


@torch.library.custom_op("unitensor::bridge_vjp", mutates_args=())
def _bridge_vjp(xs: list[torch.Tensor], cts: list[torch.Tensor | None],
                number: int) -> list[torch.Tensor]:
    """The cotangents of the call's tensors (zeros for integer and bool ones):
    the body's vector-Jacobian product, as a bridge again (its eager path).
    """
    c = _calls[number].call(xs)
    grads = c.derivative()(list(xs), list(cts))
    return _own([torch.zeros_like(x) if g is None else g
                 for x, g in zip(xs, grads, strict=True)], xs)


@_bridge_vjp.register_fake
def _bridge_vjp_shapes(xs: list[torch.Tensor], cts: list[torch.Tensor | None],
                       number: int) -> list[torch.Tensor]:
    return [torch.empty_like(x) for x in xs]


def _setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
    xs, number = inputs
    ctx.number = number
    ctx.inexact_out = [_inexact(y) for y in output]
    ctx.save_for_backward(*xs)


def _backward(ctx: Any, cts: list[torch.Tensor | None]) -> tuple[Any, None]:
    xs = list(ctx.saved_tensors)
    cts = [ct if inexact else None
           for ct, inexact in zip(cts, ctx.inexact_out, strict=True)]
    grads = torch.ops.unitensor.bridge_vjp(xs, cts, ctx.number)
    return [g if _inexact(x) else None for x, g in zip(xs, grads, strict=True)], None


_bridge.register_autograd(_backward, setup_context=_setup_context)
