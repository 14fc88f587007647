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
stacked output; output shapes come from one run of the body on zero-filled
inputs (real memory, as a kernel needs), once per input signature of a trace.
Forward mode and a second derivative are refused with NotImplementedError:
Warp's tape has neither.

As the caller, a call whose ``wp.array`` inputs require grad while a
``wp.Tape`` records is recorded on that tape (``Tape.record_func``): its
forward keeps the body's pullback, and the tape's backward hands the outputs'
gradients to it and adds the inputs' cotangents into their ``.grad`` (CPU
memory). Otherwise the call is plain.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import warp as wp

from .. import _convert, _core
from .._backends.warp.interop import NATIVE_DTYPES, TO_WARP
from .._backends.warp.interop import alias as _alias
from .._dtypes import DType
from .._errors import arg_error
from ._bridge import Call
from ._lend import copy_kept
from ._trees import kept, spread

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
    the bridge made may be cached on a Tensor: it is left as it is).
    """
    view: Any = wp.array(ptr=x.ptr, shape=x.shape, strides=x.strides, dtype=x.dtype,
                    capacity=x.capacity, device=x.device, requires_grad=True)
    view._ref = x  # Warp's keep-alive slot
    return view


@contextlib.contextmanager
def _suspended() -> Iterator[None]:
    """No tape records while a Warp body's own tape (or its backward) runs: an
    outer one, a pullback's whose body is this derivative (torch.func records
    a derivative's call), is marked, and refuses to differentiate it again.
    """
    outer = _runtime.tape
    if outer is None:
        yield
        return
    outer.unitensor_nested = True  # (Tape has no __slots__)
    _runtime.tape = None
    try:
        yield
    finally:
        _runtime.tape = outer


def pullback(run: Callable[[list[Any]], list[Any]], xs: list[Any],
             wrt: list[bool] | None = None
             ) -> tuple[list[Any], Callable[[list[Any]], list[Any]]]:
    """``run(xs)`` and its pullback (``wp.Tape`` over the floating ``xs``, those
    of them ``wrt`` marks): cotangents of the outputs (None where there is none)
    -> cotangents of ``xs`` (None for integer and bool inputs and unmarked ones).
    """
    over = [i for i, x in enumerate(xs) if x.dtype in _FLOATS
            and (wrt is None or wrt[i])]
    xs = list(xs)
    for i in over:
        xs[i] = _with_grad(xs[i])
    tape = wp.Tape()
    with _suspended(), tape:
        outs = run(xs)

    def pull(cts: list[Any]) -> list[Any]:
        if getattr(tape, "unitensor_nested", False):
            raise arg_error(NotImplementedError, "wrap", "func", "a Warp body "
                            "differentiated once (Warp's tape has no second "
                            "order)", "a second derivative")
        seeds = {}
        for y, ct in zip(outs, cts, strict=True):
            if ct is not None and y.dtype in _FLOATS:
                # Tape.backward takes a seed as the gradient array of an
                # output without one, and copies it into one that has one
                seeds[y] = wp.clone(ct) if y.grad is None else ct
        grads: list[Any] = [None] * len(xs)
        with _suspended():
            tape.zero()  # a second backward (retain_graph) starts again
            if seeds and over:
                tape.backward(grads=seeds)
            for i in over:
                # a copy: the tape's next zero() clears the array it added into
                grads[i] = wp.clone(xs[i].grad) if seeds else wp.zeros_like(xs[i])
        return grads

    return outs, pull


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
    at ``dims`` (None: not batched), the outputs stacked in front.
    """
    size = next(x.shape[d] for x, d in zip(xs, dims, strict=True) if d is not None)
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


def eval_shape(run: Callable[[list[Any]], list[Any]],
               specs: list[tuple[tuple[int, ...], DType]]
               ) -> list[tuple[tuple[int, ...], DType]]:
    """The shapes and dtypes of ``run``'s outputs for inputs of ``specs``: one
    run on zero-filled arrays (Warp has no abstract evaluation, and a kernel
    reads real memory; ``wrap(output_shapes=)`` skips it).
    """
    for shape, d in specs:
        if not shape or d not in TO_WARP:
            raise arg_error(TypeError, "wrap", "args", "arrays of at least one "
                            "dimension, of a dtype Warp has, for a Warp body",
                            f"an array of shape {shape} and dtype {d.name}")
    ys = run([wp.zeros(shape, dtype=TO_WARP[d]) for shape, d in specs])
    return [(tuple(y.shape), NATIVE_DTYPES[y.dtype]) for y in ys]


def from_xla(buffer: Any) -> wp.array:
    """A view of a buffer XLA lends to a callback (compact and aligned, which
    Warp aliases as it is): its capsule as a Buffer, Warp's view of it, without
    the general conversion (Warp's own import of it is DLPack, 70x the array
    interface).
    """
    return _alias(_core.from_capsule(buffer.__dlpack__()))


def write(buffer: Any, src: Any) -> None:
    """Copy the body's output ``src`` into ``buffer``, memory XLA provides."""
    if src.device.is_cpu:  # numpy's views of both: one memcpy
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
        return holders > 0 or (y._ref is not None and not isinstance(
            y._ref, wp.array))

    return copy_kept(ys, "warp", quiet, kept, _memory)


def _memory(y: Any) -> int:
    """An id of the holder of ``y``'s memory (outputs that share it share it)."""
    while isinstance(getattr(y, "_ref", None), wp.array):
        y = y._ref
    return id(y)
