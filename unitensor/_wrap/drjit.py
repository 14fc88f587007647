"""Dr.Jit's part of ``wrap()``: a Dr.Jit body (forward and reverse mode), and a
plain Dr.Jit caller.

The rule: the body never holds the variables its derivatives are read from.
Each differentiated input is a variable of the bridge's own (``dr.detach`` of
the caller's view, gradients enabled) and the body gets a new array of that
variable, so an in-place update in the body (``x *= x`` in a loop) rebinds the
body's array and not the bridge's: the derivative is read where the input
was. (Dr.Jit's own ``dr.wrap`` enables gradients on the array it hands the
body and reads them there, after the body's ``x *= x`` made it the output:
``[1, 1, 1, 1]`` for ``pow2``'s ``[1, 8, 256, 131072]``.)

The pullback seeds the outputs' gradients with the caller's cotangents and
traverses Dr.Jit's graph backward (``dr.enqueue``/``dr.traverse``), keeping it
for a second backward; the Jacobian-vector product sets the inputs' gradients
to the tangents and traverses forward. Dr.Jit's derivatives are first order
here: a derivative of a derivative is refused (NotImplementedError). The
batched form runs the body once per item; output shapes come from one run on
zero-filled inputs (Dr.Jit traces it lazily: nothing is computed unless the
body evaluates). As the caller, Dr.Jit arrays make a plain call; one with
gradients enabled is refused (its AD through a bridge: not yet).
"""

from __future__ import annotations

import contextvars
import sys
from collections.abc import Callable
from typing import Any

import drjit as dr
import numpy as np

from .. import _convert, _core
from .._backends.drjit.interop import NATIVE_DTYPES, TENSOR, copy_reason, export
from .._backends.drjit.interop import alias as _alias
from .._backends.numpy.interop import NATIVE_DTYPES as NUMPY_DTYPES
from .._device import KDL_CPU
from .._dtypes import DType
from .._errors import arg_error
from ._bridge import Call
from ._lend import copy_kept
from ._trees import kept, spread

_FLOATS = frozenset(k for k, d in NATIVE_DTYPES.items() if d.kind == "real floating")
# the derivative runs (pullbacks, Jacobian-vector products) this context is
# inside: one whose body differentiates again refuses its own derivative
_inside: contextvars.ContextVar[tuple[list[bool], ...]] = contextvars.ContextVar(
    "unitensor_drjit_derivatives", default=())


# -- drjit as the caller -----------------------------------------------------------
def call(c: Call) -> Any:
    """Run ``c`` for a Dr.Jit caller: a plain call; refused where an input has
    gradients enabled.
    """
    if any(dr.grad_enabled(x) for x in c.arrays()):
        raise arg_error(NotImplementedError, "wrap", "args", "Dr.Jit arrays "
                        "without gradients enabled (a Dr.Jit caller's AD through "
                        "a bridge: not yet; dr.detach(x) for a plain call)",
                        "an array with gradients enabled")
    return c.plain()


# -- hand-overs --------------------------------------------------------------------
# The bridge hands the common arrays (CPU memory Dr.Jit aliases as it is) over
# through the adapter's export and alias directly, as torch's and jax's parts do
# (_bridge._handover): lend's general path, with its Tensor, costs ~3 µs an array
# more. Anything else takes that path.
def exported(x: Any, compact: bool) -> _core.Buffer | None:
    """A Buffer over ``x`` (a Dr.Jit tensor or flat array of the LLVM backend)
    by the adapter's export, which evaluates a traced array first; None for
    anything else. Dr.Jit's memory is compact, as ``compact`` may ask.
    """
    if not dr.is_jit_v(x) or dr.backend_v(x) != dr.JitBackend.LLVM:
        return None
    try:
        return export(x)
    except (TypeError, BufferError):  # a nested array, a dtype of no Buffer
        return None


def imported(buf: _core.Buffer, guarded: bool) -> Any:
    """``buf`` (CPU memory) as a Dr.Jit tensor by the adapter's alias; None
    where it would need a copy (strided memory) or holds a dtype Dr.Jit has
    not: lend's general path copies and reports, or refuses.
    """
    if buf.device[0] != KDL_CPU:
        return None
    try:
        if copy_reason(buf, guarded) is not None:
            return None
    except BufferError:
        return None
    return _alias(buf)


# -- drjit as the body ---------------------------------------------------------------
def _inexact(x: Any) -> bool:
    return dr.type_v(x) in _FLOATS


