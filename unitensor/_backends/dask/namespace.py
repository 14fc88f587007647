"""dask's Array API namespace (array-api-compat's) and the fixes of its deviations.

Every function builds a graph and computes nothing. Where dask cannot know a
size before computing (after a boolean mask, ``unique_*``, ``nonzero``), the
result's shape holds None; a function that needs that size is refused naming
itself and dask (:func:`needs_known_shape`).
"""

from __future__ import annotations

import functools
import math
import operator
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
from .._common import refuse_empty_reduction
from ..numpy.interop import numpy_dtype
from ..numpy.namespace import FIXES as NUMPY_FIXES
from . import linalg
from .interop import NATIVE_DTYPES, held, materialise
from .interop import shape as sizes
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
        sized(name, names, args, kwargs)  # chunks paired by true sizes (shapes.py)
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


def _integer_array(k: Any) -> bool:
    return isinstance(k, (da.Array, np.ndarray)) and k.dtype.kind in "iu"


def _broadcast(key: tuple[Any, ...]) -> tuple[int, ...]:
    """The shape the arrays of a key broadcast to; refused as numpy refuses (an
    IndexError; dask's is a ValueError, or a failure once computed).
    """
    arrays = [k for k in key if isinstance(k, (da.Array, np.ndarray))]
    lazy = [k for k in arrays if isinstance(k, da.Array) and unknown(k)]
    if lazy:  # (indices from a lazy nonzero)
        raise needs_known_shape("__getitem__", "key", lazy[0])
    try:
        return np.broadcast_shapes(*(k.shape for k in arrays))
    except ValueError:
        raise arg_error(IndexError, "__getitem__", "key", "index arrays whose "
                        "shapes broadcast together", "shapes " + ", ".join(
                            str(tuple(k.shape)) for k in arrays)) from None


def _gather(x: da.Array, key: tuple[Any, ...]) -> da.Array:
    """``x[key]`` for a key of integers and integer arrays, one per axis (the
    standard's integer-array indexing, which dask takes for one array only):
    the broadcast indices made one flat index into ``x.reshape(-1)``, lazily.
    """
    shape = _broadcast(key)
    empty = [a for a, n in enumerate(x.shape) if n == 0]
    if empty and 0 not in shape:
        # every index is out of bounds; known now, where dask's lazy check
        # would come too late (its reshape of the empty x fails first)
        raise arg_error(IndexError, "__getitem__", "key", f"no index along axis "
                        f"{empty[0]} (of size 0)", f"indices of shape {shape}")
    if empty:  # nothing selected (dask's reshape of the empty x fails)
        return da.empty(shape, dtype=x.dtype)
    flat: Any = 0
    stride = 1
    for k, n in zip(reversed(key), reversed(x.shape), strict=True):
        if isinstance(k, (da.Array, np.ndarray)):
            k = k.astype(np.int64)
        # in bounds (_index checked them): negative indices count from the end
        flat = flat + (k % max(n, 1)) * stride
        stride *= n
    flat = da.broadcast_to(da.asarray(flat), shape).reshape(-1)
    return x.reshape(-1)[flat].reshape(shape)


def _in_bounds(k: np.ndarray, /, *, n: int, axis: int, func: str,
               arg: str) -> np.ndarray:
    """Indices (of one chunk) refused, as numpy refuses them, where one is outside
    an axis of size ``n``: dask's gathers wrap them silently.
    """
    if k.size and (k.min() < -n or k.max() >= n):
        bad = k[(k < -n) | (k >= n)].flat[0]
        accepted = (f"indices from {-n} to {n - 1} along axis {axis} (of size {n})"
                    if n else f"no index along axis {axis} (of size 0)")
        raise arg_error(IndexError, func, arg, accepted, f"index {bad}")
    return k


