"""dask's Array API namespace (array-api-compat's) and the fixes of its deviations.

Every function builds a graph and computes nothing. Where dask cannot know a
size before computing (after a boolean mask, ``unique_*``, ``nonzero``), the
result's shape holds None; a function that needs that size is refused naming
itself and dask (:func:`needs_known_shape`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import array_api_compat.dask.array as _compat
import dask.array as da
import numpy as np

from ..._device import CPU, Device
from ..._dtypes import DType
from ..._errors import arg_error, is_ours, standard_type
from ..._standard import FUNCTIONS
from ..numpy.interop import numpy_dtype

ARRAY = da.Array
compat: Any = _compat  # array-api-compat's dask namespace (untyped for mypy)



# -- sizes known only once computed ---------------------------------------------------
def _unknown(x: Any) -> bool:
    return isinstance(x, da.Array) and any(n != n for n in x.shape)


def _shape_text(x: da.Array) -> str:
    return str(tuple(None if n != n else n for n in x.shape))


def needs_known_shape(func: str, arg: str, x: da.Array) -> ValueError:
    """The refusal of a function that needs a size dask knows only once computed."""
    return arg_error(ValueError, func, arg, "an array of known shape (dask knows a "
                     "size that depends on the data, after a boolean mask, unique_* "
                     "or nonzero, only once computed: ut.asarray(x.numpy()), or "
                     "x.native.compute_chunk_sizes() first)",
                     f"an array of shape {_shape_text(x)}")


# the standard's positional parameters of each function, to name the one at fault
_POSITIONAL = {(f"{row.group}.{row.name}" if row.group in ("linalg", "fft")
                else row.name): tuple(
    p.strip().partition("=")[0].lstrip("*")
    for p in row.signature.partition("*,")[0].split(",") if p.strip() not in ("", "/"))
    for row in FUNCTIONS}


def _unknown_argument(name: str, args: tuple[Any, ...],
                      kwargs: dict[str, Any]) -> tuple[str, da.Array] | None:
    """The first argument of unknown shape (or holding one), with its name."""
    names = _POSITIONAL.get(name, ())
    for i, value in enumerate(args):
        arg = names[min(i, len(names) - 1)] if names else "x"
        items = value if isinstance(value, (list, tuple)) else (value,)
        for item in items:
            if _unknown(item):
                return arg, item
    for arg, value in kwargs.items():
        if _unknown(value):
            return arg, value
    return None


def adapt(name: str, func: Callable[..., Any], /) -> Callable[..., Any]:
    """``func`` with dask's refusals for lack of a known size said as such."""
    @functools.wraps(func)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except Exception as exc:
            found = None if is_ours(exc) else _unknown_argument(name, args, kwargs)
            if found is None:
                raise
            raise needs_known_shape(name, *found) from exc
    return call


def _getitem(x: da.Array, key: Any) -> da.Array:
    return adapt("__getitem__", lambda x, key: x[key])(x, key)


# -- what dask.array.linalg lacks ---------------------------------------------------
def _per_matrix(name: str, numpy_func: Callable[..., Any], n_out: int = 1,
                complex_result: bool = False) -> Callable[..., Any]:
    """``linalg.<name>`` computed by numpy on each chunk of a stack of matrices:
    chunked over the stack's axes; each matrix must be one chunk (dask has no
    out-of-core algorithm for it: refused naming dask). ``n_out``: the results
    (slogdet, eigh, eig: 2); ``complex_result``: complex whatever the values
    (eig, eigvals, where numpy returns real arrays for real eigenvalues).
    """
    func = f"linalg.{name}"

    def run(x: da.Array, /, **kwargs: Any) -> Any:
        if x.ndim < 2:
            raise arg_error(ValueError, func, "x", "an array of at least two "
                            "dimensions", f"shape {_shape_text(x)}")
        if _unknown(x):
            raise needs_known_shape(func, "x", x)
        if len(x.chunks[-1]) > 1 or len(x.chunks[-2]) > 1:
            raise arg_error(ValueError, func, "x", "matrices each held in one chunk "
                            f"(dask has no out-of-core algorithm for {func}: "
                            "x.native.rechunk({-2: -1, -1: -1}) makes them so, if "
                            "a matrix fits in memory)",
                            f"chunks {x.chunks[-2:]} along the matrix axes")
        probe = numpy_func(np.eye(2, dtype=x.dtype)[None], **kwargs)
        probes = tuple(probe) if n_out > 1 else (probe,)
        results = []
        for i, p in enumerate(probes):
            dtype = np.result_type(p.dtype, np.complex64) if complex_result \
                else p.dtype
            dropped = 3 - p.ndim  # the probe's input had 3 dimensions
            # pinv of an (m, n) matrix is (n, m); the others keep or drop axes
            chunks = ((*x.chunks[:-2], (x.shape[-1],), (x.shape[-2],))
                      if name == "pinv" else None)
            results.append(da.map_blocks(
                _block, x, numpy_func, i if n_out > 1 else None, dtype, kwargs,
                dtype=dtype, chunks=chunks,
                drop_axis=tuple(range(x.ndim - dropped, x.ndim)),
                meta=np.empty((0,) * (x.ndim - dropped), dtype)))
        return tuple(results) if n_out > 1 else results[0]
    return run


