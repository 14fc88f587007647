"""TensorFlow's Array API namespace, written here against TF's own ops.

TensorFlow has no Array API namespace of its own (``tf.experimental.numpy`` is
not one, and its promotion needs ``experimental_enable_numpy_behavior``, which
changes every TF program in the process: never called here). This module is one:
``namespace()`` returns :data:`NAMESPACE`, whose functions take and return
``tf.Tensor`` (Python scalars where the standard allows them) and compute with
``tf.math``, ``tf.linalg`` and the other TF ops, on the tensors' device.

- Promotion is the standard's, by unitensor's own table (``_dtypes.promote`` and
  ``with_scalar``): operands are cast before TF's same-dtype ops.
- The one- and two-array elementwise functions are made from the standard's table
  (``_standard.FUNCTIONS``) and :data:`_UNARY`/:data:`_BINARY` (name -> TF op);
  the rest are written by hand below.
- Where TF has no kernel for a dtype (its CPU kernels lack abs/sign/pow on
  unsigned integers, matmul on small integers, ...) and for the functions this
  module does not write yet (:data:`NOT_YET`: linalg, fft, unique_*), the call
  computes in numpy on zero-copy views and the result is made a ``tf.Tensor``
  again (zero-copy where TF can alias numpy's memory): the owner never changes.
"""

from __future__ import annotations

import builtins
import contextlib
import math
import operator
import types
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import _triton_first  # noqa: F401  (triton before TensorFlow)

# isort: split
import tensorflow as tf

from ..._device import Device
from ..._dtypes import DTYPES, DType, promote, with_scalar
from ..._errors import arg_error
from ..._standard import FUNCTIONS
from .._common import (
    COMPLEX_SPECIAL_CASES,
    complex_special_cases_fixed,
    refuse_empty_reduction,
)
from ..numpy import interop as numpy_interop
from ..numpy import namespace as numpy_namespace
from . import _fft
from .interop import (
    _TO_TF,
    NATIVE_DTYPES,
    NO_MEMORY,
    _from_numpy,
    constant,
    device_name,
    device_of_name,
    no_memory,
)

ARRAY = type(tf.constant(0))
Tensor = Any  # a tf.Tensor (eager); TF's own type stubs are too loose to help

# The defaults the inspection API reports, and what asarray of Python data makes.
DEFAULT_FLOAT, DEFAULT_COMPLEX, DEFAULT_INT, INDEX = (
    tf.float64, tf.complex128, tf.int64, tf.int64)
# TF has no kernel for this dtype (NotFound), or its kernel refuses it (Tile: uint16)
_NEEDS_DETOUR = (tf.errors.NotFoundError, tf.errors.UnimplementedError)


def _dtype(x: Tensor) -> DType:
    return NATIVE_DTYPES[x.dtype]


def _kind(x: Tensor) -> str:
    return NATIVE_DTYPES[x.dtype].kind


def _is_float(x: Tensor) -> bool:
    return x.dtype.is_floating


def _is_complex(x: Tensor) -> bool:
    return x.dtype.is_complex


def _is_int(x: Tensor) -> bool:
    return x.dtype.is_integer


def _cast(x: Tensor, dtype: Any) -> Tensor:
    return x if x.dtype == dtype else tf.cast(x, dtype)


def _scalar(value: Any, dtype: Any) -> Tensor:
    return constant(value, dtype)


def _common(x1: Any, x2: Any, func: str) -> tuple[Tensor, Tensor]:
    """Both operands as tensors of the standard's result dtype."""
    if isinstance(x1, tf.Tensor):
        if isinstance(x2, tf.Tensor):
            if x1.dtype == x2.dtype:
                return x1, x2
            dtype = _TO_TF[promote(_dtype(x1), _dtype(x2), func)]
            return _cast(x1, dtype), _cast(x2, dtype)
        dtype = _TO_TF[with_scalar(_dtype(x1), x2, func, "x2")]
        return _cast(x1, dtype), _scalar(x2, dtype)
    dtype = _TO_TF[with_scalar(_dtype(x2), x1, func, "x1")]
    return _scalar(x1, dtype), _cast(x2, dtype)


def _promote_all(arrays: Sequence[Tensor], func: str) -> list[Tensor]:
    dtype = _dtype(arrays[0])
    for x in arrays[1:]:
        dtype = promote(dtype, _dtype(x), func)
    native = _TO_TF[dtype]
    return [_cast(x, native) for x in arrays]


def _axes(axis: Any, ndim: int) -> list[int] | None:
    """``axis`` as a list of non-negative axes (None: all); ValueError for an axis
    ``x`` does not have (the dispatcher names the range).
    """
    if axis is None:
        return None
    items = axis if isinstance(axis, (tuple, list)) else (axis,)
    for a in items:
        if not -builtins.max(ndim, 1) <= a < builtins.max(ndim, 1):
            raise ValueError(f"axis {a} is out of range for {ndim} dimensions")
    return [a % ndim if ndim else a for a in items]


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
        view: Any = _NUMPY_ROUTE(value)
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
            aliased = _from_numpy(array)
            if aliased is not None:
                return aliased
        return tf.constant(array.copy(order="C"))
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return tuple(from_numpy(v) for v in value)
    if isinstance(value, (list, tuple)):
        return type(value)(from_numpy(v) for v in value)
    return value


_NUMPY_ROUTE: Callable[[Any], Any] = numpy_interop.ROUTES["tensorflow"]  # type: ignore[assignment]


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


# -- elementwise: one array ---------------------------------------------------------
def _same(x: Tensor) -> Tensor:
    return x


def _abs(x: Tensor) -> Tensor:
    return x if x.dtype.is_unsigned or x.dtype == tf.bool else tf.math.abs(x)


def _integer_identity(op: Callable[[Tensor], Tensor]) -> Callable[[Tensor], Tensor]:
    """ceil, floor, round, trunc: integers (and bools) are returned as they are."""
    def function(x: Tensor) -> Tensor:
        return op(x) if x.dtype.is_floating or x.dtype.is_complex else x
    return function


def _trunc(x: Tensor) -> Tensor:
    return tf.where(x < 0, tf.math.ceil(x), tf.math.floor(x))


def _round(x: Tensor) -> Tensor:
    if x.dtype.is_complex:
        return tf.complex(tf.math.round(tf.math.real(x)),
                          tf.math.round(tf.math.imag(x)))
    return tf.math.round(x)  # half to even, as the standard says


def _negative(x: Tensor) -> Tensor:
    if x.dtype.is_unsigned:
        return tf.math.subtract(tf.zeros_like(x), x)  # wraps, as numpy does
    return tf.math.negative(x)


def _log(x: Tensor) -> Tensor:
    """Complex log from a magnitude that neither underflows nor overflows (TF's
    own gives NaN for |z| near 1e-250); real inputs: TF's.
    """
    if not x.dtype.is_complex:
        return tf.math.log(x)
    re, im = tf.math.real(x), tf.math.imag(x)
    return tf.complex(tf.math.log(_hypot(re, im)), tf.math.atan2(im, re))


def _log_base(base: float) -> Callable[[Tensor], Tensor]:
    def function(x: Tensor) -> Tensor:
        if x.dtype.is_complex:  # both parts scaled (a complex division makes NaNs
            # of infinities), from log with the standard's special cases
            natural = NAMESPACE.log(x)
            scale = tf.constant(1 / math.log(base), x.dtype.real_dtype)
            return tf.complex(tf.math.real(natural) * scale,
                              tf.math.imag(natural) * scale)
        return tf.math.log(x) / tf.math.log(tf.constant(base, x.dtype))
    return function


def _conj(x: Tensor) -> Tensor:
    return tf.math.conj(x) if x.dtype.is_complex else x


def _real(x: Tensor) -> Tensor:
    return tf.math.real(x) if x.dtype.is_complex else x


def _imag(x: Tensor) -> Tensor:
    return tf.math.imag(x) if x.dtype.is_complex else tf.zeros_like(x)


def _isfinite(x: Tensor) -> Tensor:
    if x.dtype.is_complex:
        return tf.math.is_finite(tf.math.real(x)) & tf.math.is_finite(tf.math.imag(x))
    if x.dtype.is_floating:
        return tf.math.is_finite(x)
    return tf.ones(tf.shape(x), tf.bool)


def _isinf(x: Tensor) -> Tensor:
    if x.dtype.is_complex:
        return tf.math.is_inf(tf.math.real(x)) | tf.math.is_inf(tf.math.imag(x))
    if x.dtype.is_floating:
        return tf.math.is_inf(x)
    return tf.zeros(tf.shape(x), tf.bool)


def _isnan(x: Tensor) -> Tensor:
    if x.dtype.is_complex:
        return tf.math.is_nan(tf.math.real(x)) | tf.math.is_nan(tf.math.imag(x))
    if x.dtype.is_floating:
        return tf.math.is_nan(x)
    return tf.zeros(tf.shape(x), tf.bool)


_SAME_WIDTH_INT = {tf.float16: tf.int16, tf.bfloat16: tf.int16, tf.float32: tf.int32,
                   tf.float64: tf.int64}


def _signbit(x: Tensor) -> Tensor:
    return tf.bitcast(x, _SAME_WIDTH_INT[x.dtype]) < 0


def _sign(x: Tensor) -> Tensor:
    if x.dtype.is_unsigned:
        return tf.cast(x > 0, x.dtype)
    if x.dtype.is_complex:
        magnitude = tf.cast(tf.math.abs(x), x.dtype)
        return tf.where(x == 0, tf.zeros_like(x), x / magnitude)
    result = tf.math.sign(x)
    return tf.where(x == 0, tf.zeros_like(x), result)  # no signed zero


