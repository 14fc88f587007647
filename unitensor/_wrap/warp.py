"""Warp's part of ``wrap()``: Warp calling another framework, and a Warp body.

The rule: Warp differentiates in reverse mode only, once, through ``wp.Tape``;
everything a caller asks of a Warp body is built from that tape, and a Warp
caller's tape records a bridged call as one function of its own.

As the body (a Python function launching Warp kernels on ``wp.array``s, or any
function a ``wp.Tape`` records), the caller's arrays arrive as zero-copy views
(fresh ``wp.array``s over the caller's memory that carry a gradient array where
they are differentiated); the pullback runs the body under a ``wp.Tape`` and
``Tape.backward`` seeds the outputs' gradients with copies of the caller's
cotangents (a kernel's adjoint may change what it is given). An output the body
made with ``requires_grad`` (``wp.empty_like`` of an input that requires grad
does so) carries the derivative; intermediate arrays must too, as on Warp's own
tape. The batched form runs the body once per item (Warp has no vmap) into one
stacked output (a kernel body: one launch per item into the stacked outputs,
:func:`_kernel_vmap`); output shapes come from one run of the body on zero-filled
inputs (real memory, as a kernel needs), once per input signature of a trace.
Forward mode and a second derivative are refused with NotImplementedError:
Warp's tape has neither.

A bare ``@wp.kernel`` is a body too (:class:`Kernel`, made by :func:`body`,
the one place a Warp body is told apart), taken as Warp's own ``jax_kernel``
takes one: its last ``outputs`` parameters are the outputs, made zero-filled
per call, its launch covers ``dim``. It launches through a replayed
``wp.Launch`` command; its pullback is the kernel's adjoint launch (no tape:
:func:`compiled_pullback`), and under ``jax.jit`` it launches straight into
XLA's output buffers (:func:`into_xla`). Under the taped routes (vmap, a
derivative bridge) a recording tape records its launch like any other.

As the caller, a call whose ``wp.array`` inputs require grad while a
``wp.Tape`` records is recorded on that tape (``Tape.record_func``): its
forward keeps the body's pullback, and the tape's backward hands the outputs'
gradients to it and adds the inputs' cotangents into their ``.grad`` (CPU
memory). Otherwise the call is plain.
"""

from __future__ import annotations

import contextvars
import ctypes
import inspect
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import warp as wp
import warp._src.context as wp_context

from .. import _convert, _core
from .._backends.warp.interop import ITEMSIZES, NATIVE_DTYPES, TO_WARP
from .._backends.warp.interop import alias as _alias
from .._backends.warp.interop import view as _view
from .._device import CPU_READABLE
from .._dtypes import DType
from .._errors import arg_error, describe
from ._bridge import Call
from ._lend import copy_kept
from ._trees import ONE, TUPLE, kept, spread

if TYPE_CHECKING:
    from ._parts import Spec

# the active tape is runtime.tape (set by Tape.__enter__; Warp names it nowhere else)
_runtime: Any = wp._src.context.runtime
_FLOATS = frozenset(k for k, d in NATIVE_DTYPES.items() if d.kind == "real floating")


# -- warp as the caller ------------------------------------------------------------
def call(c: Call) -> Any:
    """Run ``c`` for a Warp caller: recorded on the active ``wp.Tape`` where any
    input requires grad, else a plain call.
    """
    xs = c.arrays()
    tape = _runtime.tape
    if tape is None or not any(x.requires_grad for x in xs):
        return c.plain()
    if not c.bridge.differentiable:
        raise arg_error(TypeError, "wrap", "args", "Warp arrays no wp.Tape "
                        f"differentiates (a {c.bridge.target} body is not "
                        "differentiable: call it outside the tape, or on arrays "
                        "without requires_grad)", "an array that requires grad")
    for x in xs:
        if x.requires_grad and not x.device.is_cpu:
            raise arg_error(NotImplementedError, "wrap", "args", "Warp arrays in "
                            "CPU memory where a wp.Tape records the call",
                            f"an array on {x.device}")
    c.wrt = [x.requires_grad and x.dtype in _FLOATS for x in xs]
    # the body runs outside the tape: its own framework differentiates it
    _runtime.tape = None
    try:
        ys, pull = c.pullback([c.to_body(x) for x in xs])
        outs = [c.to_caller(y) for y in ys]
    finally:
        _runtime.tape = tape
    for y in outs:
        if y.dtype in _FLOATS:
            y.requires_grad = True  # a fresh view: its gradient array is its own

    def backward() -> None:
        cts = [c.to_body(y.grad, quiet=True) if y.requires_grad else None
               for y in outs]
        for x, g in zip(xs, pull(cts), strict=True):
            if g is not None and x.requires_grad:
                grad = x.grad.numpy()  # (CPU memory: a view)
                grad += _convert.view(_convert.asarray(g), "numpy", None, "wrap")

    tape.record_func(backward, [*(x for x in xs if x.requires_grad),
                                *(y for y in outs if y.requires_grad)])
    return c.result(outs)


# -- warp as the body ---------------------------------------------------------------
def _with_grad(x: wp.array) -> wp.array:
    """A fresh view of ``x``'s memory with a gradient array of its own (a view
    the bridge made may be cached on a Tensor: it is left as it is): made
    as Warp's constructor makes it, without its checks, and a compact
    gradient by :func:`_zeros` (together ~4 µs less a call).
    """
    view: Any = _view(x)
    view._ref = x  # Warp's keep-alive slot
    if x.is_contiguous:
        view.grad = _zeros(x.shape, x.dtype, x.device)
    else:  # (Warp's own: a gradient laid out as the array)
        view.requires_grad = True
    return view


