"""The standard's linear algebra functions (``matmul``, ``matrix_transpose``,
``tensordot``, ``vecdot``) for TensorFlow.

Operands are promoted first. Small integers, which TF's matmul kernels lack,
compute through numpy (``_numpy_route``), or widened and wrapped back where XLA
compiles the graph (no numpy there).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorflow as tf

from ._base import Tensor, _common, fast_op
from ._numpy_route import _in_xla
from .elementwise import _conj

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


# two matrices: TF's MatMul through its C fast path (what tf.linalg.matmul calls
# after its checks and wrappers)
_MATRICES = fast_op("MatMul", tf.linalg.matmul, "transpose_a", False, "transpose_b",
                    False, "grad_a", False, "grad_b", False)


def matmul_same_dtype(x1: Tensor, x2: Tensor, /) -> Tensor:
    """``matmul`` of two tensors of one dtype (the C fast path's, SAME_DTYPE):
    TF's own where ``matmul`` below would call it with them as they are (any
    dtype with a kernel, two stacks of matrices), without its checks of both
    dtypes; vectors go to ``matmul`` (TF's refusal of them logs to stderr).
    """
    if (x1.dtype in _SMALL_INTEGERS or x1.dtype == tf.bool or x1.ndim < 2
            or x2.ndim < 2):
        return matmul(x1, x2)
    if x1.ndim == 2 and x2.ndim == 2:
        return _MATRICES(x1, x2)
    return tf.linalg.matmul(x1, x2)


def matmul(x1: Tensor, x2: Tensor, /) -> Tensor:
    a, b = _common(x1, x2, "matmul")
    if a.dtype in _SMALL_INTEGERS:
        if _in_xla(a) or _in_xla(b):
            return _widened(matmul, a, b)
        raise tf.errors.NotFoundError(None, None, "no matmul kernel for this dtype")
    if a.dtype == tf.bool:
        return matmul(tf.cast(a, tf.int32), tf.cast(b, tf.int32)) > 0
    if a.ndim == 1 and b.ndim == 1:  # (a product of sums would broadcast)
        return tf.reshape(tf.linalg.matmul(a[None, :], b[:, None]), [])
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
