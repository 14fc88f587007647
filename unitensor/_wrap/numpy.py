"""numpy's part of ``wrap()``: a plain body (no derivatives, no batched form).

A jax or TensorFlow caller's array never changes. An output of the body whose
memory the body keeps (a global, a cache, a view of either), or memory numpy
did not allocate, would change with it, and so would a writable numpy array a
jax caller passed in and the body gave back: such an output is copied. One the
body made in this call is lent as it is, and so is the caller's immutable input
given back. Kept is told by counting holders of the array and of its base (numpy
points a view at the array that owns the memory), as torch's part does.
array_api_strict's part (numpy memory inside) uses the same count.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ._lend import copy_kept


def _counts(arrays: list[Any], i: int) -> tuple[int, Any, int]:
    """The Python references to ``arrays[i]``, its base, and the base's."""
    base = arrays[i].base
    return sys.getrefcount(arrays[i]), base, sys.getrefcount(base)


# an array the list alone holds; the base of a view the view alone holds
FRESH = _counts([np.empty(1)], 0)[0]  # (cupy's part counts the same way)
_FRESH_BASE = _counts([np.empty(2)[1:]], 0)[2]


def root(a: np.ndarray) -> np.ndarray:
    """The array at the end of ``a``'s chain of bases: the memory's holder."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def kept(arrays: list[Any], i: int, inputs: set[int], held: int = 0) -> bool:
    """Whether the memory of ``arrays[i]`` has a holder other than the list
    ``arrays`` (and ``held`` more holders each, an array_api_strict Array of
    it): not where it is the caller's immutable memory (``inputs``: the ids of
    their roots).
    """
    y = arrays[i]
    if not isinstance(y, np.ndarray):
        return False  # a numpy scalar: a value of its own
    if id(root(y)) in inputs:
        return False  # the caller's immutable array, given back
    # holders that go with the call: its views among the outputs, and the
    # list's other places of it (the same array returned twice)
    views = sum(1 for z in arrays if isinstance(z, np.ndarray) and z.base is y)
    places = sum(1 for z in arrays if z is y) - 1
    refs, base, base_refs = _counts(arrays, i)
    if refs - 1 > FRESH + (held + 1) * places + held + views:  # (less the local y)
        return True  # the array itself, held elsewhere
    if base is None or type(base) is bytes:
        return False  # its own memory, made in this call; or memory never written
    if not isinstance(base, np.ndarray) or base.base is not None:
        return True  # memory numpy did not allocate (a buffer, a capsule)
    # other holders that go with the call: the base as an output, its other views
    others = sum(1 + held for z in arrays if z is base) + sum(
        1 for z in arrays if z is not y and isinstance(z, np.ndarray)
        and z.base is base)
    return base_refs > _FRESH_BASE + others


def unshared(ys: list[Any], xs: list[Any], quiet: bool) -> list[Any]:
    """The body's outputs ``ys`` (the list their only holder), each one whose
    memory the body keeps copied (reported unless ``quiet``); ``xs``: the
    body's views of the caller's immutable arrays.
    """
    inputs = {id(root(x)) for x in xs if isinstance(x, np.ndarray)}
    return copy_kept(ys, "numpy", quiet, lambda i: kept(ys, i, inputs), memory)


def memory(y: Any) -> int:
    """An id of the holder of ``y``'s memory (outputs that share it share it)."""
    return id(root(y)) if isinstance(y, np.ndarray) else id(y)


def read_only_memory(x: Any) -> bool:
    """Whether no array on ``x``'s chain of bases can write its memory (a
    read-only view of a writable array can be written through the array).
    """
    while isinstance(x, np.ndarray):
        if x.flags.writeable:
            return False
        x = x.base
    return True
