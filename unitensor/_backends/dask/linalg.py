"""The linalg extension on dask arrays: per matrix over stacks, chunked where dask can.

``dask.array.linalg`` takes 2-D arrays only, and each of its algorithms wants
chunks of a given form (tall-and-skinny for qr and svd, square for cholesky).
Here every function runs in one of two ways:

- each matrix held in one chunk (the common case: a stack of small matrices,
  chunked over the stack's axes): numpy's function on each chunk, lazily
  (``map_blocks``), whatever the number of stack axes;
- one 2-D matrix split across chunks: dask's chunked algorithm, where dask has
  one (inv, cholesky, qr, svd, svdvals, solve); dask refuses chunks its
  algorithm cannot take, and the dispatcher names dask in that refusal.

A stack whose matrices are split across chunks (no chunked algorithm exists
for stacks) and the functions with no chunked algorithm (det, eig, ...) on a
split matrix are refused with a ValueError naming dask and the rechunk that
makes it run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import array_api_compat.dask.array as _compat
import dask.array as da
import numpy as np

from ..._errors import arg_error, refused, standard_type
from .._fixes import norm_of_nothing
from .shapes import needs_known_shape, shape_text, unknown

# array-api-compat's dask namespace (untyped for mypy), imported here as in
# namespace.py, which imports this module
_COMPAT: Any = _compat


def _whole(x: da.Array) -> bool:
    """Whether each matrix of ``x`` (its last two axes) lies in one chunk."""
    return len(x.chunks[-1]) <= 1 and len(x.chunks[-2]) <= 1


def _split(func: str, arg: str, x: da.Array, chunked: bool) -> ValueError:
    hint = ("dask's chunked algorithm takes a 2-D matrix only" if chunked else
            f"dask has no out-of-core algorithm for {func}")
    return arg_error(ValueError, func, arg, f"matrices each held in one chunk ({hint}"
                     ": x.native.rechunk({-2: -1, -1: -1}) makes them so, if a "
                     "matrix fits in memory)",
                     f"chunks {x.chunks[-2:]} along the matrix axes of shape "
                     f"{shape_text(x)}")


def _check(func: str, arg: str, x: da.Array) -> None:
    if x.ndim < 2:
        raise arg_error(ValueError, func, arg, "an array of at least two dimensions",
                        f"shape {shape_text(x)}")
    if unknown(x):
        raise needs_known_shape(func, arg, x)


def _numpy(name: str, func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """numpy's ``func`` on a chunk (in a task); its refusal (a singular matrix)
    said as the numpy owner says it when called, numpy's error its cause.
    """
    try:
        return func(*args, **kwargs)
    except Exception as exc:
        raise refused(exc, standard_type(exc), name, "numpy") from exc


def _block(b: np.ndarray, name: str, func: Callable[..., Any], item: int | None,
           dtype: np.dtype, kwargs: dict[str, Any]) -> np.ndarray:
    result = _numpy(name, func, b, **kwargs)
    return np.asarray(result if item is None else result[item], dtype=dtype)


def per_matrix(func: str, numpy_func: Callable[..., Any], x: da.Array,
               kwargs: dict[str, Any], n_out: int = 1,
               complex_result: bool = False) -> Any:
    """``numpy_func`` on each chunk of a stack whose matrices are each one chunk.

    The results' trailing shapes (a matrix, a vector, a scalar per matrix) come
    from a probe on an identity matrix of the same shape; ``n_out``: how many
    results (qr, eigh, slogdet: 2; svd: 3); ``complex_result``: complex whatever
    the values (eig, eigvals: numpy returns real arrays for real eigenvalues).
    """
    m, n = x.shape[-2:]
    probe = numpy_func(np.eye(m, n, dtype=x.dtype)[None], **kwargs)
    probes = tuple(probe) if n_out > 1 else (probe,)
    batch = x.chunks[:-2]
    results = []
    for i, p in enumerate(probes):
        p = np.asarray(p)
        dtype = np.result_type(p.dtype, np.complex64) if complex_result else p.dtype
        trailing = p.shape[1:]
        dropped = tuple(range(x.ndim - 2 + len(trailing), x.ndim))
        results.append(da.map_blocks(
            _block, x, func, numpy_func, i if n_out > 1 else None, dtype, kwargs,
            dtype=dtype, chunks=(*batch, *((s,) for s in trailing)),
            drop_axis=dropped, meta=np.empty((0,) * (len(batch) + len(trailing)),
                                             dtype)))
    return tuple(results) if n_out > 1 else results[0]


def linalg(name: str, numpy_func: Callable[..., Any], n_out: int = 1, *,
           chunked: Callable[..., Any] | None = None,
           complex_result: bool = False) -> Callable[..., Any]:
    """``linalg.<name>``: per matrix (:func:`per_matrix`) where each matrix is
    one chunk, else ``chunked(x, **kwargs)`` for a 2-D ``x`` (dask's algorithm)
    where there is one; refused otherwise.
    """
    func = f"linalg.{name}"

    def run(x: da.Array, /, **kwargs: Any) -> Any:
        _check(func, "x", x)
        if _whole(x):
            return per_matrix(func, numpy_func, x, kwargs, n_out, complex_result)
        if chunked is not None and x.ndim == 2:
            return chunked(x, **kwargs)
        raise _split(func, "x", x, chunked is not None)
    return run


# -- dask's chunked algorithms for one 2-D matrix, with the standard's dtypes --------
def _inv_chunked(x: da.Array) -> da.Array:
    return da.linalg.inv(x).astype(x.dtype, copy=False)  # dask's is float64


def _cholesky_chunked(x: da.Array, *, upper: bool = False) -> da.Array:
    return da.linalg.cholesky(x, lower=not upper).astype(x.dtype, copy=False)


def _qr_chunked(x: da.Array, *, mode: str = "reduced") -> tuple[da.Array, da.Array]:
    if mode != "reduced":
        raise arg_error(ValueError, "linalg.qr", "mode", "'reduced' for a matrix "
                        "split across chunks (dask's chunked qr)", repr(mode))
    return tuple(da.linalg.qr(x))


def _svd_chunked(x: da.Array, *, full_matrices: bool = True) -> Any:
    if full_matrices:
        raise arg_error(ValueError, "linalg.svd", "full_matrices", "False for a "
                        "matrix split across chunks (dask's chunked svd)",
                        repr(full_matrices))
    return tuple(da.linalg.svd(x, coerce_signs=False))


def _svdvals_chunked(x: da.Array) -> da.Array:
    return da.linalg.svd(x, coerce_signs=False)[1]


inv = linalg("inv", np.linalg.inv, chunked=_inv_chunked)
svdvals = linalg("svdvals", np.linalg.svdvals, chunked=_svdvals_chunked)


def _solve_block(a: np.ndarray, b: np.ndarray, *, dtype_: np.dtype) -> np.ndarray:
    return _numpy("linalg.solve", np.linalg.solve, a, b).astype(dtype_, copy=False)


def solve(x1: da.Array, x2: da.Array, /) -> da.Array:
    """Per matrix over broadcast stacks; dask's chunked lu for two 2-D arrays.

    ``x2`` of one dimension is a vector (the standard's rule); otherwise a stack
    of (M, K) matrices.
    """
    _check("linalg.solve", "x1", x1)
    if unknown(x2):
        raise needs_known_shape("linalg.solve", "x2", x2)
    dtype = np.result_type(x1.dtype, x2.dtype)
    vector = x2.ndim == 1
    if vector:
        x2 = x2[:, None]
    if x1.ndim == 2 and x2.ndim == 2 and not (_whole(x1) and _whole(x2)):
        result = da.linalg.solve(x1, x2).astype(dtype, copy=False)
        return result[:, 0] if vector else result
    if not _whole(x1):
        raise _split("linalg.solve", "x1", x1, True)
    if x1.shape[-1] != x1.shape[-2] or x2.shape[-2] != x1.shape[-1]:
        raise arg_error(ValueError, "linalg.solve", "x2", f"a stack of ({x1.shape[-1]}"
                        ", K) matrices or a vector of that length, for x1 of shape "
                        f"{shape_text(x1)}", f"shape {shape_text(x2)}")
    batch = np.broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    x1 = da.broadcast_to(x1, (*batch, *x1.shape[-2:]))
    x2 = da.broadcast_to(x2, (*batch, *x2.shape[-2:])).rechunk({-2: -1})
    # x2's columns stay chunked (each a separate right-hand side), its stack
    # axes take x1's chunks (blockwise unifies them)
    axes = "".join(chr(ord("a") + i) for i in range(len(batch)))
    result = da.blockwise(_solve_block, axes + "mk", x1, axes + "mn", x2, axes + "nk",
                          dtype=dtype, concatenate=True,
                          meta=np.empty((0,) * x2.ndim, dtype),
                          dtype_=dtype)
    return result[..., 0] if vector else result


def matrix_rank(x: da.Array, /, *, rtol: Any = None) -> da.Array:
    """Singular values above ``rtol`` times the largest, per matrix (lazy)."""
    _check("linalg.matrix_rank", "x", x)
    s = svdvals(x)
    if rtol is None:
        rtol = max(x.shape[-2:]) * np.finfo(s.dtype).eps
    elif isinstance(rtol, da.Array) and rtol.ndim:
        rtol = rtol[..., None]
    if s.shape[-1] == 0:  # matrices with no rows or no columns: rank 0
        return da.zeros(s.shape[:-1], dtype=np.int64)
    return da.count_nonzero(s > s.max(axis=-1, keepdims=True) * rtol, axis=-1)


def matrix_norm(x: da.Array, /, *, keepdims: bool = False,
                ord: Any = "fro") -> da.Array:
    """The singular-value norms (2, -2, 'nuc') from :func:`svdvals` per matrix;
    the others by array-api-compat's dask namespace (sums and maxima, chunked).
    """
    if _no_element(x):  # (array-api-compat's inf norm of a (0, 0) matrix: shape
        # (0,); its other norms of nothing refuse)
        return da.from_array(norm_of_nothing("matrix_norm", x.shape, x.dtype,
                                             keepdims=keepdims, ord=ord))
    if not (isinstance(ord, str) and ord == "nuc") and ord not in (2, -2):
        return _COMPAT.linalg.matrix_norm(x, keepdims=keepdims, ord=ord)
    _check("linalg.matrix_norm", "x", x)
    s = svdvals(x)
    result = (s.sum(axis=-1) if ord == "nuc" else
              s.max(axis=-1) if ord == 2 else s.min(axis=-1))
    return result[..., None, None] if keepdims else result


def vector_norm(x: da.Array, /, *, axis: Any = None, keepdims: bool = False,
                ord: Any = 2) -> da.Array:
    """array-api-compat's; of an array of no element, numpy's (dask's reductions
    over nothing refuse).
    """
    if _no_element(x):
        return da.from_array(norm_of_nothing("vector_norm", x.shape, x.dtype,
                                             axis=axis, keepdims=keepdims, ord=ord))
    return _COMPAT.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)


def _no_element(x: da.Array) -> bool:
    """Whether ``x`` has a size of 0, known (not a size dask knows only later)."""
    return all(n == n for n in x.shape) and 0 in x.shape


_pinv = linalg("pinv", np.linalg.pinv)


def _pinv_block(a: np.ndarray, rtol: np.ndarray, *, dtype_: np.dtype) -> np.ndarray:
    return _numpy("linalg.pinv", np.linalg.pinv, a, rtol=rtol).astype(dtype_,
                                                                       copy=False)


def pinv(x: da.Array, /, *, rtol: Any = None) -> da.Array:
    """Per matrix; an array ``rtol`` (one per matrix of the stack, broadcast)
    goes with each chunk of matrices as a chunk of its own.
    """
    if not isinstance(rtol, da.Array):
        return _pinv(x) if rtol is None else _pinv(x, rtol=rtol)
    _check("linalg.pinv", "x", x)
    if not _whole(x):
        raise _split("linalg.pinv", "x", x, False)
    batch = np.broadcast_shapes(x.shape[:-2], rtol.shape)
    x = da.broadcast_to(x, (*batch, *x.shape[-2:]))
    rtol = da.broadcast_to(rtol, batch)
    axes = "".join(chr(ord("a") + i) for i in range(len(batch)))
    return da.blockwise(_pinv_block, axes + "nm", x, axes + "mn", rtol, axes,
                        dtype=x.dtype, meta=np.empty((0,) * x.ndim, x.dtype),
                        dtype_=x.dtype)


FIXES: dict[str, Callable[..., Any]] = {
    "linalg.inv": inv,
    "linalg.cholesky": linalg("cholesky", np.linalg.cholesky,
                              chunked=_cholesky_chunked),
    "linalg.qr": linalg("qr", np.linalg.qr, n_out=2, chunked=_qr_chunked),
    "linalg.svd": linalg("svd", np.linalg.svd, n_out=3, chunked=_svd_chunked),
    "linalg.svdvals": svdvals,
    "linalg.solve": solve,
    "linalg.matrix_rank": matrix_rank,
    "linalg.matrix_norm": matrix_norm,
    "linalg.vector_norm": vector_norm,
    "linalg.det": linalg("det", np.linalg.det),
    "linalg.slogdet": linalg("slogdet", np.linalg.slogdet, n_out=2),
    "linalg.eigh": linalg("eigh", np.linalg.eigh, n_out=2),
    "linalg.eigvalsh": linalg("eigvalsh", np.linalg.eigvalsh),
    "linalg.eig": linalg("eig", np.linalg.eig, n_out=2, complex_result=True),
    "linalg.eigvals": linalg("eigvals", np.linalg.eigvals, complex_result=True),
    "linalg.pinv": pinv,
}
