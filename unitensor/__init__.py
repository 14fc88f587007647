"""unitensor: one Tensor type for every array framework, and zero-copy between them.

The module is a complete Array API namespace (2025.12, with ``linalg``, ``fft``
and the inspection API): every function runs in the framework that owns its
operands (see ``_dispatch.py`` for the rule). ``import unitensor`` imports no
framework: each one loads the first time one of its arrays is seen or asked for.
"""

from __future__ import annotations

import math as _math
from typing import TYPE_CHECKING

from . import _compile, fft, linalg
from ._creation_functions import *  # noqa: F403
from ._creation_functions import __all__ as _creation
from ._data_type_functions import *  # noqa: F403
from ._data_type_functions import __all__ as _data_types
from ._device import Device
from ._dispatch import get_default_owner, owner, set_default_owner
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
from ._dtypes import bool_ as bool  # the Array API name
from ._elementwise_functions import *  # noqa: F403
from ._elementwise_functions import __all__ as _elementwise
from ._errors import AliasWarning, CopyWarning
from ._indexing_functions import *  # noqa: F403
from ._indexing_functions import __all__ as _indexing
from ._inspection import __array_namespace_info__
from ._linear_algebra_functions import *  # noqa: F403
from ._linear_algebra_functions import __all__ as _linear_algebra
from ._manipulation_functions import *  # noqa: F403
from ._manipulation_functions import __all__ as _manipulation
from ._searching_functions import *  # noqa: F403
from ._searching_functions import __all__ as _searching
from ._set_functions import *  # noqa: F403
from ._set_functions import __all__ as _set
from ._sorting_functions import *  # noqa: F403
from ._sorting_functions import __all__ as _sorting
from ._standard import API_VERSION as __array_api_version__
from ._statistical_functions import *  # noqa: F403
from ._statistical_functions import __all__ as _statistical
from ._tensor import Tensor
from ._utility_functions import *  # noqa: F403
from ._utility_functions import __all__ as _utility
from ._wrap import wrap
from ._wrap._parts import load_compiled as _load_compiled

# isort: split
from . import _operators  # noqa: F401 - installs Tensor's operators, once all exist

if TYPE_CHECKING:  # loaded on first use (below); the group modules have stubs
    from . import dask as dask
    from . import memory
else:
    def __getattr__(name: str) -> object:
        """``ut.memory`` and ``ut.dask``, imported on first use.

        Not imported with the package, so that ``python -m unitensor.memory`` runs
        the module once (runpy warns when the package has already imported it),
        and so that ``import unitensor`` imports no dask.
        """
        if name in ("memory", "dask"):
            import importlib
            return importlib.import_module(f"{__name__}.{name}")
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")



def __dir__() -> list[str]:
    """The public names, ``dask`` and ``memory`` too (loaded on first use).

    For completion: not the modules and helpers the package imports for itself.
    """
    return sorted({*__all__, "dask", "__version__", "__array_api_version__"})


__version__ = "0.1.0"

# The standard's constants.
e = _math.e
inf = _math.inf
nan = _math.nan
pi = _math.pi
newaxis = None

# (not ut.dask: a star import would import dask, an optional extra)
__all__ = [
    "AliasWarning", "CopyWarning", "DType", "Device", "Tensor", "__array_api_version__",
    "__array_namespace_info__", "bfloat16", "bool", "complex64", "complex128", "e",
    "fft", "float16", "float32", "float64", "get_default_owner", "inf", "int8",
    "int16", "int32", "int64", "linalg", "memory", "nan", "newaxis", "owner", "pi",
    "set_default_owner", "uint8", "uint16", "uint32", "uint64", "wrap",
    *_creation, *_data_types, *_elementwise, *_indexing, *_linear_algebra,
    *_manipulation, *_searching, *_set, *_sorting, *_statistical, *_utility,
]

# torch.compile: once its tracer is imported, it is shown unitensor's C paths in
# Python (_compile.py), then ut.wrap's bridged calls as ops of its graph
# (_wrap/torch_ops.py); nothing is imported here.
_compile.watch(_load_compiled)
