"""PyTorch: its tensors, their memory, and the routes to and from them.

Quirks handled here:
- torch has no read-only tensors: read-only memory is aliased all the same, as
  ``torch.from_dlpack`` does (zero-copy is the contract), with one AliasWarning
  per process; unitensor still knows the memory is read-only, also when such a
  tensor (or a view of it) comes back: ``readonly`` finds its storage among those
  unitensor lent read-only.
- torch tensors cannot have negative strides, and importing such a DLPack tensor
  can abort the process (pytorch#188023): copied before torch sees it.
- tensors that require grad, or carry a lazy conj/neg bit, refuse ``__dlpack__``:
  detached (no copy) or resolved (a copy) first.
- torch's multiprocessing pickler (any ``multiprocessing`` Queue or Pipe once torch
  is imported) moves a CPU storage into shared memory and frees the old block
  (``share_memory_``): memory unitensor has exposed is pickled as a copy instead,
  a Tensor's own torch tensor and any torch tensor put on a queue (``pickled``).
"""

from __future__ import annotations

import copy as _copy
import functools
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
import torch.autograd.forward_ad as _forward_ad
from torch.multiprocessing.reductions import StorageWeakRef

from ... import _core
from ..._device import CPU, KDL_CPU, KDL_CUDA, Device
from ..._dtypes import DTYPES, DType
from ..._errors import arg_error, copy_or_refuse, describe, warn_read_only_alias
from .. import Watched, _loaded
from .._dlpack import LENT_READ_ONLY, StreamOrder, buffer_from_dlpack

NATIVE_DTYPES = {getattr(torch, n): d for n, d in DTYPES.items() if hasattr(torch, n)}
_TO_TORCH = {d: t for t, d in NATIVE_DTYPES.items()}


ARRAY_TYPES = (torch.Tensor,)
# Sparse tensors (COO, CSR, ...) have no strided memory: refused at asarray, and
# kept off its C fast path, which checks this layout by identity.
DENSE_LAYOUT = ("layout", torch.strided)


def native(obj: object) -> torch.Tensor:
    if not isinstance(obj, torch.Tensor):
        raise arg_error(TypeError, "asarray", "obj", "an array of torch (Tensor)",
                        describe(obj))
    if obj.layout is not torch.strided:
        raise arg_error(TypeError, "asarray", "obj",
                        "a dense (strided) torch tensor; densify a sparse one first "
                        "(.to_dense())", f"a torch tensor of layout {obj.layout}")
    return obj


def device(x: torch.Tensor) -> Device:
    dev = x.device
    if dev.type == "cpu":
        return CPU
    if dev.type == "cuda":
        return Device("cuda", dev.index or 0)
    raise arg_error(ValueError, "asarray", "obj", "a torch tensor on cpu or cuda",
                    f"a tensor on {dev}")


# (bound once: mixed-owner calls ask each torch operand)
_functorch_wrapped = torch._C._functorch.is_functorch_wrapped_tensor


def autodiff_state(x: torch.Tensor) -> str | None:
    """Whether ``x`` is in torch's graph: it requires grad, is a torch.func
    transform's wrapper (``grad``, ``jacrev``, ``vmap``), or a forward-mode dual
    tensor (which does not require grad, but carries a tangent).
    """
    if x.requires_grad:
        return "a torch tensor that requires grad" + (
            " (a leaf of torch's graph)" if x.is_leaf else "")
    if _functorch_wrapped(x):
        return "a tensor of a torch.func transformation"
    # a tangent lives only inside a dual_level() block (leaving it drops them):
    # outside one, unpack_dual (a Python function, ~4 us) need not be asked
    if _forward_ad._current_level >= 0 and _forward_ad.unpack_dual(
            x).tangent is not None:
        return "a forward-mode dual torch tensor (it carries a tangent)"
    return None


