"""JAX's part of ``wrap()``: jax calling another framework, and a jax body.

As the caller, a call with concrete arrays and no transformation is a plain call
(views in, views out). Under a transformation (the arguments are tracers) the
call is one primitive, ``unitensor_wrap``, whose JVP, transpose and batching
rules bind it again on the body's derivatives and batched form (computed by the
body's framework), so every JAX transformation composes with it at any order.
Concrete arrays run on views; under ``jax.jit`` the body runs on XLA's own
buffers, in unitensor's XLA FFI handler on the CPU (ext/_xla.c), else in
``jax.experimental.buffer_callback``: ``jit_route`` alone chooses.

As the body, a jax function's derivatives are ``jax.vjp`` and ``jax.jvp``, and its
batched form ``jax.vmap``.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.extend.core import Primitive
from jax.interpreters import ad, batching, mlir

from .. import _convert
from .._backends.jax import interop as _interop
from .._backends.jax.interop import jax_dtype
from .._dtypes import parse as parse_dtype
from .._errors import arg_error, conversion_refused, describe
from . import _parts

if TYPE_CHECKING:
    from ._bridge import Call

buffer_callback: Callable[..., Any] | None
try:  # jax >= 0.6.1: XLA's buffers lent to the callback, outputs written in place
    from jax.experimental.buffer_callback import buffer_callback
except ImportError:  # older jax: jax.pure_callback, which copies both ways
    buffer_callback = None

_FLOAT0 = jax.dtypes.float0


# -- jax as the caller -----------------------------------------------------------
# One primitive for every bridged call under a JAX transformation. Its parameter
# ``fn`` (a _Fn, made per call, hashable by identity, registered nowhere) is the
# function it runs, over the body framework's arrays: the body itself, or the
# body's forward-mode derivative (_Jvp), its vector-Jacobian product (_Vjp) or its
# batched form (_Vmap), each computed by the body's framework (torch.func). Every
# rule binds the same primitive again with a derived ``fn``, so transformations
# compose to any order: a JVP of a _Vjp is a _Jvp of it, a batched _Jvp a _Vmap of
# it, and the transpose of a _Jvp is the _Vjp of the same function (and back).
_bridge_p = Primitive("unitensor_wrap")
_bridge_p.multiple_results = True


def call(c: Call) -> Any:
    """Run ``c`` for a jax caller: a plain call on concrete arrays, else the
    bridge primitive on the tracers.
    """
    xs = c.arrays()
    if not _traced(xs):
        return c.plain()
    if not c.bridge.differentiable:
        traced = next(x for x in xs if isinstance(x, jax.core.Tracer))
        raise arg_error(NotImplementedError, "wrap", "args", "concrete jax arrays "
                        f"(a {c.bridge.target} body runs outside jax "
                        "transformations only, so far)", describe(traced))
    fn = _Body(c, tuple(_aval(x) for x in xs))
    outs = _bridge_p.bind(*xs, fn=fn)
    if c.out is None:  # the body has not run (an abstract evaluation was cached)
        fn.out_avals()
    _refuse_narrowed(c.out)
    return c.result(list(outs))


def _refuse_narrowed(out: Any) -> None:
    """A numpy array among the body's other outputs (a torch body's
    ``x.numpy()``) is a constant of JAX's trace, which JAX narrows to 32 bits
    with x64 disabled: refused, as the body's own 64-bit arrays are (eagerly it
    comes back as it is, exact).
    """
    for leaf in out[0]:  # (None where the body's arrays were)
        if isinstance(leaf, (np.ndarray, np.generic)):
            _held(parse_dtype(leaf.dtype, "wrap"), "func (an output of the body)")


def _traced(xs: Any) -> bool:
    return any(isinstance(x, jax.core.Tracer) for x in xs)


def _aval(x: Any) -> jax.core.ShapedArray:
    return jax.core.ShapedArray(tuple(x.shape), x.dtype)


class _Fn:
    """A function over the body framework's arrays, with the avals of its inputs
    and (found lazily) of its outputs. ``root``: the bridged call it derives
    from (its conversions, its body framework).
    """

    __slots__ = ("__weakref__", "_out", "in_avals", "root")

    def __init__(self, root: Call, in_avals: tuple[Any, ...]) -> None:
        self.root = root
        self.in_avals = in_avals
        self._out: tuple[Any, ...] | None = None

    def run(self, arrays: list[Any]) -> list[Any]:
        raise NotImplementedError

    def run_copied(self, arrays: list[Any], guarded: bool = True) -> list[Any]:
        """``run``, where its outputs will be copied (into XLA's buffers).
        ``guarded``: see ``Call.run`` (a derived function is always guarded).
        """
        return self.run(arrays)

    def _find_out_avals(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def out_avals(self) -> tuple[Any, ...]:
        out = self._out
        if out is None:
            out = self._out = self._find_out_avals()
        return out

    def learn(self, outs: Any) -> None:
        """Keep the output avals of a run (saves a run on meta tensors)."""
        if self._out is None:
            self._out = tuple(_aval(y) for y in outs)

    def inexact_in(self) -> list[bool]:
        return [_inexact(a) for a in self.in_avals]

    def inexact_out(self) -> list[bool]:
        return [_inexact(a) for a in self.out_avals()]

    def to_body(self, x: Any) -> Any:
        return self.root.to_body(x, quiet=True)

    def to_caller(self, y: Any) -> Any:
        return self.root.to_caller(y, quiet=True)

    def __repr__(self) -> str:
        return f"{type(self).__name__[1:].lower()}({self.root.bridge.func!r})"


class _Body(_Fn):
    """The body itself, over the caller's arrays."""

    __slots__ = ()

    def run(self, arrays: list[Any]) -> list[Any]:
        return self.root.run(arrays)

    def run_copied(self, arrays: list[Any], guarded: bool = True) -> list[Any]:
        return self.root.run(arrays, lent=False, guarded=guarded)

    def _find_out_avals(self) -> tuple[Any, ...]:
        specs = [(a.shape, parse_dtype(a.dtype, "wrap")) for a in self.in_avals]
        found = self.root.shapes(specs)
        return tuple(jax.core.ShapedArray(s, _held(d, "func (an output of the body)"))
                     for s, d in found)

    def to_body(self, x: Any) -> Any:  # the caller's own arrays: copies reported
        return self.root.to_body(x)

    def to_caller(self, y: Any) -> Any:
        return self.root.to_caller(y)


class _Jvp(_Fn):
    """``(xs, tangents of the inexact xs) -> tangents of the inexact outputs``
    of ``of``: linear in the tangents.
    """

    __slots__ = ("of",)

    def __init__(self, of: _Fn) -> None:
        tangents = tuple(a for a, m in zip(of.in_avals, of.inexact_in(), strict=True)
                         if m)
        super().__init__(of.root, of.in_avals + tangents)
        self.of = of

    def run(self, arrays: list[Any]) -> list[Any]:
        of = self.of
        n = len(of.in_avals)
        return of.root.body().jvp_of_inexact(of.run, arrays[:n], arrays[n:],
                                             of.inexact_in(), of.inexact_out())

    def _find_out_avals(self) -> tuple[Any, ...]:
        of = self.of
        return tuple(a for a, m in zip(of.out_avals(), of.inexact_out(), strict=True)
                     if m)


class _Vjp(_Fn):
    """``(xs, cotangents of the inexact outputs) -> cotangents of the inexact
    xs`` of ``of``: linear in the cotangents.
    """

    __slots__ = ("masks", "of")

    def __init__(self, of: _Fn) -> None:
        inexact_out = of.inexact_out()
        cts = tuple(a for a, m in zip(of.out_avals(), inexact_out, strict=True) if m)
        super().__init__(of.root, of.in_avals + cts)
        self.of = of
        # which inputs and outputs of ``of`` are inexact: found once, not
        # per run (under jax.jit, a run per execution)
        self.masks = (of.inexact_in(), inexact_out)

    def run(self, arrays: list[Any]) -> list[Any]:
        of = self.of
        n = len(of.in_avals)
        # the body itself as the call's own run, its outputs lent to no one
        # (they are the pullback's alone): a body's part may know its body
        # by it (a Warp kernel: its adjoint)
        run = of.root.run_unlent if type(of) is _Body else of.run
        return of.root.body().vjp_of_inexact(run, arrays[:n], arrays[n:], *self.masks)

    def _find_out_avals(self) -> tuple[Any, ...]:
        of = self.of
        return tuple(a for a, m in zip(of.in_avals, of.inexact_in(), strict=True)
                     if m)


class _Vmap(_Fn):
    """``of`` batched: the inputs with a batch axis at ``dims`` (None: not
    batched), the outputs with one in front, in one call of the body
    framework's vmap.
    """

    __slots__ = ("dims", "of", "size")

    def __init__(self, of: _Fn, in_avals: tuple[Any, ...],
                 dims: tuple[int | None, ...], size: int) -> None:
        super().__init__(of.root, in_avals)
        self.of = of
        self.dims = dims
        self.size = size

    def run(self, arrays: list[Any]) -> list[Any]:
        # the body itself: the call's own run (what a body part recognises,
        # as Warp's kernels' batched launch), which _Body.run is
        of = self.root.run if type(self.of) is _Body else self.of.run
        return self.root.body().vmap(of, arrays, self.dims)

    def _find_out_avals(self) -> tuple[Any, ...]:
        return tuple(jax.core.ShapedArray((self.size, *a.shape), a.dtype)
                     for a in self.of.out_avals())


def _impl(*xs: Any, fn: _Fn) -> list[Any]:
    """Concrete arrays: the body's framework runs on views of them."""
    ys = [fn.to_caller(y) for y in fn.run([fn.to_body(x) for x in xs])]
    fn.learn(ys)
    return ys


def _check(avals: tuple[Any, ...], found: list[tuple[tuple[int, ...], Any]]) -> None:
    """Under jax.jit, the body's outputs (``found``: shapes, dtypes) against
    ``avals``, which JAX traced the call with: XLA's buffers have those shapes,
    and a copy into them would broadcast another shape silently, or cast
    another dtype.
    """
    if len(found) != len(avals):
        raise arg_error(ValueError, "wrap", "func (an output of the body)",
                        f"{len(avals)} arrays, as found before the body ran (its "
                        "shape pass, or output_shapes=)", f"{len(found)} arrays")
    for i, (a, (shape, dtype)) in enumerate(zip(avals, found, strict=True)):
        if shape != a.shape or _same_dtype(dtype) != _same_dtype(a.dtype):
            raise arg_error(ValueError, "wrap", "func (an output of the body)",
                            f"an array of shape {a.shape} and dtype {a.dtype} at "
                            f"output {i}, as found before the body ran (its shape "
                            "pass, or output_shapes=), which jax.jit and JAX's "
                            "transformations traced the call with",
                            f"shape {shape} and dtype {_same_dtype(dtype).name}")


def _dtype(y: Any) -> Any:
    """The dtype of a body's output: its own attribute, or unitensor's reading
    of it (a Dr.Jit array has no dtype attribute).
    """
    return y.dtype if hasattr(y, "dtype") else _convert.asarray(y).dtype


@functools.cache
def _same_dtype(dtype: Any) -> Any:
    """Any framework's dtype as unitensor's (cached: a jit call checks each
    output's).
    """
    return parse_dtype(dtype, "wrap")


def _abstract_eval(*avals: Any, fn: _Fn) -> tuple[Any, ...]:
    return fn.out_avals()


def _lower(*xs: Any, fn: _Fn, route: str) -> Any:
    """Under jit, where unitensor's FFI handler does not run (``route``, from
    :func:`jit_route`): the body runs in a callback of JAX's, on XLA's own
    buffers (``buffer_callback``), else on copies of them (``pure_callback``).
    """
    types = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in fn.out_avals()]
    if route == "pure_callback" or buffer_callback is None:
        def host(*arrays: np.ndarray) -> list[np.ndarray]:
            ys = fn.run([fn.to_body(a) for a in arrays])
            return [np.asarray(fn.to_caller(y)) for y in ys]
        return jax.pure_callback(host, types, *xs)
    run = _in_place(fn)

    def run_in_place(ctx: Any, outs: list[Any], *buffers: Any) -> None:
        run(buffers, tuple(outs))

    return buffer_callback(run_in_place, types)(*xs)


