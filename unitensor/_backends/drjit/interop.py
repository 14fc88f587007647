"""Dr.Jit: its tensors and flat JIT arrays, their memory, and the routes to them.

The rule: memory crosses through DLPack both ways (Dr.Jit's export evaluates
a traced array first; its import aliases compact row-major memory), and a
Buffer becomes a tensor of Dr.Jit's differentiable LLVM (CPU) or CUDA backend
(``drjit.llvm.ad.TensorXf``, ...), so that a bridge can enable gradients on it.
Memory of another layout is copied (Dr.Jit's tensors are compact); Dr.Jit has
no int16/uint16 tensors and no complex dtypes. Nested arrays (``Array3f``) and
scalar-backend arrays are not arrays to unitensor: their tensor or ``.array``
crosses.
"""

from __future__ import annotations

import sys
from typing import Any

if "tensorflow" in sys.modules and "drjit" not in sys.modules:
    # Dr.Jit's LLVM after TensorFlow's: its first kernel crashes the process
    # (unitensor imports Dr.Jit first where it imports TensorFlow itself:
    # _backends/_triton.py)
    raise RuntimeError("unitensor cannot load Dr.Jit: TensorFlow was imported "
                       "first, and Dr.Jit's LLVM backend then crashes the process "
                       "(drjit 1.5, tensorflow 2.21): import drjit before "
                       "tensorflow")

import drjit as dr
import drjit.llvm.ad as _llvm

from ... import _core
from ..._device import CPU, CPU_READABLE, CUDA_READABLE, Device
from ..._dtypes import DTYPES, DType, from_dlpack_code
from ..._errors import arg_error, describe, warn_read_only_alias
from .._dlpack import buffer_from_dlpack
from ..numpy.interop import NATIVE_DTYPES as NATIVE_DTYPES_OF_NUMPY
from ..numpy.interop import from_python as from_numbers

# Dr.Jit's variable types by the standard's names (VarType.Float32 -> float32)
NATIVE_DTYPES: dict[Any, DType] = {
    member: DTYPES[name.lower()] for name, member in dr.VarType.__members__.items()
    if name.lower() in DTYPES}
_TENSORS = {"bool": "TensorXb", "int8": "TensorXi8", "uint8": "TensorXu8",
            "int32": "TensorXi", "uint32": "TensorXu", "int64": "TensorXi64",
            "uint64": "TensorXu64", "float16": "TensorXf16", "float32": "TensorXf",
            "float64": "TensorXf64"}
# dtype -> the tensor type of each backend (CUDA's where Dr.Jit has it)
TENSOR = {DTYPES[n]: getattr(_llvm, k) for n, k in _TENSORS.items()}
_HELD = frozenset(d.dlpack for d in TENSOR)
_KINDS = ("bool, (u)int8, (u)int32, (u)int64, float16/32/64")

ARRAY_TYPES = (dr.ArrayBase,)


def _refuse(x: Any) -> TypeError:
    return arg_error(TypeError, "asarray", "obj", "a Dr.Jit tensor or flat JIT "
                     f"array (drjit.llvm.ad.TensorXf, Float, ...) of {_KINDS}",
                     f"{describe(x)} (convert a nested array through its tensor "
                     "or .array)")


def dtype(x: Any) -> DType:
    if not dr.is_jit_v(x) or not (dr.is_tensor_v(x) or dr.depth_v(x) == 1):
        raise _refuse(x)
    try:
        return NATIVE_DTYPES[dr.type_v(x)]
    except KeyError:
        raise _refuse(x) from None


def shape(x: Any) -> tuple[int, ...]:
    return tuple(x.shape)


def device(x: Any) -> Device:
    return CPU if dr.backend_v(x) == dr.JitBackend.LLVM else Device("cuda", 0)


def export(x: Any) -> _core.Buffer:
    dtype(x)  # refuses nested arrays
    return buffer_from_dlpack(x)  # (Dr.Jit evaluates a traced array here)


def copy_reason(buf: _core.Buffer, reading: bool = False) -> str | None:
    if buf.dtype not in _HELD:  # int16, complex: no copy helps
        raise arg_error(BufferError, "drjit", "x", f"a dtype Dr.Jit has ({_KINDS})",
                        from_dlpack_code(buf.dtype).name)
    kind = buf.device[0]
    if kind not in CPU_READABLE and kind not in CUDA_READABLE:
        return "drjit reads CPU and CUDA memory only"
    if not buf.c_contiguous:
        return "Dr.Jit's tensors are compact (row-major) and the data is strided"
    if buf.readonly and not reading:  # aliased all the same, as torch's are
        warn_read_only_alias("drjit", "drjit")
    return None


def _tensor_type(dt: DType, kind: int) -> Any:
    if kind in CUDA_READABLE:
        import drjit.cuda.ad as cuda
        return getattr(cuda, _TENSORS[dt.name])
    return TENSOR[dt]


def alias(buf: _core.Buffer) -> Any:
    # the tensor's constructor imports the Buffer's capsule (zero-copy) and
    # holds the Buffer until Dr.Jit frees the variable
    return _tensor_type(from_dlpack_code(buf.dtype), buf.device[0])(buf)


def copy(x: Any) -> Any:
    return dr.copy(x)


def astype(x: Any, dtype: DType) -> Any:
    return _tensor_type(dtype, export(x).device[0])(x)


def to_device(x: Any, device: Device) -> Any:
    # through host memory: Dr.Jit's tensors of one backend take another's
    # only as data
    kind = next(iter(CPU_READABLE if device == CPU else CUDA_READABLE))
    return _tensor_type(dtype(x), kind)(x.numpy())


def from_python(obj: object, dtype: DType | None) -> Any:
    host = from_numbers(obj, dtype)
    found = NATIVE_DTYPES_OF_NUMPY[host.dtype]
    if found not in TENSOR:
        raise arg_error(TypeError, "asarray", "obj", f"numbers of {_KINDS}",
                        f"elements of dtype {found.name}")
    return TENSOR[found](host)