class _suspended:  # (lower case: used as a function, ``with _suspended():``)
    """No tape records while a Warp body's own tape (or its backward) runs: an
    outer one, a pullback's whose body is this derivative (torch.func records
    a derivative's call), is marked, and refuses to differentiate it again. A
    class, not a generator: it runs on every differentiated call.
    """

    __slots__ = ("outer",)

    def __enter__(self) -> None:
        outer = self.outer = _runtime.tape
        if outer is not None:
            outer.unitensor_nested = True  # (Tape has no __slots__)
            _runtime.tape = None

    def __exit__(self, *exc: object) -> None:
        if self.outer is not None:
            _runtime.tape = self.outer


def pullback(run: Callable[[list[Any]], list[Any]], xs: list[Any],
             wrt: list[bool] | None = None
             ) -> tuple[list[Any], Callable[[list[Any]], list[Any]]]:
    """``run(xs)`` and its pullback (``wp.Tape`` over the floating ``xs``, those
    of them ``wrt`` marks): cotangents of the outputs (None where there is none)
    -> cotangents of ``xs`` (None for integer and bool inputs and unmarked ones).
    """
    c = _kernel_call(run)
    if c is not None:  # a kernel body: its adjoint launch, no tape
        return _adjoint_pullback(c, xs, wrt)
    if _adjoint_call(run):  # (no tape: nothing could differentiate it)
        outs = run(xs)

        def refuse(cts: list[Any]) -> list[Any]:
            raise _second_order()
        return outs, refuse
    over = [i for i, x in enumerate(xs) if x.dtype in _FLOATS
            and (wrt is None or wrt[i])]
    xs = list(xs)
    for i in over:
        xs[i] = _with_grad(xs[i])
    tape = wp.Tape()
    with _suspended(), tape:
        outs = run(xs)
    pulls = 0

    def pull(cts: list[Any]) -> list[Any]:
        nonlocal pulls
        if getattr(tape, "unitensor_nested", False):
            raise _second_order()
        seeds = [(y, ct) for y, ct in zip(outs, cts, strict=True)
                 if ct is not None and y.dtype in _FLOATS]
        grads: list[Any] = [None] * len(xs)
        with _suspended():
            if pulls:  # a second backward (retain_graph) starts again
                _start_again(tape, [xs[i] for i in over])
            pulls += 1
            if seeds and over:
                for y, ct in seeds:  # (after _start_again: it zeroes them)
                    _seed(y, ct)
                tape.backward()
            for i in over:  # (handed out as they are: see _start_again)
                grads[i] = xs[i].grad if seeds else wp.zeros_like(xs[i])
        return grads

    return outs, pull


def _seed(y: wp.array, ct: Any) -> None:
    """The cotangent ``ct`` of the output ``y`` set as its gradient, as
    ``Tape.backward(grads=)`` sets a seed, but never ``ct`` itself (a
    kernel's adjoint may change what it is given): a copy of it as the
    gradient array of an output without one, else copied into that one (one
    memmove for compact arrays in CPU memory, ~2.5 µs less than Warp's copy).
    """
    g = y.grad
    if g is None:
        y.grad = wp.clone(ct)
    elif (type(g) is wp.array and type(ct) is wp.array and g.device is _CPU
          and ct.device is _CPU and g.dtype is ct.dtype and g.shape == ct.shape
          and g.is_contiguous and ct.is_contiguous and g.size):
        ctypes.memmove(g.ptr, ct.ptr, g.size * ITEMSIZES[g.dtype])
    else:
        g.assign(ct)


def _start_again(tape: wp.Tape, xs: list[wp.array]) -> None:
    """Zero ``tape``'s gradients for another backward, but for those of its
    inputs ``xs``: the arrays an earlier backward added into were handed out as
    the inputs' cotangents, so each input is given a fresh zero-filled one.
    """
    for x in xs:
        g = x.grad
        if g is None:  # (the body took it away: nothing was handed out)
            continue
        tape.gradients.pop(x, None)  # (what Tape.zero() clears)
        x.grad = wp.zeros(shape=g.shape, strides=g.strides, dtype=g.dtype,
                          device=g.device)
    tape.zero()


def _second_order() -> NotImplementedError:
    return arg_error(NotImplementedError, "wrap", "func", "a Warp body "
                     "differentiated once (Warp's tape has no second order, "
                     "nor a kernel's adjoint launch)", "a second derivative")


def _forward_mode() -> NotImplementedError:
    return arg_error(NotImplementedError, "wrap", "func", "a Warp body in reverse "
                     "mode (Warp's tape has no forward mode: use backward(), "
                     "jax.grad/vjp, torch.func.grad/vjp or tf.GradientTape)",
                     "a forward-mode derivative (jvp, forward_ad, jacfwd, "
                     "hessian)")


def jvp(run: Callable[[list[Any]], list[Any]], xs: list[Any], tangents: list[Any],
        wrt: list[bool] | None = None) -> list[Any]:
    """Refused: Warp differentiates in reverse mode only."""
    raise _forward_mode()


def jvp_of_inexact(run: Callable[[list[Any]], list[Any]], xs: list[Any],
                   tangents: list[Any], inexact_in: list[bool],
                   inexact_out: list[bool]) -> list[Any]:
    """Refused: Warp differentiates in reverse mode only."""
    raise _forward_mode()


def vjp_of_inexact(run: Callable[[list[Any]], list[Any]], xs: list[Any],
                   cotangents: list[Any], inexact_in: list[bool],
                   inexact_out: list[bool]) -> list[Any]:
    """The cotangents of ``run``'s inexact inputs (zeros for unused ones), given
    ``cotangents`` of its inexact outputs only (the form a jax caller's
    primitive uses).
    """
    grads = pullback(run, xs)[1](spread(cotangents, inexact_out))
    return [g if g is not None else wp.zeros_like(x)
            for g, x in zip(kept(grads, inexact_in), kept(xs, inexact_in), strict=True)]


