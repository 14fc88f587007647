"""JAX's part of ``wrap()``: jax calling another framework, and a jax body.

As the caller, a call with concrete arrays and no transformation is a plain call
(views in, views out). Under a transformation (the arguments are tracers) the
call is a ``jax.custom_vjp`` made for this call: its forward runs the body (on
concrete arrays directly; on tracers, i.e. under ``jax.jit``, inside
``jax.experimental.buffer_callback``, which hands the body XLA's own buffers);
its backward calls the body's vector-Jacobian product as a bridge again, so a
gradient can be differentiated again. ``jax.jvp`` and ``jax.vmap`` are refused by
JAX itself (a custom_vjp has no forward mode; the callback has no batching rule).

As the body, a jax function's pullback is ``jax.vjp``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np

from ..._dtypes import parse as parse_dtype
from ..._errors import arg_error, describe
from .interop import jax_dtype

if TYPE_CHECKING:
    from ..._wrap import Call

buffer_callback: Callable[..., Any] | None
try:  # jax >= 0.6.1: XLA's buffers lent to the callback, outputs written in place
    from jax.experimental.buffer_callback import buffer_callback
except ImportError:  # older jax: jax.pure_callback, which copies both ways
    buffer_callback = None

_FLOAT0 = jax.dtypes.float0


# -- jax as the caller -----------------------------------------------------------
def call(c: Call) -> Any:
    """Run ``c`` for a jax caller: a plain call on concrete arrays, else a
    ``custom_vjp`` made for this call.
    """
    xs = c.arrays()
    if not _traced(xs):
        return c.plain()
    if not c.bridge.differentiable:
        traced = next(x for x in xs if isinstance(x, jax.core.Tracer))
        raise arg_error(NotImplementedError, "wrap", "args", "concrete jax arrays "
                        f"(a {c.bridge.target} body runs outside jax "
                        "transformations only, so far)", describe(traced))

    @jax.custom_vjp
    def bridged(*xs: Any) -> tuple[Any, ...]:
        return _forward(c, xs)

    def fwd(*xs: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        # Tracers here belong to an outer transformation (a gradient being
        # differentiated, or jit): the primal is this custom_vjp again, which
        # that transformation can differentiate; the callback alone cannot be.
        return (bridged(*xs) if _traced(xs) else _forward(c, xs)), xs

    def bwd(xs: tuple[Any, ...], cts: tuple[Any, ...]) -> tuple[Any, ...]:
        if any(jnp.iscomplexobj(t) for t in (*xs, *cts)):
            raise arg_error(NotImplementedError, "wrap", "args", "real floating "
                            "arrays to differentiate (complex gradients across a "
                            "bridge: not yet, torch and jax conjugate them "
                            "differently)", "complex arrays")
        cts_ = [None if ct.dtype == _FLOAT0 else ct for ct in cts]
        return tuple(c.derivative()(list(xs), cts_))  # None: a zero cotangent

    bridged.defvjp(fwd, bwd)
    return c.result(list(bridged(*xs)))


def _traced(xs: Any) -> bool:
    return any(isinstance(x, jax.core.Tracer) for x in xs)


def _forward(c: Call, xs: tuple[Any, ...]) -> tuple[Any, ...]:
    """The body on ``xs``: directly on concrete arrays, in a callback on tracers."""
    if not _traced(xs):
        return tuple(c.to_caller(y) for y in c.run([c.to_body(x) for x in xs]))
    target = c.body()  # the body framework's part: eval_shape, write
    specs = target.eval_shape(c.run, [(tuple(x.shape), parse_dtype(x.dtype, "wrap"))
                                      for x in xs])
    types = [jax.ShapeDtypeStruct(shape, jax_dtype(dtype)) for shape, dtype in specs]

    if buffer_callback is None:
        def host(*arrays: np.ndarray) -> list[np.ndarray]:
            ys = c.run([c.to_body(a) for a in arrays])
            return [np.asarray(c.to_caller(y)) for y in ys]
        return tuple(jax.pure_callback(host, types, *xs))

    def run_in_place(ctx: Any, outs: list[Any], *buffers: Any) -> None:
        ys = c.run([c.to_body(b) for b in buffers])
        for out, y in zip(outs, ys, strict=True):
            target.write(c.to_body(out), y)

    return tuple(buffer_callback(run_in_place, types)(*xs))


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
        cts = [ct if _inexact(y) and ct is not None else _zero_cotangent(y)
               for y, ct in zip(outs, cts, strict=True)]
        grads: list[Any] = [None] * len(xs)
        for i, grad in zip(over_xs, vjp(cts), strict=True):
            grads[i] = grad
        return grads

    return outs, pull


def _inexact(x: Any) -> bool:
    return bool(jnp.issubdtype(x.dtype, jnp.inexact))


def _zero_cotangent(y: Any) -> Any:
    """What jax.vjp takes as the cotangent of ``y`` where the caller gave none."""
    if _inexact(y):
        return jnp.zeros_like(y)
    return np.zeros(y.shape, _FLOAT0)
