"""dask's Array API namespace (array-api-compat's) and the fixes of its deviations.

Every function builds a graph and computes nothing. Where dask cannot know a
size before computing (after a boolean mask, ``unique_*``, ``nonzero``), the
result's shape holds None; a function that needs that size is refused naming
itself and dask (:func:`needs_known_shape`). Indexing (``x[key]``,
``x[key] = value``, the bounds of ``take``'s indices) is the engine in
:mod:`.indexing`.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from typing import Any

import array_api_compat.dask.array as _compat
import dask.array as da
import numpy as np
from dask.array.core import normalize_chunks
from dask.highlevelgraph import HighLevelGraph

from ..._device import CPU, Device
from ..._dtypes import DType
from ..._errors import arg_error, describe, from_computing, is_ours, standard_type
from ..._standard import FUNCTIONS
from .._fixes import (
    check_repeats,
    outer_of_vectors,
    refuse_empty_reduction,
    refuse_negative_powers,
)
from ..numpy.interop import numpy_dtype
from ..numpy.namespace import FIXES as NUMPY_FIXES
from . import indexing, linalg
from .interop import NATIVE_DTYPES, materialise
from .shapes import needs_known_shape, shape_text, sized, unknown

ARRAY = da.Array
compat: Any = _compat  # array-api-compat's dask namespace (untyped for mypy)


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
            if unknown(item):
                return arg, item
    for arg, value in kwargs.items():
        if unknown(value):
            return arg, value
    return None


def adapt(name: str, func: Callable[..., Any], /) -> Callable[..., Any]:
    """``func`` with dask's refusals for lack of a known size said as such."""
    names = _POSITIONAL.get(name) or ("x",)

    @functools.wraps(func)
    def call(*args: Any, **kwargs: Any) -> Any:
        args, kwargs = sized(name, names, args, kwargs)  # by true sizes (shapes.py)
        try:
            result = func(*args, **kwargs)
        except Exception as exc:
            # ours, and errors of a graph computed here, pass on unchanged
            found = (None if is_ours(exc) or from_computing(exc)
                     else _unknown_argument(name, args, kwargs))
            if found is None:
                raise
            # an axis that is not x's is the mistake, not x's unknown size
            if kwargs.get("axis") is not None and args and isinstance(
                    args[0], da.Array):
                _axes(name, args[0], kwargs["axis"])
            raise needs_known_shape(name, *found) from exc
        if isinstance(result, da.Array) and any(n < 0 for n in result.shape):
            # dask builds arrays of negative sizes (ones(-1), irfftn of one
            # element) that fail only once computed
            raise arg_error(ValueError, name, names[0], "sizes that are not "
                            "negative", f"arguments giving shape {result.shape}")
        return result
    return call


def _axes(name: str, x: da.Array, axis: Any) -> tuple[int, ...]:
    """``axis`` (None, an int or a tuple of ints) as x's axes; refused as the
    numpy owner refuses (an axis out of range, or repeated), when built: dask
    refuses some only once computed, or as a size it does not know.
    """
    items = tuple(range(x.ndim)) if axis is None else axis if type(
        axis) is tuple else (axis,)
    for item in items:
        if type(item) is not int:
            raise arg_error(TypeError, name, "axis", "an int, a tuple of ints or "
                            "None", describe(axis))
        if not -x.ndim <= item < x.ndim:
            raise arg_error(ValueError, name, "axis", f"an axis in [{-x.ndim}, "
                            f"{x.ndim - 1}] for an array of shape {shape_text(x)}",
                            str(item))
    if len({item % x.ndim for item in items}) < len(items):
        raise arg_error(ValueError, name, "axis", "axes that are not repeated",
                        str(axis))
    return items


def _getitem(x: da.Array, key: Any) -> da.Array:
    return adapt("__getitem__", indexing.index)(x, key)


# -- what dask.array.linalg lacks ---------------------------------------------------
def _matrix_power(x: da.Array, n: int, /) -> da.Array:
    """By repeated squaring with dask's chunked matmul (inv first for n < 0)."""
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise arg_error(ValueError, "linalg.matrix_power", "x", "a stack of square "
                        "matrices", f"shape {shape_text(x)}")
    if n < 0:
        x, n = linalg.inv(x), -n
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
    _axes("take_along_axis", x, axis)  # (refused, not wrapped by % below)
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