def _within(k: Any, n: float, axis: int, func: str = "__getitem__",
            arg: str = "key") -> Any:
    """Integer indices of an axis of size ``n`` checked: now where they are known
    (ints, numpy arrays), when computed where they are dask arrays.
    """
    if n != n or isinstance(k, bool):  # a size dask knows only once computed
        return k
    if n == 0 and isinstance(k, da.Array) and k.size > 0:
        # every index is out of bounds, a dask array's too: known now
        raise arg_error(IndexError, func, arg, f"no index along axis {axis} (of "
                        "size 0)", f"indices of shape {tuple(map(int, k.shape))}")
    check = functools.partial(_in_bounds, n=int(n), axis=axis, func=func, arg=arg)
    if isinstance(k, (int, np.integer)):
        check(np.asarray(k))
    elif isinstance(k, np.ndarray) and k.dtype.kind in "iu":
        check(k)
    elif isinstance(k, da.Array) and k.dtype.kind in "iu":
        # named, with its meta, so that dask neither hashes nor tries the check
        return da.map_blocks(check, k, dtype=k.dtype, meta=k._meta,
                             name=f"in-bounds-{func}-{axis}-{int(n)}-{k.name}")
    return k


def _span(k: Any) -> int:
    """How many of x's axes a key's part indexes: a mask its dimensions (a
    Python bool, a 0-d mask, none).
    """
    if k is None or k is Ellipsis or isinstance(k, (bool, np.bool_)):
        return 0
    return k.ndim if getattr(k, "dtype", None) == np.bool_ else 1


def _key_axes(x: da.Array, parts: tuple[Any, ...]) -> list[int | None]:
    """The (first) axis of ``x`` each part of a key indexes: None for None and
    ..., past the last axis for a part too many.
    """
    used = sum(map(_span, parts))
    axis, axes = 0, []
    for k in parts:
        axes.append(None if k is None or k is Ellipsis else axis)
        axis += x.ndim - used if k is Ellipsis else _span(k)
    return axes


def _checked(x: da.Array, parts: tuple[Any, ...], func: str = "__getitem__"
             ) -> tuple[Any, ...]:
    """A key checked against x when built, as numpy checks it: the number of axes
    it indexes, the dtype of its arrays, each mask's shape against the axes it
    covers (dask fails on these with raw messages, or not at all), and each
    integer index against its axis (lazily for a dask array).
    """
    if sum(k is Ellipsis for k in parts) > 1:
        raise arg_error(IndexError, func, "key", "at most one ...",
                        f"({', '.join(map(_kind, parts))})")
    axes = _key_axes(x, parts)
    for k, a in zip(parts, axes, strict=True):
        if isinstance(k, (da.Array, np.ndarray)) and k.dtype.kind not in "biu":
            raise arg_error(IndexError, func, "key", "integer or boolean index "
                            "arrays", f"an array of dtype {k.dtype}")
        if a is not None and getattr(k, "dtype", None) == np.bool_:
            _mask_fits(x, k, a, func)
    used = sum(map(_span, parts))
    if used > x.ndim:
        raise arg_error(IndexError, func, "key", f"at most {x.ndim} indices (a "
                        "mask counting its dimensions, None and ... none) for an "
                        f"array of shape {shape_text(x)}", f"{used}: "
                        f"({', '.join(map(_kind, parts))})")
    return tuple(_within(k, x.shape[a], a, func)
                 if a is not None and a < x.ndim
                 and getattr(k, "dtype", None) != np.bool_ else k
                 for k, a in zip(parts, axes, strict=True))


def _mask_fits(x: da.Array, mask: Any, axis: int, func: str = "__getitem__"
               ) -> None:
    """A mask's shape checked against the axes of x it covers, from ``axis``: a
    size 0 where x's axis has another selects nothing (numpy's rule, which the
    official suite expects); a size dask knows only once computed (NaN, equal to
    nothing) is not checked, as dask does not check it.
    """
    covered = x.shape[axis:axis + mask.ndim]
    if mask.ndim > len(covered) or any(
            k != n and k != 0 and k == k and n == n
            for k, n in zip(mask.shape, covered, strict=False)):
        where = "x's leading axes" if axis == 0 else f"x's axes from {axis}"
        raise arg_error(IndexError, func, "key", "a boolean mask of shape "
                        f"{sizes(x)[axis:axis + mask.ndim]} ({where})",
                        f"one of shape {sizes(mask)}")


def _bound(v: Any) -> Any:
    """A slice bound as dask takes it: an int (a 0-d integer array's value)."""
    if isinstance(v, da.Array):  # computed as any read computes (its errors noted)
        return operator.index(materialise(v))
    return v if v is None or type(v) is int else operator.index(v)


