"""The standard's elementwise functions for TensorFlow.

One- and two-array functions are TF ops by name (:data:`_UNARY`, :data:`_BINARY`),
which the package's ``__init__`` makes into the standard's functions (operands
promoted first); where TF's op deviates from the standard (integer division,
unsigned negation, complex log, NaN-propagating extrema, ...) a function here
computes the standard's answer from TF ops.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import tensorflow as tf

from ..interop import no_memory
from ._base import DEFAULT_FLOAT, NAMESPACE, Tensor, _cast, _common, _scalar, fast_op
from ._numpy_route import _in_xla, _numpy_op, _or_numpy, _symbolic


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


def _truth(x: Tensor) -> Tensor:
    """``x`` as bools, as numpy reads a logical function's operands: true unless
    0 (both parts of a complex number); TF's logical ops take bools only.
    """
    return x if x.dtype == tf.bool else x != tf.zeros_like(x)


def _logical_not(x: Tensor) -> Tensor:
    return tf.math.logical_not(_truth(x))


def _logical(op: Callable[..., Tensor]) -> Callable[[Tensor, Tensor], Tensor]:
    """TF's logical ``op`` on the truth of its operands (bools as they are)."""
    def function(x1: Tensor, x2: Tensor) -> Tensor:
        return op(_truth(x1), _truth(x2))
    function.__name__ = op.__name__
    return function


def _bitwise_invert(x: Tensor) -> Tensor:
    return tf.math.logical_not(x) if x.dtype == tf.bool else tf.bitwise.invert(x)


def _reciprocal(x: Tensor) -> Tensor:
    return tf.math.reciprocal(x)


def _expm1(x: Tensor) -> Tensor:
    if x.dtype.is_complex:
        return tf.math.exp(x) - tf.constant(1, x.dtype)
    return tf.math.expm1(x)


# TF's own op is the standard's function: called through TF's C fast path
_PLAIN_UNARY = {
    "acos": "Acos", "acosh": "Acosh", "asin": "Asin", "asinh": "Asinh", "atan": "Atan",
    "atanh": "Atanh", "cos": "Cos", "cosh": "Cosh", "exp": "Exp", "log1p": "Log1p",
    "sin": "Sin", "sinh": "Sinh", "square": "Square", "sqrt": "Sqrt", "tan": "Tan",
    "tanh": "Tanh"}
_UNARY: dict[str, Callable[[Tensor], Tensor]] = {
    name: fast_op(op, getattr(tf.math, name)) for name, op in _PLAIN_UNARY.items()}
_UNARY.update({
    "abs": _abs, "bitwise_invert": _bitwise_invert,
    "ceil": _integer_identity(tf.math.ceil), "conj": _conj, "expm1": _expm1,
    "floor": _integer_identity(tf.math.floor), "imag": _imag,
    "isfinite": _isfinite, "isinf": _isinf, "isnan": _isnan, "log": _log,
    "log2": _log_base(2.0), "log10": _log_base(10.0),
    "logical_not": _logical_not, "negative": _negative, "positive": _same,
    "real": _real, "reciprocal": _reciprocal, "round": _integer_identity(_round),
    "sign": _sign, "signbit": _signbit, "trunc": _integer_identity(_trunc)})


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
    Negative counts (the standard: unspecified) are such shifts, as numpy's
    (which reads the count as unsigned): TF shifted ``-1 << -1`` to -1.
    """
    def function(x1: Tensor, x2: Tensor) -> Tensor:
        bits = x1.dtype.size * 8
        wide = (x2 >= bits) | (x2 < 0) if not x2.dtype.is_unsigned else x2 >= bits
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


def _nextafter(x1: Tensor, x2: Tensor) -> Tensor:
    """TF's NextAfter takes float32 and float64 only: for the 16-bit floats the
    next value is one step of the bits (IEEE 754 orders a float's magnitude as
    its bits), up where moving toward ``x2`` grows ``|x1|``, down otherwise.
    """
    if x1.dtype not in (tf.float16, tf.bfloat16):
        return tf.math.nextafter(x1, x2)
    grows = (x2 > x1) == (x1 > 0)
    step = tf.where(grows, tf.constant(1, tf.int16), tf.constant(-1, tf.int16))
    moved = tf.bitcast(tf.bitcast(x1, tf.int16) + step, x1.dtype)
    tiny = tf.bitcast(tf.constant(1, tf.int16), x1.dtype)  # from zero: x2's side
    result = tf.where(x1 == 0, tf.where(x2 > 0, tiny, -tiny), moved)
    result = tf.where(x1 == x2, x2, result)
    return tf.where(tf.math.is_nan(x1) | tf.math.is_nan(x2),
                    tf.constant(float("nan"), x1.dtype), result)


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


_BINARY: dict[str, Callable[[Tensor, Tensor], Tensor]] = {
    "add": fast_op("AddV2", tf.math.add), "atan2": tf.math.atan2,
    "bitwise_and": _bitwise(tf.math.logical_and, tf.bitwise.bitwise_and),
    "bitwise_left_shift": _shift(True),
    "bitwise_or": _bitwise(tf.math.logical_or, tf.bitwise.bitwise_or),
    "bitwise_right_shift": _shift(False),
    "bitwise_xor": _bitwise(tf.math.logical_xor, tf.bitwise.bitwise_xor),
    "copysign": _copysign, "divide": _divide, "equal": tf.math.equal,
    "floor_divide": _floor_divide, "greater": fast_op("Greater", tf.math.greater),
    "greater_equal": fast_op("GreaterEqual", tf.math.greater_equal), "hypot": _hypot,
    "less": fast_op("Less", tf.math.less),
    "less_equal": fast_op("LessEqual", tf.math.less_equal), "logaddexp": _logaddexp,
    # (bools through TF's C fast path; other operands, which it refuses, by truth)
    "logical_and": fast_op("LogicalAnd", _logical(tf.math.logical_and)),
    "logical_or": fast_op("LogicalOr", _logical(tf.math.logical_or)),
    "logical_xor": _logical(tf.math.logical_xor), "maximum": _extremum(tf.math.maximum),
    "minimum": _extremum(tf.math.minimum),
    "multiply": fast_op("Mul", tf.math.multiply),
    "nextafter": _nextafter, "not_equal": tf.math.not_equal, "pow": _pow,
    "remainder": _remainder, "subtract": fast_op("Sub", tf.math.subtract)}


# The floating-point functions take integer and bool inputs cast by the
# dispatcher's one rule (unitensor/_float_loops.py) before they reach TF;
# signbit, which answers a bool, is not among them, and TF's op for it takes
# floats only: its integer and bool inputs are cast as numpy's loop casts them.
_FLOATING_ONLY = frozenset({"signbit"})


def _numpy_loop(dtype: tf.DType) -> tf.DType:
    """The float dtype numpy computes a floating function of ``dtype`` in."""
    for floating in (tf.float16, tf.float32, tf.float64):
        if np.can_cast(dtype.as_numpy_dtype, floating.as_numpy_dtype, "safe"):
            return floating
    return tf.float64


def _unary_function(name: str, op: Callable[[Tensor], Tensor]) -> Callable[..., Any]:
    if name in _FLOATING_ONLY:
        def function(x: Tensor, /) -> Tensor:
            if x.dtype.is_integer or x.dtype == tf.bool:
                x = tf.cast(x, _numpy_loop(x.dtype))
            return op(x)
    else:
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