def export(x: torch.Tensor) -> _core.Buffer:
    if (x.layout is not torch.strided or x.is_nested
            or x.device.type not in ("cpu", "cuda")):
        kind = "nested" if x.is_nested else str(x.layout).removeprefix("torch.")
        raise arg_error(BufferError, "asarray", "obj",
                        "a strided torch tensor with memory on cpu or cuda",
                        f"a {kind} tensor on {x.device.type}")
    if x.requires_grad:
        x = x.detach()  # same memory; the graph stays with the original tensor
    lent = readonly(x)
    if x.is_conj() or x.is_neg():
        copy_or_refuse("asarray", "obj", None,
                       "torch keeps a lazy conjugate/negation bit that DLPack "
                       "cannot carry")
        x = x.resolve_conj().resolve_neg()
        lent = False  # a copy of its own
    buf = _exchange_import(x)
    if lent:  # memory unitensor lent read-only, come back: read-only again
        buf.mark_readonly()
    return buf


def export_plain(x: torch.Tensor) -> _core.Buffer:
    """:func:`export` of a tensor its caller found plain: of type torch.Tensor,
    strided, on the CPU, without a lazy conjugate or negation bit. The same
    Buffer, without asking again (1 µs less; a bridge's hand-over, which has
    asked), read-only where unitensor lent the memory. The Buffer holds an
    alias of the memory (``detach()``), not ``x``: torch keeps a tensor's
    Python object alive while C++ holds the tensor, and a bridge's kept view
    is dropped when the caller's tensor dies (its weak reference).
    """
    x = x.detach()
    buf = _core.exchange_import(x) if _EXCHANGE else buffer_from_dlpack(x)
    if readonly(x):
        buf.mark_readonly()
    return buf


def _from_numpy(x: np.ndarray) -> torch.Tensor | None:
    """``torch.from_numpy``: torch's own zero-copy route, 3x cheaper than DLPack.

    Only for what it shares exactly: writable (torch would alias read-only memory
    as writable), native dtypes; it refuses negative strides and strides that are
    not whole elements itself.
    """
    if not x.flags.writeable:
        return None
    if x.dtype not in _FROM_NUMPY:
        return None
    try:
        return torch.from_numpy(x)
    except ValueError:  # negative strides, or strides that are not whole elements
        return None


# numpy dtypes (native byte order) that torch.from_numpy shares exactly.
_FROM_NUMPY = {np.dtype(n) for n in ("bool", "int8", "int16", "int32", "int64",
                                     "uint8", "float16", "float32", "float64",
                                     "complex64", "complex128")}


def _lent_from(source: str) -> Callable[[Any], torch.Tensor | None]:
    """The route from ``source``, an immutable framework (jax, tensorflow): its
    adapter's export (read-only) handed to torch's C exchange import, recorded
    in C as lent read-only (``_LENT_READ_ONLY``): the general path's alias without its
    Python, under the cost of ``torch.from_dlpack``. Such memory is aliased as
    ``alias`` aliases it (torch cannot mark it), warned once. None where the
    export or the import is refused, for memory off the CPU (CUDA stream order
    is the general path's) and for torch without the exchange API: the general
    path decides. A hand-over only (``lends_read_only``): an operand only read
    takes the general path, which neither warns nor caches such an alias. Its
    first call (``source`` is loaded then: ``x`` is one of its Tensors' arrays)
    puts the one C call itself in ROUTES, bound to the adapter's export: no
    Python frame after (the export, its checks, the hand-over, the record, and
    the warning while it was not given).
    """
    def route(x: Any) -> torch.Tensor | None:
        direct = ROUTES[source] = _core.bound(
            _core.exchange_lend, _loaded[source].export, torch.Tensor, _LENT_READ_ONLY,
            functools.partial(warn_read_only_alias, "torch", "torch"))
        direct.lends_read_only = True  # type: ignore[attr-defined]
        return direct(x)
    route.lends_read_only = True  # type: ignore[attr-defined]
    return route


