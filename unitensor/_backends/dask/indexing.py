"""x[key] and x[key] = value on dask arrays as numpy answers them: the indexing
engine of dask's namespace.

The rule: every key gives numpy's result or the standard's refusal, decided when
the graph is built. dask indexes some keys otherwise than numpy (lists and
several arrays as outer products, an int beside an array as a basic index, an
array's dimensions where it stands rather than first) and fails on others only
once computed (out-of-bounds indices, which its ``take`` wraps and its
assignment drops): each such key is rewritten into one dask computes as numpy
would (integer arrays on every axis gathered through one flat index, masks made
indices, axes moved), or refused with an ``IndexError`` naming the key and
``(dask owner)``. Indices and 0-d masks whose values are in memory already are
read as numpy's (bounds checked now); other masks stay dask's, their size known
once computed (docs/dask.md, "Indexing").
"""

from __future__ import annotations

import functools
import math
import operator
from typing import Any

import dask.array as da
import numpy as np

from ..._errors import arg_error, restated
from .interop import held, materialise
from .interop import shape as sizes
from .shapes import needs_known_shape, related, shape_text, unknown


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
        # in bounds (index checked them): negative indices count from the end
        flat = flat + (k % max(n, 1)) * stride
        stride *= n
    flat = da.broadcast_to(da.asarray(flat), shape).reshape(-1)
    return x.reshape(-1)[flat].reshape(shape)


def in_bounds(k: np.ndarray, /, *, n: int, axis: int, func: str,
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


def within(k: Any, n: float, axis: int, func: str = "__getitem__",
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
    check = functools.partial(in_bounds, n=int(n), axis=axis, func=func, arg=arg)
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
    return tuple(within(k, x.shape[a], a, func)
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
    return index(x, tuple(flat if p is mask else p for p in parts))


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
    result = index(x, tuple(k for k, b in zip(parts, is_bool, strict=True) if not b))
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


def known(k: Any) -> Any:
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


def index(x: da.Array, key: Any) -> da.Array:
    key = _lists_as_arrays(key)
    parts = tuple(map(known, key if type(key) is tuple else (key,)))
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
                  for k in map(known, key if type(key) is tuple else (key,)))
    if (len(parts) == 1 and isinstance(parts[0], da.Array) and (np.ndim(value) or
                                                              not x.ndim)
            and parts[0].dtype == np.bool_ and _lined_up(x, parts[0])):
        # (dask writes a scalar through a mask of all axes itself, but for 0-d x)
        return _masked_write(x, parts[0], value)
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
        value = _reshaped(value, target, index(x, plain).shape)
    updated[plain if len(plain) != 1 else plain[0]] = value  # ((m2d,): dask fails)
    return updated


def _lined_up(x: da.Array, mask: da.Array) -> bool:
    """Whether ``mask`` covers all of x's axes, chunk for chunk where a size is
    known only once computed (one axis, the mask made from x: ``m[m > 0]``).
    """
    if not unknown(x) and not unknown(mask):
        return mask.shape == x.shape
    return (x.ndim == mask.ndim == 1 and mask.numblocks == x.numblocks
            and related(x, mask))


def _masked_write(x: da.Array, mask: da.Array, value: Any) -> da.Array:
    """``x[mask] = value``, a dask mask of all of x's axes and a value array, as
    numpy writes it, lazily: the value's elements go, in order, to the places
    the mask selects (each place's rank among them a cumulative sum of the mask
    in C order), or its one element to all of them. The value is one axis (a
    size numpy checks against the mask's count, known once computed: checked
    then) or of one element; each chunk's task is given the whole value (dask
    cannot split it by counts it knows only once computed).
    """
    if not isinstance(value, da.Array):  # a Python scalar, or numpy's
        value = da.from_array(np.asarray(value, dtype=x.dtype), chunks=-1)
    shape = sizes(value)
    if len(shape) > 1:  # numpy's rule: a mask selects along one axis
        raise arg_error(TypeError, "__setitem__", "value", "a value of 0 or 1 "
                        "dimension where the key is a mask", f"shape {shape}")
    value = value.reshape(-1) if not shape else value  # (a scalar: one element)
    values = held(mask)
    if values is not None and shape and shape[0] is not None:  # checked now
        _fits(shape[0], int(np.count_nonzero(values)))
    flat = mask.reshape(-1) if mask.ndim != 1 else mask  # (dask: not of size None)
    # dask's Blelloch scan: its default one fails on empty or unknown chunks
    ranks = da.cumsum(flat.astype(np.intp), axis=0, method="blelloch") - 1
    ranks = ranks.reshape(mask.shape) if mask.ndim != 1 else ranks
    count = da.sum(flat.astype(np.intp))
    index = tuple(range(x.ndim))
    if not unknown(x):  # (else lined up chunk for chunk: _lined_up)
        mask, ranks = mask.rechunk(x.chunks), ranks.rechunk(x.chunks)
    return da.blockwise(_write_block, index, x, index, mask, index, ranks, index,
                        value, (x.ndim,), count, (), concatenate=True,
                        dtype=x.dtype, meta=x._meta)


def _write_block(block: np.ndarray, mask: np.ndarray, ranks: np.ndarray,
                 value: np.ndarray, count: np.ndarray) -> np.ndarray:
    """One chunk of ``_masked_write``: numpy's check of the value's size, then
    the chunk with the value's elements at the places its mask selects.
    """
    _fits(value.size, int(count))
    out = block.copy()
    out[mask] = value.reshape(-1)[ranks[mask] if value.size != 1 else 0]
    return out


def _fits(size: int, count: int) -> None:
    """numpy's rule for a value written through a mask: one element, or one for
    each of the mask's True.
    """
    if size not in (1, count):
        raise arg_error(ValueError, "__setitem__", "value", "a value of one "
                        f"element or of the mask's count of True, {count}",
                        f"{size} elements")


def _selection(x: da.Array, parts: tuple[Any, ...]) -> tuple[float, ...]:
    """The shape numpy gives ``x[key]``: what ``x[key] = value`` writes; a key
    getitem refuses refused as setitem's.
    """
    try:
        return index(x, parts).shape
    except IndexError as exc:
        if getattr(exc, "func", None) != "__getitem__":
            raise
        raise restated(exc, IndexError, "__setitem__") from None


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
