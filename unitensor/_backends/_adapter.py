"""The adapter contract every framework package fulfils, and its assembly.

:class:`Interop` is what the framework's ``interop`` module provides, and
:class:`Namespace` what its ``namespace`` module provides; an :class:`Adapter`
is both, assembled by :func:`load` from the package's modules. A member a module
leaves out takes the shared default below, if the contract has one (or one
read from its other members: ``dtype`` from ``NATIVE_DTYPES``); a member
missing with no default is an error when the framework loads (and in
``tests/backends/test_adapter.py``, which checks each adapter against this
contract, member by member and signature by signature).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

from .. import _core, _fast
from .._device import Device
from .._dtypes import DType
from .._errors import arg_error, describe, standard_type
from ._dtype_tables import dtype_in

if TYPE_CHECKING:  # (the records' module imports dataclasses: ~5 ms of import)
    from ._memory import MemoryStats, Request


class Producer(Protocol):
    """What ``Buffer.producer`` holds: a framework's current CUDA stream."""

    def stream(self) -> int: ...
    def wait(self, stream: int, /) -> None: ...
    def follow(self, stream: int, /) -> None: ...


@runtime_checkable
class Interop(Protocol):
    """How unitensor recognises a framework's arrays and moves their memory."""

    #: the framework's name: 'numpy', 'torch', ... (the package's facts)
    NAME: str
    #: True where the framework's arrays never change (jax, tensorflow): a write
    #: rebinds the Tensor to an updated array (the package's facts; default False)
    IMMUTABLE: bool
    #: True where the framework's arrays are graphs computed on demand (dask):
    #: ``export`` computes, and conversions to Python (``float()``, ``bool()``,
    #: ...) read the exported memory, which the Tensor keeps (the package's
    #: facts; default False)
    LAZY: bool
    #: False where the framework's arrays cannot have negative strides (torch):
    #: its ``flip`` and negative-step slices copy, and unitensor keeps them views
    #: of their base (``_views.py``) (the package's facts; default True)
    NEGATIVE_STRIDES: bool
    #: True where the framework's ``x[i, j]`` of as many ints as axes is a 0-d
    #: view of x (torch), where numpy's is a scalar, a copy: unitensor copies it,
    #: so that a write into either does not reach the other (the package's
    #: facts; default False)
    SCALAR_VIEWS: bool
    #: True where the framework computes an integer or bool array with a Python
    #: float or complex in its own default dtype of the scalar's kind (NEP 50's
    #: weak scalars: numpy; jax, x64 on or off): the one dtype rule's answer
    #: (``_dispatch._scalar_result``) is then the framework's result as it is,
    #: read without asking for the default dtype (the package's facts; default
    #: False; tests/test_dtypes.py checks it against the default dtype)
    SCALARS_IN_DEFAULTS: bool
    #: the framework's dtype objects -> unitensor's dtypes: the one dtype table of
    #: the framework (``dtype()`` and ``dtype_from_native()`` read it by default)
    NATIVE_DTYPES: Mapping[Any, DType]
    #: the types whose objects ``native()`` accepts: the framework's arrays (its
    #: other types, devices and dtypes say, are not arrays to unitensor)
    ARRAY_TYPES: tuple[type, ...]
    #: ``(attribute, value)``: the layout of the arrays asarray's C fast path
    #: wraps (torch: ``("layout", torch.strided)``); an array of another layout
    #: (sparse) takes the Python path, whose ``native()`` refuses it. ``()``:
    #: every array of ``ARRAY_TYPES`` is dense.
    DENSE_LAYOUT: tuple[Any, ...]
    #: ``(method, {code: dtype object})``: an array's dtype as asarray's C fast
    #: path reads it, where a method giving a code is cheaper than the ``dtype``
    #: attribute (TensorFlow's ``_datatype_enum()``: its ``dtype`` property is
    #: 0.5 µs of Python); used for the array types that have the method. ``()``:
    #: the ``dtype`` attribute.
    DTYPE_CODE: tuple[Any, ...]
    #: fast routes: source framework name -> ``route(x)``, the framework's own
    #: zero-copy route from that framework's array ``x`` (``torch.from_numpy``),
    #: returning None where it does not apply (the general path then decides)
    ROUTES: Mapping[str, Callable[[Any], Any]]
    #: True where the framework's arrays can carry autodiff state (an
    #: ``autodiff_state`` of its own): calls mixing owners ask only these
    #: operands (derived: whether ``autodiff_state`` is the default)
    AUTODIFF: bool

    def wraps_as_is(self, kind: type, /) -> bool:
        """Whether ``native(obj) is obj`` for every ``obj`` of type ``kind``
        (such arrays are wrapped by asarray's C fast path). Default: ``kind`` is
        one of ``ARRAY_TYPES``.
        """

    def native(self, obj: Any, /) -> Any:
        """The framework's array for ``obj`` (``TypeError`` if it is not one).

        Default: ``obj`` itself, if it is one of ``ARRAY_TYPES``.
        """

    def dtype(self, x: Any, /) -> DType:
        """unitensor's dtype of the framework's array ``x``."""

    def shape(self, x: Any, /) -> tuple[int | None, ...]:
        """The shape of ``x``, None for a size not known before computing
        (dask, after a boolean mask). Default: ``tuple(x.shape)``.
        """

    def device(self, x: Any, /) -> Device:
        """unitensor's device of the framework's array ``x``."""

    def readonly(self, x: Any, /) -> bool:
        """Whether ``x``'s memory must not be written."""

    def export(self, x: Any, /) -> _core.Buffer:
        """A Buffer over ``x``'s memory, zero-copy."""

    def autodiff_state(self, x: Any, /) -> str | None:
        """The autodiff state ``x`` carries, in words ('a torch tensor that
        requires grad'), or None where it carries none: a converted copy or view
        of such an array would drop the graph, so the owner rule lets it decide
        the owner (``_dispatch._choose``). Asked only of operands of calls that
        mix owners (where ``AUTODIFF``), and where a conversion or a write
        fails. Default: None.
        """

    def no_memory(self, x: Any, /) -> str | None:
        """Why ``x`` has no memory to export or read (a symbolic tensor traced by
        ``tf.function``), or None. Default: None.
        """

    def copy_reason(self, buf: _core.Buffer, reading: bool = False) -> str | None:
        """Why the framework cannot alias ``buf`` (a copy is needed), or None;
        raises ``BufferError`` when not even a copy would be right. ``reading``:
        the array is an operand that unitensor only reads, never hands out.
        """

    def alias(self, buf: _core.Buffer, /) -> Any:
        """The framework's array over ``buf``'s memory, zero-copy."""

    def copy(self, x: Any, /) -> Any:
        """A copy of ``x``, made by the framework."""

    def written(self, before: Any, after: Any, /) -> Any:
        """The array a Tensor holds once a write replaced its immutable ``before``
        with ``after`` (same dtype and shape), having made the framework's own
        state follow it (TensorFlow: the variable ``before`` was read from is
        assigned ``after``). Default: ``after``.
        """

    def deepcopy(self, x: Any, /) -> Any:
        """A copy of ``x`` for ``copy.deepcopy``: independent of ``x``, autodiff
        state included (torch: a new leaf, as its own deepcopy). Default: ``copy``.
        """

    def pickled(self, x: Any, /) -> Any:
        """What a pickler gets in place of a Tensor's ``x``: ``x`` itself, or a
        copy where pickling ``x`` could move memory that is not the framework's
        alone (torch's multiprocessing pickler moves a storage into shared
        memory). Default: ``x`` (pickling reads the memory, nothing moves it).
        """

    def astype(self, x: Any, dtype: DType, /) -> Any:
        """``x`` converted to ``dtype`` by the framework."""

    def to_device(self, x: Any, device: Device, /) -> Any:
        """``x`` moved to ``device`` by the framework."""

    def from_python(self, obj: Any, dtype: DType | None, /) -> Any:
        """A new array from Python scalars and nested sequences."""

    def fix_byte_order(self, x: Any, /) -> Any:
        """A native-byte-order copy of ``x``, or None where it is not swapped."""

    def cuda_device_of(self, pointer: int, /) -> int:
        """The CUDA device holding ``pointer`` (``__cuda_array_interface__``)."""

    def producer(self, device: int, /) -> Producer | None:
        """For a Buffer of the framework's CUDA memory on ``device``: whose work a
        consumer's stream waits for (``_dlpack.StreamOrder``); None where memory
        is ready once exported (the default: JAX's export waits until it is;
        TensorFlow's GPU tensors are not handled, docs/interop.md).
        """

    def cuda_devices(self) -> int | None:
        """How many CUDA devices the framework can reach in this process: 0 where
        it has no CUDA (a CPU build, no driver, no GPU); None for a framework
        whose arrays never live in CUDA memory (the default: numpy, dask, ...).
        Asked before any other CUDA question, which a framework without a device
        answers with its raw error (torch's AssertionError), by starting CUDA,
        or by placing the array on the CPU instead (TensorFlow).
        """

    def consumer_stream(self, device: int, /) -> int:
        """The CUDA stream (as ``__dlpack__`` takes it) the framework reads on
        now on ``device``, for a cached view handed out again (torch, cupy).
        Default: 1, the legacy default stream (JAX's views of such memory are
        not cached: it orders them only when importing).
        """


