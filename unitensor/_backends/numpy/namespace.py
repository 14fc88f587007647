"""numpy's Array API namespace (array-api-compat's) and the fixes of its deviations."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import array_api_compat.numpy as compat_numpy
import numpy as np

from ..._device import CPU, Device
from ..._dtypes import DType
from ..._errors import arg_error
from .._fixes import (
    expm1_fixed,
    floor_divide_fixed,
    integers_by_nonzero,
    read_only_items,
    tanh_fixed,
)
from .interop import numpy_dtype

ARRAY = np.ndarray


# numpy's other deviations from the standard (sort's missing ``descending``,
# ``clip``'s signature, ...) are fixed by array-api-compat, which re-exports
# numpy's own functions wherever they already conform: most calls go straight
# to numpy.
_COMPLEX = frozenset({np.dtype("complex64"), np.dtype("complex128")})
FIXES: dict[str, Callable[..., Any]] = {
    "floor_divide": floor_divide_fixed(compat_numpy, np),
    "remainder": integers_by_nonzero(compat_numpy, "remainder"),
    "expm1": expm1_fixed(compat_numpy, _COMPLEX),
    "tanh": tanh_fixed(compat_numpy, _COMPLEX),
    # numpy's own outer of vectors (array-api-compat's is np.outer, which
    # flattens matrices): it refuses other dimensions itself
    "linalg.outer": np.linalg.outer,
    "broadcast_arrays": read_only_items(np.broadcast_arrays, np.asarray)}

# Two operands of one dtype: numpy's own function where array-api-compat's only
# forwards to it (its matmul wrapper costs ~0.3 µs on 8x8 arrays).
SAME_DTYPE: dict[str, Callable[..., Any]] = {"matmul": np.matmul}


def namespace() -> object:
    return compat_numpy


# numpy returns scalars from operations on 0-d arrays (and from reductions):
# made 0-d arrays again, by numpy's own C function (no Python frame on a call
# of the fast paths, which call it for every such result)
result: Callable[[object], np.ndarray] = np.asarray


def native_dtype(dtype: DType) -> np.dtype:
    return numpy_dtype(dtype)


def native_device(device: Device) -> str:
    if device != CPU:
        raise arg_error(ValueError, "numpy", "device", "cpu (numpy arrays live in "
                        "CPU memory)", repr(str(device)))
    return "cpu"



def device_from_native(native_device: object) -> Device:
    return CPU


def reference(name: str) -> Callable[..., Any]:
    """numpy's function for the standard's ``name``, fixed where numpy deviates:
    the reference other frameworks' fixes compute special cases with.
    """
    return FIXES.get(name) or getattr(compat_numpy, name)
