"""What every group module of TensorFlow's namespace shares: the array type, the
defaults the inspection API reports, dtype tests, and the standard's promotion.

Operands of two dtypes are cast to the standard's promoted dtype (unitensor's own
table, ``_dtypes.promote`` and ``with_scalar``) before TF's same-dtype ops run;
axes are checked and normalised here, once, for every function that takes them.
"""

from __future__ import annotations

import builtins
import types
from collections.abc import Callable, Sequence
from typing import Any

import tensorflow as tf

from ...._dtypes import DType, promote, with_scalar
from ..interop import _TO_TF, NATIVE_DTYPES, constant

# TF's eager tensor type (the fast paths' results): made outside any graph, as this
# module may first be imported while tf.function traces, where a constant is a
# SymbolicTensor (every later eager result then missed the C fast path's check)
with tf.init_scope():
    ARRAY = type(tf.constant(0))
Tensor = Any  # a tf.Tensor (eager); TF's own type stubs are too loose to help

# The defaults the inspection API reports, and what asarray of Python data makes.
DEFAULT_FLOAT, DEFAULT_COMPLEX, DEFAULT_INT, INDEX = (
    tf.float64, tf.complex128, tf.int64, tf.int64)

# The one namespace object: filled by the package's ``__init__`` once every group
# module is imported; read at call time by the functions built on another one
# (``log2`` and ``log10`` on ``log`` with the standard's complex special cases).
NAMESPACE = types.SimpleNamespace()


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
    return [_axis(a, ndim) for a in items]


def _axis(axis: int, ndim: int) -> int:
    """One axis of ``ndim`` as a non-negative one; ValueError for an axis out of
    range (``axis % ndim`` alone read 5 of a 2-d array as 1: a sort along
    another axis, silently).
    """
    if not -builtins.max(ndim, 1) <= axis < builtins.max(ndim, 1):
        raise ValueError(f"axis {axis} is out of range for {ndim} dimensions")
    return axis % ndim if ndim else axis


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


def fast_op(op: str, public: Callable[..., Tensor], *attrs: Any
            ) -> Callable[..., Tensor]:
    """TF's op ``op`` (with its ``attrs``, name-value pairs) on tensors of one
    dtype through TF's C fast path (``tf.math.add`` is ~5x its cost here: the
    public functions' dispatch decorators, weak-tensor and op wrappers), else
    (symbolic tensors, a dtype without a kernel, any refusal) TF's public
    function ``public``, which raises TF's own exceptions.
    """
    if _EXECUTE is None:
        return public
    execute, context = _EXECUTE, _CONTEXT.context

    def function(*operands: Tensor) -> Tensor:
        try:
            return execute(context(), op, None, *operands, *attrs)
        except Exception:
            return public(*operands)
    function.__name__ = public.__name__
    return function

