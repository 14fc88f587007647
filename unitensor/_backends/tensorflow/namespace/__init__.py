"""TensorFlow's Array API namespace, written here against TF's own ops.

TensorFlow has no Array API namespace of its own (``tf.experimental.numpy`` is
not one, and its promotion needs ``experimental_enable_numpy_behavior``, which
changes every TF program in the process: never called here). This package is one:
``namespace()`` returns :data:`NAMESPACE`, whose functions take and return
``tf.Tensor`` (Python scalars where the standard allows them) and compute with
``tf.math``, ``tf.linalg`` and the other TF ops, on the tensors' device.

- One module per group of the standard (``elementwise``, ``creation``,
  ``data_types``, ``manipulation``, ``statistical``, ``utility``, ``searching``,
  ``sorting``, ``sets``, ``linear_algebra``, ``linalg``, ``fft``, ``indexing``,
  ``inspection``), each writing its group's functions; ``_base`` holds what they
  share (promotion, axes, the defaults) and ``_numpy_route`` the detour through
  numpy. This module only assembles them into :data:`NAMESPACE` and holds the
  adapter's members (``_adapter.Namespace``): ``FIXES``, ``SAME_DTYPE``,
  ``result``, the dtype and device translations, ``error_type``.
- Promotion is the standard's, by unitensor's own table (``_dtypes.promote`` and
  ``with_scalar``): operands are cast before TF's same-dtype ops.
- The one- and two-array elementwise functions are made from the standard's table
  (``_standard.FUNCTIONS``) and ``elementwise._UNARY``/``_BINARY`` (name -> TF op);
  the rest are written by hand in their group's module.
- Where TF has no kernel for a dtype (its CPU kernels lack abs/sign/pow on
  unsigned integers, matmul on small integers, ...) and for the functions no
  module writes yet (:data:`NOT_YET`), the call computes in numpy on zero-copy
  views and the result is made a ``tf.Tensor`` again (zero-copy where TF can
  alias numpy's memory): the owner never changes.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _triton_first  # noqa: F401  (triton before TensorFlow)

# isort: split
import tensorflow as tf

from ...._device import Device
from ...._dtypes import DType
from ...._standard import FUNCTIONS
from ..._fixes import (
    COMPLEX_SPECIAL_CASES,
    complex_special_cases_fixed,
    searchsorted_nan_last,
)
from ...numpy import namespace as numpy_namespace
from ..interop import _TO_TF, device_name, device_of_name, no_memory
from . import (
    creation,
    data_types,
    elementwise,
    fft,
    indexing,
    linalg,
    linear_algebra,
    manipulation,
    searching,
    sets,
    sorting,
    statistical,
    utility,
)
from ._base import ARRAY, NAMESPACE, Tensor
from ._numpy_route import (
    _in_xla,
    _not_in_xla,
    _numpy_op,
    _or_numpy,
    from_numpy,
    through_numpy,
    to_numpy,
)
from .elementwise import (
    _BINARY,
    _UNARY,
    _binary_function,
    _isfinite,
    _unary_function,
)
from .inspection import __array_namespace_info__

__all__ = ["ARRAY", "FIXES", "NAMESPACE", "NOT_YET", "SAME_DTYPE", "complex_of",
           "device_from_native", "error_type", "namespace", "native_device",
           "native_dtype", "result", "setitem"]

# The functions written by hand outside linalg and fft, by the module writing them.
_HAND_WRITTEN: dict[str, Callable[..., Any]] = {
    name: getattr(module, name) for module, names in (
        (elementwise, ("clip",)),
        (creation, ("zeros", "ones", "empty", "full", "zeros_like", "ones_like",
                    "empty_like", "full_like", "arange", "linspace", "eye", "tril",
                    "triu", "meshgrid")),
        (data_types, ("astype",)),
        (manipulation, ("reshape", "permute_dims", "expand_dims", "squeeze",
                         "concat", "stack", "flip", "roll", "broadcast_to",
                         "broadcast_arrays", "tile", "repeat", "unstack", "moveaxis",
                         "broadcast_shapes")),
        (statistical, ("sum", "prod", "mean", "std", "var", "min", "max",
                       "cumulative_sum", "cumulative_prod")),
        (utility, ("all", "any", "diff")),
        (searching, ("argmax", "argmin", "where", "nonzero", "count_nonzero",
                     "searchsorted")),
        (sorting, ("sort", "argsort")),
        (linear_algebra, ("matmul", "matrix_transpose", "tensordot", "vecdot")),
        (indexing, ("take", "take_along_axis")),
        (sets, ("unique_all", "unique_counts", "unique_inverse", "unique_values",
                "isin")))
    for name in names}

# The linalg functions written with TF's ops (matmul and its kin are the top-level
# ones, above); the rest compute through numpy.
_LINALG_WRITTEN: dict[str, Callable[..., Any]] = {
    name: getattr(linalg, name) for name in (
        "diagonal", "outer", "trace", "cross", "inv", "det", "cholesky", "eigh",
        "eigvalsh", "svdvals", "matrix_power", "vector_norm", "solve", "qr", "svd",
        "slogdet", "pinv", "matrix_rank", "matrix_norm", "eig", "eigvals")}

getitem, setitem = indexing.getitem, indexing.setitem
complex_of = tf.complex  # (exact: the parts are placed, not added)


def _qualified(group: str, name: str) -> str:
    return f"{group}.{name}" if group in ("linalg", "fft") else name


def _build() -> list[str]:
    """:data:`NAMESPACE` filled: TF functions where written, numpy's (TF-owned
    results) else; the qualified names of the latter.
    """
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
            func = _or_numpy(row.name, _HAND_WRITTEN[row.name])
        elif row.group == "linalg" and row.name in ("matmul", "matrix_transpose",
                                                    "tensordot", "vecdot"):
            func = top[row.name]
        elif row.group == "fft" and row.name in fft.FUNCTIONS:
            func = _or_numpy(qualified, getattr(fft, row.name))
        elif row.group == "linalg" and row.name in _LINALG_WRITTEN:
            func = _or_numpy(qualified, _LINALG_WRITTEN[row.name])
        else:
            func = through_numpy(qualified)
            not_yet.append(qualified)
        (groups[row.group] if row.group in groups else top)[row.name] = func
    vars(NAMESPACE).update(top)
    NAMESPACE.linalg = types.SimpleNamespace(**groups["linalg"])
    NAMESPACE.fft = types.SimpleNamespace(**groups["fft"])
    return not_yet


NOT_YET = _build()
_COMPLEX = frozenset({tf.complex64, tf.complex128})


def _complex_special_cases(name: str) -> Callable[..., Any]:
    """``name`` with the standard's complex special cases (numpy's elements for
    them, ``_fixes.complex_special_cases_fixed``); traced by ``tf.function``,
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
    # For the C fast path (_fastpath.learn): TF's op itself for the dtypes that
    # need none of the above (real floating ones; any dtype where the op takes
    # integers as they are), as torch's and jax's rows have it. A refusal of the
    # op (a missing kernel) sends the call back here, to the numpy detour.
    function.real_path = _UNARY[name]  # type: ignore[attr-defined]
    # (integer inputs never reach it: the dispatcher casts them, _float_loops)
    function.complex_dtypes = _COMPLEX  # type: ignore[attr-defined]
    return function


for _name in COMPLEX_SPECIAL_CASES:
    setattr(NAMESPACE, _name, _complex_special_cases(_name))

# In-place operators (``x += y``) of an immutable owner compute through the fix of
# the operation, so that they promote as the standard says (TF's own ``+=`` is
# TF's ``+``): every two-array elementwise function is one.
FIXES: dict[str, Callable[..., Any]] = {
    name: getattr(NAMESPACE, name) for name in _BINARY}
FIXES["__getitem__"] = getitem
# NaNs where sort puts them (numpy's order), not where TF's search meets them
FIXES["searchsorted"] = searchsorted_nan_last(NAMESPACE,
                                              lambda dtype: dtype.is_floating)

# Two operands of one dtype: TF's own op where it is the standard's already.
SAME_DTYPE: dict[str, Callable[..., Any]] = {
    name: _BINARY[name] for name in (
        "add", "subtract", "multiply", "equal", "not_equal", "less", "less_equal",
        "greater", "greater_equal", "logical_and", "logical_or", "logical_xor")}
SAME_DTYPE["matmul"] = linear_algebra.matmul_same_dtype


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