# numpy's route, whole in C where torch has the DLPack C exchange API: what
# _from_numpy shares, the same way (writable memory, its dtypes, strides of whole
# elements, none negative), handed to torch's exchange import (ext/_core.c,
# exchange_from_ndarray): half the cost of the Python function around
# torch.from_numpy, and under torch.from_numpy's own.
_FROM_NUMPY_ROUTE = (_core.bound(_core.exchange_from_ndarray, torch.Tensor)
                     if hasattr(torch.Tensor, "__dlpack_c_exchange_api__")
                     else _from_numpy)


def _from_warp(x: Any) -> torch.Tensor | None:  # x: a wp.array
    """Warp's CPU memory as the general path takes it (the warp adapter's
    export, through ``__array_interface__``: 0.15 µs) handed to torch's C exchange
    import, without the general path's Python: a third of ``wp.to_torch``, which
    goes through Warp's ``__dlpack__`` (11 µs). None where the general path
    decides otherwise: memory off the CPU, read-only memory (warned and lent), a
    negative stride (copied and reported), torch without the exchange API.
    """
    if not _EXCHANGE or not x.device.is_cpu:
        return None
    buf = _loaded["warp"].export(x)  # loaded: x is a Warp-owned Tensor's array
    if buf.readonly or min(buf.strides, default=0) < 0:
        return None
    return _core.exchange_export(buf, torch.Tensor)


ROUTES: Watched[str, Callable[[Any], Any]] = Watched(numpy=_FROM_NUMPY_ROUTE,
                                                    warp=_from_warp)


def copy_reason(buf: _core.Buffer, reading: bool = False) -> str | None:
    if buf.readonly and not reading:  # an operand, only read, is no hand-over
        warn_read_only_alias("torch", "torch")
    if min(buf.strides, default=0) < 0:
        return "torch tensors cannot have negative strides"
    if buf.device[0] == KDL_CUDA and not cuda_devices():
        raise _no_cuda()
    if buf.device[0] not in (KDL_CPU, KDL_CUDA):
        return "torch reads CPU and CUDA memory only"
    return None


def alias(buf: _core.Buffer) -> torch.Tensor:
    if _EXCHANGE and buf.device[0] == KDL_CPU:
        # 2.5x cheaper than torch.from_dlpack; read-only memory recorded in C
        return _core.exchange_export(buf, torch.Tensor, _LENT_READ_ONLY)
    x = torch.from_dlpack(buf)
    if buf.readonly:
        _lend_read_only(x)
    return x


# Memory unitensor lent torch read-only (torch cannot mark its tensors). CPU
# memory, handed over through the C exchange: the address it starts at -> the
# number of torch storages alive over it, kept by the export in C (counted when
# made, taken back by the export's deleter when torch frees the storage's
# memory, so the address cannot name other memory while it is counted). CUDA
# memory (torch.from_dlpack): the storage's address -> torch's weak reference to
# it, which keeps the storage's record allocated (not its memory) until it is
# dropped, to the same end.
_LENT_READ_ONLY: _core.LentTable = LENT_READ_ONLY  # (_dlpack.py)
_LENT_CUDA: dict[int, StorageWeakRef] = {}
_swept_at = 64  # the CUDA table's size that triggers the next sweep of dead entries


def _lend_read_only(x: torch.Tensor) -> None:
    global _swept_at
    storage = x.untyped_storage()
    _LENT_CUDA[storage._cdata] = StorageWeakRef(storage)
    if len(_LENT_CUDA) >= _swept_at:
        for key in [k for k, ref in _LENT_CUDA.items() if ref.expired()]:
            del _LENT_CUDA[key]
        _swept_at = 2 * len(_LENT_CUDA) + 64


def readonly(x: torch.Tensor) -> bool:
    """Whether ``x``'s memory is memory unitensor lent read-only (its storage,
    which views of ``x`` share): torch itself has no read-only tensors.
    """
    # Dynamo's fake tensors have no real storage to look up (and reading one, or
    # the length of the table in C, would break the graph): asked first
    if torch.compiler.is_compiling():
        return False
    if not _LENT_READ_ONLY and not _LENT_CUDA:  # nothing lent: the common case
        return False
    try:
        storage = x.untyped_storage()
    except (RuntimeError, NotImplementedError):  # sparse, nested: no storage
        return False
    if x.is_cpu:
        return storage.data_ptr() in _LENT_READ_ONLY
    ref = _LENT_CUDA.get(storage._cdata)
    return ref is not None and not ref.expired()


