"""array_api_strict's part of ``wrap()``: a plain body. Its Arrays hold numpy
memory, so an output whose memory the body keeps is told as numpy's part tells
it (unitensor/_wrap/numpy.py), through the Array's numpy array.
"""

from __future__ import annotations

import sys
from typing import Any

from array_api_strict._array_object import Array

from ._lend import copy_kept
from .numpy import FRESH, root
from .numpy import kept as numpy_kept


def kept(ys: list[Any], i: int, inputs: set[int]) -> bool:
    """Whether the memory of ``ys[i]`` has a holder other than the list ``ys``:
    the Array itself, or its numpy array (held once more, by the Array).
    """
    arrays = [y._array for y in ys]
    if id(root(arrays[i])) in inputs:
        return False  # the caller's immutable array, given back
    # (an Array the list alone holds: numpy's count of a list-held array)
    return sys.getrefcount(ys[i]) > FRESH or numpy_kept(arrays, i, inputs, held=1)


def unshared(ys: list[Any], xs: list[Any], quiet: bool) -> list[Any]:
    """As numpy's :func:`~unitensor._wrap.numpy.unshared`."""
    inputs = {id(root(x._array)) for x in xs if isinstance(x, Array)}
    return copy_kept(ys, "array_api_strict", quiet, lambda i: kept(ys, i, inputs),
                     lambda y: id(root(y._array)))
