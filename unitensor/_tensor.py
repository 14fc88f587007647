"""The Tensor: an array owned by one framework, viewable from all of them.

Its indexing, ``T``, ``mT`` and operators are namespace functions, installed by
``_operators.py`` once the namespace exists; this module needs no part of it.
"""

from __future__ import annotations

import operator
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar

from . import _backends, _convert, _core, _fast, _fastpath, _native, _views
from ._device import KDL_CUDA, KDL_CUDA_MANAGED, Device
from ._dtypes import DType
from ._errors import arg_error, describe, refused, unknown_size, warn_read_only_alias
from ._standard import SUPPORTED_VERSIONS

if TYPE_CHECKING:  # the frameworks' own array types, for users' type checkers
    import jax
    import numpy as np
    import torch

    from ._backends._adapter import Adapter

# What every Tensor aliasing the same memory shares (a C type: ext/_fast.c):
# ``buffer``, the ``_core.Buffer`` over the memory, made the first time it must
# cross to another framework; ``views``, the zero-copy arrays already made for
# other frameworks, so that ``.torch()`` twice converts once.
_Aliases = _fast.Aliases

# DLPack's device types of memory a CUDA kernel addresses (CUDA, CUDA-managed).
_CUDA_DEVICE_TYPES = frozenset({KDL_CUDA, KDL_CUDA_MANAGED})


