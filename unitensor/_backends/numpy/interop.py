"""numpy: its arrays, their memory, and the routes to and from them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ... import _core
from ..._device import CPU, Device
from ..._dtypes import DType, bfloat16
from ..._errors import arg_error, describe
from .. import Watched, _loaded
from .._dlpack import LENT_READ_ONLY, cpu_only_reason
from .._dtype_tables import numpy_dtype_table

NATIVE_DTYPES = numpy_dtype_table(np)
_TO_NUMPY = {d: k for k, d in NATIVE_DTYPES.items()}
_BFLOAT16 = _TO_NUMPY.get(bfloat16)


# DLPack 1.1's 8-bit float codes and ml_dtypes' names for them (the Buffer holds
# these; unitensor's namespace has no float8 dtype, so they cross as memory only).
ML_DTYPES_FLOAT8 = {"float8_e3m4": 7, "float8_e4m3": 8, "float8_e4m3b11fnuz": 9,
                    "float8_e4m3fn": 10, "float8_e4m3fnuz": 11, "float8_e5m2": 12,
                    "float8_e5m2fnuz": 13, "float8_e8m0fnu": 14}


def _register_ml_dtypes() -> None:
    """NumPy 2.5+ maps a DLPack (code, bits) pair to a dtype of another package
    (``np.dtypes.register_dlpack_dtype``); ml_dtypes (0.6) registers none. With
    ml_dtypes' bfloat16 and float8 kinds registered, numpy's own ``from_dlpack``
    and ``ndarray.__dlpack__`` hold them: ``np.from_dlpack(t)`` of a bfloat16 or
    float8 Tensor, and numpy's such arrays handed to any DLPack consumer
    (``torch.from_dlpack``, ``jax.dlpack.from_dlpack``), are zero-copy. Older
    numpy refuses them there (unitensor's own conversions hold bfloat16 on every
    numpy).
    """
    register = getattr(np.dtypes, "register_dlpack_dtype", None)
    if register is None or _BFLOAT16 is None:  # _BFLOAT16: ml_dtypes is installed
        return
    import ml_dtypes
    pairs = [(bfloat16.dlpack[:2], _BFLOAT16)]
    pairs += [((code, 8), np.dtype(getattr(ml_dtypes, name)))
              for name, code in ML_DTYPES_FLOAT8.items() if hasattr(ml_dtypes, name)]
    for pair, native_dtype in pairs:
        try:
            register(pair, native_dtype)
        except ValueError:  # another package registered that code first: numpy keeps it
            pass


_register_ml_dtypes()


ARRAY_TYPES = (np.ndarray, np.generic)


def wraps_as_is(kind: type) -> bool:
    return issubclass(kind, np.ndarray)


def native(obj: object) -> np.ndarray:
    if isinstance(obj, np.ndarray):
        return obj
    if isinstance(obj, np.generic):  # numpy scalars become 0-d arrays
        return np.asarray(obj)
    raise arg_error(TypeError, "asarray", "obj", "a numpy.ndarray or numpy scalar",
                    describe(obj))


def dtype(x: np.ndarray) -> DType:
    try:
        return NATIVE_DTYPES[x.dtype]
    except KeyError:
        raise unsupported_dtype(x.dtype) from None


def unsupported_dtype(dt: np.dtype) -> BufferError:
    if dt.kind in "biufc" and not dt.isnative:
        accepted = "native byte order (pass copy=True or copy=None to swap it)"
    else:
        accepted = ("bool, (u)int8-64, float16/32/64, bfloat16, complex64/128 in "
                    "native byte order")
    return arg_error(BufferError, "asarray", "obj", f"a dtype with {accepted}",
                     f"numpy dtype {dt.str!r}")


def device(x: np.ndarray) -> Device:
    return CPU


def readonly(x: np.ndarray, /) -> bool:
    return not x.flags.writeable


def export(x: np.ndarray) -> _core.Buffer:
    # numpy's DLPack export refuses ml_dtypes' bfloat16. (Without ml_dtypes it is
    # None, and numpy reads ``dtype == None`` as float64: hence the identity test.)
    if _BFLOAT16 is not None and x.dtype == _BFLOAT16:
        return _core.from_array_interface(x, dtype=bfloat16.dlpack)
    try:
        # The buffer protocol: the same memory and read-only flag as numpy's
        # __dlpack__, at a quarter of its cost.
        return _core.from_buffer(x)
    except BufferError:
        # Strides that are not a multiple of the item size, even on size-1
        # dimensions where they are never used (numpy#20336): the array interface
        # describes the same memory and the Buffer normalises them.
        return _core.from_array_interface(x)


def _view_of(source: str) -> Callable[[Any], np.ndarray | None]:
    """The route from ``source`` (jax, tensorflow, warp): its adapter's export
    (read-only where the framework's arrays are immutable) as an array made by
    numpy's C API over the Buffer, in one C call (``_core.ndarray_lend``): what
    the general path does, without its Python, under ``np.from_dlpack(x)``'s
    cost. None where the export or the view is refused (a tracer or symbolic
    tensor, which has no memory; memory off the CPU; a dtype numpy cannot
    name): the general path says why. Its first call (``source`` is loaded
    then: ``x`` is one of its Tensors' arrays) puts that C call itself in
    ROUTES, bound to the adapter's export: no Python frame after.
    """
    def route(x: Any) -> np.ndarray | None:
        direct = ROUTES[source] = _core.bound(_core.ndarray_lend,
                                              _loaded[source].export)
        return direct(x)
    return route


def _lent_to_torch(x: Any) -> bool:
    """Whether the torch tensor ``x`` is over memory unitensor lent read-only
    (torch's adapter keeps that table; it is loaded, since ``x`` is a Tensor's).
    """
    return _loaded["torch"].readonly(x)


# torch's route, whole in C: its DLPack C exchange API (half the cost of
# Tensor.numpy()) and an array made by numpy's C API over the Buffer
# (_core.ndarray_view: np.asarray(buffer) without the buffer protocol). The
# general path (torch's DLPack export, which resolves them) takes what it
# declines: torch builds
# without the exchange API, lazy neg and conj bits (which the exchange does not
# see; only complex tensors have the conj bit), GPU memory, dtypes numpy cannot
# name (bfloat16).
# A tensor that requires grad (numpy would drop its graph: the general path
# refuses it, as torch's own .numpy() does), and one over memory unitensor lent
# torch read-only (the general path marks the Buffer read-only), are declined too;
# that last question is asked only while some memory was lent (LENT_READ_ONLY).
ROUTES: Watched[str, Callable[[Any], Any]] = Watched(
    torch=_core.bound(_core.exchange_host_view, _core.ndarray_view,
                      ("is_neg", "requires_grad", (LENT_READ_ONLY, _lent_to_torch)),
                      ("is_conj",)),
    jax=_view_of("jax"), tensorflow=_view_of("tensorflow"), warp=_view_of("warp"))


def copy_reason(buf: _core.Buffer, reading: bool = False) -> str | None:
    return cpu_only_reason(buf, "numpy")


def alias(buf: _core.Buffer) -> np.ndarray:
    if buf.dtype == bfloat16.dlpack:  # bfloat16: numpy's DLPack import refuses it
        if _BFLOAT16 is None:
            raise _no_bfloat16()
        return np.asarray(buf).view(_BFLOAT16)  # numpy sees '|V2' through the interface
    # Through the buffer protocol: 3x cheaper than np.from_dlpack, read-only
    # where the Buffer is, and the array's base (a memoryview of the Buffer) is
    # visible to the cyclic GC, unlike a DLPack capsule.
    return np.asarray(buf)


def copy(x: np.ndarray) -> np.ndarray:
    return x.copy()


def astype(x: np.ndarray, dtype: DType) -> np.ndarray:
    return x.astype(numpy_dtype(dtype))


def numpy_dtype(dtype: DType) -> np.dtype:
    try:
        return _TO_NUMPY[dtype]
    except KeyError:
        raise _no_bfloat16() from None


def _no_bfloat16() -> BufferError:
    return arg_error(BufferError, "numpy", "x",
                     "a dtype numpy holds (bfloat16 needs: pip install ml_dtypes)",
                     "bfloat16")


def to_device(x: np.ndarray, device: Device) -> np.ndarray:
    raise arg_error(ValueError, "to_device", "device", "cpu for numpy arrays",
                    repr(str(device)))


def from_python(obj: object, dtype: DType | None) -> np.ndarray:
    x = np.asarray(obj, dtype=None if dtype is None else numpy_dtype(dtype))
    if x.dtype.kind not in "biufc":
        raise arg_error(TypeError, "asarray", "obj",
                        "a Python scalar or nested sequence of bool, int, float or "
                        "complex", f"elements that make numpy dtype {x.dtype.str!r}")
    return x


def fix_byte_order(x: np.ndarray) -> np.ndarray | None:
    """A native-order copy of a byte-swapped array, or None if it is not one."""
    if x.dtype.kind in "biufc" and not x.dtype.isnative:
        return x.astype(x.dtype.newbyteorder("="))
    return None