# A torch body cannot be given read-only memory: the caller's immutable arrays
# are guarded while it runs (its part's read_only: a torch function mode, ~1 µs
# an operation and ~2 µs a call). In unitensor's handler, the arguments of a
# plain call of at most this many bytes in all are watched instead: their bytes
# copied before the body runs, and any it changed set back once it returned and
# the call refused (0.3 µs more at 16 KiB than at 16 bytes, where the mode cost
# 3.3 µs on a two-operation body: measured).
_WATCHED_BYTES = 1 << 14


def _watched(fn: _Fn) -> bool:
    """Whether the runner of ``fn`` in unitensor's handler watches its
    arguments' bytes instead of guarding them as the body runs.
    """
    return (type(fn) is _Body and isinstance(fn.root.body(), _parts.Guarded)
            and sum(a.size * a.dtype.itemsize for a in fn.in_avals) <= _WATCHED_BYTES)


def _in_place(fn: _Fn, lents: bool = False
              ) -> Callable[[tuple[Any, ...], tuple[Any, ...]], None]:
    """``fn`` over XLA's buffers, made once per lowering: ``run(arguments,
    results)`` lends the arguments to the body, runs it, checks its outputs
    against the traced avals and copies them into the results, then refuses a
    body that kept an input (XLA reuses that memory once the call returns).
    ``lents``: the buffers are unitensor's handler's (``_xla.Lent``), which
    it watches (see _WATCHED_BYTES) and whose holders it counts in C.
    """
    body = fn.root.body()  # the body framework's part: from_xla, write
    # XLA's buffers are compact and aligned, which any framework aliases: the
    # body's framework imports them directly (its from_dlpack), which saves
    # unitensor's general conversion (and its copy rule, moot here) per array
    lend = body.from_xla
    # a body that writes into XLA's output buffers itself (a Warp kernel
    # launched into them, as Warp's jax_kernel does), given XLA's buffers
    # (arguments, results) themselves: optional in a part
    into = getattr(body, "into_xla", None)
    launch = None
    if into is not None and isinstance(fn, _Body):
        launch = into(fn.root)
    elif into is not None and isinstance(fn, _Vmap) and type(fn.of) is _Body:
        launch = into(fn.root, fn.dims)  # (the body itself, batched)
    avals = fn.out_avals()
    # what each output must be, as the body gives it: a shape (a tuple, or
    # torch's Size, equal to one) and unitensor's dtype, found once here
    expected = [(a.shape, _same_dtype(a.dtype)) for a in avals]
    if not lents:
        return _general(fn, body, lend, launch, avals, expected)
    from .. import _xla  # (built: the handler, which alone passes Lents, is)
    watched = _watched(fn)
    # a part may name an array type whose DLPack C exchange API lends the
    # arguments and fills the results, the most elements a result filled so
    # may have (past it, the part's own write is faster), and which of its
    # arrays that API would read wrong (lazy: their memory is not their value)
    exchange = getattr(body, "XLA_EXCHANGE", None)
    kind, most, lazy = exchange if exchange is not None else (None, 0, bool)

    def run(buffers: tuple[Any, ...], outs: tuple[Any, ...]) -> None:
        if launch is not None:  # (it keeps no array: nothing to check after)
            launch(list(buffers), list(outs))  # (XLA's buffers: it lends them)
            return
        xs = _xla.lend(buffers, kind) if kind is not None else [
            lend(b) for b in buffers]
        if watched:
            before = _xla.snapshot(buffers)
            try:
                ys = fn.run_copied(xs, guarded=False)
            finally:  # (also where the body raised: its exception goes on)
                written = _xla.restore(buffers, before)
            if written >= 0:
                raise _written(fn, written)
        else:
            ys = fn.run_copied(xs)
        del xs  # (the body's views: their exports hold the Lents, counted below)
        if kind is None or any(map(lazy, ys)) or not _xla.fill(outs, ys, kind, most):
            _check_and_write(body, avals, expected, outs, ys)
        # the outputs are let go once written (one may be an input, or hold
        # one for its gradient): then only the body can still hold an input
        del ys
        _refuse_kept(lambda: _xla.held(buffers))

    return run