class Tensor(_fast.TensorBase):
    """An array of any framework, seen through one type.

    Make one with :func:`unitensor.asarray` or :func:`unitensor.from_dlpack`.
    ``owner`` is the framework holding the array (``native``); ``.numpy()``,
    ``.torch()``, ``.jax()``, ``.tf()`` and ``.cupy()`` give the same memory to
    another framework without copying, made once and cached. Every function of
    the ``unitensor`` namespace and every operator takes it, and runs in the
    framework that owns the data.
    """

    # The storage is the C base (ext/_fast.c, typed in _fast.pyi): the owner's
    # adapter (_backend), its array (_native), and the _Aliases record (_aliases),
    # made on first need so that asarray() stays cheap.
    __slots__ = ()
    # The DLPack 1.3 C exchange API (ext/_core.c): a C consumer (tvm-ffi) takes
    # a Tensor of any owner with no Python __dlpack__ call; set below.
    __dlpack_c_exchange_api__: ClassVar[object]

    def __new__(cls, *args: Any, **kwargs: Any) -> Tensor:
        # Tensor() itself refuses: asarray() and from_dlpack() make Tensors.
        # (Defined here, not by the C base, so that object.__new__(Tensor) can
        # allocate an empty one for a tracing compiler: ext/_fast.c, tensor_init.)
        raise TypeError("Tensor(): use unitensor.asarray(obj) or "
                        "unitensor.from_dlpack(obj) to make a Tensor")

    # -- what it is ---------------------------------------------------------
    @property
    def owner(self) -> str:
        """The framework that holds the array: 'numpy', 'torch', 'jax', ...."""
        return self._backend.NAME

    @property
    def native(self) -> Any:
        """The owner framework's own array object."""
        return self._native

    @property
    def dtype(self) -> DType:
        """The data type, independent of the owner."""
        return self._backend.dtype(self._native)

    @property
    def device(self) -> Device:
        """The device holding the memory, as the owner's.

        Arrays created with ``device=x.device`` belong to ``x``'s owner.
        """
        return self._backend.device(self._native).owned_by(self._backend.NAME)

    @property
    def shape(self) -> tuple[int | None, ...]:
        """The length of each axis (None: known only once a dask graph computes)."""
        return self._backend.shape(self._native)

    @property
    def ndim(self) -> int:
        """The number of axes."""
        return len(self._native.shape)

    @property
    def size(self) -> int | None:
        """The number of elements, None where a dimension is unknown.

        A lazy owner's size may depend on the data (dask); a symbolic tensor's
        inside ``tf.function`` may be unknown until the graph runs.
        """
        n = 1
        for d in self._backend.shape(self._native):
            if d is None:
                return None
            n *= int(d)
        return n

    @property
    def readonly(self) -> bool:
        """True where the memory must not be written (read-only or immutable).

        numpy's read-only views are read-only on every owner (those of
        ``broadcast_to``, ``broadcast_arrays`` and ``linalg.diagonal``).
        """
        aliases = self._aliases
        return self._backend.readonly(self._native) or (
            aliases is not None and aliases.buffer is not None
            and aliases.buffer.readonly) or _views.read_only(self)

    # -- the same memory, for every framework ---------------------------------
    def to(self, framework: str, *, copy: bool | None = None) -> Tensor:
        """Give a Tensor owned by ``framework``, sharing this memory.

        Parameters
        ----------
        framework : str
            'numpy', 'torch', 'jax', 'tensorflow', 'cupy', 'array_api_strict',
            'warp' or 'drjit'.
        copy : bool, optional
            ``None``: zero-copy where the framework can alias the memory, else a
            copy with a :class:`CopyWarning`; ``False``: zero-copy or
            ``BufferError``; ``True``: always a fresh copy.

        Returns
        -------
        Tensor
            The same values, owned by ``framework``.
        """
        if framework == "numpy" and self._backend.NAME != "numpy":
            _convert.check_no_graph(self, "to")
        native = _convert.view(self, framework, copy, "to")
        if native is self._native:
            return self
        backend = self._backend_of(framework)
        # a lazy owner's graph is no view: what computing it makes is its own
        shared = copy is not True and not backend.LAZY
        return _make(backend, native, self._shared() if shared else _Aliases())

    def numpy(self, *, copy: bool | None = None) -> np.ndarray[Any, Any]:
        """Give the memory as a ``numpy.ndarray`` (read-only where the data is).

        Parameters
        ----------
        copy : bool, optional
            ``None``: zero-copy where numpy can alias the memory, else a copy
            with a :class:`CopyWarning`; ``False``: zero-copy or ``BufferError``;
            ``True``: always a fresh copy.

        Returns
        -------
        numpy.ndarray
            Made once and cached: ``t.numpy() is t.numpy()``.
        """
        # (the C fast path returns a cached view, or numpy's route's, which
        # declines a tensor that requires grad: such a tensor comes here)
        _convert.check_no_graph(self, "numpy")
        return _convert.view(self, "numpy", copy, "numpy")

    def torch(self, *, copy: bool | None = None) -> torch.Tensor:
        """Give the memory as a ``torch.Tensor``.

        Read-only memory (a JAX or TensorFlow array) is aliased too, as
        torch's own ``from_dlpack`` does: torch cannot mark it read-only, so
        writing through it is undefined (:class:`AliasWarning`, once per
        process); this Tensor stays ``readonly``.

        Parameters
        ----------
        copy : bool, optional
            ``None``: zero-copy where torch can alias the memory, else a copy
            with a :class:`CopyWarning`; ``False``: zero-copy or ``BufferError``;
            ``True``: always a fresh copy.

        Returns
        -------
        torch.Tensor
            Made once and cached: ``t.torch() is t.torch()``.
        """
        return _convert.view(self, "torch", copy, "torch")

    def jax(self, *, copy: bool | None = None) -> jax.Array:
        """Give the memory as a ``jax.Array``.

        Parameters
        ----------
        copy : bool, optional
            ``None``: zero-copy where JAX can alias the memory, else a copy
            with a :class:`CopyWarning`; ``False``: zero-copy or ``BufferError``;
            ``True``: always a fresh copy.

        Returns
        -------
        jax.Array
            Made once and cached: ``t.jax() is t.jax()``.
        """
        return _convert.view(self, "jax", copy, "jax")

    def tf(self, *, copy: bool | None = None) -> Any:
        """Give the memory as a ``tf.Tensor``.

        Parameters
        ----------
        copy : bool, optional
            ``None``: zero-copy where TensorFlow can alias the memory, else a copy
            with a :class:`CopyWarning`; ``False``: zero-copy or ``BufferError``;
            ``True``: always a fresh copy.

        Returns
        -------
        tf.Tensor
            Made once and cached: ``t.tf() is t.tf()``.
        """
        return _convert.view(self, "tensorflow", copy, "tf")

    def cupy(self, *, copy: bool | None = None) -> Any:
        """Give the memory as a ``cupy.ndarray`` (CUDA memory only).

        Read-only memory (a JAX or TensorFlow array) is aliased too, as
        cupy's own ``from_dlpack`` does: cupy cannot mark it read-only, so
        writing through it is undefined (:class:`AliasWarning`, once per
        process); this Tensor stays ``readonly``.

        Parameters
        ----------
        copy : bool, optional
            ``None``: zero-copy where cupy can alias the memory, else a copy
            with a :class:`CopyWarning`; ``False``: zero-copy or ``BufferError``;
            ``True``: always a fresh copy.

        Returns
        -------
        cupy.ndarray
            Made once and cached: ``t.cupy() is t.cupy()``.
        """
        return _convert.view(self, "cupy", copy, "cupy")

    def warp(self, *, copy: bool | None = None) -> Any:
        """Give the memory as a ``warp.array``.

        Warp holds CPU or CUDA memory of at least one dimension, of its scalar
        dtypes. Read-only memory (a JAX or TensorFlow array) is aliased too: Warp
        cannot mark it read-only, so writing through it (a kernel's output) is
        undefined (:class:`AliasWarning`, once per process); this Tensor stays
        ``readonly``.

        Parameters
        ----------
        copy : bool, optional
            ``None``: zero-copy where Warp can alias the memory, else a copy
            with a :class:`CopyWarning`; ``False``: zero-copy or ``BufferError``;
            ``True``: always a fresh copy.

        Returns
        -------
        warp.array
            Made once and cached: ``t.warp() is t.warp()``.
        """
        return _convert.view(self, "warp", copy, "warp")

    def drjit(self, *, copy: bool | None = None) -> Any:
        """Give the memory as a Dr.Jit tensor.

        A tensor of Dr.Jit's differentiable backend (``drjit.llvm.ad.TensorXf``,
        ... on the CPU) over compact memory of a dtype Dr.Jit has.

        Parameters
        ----------
        copy : bool, optional
            ``None``: zero-copy where Dr.Jit can alias the memory, else a copy
            with a :class:`CopyWarning`; ``False``: zero-copy or ``BufferError``;
            ``True``: always a fresh copy.

        Returns
        -------
        drjit tensor
            Made once and cached: ``t.drjit() is t.drjit()``.
        """
        return _convert.view(self, "drjit", copy, "drjit")

    def _shared(self) -> _Aliases:
        """The record shared by every Tensor aliasing this memory (made once)."""
        return _convert.shared(self)

    @staticmethod
    def _backend_of(framework: str) -> Adapter:
        return _backends.get(framework)

    # -- protocols ------------------------------------------------------------
    def __dlpack__(self, *, stream: Any = None, max_version: Any = None,
                   dl_device: Any = None, copy: Any = None) -> Any:
        """Export the memory through DLPack (the standard's protocol).

        Parameters
        ----------
        stream : int, optional
            The consumer's CUDA stream; None on the CPU.
        max_version : tuple of int, optional
            The newest DLPack version the consumer reads; None: a legacy capsule.
        dl_device : tuple of int, optional
            The device the consumer wants; only the Tensor's own.
        copy : bool, optional
            ``True``: export a copy; ``False`` or None: the memory itself.

        Returns
        -------
        PyCapsule
            A 'dltensor_versioned' (or legacy 'dltensor') capsule that keeps
            the memory alive until the consumer's deleter runs.
        """
        buf = _convert.exported_buffer(self, "__dlpack__")
        if max_version is None and copy is not True and buf.readonly:
            warn_read_only_alias("__dlpack__", "a legacy DLPack consumer")
        return buf.__dlpack__(stream=stream, max_version=max_version,
                              dl_device=dl_device, copy=copy)

    def __dlpack_device__(self) -> tuple[int, int]:
        """Give the DLPack ``(device_type, device_id)`` of the memory.

        Returns
        -------
        tuple of int
            The device pair, ``(1, 0)`` on the CPU.
        """
        return self.device.dlpack

    # torch's own functions on a Tensor (torch.sin(t), F.relu(t)) compute on its
    # torch view and return torch's tensor; the operators stay the Tensor's
    # (_native.py states the rule and its measured cost). The common call (a
    # reading function, positional arguments) in C; the rest in _native.py.
    # A plain builtin, not a classmethod: torch reads the attribute two or three
    # times a call, and a classmethod makes a bound method each time (~0.06 µs
    # of torch.sin(t)); it takes no cls (torch passes func, types, args, kwargs).
    __torch_function__: Any = _fast.torch_function

    def __tf_tensor__(self, dtype: Any = None, name: Any = None) -> Any:
        """TensorFlow's conversion protocol (``tf.convert_to_tensor``, and every
        TensorFlow function given a Tensor): the Tensor's TensorFlow view,
        zero-copy and cached (``t.tf()``), TensorFlow's own dtype rule applied.
        """
        return self.tf().__tf_tensor__(dtype, name)

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        """CUDA memory's ``__cuda_array_interface__`` (v3): its pointer marked
        read-only where the memory is, and ``stream``, the producer's current
        stream, for the consumer to wait on. Absent (``AttributeError``) on
        memory of any other device, as the protocol asks.
        """
        if self.device.dlpack[0] not in _CUDA_DEVICE_TYPES:
            raise arg_error(AttributeError, "__cuda_array_interface__", "self",
                            "an array in CUDA memory",
                            f"an array on device {self.device}")
        buf = _convert.buffer_of(self, "__cuda_array_interface__")
        return buf.__cuda_array_interface__

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> Any:
        array = self.numpy(copy=copy)
        return array if dtype is None else array.astype(dtype, copy=False)

    # -- pickle and copy ---------------------------------------------------------
    def __reduce__(self) -> tuple[Any, tuple[str, Any, bool]]:
        """Pickled by its owner (the owner's own pickling of its array), restored
        as a Tensor of the same owner, dtype, device and read-only state.

        Where the owner's pickling could move memory that unitensor has exposed
        (torch's multiprocessing pickler moves a storage into shared memory), a
        copy is pickled instead: the views made earlier stay valid.
        """
        backend = self._backend
        return _restore, (backend.NAME, backend.pickled(self._native), self.readonly)

    def __copy__(self) -> Tensor:
        """A Tensor sharing this memory (and its read-only state): on an immutable
        owner, and for a view of a base, a view of this one (``self[...]``), so
        that a write through either reaches the other, as in numpy.
        """
        if self._backend.IMMUTABLE or self._view is not None:
            return self[...]
        return _make(self._backend, self._native, self._shared())

    def __deepcopy__(self, memo: dict[int, Any]) -> Tensor:
        """A Tensor over a copy of the memory, of the same owner, independent of
        this one (over a torch tensor requiring grad: a new leaf).
        """
        return _make(self._backend, self._backend.deepcopy(self._native))

    def __repr__(self) -> str:
        return (f"unitensor.Tensor({self._native!r}, owner={self.owner!r}, "
                f"dtype={self.dtype.name}, device={self.device})")

    # -- the Array API array object -------------------------------------------
    def __array_namespace__(self, /, *, api_version: str | None = None) -> ModuleType:
        """Give the ``unitensor`` module: one namespace, whoever owns the data.

        Parameters
        ----------
        api_version : str, optional
            A version of the standard the caller wants ('2025.12'; the earlier
            ones are accepted too, and answered by the same namespace).

        Returns
        -------
        module
            ``unitensor``.
        """
        if api_version is not None and api_version not in SUPPORTED_VERSIONS:
            raise arg_error(ValueError, "__array_namespace__", "api_version",
                            f"None or one of {SUPPORTED_VERSIONS}",
                            describe(api_version))
        return sys.modules["unitensor"]

    def to_device(self, device: Any, /, *, stream: Any = None) -> Tensor:
        """Give this array on ``device``: itself if it is there already, else a copy.

        Parameters
        ----------
        device : Device, str or a framework's device
            The device to hold the result.
        stream : int, torch.cuda.Stream or cupy.cuda.Stream, optional
            Where CUDA memory is involved: the consumer's stream, as for
            ``__dlpack__`` (1 the legacy default stream, 2 the per-thread one,
            else a handle): work queued on it afterwards finds the result
            complete. None between CPU devices.

        Returns
        -------
        Tensor
            Owned by the same framework.
        """
        return _convert.to_device(self, device, stream)

    # mT, T, __getitem__, __setitem__ and the operators: see _operators.py.
    if TYPE_CHECKING:  # what _operators.py installs, as type checkers should see it
        def __getitem__(self, key: Any, /) -> Tensor: ...
        def __setitem__(self, key: Any, value: Any, /) -> None: ...
        @property
        def mT(self) -> Tensor: ...
        @property
        def T(self) -> Tensor: ...
        # an operand is a Tensor, a framework's array or a Python scalar
        def __add__(self, other: Any, /) -> Tensor: ...
        def __radd__(self, other: Any, /) -> Tensor: ...
        def __iadd__(self, other: Any, /) -> Tensor: ...
        def __sub__(self, other: Any, /) -> Tensor: ...
        def __rsub__(self, other: Any, /) -> Tensor: ...
        def __isub__(self, other: Any, /) -> Tensor: ...
        def __mul__(self, other: Any, /) -> Tensor: ...
        def __rmul__(self, other: Any, /) -> Tensor: ...
        def __imul__(self, other: Any, /) -> Tensor: ...
        def __truediv__(self, other: Any, /) -> Tensor: ...
        def __rtruediv__(self, other: Any, /) -> Tensor: ...
        def __itruediv__(self, other: Any, /) -> Tensor: ...
        def __floordiv__(self, other: Any, /) -> Tensor: ...
        def __rfloordiv__(self, other: Any, /) -> Tensor: ...
        def __ifloordiv__(self, other: Any, /) -> Tensor: ...
        def __mod__(self, other: Any, /) -> Tensor: ...
        def __rmod__(self, other: Any, /) -> Tensor: ...
        def __imod__(self, other: Any, /) -> Tensor: ...
        def __pow__(self, other: Any, /) -> Tensor: ...
        def __rpow__(self, other: Any, /) -> Tensor: ...
        def __ipow__(self, other: Any, /) -> Tensor: ...
        def __matmul__(self, other: Any, /) -> Tensor: ...
        def __rmatmul__(self, other: Any, /) -> Tensor: ...
        def __imatmul__(self, other: Any, /) -> Tensor: ...
        def __and__(self, other: Any, /) -> Tensor: ...
        def __rand__(self, other: Any, /) -> Tensor: ...
        def __iand__(self, other: Any, /) -> Tensor: ...
        def __or__(self, other: Any, /) -> Tensor: ...
        def __ror__(self, other: Any, /) -> Tensor: ...
        def __ior__(self, other: Any, /) -> Tensor: ...
        def __xor__(self, other: Any, /) -> Tensor: ...
        def __rxor__(self, other: Any, /) -> Tensor: ...
        def __ixor__(self, other: Any, /) -> Tensor: ...
        def __lshift__(self, other: Any, /) -> Tensor: ...
        def __rlshift__(self, other: Any, /) -> Tensor: ...
        def __ilshift__(self, other: Any, /) -> Tensor: ...
        def __rshift__(self, other: Any, /) -> Tensor: ...
        def __rrshift__(self, other: Any, /) -> Tensor: ...
        def __irshift__(self, other: Any, /) -> Tensor: ...
        def __lt__(self, other: Any, /) -> Tensor: ...
        def __le__(self, other: Any, /) -> Tensor: ...
        def __gt__(self, other: Any, /) -> Tensor: ...
        def __ge__(self, other: Any, /) -> Tensor: ...
        def __eq__(self, other: Any, /) -> Tensor: ...  # type: ignore[override]
        def __ne__(self, other: Any, /) -> Tensor: ...  # type: ignore[override]
        def __neg__(self) -> Tensor: ...
        def __pos__(self) -> Tensor: ...
        def __abs__(self) -> Tensor: ...
        def __invert__(self) -> Tensor: ...

    def __len__(self) -> int:
        if len(self._native.shape) == 0:  # TF's TensorShape of a 0-d tensor is truthy
            raise arg_error(TypeError, "__len__", "self", "an array of at least one "
                            "dimension", "a 0-d array")
        length = self.shape[0]
        if length is None:
            raise unknown_size("__len__", "self", self.owner, str(self.shape))
        return int(length)

    def __iter__(self) -> Iterator[Tensor]:
        # Explicit, because JAX clamps out-of-range indices instead of raising the
        # IndexError that ends iteration through __getitem__. Not a generator:
        # iter() of a 0-d array raises TypeError at once, as numpy's does, so
        # np.iterable() and clients asking it say False (then never call len()).
        if len(self._native.shape) == 0:
            raise arg_error(TypeError, "__iter__", "self", "an array of at least "
                            "one dimension (iteration over a 0-d array)",
                            "a 0-d array")
        return (self[i, ...] for i in range(len(self)))

    # bool(), int(), ...: the framework's conversion, its refusal in the project's
    # format (numpy raises ValueError for many elements, torch RuntimeError).
    def __bool__(self) -> bool:
        scalar = self._scalar()  # a lazy owner computes here: its errors as raised
        try:
            return bool(scalar)
        except Exception as exc:
            value = self._wide_unsigned()
            if value is not None:
                return bool(value)
            raise self._not_a_scalar("__bool__", exc) from exc

    def __int__(self) -> int:
        scalar = self._scalar()  # a lazy owner computes here: its errors as raised
        try:
            return int(scalar)
        except Exception as exc:
            value = self._wide_unsigned()
            if value is not None:
                return value
            raise self._not_a_scalar("__int__", exc) from exc

    def __float__(self) -> float:
        scalar = self._scalar()  # a lazy owner computes here: its errors as raised
        try:
            return float(scalar)
        except Exception as exc:
            raise self._not_a_scalar("__float__", exc) from exc

    def __complex__(self) -> complex:
        scalar = self._scalar()  # a lazy owner computes here: its errors as raised
        try:
            return complex(scalar)
        except Exception as exc:
            raise self._not_a_scalar("__complex__", exc) from exc

    def __index__(self) -> int:
        if not self.dtype.kind.endswith("integer"):  # TF's says ValueError; Python's
            # protocol (and numpy's, for bool too) a TypeError, before any value is read
            raise arg_error(TypeError, "__index__", "self", "an array of an integer "
                            "dtype", f"an array of {self.dtype.name}")
        scalar = self._scalar()  # a lazy owner computes here: its errors as raised
        try:
            return operator.index(scalar)
        except Exception as exc:
            value = self._wide_unsigned()
            if value is not None:
                return value
            raise self._not_a_scalar("__index__", exc) from exc

    def _scalar(self) -> Any:
        """What ``bool()``, ``float()``, ... convert: the owner's array, or for a
        lazy owner (dask) its computed memory, computed once and kept (the view
        ``.numpy()`` makes).
        """
        if self._backend.LAZY:
            size = self.size  # many elements: the owner refuses without computing
            return self._native if size is not None and size > 1 else self.numpy()
        return self._native

    def _wide_unsigned(self) -> int | None:
        """The one uint64 element of 2**63 or more, which torch's conversions
        refuse (its scalars are int64), read through numpy; None for any other.
        """
        if self.dtype.name != "uint64" or self.size != 1:
            return None
        try:
            return int(self.numpy(copy=True).reshape(()))
        except Exception:  # memory numpy cannot read: the framework's refusal
            return None

    def _not_a_scalar(self, func: str, exc: Exception) -> Exception:
        _convert.check_memory(self, func)  # a symbolic tensor: no value to read
        if self.size != 1:
            hint = " (any() and all() reduce one)" if func == "__bool__" else ""
            return arg_error(ValueError, func, "self", f"an array of one element{hint}",
                             f"an array of shape {self.shape}")
        return refused(exc, self._backend.error_type(exc), func, self._backend.NAME)

    # == is elementwise, so Tensors are unhashable: Python's spelling is
    # __hash__ = None, which mypy refuses (object's __hash__ is a method).
    __hash__ = None  # type: ignore[assignment]
    # numpy's operators defer to ours (a ``numpy_array + tensor`` is a Tensor),
    # while numpy functions still accept a Tensor through __array__.
    __array_priority__ = 1000