def _bitwise_invert(x: Tensor) -> Tensor:
    return tf.math.logical_not(x) if x.dtype == tf.bool else tf.bitwise.invert(x)


def _reciprocal(x: Tensor) -> Tensor:
    return tf.math.reciprocal(x)


def _expm1(x: Tensor) -> Tensor:
    if x.dtype.is_complex:
        return tf.math.exp(x) - tf.constant(1, x.dtype)
    return tf.math.expm1(x)


_UNARY: dict[str, Callable[[Tensor], Tensor]] = {
    "abs": _abs, "acos": tf.math.acos, "acosh": tf.math.acosh, "asin": tf.math.asin,
    "asinh": tf.math.asinh, "atan": tf.math.atan, "atanh": tf.math.atanh,
    "bitwise_invert": _bitwise_invert, "ceil": _integer_identity(tf.math.ceil),
    "conj": _conj, "cos": tf.math.cos, "cosh": tf.math.cosh, "exp": tf.math.exp,
    "expm1": _expm1, "floor": _integer_identity(tf.math.floor), "imag": _imag,
    "isfinite": _isfinite, "isinf": _isinf, "isnan": _isnan, "log": _log,
    "log1p": tf.math.log1p, "log2": _log_base(2.0), "log10": _log_base(10.0),
    "logical_not": tf.math.logical_not, "negative": _negative, "positive": _same,
    "real": _real, "reciprocal": _reciprocal, "round": _integer_identity(_round),
    "sign": _sign, "signbit": _signbit, "sin": tf.math.sin, "sinh": tf.math.sinh,
    "square": tf.math.square, "sqrt": tf.math.sqrt, "tan": tf.math.tan,
    "tanh": tf.math.tanh, "trunc": _integer_identity(_trunc)}


# -- elementwise: two arrays ----------------------------------------------------------
def _divide(x1: Tensor, x2: Tensor) -> Tensor:
    if not (x1.dtype.is_floating or x1.dtype.is_complex):
        x1, x2 = _cast(x1, DEFAULT_FLOAT), _cast(x2, DEFAULT_FLOAT)
    if not x1.dtype.is_complex:
        return tf.math.truediv(x1, x2)
    # TF's complex division differs from the standard's (numpy's) special cases
    special = tf.math.reduce_any((x2 == 0) | ~_isfinite(x2) | ~_isfinite(x1))
    if no_memory(special) is not None:  # traced: both branches in the graph
        shape = tf.broadcast_static_shape(x1.shape, x2.shape)
        return tf.cond(special, lambda: _numpy_op("divide", (x1, x2), x1.dtype, shape),
                       lambda: _complex_divide(x1, x2))
    if bool(special):
        raise tf.errors.NotFoundError(None, None, "complex division special cases")
    return _complex_divide(x1, x2)


def _complex_divide(x1: Tensor, x2: Tensor) -> Tensor:
    """Smith's complex division: TF's divides by |x2|**2, which underflows for
    |x2| near 1e-154 (1e-308 / 2e-308 gave 0).
    """
    a, b = tf.math.real(x1), tf.math.imag(x1)
    c, d = tf.math.real(x2), tf.math.imag(x2)
    wide = tf.math.abs(c) >= tf.math.abs(d)
    safe_c = tf.where(wide, c, tf.ones_like(c))
    safe_d = tf.where(wide, tf.ones_like(d), d)
    r1 = d / safe_c
    den1 = c + d * r1
    r2 = c / safe_d
    den2 = c * r2 + d
    re = tf.where(wide, (a + b * r1) / den1, (a * r2 + b) / den2)
    im = tf.where(wide, (b - a * r1) / den1, (b * r2 - a) / den2)
    return tf.complex(re, im)


