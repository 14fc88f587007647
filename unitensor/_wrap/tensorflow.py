"""TensorFlow's part of ``wrap()``: TensorFlow calling another framework, and a
TensorFlow body.

As the caller, eagerly, a call that a ``tf.GradientTape`` watches is one
``tf.custom_gradient`` function: its forward runs the body and keeps the body's
pullback; its gradient calls that pullback, or, when a tape watches the gradient
itself (second order), the body's vector-Jacobian product as a bridge again,
which is again a ``tf.custom_gradient`` function. Inside ``tf.function`` the call
is one ``tf.py_function``, which runs the body on the graph's tensors
(DLPack views), inside a graph-mode ``tf.custom_gradient`` whose gradient is
again the body's vector-Jacobian product bridged. Forward mode
(``tf.autodiff.ForwardAccumulator``) works by TF's own transposition of that
gradient function, eagerly and inside ``tf.function``; XLA
(``jit_compile=True``) is refused with a clear error.

As the body, a TensorFlow function's derivatives are ``tf.GradientTape`` (the
pullback), ``tf.autodiff.ForwardAccumulator`` (the Jacobian-vector product) and
its batched form ``tf.vectorized_map``; its output shapes (which ``jax.jit``
needs before it runs) come from tracing it once into a graph.

Complex inputs and outputs are refused under differentiation in both roles
(TensorFlow's convention for complex gradients is not bridged yet).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from .._backends.tensorflow import _triton_first  # noqa: F401  (triton first)

# isort: split
import tensorflow as tf

# private: whether a tape watches a tensor, and the tangents forward-mode
# accumulators hold for tensors (TF has no public way to ask either)
from tensorflow.python.eager import forwardprop_util, record
from tensorflow.python.framework import ops
from tensorflow.python.ops import control_flow_util

from .. import _convert, _core
from .._backends.tensorflow import interop as _interop
from .._device import KDL_CPU
from .._dtypes import DType
from .._dtypes import parse as parse_dtype
from .._errors import arg_error, describe
from ._bridge import Call
from ._trees import kept, spread

_ZERO = tf.UnconnectedGradients.ZERO


# -- tensorflow as the caller ----------------------------------------------------
def unconverted(func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` as AutoGraph leaves it (called as it is inside tf.function)."""
    return tf.autograph.experimental.do_not_convert(func)


def call(c: Call) -> Any:
    """Run ``c`` for a TensorFlow caller: eagerly, recorded for the tapes that
    watch its tensors (else a plain call); inside ``tf.function``, one
    ``tf.py_function`` running the eager path.
    """
    # variables are read here, where a tape records the read
    xs = [tf.convert_to_tensor(x) if isinstance(x, tf.Variable) else x
          for x in c.arrays()]
    if not tf.executing_eagerly():
        return _in_graph(c, xs)
    return c.result(_eager(c, xs))


def _eager(c: Call, xs: list[Any]) -> list[Any]:
    """The body's arrays of ``c`` on eager tensors ``xs``, as TF tensors."""
    # differentiated: watched by a tape, or carrying a ForwardAccumulator's
    # tangent (TF finds the JVP of a custom_gradient function by
    # differentiating its gradient function, which is a bridge again)
    if not record.could_possibly_record():  # no tape, no accumulator: plain
        return c.plain_arrays(xs)
    if c.bridge.quiet:
        # a derivative (the body's vjp) under a tape: TF's forward mode
        # transposes it on an internal tape that should_record_backprop does
        # not report, so every input counts as watched
        watched = [True] * len(xs)
    else:
        tangents = _forward_tangents(xs)
        watched = [bool(t or record.should_record_backprop([x]))
                   for t, x in zip(tangents, xs, strict=True)]
    if not any(watched):
        return c.plain_arrays(xs)
    if not c.bridge.differentiable:
        raise arg_error(TypeError, "wrap", "args", "tensors no tf.GradientTape "
                        f"or ForwardAccumulator watches (a {c.bridge.target} body "
                        "is not differentiable: call it outside the tape or pass "
                        "tf.stop_gradient(x))", "a watched tensor")
    _refuse_complex(xs, "inputs")
    # every floating input, watched or not: a tape may watch one after the call
    # and still differentiate through it (as for TF's own operations)
    return _recorded(c, xs)


