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
runs) from one run on zeros, once per input signature (unless wrap's
``output_shapes`` gives them): never on meta or fake tensors, whose memory a
body cannot read or hand to another framework's kernel.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torch
from torch._subclasses.fake_tensor import FakeTensor
from torch.autograd import forward_ad

from .. import _core
from .._backends._triton import dynamo_would_abort, refuse_dynamo
from .._backends.torch import interop as _interop
from .._backends.torch.interop import torch_dtype
from .._dtypes import DType
from .._dtypes import parse as parse_dtype
from .._errors import arg_error, copy_or_refuse

if TYPE_CHECKING:
    from ._bridge import Call


# -- torch as the caller ---------------------------------------------------------
def call(c: Call) -> Any:
    """Run ``c`` for a torch caller: recorded for autograd where torch
    differentiates any of its tensors, else a plain call.
    """
    xs = c.arrays()
    tracked = [_tracked(x) for x in xs]
    if not any(tracked):
        # meta tensors: an outer bridge's shape pass, reentrant (its body calls
        # this bridge), where the op answers with the body's shapes
        if _dispatch_traced() or any(x.is_meta for x in xs):
            return c.result(_op(c, xs))
        try:
            return c.plain()
        except RuntimeError:  # a tensor without memory: torch's legacy vmap?
            _refuse_legacy_vmap(xs)
            raise
    if not c.bridge.differentiable:
        target = c.bridge.target
        if torch._C._functorch.peek_interpreter_stack() is not None:
            raise arg_error(TypeError, "wrap", "args", "tensors outside torch.func "
                            f"transformations (a {target} body is neither "
                            "differentiated nor batched: call it outside them)",
                            "a tensor of a torch.func transformation")
        raise arg_error(TypeError, "wrap", "args", "tensors torch does not "
                        f"differentiate (a {target} body is not "
                        "differentiable: pass x.detach(), or for requires_grad "
                        "alone call it under torch.no_grad())", "a tensor that "
                        "requires grad or carries a tangent")
    c.wrt = [t and _inexact(x) for t, x in zip(tracked, xs, strict=True)]
    c.reverse = torch.is_grad_enabled() and any(x.requires_grad for x in xs)
    if torch._C._are_functorch_transforms_active():
        return c.result(list(_Bridged.apply(c, *xs)))
    # Function.apply binds forward's default arguments through inspect.signature
    # on every call (~10 µs) where setup_context is defined; forward has none,
    # so torch's C apply is called directly, as Function.apply then does
    return c.result(list(_apply(c, *map(_unwrap_if_dead, xs))))


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


_dispatch_mode = torch._C._get_dispatch_mode
_PROXY = torch._C._TorchDispatchModeKey.PROXY
_FAKE = torch._C._TorchDispatchModeKey.FAKE


def _dispatch_traced() -> bool:
    """Whether a tracer of torch's dispatch runs: make_fx (``torch.func.linearize``,
    ``torch.export``) records the ops it sees, and a body run on the tensors'
    memory, which it does not see, would be a constant of its graph (stale
    values; linearize's tangents are uninitialised memory); a FakeTensorMode's
    tensors have no memory. There the call is the op torch.compile records.
    """
    return _dispatch_mode(_PROXY) is not None or _dispatch_mode(_FAKE) is not None


def _op(c: Call, xs: list[torch.Tensor]) -> list[torch.Tensor]:
    """The body's outputs as the op ``unitensor::bridge`` (torch_ops.py)."""
    if dynamo_would_abort():  # meta tensors of the user's (tracers import it)
        raise refuse_dynamo("wrap", "args", "a bridge called on meta tensors")
    from . import torch_ops  # imports torch._dynamo (seconds): only here
    return torch_ops.fx_call(c, xs)


