"""unitensor: one Tensor type for every array framework, and zero-copy between them.

``import unitensor`` imports no framework: each one loads the first time one of
its arrays is seen or asked for.
"""

from __future__ import annotations

from ._convert import asarray, from_dlpack
from ._device import Device
from ._dtypes import (
    DType,
    bfloat16,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ._dtypes import bool_ as bool  # noqa: A001 - the Array API name
from ._errors import CopyWarning
from ._tensor import Tensor

__version__ = "0.1.0"

__all__ = [
    "CopyWarning", "DType", "Device", "Tensor", "asarray", "bfloat16", "bool",
    "complex64", "complex128", "float16", "float32", "float64", "from_dlpack",
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
]
