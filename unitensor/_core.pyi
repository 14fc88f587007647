"""Types of unitensor._core (ext/_core.c): the Buffer and its importers.

Kept in step with ext/_core.c by hand: its PyMethodDef, PyGetSetDef and module
tables are the source of truth.
"""

import sys
from collections.abc import Callable, Sized
from typing import (
    Any,
    Final,
    Literal,
    Protocol,
    SupportsIndex,
    TypeAlias,
    TypeVar,
    final,
)

_T = TypeVar("_T")

# A PyCapsule (types.CapsuleType exists from Python 3.13 only). The importers take
# any object and raise TypeError themselves for anything but a DLPack capsule.
_Capsule: TypeAlias = object
# An object exporting the buffer protocol. Not typing_extensions.Buffer: numpy's
# stubs declare ndarray.__buffer__ only from Python 3.12 (mypy checks 3.11 here).
# from_buffer() raises TypeError itself for anything else.
_BufferExporter: TypeAlias = object

class _HasArrayInterface(Protocol):
    @property
    def __array_interface__(self) -> dict[str, Any]: ...

class _HasCudaArrayInterface(Protocol):
    @property
    def __cuda_array_interface__(self) -> dict[str, Any]: ...

class _Producer(Protocol):
    def wait(self, stream: int, /) -> None: ...
    def stream(self) -> int | None: ...

#: the DLPack (major, minor) version unitensor speaks (ext/dlpack.h)
DLPACK_VERSION: Final[tuple[int, int]]
#: the most dimensions an array may have (DLPack's and numpy's limit)
MAX_NDIM: Final[int]
#: the type of a PyCapsule (types.CapsuleType from Python 3.13 only)
CAPSULE_TYPE: Final[type]

# Memory lent read-only (to torch): address -> live exports over it, kept in C.
@final
class LentTable:
    def __init__(self) -> None: ...
    def __contains__(self, address: object, /) -> bool: ...
    def __len__(self) -> int: ...
    def counts(self) -> dict[int, int]: ...

