"""The standard's ``linalg`` extension for TensorFlow, through ``tf.linalg``.

The functions with a direct TF op call it; the factorizations and what is built on
them (solve, pinv, matrix_rank, norms) follow the standard's conventions (its
default ``rtol``, real eigenvalues of Hermitian problems). Integer inputs have no
TF kernel: they compute through numpy (``_numpy_route``).
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np
import tensorflow as tf

from ...._errors import arg_error
from ..._fixes import norm_of_nothing, outer_of_vectors
from ._base import DEFAULT_FLOAT, INDEX, Tensor, _axes, _cast, _common
from ._numpy_route import _in_xla, _not_in_xla
from .elementwise import _isfinite
from .linear_algebra import matmul
from .manipulation import broadcast_arrays
from .statistical import sum


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


def _outer(x1: Tensor, x2: Tensor, /) -> Tensor:
    a, b = _common(x1, x2, "linalg.outer")
    return a[:, None] * b[None, :]


outer = outer_of_vectors(_outer)


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
    """TF's of a matrix not positive definite is NaN, and its upper triangle
    memory it never wrote (values that changed from call to call): the triangle
    is zeros, and an eager call refuses such a matrix, as numpy does.
    """
    lower = tf.linalg.band_part(tf.linalg.cholesky(_floating(x)), -1, 0)
    if tf.executing_eagerly() and bool(tf.reduce_all(_isfinite(x))) and not bool(
            tf.reduce_all(_isfinite(lower))):
        raise arg_error(ValueError, "linalg.cholesky", "x", "a positive-definite "
                        "matrix (numpy's refusal; TensorFlow answered NaN)",
                        "one that is not")
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
    if ord is None:  # the default, as numpy, jax, dask and array_api_strict read it
        ord = 2
    magnitude = tf.math.abs(x) if x.dtype.is_complex or x.dtype.is_floating \
        else tf.math.abs(tf.cast(x, DEFAULT_FLOAT))
    axes = _axes(axis, x.ndim)
    if x.shape.num_elements() == 0:  # (TF's largest of nothing: -inf)
        return tf.zeros(norm_of_nothing("vector_norm", tuple(x.shape), axis=axis,
                                        keepdims=keepdims, ord=ord).shape,
                        magnitude.dtype)
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
    x = _floating(x)
    # TF's Householder norms overflow (|x| ~ 1e20 in float32: R of -inf and
    # NaNs) or underflow (|x| ~ 1e-25: R not triangularised) where LAPACK's
    # scaled norms do not: each matrix is scaled by a power of two near its
    # largest magnitude (exact), and R scaled back.
    size = tf.reduce_max(tf.math.abs(x), axis=[-2, -1], keepdims=True)
    usable = tf.math.is_finite(size) & (size > 0)
    exponent = tf.math.floor(tf.math.log(tf.cast(tf.where(usable, size, 1), tf.float64))
                             / math.log(2.0))
    scale = tf.cast(tf.math.pow(tf.constant(2.0, tf.float64), exponent),
                    x.dtype.real_dtype)
    q, r = tf.linalg.qr(_scaled(x, scale, tf.math.divide),
                        full_matrices=mode == "complete")
    return q, _scaled(r, scale, tf.math.multiply)


def _scaled(x: Tensor, scale: Tensor, op: Any) -> Tensor:
    """``op(x, scale)`` part by part for complex ``x`` (a complex division by
    ``scale`` would square it, which overflows).
    """
    if x.dtype.is_complex:
        return tf.complex(op(tf.math.real(x), scale), op(tf.math.imag(x), scale))
    return op(x, scale)


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


_ORDS = ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


def matrix_norm(x: Tensor, /, *, keepdims: bool = False, ord: Any = "fro") -> Tensor:
    if ord is None:  # the default (the standard's Optional; numpy's reading)
        ord = "fro"
    x = _floating(x)
    magnitude = tf.math.abs(x)
    if x.shape.num_elements() == 0 and ord in _ORDS:  # (TF's largest of nothing:
        return tf.zeros(norm_of_nothing(  # -inf)
            "matrix_norm", tuple(x.shape), keepdims=keepdims, ord=ord).shape,
            magnitude.dtype)
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
