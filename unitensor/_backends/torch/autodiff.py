"""PyTorch's part of ``wrap()``: torch calling another framework, and a torch body.

As the caller, a bridged call that torch differentiates or batches is one
``autograd.Function`` (``_Bridged``): its forward runs the body (keeping the
body's pullback when a backward will run); its backward calls that pullback, or,
under ``create_graph=True`` or a ``torch.func`` transformation, calls the body's
vector-Jacobian product as a bridge again; its ``jvp`` rule calls the body's
Jacobian-vector product and its ``vmap`` rule one batched call of the body, both
as bridges again. So every derivative can itself be transformed: any order, any
composition of ``torch.func`` transformations.

As the body, a torch function's derivatives are ``torch.func.jvp``,
``torch.func.vjp`` (``torch.autograd.grad`` outside torch transformations) and
``torch.func.vmap``, and its output shapes (which ``jax.jit`` needs before it
runs) come from one run on meta tensors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torch
from torch.autograd import forward_ad

from ..._dtypes import DType
from ..._dtypes import parse as parse_dtype
from ..._errors import arg_error
from .interop import torch_dtype

if TYPE_CHECKING:
    from ..._wrap import Call


# -- torch as the caller ---------------------------------------------------------
def call(c: Call) -> Any:
    """Run ``c`` for a torch caller: recorded for autograd where torch
    differentiates any of its tensors, else a plain call.
    """
    xs = c.arrays()
    tracked = [_tracked(x) for x in xs]
    if not any(tracked):
        try:
            return c.plain()
        except RuntimeError:  # a tensor without memory: torch's legacy vmap?
            _refuse_legacy_vmap(xs)
            raise
    if not c.bridge.differentiable:
        raise arg_error(TypeError, "wrap", "args", "tensors torch does not "
                        f"differentiate (a {c.bridge.target} body is not "
                        "differentiable: call it under torch.no_grad() or pass "
                        "x.detach())", "a tensor that requires grad or carries a "
                        "tangent")
    c.wrt = [t and _inexact(x) for t, x in zip(tracked, xs, strict=True)]
    c.reverse = torch.is_grad_enabled() and any(x.requires_grad for x in xs)
    return c.result(list(_Bridged.apply(c, *xs)))


def _tracked(x: torch.Tensor) -> bool:
    """Whether torch differentiates through ``x``: reverse mode, forward mode (a
    dual tensor), or a ``torch.func`` transformation.
    """
    if x.requires_grad and torch.is_grad_enabled():
        return True
    # Both checks read torch's private state, only while a mode is active; the
    # functorch one first (unpack_dual has no batching rule).
    if torch._C._functorch.peek_interpreter_stack() is not None and bool(
            torch._C._functorch.is_functorch_wrapped_tensor(x)):
        return True
    return forward_ad._current_level >= 0 and (
        forward_ad.unpack_dual(x).tangent is not None)


class _Bridged(torch.autograd.Function):
    """A bridged call, as one node of torch's graph (inputs: the Call, then its
    tensors; outputs: the body's arrays, as tensors).
    """

    @staticmethod
    def forward(c: Call, *xs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        arrays = [c.to_body(x) for x in xs]
        if c.reverse:  # keep the pullback for backward: no second run there
            outs, c.pull = c.pullback(arrays)
        else:  # forward mode or vmap only
            outs = c.run(arrays)
        return tuple(c.to_caller(y) for y in outs)

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        c = inputs[0]
        ctx.call = c
        ctx.pull = c.pull
        c.pull = None  # the Call may be called again (vjp): the graph keeps it
        ctx.save_for_backward(*inputs[1:])
        ctx.save_for_forward(*inputs[1:])
        ctx.mark_non_differentiable(*(y for y in output if not _inexact(y)))

    @staticmethod
    def backward(ctx: Any, *cts: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        c: Call = ctx.call
        xs = ctx.saved_tensors
        if ctx.pull is None or torch.is_grad_enabled() or any(
                _tracked(t) for t in (*cts, *xs)):
            # create_graph=True, a torch.func transformation of the backward
            # (jacrev's vmap, a hessian's jvp), or no pullback kept: the body's
            # vjp as a bridge again, which those can transform
            grads = c.derivative()(list(xs), list(cts))
        else:  # cotangents in torch's layout (stride 0 from a sum): quiet copies
            try:
                body_cts = [c.to_body(ct, quiet=True) for ct in cts]
            except RuntimeError:
                _refuse_legacy_vmap(cts)
                raise
            grads = [None if g is None else c.to_caller(g, quiet=True)
                     for g in ctx.pull(body_cts)]
        return (None, *grads)


    @staticmethod
    def jvp(ctx: Any, _: None, *tangents: torch.Tensor) -> tuple[Any, ...]:
        c: Call = ctx.call
        xs = ctx.saved_tensors
        # the body's jvp, as a bridge again: a transformation above this one
        # (a vmap for jacfwd, a grad for a hessian) transforms it in turn
        return tuple(c.forward_derivative()(list(xs), list(tangents)))

    @staticmethod
    def vmap(info: Any, in_dims: tuple[Any, ...], c: Call, *xs: torch.Tensor
             ) -> tuple[tuple[torch.Tensor, ...], tuple[int, ...]]:
        # one batched call of the body (jax.vmap), as a bridge again
        outs = c.batched(tuple(in_dims[1:]))(list(xs))
        return tuple(outs), (0,) * len(outs)


def _refuse_legacy_vmap(ts: Any) -> None:
    """torch's legacy vmap (``torch._vmap_internals``, which gradcheck's
    ``check_batched_grad`` uses) batches without functorch's interpreters, so
    no vmap rule runs: its batched tensors have no memory to lend.
    """
    # the legacy key is not in torch._C.DispatchKey: read the set's repr (this
    # runs only after a conversion failed)
    def keys(t: torch.Tensor) -> list[str]:
        return str(torch._C._dispatch_keys(t)).partition("(")[2].rstrip(")").split(", ")
    if any("Batched" in keys(t) for t in ts):
        raise arg_error(NotImplementedError, "wrap", "args", "tensors of "
                        "torch.func.vmap (torch's legacy vmap, "
                        "torch._vmap_internals, is not supported)",
                        "a batched tensor of the legacy vmap")


def _inexact(x: torch.Tensor) -> bool:
    return x.is_floating_point() or x.is_complex()


# -- torch as the body -----------------------------------------------------------
def _over_inexact(run: Callable[[list[Any]], list[Any]], xs: list[Any],
                  inexact_in: list[bool], inexact_out: list[bool]
                  ) -> tuple[Callable[..., tuple[Any, ...]], tuple[Any, ...]]:
    """``run`` as a function of the inexact ``xs`` only (the others fixed) to
    the inexact outputs only, as torch.func takes it; and those inexact ``xs``.
    """
    over = [i for i, m in enumerate(inexact_in) if m]

    def f(*inexact: Any) -> tuple[Any, ...]:
        full = list(xs)
        for i, x in zip(over, inexact, strict=True):
            full[i] = x
        return tuple(y for y, m in zip(run(full), inexact_out, strict=True) if m)

    return f, tuple(xs[i] for i in over)


def jvp_of_inexact(run: Callable[[list[Any]], list[Any]], xs: list[Any],
                   tangents: list[Any], inexact_in: list[bool],
                   inexact_out: list[bool]) -> list[Any]:
    """The tangents of ``run``'s inexact outputs at ``xs``, given ``tangents``
    of its inexact inputs: ``torch.func.jvp``, so that it composes with torch's
    other transformations (a jvp of a vjp, a vmap of a jvp).
    """
    f, primals = _over_inexact(run, xs, inexact_in, inexact_out)
    return list(torch.func.jvp(f, primals, tuple(tangents))[1])


def vjp_of_inexact(run: Callable[[list[Any]], list[Any]], xs: list[Any],
                   cotangents: list[Any], inexact_in: list[bool],
                   inexact_out: list[bool]) -> list[Any]:
    """The cotangents of ``run``'s inexact inputs at ``xs`` (zeros for unused
    ones), given ``cotangents`` of its inexact outputs: ``torch.func.vjp``.
    """
    f, primals = _over_inexact(run, xs, inexact_in, inexact_out)
    # JAX's complex cotangents are the conjugates of torch's (torch's gradient
    # of a real loss is the conjugate Wirtinger derivative): conjugated in and
    # out, the pullback is JAX's
    cts = tuple(_conj(ct) for ct in cotangents)
    if torch._C._functorch.peek_interpreter_stack() is None:
        # no torch transformation around (the common case: a gradient, not a
        # jvp or a vmap of one): torch.autograd.grad, cheaper than torch.func
        # an input that already requires grad (this vjp inside the vjp of an
        # outer one) stays in its graph, and the gradient is then recorded
        ins = tuple(x if x.requires_grad else x.detach().requires_grad_()
                    for x in primals)
        with torch.enable_grad():
            outs = f(*ins)
            pairs = [(y, ct) for y, ct in zip(outs, cts, strict=True)
                     if y.requires_grad]
            higher = any(x.requires_grad for x in primals) or any(
                ct.requires_grad for _, ct in pairs)
            grads = torch.autograd.grad(
                [y for y, _ in pairs], ins, [ct for _, ct in pairs],
                allow_unused=True, create_graph=higher) if pairs else (None,) * len(ins)
        return [_conj(torch.zeros_like(x) if g is None else g)
                for x, g in zip(ins, grads, strict=True)]
    pull = torch.func.vjp(f, *primals)[1]
    return [_conj(g) for g in pull(cts)]


def pullback(run: Callable[[list[Any]], list[Any]], xs: list[Any],
             wrt: list[bool] | None = None
             ) -> tuple[list[Any], Callable[[list[Any]], list[Any]]]:
    """``run(xs)`` and its pullback (torch's autograd over the floating ``xs``,
    those of them ``wrt`` marks): cotangents of the outputs (None where there
    is none) -> cotangents of ``xs`` (None for integer and bool inputs and
    unmarked ones). The caller's inputs require grad in the body, so torch
    refuses an in-place write into them (before it writes). An input that
    already requires grad (this pullback inside an outer one: a second order)
    stays in its graph, and the gradient is then recorded.
    """
    over = [i for i, x in enumerate(xs) if _inexact(x) and (wrt is None or wrt[i])]
    ins = list(xs)
    for i in over:
        if not xs[i].requires_grad:
            ins[i] = xs[i].detach().requires_grad_()
    with torch.enable_grad():
        outs = run(ins)

    def pull(cts: list[Any]) -> list[Any]:
        pairs = [(y, ct) for y, ct in zip(outs, cts, strict=True)
                 if ct is not None and y.requires_grad]
        grads: list[Any] = [None] * len(xs)
        higher = any(x.requires_grad for x in xs) or any(
            ct.requires_grad for _, ct in pairs)
        with torch.enable_grad():
            found = torch.autograd.grad(
                [y for y, _ in pairs], [ins[i] for i in over],
                [ct for _, ct in pairs], allow_unused=True, retain_graph=True,
                create_graph=higher) if pairs and over else (None,) * len(over)
        for i, g in zip(over, found, strict=True):
            grads[i] = torch.zeros_like(xs[i]) if g is None else g
        return grads

    return [y.detach() for y in outs], pull


def _conj(x: torch.Tensor) -> torch.Tensor:
    return x.conj().resolve_conj() if x.is_complex() else x  # not a conj-bit view


def vmap(run: Callable[[list[Any]], list[Any]], xs: list[Any],
         dims: tuple[int | None, ...]) -> list[Any]:
    """``run`` over a batch, in one call: ``torch.func.vmap`` with the batch axis
    of each of ``xs`` at ``dims`` (None: not batched), in front of each output.
    """
    def f(*arrays: Any) -> tuple[Any, ...]:
        return tuple(run(list(arrays)))
    return list(torch.func.vmap(f, in_dims=dims, out_dims=0)(*xs))


def eval_shape(run: Callable[[list[Any]], list[Any]],
               specs: list[tuple[tuple[int, ...], DType]]
               ) -> list[tuple[tuple[int, ...], DType]]:
    """The shapes and dtypes of ``run``'s outputs for inputs of ``specs``,
    from one run on meta tensors (no data, no computation).
    """
    metas = [torch.empty(shape, dtype=torch_dtype(dtype), device="meta")
             for shape, dtype in specs]
    try:
        with torch.device("meta"):  # tensors the body makes are meta too
            outs = run(metas)
    except Exception as exc:
        exc.add_note("(raised while wrap() ran the torch body on meta tensors, to "
                     "find its output shapes for jax.jit)")
        raise
    return [(tuple(y.shape), parse_dtype(y.dtype, "wrap")) for y in outs]


def from_xla(buffer: Any) -> torch.Tensor:
    """A view of a buffer XLA lends to a callback (compact, aligned: torch
    aliases it as it is).
    """
    return torch.utils.dlpack.from_dlpack(buffer)


def write(buffer: Any, src: torch.Tensor) -> None:
    """Copy the body's output ``src`` into ``buffer``, memory XLA provides."""
    from_xla(buffer).copy_(src)