def _block(b: np.ndarray, func: Callable[..., Any], item: int | None,
           dtype: np.dtype, kwargs: dict[str, Any]) -> np.ndarray:
    result = func(b, **kwargs)
    return np.asarray(result if item is None else result[item], dtype=dtype)


def _chunked_2d(name: str, numpy_func: Callable[..., Any],
                n_out: int = 1) -> Callable[..., Any]:
    """dask's chunked algorithm for one matrix (dask.array.linalg takes only 2-D
    arrays); a stack of matrices per matrix (:func:`_per_matrix`).
    """
    chunked = getattr(compat.linalg, name)
    stacked = _per_matrix(name, numpy_func, n_out)

    def run(x: da.Array, /, **kwargs: Any) -> Any:
        return chunked(x, **kwargs) if x.ndim == 2 else stacked(x, **kwargs)
    return run


def _matrix_power(x: da.Array, n: int, /) -> da.Array:
    """By repeated squaring with dask's chunked matmul (inv first for n < 0)."""
    if n < 0:
        x, n = _inv(x), -n
    if n == 0:
        eye = da.eye(x.shape[-1], dtype=x.dtype, chunks=max(x.chunks[-1]))
        return da.broadcast_to(eye, x.shape)
    result: da.Array | None = None
    power = x
    while n:
        if n & 1:
            result = power if result is None else compat.matmul(result, power)
        n >>= 1
        if n:
            power = compat.matmul(power, power)
    assert result is not None  # n > 0 here
    return result


def _cross(x1: da.Array, x2: da.Array, /, *, axis: int = -1) -> da.Array:
    """Elementwise from the components (chunked like the operands)."""
    x1, x2 = da.broadcast_arrays(x1, x2)
    ndim = x1.ndim
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of range for {ndim} dimensions")
    if x1.shape[axis] != 3:
        raise ValueError(f"cross needs size 3 along axis {axis}, got {x1.shape}")
    before = (slice(None),) * (axis % ndim)
    a = [x1[(*before, slice(i, i + 1))] for i in range(3)]
    b = [x2[(*before, slice(i, i + 1))] for i in range(3)]
    return compat.concat([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                          a[0] * b[1] - a[1] * b[0]], axis=axis)


def _take_along_axis(x: da.Array, indices: da.Array, /, *, axis: int = -1) -> da.Array:
    """Chunked over the other axes; ``axis`` itself in one chunk (an index may
    point anywhere along it).
    """
    axis = axis % x.ndim if x.ndim else axis
    x = x.rechunk({axis: -1})
    indices = indices.rechunk({axis: -1})
    shape = np.broadcast_shapes(x.shape[:axis] + x.shape[axis + 1:],
                                indices.shape[:axis] + indices.shape[axis + 1:])
    x = da.broadcast_to(x, (*shape[:axis], x.shape[axis], *shape[axis:]))
    indices = da.broadcast_to(indices, (*shape[:axis], indices.shape[axis],
                                        *shape[axis:]))
    x = x.rechunk({i: c for i, c in enumerate(indices.chunks) if i != axis})
    return da.map_blocks(lambda a, i: np.take_along_axis(a, i, axis), x, indices,
                         dtype=x.dtype, chunks=indices.chunks)


_inv = _chunked_2d("inv", np.linalg.inv)

FIXES: dict[str, Callable[..., Any]] = {
    "linalg.inv": _inv,
    "linalg.cholesky": _chunked_2d("cholesky", np.linalg.cholesky),
    "__getitem__": _getitem,
    "linalg.det": _per_matrix("det", np.linalg.det),
    "linalg.slogdet": _per_matrix("slogdet", np.linalg.slogdet, n_out=2),
    "linalg.eigh": _per_matrix("eigh", np.linalg.eigh, n_out=2),
    "linalg.eigvalsh": _per_matrix("eigvalsh", np.linalg.eigvalsh),
    "linalg.eig": _per_matrix("eig", np.linalg.eig, n_out=2, complex_result=True),
    "linalg.eigvals": _per_matrix("eigvals", np.linalg.eigvals, complex_result=True),
    "linalg.pinv": _per_matrix("pinv", np.linalg.pinv),
    "linalg.matrix_power": _matrix_power,
    "linalg.cross": _cross,
    "take_along_axis": _take_along_axis,
}


def namespace() -> object:
    return compat


def result(value: object) -> da.Array:
    """A dask array from any other result (a numpy scalar, a Python number)."""
    return da.from_array(np.asarray(value), chunks=(), name=False)


def native_dtype(dtype: DType) -> np.dtype:
    return numpy_dtype(dtype)


def native_device(device: Device) -> str:
    if device != CPU:
        raise arg_error(ValueError, "dask", "device", "cpu (dask arrays of numpy "
                        "chunks live in CPU memory)", repr(str(device)))
    return "cpu"


def device_from_native(native_device: object) -> Device:
    return CPU


def setitem(x: da.Array, key: object, value: object, /) -> da.Array:
    """dask's ``x[key] = value`` replaces ``x``'s graph in the array object, which
    other Tensors may share: written into a new array object (a graph over ``x``),
    to which the Tensor is rebound.
    """
    updated = da.Array(x.dask, x.name, x.chunks, meta=x._meta)
    updated[key] = value
    return updated


def error_type(exc: Exception, /) -> type[Exception]:
    return standard_type(exc)