def _bitwise(logical: Callable[..., Tensor],
             bitwise: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def function(x1: Tensor, x2: Tensor) -> Tensor:
        return logical(x1, x2) if x1.dtype == tf.bool else bitwise(x1, x2)
    return function


def _shift(left: bool) -> Callable[[Tensor, Tensor], Tensor]:
    """Shifts by the width of the type or more give what numpy gives (0, or -1
    for negative values shifted right); TF's own result is undefined there.
    """
    def function(x1: Tensor, x2: Tensor) -> Tensor:
        bits = x1.dtype.size * 8
        wide = x2 >= bits
        safe = tf.where(wide, tf.zeros_like(x2), x2)
        if left:
            return tf.where(wide, tf.zeros_like(x1), tf.bitwise.left_shift(x1, safe))
        shifted = tf.bitwise.right_shift(x1, safe)
        fill = (tf.where(x1 < 0, -tf.ones_like(x1), tf.zeros_like(x1))
                if not x1.dtype.is_unsigned else tf.zeros_like(x1))
        return tf.where(wide, fill, shifted)
    return function


def _copysign(x1: Tensor, x2: Tensor) -> Tensor:
    magnitude = tf.math.abs(x1)
    return tf.where(_signbit(x2), -magnitude, magnitude)


def _floor_divide(x1: Tensor, x2: Tensor) -> Tensor:
    if not x1.dtype.is_floating:
        if x1.dtype == tf.bool:
            raise TypeError("floor_divide(): bool operands")
        zero = x2 == 0  # numpy's (and array_api_strict's) 0; TF raises
        safe = tf.where(zero, tf.ones_like(x2), x2)
        return tf.where(zero, tf.zeros_like(x1), tf.math.floordiv(x1, safe))
    quotient = x1 / x2
    result = tf.math.floor(quotient)
    # floor(x1 / x2) with the standard's special cases: ties where the division
    # rounded across an integer are settled by the remainder, as numpy does
    remainder = tf.math.floormod(x1, x2)
    exact = (x1 - remainder) / x2
    finite = tf.math.is_finite(x1) & tf.math.is_finite(x2) & (x2 != 0)
    exact = tf.math.round(exact)
    result = tf.where(finite & tf.math.is_finite(exact), exact, result)
    return tf.where(result == 0, _copysign(result, quotient), result)


def _remainder(x1: Tensor, x2: Tensor) -> Tensor:
    if not x1.dtype.is_floating:
        zero = x2 == 0
        safe = tf.where(zero, tf.ones_like(x2), x2)
        return tf.where(zero, tf.zeros_like(x1), tf.math.floormod(x1, safe))
    result = tf.math.floormod(x1, x2)
    # x2 infinite: x1 where the signs agree, else x2 (as floor's definition gives)
    infinite = tf.math.is_inf(x2) & tf.math.is_finite(x1)
    agree = (_signbit(x1) == _signbit(x2)) | (x1 == 0)
    result = tf.where(infinite, tf.where(agree, x1, x2), result)
    return tf.where(result == 0, _copysign(result, x2), result)


def _hypot(x1: Tensor, x2: Tensor) -> Tensor:
    a, b = tf.math.abs(x1), tf.math.abs(x2)
    big, small = tf.math.maximum(a, b), tf.math.minimum(a, b)
    safe = tf.where(big == 0, tf.ones_like(big), big)
    ratio = small / safe
    result = big * tf.math.sqrt(1 + ratio * ratio)
    result = tf.where(big == 0, tf.zeros_like(big), result)
    result = tf.where(tf.math.is_nan(x1) | tf.math.is_nan(x2),
                      tf.constant(math.nan, big.dtype), result)
    return tf.where(tf.math.is_inf(x1) | tf.math.is_inf(x2),
                    tf.constant(math.inf, big.dtype), result)


def _logaddexp(x1: Tensor, x2: Tensor) -> Tensor:
    big = tf.math.maximum(x1, x2)
    result = big + tf.math.log1p(tf.math.exp(-tf.math.abs(x1 - x2)))
    result = tf.where(x1 == x2, x1 + tf.constant(math.log(2), x1.dtype), result)
    result = tf.where(tf.math.is_inf(big) & (big > 0), big, result)
    return tf.where(tf.math.is_nan(x1) | tf.math.is_nan(x2),
                    tf.constant(math.nan, x1.dtype), result)


def _extremum(op: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """maximum/minimum: NaN where either is NaN (the standard), signed zeros aside."""
    def function(x1: Tensor, x2: Tensor) -> Tensor:
        if x1.dtype == tf.bool:
            return (tf.math.logical_or if op is tf.math.maximum
                    else tf.math.logical_and)(x1, x2)
        result = op(x1, x2)
        if not x1.dtype.is_floating:
            return result
        return tf.where(tf.math.is_nan(x1) | tf.math.is_nan(x2),
                        tf.constant(math.nan, x1.dtype), result)
    return function


def _unsigned_pow(x1: Tensor, x2: Tensor) -> Tensor:
    """``x1 ** x2`` for unsigned integers, by squaring (wrapping as numpy's):
    XLA's Pow takes no unsigned dtype.
    """
    base, exponent = x1, x2
    result = tf.ones_like(x1 + x2)
    one = tf.constant(1, x2.dtype)
    for _ in range(x1.dtype.size * 8):
        result = tf.where(tf.bitwise.bitwise_and(exponent, one) == one,
                          result * base, result)
        base *= base
        exponent = tf.bitwise.right_shift(exponent, one)
    return result


def _pow(x1: Tensor, x2: Tensor) -> Tensor:
    numpy_pow = x1.dtype.is_unsigned or x1.dtype in (tf.int8, tf.int16) or \
        x1.dtype.is_complex
    if numpy_pow and _symbolic((x1, x2)):
        if not x1.dtype.is_complex and (_in_xla(x1) or _in_xla(x2)):
            # XLA's kernels, not TF's CPU ones: its Pow takes int8 and int16
            return _unsigned_pow(x1, x2) if x1.dtype.is_unsigned else \
                tf.math.pow(x1, x2)
        return _numpy_op("pow", (x1, x2), x1.dtype,
                         tf.broadcast_static_shape(x1.shape, x2.shape))
    if x1.dtype.is_unsigned or x1.dtype in (tf.int8, tf.int16):
        raise tf.errors.NotFoundError(None, None, "no integer pow kernel")
    if x1.dtype.is_complex:
        # TF's complex pow (exp(y log x)) loses subnormal parts, misses the
        # special cases of 0 ** y, and overflows differently: numpy's for now
        raise tf.errors.NotFoundError(None, None, "complex pow")
    return tf.math.pow(x1, x2)


def _compare(op: Callable[..., Tensor]) -> Callable[..., Tensor]:
    return op


def _fast_path() -> tuple[Any, Any]:
    """TF's C fast path for one op (``TFE_Py_FastPathExecute``, private API: what
    TF's generated op wrappers call first) and its eager context module; Nones
    where this TF lacks them.
    """
    try:
        from tensorflow.python import pywrap_tfe
        from tensorflow.python.eager import context
    except ImportError:
        return None, None
    return getattr(pywrap_tfe, "TFE_Py_FastPathExecute", None), context


_EXECUTE, _CONTEXT = _fast_path()


def _fast(op: str, public: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """TF's op ``op`` on two tensors of one dtype through TF's C fast path
    (~5 µs against ~25 µs for ``tf.math.add`` here), else (symbolic tensors, a
    dtype without a kernel, any refusal) TF's public function ``public``, which
    raises TF's own exceptions.
    """
    if _EXECUTE is None:
        return public
    execute, context = _EXECUTE, _CONTEXT.context

    def function(x1: Tensor, x2: Tensor, /) -> Tensor:
        try:
            return execute(context(), op, None, x1, x2)
        except Exception:
            return public(x1, x2)
    function.__name__ = public.__name__
    return function


_BINARY: dict[str, Callable[[Tensor, Tensor], Tensor]] = {
    "add": _fast("AddV2", tf.math.add), "atan2": tf.math.atan2,
    "bitwise_and": _bitwise(tf.math.logical_and, tf.bitwise.bitwise_and),
    "bitwise_left_shift": _shift(True),
    "bitwise_or": _bitwise(tf.math.logical_or, tf.bitwise.bitwise_or),
    "bitwise_right_shift": _shift(False),
    "bitwise_xor": _bitwise(tf.math.logical_xor, tf.bitwise.bitwise_xor),
    "copysign": _copysign, "divide": _divide, "equal": tf.math.equal,
    "floor_divide": _floor_divide, "greater": _fast("Greater", tf.math.greater),
    "greater_equal": _fast("GreaterEqual", tf.math.greater_equal), "hypot": _hypot,
    "less": _fast("Less", tf.math.less),
    "less_equal": _fast("LessEqual", tf.math.less_equal), "logaddexp": _logaddexp,
    "logical_and": _fast("LogicalAnd", tf.math.logical_and),
    "logical_or": _fast("LogicalOr", tf.math.logical_or),
    "logical_xor": tf.math.logical_xor, "maximum": _extremum(tf.math.maximum),
    "minimum": _extremum(tf.math.minimum),
    "multiply": _fast("Mul", tf.math.multiply),
    "nextafter": tf.math.nextafter, "not_equal": tf.math.not_equal, "pow": _pow,
    "remainder": _remainder, "subtract": _fast("Sub", tf.math.subtract)}


def _unary_function(name: str, op: Callable[[Tensor], Tensor]) -> Callable[..., Any]:
    def function(x: Tensor, /) -> Tensor:
        return op(x)
    function.__name__ = name
    return _or_numpy(name, function)


def _binary_function(name: str,
                     op: Callable[[Tensor, Tensor], Tensor]) -> Callable[..., Any]:
    def function(x1: Any, x2: Any, /) -> Tensor:
        a, b = _common(x1, x2, name)
        return op(a, b)
    function.__name__ = name
    return _or_numpy(name, function)


def clip(x: Tensor, /, min: Any = None, max: Any = None) -> Tensor:
    result = x
    for bound, op in ((min, tf.math.maximum), (max, tf.math.minimum)):
        if bound is None:
            continue
        if isinstance(bound, tf.Tensor):
            bound = _cast(bound, x.dtype)
        elif x.dtype.is_integer:
            info = np.iinfo(x.dtype.as_numpy_dtype)
            bound = _scalar(builtins.min(builtins.max(bound, info.min), info.max),
                            x.dtype)
        else:
            bound = _scalar(bound, x.dtype)
        result = op(result, bound)
        if x.dtype.is_floating:
            result = tf.where(tf.math.is_nan(bound), bound + tf.zeros_like(result),
                              result)
    return tf.broadcast_to(result, tf.broadcast_dynamic_shape(
        tf.shape(x), tf.shape(result)))



# -- creation -------------------------------------------------------------------------
def _device(device: Any) -> Any:
    """Where a creation function makes its array: ``device``, else TF's own
    placement (its default device).
    """
    return tf.device(device) if device is not None else contextlib.nullcontext()


def _shape_of(shape: Any) -> list[int]:
    return [shape] if isinstance(shape, int) else list(shape)


def zeros(shape: Any, *, dtype: Any = None, device: Any = None) -> Tensor:
    with _device(device):
        return tf.zeros(_shape_of(shape), dtype or DEFAULT_FLOAT)


def ones(shape: Any, *, dtype: Any = None, device: Any = None) -> Tensor:
    with _device(device):
        return tf.ones(_shape_of(shape), dtype or DEFAULT_FLOAT)


empty = zeros


def _fill_dtype(value: Any) -> Any:
    if isinstance(value, bool):
        return tf.bool
    if isinstance(value, int):
        return DEFAULT_INT
    if isinstance(value, float):
        return DEFAULT_FLOAT
    return DEFAULT_COMPLEX


def full(shape: Any, fill_value: Any, *, dtype: Any = None,
         device: Any = None) -> Tensor:
    if isinstance(fill_value, tf.Tensor):
        with _device(device):
            return tf.fill(_shape_of(shape),
                           _cast(fill_value, dtype or fill_value.dtype))
    dtype = dtype or _fill_dtype(fill_value)
    with _device(device):
        return tf.fill(_shape_of(shape), constant(fill_value, dtype))


def _like(make: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def function(x: Tensor, /, *args: Any, dtype: Any = None,
                 device: Any = None) -> Tensor:
        return make(x.shape, *args, dtype=dtype or x.dtype,
                    device=device or x.device)
    function.__name__ = f"{make.__name__}_like"
    return function


zeros_like, ones_like, empty_like, full_like = (
    _like(zeros), _like(ones), _like(empty), _like(full))


def arange(start: Any, /, stop: Any = None, step: Any = 1, *, dtype: Any = None,
           device: Any = None) -> Tensor:
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        floating = builtins.any(isinstance(v, float) for v in (start, stop, step))
        dtype = DEFAULT_FLOAT if floating else DEFAULT_INT
    size = builtins.max(math.ceil((stop - start) / step), 0)
    with _device(device):
        if dtype.is_floating:
            values = tf.range(size, dtype=dtype) * constant(step, dtype)
            return values + constant(start, dtype)
        if size == 0:  # bounds outside the dtype need not fit then
            return tf.zeros([0], dtype)
        if dtype.is_unsigned:  # in uint64: int64 would wrap at 2**63
            k = tf.cast(tf.range(size, dtype=tf.int64), tf.uint64)
            base, magnitude = (tf.constant(v, tf.uint64) for v in (start, abs(step)))
            return tf.cast(base + k * magnitude if step > 0 else base - k * magnitude,
                           dtype)
        return tf.cast(tf.range(start, start + size * step, step, dtype=tf.int64),
                       dtype)


def linspace(start: Any, stop: Any, /, num: int, *, dtype: Any = None,
             device: Any = None, endpoint: bool = True) -> Tensor:
    complex_ = isinstance(start, complex) or isinstance(stop, complex)
    if dtype is None:
        dtype = DEFAULT_COMPLEX if complex_ else DEFAULT_FLOAT
    real = dtype.real_dtype if dtype.is_complex else dtype
    with _device(device):
        steps = tf.range(num, dtype=tf.float64)
        divisions = (num - 1) if endpoint else num
        if dtype.is_complex:
            a, b = complex(start), complex(stop)
            fraction = steps / divisions if divisions > 0 else steps * 0
            re = a.real + fraction * (b.real - a.real)
            im = a.imag + fraction * (b.imag - a.imag)
            if endpoint and num > 1:
                re = tf.concat([re[:-1], [b.real]], 0)
                im = tf.concat([im[:-1], [b.imag]], 0)
            return tf.complex(tf.cast(re, real), tf.cast(im, real))
        a, b = float(start), float(stop)
        delta = (b - a) / divisions if divisions > 0 else 0.0
        values = a + steps * delta
        if endpoint and num > 1:
            values = tf.concat([values[:-1], [b]], 0)
        return tf.cast(values, dtype)


def eye(n_rows: int, n_cols: int | None = None, /, *, k: int = 0, dtype: Any = None,
        device: Any = None) -> Tensor:
    n_cols = n_rows if n_cols is None else n_cols
    k = builtins.max(builtins.min(k, n_cols), -n_rows)  # beyond: no diagonal (and
    with _device(device):  # within int64)
        rows = tf.range(n_rows, dtype=tf.int64)[:, None]
        cols = tf.range(n_cols, dtype=tf.int64)[None, :]
        return tf.cast(cols - rows == k, dtype or DEFAULT_FLOAT)


def _band(x: Tensor, k: int, lower: bool) -> Tensor:
    n, m = x.shape[-2], x.shape[-1]
    rows = tf.range(n, dtype=tf.int64)[:, None]
    cols = tf.range(m, dtype=tf.int64)[None, :]
    keep = cols - rows <= k if lower else cols - rows >= k
    return tf.where(keep, x, tf.zeros_like(x))


def tril(x: Tensor, /, *, k: int = 0) -> Tensor:
    return _band(x, k, True)


def triu(x: Tensor, /, *, k: int = 0) -> Tensor:
    return _band(x, k, False)


def meshgrid(*arrays: Tensor, indexing: str = "xy") -> list[Tensor]:
    return list(tf.meshgrid(*arrays, indexing=indexing))


def astype(x: Tensor, dtype: Any, /, *, copy: bool = True,
           device: Any = None) -> Tensor:
    if device is not None and device_of_name(device) != device_of_name(x.device):
        with tf.device(device):
            x = tf.identity(x)
    if x.dtype == dtype:
        return tf.identity(x) if copy else x
    if x.dtype.is_complex and not dtype.is_complex:
        x = tf.math.real(x)
    if dtype == tf.bool:
        return x != tf.zeros_like(x)
    return tf.cast(x, dtype)


# -- manipulation ---------------------------------------------------------------------
def reshape(x: Tensor, /, shape: Any, *, copy: bool | None = None) -> Tensor:
    return tf.reshape(x, list(shape))


def permute_dims(x: Tensor, /, axes: Any) -> Tensor:
    return tf.transpose(x, [a % x.ndim if x.ndim else a for a in axes])


def expand_dims(x: Tensor, /, axis: Any = 0) -> Tensor:
    if not isinstance(axis, (tuple, list)):
        return tf.expand_dims(x, axis)
    ndim = x.ndim + len(axis)  # 2025.12: several axes, placed in the result
    places = sorted(a % ndim for a in axis if -ndim <= a < ndim)
    if len(set(places)) != len(axis):
        raise IndexError(f"expand_dims(): axes {axis} for {ndim} dimensions")
    for place in places:  # in increasing order, each already in its final place
        x = tf.expand_dims(x, place)
    return x


def squeeze(x: Tensor, /, axis: Any) -> Tensor:
    axes = _axes(axis, x.ndim) or []
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze(): axis {a} has size {x.shape[a]}, not 1")
    return tf.squeeze(x, axes) if axes else x


def concat(arrays: Sequence[Tensor], /, *, axis: int | None = 0) -> Tensor:
    arrays = _promote_all(arrays, "concat")
    if axis is None:
        return tf.concat([tf.reshape(a, [-1]) for a in arrays], 0)
    return tf.concat(arrays, axis)


def stack(arrays: Sequence[Tensor], /, *, axis: int = 0) -> Tensor:
    return tf.stack(_promote_all(arrays, "stack"), axis)


def flip(x: Tensor, /, *, axis: Any = None) -> Tensor:
    axes = list(range(x.ndim)) if axis is None else _axes(axis, x.ndim)
    return tf.reverse(x, axes)


def roll(x: Tensor, /, shift: Any, *, axis: Any = None) -> Tensor:
    if axis is None:
        return tf.reshape(tf.roll(tf.reshape(x, [-1]), shift, 0), tf.shape(x))
    return tf.roll(x, shift, axis)


def broadcast_to(x: Tensor, /, shape: Any) -> Tensor:
    return tf.broadcast_to(x, list(shape))


def broadcast_arrays(*arrays: Tensor) -> list[Tensor]:
    shape = tf.TensorShape([])
    for a in arrays:
        shape = tf.broadcast_static_shape(shape, a.shape)
    return [tf.broadcast_to(a, shape) for a in arrays]


def tile(x: Tensor, repetitions: Any, /) -> Tensor:
    reps = list(repetitions)
    if len(reps) > x.ndim:
        x = tf.reshape(x, [1] * (len(reps) - x.ndim) + list(x.shape))
    reps = [1] * (x.ndim - len(reps)) + reps
    return tf.tile(x, reps)


def repeat(x: Tensor, repeats: Any, /, *, axis: int | None = None) -> Tensor:
    if axis is None:
        x, axis = tf.reshape(x, [-1]), 0
    if x.shape.num_elements() == 0:  # TF's repeat fails on empty arrays along a
        # non-empty axis with an array of repeats ("shape (0, 2) is not
        # compatible with (0, 0)"): the result is empty, of the standard's shape
        shape = tf.unstack(tf.shape(x, tf.int64))
        counts = _cast(repeats, tf.int64) if isinstance(repeats, tf.Tensor) else \
            tf.fill([x.shape[axis]], tf.constant(repeats, tf.int64))
        shape[axis] = tf.math.reduce_sum(tf.broadcast_to(counts, [x.shape[axis]]))
        return tf.zeros(tf.stack(shape), x.dtype)
    return tf.repeat(x, repeats, axis=axis)


def unstack(x: Tensor, /, *, axis: int = 0) -> tuple[Tensor, ...]:
    return tuple(tf.unstack(x, axis=axis))


def moveaxis(x: Tensor, source: Any, destination: Any, /) -> Tensor:
    src = _axes(source, x.ndim) or []
    dst = _axes(destination, x.ndim) or []
    order = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return tf.transpose(x, order)


# -- statistical and utility ----------------------------------------------------------
def _sum_dtype(x: Tensor, dtype: Any) -> Any:
    """The standard's accumulation dtype: small integers widen to the default
    integer of their signedness; bools sum as the default integer.
    """
    if dtype is not None:
        return dtype
    if x.dtype == tf.bool:
        return DEFAULT_INT
    if x.dtype.is_integer:
        return tf.uint64 if x.dtype.is_unsigned else DEFAULT_INT
    return x.dtype


def _reduce(op: Callable[..., Tensor], x: Tensor, axis: Any, keepdims: bool) -> Tensor:
    return op(x, axis=_axes(axis, x.ndim), keepdims=keepdims)


def sum(x: Tensor, /, *, axis: Any = None, dtype: Any = None,
        keepdims: bool = False) -> Tensor:
    return _reduce(tf.math.reduce_sum, _cast(x, _sum_dtype(x, dtype)), axis, keepdims)


def prod(x: Tensor, /, *, axis: Any = None, dtype: Any = None,
         keepdims: bool = False) -> Tensor:
    x = _cast(x, _sum_dtype(x, dtype))
    if x.dtype.is_complex:
        result = _sequential_prod(x, _axes(axis, x.ndim), keepdims)
        if no_memory(result) is None and not bool(tf.math.reduce_all(
                _isfinite(result))):
            # TF's complex multiplication recovers infinities (C99 Annex G:
            # -inf+infj) where numpy's gives NaN: numpy's there, eagerly
            raise tf.errors.NotFoundError(None, None, "complex product overflow")
        return result
    return _reduce(tf.math.reduce_prod, x, axis, keepdims)


def _sequential_prod(x: Tensor, axes: list[int] | None, keepdims: bool) -> Tensor:
    """A complex product in order, element after element (a cumulative product's
    last element), as numpy multiplies: TF's tree-shaped reduction reaches other
    infinities and NaNs where a product overflows (``inf-infj`` for numpy's
    ``-9.7e37-infj``).
    """
    axes = sorted(set(range(x.ndim) if axes is None else axes))
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = tf.transpose(x, kept + axes) if x.ndim else x
    shape = tf.shape(x)
    kept_sizes = tf.gather(shape, tf.constant(kept, tf.int32))
    size = tf.reduce_prod(tf.gather(shape, tf.constant(axes, tf.int32)))
    flat = tf.reshape(moved, tf.concat([kept_sizes, [size]], 0))
    ones = tf.ones(tf.concat([kept_sizes, [1]], 0), x.dtype)  # empty products: 1
    result = tf.math.cumprod(tf.concat([ones, flat], -1), axis=-1)[..., -1]
    if keepdims:
        result = tf.reshape(result, [1 if a in axes else shape[a]
                                     for a in range(x.ndim)])
    return result


def mean(x: Tensor, /, *, axis: Any = None, keepdims: bool = False) -> Tensor:
    return _reduce(tf.math.reduce_mean, x, axis, keepdims)


def _nan_propagating(op: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def function(x: Tensor, /, *, axis: Any = None, keepdims: bool = False) -> Tensor:
        refuse_empty_reduction("max" if op is tf.math.reduce_max else "min",
                               tuple(x.shape), axis)  # TF: -inf, +inf
        if x.dtype == tf.bool:
            logical = tf.math.reduce_any if op is tf.math.reduce_max else \
                tf.math.reduce_all
            return _reduce(logical, x, axis, keepdims)
        result = _reduce(op, x, axis, keepdims)
        if not x.dtype.is_floating:
            return result
        nan = _reduce(tf.math.reduce_any, tf.math.is_nan(x), axis, keepdims)
        return tf.where(nan, tf.constant(math.nan, x.dtype), result)
    return function


max = _nan_propagating(tf.math.reduce_max)
min = _nan_propagating(tf.math.reduce_min)


def var(x: Tensor, /, *, axis: Any = None, correction: float = 0.0,
        keepdims: bool = False) -> Tensor:
    axes = _axes(axis, x.ndim)
    centred = x - tf.math.reduce_mean(x, axis=axes, keepdims=True)
    squares = tf.math.real(centred * tf.math.conj(centred)) if x.dtype.is_complex \
        else centred * centred
    total = tf.math.reduce_sum(squares, axis=axes, keepdims=keepdims)
    shape = tf.shape(x, tf.int64)  # sizes known only when the graph runs, too
    count = tf.math.reduce_prod(shape if axes is None else
                                tf.gather(shape, tf.constant(axes, tf.int64)))
    # as numpy: no fewer than 0 degrees of freedom (0/0 is nan, not -0.0)
    freedom = tf.math.maximum(tf.cast(count, total.dtype)
                              - tf.constant(correction, total.dtype), 0)
    return total / freedom


def std(x: Tensor, /, *, axis: Any = None, correction: float = 0.0,
        keepdims: bool = False) -> Tensor:
    return tf.math.sqrt(var(x, axis=axis, correction=correction, keepdims=keepdims))


def _cumulative(op: Callable[..., Tensor], identity: int) -> Callable[..., Tensor]:
    def function(x: Tensor, /, *, axis: int | None = None, dtype: Any = None,
                 include_initial: bool = False) -> Tensor:
        if axis is None:
            if x.ndim > 1:
                raise ValueError("axis=None needs a one-dimensional array")
            axis = 0
        x = _cast(x, _sum_dtype(x, dtype))
        result = op(x, axis=axis)
        if include_initial:
            shape = list(x.shape)
            shape[axis] = 1
            result = tf.concat([tf.fill(shape, tf.constant(identity, x.dtype)),
                                result], axis)
        return result
    return function


cumulative_sum = _cumulative(tf.math.cumsum, 0)
cumulative_prod = _cumulative(tf.math.cumprod, 1)


def _truth(op: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def function(x: Tensor, /, *, axis: Any = None, keepdims: bool = False) -> Tensor:
        if x.dtype != tf.bool:
            x = x != tf.zeros_like(x)
        return _reduce(op, x, axis, keepdims)
    return function


all = _truth(tf.math.reduce_all)
any = _truth(tf.math.reduce_any)


def diff(x: Tensor, /, *, axis: int = -1, n: int = 1, prepend: Any = None,
         append: Any = None) -> Tensor:
    if n == 0:
        return x  # as numpy: nothing appended where nothing is differenced
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        x = concat(parts, axis=axis)
    axis %= x.ndim
    head = [slice(None)] * x.ndim
    tail = [slice(None)] * x.ndim
    head[axis], tail[axis] = slice(1, None), slice(None, -1)
    for _ in range(n):
        x = (x[tuple(head)] != x[tuple(tail)] if x.dtype == tf.bool
             else x[tuple(head)] - x[tuple(tail)])
    return x


# -- searching and sorting ------------------------------------------------------------
def _arg(op: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def function(x: Tensor, /, *, axis: int | None = None,
                 keepdims: bool = False) -> Tensor:
        refuse_empty_reduction("argmax" if op is tf.math.argmax else "argmin",
                               tuple(x.shape), axis)
        if x.dtype == tf.bool:
            x = tf.cast(x, tf.uint8)
        if axis is None:
            result = op(tf.reshape(x, [-1]), axis=0, output_type=INDEX)
            return tf.reshape(result, [1] * x.ndim) if keepdims else result
        result = op(x, axis=axis, output_type=INDEX)
        return tf.expand_dims(result, axis) if keepdims else result
    return function


argmax = _arg(tf.math.argmax)
argmin = _arg(tf.math.argmin)


def where(condition: Tensor, x1: Any, x2: Any, /) -> Tensor:
    a, b = _common(x1, x2, "where")
    return tf.where(condition, a, b)


def nonzero(x: Tensor, /) -> tuple[Tensor, ...]:
    if x.ndim == 0:
        raise ValueError("nonzero(): a 0-d array has no axes to index")
    found = tf.where(x != tf.zeros_like(x))
    return tuple(found[:, i] for i in range(x.ndim))


def count_nonzero(x: Tensor, /, *, axis: Any = None, keepdims: bool = False) -> Tensor:
    return tf.math.count_nonzero(x != tf.zeros_like(x), axis=_axes(axis, x.ndim),
                                 keepdims=keepdims, dtype=INDEX)


def searchsorted(x1: Tensor, x2: Any, /, *, side: str = "left",
                 sorter: Tensor | None = None) -> Tensor:
    if sorter is not None:
        x1 = tf.gather(x1, sorter)
    a, b = _common(x1, x2, "searchsorted")
    found = tf.searchsorted(tf.reshape(a, [1, -1]), tf.reshape(b, [1, -1]),
                            side=side, out_type=INDEX)
    return tf.reshape(found, tf.shape(b))


def _sortable(x: Tensor) -> Tensor:
    return tf.cast(x, tf.uint8) if x.dtype == tf.bool else x


def argsort(x: Tensor, /, *, axis: int = -1, descending: bool = False,
            stable: bool = True) -> Tensor:
    if x.ndim == 0:
        return tf.zeros((), INDEX)
    y = _sortable(x)
    axis %= x.ndim
    if descending:  # stable: equal elements keep their order
        y = tf.reverse(y, [axis])
        n = tf.shape(x, INDEX)[axis]
        order = tf.argsort(y, axis=axis, direction="ASCENDING", stable=True)
        order = tf.cast(tf.reverse(order, [axis]), INDEX)
        return n - 1 - order
    return tf.cast(tf.argsort(y, axis=axis, stable=True), INDEX)


def sort(x: Tensor, /, *, axis: int = -1, descending: bool = False,
         stable: bool = True) -> Tensor:
    if x.ndim == 0 or x.shape.num_elements() == 0:
        return x
    order = argsort(x, axis=axis, descending=descending)
    return take_along_axis(x, order, axis=axis)


# -- set functions: sort-based, O(n log n) time and O(n) memory ----------------------
def _lexicographic_order(flat: Tensor) -> Tensor:
    """A stable order of ``flat`` in which equal values are neighbours: numpy's
    sort order (complex: by the real part, then the imaginary part; NaNs last,
    as R + nanj, nan + Rj, nan + nanj). Every NaN then differs from its
    neighbours, so each is a value of its own (the standard).
    """
    if flat.dtype == tf.bool:
        flat = tf.cast(flat, tf.uint8)
    parts = [tf.math.real(flat), tf.math.imag(flat)] if flat.dtype.is_complex \
        else [flat]
    keys = parts
    if not flat.dtype.is_integer:
        nans = [tf.math.is_nan(p) for p in parts]
        rank = tf.cast(nans[0], tf.uint8)
        if len(nans) == 2:
            rank = 2 * rank + tf.cast(nans[1], tf.uint8)
        keys = [rank] + [tf.where(nan, tf.zeros_like(p), p)
                         for nan, p in zip(nans, parts, strict=True)]
    order = tf.range(tf.size(flat, INDEX), dtype=INDEX)
    for key in reversed(keys):  # least significant first; each sort is stable
        order = tf.gather(order, tf.argsort(tf.gather(key, order), stable=True))
    return order


def _unique(x: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """The flattened ``x``'s stable sorted order, the first position of each
    value in it (``starts``), each element's value number in sorted order, and
    the number of elements.
    """
    flat = tf.reshape(x, [-1])
    size = tf.size(flat, INDEX)
    order = _lexicographic_order(flat)
    ordered = tf.gather(flat, order)
    first = tf.concat([tf.ones([tf.minimum(size, 1)], tf.bool),
                       tf.math.not_equal(ordered[1:], ordered[:-1])], 0)
    starts = tf.where(first)[:, 0]
    group = tf.math.cumsum(tf.cast(first, INDEX)) - 1
    return order, starts, group, size


def _counts(starts: Tensor, size: Tensor) -> Tensor:
    return tf.concat([starts[1:], tf.reshape(size, [1])], 0) - starts


def _inverse(x: Tensor, order: Tensor, group: Tensor, size: Tensor) -> Tensor:
    inverse = tf.scatter_nd(order[:, None], group, tf.reshape(size, [1]))
    return tf.reshape(inverse, tf.shape(x))


def unique_values(x: Tensor, /) -> Tensor:
    order, starts, _, _ = _unique(x)
    return tf.gather(tf.reshape(x, [-1]), tf.gather(order, starts))


def unique_counts(x: Tensor, /) -> tuple[Tensor, Tensor]:
    order, starts, _, size = _unique(x)
    return (tf.gather(tf.reshape(x, [-1]), tf.gather(order, starts)),
            _counts(starts, size))


def unique_inverse(x: Tensor, /) -> tuple[Tensor, Tensor]:
    order, starts, group, size = _unique(x)
    return (tf.gather(tf.reshape(x, [-1]), tf.gather(order, starts)),
            _inverse(x, order, group, size))


def unique_all(x: Tensor, /) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    order, starts, group, size = _unique(x)
    indices = tf.gather(order, starts)  # stable: each value's first occurrence
    return (tf.gather(tf.reshape(x, [-1]), indices), indices,
            _inverse(x, order, group, size), _counts(starts, size))


def isin(x1: Any, x2: Any, /, *, invert: bool = False) -> Tensor:
    """Sort-based, as ``unique_*``: ``x2``'s and ``x1``'s elements sorted
    together; an element of ``x1`` is in ``x2`` where its run of equal values
    holds one of ``x2``'s (a NaN equals nothing). O(n log n) time, O(n) memory.
    """
    a, b = _common(x1, x2, "isin")
    values = tf.concat([tf.reshape(b, [-1]), tf.reshape(a, [-1])], 0)
    size = tf.size(values, INDEX)
    order = _lexicographic_order(values)
    ordered = tf.gather(values, order)
    first = tf.concat([tf.ones([tf.minimum(size, 1)], tf.bool),
                       tf.math.not_equal(ordered[1:], ordered[:-1])], 0)
    group = tf.math.cumsum(tf.cast(first, INDEX)) - 1
    of_x2 = tf.cast(order < tf.size(b, INDEX), tf.int32)
    holds = tf.math.unsorted_segment_max(of_x2, group, size)
    found = tf.scatter_nd(order[:, None], tf.gather(holds, group),
                          tf.reshape(size, [1]))[tf.size(b, INDEX):]
    found = tf.reshape(found > 0, tf.shape(a))
    return tf.math.logical_not(found) if invert else found


def broadcast_shapes(*shapes: Any) -> tuple[int, ...]:
    result = tf.TensorShape([])
    for shape in shapes:
        result = tf.broadcast_static_shape(result, tf.TensorShape(list(shape)))
    return tuple(result.as_list())


# -- linear algebra -------------------------------------------------------------------
_SMALL_INTEGERS = (tf.int8, tf.int16, tf.uint8, tf.uint16, tf.uint32, tf.uint64)


def _widened(op: Callable[[Tensor, Tensor], Tensor], a: Tensor, b: Tensor) -> Tensor:
    """``op`` (a product) of integers XLA's MatMul does not take, in int32 or
    int64 and wrapped back: the low bits of a product of sums do not depend on
    the high ones, so the result is the narrow dtype's wrapping one (numpy's).
    """
    if a.dtype == tf.uint64:  # the same bits as int64's wrapping arithmetic
        return tf.bitcast(op(tf.bitcast(a, tf.int64), tf.bitcast(b, tf.int64)),
                          tf.uint64)
    wide = tf.int64 if a.dtype == tf.uint32 else tf.int32
    return tf.cast(op(tf.cast(a, wide), tf.cast(b, wide)), a.dtype)


def matmul(x1: Tensor, x2: Tensor, /) -> Tensor:
    a, b = _common(x1, x2, "matmul")
    if a.dtype in _SMALL_INTEGERS:
        if _in_xla(a) or _in_xla(b):
            return _widened(matmul, a, b)
        raise tf.errors.NotFoundError(None, None, "no matmul kernel for this dtype")
    if a.dtype == tf.bool:
        return matmul(tf.cast(a, tf.int32), tf.cast(b, tf.int32)) > 0
    if a.ndim == 1 and b.ndim == 1:
        return tf.reduce_sum(a * b)
    if a.ndim == 1:
        return tf.squeeze(tf.linalg.matmul(a[None, :], b), -2)
    if b.ndim == 1:
        return tf.squeeze(tf.linalg.matmul(a, b[:, None]), -1)
    return tf.linalg.matmul(a, b)


def matrix_transpose(x: Tensor, /) -> Tensor:
    return tf.linalg.matrix_transpose(x)


def tensordot(x1: Tensor, x2: Tensor, /, *, axes: Any = 2) -> Tensor:
    a, b = _common(x1, x2, "tensordot")
    if a.dtype.is_integer or a.dtype == tf.bool:
        if _in_xla(a) or _in_xla(b):  # XLA's kernels, not TF's CPU ones
            return _xla_integer_tensordot(a, b, axes)
        raise tf.errors.NotFoundError(None, None, "integer tensordot")
    if not isinstance(axes, int):
        axes = [list(axes[0]), list(axes[1])]
    return tf.tensordot(a, b, axes)


def _xla_integer_tensordot(a: Tensor, b: Tensor, axes: Any) -> Tensor:
    if not isinstance(axes, int):
        axes = [list(axes[0]), list(axes[1])]
    if a.dtype == tf.bool:
        return tf.tensordot(tf.cast(a, tf.int32), tf.cast(b, tf.int32), axes) > 0
    if a.dtype in _SMALL_INTEGERS:
        return _widened(lambda u, v: tf.tensordot(u, v, axes), a, b)
    return tf.tensordot(a, b, axes)


def vecdot(x1: Tensor, x2: Tensor, /, *, axis: int = -1) -> Tensor:
    a, b = _common(x1, x2, "vecdot")
    if a.shape[axis] != b.shape[axis]:
        raise ValueError(f"vecdot(): axis {axis} has sizes {a.shape[axis]} and "
                         f"{b.shape[axis]}")
    return tf.math.reduce_sum(_conj(a) * b, axis=axis)


# -- linalg: the functions with a direct TF op ----------------------------------------
def _adjoint(x: Tensor) -> Tensor:
    return tf.linalg.adjoint(x) if x.dtype.is_complex else tf.linalg.matrix_transpose(x)


def _real_of(x: Tensor) -> Tensor:
    return tf.math.real(x) if x.dtype.is_complex else x


def diagonal(x: Tensor, /, *, offset: int = 0) -> Tensor:
    n, m = x.shape[-2], x.shape[-1]
    if not -n < offset < m:
        return tf.zeros([*x.shape[:-2], 0], x.dtype)
    return tf.linalg.diag_part(x, k=offset)


def outer(x1: Tensor, x2: Tensor, /) -> Tensor:
    a, b = _common(x1, x2, "linalg.outer")
    return a[:, None] * b[None, :]


def trace(x: Tensor, /, *, offset: int = 0, dtype: Any = None) -> Tensor:
    return sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)


def cross(x1: Tensor, x2: Tensor, /, *, axis: int = -1) -> Tensor:
    a, b = _common(x1, x2, "linalg.cross")
    if a.shape[axis] != 3 or b.shape[axis] != 3:
        raise ValueError(f"linalg.cross(): axis {axis} must have size 3")
    a, b = broadcast_arrays(a, b)
    axis %= a.ndim
    # by components: tf.linalg.cross has no complex kernel
    a0, a1, a2 = tf.unstack(a, axis=axis)
    b0, b1, b2 = tf.unstack(b, axis=axis)
    return tf.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0],
                    axis=axis)


def _floating(x: Tensor) -> Tensor:
    if not (x.dtype.is_floating or x.dtype.is_complex):
        raise tf.errors.NotFoundError(None, None, "linalg of integers")
    return x


def inv(x: Tensor, /) -> Tensor:
    return tf.linalg.inv(_floating(x))


def _xla_lu(x: Tensor) -> tuple[Tensor, Tensor]:
    """The diagonal of ``x``'s LU factor U and the sign of its row permutation
    (Gaussian elimination with partial pivoting, LAPACK's getrf unblocked), for
    XLA: TF's Lu, MatrixDeterminant and LogMatrixDeterminant have no XLA kernel.
    """
    n = tf.shape(x)[-1]
    rows = tf.range(n)
    batch = x.shape.rank - 2

    def step(k: Tensor, a: Tensor, sign: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        column = a[..., :, k]
        size = tf.math.abs(tf.math.real(column)) + tf.math.abs(tf.math.imag(column)) \
            if a.dtype.is_complex else tf.math.abs(column)
        p = tf.math.argmax(tf.where(rows >= k, size, -tf.ones_like(size)), axis=-1,
                           output_type=tf.int32)
        order = tf.where(rows == k, p[..., None],
                         tf.where(rows == p[..., None], k, rows))
        a = tf.gather(a, order, axis=batch, batch_dims=batch)
        sign = tf.where(p == k, sign, -sign)
        pivot = a[..., k, k]
        divisor = tf.where(pivot == 0, tf.ones_like(pivot), pivot)
        factors = tf.where(rows > k, a[..., :, k] / divisor[..., None],
                           tf.zeros_like(column))
        return k + 1, a - factors[..., :, None] * a[..., k, None, :], sign

    sign = tf.ones(tf.shape(x)[:-2], x.dtype.real_dtype)
    _, a, sign = tf.while_loop(lambda k, a, sign: k < n, step,
                               (tf.constant(0), x, sign))
    return tf.linalg.diag_part(a), sign


def det(x: Tensor, /) -> Tensor:
    if _in_xla(x):
        diagonal, sign = _xla_lu(_floating(x))
        return tf.math.reduce_prod(diagonal, axis=-1) * tf.cast(sign, x.dtype)
    return tf.linalg.det(_floating(x))


def cholesky(x: Tensor, /, *, upper: bool = False) -> Tensor:
    lower = tf.linalg.cholesky(_floating(x))
    return _adjoint(lower) if upper else lower


def eigh(x: Tensor, /) -> tuple[Tensor, Tensor]:
    values, vectors = tf.linalg.eigh(_floating(x))
    return _real_of(values), vectors


def eigvalsh(x: Tensor, /) -> Tensor:
    return _real_of(tf.linalg.eigvalsh(_floating(x)))


def svdvals(x: Tensor, /) -> Tensor:
    return _real_of(tf.linalg.svd(_floating(x), compute_uv=False))


def matrix_power(x: Tensor, n: int, /) -> Tensor:
    if n < 0:
        x, n = inv(x), -n
    result = tf.broadcast_to(tf.eye(x.shape[-1], dtype=x.dtype), x.shape)
    power = x
    while n:
        if n & 1:
            result = matmul(result, power)
        n >>= 1
        if n:
            power = matmul(power, power)
    return result


def vector_norm(x: Tensor, /, *, axis: Any = None, keepdims: bool = False,
                ord: Any = 2) -> Tensor:
    magnitude = tf.math.abs(x) if x.dtype.is_complex or x.dtype.is_floating \
        else tf.math.abs(tf.cast(x, DEFAULT_FLOAT))
    axes = _axes(axis, x.ndim)
    if ord == math.inf:
        return tf.math.reduce_max(magnitude, axis=axes, keepdims=keepdims)
    if ord == -math.inf:
        return tf.math.reduce_min(magnitude, axis=axes, keepdims=keepdims)
    if ord == 0:
        return tf.cast(tf.math.count_nonzero(magnitude, axis=axes, keepdims=keepdims),
                       magnitude.dtype)
    if ord == 1:
        return tf.math.reduce_sum(magnitude, axis=axes, keepdims=keepdims)
    if ord == 2:
        return tf.math.sqrt(tf.math.reduce_sum(magnitude * magnitude, axis=axes,
                                               keepdims=keepdims))
    p = tf.constant(ord, magnitude.dtype)
    return tf.math.reduce_sum(magnitude ** p, axis=axes, keepdims=keepdims) ** (1 / p)


# -- linalg: the factorizations and what is built on them ----------------------------
def solve(x1: Tensor, x2: Tensor, /) -> Tensor:
    a, b = _common(x1, x2, "linalg.solve")
    _floating(a)
    vector = b.ndim == 1  # the standard: x2 of shape (M,) is a vector
    if vector:
        b = b[:, None]
    batch = tf.broadcast_static_shape(a.shape[:-2], b.shape[:-2])
    a = tf.broadcast_to(a, batch.concatenate(a.shape[-2:]))
    b = tf.broadcast_to(b, batch.concatenate(b.shape[-2:]))
    result = tf.linalg.solve(a, b)
    return result[..., 0] if vector else result


def qr(x: Tensor, /, *, mode: str = "reduced") -> tuple[Tensor, Tensor]:
    if mode not in ("reduced", "complete"):
        raise ValueError(f"linalg.qr(): mode must be 'reduced' or 'complete', "
                         f"got {mode!r}")
    q, r = tf.linalg.qr(_floating(x), full_matrices=mode == "complete")
    return q, r


def svd(x: Tensor, /, *, full_matrices: bool = True) -> tuple[Tensor, Tensor, Tensor]:
    s, u, v = tf.linalg.svd(_floating(x), full_matrices=full_matrices)
    return u, _real_of(s), _adjoint(v)


def slogdet(x: Tensor, /) -> tuple[Tensor, Tensor]:
    if _in_xla(x):
        diagonal, sign = _xla_lu(_floating(x))
        size = tf.math.abs(diagonal)
        unit = diagonal / tf.cast(tf.where(size == 0, tf.ones_like(size), size),
                                  x.dtype)
        singular = tf.math.reduce_any(size == 0, axis=-1)
        sign = tf.where(singular, tf.zeros_like(unit[..., 0]),
                        tf.math.reduce_prod(unit, axis=-1) * tf.cast(sign, x.dtype))
        return sign, tf.math.reduce_sum(tf.math.log(size), axis=-1)
    sign, logabsdet = tf.linalg.slogdet(_floating(x))
    sign = tf.where(sign == 0, tf.zeros_like(sign), sign)  # TF's singular: -0
    return sign, _real_of(logabsdet)


def _default_rtol(x: Tensor, s: Tensor) -> Tensor:
    eps = np.finfo(s.dtype.as_numpy_dtype).eps
    return tf.constant(builtins.max(x.shape[-2], x.shape[-1]) * eps, s.dtype)


def _cutoff(x: Tensor, s: Tensor, rtol: Any) -> Tensor:
    """The standard's cutoff for singular values: ``rtol`` (a Python float or an
    array broadcasting against the stack) times the largest singular value.
    """
    if rtol is None:
        tol = _default_rtol(x, s)
    elif isinstance(rtol, tf.Tensor):
        tol = _cast(rtol, s.dtype)[..., None]
    else:
        tol = tf.constant(rtol, s.dtype)
    return tol * tf.math.reduce_max(s, axis=-1, keepdims=True)


def pinv(x: Tensor, /, *, rtol: Any = None) -> Tensor:
    s, u, v = tf.linalg.svd(_floating(x), full_matrices=False)
    s = _real_of(s)
    large = s > _cutoff(x, s, rtol)
    inverse = tf.where(large, 1 / tf.where(large, s, tf.ones_like(s)),
                       tf.zeros_like(s))
    scaled = v * tf.cast(inverse, v.dtype)[..., None, :]
    return tf.linalg.matmul(scaled, _adjoint(u))


def matrix_rank(x: Tensor, /, *, rtol: Any = None) -> Tensor:
    s = svdvals(x)
    if s.shape[-1] == 0:
        return tf.zeros(s.shape[:-1], INDEX)
    return tf.math.count_nonzero(s > _cutoff(x, s, rtol), axis=-1, dtype=INDEX)


def matrix_norm(x: Tensor, /, *, keepdims: bool = False, ord: Any = "fro") -> Tensor:
    x = _floating(x)
    magnitude = tf.math.abs(x)
    if ord == "fro":
        result = tf.math.sqrt(tf.math.reduce_sum(magnitude * magnitude, axis=(-2, -1)))
    elif ord == "nuc":
        result = tf.math.reduce_sum(svdvals(x), axis=-1)
    elif ord in (1, -1):
        columns = tf.math.reduce_sum(magnitude, axis=-2)
        op = tf.math.reduce_max if ord == 1 else tf.math.reduce_min
        result = op(columns, axis=-1)
    elif ord in (math.inf, -math.inf):
        rows = tf.math.reduce_sum(magnitude, axis=-1)
        op = tf.math.reduce_max if ord == math.inf else tf.math.reduce_min
        result = op(rows, axis=-1)
    elif ord in (2, -2):
        op = tf.math.reduce_max if ord == 2 else tf.math.reduce_min
        result = op(svdvals(x), axis=-1)
    else:
        raise ValueError(f"linalg.matrix_norm(): ord {ord!r} is not one of 'fro', "
                         "'nuc', 1, -1, 2, -2, inf, -inf")
    return result[..., None, None] if keepdims else result


def eig(x: Tensor, /) -> tuple[Tensor, Tensor]:
    if _in_xla(x):
        raise _not_in_xla("linalg.eig", "TensorFlow's Eig has no XLA kernel")
    values, vectors = tf.linalg.eig(_floating(x))
    return values, vectors


def eigvals(x: Tensor, /) -> Tensor:
    if _in_xla(x):
        raise _not_in_xla("linalg.eigvals", "TensorFlow's Eig has no XLA kernel")
    return tf.linalg.eigvals(_floating(x))


# -- indexing -------------------------------------------------------------------------
def _normalised(indices: Tensor, size: Any) -> Tensor:
    indices = _cast(indices, tf.int64)
    return tf.where(indices < 0, indices + tf.cast(size, tf.int64), indices)


def take(x: Tensor, indices: Tensor, /, *, axis: int | None = None) -> Tensor:
    if axis is None:
        if x.ndim != 1:
            raise ValueError("take(): axis=None needs a one-dimensional array")
        axis = 0
    axis %= x.ndim
    return tf.gather(x, _normalised(indices, x.shape[axis]), axis=axis)


def take_along_axis(x: Tensor, indices: Tensor, /, *, axis: int = -1) -> Tensor:
    axis %= x.ndim
    indices = _normalised(indices, x.shape[axis])
    xs, ids = tf.experimental.numpy.moveaxis(x, axis, -1), \
        tf.experimental.numpy.moveaxis(indices, axis, -1)
    batch = tf.broadcast_static_shape(xs.shape[:-1], ids.shape[:-1])
    xs = tf.broadcast_to(xs, batch.concatenate(xs.shape[-1:]))
    ids = tf.broadcast_to(ids, batch.concatenate(ids.shape[-1:]))
    result = tf.gather(xs, ids, axis=-1, batch_dims=len(batch))
    return tf.experimental.numpy.moveaxis(result, -1, axis)


def _is_array_key(item: Any) -> bool:
    return isinstance(item, tf.Tensor) and (item.ndim > 0 or item.dtype == tf.bool)


def _index64(item: Any) -> Any:
    """A 0-d integer tensor (or one in a slice) as int64: TF packs the parts of
    a basic key into one tensor, which fails for int32 beside int64.
    """
    if isinstance(item, tf.Tensor) and item.dtype.is_integer:
        return _cast(item, tf.int64)
    if isinstance(item, slice) and builtins.any(
            isinstance(p, tf.Tensor) for p in (item.start, item.stop, item.step)):
        return slice(_index64(item.start), _index64(item.stop), _index64(item.step))
    return item


def getitem(x: Tensor, key: Any) -> Tensor:
    """``x[key]``: TF's own for basic keys; boolean masks and integer arrays here."""
    items = key if isinstance(key, tuple) else (key,)
    if not builtins.any(_is_array_key(k) for k in items):
        if builtins.any(isinstance(k, (tf.Tensor, slice)) for k in items):
            items = tuple(_index64(k) for k in items)
            key = items if isinstance(key, tuple) else items[0]
        return x[key]
    if len(items) == 1 and items[0].dtype == tf.bool:
        mask = items[0]
        if mask.ndim == 0:  # a new axis, kept or emptied (also when traced)
            return tf.boolean_mask(tf.expand_dims(x, 0), tf.reshape(mask, [1]))
        return tf.boolean_mask(x, mask)
    integers = builtins.all(isinstance(k, int) or (
        isinstance(k, tf.Tensor) and k.dtype.is_integer) for k in items)
    if integers and len(items) <= x.ndim:
        indices = [_normalised(tf.constant(k) if isinstance(k, int) else k,
                               x.shape[i]) for i, k in enumerate(items)]
        shape = tf.TensorShape([])
        for i in indices:
            shape = tf.broadcast_static_shape(shape, i.shape)
        for i, size in zip(indices, tf.unstack(tf.shape(x, tf.int64)), strict=False):
            outside = tf.reduce_any((i < 0) | (i >= size))
            if no_memory(outside) is not None:  # traced: checked when it runs
                tf.debugging.assert_equal(outside, False,
                                          "__getitem__(): index out of bounds")
            elif bool(outside):
                raise IndexError("__getitem__(): index out of bounds for size "
                                 f"{int(size)}")
        stacked = tf.stack([tf.broadcast_to(i, shape) for i in indices], -1)
        return tf.gather_nd(x, stacked)
    return through_numpy("__getitem__")(x, key)


def setitem(x: Tensor, key: Any, value: Any, /) -> Tensor:
    """TF tensors are immutable: the Tensor is rebound to an updated tensor, made
    by TF (``tf.tensor_scatter_nd_update`` at the positions ``x[key]`` reads), and
    the original ``tf.Tensor`` is unchanged.
    """
    value = _cast(value, x.dtype) if isinstance(value, tf.Tensor) else \
        constant(value, x.dtype)
    if key is Ellipsis:
        return tf.broadcast_to(value, tf.shape(x))
    positions = getitem(tf.reshape(tf.range(tf.size(x, tf.int64), dtype=tf.int64),
                                   tf.shape(x)), key)
    value = tf.broadcast_to(value, tf.shape(positions))
    flat = tf.tensor_scatter_nd_update(tf.reshape(x, [-1]),
                                       tf.reshape(positions, [-1, 1]),
                                       tf.reshape(value, [-1]))
    return tf.reshape(flat, tf.shape(x))


# -- inspection -----------------------------------------------------------------------
_KINDS = {"bool": ("bool",), "signed integer": ("signed integer",),
          "unsigned integer": ("unsigned integer",),
          "integral": ("signed integer", "unsigned integer"),
          "real floating": ("real floating",),
          "complex floating": ("complex floating",),
          "numeric": ("signed integer", "unsigned integer", "real floating",
                      "complex floating")}
_STANDARD_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                    "uint32", "uint64", "float32", "float64", "complex64",
                    "complex128")


class Info:
    """TF's answers to the inspection API, in TF's terms (dtypes, device names)."""

    def capabilities(self) -> dict[str, Any]:
        return {"boolean indexing": True, "data-dependent shapes": True,
                "max dimensions": 64}

    def default_device(self) -> str:
        """TF's placement: its first GPU where it has one, else the CPU."""
        gpus = tf.config.list_logical_devices("GPU")
        return gpus[0].name if gpus else "/job:localhost/replica:0/task:0/device:CPU:0"

    def devices(self) -> list[str]:
        return [d.name for d in tf.config.list_logical_devices()
                if d.device_type in ("CPU", "GPU")]

    def default_dtypes(self, *, device: Any = None) -> dict[str, Any]:
        return {"real floating": DEFAULT_FLOAT, "complex floating": DEFAULT_COMPLEX,
                "integral": DEFAULT_INT, "indexing": INDEX}

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict[str, Any]:
        names: tuple[str, ...] = _STANDARD_DTYPES
        if kind is not None:
            kinds = kind if isinstance(kind, tuple) else (kind,)
            wanted = {k for item in kinds for k in _KINDS.get(item, (item,))}
            names = tuple(n for n in names if n in wanted
                          or DTYPES[n].kind in wanted)
        return {n: _TO_TF[DTYPES[n]] for n in names}


def __array_namespace_info__() -> Info:
    return Info()


# -- the namespace --------------------------------------------------------------------
_HAND_WRITTEN = (
    "clip", "zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like",
    "full_like", "arange", "linspace", "eye", "tril", "triu", "meshgrid", "astype",
    "reshape", "permute_dims", "expand_dims", "squeeze", "concat", "stack", "flip",
    "roll", "broadcast_to", "broadcast_arrays", "tile", "repeat", "unstack",
    "moveaxis", "sum", "prod", "mean", "std", "var", "min", "max", "cumulative_sum",
    "cumulative_prod", "all", "any", "diff", "argmax", "argmin", "where", "nonzero",
    "count_nonzero", "searchsorted", "sort", "argsort", "matmul", "matrix_transpose",
    "tensordot", "vecdot", "take", "take_along_axis", "unique_all", "unique_counts",
    "unique_inverse", "unique_values", "isin", "broadcast_shapes")


_LINALG_WRITTEN = ("diagonal", "outer", "trace", "cross", "inv", "det", "cholesky",
                   "eigh", "eigvalsh", "svdvals", "matrix_power", "vector_norm",
                   "solve", "qr", "svd", "slogdet", "pinv", "matrix_rank",
                   "matrix_norm", "eig", "eigvals")


def _qualified(group: str, name: str) -> str:
    return f"{group}.{name}" if group in ("linalg", "fft") else name


def _build() -> tuple[types.SimpleNamespace, list[str]]:
    """The namespace: TF functions where written, numpy's (TF-owned results) else."""
    top: dict[str, Any] = {"__array_namespace_info__": __array_namespace_info__}
    groups: dict[str, dict[str, Any]] = {"linalg": {}, "fft": {}}
    not_yet = []
    for row in FUNCTIONS:
        if row.group == "data_types" and row.name != "astype":
            continue  # answered by unitensor's own table
        if row.name in ("asarray", "from_dlpack"):
            continue  # unitensor's own conversions
        qualified = _qualified(row.group, row.name)
        if row.group == "elementwise" and row.name in _UNARY:
            func = _unary_function(row.name, _UNARY[row.name])
        elif row.group == "elementwise" and row.name in _BINARY:
            func = _binary_function(row.name, _BINARY[row.name])
        elif row.group not in ("linalg", "fft") and row.name in _HAND_WRITTEN:
            func = _or_numpy(row.name, globals()[row.name])
        elif row.group == "linalg" and row.name in ("matmul", "matrix_transpose",
                                                    "tensordot", "vecdot"):
            func = top[row.name]
        elif row.group == "fft" and row.name in _fft.FUNCTIONS:
            func = _or_numpy(qualified, getattr(_fft, row.name))
        elif row.group == "linalg" and row.name in _LINALG_WRITTEN:
            func = _or_numpy(qualified, globals()[row.name])
        else:
            func = through_numpy(qualified)
            not_yet.append(qualified)
        (groups[row.group] if row.group in groups else top)[row.name] = func
    ns = types.SimpleNamespace(**top)
    ns.linalg = types.SimpleNamespace(**groups["linalg"])
    ns.fft = types.SimpleNamespace(**groups["fft"])
    return ns, not_yet


NAMESPACE, NOT_YET = _build()

_COMPLEX = frozenset({tf.complex64, tf.complex128})


def _complex_special_cases(name: str) -> Callable[..., Any]:
    """``name`` with the standard's complex special cases (numpy's elements for
    them, ``_common.complex_special_cases_fixed``); traced by ``tf.function``,
    the same with both branches in the graph.
    """
    native = getattr(NAMESPACE, name)
    eager = _or_numpy(name, complex_special_cases_fixed(
        NAMESPACE,  # type: ignore[arg-type]
        name, _COMPLEX, to_numpy, from_numpy, numpy_namespace.reference(name)))

    def function(x: Tensor, /) -> Tensor:
        if x.dtype not in _COMPLEX or no_memory(x) is None:
            return eager(x)
        if _in_xla(x):
            raise _not_in_xla(name, "the standard's complex special cases are "
                              "numpy's, through tf.numpy_function, which XLA "
                              "cannot compile")
        result = native(x)
        ordinary = _isfinite(x) & (tf.math.imag(x) != 0) & (tf.math.real(x) != 0)
        return tf.cond(tf.math.reduce_all(ordinary), lambda: result,
                       lambda: tf.where(ordinary, result,
                                        _numpy_op(name, (x,), x.dtype, x.shape)))
    function.__name__ = name
    return function


for _name in COMPLEX_SPECIAL_CASES:
    setattr(NAMESPACE, _name, _complex_special_cases(_name))

# In-place operators (``x += y``) of an immutable owner compute through the fix of
# the operation, so that they promote as the standard says (TF's own ``+=`` is
# TF's ``+``): every two-array elementwise function is one.
FIXES: dict[str, Callable[..., Any]] = {
    name: getattr(NAMESPACE, name) for name in _BINARY}
FIXES["__getitem__"] = getitem

# Two operands of one dtype: TF's own op where it is the standard's already.
SAME_DTYPE: dict[str, Callable[..., Any]] = {
    name: _BINARY[name] for name in (
        "add", "subtract", "multiply", "equal", "not_equal", "less", "less_equal",
        "greater", "greater_equal", "logical_and", "logical_or", "logical_xor")}


def namespace() -> object:
    """:data:`NAMESPACE`: TF-owned data computes in TF (see the module's notes)."""
    return NAMESPACE


def result(value: Any, /) -> tf.Tensor:
    return from_numpy(value) if isinstance(value, (np.ndarray, np.generic)) \
        else tf.convert_to_tensor(value)


def native_dtype(dtype: DType, /) -> tf.DType:
    return _TO_TF[dtype]


native_device = device_name


def device_from_native(native_device: Any, /) -> Device:
    return device_of_name(str(native_device))


def error_type(exc: Exception, /) -> type[Exception]:
    """TF's refusals: an index out of range is an IndexError, a wrong dtype a
    TypeError, anything else a ValueError (the standard's types).
    """
    if isinstance(exc, (IndexError, TypeError, ValueError)):
        return type(exc) if type(exc) in (IndexError, TypeError) else ValueError
    text = str(exc)
    if "is not in the list of allowed values" in text or "No OpKernel" in text:
        return TypeError  # a dtype the op has no kernel for
    if "out of bounds" in text or "out of range" in text or "not in [0," in text:
        return IndexError
    return ValueError