@runtime_checkable
class Namespace(Protocol):
    """How unitensor runs the Array API on a framework's arrays."""

    #: the type of the framework's arrays
    ARRAY: type
    #: a function name ('sum', 'linalg.qr') -> the fix of the namespace's deviation
    FIXES: Mapping[str, Callable[..., Any]]
    #: a function name -> the framework's own function for operands of one dtype
    #: (skipping a namespace wrapper that only fixes mixed-dtype promotion)
    SAME_DTYPE: Mapping[str, Callable[..., Any]]
    #: ``complex_of(real, imag)``: the complex array of these parts (arrays of one
    #: real floating dtype), made exactly, with no arithmetic on them (``real + 1j
    #: * imag`` turns an infinite part into NaN); a write through ``real(x)`` or
    #: ``imag(x)`` puts it into ``x`` with it where the owner's own parts are
    #: copies (_views.py). Default: a refusal, for owners whose parts are views
    #: of their arrays already (numpy's), which never put a part back.
    complex_of: Callable[[Any, Any], Any]

    def namespace(self) -> Any:
        """The framework's Array API namespace, or None where it has none (its
        arrays then compute in numpy, zero-copy).
        """

    def adapt(self, name: str, func: Callable[..., Any], /) -> Callable[..., Any]:
        """``func`` (the implementation of ``name``) with any framework-wide fix."""

    def result(self, value: Any, /) -> Any:
        """An array from any other result (numpy returns scalars from 0-d ops)."""

    def native_dtype(self, dtype: DType, /) -> Any:
        """The framework's dtype object for ``dtype``."""

    def native_device(self, device: Device, /) -> Any:
        """The framework's device object for ``device``."""

    def dtype_from_native(self, native_dtype: Any, /) -> DType | None:
        """unitensor's dtype for a framework dtype object, or None."""

    def device_from_native(self, native_device: Any, /) -> Device:
        """unitensor's device for a framework device object."""

    def setitem(self, x: Any, key: Any, value: Any, /) -> Any:
        """``x[key] = value``, returning the array to rebind (a new one for an
        immutable framework).
        """

    def error_type(self, exc: Exception, /) -> type[Exception]:
        """The standard's exception type for the framework's own ``exc`` (which
        the general path raises in the project's format, ``exc`` its cause).
        Default: the standard type ``exc`` is an instance of, else ValueError.
        """