def _item(x: wp.array, dim: int, k: int) -> wp.array:
    """Item ``k`` along ``dim`` of ``x``: a view without that dimension."""
    shape = x.shape[:dim] + x.shape[dim + 1:]
    if not shape:
        raise arg_error(NotImplementedError, "wrap", "args", "batched arrays of "
                        "at least two dimensions where a Warp body is batched "
                        "(Warp has no 0-d arrays)", f"a batch of shape {x.shape}")
    view: Any = wp.array(ptr=x.ptr + k * x.strides[dim], shape=shape,
                    strides=x.strides[:dim] + x.strides[dim + 1:], dtype=x.dtype,
                    capacity=x.capacity, device=x.device)
    view._ref = x
    return view


def vmap(run: Callable[[list[Any]], list[Any]], xs: list[Any],
         dims: tuple[int | None, ...]) -> list[Any]:
    """``run`` over a batch: once per item of the batch axis of each of ``xs``
    at ``dims`` (None: not batched), the outputs stacked in front (an empty
    batch: empty outputs, their items' shapes from :func:`eval_shape`).
    """
    size = _batch_size(xs, dims)
    if size == 0:  # no item to run: the items' output shapes from zeros
        specs = [(x.shape if d is None else x.shape[:d] + x.shape[d + 1:],
                  NATIVE_DTYPES[x.dtype]) for x, d in zip(xs, dims, strict=True)]
        return [wp.empty((0, *shape), dtype=TO_WARP[dt], device=xs[0].device)
                for shape, dt in eval_shape(run, specs)]
    c = _kernel_call(run)
    if c is not None and _runtime.tape is None:
        return _kernel_vmap(c, xs, dims)
    stacked: list[Any] = []
    for k in range(size):
        ys = run([x if d is None else _item(x, d, k)
                  for x, d in zip(xs, dims, strict=True)])
        if not stacked:
            stacked = [wp.empty((size, *y.shape), dtype=y.dtype, device=y.device)
                       for y in ys]
        for out, y in zip(stacked, ys, strict=True):
            wp.copy(_item(out, 0, k), y)
    return stacked


def _batch_size(xs: list[Any], dims: tuple[int | None, ...]) -> int:
    return next(x.shape[d] for x, d in zip(xs, dims, strict=True) if d is not None)


def _kernel_vmap(c: Call, xs: list[Any], dims: tuple[int | None, ...],
                 into: list[Any] | None = None,
                 plans: list[_Plan] | None = None) -> list[Any]:
    """A :class:`Kernel` body over a batch of items (``xs`` batched at ``dims``,
    None: not batched; at least one item): its outputs made
    once for the whole batch (zero-filled, as one item's are; ``into``: arrays
    given for them, XLA's output buffers under ``jax.jit``, zero-filled here),
    and the kernel launched once per item by its recorded command, the items'
    descriptors set in place (:meth:`Kernel.replay_items`): no array made and
    nothing copied per item, where running the body per item makes both. The
    kernel itself sees one item per launch, as it would in a loop: what it
    reads and writes (an atomic sum into ``loss[0]``) stays within its item.
    With ``plans`` (``into``: XLA's buffers, ``xs`` views of them), its
    :class:`_Plan` is added there where one can be made.
    """
    k: Kernel = c.bridge.func  # type: ignore[assignment]
    size = _batch_size(xs, dims)
    firsts = [x if d is None else _item(x, d, 0) for x, d in zip(xs, dims, strict=True)]
    args, kwargs = c.arguments(firsts)
    inputs = k.bind(args, kwargs)
    dim = k.launch_dim(inputs)
    if into is None:
        stacked = [_zeros((size, *shape), dtype, k.device(inputs))
                   for shape, dtype in k.output_specs(dim)]
    else:
        stacked = into
        for y in stacked:
            y.zero_()
    c.out = ONE if len(stacked) == 1 else TUPLE
    steps = {p: xs[j].strides[dims[j]] for p, a in enumerate(inputs)
             for j, x in enumerate(firsts) if a is x and dims[j] is not None}
    steps.update({len(inputs) + o: y.strides[0] for o, y in enumerate(stacked)})
    replay = k.replay_items(dim, inputs, [_item(y, 0, 0) for y in stacked], steps,
                            size, plan=plans is not None)
    if plans is not None and replay is not None:
        _keep_plan(plans, replay, inputs, firsts, len(stacked), steps, size)
    return stacked


def eval_shape(run: Callable[[list[Any]], list[Any]],
               specs: list[tuple[tuple[int, ...], DType]]
               ) -> list[tuple[tuple[int, ...], DType]]:
    """The shapes and dtypes of ``run``'s outputs for inputs of ``specs``: one
    run on zero-filled arrays (Warp has no abstract evaluation, and a kernel
    reads real memory; ``wrap(output_shapes=)`` skips it). A :class:`Kernel`
    body makes its outputs there and launches nothing.
    """
    for shape, d in specs:
        if not shape or d not in TO_WARP:
            raise arg_error(TypeError, "wrap", "args", "arrays of at least one "
                            "dimension, of a dtype Warp has, for a Warp body",
                            f"an array of shape {shape} and dtype {d.name}")
    token = _SHAPES_ONLY.set(True)  # (a kernel body launches nothing)
    try:
        ys = run([wp.zeros(shape, dtype=TO_WARP[d]) for shape, d in specs])
    finally:
        _SHAPES_ONLY.reset(token)
    return [(tuple(y.shape), NATIVE_DTYPES[y.dtype]) for y in ys]


def from_xla(buffer: Any) -> wp.array:
    """A view of a buffer XLA lends to a callback (compact and aligned, which
    Warp aliases as it is): its capsule as a Buffer, Warp's view of it, without
    the general conversion (Warp's own import of it is DLPack, 70x the array
    interface).
    """
    return _alias(_core.from_capsule(buffer.__dlpack__()))


def write(buffer: Any, src: Any) -> None:
    """Copy the body's output ``src`` (of ``buffer``'s shape and dtype: the
    caller checked) into ``buffer``, memory XLA provides: one memcpy in C
    where ``buffer`` is unitensor's (``_xla.Lent.fill``) and ``src`` a plain
    compact array in CPU memory, else numpy's views of both (CPU memory), or
    Warp's copy.
    """
    if src.device.is_cpu:
        fill = getattr(buffer, "fill", None)
        item = ITEMSIZES.get(src.dtype)
        if (fill is not None and type(src) is wp.array and src.is_contiguous
                and src.size and item is not None):
            fill(src.ptr, src.size * item)  # (~3 µs less than numpy's views)
            return
        np.copyto(np.asarray(_core.from_capsule(buffer.__dlpack__())), np.asarray(src))
    else:
        wp.copy(from_xla(buffer), src)


