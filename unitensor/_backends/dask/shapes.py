"""Sizes dask knows only once computed: NaN in a dask shape, None to unitensor.

After a boolean mask, ``unique_*`` or ``nonzero`` a size depends on the data; a
function that needs that size is refused naming itself, the argument and dask.
Chunks are never paired by position where their sizes are unknown and may
differ: dask lines two arrays up chunk by chunk whatever their lengths, which is
right for an array and one made from it; for any other pair, and for an unknown
size against a known one other than 1 (which dask refuses whatever the sizes
are), the sizes are computed first (``sized``); which steps made a size unknown,
dask's graph layers say (their chunks).
"""

from __future__ import annotations

from typing import Any

import dask.array as da
from dask.blockwise import Blockwise

from ..._errors import unknown_size
from ..._standard import FUNCTIONS
from .interop import shape


def unknown(x: Any) -> bool:
    """Whether ``x`` is a dask array with a size known only once computed."""
    return isinstance(x, da.Array) and any(n != n for n in x.shape)


def shape_text(x: da.Array) -> str:
    return str(shape(x))


def needs_known_shape(func: str, arg: str, x: da.Array) -> ValueError:
    """The refusal of a function that needs a size dask knows only once computed."""
    return unknown_size(func, arg, "dask", shape_text(x))


# Functions whose array operands are paired element by element, by broadcasting
# (axes lined up from the right); concat pairs every axis but its own.
_BROADCASTING = frozenset({row.name for row in FUNCTIONS if row.group == "elementwise"}
                          | {"where", "broadcast_arrays"})


def sized(func: str, names: tuple[str, ...], args: tuple[Any, ...],
          kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Compute the chunk sizes dask does not know where ``func`` would pair them
    by position with another array's (``m1 + m2`` after two masks of equal count
    but other layouts: dask adds chunk 1 to chunk 1 whatever their lengths,
    silently wrong); dask then lines the chunks up by their true sizes. Nothing is
    computed where every pairing is sure: known sizes, size 1, arrays whose sizes
    come from the same data-dependent steps (``m * 2 + m``, ``where(m > 0, m,
    0)``, ``(m > 5) & (m < 15)``). Returns the arguments, an array whose computed
    size is 1 along an axis in one chunk there (dask broadcasts only a size 1 in
    one chunk; a mask leaves empty chunks beside it).
    ``names``: ``func``'s positional parameters.
    """
    if func == "concat":
        arrays = args[0] if args else kwargs.get("arrays", ())
        axis = kwargs.get("axis", args[1] if len(args) > 1 else 0)
        operands = [x for x in arrays if isinstance(x, da.Array)]
        if axis is None or len(operands) < 2 or not any(map(unknown, operands)):
            return args, kwargs
        ndim = operands[0].ndim
        if type(axis) is not int or not -ndim <= axis < ndim:
            return args, kwargs  # dask says why
        axes = [a for a in range(ndim) if a != axis % ndim]
        _size_blind_pairs([(x, [x.shape[a] if a < x.ndim else 1 for a in axes])
                           for x in operands])
        return args, kwargs
    if func not in _BROADCASTING:
        return args, kwargs
    operands = [v for v in (*args, *kwargs.values()) if isinstance(v, da.Array)]
    if len(operands) < 2 or not any(map(unknown, operands)):
        return args, kwargs
    ndim = max(x.ndim for x in operands)
    made = _size_blind_pairs([(x, [1] * (ndim - x.ndim) + list(x.shape))
                              for x in operands])
    return (tuple(made.get(id(v), v) for v in args),
            {k: made.get(id(v), v) for k, v in kwargs.items()})


def _size_blind_pairs(operands: list[tuple[da.Array, list[float]]]
                      ) -> dict[int, da.Array]:
    """Where, along one axis, an array's unknown size meets another array's
    unknown size from other steps, or a known size other than 1: compute the
    unknown chunk sizes of the arrays there (dask's ``compute_chunk_sizes``, in
    place); {id: the array rechunked} where a computed size is 1 in several
    chunks.
    """
    blind: dict[str, da.Array] = {}
    for axis in range(len(operands[0][1])):
        lazy = [x for x, sizes in operands if sizes[axis] != sizes[axis]]
        # an unknown size against a known one other than 1 (``x[m] * y``): numpy
        # pairs them where the sizes are equal (or the unknown one is 1), dask
        # refuses the pairing whatever they are
        fixed = any(sizes[axis] == sizes[axis] and sizes[axis] != 1
                    for _, sizes in operands)
        if (lazy and fixed) or any(not related(x, other) for i, x in enumerate(lazy)
                                   for other in lazy[:i]):
            blind.update({x.name: x for x in lazy})
    made = {}
    for x in blind.values():
        x.compute_chunk_sizes()
        ones = {a: -1 for a, sizes in enumerate(x.chunks)
                if sum(sizes) == 1 and len(sizes) > 1}
        if ones:
            made[id(x)] = x.rechunk(ones)
    return made


def related(x: da.Array, other: da.Array) -> bool:
    """Whether the two arrays' unknown sizes come from the same data-dependent
    steps (``m``, ``m > 5`` and ``m * 2`` after one mask: their chunks line up),
    as the layers of their graphs record them; False where a graph cannot tell.
    """
    if x.name == other.name:
        return True
    mine = _origins(x)
    return mine is not None and mine == _origins(other)


def _origins(x: da.Array) -> frozenset[str] | None:
    """The layers of ``x``'s graph that made sizes unknown: of NaN chunks, and not
    elementwise (a Blockwise layer keeps its inputs' chunks: dask's masks,
    unique and nonzero are other layers); None where a layer does not say its
    chunks.
    """
    found = set()
    for name, layer in x.dask.layers.items():
        chunks = (getattr(layer, "collection_annotations", None) or {}).get("chunks")
        if chunks is None:
            return None
        if not isinstance(layer, Blockwise) and any(
                n != n for sizes in chunks for n in sizes):
            found.add(name)
    return frozenset(found)