def _general(fn: _Fn, body: ModuleType, lend: Callable[[Any], Any],
             launch: Callable[..., None] | None, avals: tuple[Any, ...],
             expected: list[tuple[Any, Any]]
             ) -> Callable[[tuple[Any, ...], tuple[Any, ...]], None]:
    """:func:`_in_place`'s runner for JAX's own buffers (buffer_callback)."""
    def run(buffers: tuple[Any, ...], outs: tuple[Any, ...]) -> None:
        if launch is not None:
            launch(list(buffers), list(outs))
            return
        xs = [lend(b) for b in buffers]
        ys = fn.run_copied(xs)
        _check_and_write(body, avals, expected, outs, ys)
        del ys
        _refuse_kept(lambda: next(iter(body.kept_inputs(xs)), -1))

    return run


def _check_and_write(body: ModuleType, avals: tuple[Any, ...],
                     expected: list[tuple[Any, Any]], outs: Sequence[Any],
                     ys: list[Any]) -> None:
    """The body's outputs ``ys`` checked against the traced ``avals`` (their
    ``expected`` shapes and dtypes), then copied into XLA's buffers ``outs``.
    """
    if len(ys) != len(expected) or not all(
            y.shape == shape and _same_dtype(_dtype(y)) == dtype
            for y, (shape, dtype) in zip(ys, expected, strict=True)):
        _check(avals, [(tuple(y.shape), _dtype(y)) for y in ys])  # raises
    for out, y in zip(outs, ys, strict=True):
        body.write(out, y)