def _recorded(c: Call, xs: list[Any]) -> list[Any]:
    """The call as one ``tf.custom_gradient`` function of ``xs``."""
    inexact = [_inexact(x) for x in xs]

    @tf.custom_gradient
    def bridged(*xs: Any) -> tuple[list[Any], Callable[..., Any]]:
        outs, pull = c.pullback([c.to_body(x) for x in xs])
        ys = [c.to_caller(y) for y in outs]
        _refuse_complex(ys, "outputs")
        out_inexact = [_inexact(y) for y in ys]  # not ys: the tape keeps grad

        def grad(*cts: Any) -> list[Any]:
            cts_: list[Any] = [ct if m else None
                               for m, ct in zip(out_inexact, cts, strict=True)]
            if record.could_possibly_record() or not tf.executing_eagerly():
                # a tape watches the gradient (second order), or TF traces it
                # into a graph (the jacobian's pfor): the body's vjp as a
                # bridge again, which that tape records in turn
                grads = c.derivative()(list(xs), cts_)
            else:
                body_cts = [None if ct is None else c.to_body(ct, quiet=True)
                            for ct in cts_]
                grads = [None if g is None else c.to_caller(g, quiet=True)
                         for g in pull(body_cts)]
            return [None if not m else (tf.zeros_like(x) if g is None else g)
                    for x, g, m in zip(xs, grads, inexact, strict=True)]

        return ys, grad

    return list(bridged(*xs)) if xs else []


def _forward_tangents(xs: list[Any]) -> list[bool]:
    """Which of ``xs`` a ``ForwardAccumulator`` holds a tangent for."""
    found = [False] * len(xs)
    if xs:  # per accumulator, pairs (index of a primal, index of its tangent)
        for pairs in forwardprop_util.pack_tangents(xs).indices:
            for primal, _ in pairs:
                found[primal] = True
    return found


def _in_graph(c: Call, xs: list[Any]) -> Any:
    """Inside ``tf.function``: one ``tf.py_function`` that runs the eager path
    on the graph's tensors; its output dtypes and shapes from the body's
    ``eval_shape``.
    """
    graph = ops.get_default_graph()
    if control_flow_util.GraphOrParentsInXlaContext(graph) or _xla_function(graph):
        raise arg_error(NotImplementedError, "wrap", "args", "tensors of an eager "
                        "call or a tf.function without jit_compile=True (a bridged "
                        "call runs in Python, which XLA cannot compile)",
                        "tensors of a function XLA compiles")
    if not c.bridge.differentiable:  # a plain body: no abstract evaluation
        raise arg_error(NotImplementedError, "wrap", "args", "eager tensors (a "
                        f"{c.bridge.target} body runs outside tf.function only: "
                        "its output shapes are not known before it runs)",
                        "tensors of a tf.function graph")
    specs = []
    for x in xs:
        if not x.shape.is_fully_defined():
            raise arg_error(ValueError, "wrap", "args", "tensors of known shape "
                            "inside tf.function (the body's output shapes are "
                            "found from them)", f"a tensor of shape {x.shape}")
        specs.append((tuple(x.shape), parse_dtype(x.dtype, "wrap")))
    found = c.shapes(specs)  # keeps the output's structure
    dtypes = [tf.as_dtype(d.name) for _, d in found]
    bridge, leaves, tree, positions = c.bridge, c.leaves, c.tree, c.positions

    def eager(*ts: Any) -> list[Any]:
        # the graph's tensors, eager here: views in, body, views out
        return Call(bridge, leaves, tree, positions).plain_arrays(list(ts))

    def forward(*xs: Any) -> list[Any]:
        ys = tf.py_function(eager, list(xs), dtypes)
        if not dtypes:
            return []
        for y, (shape, _) in zip(ys, found, strict=True):
            y.set_shape(shape)
        return list(ys)

    if not c.bridge.differentiable or not any(_inexact(x) for x in xs):
        return c.result(forward(*xs))
    inexact = [_inexact(x) for x in xs]

    def gradient(xs: Any, ys: list[Any]) -> Callable[..., Any]:
        def grad(*cts: Any) -> list[Any]:
            # the body's vjp, bridged again (one more tf.custom_gradient and
            # py_function): what TF differentiates for a second order
            cts_ = [ct if _inexact(y) else None for y, ct in zip(ys, cts, strict=True)]
            grads = c.derivative()(list(xs), cts_)
            return [None if not m else (tf.zeros_like(x) if g is None else g)
                    for x, g, m in zip(xs, grads, inexact, strict=True)]
        return grad

    if found and any(_forward_tangents(xs)):
        # a ForwardAccumulator: graph-mode custom_gradient hides the call from
        # it (its gradient is an override the accumulator does not transpose),
        # so the call is recorded as eagerly, with the gradient function TF's
        # forward mode transposes (and tapes in this graph use)
        with record.stop_recording():
            ys = forward(*xs)
        _refuse_complex([*xs, *ys], "inputs and outputs")
        record.record_operation("unitensor_wrap", ys, xs, gradient(xs, ys))
        return c.result(ys)

    @tf.custom_gradient
    def bridged(*xs: Any) -> tuple[list[Any], Callable[..., Any]]:
        ys = forward(*xs)
        _refuse_complex([*xs, *ys], "inputs and outputs")
        return ys, gradient(xs, ys)

    return c.result(list(bridged(*xs)) if found else forward(*xs))