def _variables(xs: list[Any], over: list[int]) -> tuple[list[Any], list[Any]]:
    """The bridge's variables for ``xs`` (gradients enabled on those ``over``
    marks) and the body's arrays of them (new arrays of the same variables:
    the body's in-place updates rebind them, and a conversion that takes an
    array's variable, ``dr.auto.ad.Int(tensor)``, empties them, not ours).
    """
    handles = list(xs)
    for i in over:
        handles[i] = dr.detach(xs[i])
        dr.enable_grad(handles[i])
    return handles, [type(h)(h) for h in handles]


def _run(run: Callable[[list[Any]], list[Any]], arrays: list[Any],
         mark: list[bool]) -> list[Any]:
    """``run(arrays)``, telling a derivative run inside it (the body is itself
    a derivative being differentiated) to mark ``mark``.
    """
    token = _inside.set((*_inside.get(), mark))
    try:
        return run(arrays)
    finally:
        _inside.reset(token)


def _refuse_second_order(mark: list[bool]) -> None:
    if mark[0]:
        raise arg_error(NotImplementedError, "wrap", "func", "a Dr.Jit body "
                        "differentiated once (forward or reverse mode)",
                        "a derivative of its derivative")


def _differentiated_here() -> None:
    """Mark every derivative run around this one: its body is differentiated."""
    for mark in _inside.get():
        mark[0] = True


def pullback(run: Callable[[list[Any]], list[Any]], xs: list[Any],
             wrt: list[bool] | None = None
             ) -> tuple[list[Any], Callable[[list[Any]], list[Any]]]:
    """``run(xs)`` and its pullback (Dr.Jit's backward traversal over the
    floating ``xs``, those of them ``wrt`` marks): cotangents of the outputs
    (None where there is none) -> cotangents of ``xs`` (None for integer and
    bool inputs and unmarked ones).
    """
    _differentiated_here()
    over = [i for i, x in enumerate(xs) if _inexact(x) and (wrt is None or wrt[i])]
    handles, arrays = _variables(xs, over)
    mark = [False]
    outs = _run(run, arrays, mark)
    del arrays

    def pull(cts: list[Any]) -> list[Any]:
        _refuse_second_order(mark)
        seeded = []
        for y, ct in zip(outs, cts, strict=True):
            if ct is not None and _inexact(y) and dr.grad_enabled(y):
                dr.set_grad(y, ct)
                seeded.append(y)
        grads: list[Any] = [None] * len(xs)
        for i in over:
            dr.clear_grad(handles[i])  # (a second backward starts again)
        if seeded:
            dr.enqueue(dr.ADMode.Backward, *seeded)
            dr.traverse(dr.ADMode.Backward, dr.ADFlag.ClearVertices)
        for i in over:
            grads[i] = dr.grad(handles[i])
        for y in seeded:
            dr.clear_grad(y)
        return grads

    return outs, pull


def jvp(run: Callable[[list[Any]], list[Any]], xs: list[Any], tangents: list[Any],
        wrt: list[bool] | None = None) -> list[Any]:
    """The tangents of ``run``'s outputs at ``xs`` (None for integer and bool
    outputs), given ``tangents`` of ``xs`` (those of integer and bool inputs,
    and of inputs ``wrt`` leaves out, are not used): Dr.Jit's forward
    traversal from the inputs.
    """
    _differentiated_here()
    over = [i for i, x in enumerate(xs) if _inexact(x) and (wrt is None or wrt[i])
            and tangents[i] is not None]
    handles, arrays = _variables(xs, over)
    mark = [False]
    for i in over:
        dr.set_grad(handles[i], tangents[i])
    outs = _run(run, arrays, mark)
    del arrays
    _refuse_second_order(mark)
    if over:
        dr.enqueue(dr.ADMode.Forward, *(handles[i] for i in over))
        dr.traverse(dr.ADMode.Forward)
    return [(dr.grad(y) if dr.grad_enabled(y) else dr.zeros(type(y), y.shape))
            if _inexact(y) else None for y in outs]


def jvp_of_inexact(run: Callable[[list[Any]], list[Any]], xs: list[Any],
                   tangents: list[Any], inexact_in: list[bool],
                   inexact_out: list[bool]) -> list[Any]:
    """The tangents of ``run``'s inexact outputs, given ``tangents`` of its
    inexact inputs only (the form a jax caller's primitive uses).
    """
    return kept(jvp(run, xs, spread(tangents, inexact_in)), inexact_out)


def vjp_of_inexact(run: Callable[[list[Any]], list[Any]], xs: list[Any],
                   cotangents: list[Any], inexact_in: list[bool],
                   inexact_out: list[bool]) -> list[Any]:
    """The cotangents of ``run``'s inexact inputs (zeros for unused ones), given
    ``cotangents`` of its inexact outputs only (the form a jax caller's
    primitive uses).
    """
    grads = pullback(run, xs)[1](spread(cotangents, inexact_out))
    return [g if g is not None else dr.zeros(type(x), x.shape)
            for g, x in zip(kept(grads, inexact_in), kept(xs, inexact_in), strict=True)]