def _take(x: da.Array, indices: Any, /, *, axis: int | None = None) -> da.Array:
    """Out-of-bounds indices refused (dask's take wraps them)."""
    if axis is None and x.ndim > 1:  # the standard's rule (dask flattens)
        raise arg_error(ValueError, "take", "axis", f"an axis for an array of "
                        f"{x.ndim} dimensions", "None")
    n = x.shape[0 if axis is None else axis] if x.ndim else 0
    if n != n and isinstance(indices, da.Array) and indices.ndim == 1:
        return _take_along_unknown(x, indices, 0 if axis is None else axis % x.ndim)
    known = indexing.known(indices)  # (a 0-d index stays an array, as take's result)
    indices = indexing.within(known if isinstance(known, np.ndarray) else indices, n,
                      0 if axis is None else axis % x.ndim, "take", "indices")
    return compat.take(x, indices, **({} if axis is None else {"axis": axis}))


def _take_along_unknown(x: da.Array, indices: da.Array, axis: int) -> da.Array:
    """take() along an axis whose size is known only once computed (dask's take
    needs it): each chunk of ``indices`` takes from the whole axis (its chunks
    concatenated in the task), its bounds checked then, as numpy checks them.
    """
    x_axes = tuple(x.ndim if a == axis else a for a in range(x.ndim))
    out_axes = tuple(x.ndim + 1 if a == axis else a for a in range(x.ndim))
    return da.blockwise(_take_block, out_axes, x, x_axes, indices, (x.ndim + 1,),
                        axis=axis, concatenate=True, dtype=x.dtype, meta=x._meta)


def _take_block(x: np.ndarray, indices: np.ndarray, axis: int) -> np.ndarray:
    n = x.shape[axis]
    return np.take(x, indexing.in_bounds(indices, n=n, axis=axis, func="take",
                                         arg="indices"), axis=axis)


def _one_chunk_along(x: da.Array, axis: int) -> da.Array:
    """``x`` with ``axis`` in one chunk where a size is known only once computed
    (dask's rechunk needs the sizes): one task per chunk of the other axes
    concatenates that axis's chunks.
    """
    name = f"one-chunk-along-{axis}-{x.name}"
    grid = [range(n) if a != axis else range(1) for a, n in enumerate(x.numblocks)]
    layer: dict[Any, Any] = {(name, *at): (np.concatenate, [
        (x.name, *at[:axis], j, *at[axis + 1:]) for j in range(x.numblocks[axis])],
        axis) for at in itertools.product(*grid)}
    parts: list[Any] = [x]  # (dask's stubs: an Array is no DaskCollection)
    graph = HighLevelGraph.from_collections(name, layer, dependencies=parts)
    chunks = tuple((sum(c),) if a == axis else c for a, c in enumerate(x.chunks))
    return da.Array(graph, name, chunks, meta=x._meta)


def _sorting(name: str) -> Callable[..., Any]:
    """sort/argsort: the sorted axis made one chunk (array-api-compat's), also where
    a size is known only once computed (after a mask): sorting needs the whole
    axis, not its size (compat's rechunk needs every size).
    """
    def run(x: da.Array, /, *, axis: int = -1, **kwargs: Any) -> da.Array:
        # (array-api-compat's reads axis % ndim: -3 of a 2-d array as 1)
        _axes(name, x, axis)
        if type(axis) is int and x.numblocks[axis] > 1 and unknown(x):
            x = _one_chunk_along(x, axis % x.ndim)
        return getattr(compat, name)(x, axis=axis, **kwargs)
    return run


def _eye(n_rows: int, n_cols: int | None = None, /, *, k: int = 0,
         dtype: Any = None, device: Any = None) -> da.Array:
    """dask's eye takes one chunk size for both axes and builds a graph missing
    blocks where n_cols > n_rows (and divides by zero for an empty one): the
    chunk size given here is one both axes hold, at most dask's 'auto' size.
    """
    n_cols = n_rows if n_cols is None else n_cols
    dtype = np.float64 if dtype is None else dtype
    if n_rows == 0 or n_cols == 0:
        return da.zeros((n_rows, n_cols), dtype=dtype)
    rows, cols = normalize_chunks("auto", (n_rows, n_cols), dtype=np.dtype(dtype))
    return da.eye(n_rows, M=n_cols, k=k, dtype=dtype,
                  chunks=min(rows[0], cols[0]))