def _mask(x: da.Array, mask: da.Array) -> da.Array:
    """``x[mask]`` for a boolean mask of x's leading axes, of any number of them
    (dask takes masks of one or all axes): the masked axes made one. An empty mask
    gives a known size, 0, where dask would say it knows it only once computed.
    """
    _mask_fits(x, mask, 0)
    if mask.ndim > 1 and (unknown(mask) or unknown(x)):
        # dask masks several axes of unknown sizes block by block, out of numpy's
        # order (it warns), or cannot (a reshape): refused, as dask knows no order
        raise needs_known_shape("__getitem__", *(("key", mask) if unknown(mask)
                                                 else ("x", x)))
    if mask.ndim == 1 and (unknown(mask) or x.shape[0] != x.shape[0]) and not (
            x.name in mask.dask.layers or mask.name in x.dask.layers):
        # dask lines a mask's chunks up with x's by their count, and can do so
        # only where both have one unknown chunking (m[m > 5]: the mask made from
        # x, or x from it); another one fails once computed (two masks' results)
        raise needs_known_shape("__getitem__", *(("key", mask) if unknown(mask)
                                                 else ("x", x)))
    rest = x.shape[mask.ndim:]
    if mask.size == 0:
        return da.empty((0, *rest), dtype=x.dtype)
    if mask.ndim == 0:  # a new axis of size 1 or 0
        return x[None][mask[None]]
    if mask.ndim == x.ndim or mask.ndim == 1:
        return x[mask]
    return _merge_axes(x, 0, mask.ndim)[mask.reshape(-1)]


def _merge_axes(x: da.Array, at: int, n: int) -> da.Array:
    """``x`` with its ``n`` axes from ``at`` made one (C order: numpy's order of
    masked elements); an empty ``x`` as an empty array of that shape (dask's
    reshape of one fails: 'division by zero', 'reduce() of empty iterable').
    """
    shape = (*x.shape[:at], math.prod(x.shape[at:at + n]), *x.shape[at + n:])
    return x.reshape(shape) if x.size else da.empty(shape, dtype=x.dtype)


def _mask_merged(x: da.Array, parts: tuple[Any, ...], mask: Any) -> da.Array:
    """``x[key]`` for a key of one mask of several axes among other parts (dask
    takes such a mask alone, of all axes): the axes it covers merged into one,
    and the mask with them, into a mask of one axis, which dask takes wherever it
    stands (numpy's order of the masked elements is the merged axis' order).
    """
    if unknown(mask) or unknown(x):  # as _mask refuses it
        raise needs_known_shape("__getitem__", *(("key", mask) if unknown(mask)
                                                 else ("x", x)))
    at = next(a for p, a in zip(parts, _key_axes(x, parts), strict=True)
              if p is mask)
    assert at is not None  # (a mask's axis)
    x = _merge_axes(x, at, mask.ndim)
    # a mask of size 0 selects none (dask's reshape of it fails)
    flat = mask.reshape(-1) if mask.size else da.zeros(x.shape[at], dtype=bool)
    return _index(x, tuple(flat if p is mask else p for p in parts))


def _is_0d(k: Any, kinds: str) -> bool:
    return (isinstance(k, (da.Array, np.ndarray)) and k.ndim == 0
            and k.dtype.kind in kinds)


def _scalar_bools(x: da.Array, parts: tuple[Any, ...]) -> da.Array:
    """``x[key]`` for a key holding bools among ints, slices, None and ..., which
    numpy reads as 0-d masks (dask reads a Python bool as the int 1 or 0): numpy's
    advanced indexing of 0-d indices, the bools and ints together giving one axis
    of size 1, or 0 where a bool is False (known only once computed for a 0-d
    dask mask), where the first of them is when they are adjacent, else first.
    """
    is_bool = [isinstance(k, (bool, np.bool_)) or _is_0d(k, "b") for k in parts]
    is_int = [not b and (isinstance(k, (int, np.integer)) or _is_0d(k, "iu"))
              for k, b in zip(parts, is_bool, strict=True)]
    if any(isinstance(k, (da.Array, np.ndarray, list)) and not (b or i)
           for k, b, i in zip(parts, is_bool, is_int, strict=True)):
        # numpy broadcasts the bools against the arrays: not done here
        raise arg_error(IndexError, "__getitem__", "key", "a bool only among "
                        "ints, slices, None and ... (dask owner)",
                        "a bool together with an array")
    result = _index(x, tuple(k for k, b in zip(parts, is_bool, strict=True) if not b))
    used = sum(is_int) + sum(type(k) is slice for k in parts)
    # the result's axes each part gives: none for a bool or an int
    spans = [x.ndim - used if k is Ellipsis else 0 if b or i else 1
             for k, b, i in zip(parts, is_bool, is_int, strict=True)]
    where = [j for j, n in enumerate(spans) if n == 0 and parts[j] is not Ellipsis]
    first, last = where[0], where[-1]
    at = 0 if any(spans[first:last + 1]) else sum(spans[:first])
    result = _new_axes(result, [at])
    before = (slice(None),) * at
    masks = [k for k, b in zip(parts, is_bool, strict=True) if b]
    if not all(m for m in masks if not isinstance(m, da.Array)):
        return result[(*before, slice(0, 0))]
    lazy = [m for m in masks if isinstance(m, da.Array)]
    if lazy:  # a size known once computed, as for any mask
        return result[(*before, functools.reduce(operator.and_, lazy)[None])]
    return result