def kept_inputs(xs: list[Any]) -> list[int]:
    """Which of ``xs`` (views of XLA's buffers, the list their one holder once
    the body returned) the body still holds (an array, or a view of it, which
    holds it in ``_ref``): XLA reuses that memory after the callback.
    """
    return [i for i in range(len(xs)) if sys.getrefcount(xs[i]) > 2]


def _holders_on_tape(y: wp.array) -> int:
    """The references the active tape holds to ``y`` (its launches' arrays)."""
    tape = _runtime.tape
    if tape is None:
        return 0
    return sum(1 for launch in tape.launches if not callable(launch)
               for arrays in (launch[3], launch[4]) for a in arrays if a is y)


def unshared(ys: list[Any], xs: list[Any], quiet: bool) -> list[Any]:
    """The body's outputs ``ys`` (the list their only holder), each one whose
    memory the body keeps (a global, a cached array, a view of either) copied,
    reported unless ``quiet``; ``xs``: the body's views of the caller's
    immutable arrays, given back as they are.
    """
    inputs = {x.ptr for x in xs}

    def kept(i: int) -> bool:
        y = ys[i]
        if y.ptr in inputs and y._ref is not None:
            return False  # the caller's immutable array, given back
        places = sum(1 for z in ys if z is y) - 1
        views = sum(1 for z in ys if z._ref is y)
        # the list, getrefcount's argument, the local y; the tape's launches
        holders = sys.getrefcount(y) - 3 - places - views - _holders_on_tape(y)
        owner = y._ref
        # a view of other memory may have other holders; but a Buffer's own
        # memory that only the view holds (a kernel body's output) is the
        # body's alone
        return holders > 0 or (owner is not None and not isinstance(
            owner, wp.array) and not (type(owner) is _core.Buffer
                                      and owner.source == "owned"
                                      and sys.getrefcount(owner) == 3))

    return copy_kept(ys, "warp", quiet, kept, _memory, _copy_on_tape)


def _copy_on_tape(y: wp.array) -> wp.array:
    """A copy of a kept output by Warp's clone, which the active tape (the
    body's pullback's) records: the caller's cotangent, seeded on the copy,
    reaches the body's own output (a copy made around the tape gave zero
    gradients). Warp's host allocations are 64-byte aligned, which JAX and
    TensorFlow alias (were one not, the hand-over would copy it, reported).
    """
    return wp.clone(y, requires_grad=y.requires_grad)


def _memory(y: Any) -> int:
    """An id of the holder of ``y``'s memory (outputs that share it share it)."""
    while isinstance(getattr(y, "_ref", None), wp.array):
        y = y._ref
    return id(y)


# -- hand-overs: the parts' own route (Bridge.handed) -----------------------------
# (as torch's and jax's parts: the adapters' own export and alias, without a
# Tensor and its cache of views, for the common arrays: plain wp.arrays in CPU
# memory; anything else takes _lend.lend's general path, which decides)
def exported(y: Any, compact: bool) -> _core.Buffer | None:
    """A Buffer over ``y``, a ``wp.array`` in CPU memory of a scalar dtype: the
    Buffer a view of unitensor's holds (a kernel body's output, memory handed
    in), where the view covers it as it is, else Warp's array interface; None
    for anything else (CUDA memory, bfloat16, an indexed or fabric array, and
    where ``compact`` asks for compact memory, a strided array: copied by the
    general path).
    """
    if type(y) is not wp.array or y.device is not _CPU:
        return None
    ref = y._ref
    if (type(ref) is _core.Buffer and ref.data_ptr == y.ptr and ref.shape == y.shape
            and ref.dtype == _DLPACK.get(y.dtype) and ref.c_contiguous
            and y.is_contiguous):
        return ref
    if y.dtype not in _HOST or (compact and not y.is_contiguous):
        return None
    return _core.from_array_interface(y)


def imported(buf: _core.Buffer, guarded: bool) -> wp.array | None:
    """``buf`` (CPU memory, writable, of a scalar dtype, at least 1-d) as
    Warp's view; None for anything else (read-only memory, which Warp aliases
    with an AliasWarning, and what it cannot alias: the general path says so).
    """
    if (buf.device[0] not in CPU_READABLE or buf.readonly or buf.ndim == 0
            or buf.dtype not in _HELD):
        return None
    return _alias(buf)


# -- a Warp kernel as the body -------------------------------------------------------
# eval_shape's run: a kernel body makes its outputs and launches nothing (its
# outputs' shapes follow from its inputs' and the launch dimensions)
_SHAPES_ONLY: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "unitensor_warp_shapes_only", default=False)
# the scalar parameters a kernel body may have (one annotated float is wp.float32)
_SCALARS = frozenset(NATIVE_DTYPES)
# Warp's scalar type -> the DLPack (code, bits) of the memory _zeros makes
_HOST = {k: d.dlpack[:2] for k, d in NATIVE_DTYPES.items() if d.name != "bfloat16"}
# ... and its DLPack dtype, as a Buffer names it (the hand-overs)
_DLPACK = {k: d.dlpack for k, d in NATIVE_DTYPES.items() if d.name != "bfloat16"}
_HELD = frozenset(_DLPACK.values())
_CPU = wp.get_device("cpu")