def _empty_along(x: da.Array, axis: int) -> da.Array:
    return x[(slice(None),) * axis + (slice(0, 0),)]


def _repeat(x: da.Array, repeats: Any, /, *, axis: int | None = None) -> da.Array:
    """dask repeats along one axis only (axis=None: the flattened array here), an
    int number of times; no repeat of nothing (an empty result is a slice here).
    An array of repeats (one per element) is a gather of x along the axis.
    """
    if axis is None:
        x, axis = x.reshape(-1), 0
    axis = axis % x.ndim if x.ndim else axis
    if isinstance(repeats, da.Array):
        # the result's size is the repeats' sum: they are computed (one pass over
        # their graph, not x's), so that the result has a known shape
        # (as any read computes: an error in their graph reaches the user noted)
        counts = materialise(repeats)
        check_repeats(counts.ndim, bool((counts < 0).any()))
        counts = counts.reshape(-1)
        if counts.size != 1:
            index = np.repeat(np.arange(x.shape[axis]), counts)
            return (da.take(x, index, axis=axis) if index.size else
                    _empty_along(x, axis))
        repeats = int(counts[0])
    else:
        check_repeats(0, repeats < 0)
    if x.shape[axis] * repeats == 0:
        return _empty_along(x, axis)
    return da.repeat(x, repeats, axis=axis)


def _roll(x: da.Array, shift: Any, /, *, axis: Any = None) -> da.Array:
    """An empty array rolls to itself (dask's roll reshapes it and fails)."""
    if x.size == 0:
        return x
    return compat.roll(x, shift, axis=axis)


def _searchsorted(x1: da.Array, x2: Any, /, *, side: str = "left",
                  sorter: da.Array | None = None) -> da.Array:
    """x2 a Python scalar (2025.12) or a 0-d array (dask's searchsorted takes
    neither); an empty x1 or x2 (dask returns a wrongly shaped block).
    """
    # checked when built, as numpy checks them when called (dask: once computed)
    if type(side) is not str or side not in ("left", "right"):
        raise arg_error(TypeError if type(side) is not str else ValueError,
                        "searchsorted", "side", "'left' or 'right'", describe(side))
    if x1.ndim != 1:
        raise arg_error(ValueError, "searchsorted", "x1", "a 1-D array",
                        f"an array of shape {shape_text(x1)}")
    if sorter is not None:
        x1 = x1[sorter]
    if not isinstance(x2, da.Array):
        if type(x2) not in (bool, int, float, complex):
            raise arg_error(TypeError, "searchsorted", "x2", "an array or a Python "
                            "scalar", f"{type(x2).__name__}")
        x2 = da.from_array(np.asarray(x2, dtype=x1.dtype), chunks=())
    if x2.ndim == 0:
        return _searchsorted(x1, x2[None], side=side)[0]
    if unknown(x1):
        # dask adds to each chunk's answer the sizes of the chunks before it, NaN
        # here (a float NaN answer): x1 in one piece against each chunk of x2
        axes = tuple(range(x2.ndim))
        return da.blockwise(functools.partial(np.searchsorted, side=side), axes,
                            x1, (x2.ndim,), x2, axes, concatenate=True,
                            dtype=np.intp)
    if x1.size == 0 or x2.size == 0:
        return da.zeros(x2.shape, dtype=np.int64, chunks=x2.chunks)
    return compat.searchsorted(x1, x2, side=side)


# -- unique_*: each NaN a value of its own (dask's unique merges them) ----------------
def _distinct(values: np.ndarray, indices: np.ndarray,
              counts: np.ndarray | None = None) -> np.ndarray:
    """The distinct values of one chunk (or of chunks' tables concatenated), as
    numpy's unique_all finds them: sorted, each NaN distinct; each with its first
    index and its count, in one structured array (a table dask carries as one).
    """
    found, inverse = np.unique(values, return_inverse=True, equal_nan=False)
    inverse = inverse.reshape(-1)
    table = np.empty(found.shape, [("values", values.dtype), ("indices", np.intp),
                                   ("counts", np.intp)])
    table["values"] = found
    table["indices"] = np.iinfo(np.intp).max
    np.minimum.at(table["indices"], inverse, indices)
    table["counts"] = 0
    np.add.at(table["counts"], inverse, 1 if counts is None else counts)
    return table