# Not subclassable, and not made by calling it (TypeError): the importers below
# and empty() make Buffers.
@final
class Buffer:
    """Owner of one foreign array's memory; re-exports it zero-copy."""

    @property
    def shape(self) -> tuple[int, ...]: ...
    @property
    def strides(self) -> tuple[int, ...]: ...  # in elements
    @property
    def ndim(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def itemsize(self) -> int: ...
    @property
    def nbytes(self) -> int: ...
    @property
    def dtype(self) -> tuple[int, int, int]: ...  # DLPack (code, bits, lanes)
    @property
    def device(self) -> tuple[int, int]: ...  # DLPack (device_type, device_id)
    @property
    def byte_offset(self) -> int: ...
    @property
    def data_ptr(self) -> int: ...
    @property
    def readonly(self) -> bool: ...
    @property
    def is_copied(self) -> bool: ...
    @property
    def version(self) -> tuple[int, int] | None: ...
    @property
    def source(self) -> Literal["dlpack_versioned", "dlpack", "array_interface",
                                "cuda_array_interface", "buffer", "owned"]: ...
    @property
    def base(self) -> Any: ...  # the exporter held alive, or None
    @property
    def stream(self) -> Any: ...  # the CUDA array interface's, as given, or None
    # CUDA memory: whose work a consumer's stream waits for (_backends/_adapter.py)
    @property
    def producer(self) -> _Producer | None: ...
    @producer.setter
    def producer(self, value: _Producer | None) -> None: ...
    @property
    def c_contiguous(self) -> bool: ...
    @property
    def alignment(self) -> int: ...
    # AttributeError where the memory is not CPU-readable (CUDA memory).
    @property
    def __array_interface__(self) -> dict[str, Any]: ...
    @property
    def __cuda_array_interface__(self) -> dict[str, Any]: ...
    def __dlpack__(self, *, stream: int | None = None,
                   max_version: tuple[int, int] | None = None,
                   dl_device: tuple[int, int] | None = None,
                   copy: bool | None = None) -> _Capsule: ...
    def __dlpack_device__(self) -> tuple[int, int]: ...
    def copy(self, alignment: SupportsIndex = 64) -> Buffer: ...
    def mark_readonly(self) -> None: ...
    def export_legacy(self, *, allow_readonly: bool = False,
                      stream: int | None = None) -> _Capsule: ...
    def order(self, stream: int | None) -> None: ...
    # The buffer protocol (tp_as_buffer), for memoryview() and numpy: Python
    # shows it as __buffer__ from 3.12.
    if sys.version_info >= (3, 12):
        def __buffer__(self, flags: int, /) -> memoryview: ...

def from_capsule(capsule: _Capsule, /, *, func: str = "from_capsule",
                 arg: str = "capsule") -> Buffer: ...
def from_array_interface(obj: _HasArrayInterface, *,
                         dtype: tuple[int, int, int] | None = None,
                         func: str = "from_array_interface",
                         arg: str = "obj") -> Buffer: ...
def from_cuda_array_interface(obj: _HasCudaArrayInterface, device_id: int = 0, *,
                              func: str = "from_cuda_array_interface",
                              arg: str = "obj") -> Buffer: ...
def from_buffer(obj: _BufferExporter, /, *, func: str = "from_buffer",
                arg: str = "obj") -> Buffer: ...
def exchange_import(obj: object, /) -> Buffer: ...
# func (one of this module's functions) with its leading arguments bound, as
# functools.partial binds them, called in one step; attributes may be set on it
def bound(func: Callable[..., _T], /, *args: object) -> Callable[..., _T]: ...
# an immutable framework's memory, its adapter's export, handed to array_type's
# framework and recorded in lent, warn() called while the alias warning was not
# given; None where that does not apply
def exchange_lend(export: Callable[[Any], Buffer], array_type: type[_T],
                  lent: LentTable, warn: Callable[[], object], obj: object,
                  /) -> _T | None: ...
# whether unitensor's AliasWarning was given in this process (it is given once)
def alias_warned() -> bool: ...
def set_alias_warned(flag: bool, /) -> None: ...
def immutable_from_capsule(capsule: object, /) -> Buffer: ...
def immutable_export(capsule_of: Callable[[Any], object], obj: object, /) -> Buffer: ...
def exchange_export(buffer: Buffer, array_type: type[_T],
                    lent: LentTable | None = None,
                    /) -> _T: ...
# numpy's C API (imported on first use): a numpy array over a Buffer; torch.from_numpy
# through array_type's exchange import; a legacy capsule for TF's import
def ndarray_view(buffer: Buffer, /) -> Any: ...
def ndarray_lend(export: Callable[[Any], Buffer], obj: object, /) -> Any: ...
# a compiled CPU kernel (Warp's) called for items first..items-1, each move
# (offset, base, step) setting a pointer of its argument struct per launch
def replay_launches(function: int, bounds: int, args: int,
                    moves: tuple[tuple[int, int, int], ...], first: int, items: int,
                    /) -> None: ...
def exchange_host_capsule(refusals: tuple[_Refusal, ...],
                          complex_refusals: tuple[_Refusal, ...], alignment: int,
                          obj: object, /) -> object | None: ...
def exchange_from_ndarray(array_type: type[_T], array: object, /) -> _T | None: ...
def ndarray_import(importer: Callable[[_Capsule, Any], _T],
                   handle: Callable[[], object], alignment: int, array: object, /
                   ) -> _T | None: ...
# a method's or attribute's name, a callable, or (table, callable): asked while
# the table is not empty
_Refusal = str | Callable[[Any], object] | tuple[Sized, Callable[[Any], object]]


def exchange_host_view(make: Callable[[Buffer], _T],
                       refusals: tuple[_Refusal, ...],
                       complex_refusals: tuple[_Refusal, ...],
                       obj: object, /) -> _T | None: ...
# The DLPack 1.3 C exchange API that unitensor.Tensor publishes: the hooks are
# Tensor -> its Buffer, Buffer -> a Tensor, (device_type, device_id) -> a CUDA
# stream number or None; gives the 'dlpack_exchange_api' capsule.
def provide_exchange(tensor_type: type, buffer_of: Callable[[Any], Buffer],
                     tensor_of: Callable[[Buffer], Any],
                     work_stream: Callable[[int, int], int | None], /) -> _Capsule: ...
def empty(shape: tuple[SupportsIndex, ...], code: int, bits: int,
          alignment: SupportsIndex = 64) -> Buffer: ...
def exposed(address: int, nbytes: int, /) -> bool: ...
def stats() -> dict[str, int]: ...