def _restore(owner: str, native: Any, readonly: bool) -> Tensor:
    """A pickled Tensor: its owner's array, read-only again where it was (memory
    that only unitensor knew to be read-only is marked so on its Buffer).
    """
    backend = _backends.get(owner, "pickle")
    if readonly and not backend.readonly(native):
        t = _make(backend, native)
        _convert.buffer_of(t, "pickle").mark_readonly()  # (with its producer)
        return t
    return _make(backend, native)


# _make(backend, native, aliases=None): wrap ``native`` (already the backend's
# array) without any checks.
_make = _fast.make_tensor
_fastpath.configure(Tensor)  # _make and the C fast paths make Tensors of this class
Tensor.__dlpack_c_exchange_api__ = _core.provide_exchange(
    Tensor, _convert.exchange_buffer, _convert.exchange_tensor,
    _convert.exchange_stream)

# The views: a cached one (or the owner's own array) is returned from C.
for _method, _framework in (("numpy", "numpy"), ("torch", "torch"), ("jax", "jax"),
                            ("tf", "tensorflow"), ("cupy", "cupy"),
                            ("warp", "warp"), ("drjit", "drjit")):
    setattr(Tensor, _method, _fastpath.view(getattr(Tensor, _method), _framework))
del _method, _framework
# __torch_function__'s C part: the Python hook, what it learned of each function,
# and the torch view's fast path
_fast.set_torch_function(_native.torch_function, _native._kinds, Tensor.torch)