def _merged(tables: list[np.ndarray]) -> np.ndarray:
    table = np.concatenate(tables)
    return _distinct(table["values"], table["indices"], table["counts"])


def _inverse_block(block: np.ndarray, positions: np.ndarray,
                   table: np.ndarray) -> np.ndarray:
    """Each element's place in the table: by value, or for a NaN (equal to
    nothing) by its position, the index the table holds for it.
    """
    values, indices = table["values"], table["indices"]
    nan = values != values
    numbers = values[~nan]  # sorted: numpy puts NaNs last
    inverse = np.searchsorted(numbers, block).astype(np.intp)
    missing = block != block
    order = np.argsort(indices[nan])
    places = np.searchsorted(indices[nan][order], positions[missing])
    inverse[missing] = numbers.size + order[places]
    return inverse


def _unique_table(name: str, x: da.Array) -> tuple[da.Array, da.Array]:
    """x flattened, and its table of distinct values (one task merges the chunks'
    tables, as dask's unique does).
    """
    # dask cannot reshape an empty array of several axes
    flat = x.reshape(-1) if x.size != 0 else da.empty(0, dtype=x.dtype)
    if unknown(flat):
        if name in ("unique_all", "unique_inverse"):  # positions unknown
            raise needs_known_shape(name, "x", x)
        positions = flat.map_blocks(np.zeros_like, dtype=np.intp)
    else:
        positions = da.arange(flat.shape[0], chunks=flat.chunks, dtype=np.intp)
    meta = _distinct(np.empty(0, x.dtype), np.empty(0, np.intp))
    tables = da.blockwise(_distinct, "i", flat, "i", positions, "i", meta=meta,
                          adjust_chunks={"i": lambda n: np.nan})
    key = f"unique-table-{tables.name}"
    graph = HighLevelGraph.from_collections(
        key, {(key, 0): (_merged, tables.__dask_keys__())}, dependencies=[tables])
    return flat, da.Array(graph, key, ((np.nan,),), meta=meta)


def _unique_values(x: da.Array, /) -> da.Array:
    return _unique_table("unique_values", x)[1]["values"]


def _unique_counts(x: da.Array, /) -> Any:
    table = _unique_table("unique_counts", x)[1]
    return table["values"], table["counts"]


def _inverse(x: da.Array, flat: da.Array, table: da.Array) -> da.Array:
    positions = da.arange(flat.shape[0], chunks=flat.chunks, dtype=np.intp)
    return da.blockwise(_inverse_block, "i", flat, "i", positions, "i", table,
                        "j", concatenate=True, dtype=np.intp).reshape(x.shape)


def _unique_inverse(x: da.Array, /) -> Any:
    flat, table = _unique_table("unique_inverse", x)
    return table["values"], _inverse(x, flat, table)


def _unique_all(x: da.Array, /) -> Any:
    flat, table = _unique_table("unique_all", x)
    return (table["values"], table["indices"], _inverse(x, flat, table),
            table["counts"])


def _linspace(start: Any, stop: Any, /, num: int, *, endpoint: bool = True,
              **kwargs: Any) -> da.Array:
    """dask's last value is start + (num - 1) * step, which rounds: stop itself
    here, as numpy gives it.
    """
    result = compat.linspace(start, stop, num, endpoint=endpoint, **kwargs)
    if not endpoint or num < 2:
        return result
    last = da.full((1,), stop, dtype=result.dtype)
    return da.concatenate([result[:-1], last])


def _per_chunk(name: str, kinds: str) -> Callable[..., Any]:
    """numpy's fixed elementwise function (the standard's special cases, with
    numpy's warnings about them silenced where the values are computed) run on
    each chunk, for the dtype kinds it fixes; array-api-compat's for the others.
    """
    numpy_func, own = NUMPY_FIXES[name], getattr(compat, name)

    def run(*args: Any) -> Any:
        if not any(a.dtype.kind in kinds for a in args if isinstance(a, da.Array)):
            return own(*args)
        return da.core.elemwise(numpy_func, *args)
    return run


