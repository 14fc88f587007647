"""The frameworks' dtype tables, mapped onto unitensor's one table of dtypes.

The rule: each adapter's table (``NATIVE_DTYPES``) maps its framework's dtype
objects to the ``DType`` rows of ``_dtypes.DTYPES``, never a copy of them; a
framework dtype missing from its table is refused naming the framework. numpy's
table is built here once for the adapters that use numpy's dtypes (numpy, jax,
dask, array_api_strict), with ml_dtypes' bfloat16 where it is installed.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any

from .._dtypes import DTYPES, DType
from .._errors import arg_error

if TYPE_CHECKING:
    import numpy  # imported where it is used: `import unitensor` imports no framework


def dtype_in(table: Mapping[Any, DType], native_dtype: object,
             framework: str) -> DType:
    """unitensor's dtype for a framework's dtype, or a TypeError naming it."""
    try:
        return table[native_dtype]
    except KeyError:
        raise arg_error(TypeError, "asarray", "obj",
                        f"an array of one of {', '.join(DTYPES)}",
                        f"{framework} dtype {native_dtype}") from None


def numpy_dtype_table(np: ModuleType) -> dict[numpy.dtype[Any], DType]:
    """numpy dtype -> unitensor dtype (jax and array_api_strict use numpy's too);
    ``np``: the numpy module.
    """
    table: dict[numpy.dtype[Any], DType] = {np.dtype(n): d for n, d in DTYPES.items()
                                            if n != "bfloat16"}
    bf16 = ml_dtypes_bfloat16()
    if bf16 is not None:
        table[bf16] = DTYPES["bfloat16"]
    return table


def ml_dtypes_bfloat16() -> numpy.dtype[Any] | None:
    """numpy's bfloat16 comes from ml_dtypes, when it is installed."""
    try:
        import ml_dtypes
    except ImportError:
        return None
    import numpy as np
    return np.dtype(ml_dtypes.bfloat16)