def _refuse_kept(first_kept: Callable[[], int]) -> None:
    """Refuse a body that still holds an input (``first_kept()``: its index, or
    -1) once it returned: the views lose their memory when the call returns, so
    a body that keeps one reads reused memory later, and writes corrupt it.
    """
    kept = first_kept()
    if kept >= 0:  # (rare) garbage cycles may hold them: collected first
        gc.collect()
        kept = first_kept()
    if kept >= 0:
        raise arg_error(ValueError, "wrap", "func", "a body that keeps none of its "
                        "inputs once it returns under jax.jit (they are views of "
                        "XLA's buffers, which XLA reuses after the call: keep a "
                        "copy, x.clone())", f"a body that kept input {kept}")


def _written(fn: _Fn, i: int) -> ValueError:
    """The refusal of a watched body that wrote into argument ``i``."""
    return arg_error(ValueError, "wrap", "func", "a body that does not write into "
                     f"its inputs ({fn.root.bridge.source}'s arrays are immutable)",
                     f"a body that wrote into input {i} in place (found when it "
                     "returned, and undone; outside jax.jit the write is refused "
                     "where it happens)")


# -- jax.jit on the CPU: unitensor's own XLA FFI handler -------------------------
# ext/_xla.c's handler, registered with XLA as this custom call target, runs the
# body on XLA's buffers: it takes the GIL and calls the call site's runner (an
# _in_place function) once, with the arguments and results as unitensor._xla.Lent
# objects (DLPack exporters, expired when the call returns). JAX's own
# buffer_callback does the same through more machinery (~20 µs a call more).
# The runner is named by its address (the call's "runner" attribute): the
# executable holds it in its host callbacks, as long as the executable can run
# (and JAX writes no executable with host callbacks to its persistent cache, so
# no address outlives its process). A Python exception of the body becomes an
# XLA error whose code follows its type (ValueError and TypeError:
# INVALID_ARGUMENT, NotImplementedError: UNIMPLEMENTED, IndexError:
# OUT_OF_RANGE, BufferError: FAILED_PRECONDITION), its text the formatted
# exception: JAX raises it from the jitted call as a JaxRuntimeError.
_XLA_TARGET = "unitensor_wrap_cpu"