def _of_something(name: str) -> Callable[..., Any]:
    """max, min, argmax, argmin: refused, as numpy refuses, where a reduced axis
    is empty (dask builds the graph, and numpy's refusal came only once computed).
    Where only a kept axis is empty (min of a (0, 2) array along its last axis) the
    result is empty, as numpy's: dask reduced its empty chunk and failed when
    computed ("zero-size array to reduction operation minimum").
    """
    own = getattr(compat, name)

    def run(x: da.Array, /, *, axis: Any = None, **kwargs: Any) -> Any:
        refuse_empty_reduction(name, x.shape, axis)
        if 0 in x.shape:
            # numpy gives the empty result's shape and dtype (no element is read)
            empty = getattr(np, name)(np.empty(x.shape, x.dtype), axis=axis, **kwargs)
            return da.from_array(empty)
        return own(x, axis=axis, **kwargs)
    return run


def _moment(name: str) -> Callable[..., Any]:
    """std, var: dask's one-pass moments of an empty chunk are NaN (0 / 0), which
    its tree reduction carries into the result (after a boolean mask, chunks may
    be empty). Where a reduced axis may hold an empty chunk: two passes of sums
    (a mean, then the squared deviations), which empty chunks leave alone.
    """
    own = getattr(compat, name)

    def run(x: da.Array, /, *, axis: Any = None, correction: float = 0.0,
            keepdims: bool = False) -> da.Array:
        axes = _axes(name, x, axis)
        if not any(n != n or n == 0 for a in axes for n in x.chunks[a]):
            return own(x, axis=axis, correction=correction, keepdims=keepdims)
        squares = abs(x - da.mean(x, axis=axis, keepdims=True)) ** 2
        ones = da.map_blocks(np.ones_like, squares, meta=squares._meta,
                             name=f"ones-{squares.name}")  # named: not hashed
        count = da.sum(ones, axis=axis, keepdims=keepdims)
        # numpy's divisor: never below 0 (0 / 0 is NaN, as numpy's var of nothing)
        divisor = da.maximum(count - correction, 0)
        var = da.sum(squares, axis=axis, keepdims=keepdims) / divisor
        return da.sqrt(var) if name == "std" else var
    return run


def _cumulative(name: str) -> Callable[..., Any]:
    """cumulative_sum, cumulative_prod: dask's default (sequential) scan carries
    each chunk's last value into the next, which fails once computed where a chunk
    is empty (after a mask: a broadcast of shapes (0,) and (n,)) or of unknown size
    along another axis. There, dask's Blelloch scan, which carries each chunk's
    total (the identity for an empty chunk) and reads no chunk size.
    """
    own = getattr(compat, name)

    def run(x: da.Array, /, **kwargs: Any) -> da.Array:
        if any(n != n or n == 0 for c in x.chunks for n in c):
            kwargs["method"] = "blelloch"
        return own(x, **kwargs)
    return run


def _tensordot(x1: da.Array, x2: da.Array, /, *, axes: Any = 2) -> da.Array:
    """dask sums its partial products with numpy's sum, which widens small
    integers (int8 to int64): the result cast back to the operands' type.
    """
    result = compat.tensordot(x1, x2, axes=axes)
    return result.astype(np.result_type(x1.dtype, x2.dtype), copy=False)


def _one_chunk_fft(name: str, many: bool) -> Callable[..., Any]:
    """fft functions: dask transforms only along an axis in one chunk (it refuses
    any other), so the axes transformed are rechunked to one chunk first, as
    ``take_along_axis`` rechunks its axis; the other axes keep their chunks.
    ``many``: the n-dimensional ones (``axes``; None: the last ``len(s)`` axes
    where ``s`` is given, else every axis, as the standard says: dask's own
    took the first ``len(s)``, a result of another shape, so they are passed).
    """
    own = getattr(compat.fft, name)

    @functools.wraps(own)
    def transform(x: da.Array, /, *args: Any, **kwargs: Any) -> Any:
        if isinstance(x, da.Array) and x.ndim:
            if many:
                axes = kwargs.get("axes")
                s = kwargs.get("s", args[0] if args else None)
                if axes is None:
                    axes = range(x.ndim) if s is None else range(-len(s), 0)
                    if s is not None and 0 < len(s) <= x.ndim:
                        kwargs["axes"] = tuple(axes)
            else:
                axes = (kwargs.get("axis", -1),)
            try:
                x = x.rechunk({a % x.ndim: -1 for a in axes})
            except (TypeError, ValueError):
                pass  # a bad axis: dask's own refusal names it
        return own(x, *args, **kwargs)
    return transform