# torch >= 2.13 publishes the DLPack 1.3 C exchange API: the C extension imports
# and exports through it, without torch's Python-level __dlpack__/from_dlpack.
# (Only on the CPU: CUDA memory keeps the stream-aware Python protocol.)
_EXCHANGE = hasattr(torch.Tensor, "__dlpack_c_exchange_api__")
if _EXCHANGE:  # (below: the routes' records of memory lent read-only)
    ROUTES.update(jax=_lent_from("jax"), tensorflow=_lent_from("tensorflow"))


def _exchange_import(x: torch.Tensor) -> _core.Buffer:
    """A Buffer over ``x`` (already detached and resolved: torch's exchange export
    ignores the conj/neg bits, unlike its ``__dlpack__``).
    """
    if x.device.type == "cpu":
        if _EXCHANGE and type(x) is torch.Tensor:
            return _core.exchange_import(x)
        return buffer_from_dlpack(x)
    # CUDA: torch exports only from the tensor's own device; -1 syncs nothing
    # now: each consumer waits for torch's stream when it imports (producer()).
    with torch.cuda.device(x.device.index or 0):
        return buffer_from_dlpack(x, stream=-1)


def cuda_devices() -> int:
    # is_available() first: a CPU build has no device count to ask, and a CUDA
    # build on a machine without a GPU answers 0 without starting CUDA
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def _no_cuda() -> BufferError:
    """PyPI's torch is a CUDA build, also on machines without a GPU: is_built()
    alone says nothing of a device, and asking such a torch about a stream
    raises its own RuntimeError.
    """
    if not torch.backends.cuda.is_built():
        return arg_error(BufferError, "torch", "x",
                         "CPU memory (this build of torch has no CUDA support)",
                         "CUDA memory")
    return arg_error(BufferError, "torch", "x", "CPU memory, or CUDA memory on a "
                     "machine with a CUDA device", "CUDA memory, and torch (a CUDA "
                     "build) finds no CUDA device here")


def consumer_stream(device: int) -> int:
    """The framework's current stream on ``device``: it reads and writes there."""
    if not cuda_devices():  # never asked where torch has no device
        raise _no_cuda()
    # torch's default stream is CUDA's legacy default stream, handle 0: DLPack's 1
    return torch.cuda.current_stream(device).cuda_stream or 1


def _stream(handle: int, device: int) -> torch.cuda.Stream:
    # DLPack's 1 is CUDA's legacy default stream, torch's default one; c10 takes
    # ExternalStream(1) for an invalid stream id (odd ids are its own streams),
    # so torch's __dlpack__ maps 1 the same way. 2 (per-thread) is a handle.
    if handle == 1:
        return torch.cuda.default_stream(device)
    return torch.cuda.ExternalStream(handle, device=device)


def _order_streams(device: int, first: int, then: int) -> None:
    with torch.cuda.device(device):
        event = torch.cuda.Event()
        event.record(_stream(first, device))
        _stream(then, device).wait_event(event)


def producer(device: int) -> StreamOrder:
    return StreamOrder(device, consumer_stream, _order_streams)


def copy(x: torch.Tensor) -> torch.Tensor:
    return x.clone()  # differentiable, as torch.asarray(x, copy=True)


def deepcopy(x: torch.Tensor) -> torch.Tensor:
    """A new leaf, as torch's own deepcopy gives (a clone would stay in ``x``'s
    graph: backward through it would write ``x.grad``); of a non-leaf too, which
    torch's deepcopy refuses.
    """
    if not x.requires_grad:
        return x.clone()
    if x.is_leaf:
        return _copy.deepcopy(x)  # its .grad copied too, a Parameter kept one
    return x.detach().clone().requires_grad_()