@functools.cache
def _xla_target() -> str | None:
    """The custom call target of ext/_xla.c's handler, registered with XLA on
    first use; None where it cannot be (no ``unitensor._xla`` built, a jax
    without ``jax.ffi``).
    """
    try:
        from .. import _xla
        jax.ffi.register_ffi_target(_XLA_TARGET, _xla.handler, platform="cpu")
    except (ImportError, AttributeError):
        return None
    return _XLA_TARGET


def jit_route(platform: str) -> str:
    """How a bridged call runs under ``jax.jit`` on ``platform``, chosen here
    alone: ``"ffi"`` (unitensor's XLA FFI handler, the CPU), else
    ``"buffer_callback"`` (JAX's, jax >= 0.6.1), else ``"pure_callback"``
    (JAX copies in and out).
    """
    if platform == "cpu" and _xla_target() is not None:
        return "ffi"
    return "pure_callback" if buffer_callback is None else "buffer_callback"


def _lowering(ctx: Any, *args: Any, fn: _Fn) -> Any:
    """The bridge primitive under jit, by :func:`jit_route`."""
    platforms = ctx.module_context.platforms
    route = jit_route(platforms[0] if len(platforms) == 1 else "several")
    if route != "ffi":
        return mlir.lower_fun(functools.partial(_lower, route=route),
                              multiple_results=True)(ctx, *args, fn=fn)
    run = _in_place(fn, lents=True)
    ctx.module_context.add_host_callback(run)  # (held by the executable)
    return jax.ffi.ffi_lowering(_XLA_TARGET)(ctx, *args, runner=np.uint64(id(run)))


def _jvp_rule(primals: tuple[Any, ...], tangents: tuple[Any, ...], *, fn: _Fn
              ) -> tuple[list[Any], list[Any]]:
    outs = _bridge_p.bind(*primals, fn=fn)
    fn.learn(outs)
    inexact_in = fn.inexact_in()
    zero_out = [ad.Zero(a.to_tangent_aval()) for a in fn.out_avals()]
    if all(type(t) is ad.Zero or not m
           for t, m in zip(tangents, inexact_in, strict=True)):
        return outs, zero_out
    ts = [ad.instantiate_zeros(t) for t, m in zip(tangents, inexact_in, strict=True)
          if m]
    touts = iter(_bridge_p.bind(*primals, *ts, fn=_Jvp(fn)))
    return outs, [next(touts) if m else z
                  for m, z in zip(fn.inexact_out(), zero_out, strict=True)]


def _transpose_rule(cts: list[Any], *args: Any, fn: _Fn) -> list[Any]:
    # Linear only in the tangents of a _Jvp and the cotangents of a _Vjp, whose
    # primal inputs are known; the transpose of one is the other.
    if not isinstance(fn, (_Jvp, _Vjp)) or any(
            ad.is_undefined_primal(x) for x in args[:len(fn.of.in_avals)]):
        raise arg_error(NotImplementedError, "wrap", "args", "a transformation "
                        "wrap() can transpose (the tangents of a jvp, the "
                        "cotangents of a vjp)", f"a transpose of {fn!r}")
    of = fn.of
    primals = args[:len(of.in_avals)]
    cts = [ad.instantiate_zeros(ct) for ct in cts]
    other: _Fn = _Vjp(of) if isinstance(fn, _Jvp) else _Jvp(of)
    return [None] * len(primals) + list(_bridge_p.bind(*primals, *cts, fn=other))


def _batch_rule(args: tuple[Any, ...], dims: tuple[int | None, ...], *, fn: _Fn
                ) -> tuple[list[Any], list[int]]:
    size = next(x.shape[d] for x, d in zip(args, dims, strict=True) if d is not None)
    batched = _Vmap(fn, tuple(_aval(x) for x in args), tuple(dims), size)
    outs = _bridge_p.bind(*args, fn=batched)
    return outs, [0] * len(outs)