def _reshape(x: da.Array, /, shape: tuple[int, ...], *,
             copy: bool | None = None) -> da.Array:
    """dask's arrays never change: ``copy`` asks nothing of dask (whether the
    result is a view of ``x`` is _views.py's decision; array-api-compat's
    ``copy=False`` set a dask array's shape, which dask refuses). An empty array
    is one chunk first: dask's reshape of an empty array of several chunks
    along an axis (``diagonal``'s of a chunked array) raised a TypeError of its
    own (``reduce() of empty iterable``; dask 2026.8) where numpy reshapes it.
    """
    if 0 in x.shape:  # (known sizes only: NaN is no 0)
        x = x.rechunk(-1)
    return compat.reshape(x, shape)


def _mean(x: da.Array, /, **kwargs: Any) -> da.Array:
    """numpy sums float16 in float32 for its mean: dask's float16 sum overflows
    (the mean of 60000 and 60000 was inf).
    """
    if x.dtype == np.float16:
        return compat.mean(x.astype(np.float32), **kwargs).astype(np.float16)
    return compat.mean(x, **kwargs)


FIXES: dict[str, Callable[..., Any]] = {
    **{f"fft.{name}": _one_chunk_fft(name, name.endswith("n"))
       for name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn",
                    "ifftn", "rfftn", "irfftn")},
    **linalg.FIXES,
    "__getitem__": _getitem,
    "eye": _eye,
    **{name: _of_something(name) for name in ("max", "min", "argmax", "argmin")},
    "linspace": _linspace,
    "floor_divide": _per_chunk("floor_divide", "fiu"),
    "remainder": _per_chunk("remainder", "iu"),
    # (a dask exponent's values are known once computed: numpy refuses then)
    "pow": refuse_negative_powers(compat, compat.pow, lambda x: False),
    "expm1": _per_chunk("expm1", "c"),
    "tanh": _per_chunk("tanh", "c"),
    "repeat": _repeat,
    "roll": _roll,
    "searchsorted": _searchsorted,
    "unique_values": _unique_values,
    "unique_counts": _unique_counts,
    "unique_inverse": _unique_inverse,
    "unique_all": _unique_all,
    "mean": _mean,
    "std": _moment("std"),
    "var": _moment("var"),
    "cumulative_sum": _cumulative("cumulative_sum"),
    "cumulative_prod": _cumulative("cumulative_prod"),
    "tensordot": _tensordot,
    "reshape": _reshape,
    "linalg.tensordot": _tensordot,
    "linalg.matrix_power": _matrix_power,
    "linalg.cross": _cross,
    "linalg.outer": outer_of_vectors(compat.linalg.outer),
    "take": _take,
    "take_along_axis": _take_along_axis,
    "sort": _sorting("sort"),
    "argsort": _sorting("argsort"),
}


# x[key] = value: the indexing engine's (the adapter's member, _adapter.Namespace)
setitem = indexing.setitem


def complex_of(real: da.Array, imag: da.Array, /) -> da.Array:
    """The parts placed into complex chunks by numpy (dask has no complex())."""
    dtype = np.result_type(real.dtype, np.complex64)
    return da.map_blocks(_complex_chunk, real, imag, dtype=dtype)


def _complex_chunk(real: np.ndarray, imag: np.ndarray) -> np.ndarray:
    made = np.empty(np.broadcast_shapes(real.shape, imag.shape),
                    np.result_type(real.dtype, np.complex64))
    made.real, made.imag = real, imag
    return made


def namespace() -> object:
    return compat


def result(value: object) -> da.Array:
    """A dask array from any other result (a numpy scalar, a Python number)."""
    return da.from_array(np.asarray(value), chunks=(), name=False)


def native_dtype(dtype: DType) -> np.dtype:
    return numpy_dtype(dtype)


def dtype_from_native(native_dtype: Any) -> DType | None:
    """array-api-compat's dask inspection answers numpy's scalar types (np.bool)
    where numpy's own answers dtypes: both read as the dtype.
    """
    try:
        return NATIVE_DTYPES.get(np.dtype(native_dtype))
    except TypeError:
        return None


def native_device(device: Device) -> str:
    if device != CPU:
        raise arg_error(ValueError, "dask", "device", "cpu (dask arrays of numpy "
                        "chunks live in CPU memory)", repr(str(device)))
    return "cpu"


def device_from_native(native_device: object) -> Device:
    return CPU



def error_type(exc: Exception, /) -> type[Exception]:
    return standard_type(exc)