def _xla_function(graph: Any) -> bool:
    """Whether ``graph`` (or a graph it is nested in) is traced for
    ``tf.function(jit_compile=True)``.
    """
    while graph is not None:
        if getattr(graph, "_xla_compile", False) or getattr(
                graph, "_jit_compile", False):
            return True
        graph = getattr(graph, "outer_graph", None)
    return False


# -- tensorflow as the body ------------------------------------------------------
def pullback(run: Callable[[list[Any]], list[Any]], xs: list[Any],
             wrt: list[bool] | None = None
             ) -> tuple[list[Any], Callable[[list[Any]], list[Any]]]:
    """``run(xs)`` and its pullback (a ``tf.GradientTape`` over the floating
    ``xs``, those of them ``wrt`` marks): cotangents of the outputs (None where
    there is none) -> cotangents of ``xs`` (None for integer and bool inputs
    and unmarked ones). A tape around the call records the gradient too.
    """
    _refuse_complex(xs, "inputs")
    over = [i for i, x in enumerate(xs) if _inexact(x) and (wrt is None or wrt[i])]
    with tf.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        for i in over:
            tape.watch(xs[i])
        outs = run(xs)
    _refuse_complex(outs, "outputs")

    def pull(cts: list[Any]) -> list[Any]:
        pairs = [(y, ct) for y, ct in zip(outs, cts, strict=True)
                 if ct is not None and _inexact(y)]
        grads: list[Any] = [None] * len(xs)
        if not over:
            return grads
        if pairs:
            found = tape.gradient([y for y, _ in pairs], [xs[i] for i in over],
                                  output_gradients=[ct for _, ct in pairs],
                                  unconnected_gradients=_ZERO)
        else:
            found = [tf.zeros_like(xs[i]) for i in over]
        for i, g in zip(over, found, strict=True):
            # a gather's gradient is sparse (IndexedSlices): callers take dense
            grads[i] = tf.convert_to_tensor(g)
        return grads

    return outs, pull


def jvp(run: Callable[[list[Any]], list[Any]], xs: list[Any], tangents: list[Any],
        wrt: list[bool] | None = None) -> list[Any]:
    """The tangents of ``run``'s outputs at ``xs`` (None for integer and bool
    outputs), given ``tangents`` of ``xs`` (those of integer and bool inputs,
    and of inputs ``wrt`` leaves out, are not used):
    ``tf.autodiff.ForwardAccumulator``.
    """
    _refuse_complex(xs, "inputs")
    over = [i for i, x in enumerate(xs) if _inexact(x) and (wrt is None or wrt[i])
            and tangents[i] is not None]
    if not over:
        outs = run(xs)
        return [tf.zeros_like(y) if _inexact(y) else None for y in outs]
    with tf.autodiff.ForwardAccumulator([xs[i] for i in over],
                                        [tangents[i] for i in over]) as acc:
        outs = run(xs)
    _refuse_complex(outs, "outputs")
    return [acc.jvp(y, unconnected_gradients=_ZERO) if _inexact(y) else None
            for y in outs]


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
    return kept(pullback(run, xs)[1](spread(cotangents, inexact_out)), inexact_in)


