"""cupy's part of ``wrap()``: a plain body.

For a caller whose arrays are immutable (jax, tensorflow), an output is lent as
it is only where it is the caller's input given back or an array the body made
in this call (no base, held by nothing else, memory from cupy's own pool); any
other (a view, a kept array, memory cupy did not allocate) is copied. A stricter
rule than numpy's: a view of a fresh array is copied too.
"""

from __future__ import annotations

import sys
from typing import Any

import cupy

from ._lend import copy_kept
from .numpy import FRESH  # a Python count: the list and the argument


def _root(a: cupy.ndarray) -> cupy.ndarray:
    while isinstance(a.base, cupy.ndarray):
        a = a.base
    return a


def kept(ys: list[Any], i: int, inputs: set[int]) -> bool:
    y = ys[i]
    if id(_root(y)) in inputs:
        return False  # the caller's immutable array, given back
    if y.base is not None or isinstance(y.data.mem, cupy.cuda.memory.UnownedMemory):
        return True
    return sys.getrefcount(ys[i]) - 1 > FRESH  # (less the local y)


def unshared(ys: list[Any], xs: list[Any], quiet: bool) -> list[Any]:
    """As numpy's :func:`~unitensor._wrap.numpy.unshared`."""
    inputs = {id(_root(x)) for x in xs if isinstance(x, cupy.ndarray)}
    return copy_kept(ys, "cupy", quiet, lambda i: kept(ys, i, inputs),
                     lambda y: id(_root(y)))