def _kind(k: Any) -> str:
    """A key's part named, for a refusal of the key."""
    if isinstance(k, (da.Array, np.ndarray)):
        return f"an array of {k.ndim} dimension(s)" if k.ndim else "a 0-d array"
    return "..." if k is Ellipsis else repr(k) if k is None else type(k).__name__


def _one_array(x: da.Array, parts: tuple[Any, ...], k: Any) -> da.Array:
    """``x[key]`` for a key of one array ``k`` (a mask, or integer indices of any
    dimensions) among slices, ... and None (checked): ``k`` applied alone (integer
    indices flattened, their axis then reshaped to theirs), then the new axes put
    where numpy puts them (one array: its axes stay where it is).
    """
    rest = tuple(p for p in parts if p is not None)
    mask = k.dtype == np.bool_
    if mask and rest[0] is k:  # a leading mask of any number of axes: _mask's
        result = _mask(x, k)
        result = result[(slice(None), *rest[1:])] if len(rest) > 1 else result
    elif mask:
        result = x[rest]
    else:
        result = x[tuple(p.reshape(-1) if p is k else p for p in rest)]
    used = sum(type(p) is slice for p in parts) + (k.ndim if mask else 1)
    axes, dims, new = 0, 0, []  # the result's axes so far, with and without None
    for p in parts:
        if p is None:
            new.append(axes)
        elif p is k and not mask and k.ndim != 1:
            result = result.reshape(result.shape[:dims] + k.shape
                                    + result.shape[dims + 1:])
        n = (1 if p is None or type(p) is slice else x.ndim - used
             if p is Ellipsis else 1 if mask else k.ndim)
        axes, dims = axes + n, dims + (p is not None) * n
    return _new_axes(result, new) if new else result


def _new_axes(x: da.Array, at: list[int]) -> da.Array:
    """``x`` with new axes of size 1 at ``at`` (of the result), by indexing with
    None: da.expand_dims reshapes, which fails on a size known once computed.
    """
    ndim = x.ndim + len(at)
    return x[tuple(None if i in at else slice(None) for i in range(ndim))]


def _known(k: Any) -> Any:
    """A key's integer array or 0-d bool whose values are in memory already (a
    numpy array or scalar arrives as a dask array over them) as numpy's, so that
    their bounds are checked, and a 0-d mask's size known, when built. Masks of
    one or more dimensions stay dask's: their size is known once computed, as
    the docs say of any mask.
    """
    values = held(k) if isinstance(k, da.Array) else None
    if values is None or values.dtype.kind not in "biu":
        return k
    if values.ndim == 0:
        return bool(values) if values.dtype == np.bool_ else operator.index(values)
    return k if values.dtype == np.bool_ else values


def _lists_as_arrays(key: Any) -> Any:
    """A key's lists as the index arrays numpy reads them as (dask indexes each
    list on its own axis, an outer product, where numpy broadcasts them).
    """
    if type(key) is list:
        return np.asarray(key)
    if type(key) is tuple and any(type(k) is list for k in key):
        return tuple(np.asarray(k) if type(k) is list else k for k in key)
    return key


def _masks_as_indices(parts: tuple[Any, ...]) -> tuple[Any, ...]:
    """A mask beside other arrays as its integer indices, which numpy broadcasts
    with the others (dask would index each on its own axis: an outer product).
    A lazy mask is computed for them, as ``repeat``'s counts are (its graph's
    errors noted, as any read's).
    """
    found: list[Any] = []
    for k in parts:
        if isinstance(k, (da.Array, np.ndarray)) and k.ndim and k.dtype == np.bool_:
            values = materialise(k) if isinstance(k, da.Array) else k
            found.extend(np.nonzero(values))
        else:
            found.append(k)
    return tuple(found)