def vmap(run: Callable[[list[Any]], list[Any]], xs: list[Any],
         dims: tuple[int | None, ...]) -> list[Any]:
    """``run`` over a batch, in one call: ``tf.vectorized_map`` over the batch
    axis of each of ``xs`` at ``dims`` (None: not batched), in front of each
    output.
    """
    batched = [i for i, d in enumerate(dims) if d is not None]
    elems = tuple(tf.experimental.numpy.moveaxis(xs[i], dims[i], 0) for i in batched)

    def f(items: tuple[Any, ...]) -> tuple[Any, ...]:
        full = list(xs)
        for i, x in zip(batched, items, strict=True):
            full[i] = x
        return tuple(run(full))

    return list(tf.vectorized_map(f, elems, fallback_to_while_loop=False))


def eval_shape(run: Callable[[list[Any]], list[Any]],
               specs: list[tuple[tuple[int, ...], DType]]
               ) -> list[tuple[tuple[int, ...], DType]]:
    """The shapes and dtypes of ``run``'s outputs for inputs of ``specs``, from
    one trace into a graph (no data, no computation).
    """
    def f(*xs: Any) -> list[Any]:
        return run(list(xs))

    try:
        traced = tf.function(f, autograph=False).get_concrete_function(
            *[tf.TensorSpec(shape, tf.as_dtype(d.name)) for shape, d in specs])
    except Exception as exc:
        exc.add_note("(raised while wrap() traced the TensorFlow body into a "
                     "graph, to find its output shapes)")
        raise
    found = []
    for y in traced.outputs:
        if not y.shape.is_fully_defined():
            raise arg_error(ValueError, "wrap", "func", "a TensorFlow body whose "
                            "output shapes follow from its input shapes",
                            f"an output of shape {y.shape}")
        found.append((tuple(y.shape), parse_dtype(y.dtype, "wrap")))
    return found


def from_xla(buffer: Any) -> tf.Tensor:
    """A view of a buffer XLA lends to a callback, through unitensor's
    conversion (which checks the alignment TF's kernels need).
    """
    return _convert.view(_convert.asarray(buffer), "tensorflow", None, "wrap")


def kept_inputs(xs: list[Any]) -> list[int]:
    """Which of ``xs`` (views of XLA's buffers, the list their one holder once
    the body returned) the body still holds (a cache): XLA reuses that memory
    after the callback; a TF tensor has no views, so holding it is the one way.
    """
    # a tensor the list alone holds: the list, the call's argument
    return [i for i in range(len(xs)) if sys.getrefcount(xs[i]) > 2]


def write(buffer: Any, src: tf.Tensor) -> None:
    """Copy the body's output ``src`` into ``buffer``, memory XLA provides."""
    # through unitensor's numpy view: numpy's own DLPack import has no bfloat16
    dst = _convert.view(_convert.asarray(buffer), "numpy", None, "wrap")
    np.copyto(dst, _convert.view(_convert.asarray(src), "numpy", None, "wrap"))


def _inexact(x: Any) -> bool:
    return bool(x.dtype.is_floating or x.dtype.is_complex)


# -- hand-overs: the parts' own route (Bridge.handed) -----------------------------
# (as torch's and jax's parts: the adapter's own export and alias, without a
# Tensor and its cache of views, for eager tensors in CPU memory; anything else,
# a symbolic tensor or memory TF's kernels cannot take as it is, takes
# _lend.lend's general path, which decides)
_EAGER = type(tf.constant(0.0))


def exported(x: Any, compact: bool) -> _core.Buffer | None:
    """A read-only Buffer over ``x``, an eager tensor in CPU memory of a dtype
    unitensor holds, by the adapter's export (TF's memory is compact); None for
    anything else.
    """
    if type(x) is not _EAGER or x.dtype not in _interop.NATIVE_DTYPES:
        return None
    buf = _interop.export(x)
    return buf if buf.device[0] == KDL_CPU else None


def imported(buf: _core.Buffer, guarded: bool) -> tf.Tensor | None:
    """``buf`` as an eager tensor by the adapter's alias (TF never writes into
    a tensor: read-only memory is lent as it is); None where TF would need a
    copy (strided or not 64-byte aligned memory, another device).
    """
    if _interop.copy_reason(buf) is not None:
        return None
    return _interop.alias(buf)


def _refuse_complex(xs: list[Any], what: str) -> None:
    for x in xs:
        if x.dtype.is_complex:
            raise arg_error(NotImplementedError, "wrap", "args", f"real {what} "
                            "where TensorFlow differentiates a bridged call "
                            "(complex derivatives with TensorFlow: not yet)",
                            describe(x))
