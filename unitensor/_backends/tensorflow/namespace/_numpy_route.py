"""The detour through numpy for TensorFlow's namespace, results TF-owned.

Where TF has no kernel for a dtype, and for functions no group module writes yet,
the call computes in numpy on zero-copy views of the tensors and its results are
made ``tf.Tensor`` again (zero-copy where TF can alias numpy's memory): the owner
never changes. Symbolic tensors (inside ``tf.function``) have no memory: they
are refused naming the function, or computed by ``tf.numpy_function`` where the
result's dtype and shape are known; what XLA traces is refused at trace time.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import tensorflow as tf

from ...._errors import arg_error
from ..._fixes import COMPLEX_SPECIAL_CASES
from ...numpy import interop as numpy_interop
from ...numpy import namespace as numpy_namespace
from ..interop import _FROM_NUMPY, NATIVE_DTYPES, NO_MEMORY, no_memory
from ._base import Tensor

# TF has no kernel for this dtype (NotFound), or its kernel refuses it (Tile: uint16)
_NEEDS_DETOUR = (tf.errors.NotFoundError, tf.errors.UnimplementedError)


# -- through numpy, results TF-owned: missing kernels and functions not written yet ---
def _numpy_function(name: str) -> Callable[..., Any]:
    if name == "__getitem__":
        return operator.getitem
    fix = numpy_namespace.FIXES.get(name)
    if fix is not None:
        return fix
    func: Any = numpy_namespace.namespace()
    for part in name.split("."):
        func = getattr(func, part)
    return func


def to_numpy(value: Any) -> Any:
    """TF tensors, dtypes and device names as numpy takes them (zero-copy views)."""
    if isinstance(value, tf.Tensor):
        # (read at each call: the first puts the C route in ROUTES in its place)
        view: Any = numpy_interop.ROUTES["tensorflow"](value)
        return view if view is not None else value.numpy()
    if isinstance(value, tf.DType):
        return numpy_interop.numpy_dtype(NATIVE_DTYPES[value])
    if isinstance(value, (list, tuple)):
        return type(value)(to_numpy(v) for v in value)
    return value


def from_numpy(value: Any) -> Any:
    """numpy's results as TF tensors: zero-copy where TF can alias the memory."""
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        if array.flags.c_contiguous:
            aliased = None if _FROM_NUMPY is None else _FROM_NUMPY(array)
            if aliased is not None:
                return aliased
        return tf.constant(array.copy(order="C"))
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return tuple(from_numpy(v) for v in value)
    if isinstance(value, (list, tuple)):
        return type(value)(from_numpy(v) for v in value)
    return value


def _symbolic(values: Any) -> bool:
    """Whether any of ``values`` (or of the sequences among them) is a graph
    tensor, traced by ``tf.function``: it has no memory numpy could read.
    """
    for value in values:
        if isinstance(value, (list, tuple)):
            if _symbolic(value):
                return True
        elif isinstance(value, tf.Tensor) and no_memory(value) is not None:
            return True
    return False


def _no_numpy_in_graph(name: str) -> TypeError:
    return arg_error(TypeError, name, "x", "an eager tensor (TensorFlow computes "
                     f"{name} through numpy for these arguments, which needs memory: "
                     "call it outside tf.function)", NO_MEMORY)


def _xla_context() -> Callable[[Any], bool] | None:
    """TF's test for a graph traced for XLA (``control_flow_util``, private API:
    what TF's own ops ask); None where this TF lacks it.
    """
    try:
        from tensorflow.python.ops import control_flow_util
    except ImportError:
        return None
    return getattr(control_flow_util, "GraphOrParentsInXlaContext", None)


_IN_XLA_CONTEXT = _xla_context()


def _in_xla(x: Tensor) -> bool:
    """Whether ``x`` is traced for XLA (``tf.function(jit_compile=True)``, or a
    function it calls): XLA's kernels compile the graph, not TF's CPU ones, and
    Python callbacks (``tf.numpy_function``) cannot. False for eager tensors,
    without a look at the graph.
    """
    if _IN_XLA_CONTEXT is None or no_memory(x) is None:
        return False
    return bool(_IN_XLA_CONTEXT(tf.compat.v1.get_default_graph()))


def _not_in_xla(name: str, why: str) -> TypeError:
    """The refusal of what XLA cannot compile, at trace time (XLA's own error
    comes only when the whole function compiles, naming a TF op).
    """
    return arg_error(TypeError, name, "x", f"a tensor outside XLA ({why}: call "
                     "it outside tf.function(jit_compile=True), or in a tf.function "
                     "without jit_compile)", "a symbolic tf.Tensor traced for XLA")


def _numpy_op(name: str, tensors: Sequence[Tensor], dtype: Any, shape: Any) -> Tensor:
    """The elementwise ``name`` computed by numpy inside the TF graph
    (``tf.numpy_function``): for symbolic tensors, whose result's dtype and shape
    are known before it runs. Not compilable by XLA, as any Python callback.
    """
    if _in_xla(tensors[0]):
        raise _not_in_xla(name, f"TensorFlow computes {name} for {dtype.name} "
                          "through numpy, which XLA cannot compile")
    func = numpy_namespace.reference(name) if name in COMPLEX_SPECIAL_CASES else \
        _numpy_function(name)
    wanted = dtype.as_numpy_dtype

    def run(*arrays: Any) -> Any:
        with np.errstate(all="ignore"):
            return np.asarray(func(*arrays)).astype(wanted, copy=False)
    out = tf.numpy_function(run, list(tensors), dtype, stateful=False, name=name)
    out.set_shape(shape)
    return out


def through_numpy(name: str) -> Callable[..., Any]:
    """``name`` computed by numpy on zero-copy views, its results TF tensors.
    Inside ``tf.function`` (symbolic tensors) a ``TypeError`` naming it.
    """
    def function(*args: Any, **kwargs: Any) -> Any:
        if _symbolic(args) or _symbolic(kwargs.values()):
            raise _no_numpy_in_graph(name)
        if kwargs.get("device") is not None:
            kwargs["device"] = "cpu"
        args = tuple(to_numpy(a) for a in args)
        kwargs = {k: to_numpy(v) for k, v in kwargs.items()}
        with np.errstate(all="ignore"):
            return from_numpy(_numpy_function(name)(*args, **kwargs))
    function.__name__ = name.replace(".", "_")
    function.through_numpy = True  # type: ignore[attr-defined]
    return function


def _or_numpy(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    """``func``, computed through numpy where TF has no kernel for the dtype."""
    detour = through_numpy(name)

    def function(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except _NEEDS_DETOUR:
            return detour(*args, **kwargs)
    function.__name__ = func.__name__
    function.__wrapped__ = func  # type: ignore[attr-defined]
    return function