def _index(x: da.Array, key: Any) -> da.Array:
    key = _lists_as_arrays(key)
    parts = tuple(map(_known, key if type(key) is tuple else (key,)))
    if any(isinstance(k, (bool, np.bool_)) or (len(parts) > 1 and _is_0d(k, "b"))
           for k in parts):  # (one 0-d mask alone: _mask's)
        return _scalar_bools(x, parts)
    if any(type(k) is slice for k in parts):
        parts = tuple(slice(_bound(k.start), _bound(k.stop), _bound(k.step))
                      if type(k) is slice else k for k in parts)
    parts = _checked(x, parts)  # (a mask's shape before it becomes indices)
    if sum(isinstance(k, (da.Array, np.ndarray)) and k.ndim > 0 for k in parts) > 1:
        parts = _masks_as_indices(parts)
        _broadcast(parts)
    wide = [k for k in parts if getattr(k, "dtype", None) == np.bool_ and k.ndim > 1]
    if wide and len(parts) > 1:  # (one mask alone: _mask's)
        return _mask_merged(x, parts, wide[0])
    if len(parts) > 1 and any(k is None for k in parts):
        # a 0-d integer index beside None (a numpy int arrives as one): dask
        # fails on it (an AssertionError); its value, computed as a slice
        # bound's is
        parts = tuple(_bound(k) if _is_0d(k, "iu") else k for k in parts)
    key = parts if type(key) is tuple else parts[0]
    if len(parts) == 1 and isinstance(parts[0], da.Array):
        k = parts[0]
        if k.dtype == np.bool_:
            return _mask(x, k)
        if k.ndim == 0 and k.dtype.kind in "iu":  # one 0-d index: an int's result
            return x[k[None]][0]
    if (len(parts) == x.ndim and any(map(_integer_array, parts))
            and (sum(map(_integer_array, parts)) > 1
                 or any(_integer_array(k) and k.ndim != 1 for k in parts))
            and all(_integer_array(k) or isinstance(k, (int, np.integer))
                    for k in parts)):
        return _gather(x, parts)
    arrays = [k for k in parts if isinstance(k, (da.Array, np.ndarray)) and k.ndim]
    if arrays and (any(k is None for k in parts) or any(
            _integer_array(k) and k.ndim != 1 for k in arrays)):
        # dask takes these keys for one 1-D array without None only (else it
        # fails, at times once computed): one array among slices, ... and None
        # taken apart; the others refused
        if len(arrays) > 1 or any(isinstance(k, (int, np.integer)) or (
                isinstance(k, (da.Array, np.ndarray)) and not k.ndim) for k in parts):
            raise arg_error(IndexError, "__getitem__", "key", "None, or integer "
                            "indices of other than 1 dimension, with one array "
                            "among slices and ... only (dask owner)",
                            f"({', '.join(map(_kind, parts))})")
        return _one_array(x, parts, arrays[0])
    if len(arrays) == 1 and _separated(parts):
        return _advanced_first(x, key, parts, arrays[0])
    if len(arrays) > 1:  # dask: "Don't yet support nd fancy indexing"
        raise arg_error(IndexError, "__getitem__", "key", "integer arrays on every "
                        "axis (with ints), or one array among slices, ... and ints "
                        "(dask owner)", f"({', '.join(map(_kind, parts))})")
    return x[key]


def _advanced(k: Any) -> bool:
    """Whether a key's part is an advanced index beside an array (an int too)."""
    return isinstance(k, (int, np.integer, da.Array, np.ndarray)) and not isinstance(
        k, (bool, np.bool_))


def _separated(parts: tuple[Any, ...]) -> bool:
    """Whether a slice or ... lies between the key's advanced indices."""
    at = [i for i, k in enumerate(parts) if _advanced(k)]
    return any(type(k) is slice or k is Ellipsis for k in parts[at[0]:at[-1]])