@runtime_checkable
class Adapter(Interop, Namespace, Protocol):
    """One framework as unitensor sees it: :class:`Interop` and :class:`Namespace`."""


@runtime_checkable
class Memory(Protocol):
    """A framework's memory controls: its ``memory`` module, for the frameworks
    that keep a cache of their own (``_memory.FRAMEWORKS``).

    Unlike the two concerns above, the module must not import its framework: it
    finds it in ``sys.modules`` where the user imported it, and acts through the
    environment (or ``_memory.after_import``) where not.
    """

    #: the framework's name (the package's facts)
    NAME: str

    def check_allocator(self, name: str, /) -> str | None:
        """None where ``name`` is an allocator ``configure`` can select, else
        what is accepted (for the error message).
        """

    def too_late(self, request: Request, /) -> dict[str, str]:
        """Each setting of ``request`` that can no longer take effect (the
        framework has started) -> why, naming what was started.
        """

    def without_gpu(self) -> str | None:
        """Why none of its settings can matter in this process (it started and
        sees no GPU: every setting is about GPU memory), else None. ``configure``
        then warns where ``too_late`` would have refused.
        """

    def apply(self, request: Request, /) -> list[str]:
        """Apply ``request`` (whose settings ``too_late`` did not name); what was
        done, in words ('XLA_PYTHON_CLIENT_PREALLOCATE=false', ...).
        """

    def stats(self, device: Device | None, /) -> MemoryStats:
        """The framework's memory on ``device`` (None: its first accelerator,
        else its CPU), without starting the framework.
        """

    def held(self) -> int | None:
        """Bytes the framework holds that a flush may release, by its own
        counter; None where it has nothing to release (not started, no cache).
        """

    def release(self) -> str:
        """Release every cache the framework can release (after the caller's
        ``gc.collect()``); say what was done or why nothing can be.
        """