# JAX caches abstract evaluations by their parameters (an LRU cache, strong
# references); a parameter of a type named here is held weakly, so the cache
# keeps no bridged call (and its body) alive. jax's private set: without it
# (another jax), entries are only evicted by the LRU bound.
try:
    from jax._src.util import weakref_cache_key_types
    weakref_cache_key_types.update((_Body, _Jvp, _Vjp, _Vmap))
except ImportError:  # pragma: no cover - another jax
    pass

_bridge_p.def_impl(_impl)
_bridge_p.def_abstract_eval(_abstract_eval)
ad.primitive_jvps[_bridge_p] = _jvp_rule
ad.primitive_transposes[_bridge_p] = _transpose_rule
batching.primitive_batchers[_bridge_p] = _batch_rule
mlir.register_lowering(_bridge_p, _lowering)


# -- hand-overs: the parts' own route (Bridge.handed) -----------------------------
# (see the torch part: the adapters' export and alias without a Tensor, for the
# common arrays; anything else takes _lend.lend's general path)


def exported(y: Any, compact: bool) -> Any:
    """A read-only Buffer over ``y``, a concrete jax array on the CPU of a
    dtype unitensor holds (the jax adapter's direct export: jaxlib's own, which
    waits until ``y`` is computed, as ``y.__dlpack__()`` does); None for
    anything else (a tracer, numpy, another device, a sharded or deleted array).
    """
    return _interop.direct_export(y)


def imported(buf: Any, guarded: bool) -> Any:
    """``buf`` as a jax array by the jax adapter's own alias (its check that
    jaxlib did not copy); None where jax would copy (not compact, not 64-byte
    aligned, 64-bit data with x64 disabled: the general path reports or
    refuses it).
    """
    try:
        if _interop.copy_reason(buf) is not None:
            return None
    except BufferError:  # 64-bit data with x64 disabled: refused by lend
        return None
    return _interop.alias(buf)


# -- jax as the body -------------------------------------------------------------
def pullback(run: Callable[[list[Any]], list[Any]], xs: list[Any],
             wrt: list[bool] | None = None
             ) -> tuple[list[Any], Callable[[list[Any]], list[Any]]]:
    """``run(xs)`` and its pullback (``jax.vjp`` over the floating ``xs``, those
    of them ``wrt`` marks): cotangents of the outputs (None where there is none)
    -> cotangents of ``xs`` (None for integer and bool inputs and unmarked ones).
    """
    over_xs = [i for i, x in enumerate(xs) if _inexact(x) and (wrt is None or wrt[i])]

    def over(*inexact: Any) -> list[Any]:
        full = list(xs)
        for i, x in zip(over_xs, inexact, strict=True):
            full[i] = x
        return run(full)

    outs, vjp = jax.vjp(over, *(xs[i] for i in over_xs))

    def pull(cts: list[Any]) -> list[Any]:
        # the caller's cotangents follow torch's convention for complex
        # numbers, the conjugates of JAX's: conjugated in and out
        cts = [_conj(ct) if _inexact(y) and ct is not None else _zero_cotangent(y)
               for y, ct in zip(outs, cts, strict=True)]
        grads: list[Any] = [None] * len(xs)
        for i, grad in zip(over_xs, vjp(cts), strict=True):
            grads[i] = _conj(grad)
        return grads

    return outs, pull


# the type of a jax.jit function (jaxlib's PjitFunction)
_JITTED = type(jax.jit(lambda x: x))