class _Bridged(torch.autograd.Function):
    """A bridged call, as one node of torch's graph (inputs: the Call, then its
    tensors; outputs: the body's arrays, as tensors).
    """

    @staticmethod
    def forward(c: Call, *xs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        if _dispatch_traced():  # no pullback kept: backward is then the vjp
            return tuple(_op(c, list(xs)))  # bridged again, recorded as an op
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
        elif hasattr(ctx.pull, "at_one"):
            # a real scalar output whose gradients at a cotangent of 1 came
            # with the value (a jax.jit body's compiled pullback): times the
            # cotangent here, in torch, with no second call of the body's
            # framework and no cotangent handed to it
            (ct,) = cts
            grads = [None if g is None else c.to_caller(g, quiet=True) * ct
                     for g in ctx.pull.at_one()]
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


# torch's C apply (autograd.Function's base), bound to _Bridged: it runs forward,
# setup_context and records the node, as Function.apply does outside torch.func
_apply = super(torch.autograd.Function, _Bridged).apply
_unwrap_if_dead = torch._C._functorch.unwrap_if_dead


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


# -- hand-overs: the parts' own route (Bridge.handed) -----------------------------
# A bridged call hands each array over (its inputs, outputs, cotangents, gradients)
# through unitensor's conversion (_lend.lend: a Tensor, its cache of views, the
# copy rule), ~10 µs of Python more than the adapters' own export and alias, which
# decide every case that matters here. For the common arrays (plain CPU tensors,
# compact where the taker needs it) the bridge calls those directly; anything
# else, and any array the taker could not alias, takes lend's general path.
def exported(x: Any, compact: bool) -> _core.Buffer | None:
    """A Buffer over ``x`` by the torch adapter's own export (its read-only
    mark for memory unitensor lent, detached from the graph), for a plain
    strided CPU tensor with no lazy bit to resolve; None for anything else.
    ``compact``: the bridge may copy silently (a cotangent, whose layout
    torch's autodiff chose: a stride-0 gradient of a sum), so a layout that is
    not compact is copied into one here.
    """
    if (type(x) is not torch.Tensor or not x.is_cpu or x.layout is not torch.strided
            or x.is_nested or x.dtype not in _interop.NATIVE_DTYPES or x.is_conj()
            or x.is_neg() or _is_wrapped(x)):
        return None  # (meta and fake tensors are not on the cpu, or subclasses)
    if compact and not x.is_contiguous():
        x = x.contiguous()  # torch's allocator aligns it as any taker needs
    # the memory: the Buffer (and a view a bridge keeps, _Views) holds that,
    # not ``x`` itself, which may die while they live
    return _interop.export_plain(x)


def stamp(x: Any) -> tuple[Any, ...] | None:
    """What tells that a tensor ``x`` a bridge handed over before still has the
    same memory and layout: a bridge keeps the body's view of it while this
    stays equal (_bridge._Views). Not its contents: the view aliases the
    memory, so an in-place write (an optimizer's step) reaches it as it reaches
    every zero-copy view, and the body's framework only reads it while a call
    runs (its outputs are waited for before they are handed back). None for a
    tensor the parts' route does not take (an inference tensor, a nested or
    sparse one).
    """
    if (type(x) is not torch.Tensor or x.is_inference() or x.is_nested
            or x.layout is not torch.strided):  # (no sizes or strides to read)
        return None
    return (x.data_ptr(), x.dtype, x.shape, x.stride(), x.device)


def imported(buf: _core.Buffer, guarded: bool) -> torch.Tensor | None:
    """``buf`` (CPU memory) as a tensor by the torch adapter's own alias (memory
    lent read-only is remembered as such, and unless ``guarded``, warned of
    once, as a conversion does); None where it would need a copy.
    """
    if buf.device[0] != _DLPACK_CPU or _interop.copy_reason(buf, guarded) is not None:
        return None
    return _interop.alias(buf)


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
    if dynamo_would_abort():  # torch.func.vjp's backward imports it
        raise refuse_dynamo("wrap", "args", "the gradient of a torch body inside "
                            "a torch.func transformation")
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
    """The shapes and dtypes of ``run``'s outputs for inputs of ``specs``, from
    one run on zeros: real memory, never meta or fake tensors, whose data
    pointer is null or refused (a body handing it to a kernel of another
    framework, a Warp kernel, crashes on a null pointer) and whose values are
    unreadable (a body reading ``.item()``). The run's side effects happen (a
    module in training mode updates its statistics on zeros): ``Call.shapes``
    keeps its result per input signature, and wrap's ``output_shapes`` skips
    it altogether.
    """
    try:
        outs = run([torch.zeros(shape, dtype=torch_dtype(dtype))
                    for shape, dtype in specs])
    except Exception as exc:
        exc.add_note("(raised while wrap() ran the torch body on zeros, to find "
                     "its output shapes for jax.jit or tf.function: give them as "
                     "wrap(..., output_shapes=...) to skip this run)")
        raise
    return [(tuple(y.shape), parse_dtype(y.dtype, "wrap")) for y in outs]


_DLPACK_CPU = 1  # DLPack's kDLCPU


def from_xla(buffer: Any) -> torch.Tensor:
    """A view of a buffer XLA lends to a callback (compact, aligned: torch
    aliases it as it is).
    """
    if buffer.__dlpack_device__()[0] == _DLPACK_CPU:
        # no stream to agree on: the capsule straight to torch's import (its
        # Python wrapper costs ~0.7 µs a buffer, a jit call has several)
        return torch._C._from_dlpack(buffer.__dlpack__())
    return torch.utils.dlpack.from_dlpack(buffer)


# torch's copy_ splits a copy of this many elements or more among its threads
# (at::internal::GRAIN_SIZE): past it, it outruns one memcpy
_PARALLEL_COPY = 32768


def write(buffer: Any, src: torch.Tensor) -> None:
    """Copy the body's output ``src`` (of ``buffer``'s shape and dtype: the
    caller checked) into ``buffer``, memory XLA provides: one memcpy in C
    where ``buffer`` is unitensor's (``_xla.Lent.fill``) and ``src`` a small
    compact plain CPU tensor without a lazy bit, else a view of it and torch's
    copy_ (on all of torch's threads, for a large one).
    """
    fill = getattr(buffer, "fill", None)
    if (fill is not None and type(src) is torch.Tensor and src.is_cpu
            and src.numel() < _PARALLEL_COPY
            and src.layout is torch.strided and not src.is_conj()
            and not src.is_neg() and src.is_contiguous()):
        fill(src.data_ptr(), src.nbytes)
        return
    from_xla(buffer).copy_(src)


def _lazy(t: torch.Tensor) -> bool:
    """Whether ``t`` has a conjugate or negative bit, which torch's exchange
    API does not resolve: its memory alone is not its value (torch 2.13).
    """
    return t.is_conj() or t.is_neg()


# jax.jit's handler lends XLA's buffers to torch and fills its results from torch
# tensors through torch's DLPack C exchange API (ext/_xla.c: lend, fill), ~0.5 µs
# an array less than from_xla and write; a result of _PARALLEL_COPY elements or
# more, or a lazy one, is left to write; torch 2.12 and older (no exchange API):
# both to from_xla and write
XLA_EXCHANGE = ((torch.Tensor, _PARALLEL_COPY, _lazy)
                if hasattr(torch.Tensor, "__dlpack_c_exchange_api__") else None)


def kept_inputs(xs: list[Any]) -> list[int]:
    """Which of ``xs`` (views of XLA's buffers, the list their one holder once
    the body returned) something else holds: the tensor itself (a cache) or its
    memory (a view of it, an activation a hook saved). XLA reuses that memory
    after the callback.
    """
    # a tensor the list alone holds: 2 references (the list, the call's
    # argument) and 2 holders of its storage (it, the storage object asked)
    return [i for i in range(len(xs)) if sys.getrefcount(xs[i]) > 2
            or _use_count(xs[i].untyped_storage()._cdata) > 2]


# -- the caller's immutable memory, in a torch body -----------------------------
# torch cannot mark memory read-only. While a torch body runs on views of a jax or
# TensorFlow caller's arrays, a torch function mode refuses, before they write, the
# calls that write in place: the in-place methods (``add_``, ``copy_``, ...), the
# in-place operators and ``__setitem__``, ``out=``, ``inplace=True`` and the
# running statistics that normalisation updates, and an operator of torch.ops by
# the arguments its schema marks written. A numpy array of that memory
# (``.numpy()``) comes back read-only, a DLPack export is marked read-only (a
# legacy capsule, which cannot say so, is a copy's), and a storage is a copy:
# its writes reach no torch function. A write that goes around these (a kernel
# the mode does not see) is found after the body, by torch's version counters;
# the caller's array then holds it.
# In-place methods that change only the tensor object, not its memory.
_METADATA_ONLY = frozenset({
    "requires_grad_", "detach_", "rename_", "refine_names_", "squeeze_",
    "unsqueeze_", "transpose_", "t_", "swapdims_", "swapaxes_", "as_strided_",
    "resize_", "resize_as_", "set_", "share_memory_", "retain_grad_"})
_IN_PLACE_OPERATORS = frozenset({
    "__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__",
    "__ifloordiv__", "__imod__", "__ipow__", "__imatmul__", "__iand__",
    "__ior__", "__ixor__", "__ilshift__", "__irshift__"})
_NUMPY_VIEWS = frozenset({"numpy", "__array__"})
# Routes to the memory itself, around the tensor's methods: a storage, whose
# copy_, fill_ and item assignment no torch function sees, and DLPack's export
# (np.from_dlpack(x), torch.from_dlpack(x))
_STORAGES = frozenset({"untyped_storage", "storage", "_typed_storage"})
_EXPORTS = frozenset({"__dlpack__"})
# Where a normalisation takes its running statistics and the switch that makes
# it update them (training, use_input_stats): torch.nn.functional's order, then
# ATen's (torch.batch_norm, native_batch_norm: input, weight, bias, mean, var)
_FUNCTIONAL_STATISTICS = ((1, "running_mean"), (2, "running_var"))
_ATEN_STATISTICS = ((3, "running_mean"), (4, "running_var"))
_NORMALISATIONS = frozenset({"batch_norm", "instance_norm", "native_batch_norm",
                             "_native_batch_norm_legit", "_batch_norm_with_update"})
# What a function does to its arguments' memory, by kind:
_READS = 0  # nothing
_WRITES_FIRST = 1  # writes into its first argument
_RESHAPES_FIRST = 2  # changes its first argument's metadata in place
_LENDS_TO_NUMPY = 3  # returns a numpy array of its first argument's memory
_NORMALISES = 4  # writes into its running statistics (training)
_RENORMALISES = 5  # writes into its weight with max_norm= (an embedding)
_WRITES_NAMED = 6  # an operator (torch.ops) whose schema marks what it writes
_GIVES_STORAGE = 7  # returns the storage of its first argument
_EXPORTS_FIRST = 8  # exports its first argument's memory (DLPack)
# torch function -> its kind, learned on first sight (bounded by torch's API)
_kinds: dict[Any, int] = {}
# an operator of kind _WRITES_NAMED -> the (position or None, name) of each
# argument its schema marks written (``Tensor(a!)``)
_written: dict[Any, tuple[tuple[int | None, str], ...]] = {}
_OPERATORS = (torch._ops.OpOverload, torch._ops.OpOverloadPacket)


def _schema_writes(op: Any) -> tuple[tuple[int | None, str], ...]:
    """The arguments ``op`` (an operator, or every overload of a packet) writes
    into, by its schema: torch.ops.aten.add_.Tensor's name says nothing
    (``add_.Tensor``), and a custom op says it only there (``mutates_args``).
    """
    schemas = ([getattr(op, name)._schema for name in op.overloads()]
               if isinstance(op, torch._ops.OpOverloadPacket) else [op._schema])
    found: dict[tuple[int | None, str], None] = {}
    for schema in schemas:
        position = 0
        for argument in schema.arguments:
            info = argument.alias_info
            if info is not None and info.is_write:
                found[None if argument.kwarg_only else position, argument.name] = None
            position += not argument.kwarg_only
    return tuple(found)


def _kind(func: Any) -> int:
    """What ``func`` does to its arguments' memory, learned and kept in _kinds."""
    name = getattr(func, "__name__", "")
    if isinstance(func, _OPERATORS):
        written = _schema_writes(func)
        if written:
            _written[func] = written
        kind = _WRITES_NAMED if written else _READS
    elif name in _METADATA_ONLY:
        kind = _RESHAPES_FIRST
    elif name in _IN_PLACE_OPERATORS or (name.endswith("_")
                                         and not name.endswith("__")):
        kind = _WRITES_FIRST
    elif name in _NUMPY_VIEWS:
        kind = _LENDS_TO_NUMPY
    elif name in _STORAGES:
        kind = _GIVES_STORAGE
    elif name in _EXPORTS:
        kind = _EXPORTS_FIRST
    elif name in _NORMALISATIONS:
        kind = _NORMALISES
    elif name in ("embedding", "embedding_bag") and getattr(
            func, "__module__", None) == "torch.nn.functional":
        kind = _RENORMALISES
    else:
        kind = _READS
    _kinds[func] = kind
    return kind


# dropouts, by the name of their switch (third argument): torch's in-place
# ones (train), torch.nn.functional's (training, with inplace=)
_DROPOUTS = {**dict.fromkeys(("dropout_", "feature_dropout_", "alpha_dropout_",
                              "feature_alpha_dropout_"), "train"),
             **dict.fromkeys(("dropout", "dropout1d", "dropout2d", "dropout3d",
                              "alpha_dropout", "feature_alpha_dropout"), "training")}


def _dropout_in_eval(func: Any, args: Any, kwargs: dict[str, Any]) -> bool:
    """A dropout not training (``nn.Dropout(inplace=True)`` in eval mode): it
    returns its input as it is, writing nothing, in place or not.
    """
    switch = _DROPOUTS.get(getattr(func, "__name__", ""))
    return switch is not None and not (
        args[2] if len(args) > 2 else kwargs.get(switch, True))


def _updated_statistics(func: Any, args: Any, kwargs: dict[str, Any]
                        ) -> tuple[tuple[int, str], ...]:
    """The places of the running statistics normalisation ``func`` writes in this
    call: none where it only reads them (eval mode: training=False).
    """
    name = func.__name__
    switch = "use_input_stats" if name == "instance_norm" else "training"
    # F.batch_norm's training defaults to False, F.instance_norm's switch to True
    default = name == "instance_norm"
    updates = args[5] if len(args) > 5 else kwargs.get(switch, default)
    if not updates:
        return ()
    if getattr(func, "__module__", None) == "torch.nn.functional":
        return _FUNCTIONAL_STATISTICS
    return _ATEN_STATISTICS


_is_wrapped = torch._C._functorch.is_functorch_wrapped_tensor
_unwrapped = torch._C._functorch.get_unwrapped


def _no_memory(t: torch.Tensor) -> bool:
    """A meta or fake tensor (the shape pass): shapes, no memory."""
    return t.is_meta or isinstance(t, FakeTensor)


def _memory(t: Any) -> int | None:
    """The address of the memory under tensor ``t`` (functorch's wrappers
    unwrapped), or None where there is none (meta, fake, not a tensor).
    """
    if type(t) is torch.Tensor:  # the common case, first (no subclass: not fake)
        try:
            return t.untyped_storage().data_ptr() or None  # meta: 0
        except NotImplementedError:  # functorch's wrapper: unwrapped below
            pass
    elif not isinstance(t, torch.Tensor):
        return None
    while _is_wrapped(t):
        t = _unwrapped(t)
    if _no_memory(t):
        return None
    try:
        return t.untyped_storage().data_ptr() or None
    except (RuntimeError, NotImplementedError):  # a tensor subclass without one
        return None


class _ReadOnly(torch.overrides.TorchFunctionMode):
    """The body runs inside: writes into the memory at ``addresses`` are refused
    (see above), and the inputs' version counters are checked after.
    """

    def __init__(self, addresses: dict[int, torch.Tensor], why: str) -> None:
        # (TorchFunctionMode's own __init__ does nothing: not called, as
        # __enter__ and __exit__ below push and pop torch's stack directly;
        # this runs on every bridged call of a torch body)
        self.addresses = addresses
        self.why = why
        # the version counter of each input at the start, less the moves made
        # by in-place metadata changes (``x.t_()``, allowed), which views
        # share with their base
        self.versions = {a: x._version for a, x in addresses.items()
                         if not x.is_inference()}

    def __enter__(self) -> _ReadOnly:
        _push_mode(self)
        return self

    def __exit__(self, kind: Any, value: Any, traceback: Any) -> None:
        _pop_mode()
        if kind is None and any(self.addresses[a]._version != v
                                for a, v in self.versions.items()):
            raise self._written("found after the body ran: the write was not "
                                "refused before it, and the caller's array holds it")

    def __torch_function__(self, func: Any, types: Any, args: Any = (),
                           kwargs: Any = None) -> Any:
        kind = _kinds.get(func)
        if kind == _READS and not kwargs:  # most calls: at once
            return func(*args)
        kwargs = kwargs or {}
        if torch.compiler.is_compiling():
            # a compiled function inside the body: Dynamo traces this mode, and
            # has compiled its checks into wrong values (torch 2.13); a write
            # there is found after the body, by the version counters
            return func(*args, **kwargs)
        if kind is None:
            kind = _kind(func)
        if kind == _READS and not kwargs:
            return func(*args)
        # the first argument, also where it is given by name (torch.nn.init)
        first = args[0] if args else next(iter(kwargs.values()), None)
        if kwargs:
            out = kwargs.get("out")
            for t in out if isinstance(out, (tuple, list)) else (out,):
                self._refuse(t, func)
            if kwargs.get("inplace") is True and not _dropout_in_eval(
                    func, args, kwargs):
                self._refuse(first, func)
        if kind == _READS:
            return func(*args, **kwargs)
        if kind == _WRITES_NAMED:
            for position, name in _written[func]:
                t = (args[position] if position is not None and len(args) > position
                     else kwargs.get(name))
                for u in t if isinstance(t, (tuple, list)) else (t,):
                    self._refuse(u, func)
            return func(*args, **kwargs)
        if kind in (_GIVES_STORAGE, _EXPORTS_FIRST):
            if first is None or _memory(first) not in self.addresses:
                return func(*args, **kwargs)
            if kind == _EXPORTS_FIRST:
                return _read_only_capsule(first, kwargs)
            # a storage cannot be marked read-only, and its writes (copy_,
            # fill_, item assignment) reach no torch function: a copy of it
            return func(*args, **kwargs).clone()
        if kind == _WRITES_FIRST and not _dropout_in_eval(func, args, kwargs):
            for t in first if isinstance(first, (tuple, list)) else (first,):
                self._refuse(t, func)  # (a list: torch._foreach_add_)
        elif kind == _RENORMALISES:
            # max_norm= renormalises the rows it looks up, in the weight itself
            if (args[3] if len(args) > 3 else kwargs.get("max_norm")) is not None:
                self._refuse(args[1] if len(args) > 1 else kwargs.get("weight"),
                             func)
        elif kind == _NORMALISES:
            for position, keyword in _updated_statistics(func, args, kwargs):
                self._refuse(args[position] if len(args) > position
                             else kwargs.get(keyword), func)
        address = _memory(first) if kind in (_RESHAPES_FIRST,
                                             _LENDS_TO_NUMPY) else None
        if first is None or address not in self.addresses:
            return func(*args, **kwargs)
        if kind == _LENDS_TO_NUMPY:
            result = func(*args, **kwargs)
            result.flags.writeable = False  # numpy can mark it
            return result
        before = first._version
        result = func(*args, **kwargs)
        if address in self.versions:
            self.versions[address] += first._version - before
        return result

    def _refuse(self, t: Any, func: Any) -> None:
        if t is not None and _memory(t) in self.addresses:
            raise self._written(getattr(func, "__name__", repr(func)))

    def _written(self, how: str) -> ValueError:
        return arg_error(ValueError, "wrap", "func", "a torch body that does not "
                         f"write into its inputs ({self.why})",
                         f"a body that wrote into one in place ({how})")


# TorchFunctionMode's __enter__ and __exit__ call these through a Python
# function each (torch.overrides._push_mode, _pop_mode)
_push_mode = torch._C._push_on_torch_function_stack
_pop_mode = torch._C._pop_torch_function_stack


def _read_only_capsule(t: torch.Tensor, kwargs: dict[str, Any]) -> Any:
    """``t.__dlpack__(**kwargs)`` for the caller's immutable memory: a versioned
    capsule marked read-only (numpy's import is then read-only; torch's aliases
    it, and the mode refuses writes into that alias), or, where the consumer
    asks for a legacy capsule, which cannot say read-only, a copy's.
    """
    version = kwargs.get("max_version")
    if version is None or tuple(version) < (1, 0):
        return t.clone().__dlpack__(**kwargs)
    buffer = _core.from_capsule(t.__dlpack__(), func="wrap")
    buffer.mark_readonly()
    # (torch's default stream is -1; a CPU capsule takes None alone)
    return buffer.__dlpack__(**{k: v for k, v in kwargs.items()
                                if k != "stream" or v not in (None, -1)})


def read_only(arrays: list[torch.Tensor], why: str
              ) -> contextlib.AbstractContextManager[Any]:
    """Where the body runs: writes into the memory of ``arrays`` are refused
    (before they happen where a torch function mode sees them, else after, by
    the version counters) with a ValueError saying ``why`` they are immutable.
    """
    addresses = {}
    for x in arrays:
        address = _memory(x)
        if address is not None:
            addresses[address] = x
    return _ReadOnly(addresses, why) if addresses else contextlib.nullcontext()


# -- outputs whose memory the body keeps ------------------------------------------
# A jax or TensorFlow caller's array never changes, but a view of memory the body
# keeps (``lin.weight.detach()``, a cache, a view of a parameter) would change with
# it (an optimizer step). Such an output is copied; one the body made in this call
# is lent as it is. Kept is told by counting holders: of the tensor object
# (Python references besides the outputs' list) and of its memory (torch's
# storage use count, less what torch itself adds: the base of a view, the result
# that autograd saved, for tanh or exp, to differentiate it).
def _refs(ys: list[Any], i: int) -> int:
    return sys.getrefcount(ys[i])


def _base_refs(y: torch.Tensor) -> tuple[Any, int]:
    """The base of view ``y`` (None if not a view), and its Python references."""
    base = y._base
    return base, 0 if base is None else sys.getrefcount(base)


_FRESH = _refs([torch.empty(0)], 0)  # a tensor the list alone holds
# the base of a view held by the view alone (torch's view keeps its Python object)
_FRESH_BASE = _base_refs(torch.empty(1)[:])[1]
_use_count = torch._C._storage_Use_Count


def _saves(t: torch.Tensor) -> int:
    """1 where autograd keeps ``t``'s result (a second holder of its memory)."""
    node = t.grad_fn
    return 0 if node is None or getattr(node, "_saved_result", None) is None else 1


def _kept(ys: list[Any], i: int) -> bool:
    """Whether the memory of ``ys[i]`` has a holder other than the list ``ys``."""
    refs = _refs(ys, i) - _FRESH
    y = ys[i]
    others = sum(1 for z in ys if isinstance(z, torch.Tensor) and z._base is y)
    # (the base of another output; an input autograd saved, sin(y)'s y, whose
    # Python object torch keeps with it)
    if refs > others and refs > others + _graph_holders(ys, y, None)[0]:
        return True  # the tensor itself, held elsewhere
    if not isinstance(y, torch.Tensor) or _no_memory(y) or _is_wrapped(y):
        return False  # no memory to share (the shape pass)
    try:
        storage = y.untyped_storage()
    except (RuntimeError, NotImplementedError):  # a subclass without one
        return False
    if not storage.resizable():
        # memory torch did not allocate (torch.from_numpy, DLPack): its owner,
        # which the body may keep, is out of these counts (an input's memory
        # is let through by unshared)
        return True
    expected = 1 + _saves(y)
    base, refs = _base_refs(y)
    if base is not None:  # a view: its base holds the memory too
        if refs > _FRESH_BASE + sum(z is base for z in ys):  # (an output too)
            return True
        expected += 1 + _saves(base)
    held = _use_count(storage._cdata) - 1  # less ``storage``
    if held > expected:  # (rare) other outputs of the body on the same memory,
        # or tensors its autograd graph saved (sin(y) saves y; sort, qr, eigh
        # their outputs): holders that go with the call
        address = storage.data_ptr()
        held -= sum(1 for z in ys if z is not y and _memory(z) == address)
        if held > expected:
            expected = 1 + (base is not None) + _graph_holders(ys, y, address)[1]
    return held > expected


def _graph_holders(ys: list[Any], y: torch.Tensor, address: int | None
                   ) -> tuple[int, int]:
    """What the autograd graph of the outputs ``ys`` saved: how many times the
    tensor ``y`` itself (a saved input), and how many other tensors on the
    memory at ``address`` (a saved output is a tensor of its own). A walk of
    the graph, only where a count is in doubt.
    """
    itself = others = 0
    seen: set[Any] = set()
    stack = [z.grad_fn for z in ys if isinstance(z, torch.Tensor)]
    while stack and len(seen) < 10_000:  # (a bound, for very large graphs)
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        for name in dir(node):
            if name.startswith("_saved_"):
                try:
                    value = getattr(node, name)
                except RuntimeError:  # freed already
                    continue
                for t in value if isinstance(value, (tuple, list)) else (value,):
                    if t is y:
                        itself += 1
                    elif address is not None and isinstance(t, torch.Tensor):
                        others += _memory(t) == address
        stack.extend(f for f, _ in node.next_functions)
    return itself, others


def unshared(ys: list[Any], xs: list[Any], quiet: bool) -> list[Any]:
    """The body's outputs ``ys`` (the list their only holder), each one whose
    memory the body keeps copied (reported unless ``quiet``); one that is a
    view of an input ``xs`` (the body's views of the caller's immutable
    arrays) is not: a writable numpy array a jax caller passed is copied.
    """
    if xs and _no_memory(xs[0]):  # the shape pass (eval_shape): nothing is lent
        return ys
    for i in range(len(ys)):
        if _kept(ys, i):
            y = ys[i]
            if _memory(y) in {_memory(x) for x in xs}:
                continue
            copy_or_refuse("wrap", "func", True if quiet else None,
                           "the body's output shares memory the body keeps (a "
                           "parameter, a cached tensor) or memory torch did not "
                           "allocate (torch.from_numpy, DLPack), which a later "
                           "in-place update would change in the caller's "
                           "immutable array", "func (an output of the body)")
            ys[i] = y.clone(memory_format=torch.contiguous_format)  # lent as is
    return ys
