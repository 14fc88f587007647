"""Sizes dask knows only once computed: NaN in a dask shape, None to unitensor.

After a boolean mask, ``unique_*`` or ``nonzero`` a size depends on the data; a
function that needs that size is refused naming itself, the argument and dask.
"""

from __future__ import annotations

from typing import Any

import dask.array as da

from ..._errors import arg_error


def unknown(x: Any) -> bool:
    """Whether ``x`` is a dask array with a size known only once computed."""
    return isinstance(x, da.Array) and any(n != n for n in x.shape)


def shape_text(x: da.Array) -> str:
    return str(tuple(None if n != n else n for n in x.shape))


def needs_known_shape(func: str, arg: str, x: da.Array) -> ValueError:
    """The refusal of a function that needs a size dask knows only once computed."""
    return arg_error(ValueError, func, arg, "an array of known shape (dask knows a "
                     "size that depends on the data, after a boolean mask, unique_* "
                     "or nonzero, only once computed: ut.asarray(x.numpy()), or "
                     "x.native.compute_chunk_sizes() first)",
                     f"an array of shape {shape_text(x)}")