def _host(x: Any) -> np.ndarray:
    """numpy's view of ``x``'s evaluated memory."""
    return np.asarray(export(x))


def vmap(run: Callable[[list[Any]], list[Any]], xs: list[Any],
         dims: tuple[int | None, ...]) -> list[Any]:
    """``run`` over a batch: once per item of the batch axis of each of ``xs``
    at ``dims`` (None: not batched), the outputs stacked in front (an empty
    batch: empty outputs, their items' shapes from :func:`eval_shape`).
    """
    size = next(x.shape[d] for x, d in zip(xs, dims, strict=True) if d is not None)
    if size == 0:  # no item to run: the items' output shapes from zeros
        specs = [(x.shape if d is None else x.shape[:d] + x.shape[d + 1:],
                  NATIVE_DTYPES[dr.type_v(x)]) for x, d in zip(xs, dims, strict=True)]
        return [dr.zeros(TENSOR[dt], (0, *shape))
                for shape, dt in eval_shape(run, specs)]
    results: list[list[np.ndarray]] = []
    for k in range(size):
        # new arrays each run: Dr.Jit's conversions may take an array's
        # variable from it (dr.auto.ad.Int(tensor) leaves the tensor empty)
        items = [type(x)(x) if d is None else type(x)(np.ascontiguousarray(
            np.take(_host(x), k, axis=d))) for x, d in zip(xs, dims, strict=True)]
        results.append([_host(y) for y in run(items)])
    return [TENSOR[NUMPY_DTYPES[col[0].dtype]](np.stack(col))
            for col in zip(*results, strict=True)]


def eval_shape(run: Callable[[list[Any]], list[Any]],
               specs: list[tuple[tuple[int, ...], DType]]
               ) -> list[tuple[tuple[int, ...], DType]]:
    """The shapes and dtypes of ``run``'s outputs for inputs of ``specs``: one
    run on zero-filled tensors (Dr.Jit traces it lazily; ``output_shapes=``
    skips it).
    """
    for _, d in specs:
        if d not in TENSOR:
            raise arg_error(TypeError, "wrap", "args", "arrays of a dtype Dr.Jit "
                            "has, for a Dr.Jit body", f"an array of dtype {d.name}")
    ys = run([dr.zeros(TENSOR[d], shape) for shape, d in specs])
    return [(tuple(y.shape), NATIVE_DTYPES[dr.type_v(y)]) for y in ys]


def from_xla(buffer: Any) -> Any:
    """A tensor over a buffer XLA lends to a callback (compact: Dr.Jit
    aliases it as it is), without the general conversion.
    """
    return _alias(_core.from_capsule(buffer.__dlpack__()))


def write(buffer: Any, src: Any) -> None:
    """Copy the body's output ``src`` (evaluated here) into ``buffer``."""
    np.copyto(np.asarray(_core.from_capsule(buffer.__dlpack__())), _host(src))


def kept_inputs(xs: list[Any]) -> list[int]:
    """Which of ``xs`` (views of XLA's buffers, the list their one holder once
    the body returned) the body still holds: XLA reuses that memory.
    """
    return [i for i in range(len(xs)) if sys.getrefcount(xs[i]) > 2]


def unshared(ys: list[Any], xs: list[Any], quiet: bool) -> list[Any]:
    """The body's outputs ``ys`` (the list their only holder), each one the body
    keeps (a global, a cached array) copied, reported unless ``quiet``; ``xs``:
    the body's views of the caller's immutable arrays, given back as they are.
    """
    def kept(i: int) -> bool:
        y = ys[i]
        if any(y is x for x in xs):
            return False
        places = sum(1 for z in ys if z is y) - 1
        # the list, getrefcount's argument, the local y
        return sys.getrefcount(y) - 3 - places > 0

    return copy_kept(ys, "drjit", quiet, kept, id, _copy_keeping_gradient)


def _copy_keeping_gradient(y: Any) -> Any:
    """A copy of a kept output (unitensor's conversion) that keeps ``y``'s
    place in Dr.Jit's graph (``dr.replace_grad``: the copy's values, ``y``'s
    gradient): the caller's cotangent, seeded on the copy, reaches the body's
    own output (a copy alone gave zero gradients).
    """
    copied = _convert.view(_convert.asarray(y), "drjit", True, "wrap")
    return dr.replace_grad(copied, y) if dr.grad_enabled(y) else copied
