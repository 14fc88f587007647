"""The standard's inspection API for TensorFlow, in TF's own terms (dtypes,
device names).
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from ...._dtypes import DTYPES
from ..interop import _TO_TF
from ._base import DEFAULT_COMPLEX, DEFAULT_FLOAT, DEFAULT_INT, INDEX

# -- inspection -----------------------------------------------------------------------
_KINDS = {"bool": ("bool",), "signed integer": ("signed integer",),
          "unsigned integer": ("unsigned integer",),
          "integral": ("signed integer", "unsigned integer"),
          "real floating": ("real floating",),
          "complex floating": ("complex floating",),
          "numeric": ("signed integer", "unsigned integer", "real floating",
                      "complex floating")}
_STANDARD_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                    "uint32", "uint64", "float32", "float64", "complex64",
                    "complex128")


class Info:
    """TF's answers to the inspection API, in TF's terms (dtypes, device names)."""

    def capabilities(self) -> dict[str, Any]:
        return {"boolean indexing": True, "data-dependent shapes": True,
                "max dimensions": 64}

    def default_device(self) -> str:
        """TF's placement: its first GPU where it has one, else the CPU."""
        gpus = tf.config.list_logical_devices("GPU")
        return gpus[0].name if gpus else "/job:localhost/replica:0/task:0/device:CPU:0"

    def devices(self) -> list[str]:
        return [d.name for d in tf.config.list_logical_devices()
                if d.device_type in ("CPU", "GPU")]

    def default_dtypes(self, *, device: Any = None) -> dict[str, Any]:
        return {"real floating": DEFAULT_FLOAT, "complex floating": DEFAULT_COMPLEX,
                "integral": DEFAULT_INT, "indexing": INDEX}

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict[str, Any]:
        names: tuple[str, ...] = _STANDARD_DTYPES
        if kind is not None:
            kinds = kind if isinstance(kind, tuple) else (kind,)
            wanted = {k for item in kinds for k in _KINDS.get(item, (item,))}
            names = tuple(n for n in names if n in wanted
                          or DTYPES[n].kind in wanted)
        return {n: _TO_TF[DTYPES[n]] for n in names}


def __array_namespace_info__() -> Info:
    return Info()