def _advanced_first(x: da.Array, key: Any, parts: tuple[Any, ...],
                    k: Any) -> da.Array:
    """``x[key]`` for one array ``k`` and ints that a slice or ... separates: numpy
    puts the dimensions of the advanced indices first, dask leaves the array's
    where it is (it reads the ints as basic indices): moved to the front.
    """
    mask = k.dtype == np.bool_
    n = 1 if mask else k.ndim
    used = sum(type(p) is slice or (_advanced(p) and p is not k) for p in parts
               ) + (k.ndim if mask else 1)
    at = 0
    for p in parts:
        if p is k:
            break
        at += 1 if type(p) is slice else x.ndim - used if p is Ellipsis else 0
    result = x[key]
    return da.moveaxis(result, list(range(at, at + n)), list(range(n)))


def _getitem(x: da.Array, key: Any) -> da.Array:
    return adapt("__getitem__", _index)(x, key)


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
    known = _known(indices)  # (a 0-d index stays an array, as take's result)
    indices = _within(known if isinstance(known, np.ndarray) else indices, n,
                      0 if axis is None else axis % x.ndim, "take", "indices")
    return compat.take(x, indices, **({} if axis is None else {"axis": axis}))


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
        counts = materialise(repeats).reshape(-1)
        if counts.size != 1:
            index = np.repeat(np.arange(x.shape[axis]), counts)
            return (da.take(x, index, axis=axis) if index.size else
                    _empty_along(x, axis))
        repeats = int(counts[0])
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
    """
    own = getattr(compat, name)

    def run(x: da.Array, /, *, axis: Any = None, **kwargs: Any) -> Any:
        refuse_empty_reduction(name, x.shape, axis)
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


FIXES: dict[str, Callable[..., Any]] = {
    **linalg.FIXES,
    "__getitem__": _getitem,
    "eye": _eye,
    **{name: _of_something(name) for name in ("max", "min", "argmax", "argmin")},
    "linspace": _linspace,
    "floor_divide": _per_chunk("floor_divide", "f"),
    "expm1": _per_chunk("expm1", "c"),
    "tanh": _per_chunk("tanh", "c"),
    "repeat": _repeat,
    "roll": _roll,
    "searchsorted": _searchsorted,
    "unique_values": _unique_values,
    "unique_counts": _unique_counts,
    "unique_inverse": _unique_inverse,
    "unique_all": _unique_all,
    "std": _moment("std"),
    "var": _moment("var"),
    "cumulative_sum": _cumulative("cumulative_sum"),
    "cumulative_prod": _cumulative("cumulative_prod"),
    "tensordot": _tensordot,
    "linalg.tensordot": _tensordot,
    "linalg.matrix_power": _matrix_power,
    "linalg.cross": _cross,
    "take": _take,
    "take_along_axis": _take_along_axis,
}


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


def setitem(x: da.Array, key: object, value: Any, /) -> da.Array:
    """dask's ``x[key] = value`` replaces ``x``'s graph in the array object, which
    other Tensors may share: written into a new array object (a graph over ``x``),
    to which the Tensor is rebound. The key is first made one dask's assignment
    writes as numpy does (docs/dask.md, "Indexing").
    """
    updated = da.Array(x.dask, x.name, x.chunks, meta=x._meta)
    key = _lists_as_arrays(key)
    # numpy ints and 0-d integer arrays as ints: dask assigns through none
    parts = tuple(_bound(k) if _is_0d(k, "iu") else k
                  for k in map(_known, key if type(key) is tuple else (key,)))
    if any(_is_0d(k, "b") for k in parts):  # (a numpy one is a bool by now)
        raise arg_error(IndexError, "__setitem__", "key", "a Python, numpy or no "
                        "0-d bool (dask owner: a dask one's size is known once "
                        "computed)", f"({', '.join(map(_kind, parts))})")
    parts = _mask_values(parts, value)
    target = _selection(x, parts)
    if any(k is False for k in parts) or 0 in target:
        # nothing written (dask refuses any value there, even of the right shape)
        _broadcasts(value, target)
        return updated
    # out-of-bounds indices refused: dask drops those writes silently
    parts = _checked(x, parts, "__setitem__")
    plain = tuple(k for k in parts if k is not None and k is not True)
    arrays = [k for k in plain if isinstance(k, (da.Array, np.ndarray)) and k.ndim]
    if len(arrays) > 1 or any(k.ndim != 1 for k in arrays if k.dtype != np.bool_) or (
            any(k.ndim > 1 for k in arrays) and (len(plain) > 1 or arrays[0].ndim
                                                 != x.ndim)):
        # dask: "at most one dimension's assignment index being a 1-d array",
        # or "Incorrect shape ... of integer indices"
        raise arg_error(IndexError, "__setitem__", "key", "one integer array of "
                        "one dimension or mask of one axis among ints, slices, "
                        "None and ..., or a mask of all axes alone (dask owner)",
                        f"({', '.join(map(_kind, parts))})")
    if arrays and _separated(plain):
        # numpy's order of the advanced dimensions, which dask's assignment
        # does not follow: refused rather than written elsewhere
        raise arg_error(IndexError, "__setitem__", "key", "ints and an array "
                        "that no slice or ... separates (dask owner)",
                        f"({', '.join(map(_kind, parts))})")
    if (arrays or any(type(k) is slice and (k.step or 1) < 0 for k in plain)) and any(
            isinstance(k, (int, np.integer)) for k in plain):
        # an int beside an array: dask writes the value's first element
        # everywhere; beside a slice of negative step dask fails ('tuple index
        # out of range'): as a slice of one (the same elements, in the same order)
        plain = tuple(slice(k % x.shape[a], k % x.shape[a] + 1)
                      if isinstance(k, (int, np.integer)) else k
                      for k, a in zip(plain, _key_axes(x, plain), strict=True))
    if np.ndim(value) and (len(plain) != len(parts) or any(
            p is not k for p, k in zip(plain, parts, strict=True))):
        # None, True and ints made slices change only axes of size 1: the value
        # given the written elements' shape under the key dask writes
        value = _reshaped(value, target, _index(x, plain).shape)
    updated[plain if len(plain) != 1 else plain[0]] = value  # ((m2d,): dask fails)
    return updated


def _selection(x: da.Array, parts: tuple[Any, ...]) -> tuple[float, ...]:
    """The shape numpy gives ``x[key]``: what ``x[key] = value`` writes; a key
    getitem refuses refused as setitem's.
    """
    try:
        return _index(x, parts).shape
    except IndexError as exc:
        head, _, rest = str(exc).partition("(): ")
        if head != "__getitem__":
            raise
        raise IndexError(f"__setitem__(): {rest}") from None


def _mask_values(parts: tuple[Any, ...], value: Any) -> tuple[Any, ...]:
    """A key's mask, where the value is an array: dask writes such a value
    through a mask of one axis only, and only one of the mask's size, where
    numpy broadcasts it to the elements selected: a mask whose values are in
    memory made its indices; any other refused.
    """
    if not np.ndim(value):
        return parts
    found = []
    for k in parts:
        if isinstance(k, (da.Array, np.ndarray)) and k.dtype == np.bool_:
            values = held(k) if isinstance(k, da.Array) else k
            if values is None or values.ndim != 1:
                raise arg_error(IndexError, "__setitem__", "key", "a mask of one "
                                "axis whose values are in memory (a numpy array),"
                                " or a scalar value, where the value is an array "
                                "(dask owner)", f"a mask of {k.ndim} dimension(s)"
                                + (" of dask's" if values is None else ""))
            k = np.nonzero(values)[0]
        found.append(k)
    return tuple(found)


def _broadcasts(value: Any, target: tuple[float, ...]) -> None:
    """A value refused, as numpy refuses it, where it does not broadcast to the
    shape of the elements written.
    """
    if any(n != n for n in target):  # (a size known once computed: dask's check)
        return
    try:
        np.broadcast_shapes(np.shape(value), tuple(map(int, target)))
    except ValueError:
        raise arg_error(ValueError, "__setitem__", "value", "a value that "
                        f"broadcasts to the written elements' shape "
                        f"{sizes(da.empty(target))}", f"shape {sizes(value)}"
                        ) from None


def _reshaped(value: Any, target: tuple[float, ...],
              written: tuple[float, ...]) -> Any:
    """``value`` broadcast to ``target`` and reshaped to ``written`` (the same
    elements, axes of size 1 aside); refused where a size is known once computed.
    """
    if any(n != n for n in target):
        raise arg_error(IndexError, "__setitem__", "key", "None, True or ints "
                        "beside a mask only with a scalar value (dask owner: the "
                        "selection's size is known once computed)",
                        f"a value of shape {sizes(value)}")
    _broadcasts(value, target)
    return da.broadcast_to(value, target).reshape(written)


def error_type(exc: Exception, /) -> type[Exception]:
    return standard_type(exc)
