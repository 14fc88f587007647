"""Where memory crosses between frameworks: asarray, from_dlpack and the views.

The copy rule lives here, in one place: a framework that cannot alias some
memory says why (``copy_reason``); the copy then happens only if the caller's
``copy`` allows it, and ``copy=None`` reports it with a :class:`CopyWarning`.

"Made once and cached" holds under threads: a view is cached with ``setdefault``
(the first one cached is the one every caller gets), the Aliases record and the
Buffer are filled under a lock (the Buffer's, per record, held while a lazy owner
computes), and every read of a cache filled already takes no lock.

A Tensor is made here from its C storage (``_fast.make_tensor``, ``_fast.Aliases``)
and recognised by it (``_fast.TensorBase``, whose one subclass with instances is
``unitensor.Tensor``): ``_tensor.py`` builds on this module, not the other way.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, cast

from . import _backends, _core, _fast, _fastpath
from ._backends._dlpack import buffer_from_dlpack
from ._config import new_array_owner
from ._device import CPU_READABLE, CUDA_READABLE, Device
from ._dtypes import DType, check_int
from ._dtypes import parse as parse_dtype
from ._errors import (
    arg_error,
    as_argument,
    copy_or_refuse,
    copy_refused,
    describe,
    is_ours,
    refused,
    renamed,
    restated,
)

if TYPE_CHECKING:
    from ._backends._adapter import Adapter
    from ._tensor import Tensor

_TensorBase = _fast.TensorBase
_make = _fast.make_tensor
_Aliases = _fast.Aliases
_SCALARS = (bool, int, float, complex)
_BY_TYPE = _backends._by_type  # the per-type cache, read directly on the hot path
_LOADED = _backends._loaded
_ACCEPTED = ("an array from numpy, torch, jax, cupy, tensorflow or array_api_strict, "
             "a DLPack capsule, an object with __dlpack__, __array_interface__, "
             "__cuda_array_interface__, the buffer protocol or __array__, a Python "
             "scalar or a nested sequence of numbers")


_CAPSULE_TYPE = _core.CAPSULE_TYPE


def _asarray(obj: Any, /, *, dtype: DType | None = None, device: Any = None,
             copy: bool | None = None) -> Tensor:
    """Wrap ``obj`` as a Tensor, zero-copy where it is already an array.

    Parameters
    ----------
    obj : array, capsule, protocol object, scalar or nested sequence
        A Tensor; an array of numpy, torch, jax, cupy, tensorflow or
        array_api_strict (the Tensor is then owned by that framework); a DLPack
        capsule; any object exporting ``__dlpack__``, ``__cuda_array_interface__``,
        ``__array_interface__`` or the buffer protocol; a Python scalar or a
        nested sequence of them (made by the default owner).
    dtype : DType, str or a framework's dtype, optional
        The result's dtype; a different one converts (a copy).
    device : Device, str or a framework's device, optional
        The result's device; a different one copies.
    copy : bool, optional
        ``True`` always copies, ``False`` never does (an error where one would
        be needed, see Raises), ``None`` copies only where it must, with a
        :class:`CopyWarning` naming why.

    Returns
    -------
    Tensor
        Owned by ``obj``'s framework, or by the natural owner of its memory.

    Raises
    ------
    TypeError
        ``obj`` is of no accepted kind, or its dtype is not a standard one.
    BufferError
        The memory cannot be described (e.g. a layout DLPack cannot express).
    ValueError
        ``copy=False`` where a copy is needed (another dtype or device, Python
        data, non-native byte order): the standard's type for ``asarray``.
    """
    kind = type(obj)
    if issubclass(kind, _TensorBase):
        t = obj
    else:
        backend = _BY_TYPE.get(kind) or _backends.for_type(kind)
        if backend is not None:
            t = _from_native(backend, obj, copy)
            _fastpath.learn("asarray", backend, kind)
        else:
            t = _from_foreign(obj, "asarray", "obj")
            if t is None:
                if not hasattr(kind, "__array__") or isinstance(
                        obj, (*_SCALARS, list, tuple)):
                    return _from_python(obj, _dtype(dtype), device, copy)
                t = _from_array_method(obj, copy)
                copy = None if copy is True else copy  # made by the call, if asked
    if dtype is None and device is None and copy is None:
        return t
    return _adjust(t, _dtype(dtype), device, copy, "asarray")


_asarray.__name__ = _asarray.__qualname__ = "asarray"
# A Tensor, or an array of a type and dtype seen before, is wrapped in C
# (_fastpath.py); the C code calls _asarray for everything else.
asarray = _fastpath.asarray(_asarray)


def from_dlpack(x: Any, /, *, device: Any = None,
                copy: bool | None = None) -> Tensor:
    """Import ``x`` through DLPack, zero-copy.

    Arrays of a known framework stay owned by it; anything else is wrapped by
    the natural owner of its device (numpy for CPU memory, cupy for CUDA).

    Parameters
    ----------
    x : object with ``__dlpack__``, or a DLPack capsule
        The producer (a capsule is consumed: it can be imported once).
    device : Device, str or a framework's device, optional
        The result's device; a different one copies.
    copy : bool, optional
        ``True`` always copies, ``False`` never does, ``None`` only where needed.

    Returns
    -------
    Tensor
        Over the producer's memory, keeping the producer alive.

    Raises
    ------
    TypeError
        ``x`` is neither a capsule nor has ``__dlpack__``, or its dtype is not
        a standard one.
    BufferError
        The capsule is malformed or its memory cannot be read where it is, or
        ``copy=False`` where a copy is needed (another device): the standard's
        type for ``from_dlpack``.
    """
    kind = type(x)
    backend = None if issubclass(kind, _TensorBase) else _backends.for_type(kind)
    if backend is not None and hasattr(x, "__dlpack__"):
        # a framework's array: its owner keeps it, as it is (copy=False refuses
        # what only a copy can give, a swap of byte order, as a BufferError)
        try:
            t = _from_native(backend, x, copy, "from_dlpack")
        except (TypeError, BufferError) as exc:  # a dtype no Tensor holds
            error = as_argument("from_dlpack", "x", exc)
            if error is None:
                raise
            raise error from exc
        return t if device is None and copy is None else _adjust(
            t, None, device, copy, "from_dlpack")
    if backend is None and issubclass(kind, _TensorBase):
        return x if device is None and copy is None else _adjust(
            x, None, device, copy, "from_dlpack")
    if kind is _CAPSULE_TYPE:
        buf = _core.from_capsule(x, func="from_dlpack", arg="x")
    elif hasattr(x, "__dlpack__"):
        buf = _import_dlpack(x, "from_dlpack", "x")
    else:
        raise arg_error(TypeError, "from_dlpack", "x",
                        "an object with __dlpack__ or a DLPack capsule", describe(x))
    t = _from_buffer(buf, "from_dlpack")
    if device is None and copy is None:
        return t
    return _adjust(t, None, device, copy, "from_dlpack")


def view(t: Tensor, framework: str, copy: bool | None,
         func: str, what: str | None = None, guarded: bool = False) -> Any:
    """``t``'s memory as ``framework``'s array: zero-copy, cached; or a copy,
    reported naming ``func`` (and ``what``, the array's place in the call).
    ``guarded``: the caller refuses writes into read-only memory while the view
    lives (a bridge's guard), so it is lent as for reading: no AliasWarning,
    never cached.
    """
    return _view(t, framework, copy, func, guarded, what)


def operand(t: Tensor, backend: Adapter, func: str) -> Any:
    """``t``'s memory as ``backend``'s array for an operation that only reads it.

    Zero-copy where the framework can alias it, even read-only memory for a
    framework without read-only arrays (that alias is never cached or handed
    out); otherwise a reported copy.
    """
    return _view(t, backend.NAME, None, func, True)


def _view(t: Tensor, framework: str, copy: bool | None, func: str,
          reading: bool, what: str | None = None) -> Any:
    if t._view is not None and not t._backend.IMMUTABLE and copy is not True:
        return _of_own_copy(t, framework, func)
    if copy is None or copy is False:
        aliases = t._aliases
        if aliases is not None:
            cached = aliases.views.get(framework)
            if cached is not None:
                if aliases.ordered:
                    _order(aliases, framework)
                return cached
        if framework == t._backend.NAME:
            return t._native
    elif copy is not True:
        raise arg_error(TypeError, func, "copy", "True, False or None", describe(copy))
    if reading:  # (past the cached views: a symbolic array has none)
        symbolic = no_memory(t)
        if symbolic is not None:  # a traced operand that is not the left-most
            raise arg_error(TypeError, func, "operands", f"arrays {framework} can "
                            "read, the owner rule's choice (the left-most array's "
                            "owner; inside tf.function or a jax transformation, "
                            "put a traced array left-most or use ut.owner())",
                            symbolic)
    target = _LOADED.get(framework) or _backends.get(framework, func)
    if copy is not True:
        route = target.ROUTES.get(t._backend.NAME)
        if reading and getattr(route, "lends_read_only", False):
            route = None  # (it would warn and cache an alias only lent for a call)
        native = None if route is None else route(t._native)
        if native is not None:  # the framework's own zero-copy route
            return cast(Any, shared(t).views.setdefault(framework, native))
    buf = buffer_of(t, func)
    reason = target.copy_reason(buf, reading)
    if copy is True or reason is not None:
        if copy is not True:
            copy_or_refuse(func, "copy", copy, str(reason), what)
        return target.alias(_copied_buffer(t, buf, target))
    native = target.alias(buf)
    # a writable alias stays private to the call; a JAX (or TF) array is ordered
    # after the producer once, when it is imported (JAX records its readiness
    # then): over memory a producer may write again, it is imported each time
    if not (reading and buf.readonly) and not (
            target.IMMUTABLE and buf.producer is not None):
        return cast(Any, shared(t).views.setdefault(framework, native))
    return native


def _of_own_copy(t: Tensor, framework: str, func: str) -> Any:
    """A view ``t`` whose array is its own copy (torch's flip, which torch cannot
    take as a view of its base) as ``framework``'s array: never an alias a write
    would go into while its base stays as it was -- read-only where the framework
    can say so (numpy's), else a copy (torch's own tensor, as numpy's owner gives
    a flip of its memory to torch).
    """
    if framework == t._backend.NAME:
        return t._backend.copy(t._native)
    buf = exported_buffer(t, func)
    target = _LOADED.get(framework) or _backends.get(framework, func)
    reason = target.copy_reason(buf, True)
    return target.alias(_copied_buffer(t, buf, target) if reason else buf)


# Guards only the making of an Aliases record and of its fill lock: nothing that
# runs while it is held takes another lock or calls into a framework.
_MAKING = threading.Lock()


def shared(t: Tensor) -> _Aliases:
    """The record shared by every Tensor aliasing ``t``'s memory, made once."""
    aliases = t._aliases
    if aliases is None:
        with _MAKING:
            aliases = t._aliases
            if aliases is None:
                aliases = t._aliases = _Aliases()
    return aliases


def check_no_graph(t: Tensor, func: str) -> None:
    """Refuse a numpy array of memory in an autodiff graph (a torch tensor that
    requires grad) to the user (``.numpy()``, ``np.asarray``, ``.to("numpy")``):
    numpy would drop the graph silently, and torch's own ``.numpy()`` refuses it
    so (numpy's route from torch declines such tensors, so they reach the Python
    method). ``.detach()`` first says the graph may go. ``ut.wrap``'s bridges,
    which carry the graph themselves, convert past this check.
    """
    state = t._backend.autodiff_state(t._native)
    if state is not None and no_memory(t) is None:  # (a tracer: no memory, said so)
        raise arg_error(ValueError, func, "self", "an array outside any autodiff "
                        "graph (a numpy array of it would drop the graph silently: "
                        "take x.detach() first, as torch's own .numpy() advises)",
                        state)


def exported_buffer(t: Tensor, func: str) -> _core.Buffer:
    """The Buffer ``t`` hands to another framework: ``buffer_of(t)``, or for a
    view whose array is its own copy (torch's flip), a read-only one (not the
    Tensor's own Buffer, which would make the view itself read-only): a write
    into that copy would not reach the view's base.
    """
    if t._view is None or t._backend.IMMUTABLE:
        return buffer_of(t, func)
    check_memory(t, func)
    buf = _exported(t._backend, t._native)
    buf.mark_readonly()
    return buf


def buffer_of(t: Tensor, func: str = "__dlpack__") -> _core.Buffer:
    """The Buffer over ``t``'s memory, exported from its owner on first need;
    ``TypeError`` naming ``func`` where ``t`` has none (a symbolic tensor).

    Exported once, also under threads: a lazy owner (dask) computes its graph
    once, under the record's own lock (a chunk that converts other Tensors on a
    worker thread takes theirs, never this one).
    """
    aliases = shared(t)
    buf = aliases.buffer
    if buf is not None:
        return buf
    lock = aliases.lock
    if lock is None:
        with _MAKING:
            lock = aliases.lock
            if lock is None:
                lock = aliases.lock = threading.RLock()
    with lock:
        buf = aliases.buffer
        if buf is None:
            check_memory(t, func)
            buf = _exported(t._backend, t._native)
            aliases.ordered = buf.producer is not None
            aliases.buffer = buf  # last: a reader without the lock sees it whole
    return buf


# -- CUDA streams: every consumer's stream waits for the producer's work -------
# A Buffer of CUDA memory holds its producer (the owner's current stream, through
# the adapter): each __dlpack__(stream=...) of it makes the consumer's stream wait
# for that one (ext/_core.c), and a cached view, handed out again, does the same
# (_order). A framework's JAX-like exports, ready once exported, need none.
def _exported(backend: Adapter, native: Any) -> _core.Buffer:
    """``backend.export(native)``, with its producer where it is CUDA memory."""
    buf = backend.export(native)
    if buf.device[0] in CUDA_READABLE:
        buf.producer = backend.producer(buf.device[1])
    return buf


def _order(aliases: _Aliases, framework: str) -> None:
    """The stream ``framework`` reads on now waits for the producer's work:
    a cached view of CUDA memory is handed out again.
    """
    buf = cast(_core.Buffer, aliases.buffer)  # `ordered` is set with it
    target = _LOADED.get(framework) or _backends.get(framework)
    buf.order(target.consumer_stream(buf.device[1]))


# -- the DLPack C exchange API (Tensor as producer): the parts that need Python ---
# ext/_core.c publishes the table; a consumer in C calls these only where the
# Tensor has no Buffer yet, gives back a tensor, or asks for a CUDA stream.
_EXCHANGE = "__dlpack_c_exchange_api__"


def exchange_buffer(t: Tensor) -> _core.Buffer:
    """The Buffer a managed tensor of ``t`` is exported from (made once)."""
    return buffer_of(t, _EXCHANGE)


def exchange_tensor(buf: _core.Buffer) -> Tensor:
    """A Tensor over a managed tensor a consumer hands back, as from_dlpack wraps."""
    return _from_buffer(buf, _EXCHANGE)


def exchange_stream(device_type: int, device_id: int) -> int | None:
    """The stream a C consumer runs on for CUDA memory on ``device_id``: the
    current one of the framework that wraps CUDA memory (cupy, else torch), as
    a ``__dlpack__`` stream number (1: the legacy default stream).
    """
    try:
        producer = _natural_cuda_owner(_EXCHANGE).producer(device_id)
        return None if producer is None else producer.stream()
    except Exception as exc:  # no CUDA here: the C consumer's request is refused
        if not is_ours(exc):
            raise
        raise restated(exc, ValueError, "current_work_stream", "device_type") from exc


def _import_dlpack(obj: Any, func: str, arg: str) -> _core.Buffer:
    """A foreign producer's memory; on CUDA, ordered before the stream of the
    framework that will own it (the producer waits as ``__dlpack__`` asks).
    """
    device = obj.__dlpack_device__() if hasattr(obj, "__dlpack_device__") else None
    stream = None
    if device is not None and device[0] in CUDA_READABLE:
        owner = _natural_cuda_owner(func)
        _check_reachable(owner, device[1], func, arg)
        stream = owner.consumer_stream(device[1])
    return buffer_from_dlpack(obj, func, arg, stream)


def no_memory(t: Tensor) -> str | None:
    """Why ``t`` has no memory (a symbolic tensor, a tracer), or None."""
    return t._backend.no_memory(t._native)


def check_memory(t: Tensor, func: str) -> None:
    """``TypeError`` naming ``func`` where ``t`` has no memory (a symbolic tensor
    inside ``tf.function``): conversions that read or share memory cannot run.
    """
    reason = no_memory(t)
    if reason is not None:
        raise arg_error(TypeError, func, "self", "an array with memory (inside "
                        "tf.function or a jax transformation, compute with "
                        "unitensor's functions and return .tf() or .jax(); "
                        "convert the function's result)", reason)


# -- helpers ---------------------------------------------------------------------
def _from_native(backend: Adapter, obj: Any, copy: bool | None,
                 func: str = "asarray") -> Tensor:
    native = backend.native(obj)
    try:
        backend.dtype(native)
    except BufferError:
        fixed = backend.fix_byte_order(native)
        if fixed is None:
            raise
        copy_or_refuse(func, "copy", copy, "the array is in non-native byte order")
        native = fixed
    return _make(backend, native)


def _from_foreign(obj: Any, func: str, arg: str) -> Tensor | None:
    """A Tensor for a capsule or a protocol object; None for anything else.
    Errors name ``func`` and ``arg``, the public call and its argument.
    """
    kind = type(obj)
    if kind is _core.Buffer:
        return _from_buffer(obj, func)
    if kind is _CAPSULE_TYPE:
        return _from_buffer(_core.from_capsule(obj, func=func, arg=arg), func)
    if hasattr(kind, "__dlpack__"):
        return _from_buffer(_import_dlpack(obj, func, arg), func)
    if hasattr(obj, "__cuda_array_interface__"):
        device_id = _cuda_device_of(obj.__cuda_array_interface__["data"][0])
        return _from_buffer(_core.from_cuda_array_interface(obj, device_id, func=func,
                                                                   arg=arg), func)
    if hasattr(obj, "__array_interface__"):
        return _from_buffer(_core.from_array_interface(obj, func=func, arg=arg), func)
    if kind not in (str, list, tuple) and not isinstance(obj, _SCALARS):
        try:
            memoryview(obj).release()
        except TypeError:
            return None
        return _from_buffer(_core.from_buffer(obj, func=func, arg=arg), func)
    return None


def _from_buffer(buf: _core.Buffer, func: str) -> Tensor:
    """Wrap a foreign Buffer by its device's natural framework."""
    if buf.device[0] in CPU_READABLE:
        owner = _backends.get("numpy", func)
    elif buf.device[0] in CUDA_READABLE:
        owner = _natural_cuda_owner(func)
    else:
        raise arg_error(BufferError, func, "x", "memory on a CPU or CUDA device",
                        f"memory on device {Device.from_dlpack(buf.device)}")
    reason = owner.copy_reason(buf)
    if reason is not None:  # e.g. numpy cannot see memory on another device
        raise arg_error(BufferError, func, "x", f"memory that {owner.NAME} can read",
                        f"memory it cannot: {reason}")
    aliases = _Aliases(buf)
    if buf.device[0] in CUDA_READABLE:
        if buf.producer is None:
            producer = owner.producer(buf.device[1])
            if producer is not None and buf.stream is not None:
                # __cuda_array_interface__ v3: the owner's stream waits for the
                # exporter's
                producer.follow(buf.stream)
            buf.producer = producer
        # (a Tensor's Buffer, given back, keeps its producer: owner.alias() below
        # waits for it)
        aliases.ordered = buf.producer is not None
    return _make(owner, owner.alias(buf), aliases)


def _natural_cuda_owner(func: str) -> Adapter:
    """cupy where installed, else torch (which refuses if built without CUDA)."""
    for name in ("cupy", "torch"):
        try:
            return _backends.get(name, func)
        except ImportError:
            continue
    raise arg_error(BufferError, func, "x",
                    "CPU memory, or CUDA memory with cupy or a CUDA torch installed",
                    "CUDA memory, and neither cupy nor torch is installed")


def _check_reachable(owner: Adapter, index: int, func: str, arg: str) -> None:
    """BufferError where ``owner`` cannot reach CUDA device ``index``: asked
    before any stream or copy, which such a framework answers with its raw error
    (torch's CPU build: an AssertionError).
    """
    count = owner.cuda_devices() or 0
    if index >= count:
        raise arg_error(BufferError, func, arg, f"memory on a CUDA device "
                        f"{owner.NAME} can reach here",
                        f"memory on cuda:{index}, and {owner.NAME} sees "
                        f"{count or 'no'} CUDA device{'s' * (count != 1)}")


def _cuda_device_of(pointer: int) -> int:
    return _natural_cuda_owner("asarray").cuda_device_of(pointer)


def _from_array_method(obj: Any, copy: bool | None) -> Tensor:
    """A numpy-owned Tensor for an object that offers only ``__array__``
    (pandas, xarray, h5py, PIL images): numpy's own reading of it, over the
    object's memory where ``__array__`` gives a view; ``copy=False`` where it
    cannot is the standard's ValueError (numpy's, its cause).
    """
    import numpy as np  # a dependency; imported here, not by import unitensor

    numpy = _backends.get("numpy", "asarray")
    try:
        native = np.asarray(obj, copy=copy)
    except ValueError as exc:
        if copy is not False:
            raise
        raise arg_error(ValueError, "asarray", "copy", "True or None, since a copy "
                        f"is needed: the __array__ of {describe(obj)} makes one",
                        "False") from exc
    return _from_native(numpy, native, copy)


def _from_python(obj: Any, dtype: DType | None, device: Any,
                 copy: bool | None) -> Tensor:
    """A new array from Python scalars and sequences, made by the framework an
    open ``owner()`` block names, else by the default owner.
    """
    if not isinstance(obj, (*_SCALARS, list, tuple)):
        raise arg_error(TypeError, "asarray", "obj", _ACCEPTED, describe(obj))
    if copy is False:
        raise arg_error(ValueError, "asarray", "copy",
                        "True or None for Python data (making an array copies it)",
                        "False")
    owner = new_array_owner(device)
    if dtype is not None or not isinstance(obj, _SCALARS):
        obj = _natives_in(obj, owner, dtype)
    try:
        native = owner.from_python(obj, dtype)
    except Exception as exc:  # e.g. torch's RuntimeError for nan as an integer
        error = _refusal("asarray", owner, exc)
        if error is None:
            raise
        raise error from exc
    t = _make(owner, native)
    return t if device is None and copy is None else _adjust(
        t, None, device, copy if copy is not True else None, "asarray")


def python_data(obj: list[Any], owner: Adapter, dtype: DType | None) -> Any:
    """``owner``'s array of a list of Python data (a list index, ``x[[0, 1]]``),
    its elements checked as ``asarray`` checks them (no strs, bytes or None).
    """
    return owner.from_python(_natives_in(obj, owner, dtype), dtype)


def _refusal(func: str, owner: Adapter, exc: Exception) -> Exception | None:
    """What to raise for ``exc`` from ``owner`` inside ``func`` (raised from it):
    a framework's exception mapped, ours naming ``func``; None to pass it on.
    """
    if is_ours(exc):
        return renamed(func, exc)
    return refused(exc, owner.error_type(exc), func, owner.NAME)


def _natives_in(obj: Any, owner: Adapter, dtype: DType | None, depth: int = 0) -> Any:
    """Python data with its Tensors (0-d ones, typically) made ``owner``'s, or
    Python numbers where a dtype is given (torch cannot read its own uint16/32/64
    0-d tensors in a list), and its Python ints checked against an integer
    ``dtype`` (frameworks may wrap them). ``depth``: the sequences around ``obj``.
    """
    if type(obj) is int:
        if dtype is not None:
            check_int(dtype, obj, "asarray", "obj")
        return obj
    if isinstance(obj, _TensorBase):
        t = cast("Tensor", obj)  # TensorBase's one class with instances
        if dtype is not None and not t.shape:
            kind = t.dtype.kind
            number = bool if kind == "bool" else complex if kind.startswith(
                "complex") else float if kind.endswith("floating") else int
            return number(t)
        return view(t, owner.NAME, None, "asarray")
    if isinstance(obj, (list, tuple)):
        if depth == _core.MAX_NDIM:  # no array has more dimensions (a cycle has
            # infinitely many): refused before the recursion overflows the stack
            raise arg_error(ValueError, "asarray", "obj",
                            f"a sequence nested at most {_core.MAX_NDIM} deep",
                            "one nested deeper, or containing itself")
        return [_natives_in(item, owner, dtype, depth + 1) for item in obj]
    if obj is None or isinstance(obj, (str, bytes)):
        # as the numpy owner refuses them, before a framework makes strings or
        # objects of them (TF's tf.string tensors have no dtype of ours, and
        # casting one aborted the process)
        raise arg_error(TypeError, "asarray", "obj", "a Python scalar or nested "
                        "sequence of bool, int, float or complex",
                        f"an element of type {type(obj).__name__!r}")
    return obj


def _dtype(dtype: Any) -> DType | None:
    return None if dtype is None else parse_dtype(dtype, "asarray")


def _copied_buffer(t: Tensor, buf: _core.Buffer, target: Adapter) -> _core.Buffer:
    """A fresh, aligned, compact copy of ``t``'s memory for ``target``."""
    if buf.device[0] in CPU_READABLE:
        return buf.copy()
    # Device memory: the owner copies it (to the CPU if the target needs that).
    native = t._backend.copy(t._native)
    copied = _exported(t._backend, native)
    if target.copy_reason(copied) is not None:
        native = t._backend.to_device(native, Device("cpu"))
        return _backends.get("numpy").export(native)
    return copied


def to_device(t: Tensor, device: Any, stream: Any) -> Tensor:
    """``Tensor.to_device``: ``t`` on ``device``; with a CUDA ``stream``, work
    queued on it afterwards finds the result complete (it waits for the copy).
    """
    handle = _stream_handle(stream)
    if handle is not None and CUDA_READABLE.isdisjoint((
            _backends.parse_device(device, "to_device").dlpack[0],
            t.device.dlpack[0])):
        raise arg_error(ValueError, "to_device", "stream",
                        "None for a move between CPU devices", describe(stream))
    moved = _adjust(t, None, device, None, "to_device")
    if handle is not None and moved.device.dlpack[0] in CUDA_READABLE:
        buffer_of(moved, "to_device").order(handle)
    return moved


def _stream_handle(stream: Any) -> int | None:
    """A CUDA stream as ``__dlpack__`` takes it: an int as it is, a torch or
    cupy stream object by its handle (0, the legacy default stream, as 1).
    """
    if stream is None:
        return None
    if type(stream) is int:
        if stream == 0 or stream < -1:
            raise arg_error(ValueError, "to_device", "stream", "None, -1 (no "
                            "synchronisation), 1 (the legacy default stream), 2 "
                            "(the per-thread default stream) or a CUDA stream "
                            "handle", describe(stream))
        return stream
    handle = getattr(stream, "cuda_stream", getattr(stream, "ptr", None))
    if type(handle) is not int:
        raise arg_error(TypeError, "to_device", "stream",
                        "None, an int (a CUDA stream as __dlpack__ takes it) or a "
                        "torch or cupy CUDA stream", describe(stream))
    return handle or 1


def _to_device(backend: Adapter, native: Any, target: Device, func: str) -> Any:
    """``native`` moved to ``target`` by its framework: a CUDA device it cannot
    reach is a ValueError naming ``device``, asked before the framework is; its
    other refusals mapped to the standard's types, the cause kept.
    """
    count = backend.cuda_devices() if target.kind == "cuda" else None
    if count is not None and target.index >= count:  # TensorFlow: on its CPU
        raise arg_error(ValueError, func, "device", f"a device {backend.NAME} can "
                        "reach here", f"{target}, and {backend.NAME} sees "
                        f"{count or 'no'} CUDA device{'s' * (count != 1)}")
    try:
        return backend.to_device(native, target)
    except Exception as exc:
        error = _refusal(func, backend, exc)
        if error is None:
            raise
        raise error from exc


def _adjust(t: Tensor, dtype: DType | None, device: Any,
            copy: bool | None, func: str) -> Tensor:
    """Apply asarray's dtype/device/copy arguments to ``t``."""
    if copy is not None and copy is not True and copy is not False:  # no ==: arrays
        raise arg_error(TypeError, func, "copy", "True, False or None", describe(copy))
    backend, native = t._backend, t._native
    changed = False
    if dtype is not None and dtype != backend.dtype(native):
        if copy is False:
            raise copy_refused(func, "copy", f"the dtype changes to {dtype.name}")
        try:
            native, changed = backend.astype(native, dtype), True
        except Exception as exc:  # JAX without x64 asked for a 64-bit dtype
            error = _refusal(func, backend, exc)
            if error is None:
                raise
            raise error from exc
    if device is not None:
        target = _backends.parse_device(device, func)
        if target != backend.device(native):
            if copy is False:
                raise copy_refused(func, "copy", f"the device changes to {target}")
            native, changed = _to_device(backend, native, target, func), True
    if copy is True and not changed:
        native, changed = backend.copy(native), True
    return _make(backend, native) if changed else t