# -- pickling: nothing unitensor points into may move ----------------------------
# torch registers reduce_tensor with multiprocessing's ForkingPickler: it calls
# share_memory_() on a CPU storage not yet shared, which copies it into shared
# memory, swaps the storage's data pointer and frees the old block, under every
# view unitensor made earlier (a Buffer, t.numpy(), t.jax()): a use-after-free.
def pickled(x: torch.Tensor) -> torch.Tensor:
    """A Tensor's torch tensor as a pickler gets it: itself where pickling moves
    nothing that is not torch's alone, else a copy (a storage unitensor exposes,
    or memory torch does not own: an alias of numpy's or of a Buffer, whose
    move would silently end the aliasing).
    """
    return _unmoved(x, foreign=True)


def _unmoved(x: torch.Tensor, foreign: bool) -> torch.Tensor:
    """``x``, or a copy where share_memory_() on ``x``'s storage would pull memory
    from under unitensor's views (``foreign``: or from its non-torch owner).
    """
    if x.device.type != "cpu" or x.layout is not torch.strided or x.is_nested or (
            x.requires_grad and not x.is_leaf):  # (torch refuses to send that)
        return x
    storage = x.untyped_storage()
    if storage.is_shared() or storage.nbytes() == 0:  # share_memory_ moves nothing
        return x
    if not _core.exposed(storage.data_ptr(), storage.nbytes()) and not (
            foreign and not storage.resizable()):  # (torch's own allocations resize)
        return x
    copied = x.detach().clone()
    if isinstance(x, torch.nn.Parameter):
        return torch.nn.Parameter(copied, requires_grad=x.requires_grad)
    return copied.requires_grad_(x.requires_grad)


def _reduce_tensor(x: torch.Tensor) -> Any:
    """torch's multiprocessing reduction of ``x``, never moving memory that
    unitensor exposes (a torch tensor handed to a Queue as it is: ``t.native``).
    """
    return _TORCH_REDUCE_TENSOR(_unmoved(x, foreign=False))


def _guard_multiprocessing() -> None:
    """Put _reduce_tensor in front of torch's reduction for the tensor types
    torch registers it for (``import torch`` has done so already).
    """
    from multiprocessing.reduction import ForkingPickler
    for kind in (torch.Tensor, torch.nn.Parameter):
        ForkingPickler.register(kind, _reduce_tensor)


_TORCH_REDUCE_TENSOR = torch.multiprocessing.reductions.reduce_tensor
_guard_multiprocessing()


def astype(x: torch.Tensor, dtype: DType) -> torch.Tensor:
    return x.to(torch_dtype(dtype))


def torch_dtype(dtype: DType) -> torch.dtype:
    return _TO_TORCH[dtype]


def to_device(x: torch.Tensor, device: Device) -> torch.Tensor:
    return x.to(str(device))


def from_python(obj: object, dtype: DType | None) -> torch.Tensor:
    """Python data; without ``dtype``, floats make float64 and complex numbers
    complex128 on the CPU, as on every owner (torch's own inference: float32 and
    complex64, its default dtype; see namespace.py's creation functions).
    """
    x = torch.asarray(obj, dtype=None if dtype is None else torch_dtype(dtype))
    if dtype is None and x.dtype in _NARROW_DEFAULTS and x.device.type == "cpu" and (
            _python_numbers_only(obj)):
        x = torch.asarray(obj, dtype=_NARROW_DEFAULTS[x.dtype])
    return x


# torch's default dtypes for Python floats and complex numbers -> unitensor's
_NARROW_DEFAULTS = {torch.float32: torch.float64, torch.complex64: torch.complex128}


def _python_numbers_only(obj: object) -> bool:
    """Whether ``obj`` is Python numbers (nested in lists and tuples) only: a
    torch tensor inside keeps its own dtype.
    """
    if isinstance(obj, (list, tuple)):
        return all(_python_numbers_only(item) for item in obj)
    return isinstance(obj, (bool, int, float, complex))