def members(contract: type) -> tuple[str, ...]:
    """The names ``contract`` declares: its attributes and its methods."""
    names = set(getattr(contract, "__annotations__", {}))
    names.update(k for k, v in vars(contract).items()
                 if callable(v) and not k.startswith("_"))
    return tuple(sorted(names))


# -- shared defaults for members that most frameworks answer alike ------------------
def _not_read_only(x: Any, /) -> bool:
    return False


def _shape_as_is(x: Any, /) -> tuple[int | None, ...]:
    return tuple(x.shape)


def _has_memory(x: Any, /) -> None:
    return None


def _no_autodiff_state(x: Any, /) -> None:
    return None


def _no_byte_order_fix(x: Any, /) -> None:
    return None


def _no_cuda_pointer_lookup(pointer: int, /) -> int:
    raise arg_error(BufferError, "asarray", "obj", "CUDA memory that cupy can "
                    "locate (pip install cupy-cuda12x)", "a __cuda_array_interface__ "
                    "pointer, and no installed framework can tell its device")


def _ready_when_exported(device: int, /) -> None:
    return None


def _legacy_default_stream(device: int, /) -> int:
    return 1


def _as_is(x: Any, /) -> Any:
    return x


def _nothing_follows(before: Any, after: Any, /) -> Any:
    return after


def _no_cuda() -> None:
    return None


def _unchanged(name: str, func: Callable[..., Any], /) -> Callable[..., Any]:
    return func


def _parts_are_views(real: Any, imag: Any, /) -> Any:
    # (_views.ties ties no part of such an owner's arrays: not reached; were it,
    # the write would be refused, never put back wrong)
    raise arg_error(TypeError, "__setitem__", "self", "a part of an array whose "
                    "owner makes complex arrays of parts", "one of an owner without")


def _set_in_place(x: Any, key: Any, value: Any, /) -> Any:
    x[key] = value
    return x