def compiled_pullback(c: Call, xs: list[Any]
                      ) -> tuple[list[Any], Callable[[list[Any]], list[Any]]] | None:
    """:func:`pullback` of a ``jax.jit`` body, compiled: its forward (with the
    residuals of ``jax.vjp``) and its pullback each one ``jax.jit`` function,
    made once per input signature (the arrays' shapes and dtypes, which are
    differentiated, the other arguments) and kept on the bridge. ``jax.vjp``
    of the body otherwise traces it anew on every call (~0.4 ms). None where
    it does not apply: a body that is not a ``jax.jit`` function (compiling it
    could change what it does: side effects, Python control flow on values),
    or other arguments that cannot be a key (unhashable).

    A body whose output is one real scalar (a loss), whose backward followed
    its last forward of this signature, runs as one compiled call computing
    the value and the gradients at a cotangent of 1 (:class:`_AtOne`): the
    pullback of a real scalar is that gradient times its cotangent, so the
    backward needs no second call of jax (nor the cotangent handed to it).
    """
    bridge = c.bridge
    if not isinstance(bridge.func, _JITTED):
        return None
    wrt = c.wrt
    over = tuple(i for i, x in enumerate(xs)
                 if _inexact(x) and (wrt is None or wrt[i]))
    key = c.key("pullback", tuple((x.shape, x.dtype) for x in xs), over)
    if key is None:  # another argument is unhashable: traced per call
        return None
    entry = bridge.compiled.get(key)
    if entry is None:
        entry = c.keep(key, _Compiled(c, c.template(), over))
    if entry.follows and entry.scalar:
        if entry.owed:  # the last call's gradients were never asked for:
            entry.follows = False  # the forward alone again (until a backward)
            entry.owed = False
        else:
            outs, grads = entry.at_one()(*xs)
            c.out = entry.out[0]
            entry.owed = True
            return outs, _AtOne(entry, outs[0], grads, len(xs))
    outs, residuals = entry.forward(*xs)
    c.out = entry.out[0]
    if entry.scalar is None:  # (the first call) a real scalar output?
        entry.scalar = bool(over) and len(outs) == 1 and outs[0].shape == () and (
            _inexact(outs[0]) and not _complex_dtype(outs[0].dtype))

    def pull(cts: list[Any]) -> list[Any]:
        entry.follows = True
        # torch's convention for complex cotangents: conjugated in and out
        cts = [_conj(ct) if _inexact(y) and ct is not None else _zero_cotangent(y)
               for y, ct in zip(outs, cts, strict=True)]
        grads: list[Any] = [None] * len(xs)
        for i, grad in zip(over, entry.backward(residuals, cts), strict=True):
            grads[i] = _conj(grad)
        return grads

    return outs, pull


class _AtOne:
    """The pullback of a body whose output is one real scalar ``y``, from the
    gradients ``grads`` (of the inputs at ``entry.over``, in the caller's
    convention: conjugated) at a cotangent of 1, computed with the value:
    cotangent ``ct`` -> ``ct * grads``. A caller may take :meth:`at_one`
    and multiply in its own framework (torch: no call of jax in the backward).
    """

    __slots__ = ("entry", "grads", "n", "y")

    def __init__(self, entry: _Compiled, y: Any, grads: list[Any], n: int) -> None:
        self.entry = entry
        self.y = y
        self.grads = grads
        self.n = n

    def at_one(self) -> list[Any]:
        """The gradients of the inputs at a cotangent of 1 (None where an
        input is not differentiated): the caller's to multiply by its own.
        """
        self.entry.owed = False  # asked for: the next call fuses again
        found: list[Any] = [None] * self.n
        for i, grad in zip(self.entry.over, self.grads, strict=True):
            found[i] = grad
        return found

    def __call__(self, cts: list[Any]) -> list[Any]:
        (ct,) = cts
        grads = self.at_one()
        if ct is None:  # no cotangent: zero gradients
            return [None if g is None else jnp.zeros_like(g) for g in grads]
        return [None if g is None else g * ct.astype(g.dtype) for g in grads]


class _Compiled:
    """What :func:`compiled_pullback` keeps per input signature: the compiled
    forward (outputs and the residuals of ``jax.vjp``) and pullback, the
    structure of the body's output (once traced), and for a body with one
    real scalar output, the compiled value and gradients at a cotangent of 1
    (made on first use), with what decides when to take that route:
    ``follows``, a backward followed this signature's last forward; ``owed``,
    the gradients of its last such call were not asked for yet.
    """

    __slots__ = ("_at_one", "backward", "follows", "forward", "out", "over",
                 "owed", "scalar", "template", "traced")

    def __init__(self, c: Call, template: list[Any], over: tuple[int, ...]) -> None:
        from ._bridge import Call

        # a Call of their own, with the arguments' template: not ``c`` (its arrays)
        self.traced = Call(c.bridge, template, c.tree, c.positions)
        self.over = over
        self.forward, self.backward, self.out = _compile_pullback(self.traced, over)
        self._at_one: Callable[..., Any] | None = None
        self.scalar: bool | None = None  # found by the first forward
        self.follows = False
        self.owed = False

    def at_one(self) -> Callable[..., Any]:
        if self._at_one is None:
            self._at_one = _compile_at_one(self.traced, self.over)
        return self._at_one


def _run_over(traced: Call, xs: tuple[Any, ...], over: tuple[int, ...],
              inexact: tuple[Any, ...]) -> list[Any]:
    """``traced``'s body on ``xs`` with the arguments at ``over`` replaced by
    ``inexact`` (what jax.vjp differentiates).
    """
    full = list(xs)
    for i, x in zip(over, inexact, strict=True):
        full[i] = x
    return traced.run(full)