def body(func: Any, outputs: int | None, dim: Any,
         output_shapes: list[Spec] | None) -> Any:
    """What ``wrap`` calls for a body ``func`` with ``target="warp"``: a
    ``@wp.kernel`` as a :class:`Kernel` (``outputs``, ``dim`` and the given
    ``output_shapes`` say how it is launched); any other callable as it is
    (a Warp-taped function), which takes neither ``outputs`` nor ``dim``.
    """
    if isinstance(func, wp.Kernel):
        return Kernel(func, 1 if outputs is None else outputs, dim, output_shapes)
    if outputs is not None or dim is not None:
        raise arg_error(TypeError, "wrap", "outputs" if outputs is not None else
                        "dim", "outputs= and dim= with a @wp.kernel body (a "
                        "Python function launches its kernels itself)",
                        f"a body {describe(func)}")
    return func


class Kernel:
    """A ``@wp.kernel`` as a bridge body, taken as Warp's own ``jax_kernel``
    takes one: the caller passes the kernel's leading parameters (arrays, and
    Python numbers for its scalar parameters), and its last ``outputs``
    parameters, arrays, are the outputs. They are made for each call: the
    dtype of their annotations, the shape ``output_shapes`` gives or else the
    launch dimensions. The launch covers ``dim``, by default the shape of the
    first array argument.

    Called as a function, it launches the kernel once into new outputs and
    returns them (one array, or a tuple). A recording ``wp.Tape`` records
    that launch, so the taped routes (vmap, torch.func, a jax caller's
    derivatives) differentiate it as any Warp-taped body. Otherwise the
    launch is a replayed ``wp.Launch`` command (``record_cmd``), ~5x cheaper
    than ``wp.launch``. The bridge's own routes (:func:`compiled_pullback`,
    :func:`into_xla`) launch the adjoint kernel directly and write into
    XLA's buffers.
    """

    def __init__(self, kernel: Any, outputs: int, dim: Any,
                 output_shapes: list[Spec] | None) -> None:
        key = kernel.key
        if kernel.is_generic:
            raise arg_error(TypeError, "wrap", "func", "a @wp.kernel whose "
                            "parameters have concrete types (a generic kernel's "
                            "output dtypes are unknown: wp.overload it and pass "
                            "the overload)", f"the generic kernel {key!r}")
        params = kernel.adj.args
        if type(outputs) is not int or not 1 <= outputs <= len(params):
            raise arg_error(ValueError, "wrap", "outputs", "the number of the "
                            f"kernel's last parameters that are outputs (1 to "
                            f"{len(params)} for {key!r})", describe(outputs))
        for i, p in enumerate(params):
            array = type(p.type) is wp.array
            if array and p.type.dtype in NATIVE_DTYPES:
                continue
            if not array and i < len(params) - outputs and p.type in _SCALARS:
                continue
            raise arg_error(TypeError, "wrap", "func", "a @wp.kernel whose "
                            "inputs are wp.arrays of scalar dtypes or scalars, "
                            "and whose outputs are wp.arrays of scalar dtypes",
                            f"parameter {p.label!r} of {key!r}: "
                            f"{wp.types.type_repr(p.type)}")
        if dim is not None:
            dim = (dim,) if type(dim) is int else dim
            if (not isinstance(dim, tuple) or not 1 <= len(dim) <= 4
                    or not all(type(n) is int and n >= 0 for n in dim)):
                raise arg_error(TypeError, "wrap", "dim", "the launch dimensions "
                                "(an int, or a tuple of 1 to 4 ints)", describe(dim))
        self.kernel = kernel
        self.dim: tuple[int, ...] | None = dim
        self.n_in = len(params) - outputs
        self.inputs = params[:self.n_in]
        self.outputs = params[self.n_in:]
        self.first_array = next((i for i, p in enumerate(self.inputs)
                                 if type(p.type) is wp.array), None)
        if dim is None and self.first_array is None:
            raise arg_error(TypeError, "wrap", "dim", "the launch dimensions for a "
                            "kernel without an input array", "None")
        self.shapes: list[tuple[int, ...] | None] = [None] * outputs
        if output_shapes is not None:
            if len(output_shapes) != outputs:
                raise arg_error(ValueError, "wrap", "output_shapes", f"{outputs} "
                                f"arrays (the outputs of {key!r})",
                                f"{len(output_shapes)} arrays")
            for i, (p, (shape, d)) in enumerate(zip(self.outputs, output_shapes,
                                                    strict=True)):
                if TO_WARP.get(d) is not p.type.dtype or len(shape) != p.type.ndim:
                    raise arg_error(TypeError, "wrap", "output_shapes", "the "
                                    f"dtype and ndim of output {p.label!r}: "
                                    f"{wp.types.type_repr(p.type)}",
                                    f"shape {shape} and dtype {d.name} at {i}")
                self.shapes[i] = shape
        # the inputs' names, as the bridged function's signature shows them
        self.__signature__ = inspect.Signature([inspect.Parameter(
            p.label, inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in self.inputs])
        self.__name__ = self.__qualname__ = getattr(kernel.func, "__name__", key)
        self.__doc__ = kernel.func.__doc__
        self.__module__ = kernel.func.__module__
        # (device alias, adjoint) -> the recorded launch command, replayed per call
        self._commands: dict[tuple[str, bool], Any] = {}
        self._lock = threading.Lock()  # one command replayed at a time

    def __repr__(self) -> str:
        return f"<Warp kernel {self.kernel.key!r} as a bridge body>"

    def bind(self, args: Any, kwargs: dict[str, Any]) -> list[Any]:
        """The kernel's inputs, from a call's arguments (positional, or by the
        parameters' names), checked against its parameters.
        """
        if kwargs or len(args) != self.n_in:
            try:
                args = self.__signature__.bind(*args, **kwargs).args
            except TypeError as exc:
                raise arg_error(TypeError, "wrap", "args", "the inputs of kernel "
                                f"{self.kernel.key!r}: {self.__signature__}",
                                str(exc)) from None
        for p, a in zip(self.inputs, args, strict=True):
            t = p.type
            if type(t) is wp.array:
                if not isinstance(a, wp.array) or a.dtype is not t.dtype or (
                        a.ndim != t.ndim):
                    got = (f"{wp.types.type_repr(a.dtype)} array of {a.ndim} "
                           "dimensions" if isinstance(a, wp.array) else describe(a))
                    raise arg_error(TypeError, "wrap", "args", f"for parameter "
                                    f"{p.label!r} of {self.kernel.key!r}, an "
                                    f"array of {wp.types.type_repr(t)}", got)
            elif isinstance(a, wp.array) or not isinstance(a, (int, float, bool)):
                raise arg_error(TypeError, "wrap", "args", f"for parameter "
                                f"{p.label!r} of {self.kernel.key!r}, a Python "
                                f"number ({wp.types.type_repr(t)}: a scalar "
                                "parameter is a constant of the call)", describe(a))
        return list(args)

    def launch_dim(self, inputs: list[Any]) -> tuple[int, ...]:
        if self.dim is not None:
            return self.dim
        return tuple(inputs[self.first_array].shape)  # type: ignore[index]

    def output_specs(self, dim: tuple[int, ...]) -> list[tuple[tuple[int, ...], Any]]:
        """The shape and Warp dtype of each output of a launch over ``dim``:
        the launch's shape, or the one ``output_shapes=`` gives.
        """
        specs = []
        for p, shape in zip(self.outputs, self.shapes, strict=True):
            if shape is None:
                if len(dim) != p.type.ndim:
                    raise arg_error(ValueError, "wrap", "output_shapes", f"the "
                                    f"shape of output {p.label!r} of "
                                    f"{self.kernel.key!r} ({p.type.ndim}-d) where "
                                    "it is not the launch dimensions",
                                    f"launch dimensions {dim}")
                shape = dim
            specs.append((shape, p.type.dtype))
        return specs

    def make_outputs(self, inputs: list[Any], dim: tuple[int, ...],
                     requires_grad: bool = False) -> list[Any]:
        """New arrays for the kernel's outputs, zero-filled (a kernel that
        adds into its output, ``wp.atomic_add``, starts from zeros, as with
        ``wp.zeros`` on Warp's tape; Warp's ``jax_kernel`` leaves XLA's
        buffers as they are).
        """
        device = self.device(inputs)
        return [_zeros(shape, dtype, device, requires_grad)
                for shape, dtype in self.output_specs(dim)]

    def device(self, inputs: list[Any]) -> Any:
        """Where a launch on ``inputs`` runs: its first array's device."""
        return (inputs[self.first_array].device if self.first_array is not None
                else wp.get_device())

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        inputs = self.bind(args, kwargs)
        dim = self.launch_dim(inputs)
        tape = _runtime.tape
        taped = tape is not None and any(
            isinstance(a, wp.array) and a.requires_grad for a in inputs)
        outs = self.make_outputs(inputs, dim, taped)
        if not _SHAPES_ONLY.get():
            if tape is not None:  # recorded: the tape's backward is the adjoint
                wp.launch(self.kernel, dim, inputs=inputs, outputs=outs,
                          device=outs[0].device)
            else:
                self.replay(dim, inputs, outs)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def replay(self, dim: tuple[int, ...], inputs: list[Any], outs: list[Any],
               adj_inputs: list[Any] | None = None,
               adj_outputs: list[Any] | None = None) -> None:
        """The kernel launched (its adjoint where ``adj_inputs`` are given) by
        its recorded command: Warp's parameter structs set in place. They
        hold the arrays' pointers alone, not the arrays: nothing is kept.
        """
        self.replay_items(dim, inputs, outs, {}, 1, adj_inputs, adj_outputs)

    def replay_items(self, dim: tuple[int, ...], inputs: list[Any], outs: list[Any],
                     steps: dict[int, int], items: int,
                     adj_inputs: list[Any] | None = None,
                     adj_outputs: list[Any] | None = None,
                     plan: bool = False) -> _Replay | None:
        """:meth:`replay` ``items`` times, launch ``n`` with the arrays at the
        parameter positions in ``steps`` moved ``n`` times their step (bytes)
        further: the items of a batch, each launched on its descriptor, with
        no array made per item. One hold of the lock: the command's other
        parameters stay those set here. Launches after the first are one C
        call (:class:`_Replay`) where Warp's replay allows it; the replay is
        returned where it ran, or, with ``plan``, where it could (None
        otherwise).
        """
        size = 1
        for n in dim:
            size *= n
        if size == 0 or items == 0:
            return None  # (wp.launch launches nothing either)
        device = outs[0].device
        adjoint = adj_inputs is not None
        args = [*inputs, *outs]
        with self._lock:
            cmd = self._commands.get((device.alias, adjoint))
            if cmd is None:
                cmd = self._commands[device.alias, adjoint] = wp.launch(
                    self.kernel, dim, inputs=inputs, outputs=outs,
                    adj_inputs=adj_inputs or [], adj_outputs=adj_outputs or [],
                    device=device, adjoint=adjoint, record_cmd=True,
                    record_tape=False)
                cmd.dim = dim  # (Launch has no __slots__)
                # the arguments it retains (for Warp's graph capture) let go:
                # it must not keep the caller's memory alive, nor count as a
                # holder of an output (unshared) or an input (kept_inputs);
                # set_param_at_index_from_ctype keeps descriptors alone there
                for name in ("fwd_args", "adj_args"):
                    held = getattr(cmd, name, None)
                    if held:
                        setattr(cmd, name, [None] * len(held))
            elif cmd.dim != dim:
                cmd.set_dim(dim)
                cmd.dim = dim
            set_param = cmd.set_param_at_index_from_ctype
            kernel = self.kernel
            for i, a in enumerate(args):
                set_param(i, _ctype(kernel, i, a))
            if adjoint:
                for i, a in enumerate([*adj_inputs, *adj_outputs]):  # type: ignore[misc]
                    set_param(i, _ctype(kernel, i, a), adjoint=True)
            cmd.launch()
            replay = _Replay.of(cmd) if items > 1 or plan else None
            if replay is not None:
                if items > 1:
                    replay.run(tuple((replay.offsets[i], args[i].ptr, step)
                                     for i, step in steps.items()), 1, items)
                return replay
            firsts = {i: args[i].__ctype__() for i in steps}
            for n in range(1, items):
                for i, first in firsts.items():
                    item = type(first).from_buffer_copy(first)
                    item.data = first.data + n * steps[i]
                    set_param(i, item)
                cmd.launch()
        return None

    def adjoint(self, dim: tuple[int, ...], inputs: list[Any], outs: list[Any],
                cts: list[Any], grads: dict[int, Any]) -> None:
        """The adjoint launch: ``grads`` (input position -> a zero-filled
        array, shared where an array is passed twice) get the cotangents of
        those inputs added, given ``cts`` of the outputs (None: none). The
        other inputs get no adjoint (a null array, as Warp's tape passes for an
        array without a gradient; 0 for a scalar).
        """
        adj_in = [grads.get(i) if type(p.type) is wp.array else 0
                  for i, p in enumerate(self.inputs)]
        adj_out = [ct if ct is not None else _zeros(y.shape, y.dtype, y.device)
                   for y, ct in zip(outs, cts, strict=True)]
        self.replay(dim, inputs, outs, adj_in, adj_out)


# the call's own runs (what _kernel_call recognises): a jax caller's vjp runs
# the body unlent
_CALL_RUNS = (Call.run, Call.run_unlent)


def _zeros(shape: tuple[int, ...], dtype: Any, device: Any,
           requires_grad: bool = False) -> wp.array:
    """A new zero-filled array: on the CPU, where no gradient array is asked
    for, a Buffer's own memory (64-byte aligned, as Warp's allocator's: JAX
    aliases it) in Warp's view, ~2x faster than Warp's constructor.
    """
    if device.is_cpu and not requires_grad:
        code = _HOST.get(dtype)
        if code is not None:  # memory of unitensor's own, aligned as Warp's
            return _alias(_core.empty(shape, *code))
    return wp.zeros(shape, dtype=dtype, device=device, requires_grad=requires_grad)


class _Replay:
    """A recorded CPU launch replayed by one C call (``_core.replay_launches``):
    the compiled kernel, a copy of the launch bounds and of the argument struct
    Warp's own replay built for it (its cached struct type, its parameters), and
    the byte offset of each array parameter's data pointer in that struct
    (``offsets``: parameter position -> offset), which a run moves in place per
    launch. Warp's replay costs ~3.5 µs of Python a launch. The struct is this
    replay's own: runs hold its lock.
    """

    def __init__(self, function: int, bounds: Any, packed: Any,
                 offsets: dict[int, int]) -> None:
        self.function = function
        self.bounds = bounds
        self.packed = packed
        self.offsets = offsets
        self.lock = threading.Lock()

    @classmethod
    def of(cls, cmd: Any) -> _Replay | None:
        """``cmd``'s replay, just launched; None where Warp replays otherwise: a
        CUDA device, a tiled kernel (its blocks), an adjoint launch, Warp's CPU
        graph capture, or a Warp whose replay is not laid out as read here (its
        struct cache, a descriptor's ``data``).
        """
        if (not cmd.device.is_cpu or cmd.adjoint or cmd.block_dim > 1
                or _capturing(cmd)):
            return None
        try:
            params = cmd.params
            struct_type, fields = cmd.kernel._invoke_cache[
                (tuple(type(p) for p in params[1:]), False)]
            offsets = {i: getattr(struct_type, name).offset
                       + type(params[1 + i]).data.offset
                       for i, (name, _) in enumerate(fields)
                       if hasattr(type(params[1 + i]), "data")}
            function = ctypes.cast(cmd.hooks.forward, ctypes.c_void_p).value
        except (AttributeError, KeyError, TypeError, ValueError, IndexError):
            return None
        if not function:
            return None
        packed = struct_type()
        for i, (name, _) in enumerate(fields):
            setattr(packed, name, params[1 + i])
        bounds = type(params[0]).from_buffer_copy(params[0])
        return cls(function, bounds, packed, offsets)

    def run(self, moves: tuple[tuple[int, int, int], ...], first: int,
            items: int) -> None:
        """Launches ``first`` to ``items - 1``, launch ``n`` with each pointer
        at offset ``o`` set to ``base + n * step`` for each ``(o, base, step)``.
        """
        with self.lock:
            _core.replay_launches(self.function, ctypes.addressof(self.bounds),
                                  ctypes.addressof(self.packed), moves, first, items)


def _capturing(cmd: Any) -> bool:
    """Whether Warp records CPU launches into a graph now (its APIC capture):
    a launch is then Warp's to record, not to call.
    """
    capture = getattr(wp_context, "_get_apic_capture_for_device", None)
    return capture is None or capture(cmd.device) is not None


def _ctype(kernel: Any, i: int, a: Any) -> Any:
    """Parameter ``i`` of ``kernel`` as Warp packs it (an array as its
    descriptor, a null one for None; a number as it is).
    """
    if isinstance(a, wp.array):
        return a.__ctype__()
    if a is None:
        return kernel.adj.args[i].type.__ctype__()
    return a


def compiled_pullback(c: Call, xs: list[Any]
                      ) -> tuple[list[Any], Callable[[list[Any]], list[Any]]] | None:
    """A :class:`Kernel` body's forward and pullback without a tape
    (:func:`_adjoint_pullback`); None for any other body (the tape of
    :func:`pullback`).
    """
    if not isinstance(c.bridge.func, Kernel):
        return None
    return _adjoint_pullback(c, xs, c.wrt)


def _kernel_call(run: Callable[[list[Any]], list[Any]]) -> Call | None:
    """The call whose body ``run`` runs, where that body is a :class:`Kernel`
    and ``run`` is the call's own run (``Call.run``, or ``run_unlent``: what a
    derivative bridge and a jax caller's primitive differentiate); None for
    anything else (a Python body, a derivative of the body: their tape).
    """
    c = getattr(run, "__self__", None)
    if (type(c) is Call and getattr(run, "__func__", None) in _CALL_RUNS
            and isinstance(c.bridge.func, Kernel)):
        return c
    return None


def _adjoint_call(run: Callable[[list[Any]], list[Any]]) -> bool:
    """Whether ``run`` is the call's own run of a derivative bridge of a
    :class:`Kernel` body (``Call.derivative``): the adjoint launch, which a
    tape cannot differentiate again.
    """
    c = getattr(run, "__self__", None)
    if type(c) is not Call or getattr(run, "__func__", None) not in _CALL_RUNS:
        return False
    of = getattr(c.bridge.func, "derivative_of", None)
    return type(of) is Call and isinstance(of.bridge.func, Kernel)


def _adjoint_pullback(c: Call, xs: list[Any], wrt: list[bool] | None
                      ) -> tuple[list[Any], Callable[[list[Any]], list[Any]]]:
    """A :class:`Kernel` body's forward on ``xs`` and its pullback over the
    floating ones ``wrt`` marks, as Warp's own ``jax_kernel`` differentiates
    a kernel: one replayed launch into new outputs, and the kernel's adjoint
    launch into zero-filled gradients (no tape, no array with a gradient of
    its own). An outer tape that records (this is the derivative of a
    derivative bridge) is marked, and refuses the second derivative.
    """
    k: Kernel = c.bridge.func  # type: ignore[assignment]
    args, kwargs = c.arguments(xs)
    inputs = k.bind(args, kwargs)
    dim = k.launch_dim(inputs)
    outs = k.make_outputs(inputs, dim)
    with _suspended():  # (an outer tape does not record it: the caller's does)
        k.replay(dim, inputs, outs)
    c.out = ONE if len(outs) == 1 else TUPLE
    over = [i for i, x in enumerate(xs)
            if x.dtype in _FLOATS and (wrt is None or wrt[i])]

    def pull(cts: list[Any]) -> list[Any]:
        grads: list[Any] = [None] * len(xs)
        for i in over:
            x = xs[i]
            grads[i] = _zeros(x.shape, x.dtype, x.device)
        # each input position of a differentiated array adds into its
        # gradient (an array passed twice gets both adjoints)
        with _suspended():
            k.adjoint(dim, inputs, outs, cts,
                      {j: grads[i] for i in over for j, a in enumerate(inputs)
                       if a is xs[i]})
        return grads

    return list(outs), pull


def into_xla(c: Call, dims: tuple[int | None, ...] | None = None
             ) -> Callable[[list[Any], list[Any]], None] | None:
    """For a :class:`Kernel` body under ``jax.jit``: ``(arguments, results) ->
    None``, XLA's buffers: the kernel launched on Warp's views of the
    arguments straight into the results (no copy, no arrays made: what Warp's
    own ``jax_kernel`` does); with ``dims``, the body batched over the
    arguments' axes at ``dims`` (None: not batched), one launch per item into
    the items of the results (:func:`_kernel_vmap`). The first call's launch
    is kept as a :class:`_Plan` where it can be: every later call (same
    lowering, so same shapes, dtypes and other arguments; only the buffers'
    addresses differ) is the results zeroed and one C call. None for any other
    body (its outputs are copied).
    """
    k = c.bridge.func
    if not isinstance(k, Kernel):
        return None
    plans: list[_Plan] = []  # (at most one: this lowering's)

    def launch(buffers: list[Any], outs: list[Any]) -> None:
        if plans:
            plans[0].run(buffers, outs)
            return
        xs, ys = [from_xla(b) for b in buffers], [from_xla(b) for b in outs]
        if dims is None:
            args, kwargs = c.arguments(xs)
            inputs = k.bind(args, kwargs)
            for y in ys:  # zero-filled, as the outputs an eager call makes
                y.zero_()
            replay = k.replay_items(k.launch_dim(inputs), inputs, ys, {}, 1,
                                    plan=True)
            if replay is not None:
                _keep_plan(plans, replay, inputs, xs, len(ys), {}, 1)
        elif _batch_size(xs, dims):  # (an empty batch: nothing to write)
            _kernel_vmap(c, xs, dims, into=ys, plans=plans)

    return launch


def _keep_plan(plans: list[_Plan], replay: _Replay, inputs: list[Any],
               views: list[Any], n_outs: int, steps: dict[int, int],
               items: int) -> None:
    """The :class:`_Plan` of a launch on ``inputs``, whose arrays are ``views``
    of the arguments' buffers (item 0 of a batched one, which starts where it
    does) and the results' (after the kernel's inputs), added to ``plans``
    where one can be made.
    """
    sources = {p: j for p, a in enumerate(inputs) for j, x in enumerate(views)
               if a is x}
    sources.update({len(inputs) + o: len(views) + o for o in range(n_outs)})
    plan = _Plan.of(replay, sources, steps, items)
    if plan is not None:
        plans.append(plan)


class _Plan:
    """A kernel launch under ``jax.jit`` as a later call makes it: its
    :class:`_Replay`, and for each array parameter, which of the call's buffers
    (arguments, then results) it views and its step per item (bytes). Made
    only where every array parameter views one of them (another array's
    address, made for the first call, could be freed by the next).
    """

    def __init__(self, replay: _Replay, moves: tuple[tuple[int, int, int], ...],
                 items: int) -> None:
        self.replay = replay
        self.moves = moves  # (offset, buffer index, step)
        self.items = items

    @classmethod
    def of(cls, replay: _Replay, sources: dict[int, int], steps: dict[int, int],
           items: int) -> _Plan | None:
        if any(p not in sources for p in replay.offsets):
            return None
        return cls(replay, tuple((offset, sources[p], steps.get(p, 0))
                                 for p, offset in replay.offsets.items()), items)

    def run(self, buffers: list[Any], outs: list[Any]) -> None:
        for y in outs:
            y.zero()
        every = [*buffers, *outs]
        self.replay.run(tuple((offset, every[j].address, step)
                              for offset, j, step in self.moves), 0, self.items)