DEFAULTS: dict[str, object] = {
    "IMMUTABLE": False, "LAZY": False, "DENSE_LAYOUT": (), "DTYPE_CODE": (),
    "NEGATIVE_STRIDES": True, "SCALAR_VIEWS": False,
    "SCALARS_IN_DEFAULTS": False,
    "ROUTES": {},
    "readonly": _not_read_only,
    "shape": _shape_as_is, "no_memory": _has_memory,
    "fix_byte_order": _no_byte_order_fix, "pickled": _as_is,
    "written": _nothing_follows, "autodiff_state": _no_autodiff_state,
    "cuda_device_of": _no_cuda_pointer_lookup,
    "producer": _ready_when_exported, "consumer_stream": _legacy_default_stream,
    "cuda_devices": _no_cuda,
    "FIXES": {}, "SAME_DTYPE": {}, "adapt": _unchanged, "setitem": _set_in_place,
    "complex_of": _parts_are_views,
    "error_type": standard_type,
}


def _dtype_by_table(adapter: Any) -> Callable[[Any], DType]:
    table, name = adapter.NATIVE_DTYPES, adapter.NAME

    def dtype(x: Any, /) -> DType:
        return dtype_in(table, x.dtype, name)
    return dtype


def _wraps_array_types(adapter: Any) -> Callable[[type], bool]:
    kinds = adapter.ARRAY_TYPES

    def wraps_as_is(kind: type) -> bool:
        return issubclass(kind, kinds)
    return wraps_as_is


def _requires_array_types(adapter: Any) -> Callable[[object], Any]:
    kinds = adapter.ARRAY_TYPES
    accepted = f"an array of {adapter.NAME} ({', '.join(k.__name__ for k in kinds)})"

    def native(obj: object) -> Any:
        if isinstance(obj, kinds):
            return obj
        raise arg_error(TypeError, "asarray", "obj", accepted, describe(obj))
    return native


# Defaults read from the adapter's other members: its one dtype table, and its
# array types (the framework's arrays, taken as they are).
DERIVED: dict[str, Callable[[Any], object]] = {
    "dtype": _dtype_by_table,
    "dtype_from_native": lambda adapter: adapter.NATIVE_DTYPES.get,
    "wraps_as_is": _wraps_array_types,
    "native": _requires_array_types,
    "deepcopy": lambda adapter: adapter.copy,
    "AUTODIFF": lambda adapter: adapter.autodiff_state is not _no_autodiff_state,
}


class Assembled:
    """An adapter: the members of one framework's modules, as attributes."""

    NAME: str  # set by load(), like every other member

    # The view fast path keeps what it read of adapters (NAME, ROUTES) between
    # conversions: any change to one tells it to read them afresh.
    def __setattr__(self, name: str, value: object, /) -> None:
        object.__setattr__(self, name, value)
        _fast.adapters_changed()

    def __delattr__(self, name: str, /) -> None:
        object.__delattr__(self, name)
        _fast.adapters_changed()

    def __repr__(self) -> str:
        return f"<unitensor adapter {self.NAME!r}>"


def load(facts: ModuleType) -> Adapter:
    """The adapter of the framework package ``facts``, importing its modules (and
    so the framework itself: ``ImportError`` where it is not installed).
    """
    adapter = Assembled()
    sources = {Interop: importlib.import_module(f"{facts.__name__}.interop"),
               Namespace: importlib.import_module(f"{facts.__name__}.namespace")}
    derived = []
    for contract, module in sources.items():
        for name in members(contract):
            value = getattr(module, name, getattr(facts, name, None))
            if value is None:
                value = DEFAULTS.get(name)
            if value is None and name in DERIVED:
                derived.append(name)
                continue
            if value is None:
                raise TypeError(f"unitensor backend {facts.NAME!r}: "
                                f"{module.__name__} does not define {name!r}, "
                                f"which {contract.__name__} requires")
            setattr(adapter, name, value)
    for name in derived:
        setattr(adapter, name, DERIVED[name](adapter))
    # Every member of the contract is set (or load() raised): an Adapter, which a
    # type checker cannot tell from the setattr calls.
    return cast(Adapter, adapter)