def _compile_at_one(traced: Call, over: tuple[int, ...]) -> Callable[..., Any]:
    """The body's outputs (one real scalar) and the gradients of its inputs at
    ``over`` at a cotangent of 1, conjugated (torch's convention), in one
    ``jax.jit`` function.
    """
    def at_one(*xs: Any) -> tuple[list[Any], list[Any]]:
        def of_over(*inexact: Any) -> list[Any]:
            return _run_over(traced, xs, over, inexact)

        outs, vjp = jax.vjp(of_over, *(xs[i] for i in over))
        grads = vjp([jnp.ones((), outs[0].dtype)])
        return outs, [_conj(g) for g in grads]

    return jax.jit(at_one)


def _compile_pullback(traced: Call, over: tuple[int, ...]
                      ) -> tuple[Callable[..., Any], Callable[..., Any], list[Any]]:
    """The compiled forward and pullback of :func:`compiled_pullback`, and (once
    the forward traced) the structure of the body's output, for ``traced``
    (a Call with the arguments' template).
    """
    out: list[Any] = []

    def forward(*xs: Any) -> tuple[list[Any], Any]:
        def of_over(*inexact: Any) -> list[Any]:
            return _run_over(traced, xs, over, inexact)

        outs, vjp = jax.vjp(of_over, *(xs[i] for i in over))
        out[:] = [traced.out]
        # the pullback as its residuals (the arrays of jax.vjp's VJP, a
        # pytree) and their structure, which the compiled pullback rebuilds
        leaves, structure = jax.tree_util.tree_flatten(vjp)
        shape.append(structure)
        return outs, leaves

    shape: list[Any] = []

    def backward(residuals: list[Any], cts: list[Any]) -> Any:
        return jax.tree_util.tree_unflatten(shape[-1], residuals)(cts)

    return jax.jit(forward), jax.jit(backward), out


def jvp(run: Callable[[list[Any]], list[Any]], xs: list[Any], tangents: list[Any],
        wrt: list[bool] | None = None) -> list[Any]:
    """The tangents of ``run``'s outputs at ``xs`` (None for integer and bool
    outputs), given ``tangents`` of ``xs`` (those of integer and bool inputs,
    and of inputs ``wrt`` leaves out, are not used): ``jax.jvp``.
    """
    over_xs = [i for i, x in enumerate(xs) if _inexact(x) and (wrt is None or wrt[i])]

    def over(*inexact: Any) -> list[Any]:
        full = list(xs)
        for i, x in zip(over_xs, inexact, strict=True):
            full[i] = x
        return run(full)

    outs, touts = jax.jvp(over, tuple(xs[i] for i in over_xs),
                          tuple(tangents[i] for i in over_xs))
    return [t if _inexact(y) else None for y, t in zip(outs, touts, strict=True)]


def vmap(run: Callable[[list[Any]], list[Any]], xs: list[Any],
         dims: tuple[int | None, ...]) -> list[Any]:
    """``run`` over a batch, in one call: ``jax.vmap`` with the batch axis of
    each of ``xs`` at ``dims`` (None: not batched), in front of each output.
    """
    def f(*arrays: Any) -> list[Any]:
        return run(list(arrays))
    return list(jax.vmap(f, in_axes=tuple(dims), out_axes=0)(*xs))


def eval_shape(run: Callable[[list[Any]], list[Any]],
               specs: list[tuple[tuple[int, ...], Any]]
               ) -> list[tuple[tuple[int, ...], Any]]:
    """The shapes and dtypes (unitensor's) of ``run``'s outputs for inputs of
    ``specs``: ``jax.eval_shape`` (no data, no computation).
    """
    def f(*xs: Any) -> list[Any]:
        return run(list(xs))
    outs = jax.eval_shape(f, *[jax.ShapeDtypeStruct(shape, _held(d, "args"))
                               for shape, d in specs])
    return [(tuple(y.shape), parse_dtype(y.dtype, "wrap")) for y in outs]


def _held(dtype: Any, arg: str) -> Any:
    """JAX's dtype for a bridged array's ``dtype`` (``arg`` its place in the
    call): a dtype JAX does not hold is the BufferError an eager call gives.
    """
    try:
        return jax_dtype(dtype)
    except ValueError as exc:
        refused = conversion_refused("wrap", arg, exc)
        if refused is None:
            raise
        raise refused from exc


def _inexact(x: Any) -> bool:
    return _inexact_dtype(x.dtype)


# per dtype, once: jnp.issubdtype costs ~1 µs, asked per array of every call
@functools.cache
def _inexact_dtype(dtype: Any) -> bool:
    return bool(jnp.issubdtype(dtype, jnp.inexact))


@functools.cache
def _complex_dtype(dtype: Any) -> bool:
    return bool(jnp.issubdtype(dtype, jnp.complexfloating))


def _conj(x: Any) -> Any:
    return jnp.conj(x) if _complex_dtype(x.dtype) else x


def _zero_cotangent(y: Any) -> Any:
    """What jax.vjp takes as the cotangent of ``y`` where the caller gave none."""
    if _inexact(y):
        return jnp.zeros_like(y)
    return np.zeros(y.shape, _FLOAT0)
