"""Views on every owner: a write through a view reaches its base and every view.

The rule: where numpy makes a view, the Tensor is one, whoever owns the data. On
an owner whose arrays never change (jax, tensorflow, dask: ``IMMUTABLE``), and
for the view a mutable owner cannot express (torch has no negative strides: its
``flip`` and negative-step slices copy), a Tensor made by a view operation --
basic indexing (ints, slices, ``...``, ``None``), ``reshape``, ``permute_dims``,
``matrix_transpose`` (``.T``, ``.mT``), ``expand_dims``, ``squeeze``,
``moveaxis``, ``flip``, ``unstack``, or any chain of them -- holds a ``Link``:
its base's record (``Base``) and the steps that take it from the base. A write
to a view or to its base (``__setitem__``, the in-place operators) is one
read-modify-write of the base under the base's lock: the written view's new
array is put back through each step's inverse into one new base array (one
functional update of the base per index step of the chain: ``.at[].set`` in
jax, ``tensor_scatter_nd_update`` in TF, a new graph in dask), the base's
version moves, and every other view re-derives its array from the base the
next time it is read (``refresh``, which ext/_fast.c calls before a view's
``_native`` is read; the only fast path a view takes is the binary one, and only
while its base has not moved since, so nothing reads it stale). A
Tensor that is no view reads as before: the base Tensor is kept current at each
write, and is no view.

``Base`` and ``Link`` keep their fields in C (ext/_fast.c), so that ``x[key]`` of
a base (a basic key without ``None``, on a base of known sizes) is taken as a
view in C, as ``taken`` would: its Link holds the key, and its steps and layout
are made from it (``_unfold``) only when first read -- by a write, a refresh,
or a view of the view -- never for a view only read.

numpy's other views take part too. ``real`` of an array, and ``imag`` of a complex
one, are written through (their step back puts the part into the base:
``complex_of``, the adapter's). ``broadcast_to``, ``broadcast_arrays``,
``linalg.diagonal`` and ``imag`` of a real array are read-only in numpy: on every
owner their step back is ``refused`` and a write into them (or into a view of
them) is refused before anything is written (``read_only``; numpy's and
array_api_strict's own arrays say so themselves).

Where numpy copies, nothing is linked, on any owner: advanced indexing,
``astype``, an integer key that gives a scalar (``x[0]`` of a 1-d array; ``x[0,
...]`` is a view), a ``reshape`` its strides allow no view of (``Link.layout``
holds a numpy array of no memory with the view's strides, on which numpy itself
decides), ``copy=True``. ``ut.asarray()`` of a framework's array is a new base.
"""

from __future__ import annotations

import functools
import operator
import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from . import _fast
from ._errors import arg_error

if TYPE_CHECKING:
    from ._backends._adapter import Adapter
    from ._tensor import Tensor

# The view functions of the standard, by name (their results are views in numpy).
FUNCTIONS = frozenset({"reshape", "permute_dims", "matrix_transpose",
                       "expand_dims", "squeeze", "moveaxis", "flip", "unstack"})
# numpy's read-only views (broadcast_arrays': read-only here, numpy's announced
# future; numpy 2 warns on a write), and its views of an array's parts.
READ_ONLY = frozenset({"broadcast_to", "broadcast_arrays", "linalg.diagonal"})
PARTS = frozenset({"real", "imag"})

# forward(parent) -> child, backward(parent, new child) -> new parent
Step = tuple[Callable[[Any], Any], Callable[[Any, Any], Any]]
# (backend, name) -> the owner's function: _dispatch.implementation
Lookup = Callable[["Adapter", str], Callable[..., Any]]


class Base(_fast.Base):
    """What every view of one base shares: the base's current array, its version
    (moved by each write), the lock of its read-modify-write, and the base
    Tensor (weakly), kept current at each write so that it reads at full speed.
    ``mutable``: the base's array is written in place (torch), and also moves
    by writes unitensor does not see: its own version counter counts too.
    ``shape``: the base's sizes (ints; a write keeps them), or None where one is
    unknown (dask's): then its views are left to Python, which ties none.
    """

    __slots__ = ("lock", "native", "tensor")

    def __init__(self, native: Any, tensor: Tensor | None, mutable: bool,
                 shape: tuple[int, ...] | None) -> None:
        self.native = native
        self.version = 0
        self.shape = shape
        # reentrant: a write reads the view it writes (which may refresh it)
        self.lock = threading.RLock()
        self.tensor = None if tensor is None else weakref.ref(tensor)
        self.mutable = mutable

    def counter(self) -> int:
        """The version of the base's memory as its framework counts it (torch's
        ``_version``, moved by any in-place write to it or to a view of it).
        """
        try:
            return int(self.native._version)
        except (AttributeError, RuntimeError):  # an inference tensor has none
            return 0


# A view's tie to its base (ext/_fast.c): ``base``, the ``steps`` from the base,
# the base version ``seen`` its array was derived at (and, for a mutable base,
# its framework's ``counter``), and its ``layout`` (a numpy array of no memory
# with the view's strides; what makes it, until a reshape asks: ``shaped()``).
Link = _fast.Link


def refused(parent: Any, child: Any) -> Any:
    """The step back of a read-only view: never taken (``read_only`` refuses the
    write first), and refusing if it were.
    """
    raise arg_error(ValueError, "__setitem__", "self", "an array whose memory can "
                    "be written", "a read-only view")


def read_only(x: Tensor) -> bool:
    """Whether ``x`` is a read-only view, or a view of one (numpy's view of a
    read-only array is read-only too).
    """
    link = x._view
    return link is not None and any(back is refused for _, back in link.steps)


def _link(base: Base, steps: tuple[Step, ...], layout: Any) -> Link:
    """A Link of a view derived from ``base`` now."""
    return Link(base, steps, layout, base.version,
                base.counter() if base.mutable else 0)


_creating = threading.Lock()  # makes a Tensor's Base once, whichever thread asks


def _base_of(x: Tensor) -> Base:
    """The Base of which ``x`` (no view) is the base, made on first need. A
    mutable owner's Tensor keeps its Base while its array is the one the Base
    holds (its writes are in place; a Tensor given another array gets a new
    Base, and the old one's views go on viewing the array they were taken of).
    An immutable owner's base Tensor and its Base move together (``write``).
    """
    base = x._base
    if base is None or (base.mutable and base.native is not x._native):
        with _creating:
            base = x._base
            if base is None or (base.mutable and base.native is not x._native):
                backend = x._backend
                base = Base(x._native, x if backend.IMMUTABLE else None,
                            not backend.IMMUTABLE, _known_shape(x))
                x._base = base
    return base


# -- reading a view ---------------------------------------------------------------
def refresh(t: Tensor) -> None:
    """Bring view ``t``'s array up to its base, where the base was written since
    (ext/_fast.c calls this before a view's ``_native`` is read).
    """
    link = t._view
    if link is None:  # (no view any more: nothing to bring up)
        return
    base = link.base
    if link.seen == base.version and (not base.mutable
                                      or link.counter == base.counter()):
        return
    with base.lock:
        _derive(t, link, base)


def _derive(t: Tensor, link: Link, base: Base) -> None:
    """View ``t``'s array made again from its base (the base's lock held)."""
    version = base.version
    native = base.native
    counter = base.counter() if base.mutable else 0
    for forward, _ in link.steps:
        native = forward(native)
    t._native = native  # stored as it is (the setter re-derives nothing)
    t._aliases = None  # the views made of the old array
    link.counter = counter
    link.seen = version


_fast.set_refresh(refresh)


# -- taking a view ----------------------------------------------------------------
def _numpy() -> Any:
    import numpy  # always installed; imported only once a layout is needed

    return numpy


Layout = Callable[[], Any]  # a view's layout, made when first asked (Link.shaped)


def _known_shape(x: Tensor) -> tuple[int, ...] | None:
    """``x``'s sizes, or None where one is unknown (dask's)."""
    known = x.shape  # (the adapters' shape: a tuple of ints, None where unknown)
    return None if None in known else cast("tuple[int, ...]", known)


def _layout(x: Tensor, shape: tuple[int, ...] | None) -> Layout | None:
    """What makes ``x``'s layout: a numpy array of no memory with ``x``'s strides,
    on which numpy decides whether a reshape is a view (None: unknown sizes).
    Made only when a reshape asks: taking a view costs no numpy call.
    ``shape``: ``_known_shape(x)``, which the caller has read.
    """
    link = x._view
    if link is not None:
        return link.shaped
    if shape is None:
        return None
    # torch's own strides, in elements (an immutable owner's arrays have none)
    stride = None if x._backend.IMMUTABLE else getattr(x._native, "stride", None)
    return _strided(shape, stride() if callable(stride) else None)


def _strided(shape: tuple[int, ...], strides: tuple[int, ...] | None) -> Layout:
    """What makes a layout of ``shape`` and ``strides`` (in elements; None:
    C-contiguous, as an immutable owner's arrays are logically), worked out
    only when it is made.
    """
    def layout() -> Any:
        # never read: only numpy's view arithmetic runs on it (one element of
        # memory, 8 bytes, behind any shape and strides)
        np = _numpy()
        in_bytes = (_compact(shape) if strides is None
                    else tuple(8 * s for s in strides))
        return np.lib.stride_tricks.as_strided(np.zeros(1, np.int64), shape, in_bytes,
                                               writeable=False)
    return layout


def _compact(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The strides (bytes of 8-byte elements) of a C-contiguous ``shape``."""
    strides: tuple[int, ...] = ()
    step = 8
    for n in reversed(shape):
        strides = (step, *strides)
        step *= max(n, 1)
    return strides


def _tie(x: Tensor, result: Tensor, steps: tuple[Step, ...], layout: Any) -> Tensor:
    """``result`` (x's owner's array) as a view of ``x``'s base."""
    link = x._view
    if link is not None:
        base, steps = link.base, link.steps + steps
    else:
        base = _base_of(x)
    result._view = _link(base, steps, layout)
    return result


def _basic(key: Any) -> bool:
    """A key of ints, slices of ints, None and ``...`` only (numpy's views)."""
    parts = key if type(key) is tuple else (key,)
    for k in parts:
        kind = type(k)
        if kind is slice:
            if any(type(p) not in (int, type(None)) for p in (k.start, k.stop, k.step)):
                return False
        elif kind is not int and k is not None and k is not Ellipsis:
            return False
    return True


def negative_step(key: Any) -> bool:
    """Whether ``key`` holds a slice of negative step (a copy on torch)."""
    parts = key if type(key) is tuple else (key,)
    return any(type(k) is slice and type(k.step) is int and k.step < 0 for k in parts)


def _new_axes(parts: tuple[Any, ...], ndim: int) -> list[int]:
    """Where the Nones of a basic key put their axes in a result of ``ndim``."""
    cut = parts.index(Ellipsis) if Ellipsis in parts else len(parts)
    found, place = [], 0
    for k in parts[:cut]:
        if k is None:
            found.append(place)
        if type(k) is not int:
            place += 1
    place = ndim
    for k in reversed(parts[cut + 1:]):
        if type(k) is not int:
            place -= 1
        if k is None:
            found.append(place)
    return found


def taken(x: Tensor, key: Any, result: Any, backend: Adapter,
          getitem: Callable[[Any, Any], Any], reshape: Callable[..., Any]) -> Any:
    """``x[key]``'s result (a Tensor) as a view of ``x``'s base where numpy's is a
    view (a basic key not giving a scalar), else as it is (a copy).
    """
    if type(result) is not type(x) or not _basic(key):
        return result
    if scalar_key(key, x.ndim):
        return result  # numpy gives a scalar: a copy
    parts = key if type(key) is tuple else (key,)
    plain = tuple(k for k in parts if k is not None)
    layout = _layout(x, _known_shape(x))
    if layout is None:
        return result
    steps: tuple[Step, ...] = (_index_step(backend, plain, getitem),)
    if len(plain) != len(parts):  # None: a new axis, put back by a reshape
        shape = tuple(int(n or 0) for n in result.shape)
        new = set(_new_axes(parts, len(shape)))
        inner = tuple(n for i, n in enumerate(shape) if i not in new)
        steps += (_reshape_step(reshape, shape, inner),)
    full = key if Ellipsis in parts else (*parts, Ellipsis)
    return _tie(x, result, steps, lambda: layout()[full])


def scalar_key(key: Any, ndim: int) -> bool:
    """Whether ``x[key]`` is numpy's scalar, a copy: as many ints as x has axes."""
    parts = key if type(key) is tuple else (key,)
    return len(parts) == ndim and all(type(k) is int for k in parts)


def _index_step(backend: Adapter, key: Any, getitem: Callable[[Any, Any], Any],
                ) -> Step:
    setitem = backend.setitem
    return (lambda a: getitem(a, key), lambda a, c: setitem(a, key, c))


def _unfold(link: Link) -> None:
    """The steps and layout of a view ext/_fast.c took (``x[key]`` of a base of
    known sizes, ``key`` without None): those ``taken`` makes for it.
    """
    key, shape, backend, getitem = link.key, link.base.shape, link.backend, link.getitem
    # (all set: the fast path takes a view only with them, of known sizes)
    assert shape is not None
    assert backend is not None
    assert getitem is not None
    parts = key if type(key) is tuple else (key,)
    layout = _strided(shape, None)
    full = key if Ellipsis in parts else (*parts, Ellipsis)
    link.steps = (_index_step(backend, parts, getitem),)
    link.layout = lambda: layout()[full]


_fast.set_unfold(_unfold)


def _reshape_step(reshape: Callable[..., Any], shape: tuple[int, ...],
                  parent: tuple[int, ...]) -> Step:
    return (lambda a: reshape(a, shape), lambda a, c: reshape(c, parent))


def ties(name: str, x: Tensor, result: Any, backend: Adapter) -> bool:
    """Whether the result of ``name`` on ``x`` (run by x's owner, ``backend``:
    ``result``, its own arrays) is made a view of x's base by :func:`derive`:
    where the owner's own result is not already numpy's view. On an immutable
    owner, and from a view (its array may be its own: torch's flip), every
    view function; on torch, its flip (a copy), its writable read-only views
    and its writable imag of a real array.
    """
    if name in FUNCTIONS or name in READ_ONLY or name in PARTS:
        if backend.IMMUTABLE or x._view is not None:
            return True
        if name == "flip":
            return not backend.NEGATIVE_STRIDES
        if name in READ_ONLY:
            items = result if type(result) in (tuple, list) else (result,)
            return not all(backend.readonly(item) for item in items)
        if name == "imag" and x.dtype.kind != "complex floating":
            return not backend.readonly(result)  # numpy's read-only zeros
    return False


@functools.cache
def tying(name: str, backend: Adapter,
          lookup: Lookup) -> Callable[[Tensor, tuple[Any, ...], dict[str, Any], Any],
                                      Any]:
    """The fast path's ``tie`` for view function ``name`` on ``backend``.

    Its result (Tensors of the owner's arrays) is made views of x's base as the
    general path makes them (``ties`` asked again: its answer may depend on the
    call, as torch's ``imag`` does on the dtype).
    """
    def tie(x: Tensor, args: tuple[Any, ...], kwargs: dict[str, Any],
            result: Any) -> Any:
        native = (tuple(t._native for t in result) if type(result) is tuple
                  else result._native)
        if not ties(name, x, native, backend):
            return result
        return derive(x, name, list(args), kwargs, result, backend, lookup)
    return tie


def learnable(name: str, x: Tensor) -> bool:
    """Whether a fast path may repeat ``name`` on ``x``'s owner as it ran on ``x``.

    Untied where ``ties`` said no, tied (``tying``) where it said yes. Not
    where a mutable owner's ``x`` being read-only is what made the tie needless
    (memory lent read-only to torch: its ``broadcast_to`` is read-only
    already), so that the results of writable arrays stay tied.
    """
    return not ((name in READ_ONLY or name in PARTS) and not x._backend.IMMUTABLE
                and x.readonly)


def derive(x: Tensor, name: str, args: list[Any], kwargs: dict[str, Any],
           result: Any, backend: Adapter, lookup: Lookup) -> Any:
    """The result of view function ``name`` on ``x`` (args: the native arguments
    after x, kwargs: the native keywords) as views of ``x``'s base, where
    numpy's would be views; else as it is.
    """
    parent = _known_shape(x)
    layout = _layout(x, parent)
    if layout is None or parent is None:
        return result
    bound = _bind(name, args, kwargs)
    func = lookup(backend, name)
    forward: Callable[[Any], Any] = lambda a: func(a, *args, **kwargs)  # noqa: E731
    ndim = len(parent)
    if name == "unstack":
        if ndim == 1:
            return result  # numpy's are scalars: copies
        axis = bound.get("axis", 0) % ndim
        getitem = backend.FIXES.get("__getitem__") or operator.getitem
        keys = [(slice(None),) * axis + (i,) for i in range(len(result))]
        return tuple(_tie(x, item, (_index_step(backend, key, getitem),),
                          lambda key=key: layout()[(*key, Ellipsis)])
                     for key, item in zip(keys, result, strict=True))
    view: Layout
    if name == "reshape":
        if bound.get("copy") is True:
            return result
        shape = bound["shape"]
        try:  # numpy decides, on the strides: a view, or a copy
            if x._view is None and backend.IMMUTABLE:
                # a base of an immutable owner is C-contiguous: a view always,
                # its layout made only when asked (numpy's 3 µs)
                view = lambda: _numpy().reshape(layout(), shape)  # noqa: E731
            else:
                made = _numpy().reshape(layout(), shape, copy=False)
                view = lambda: made  # noqa: E731
        except (ValueError, TypeError):
            if bound.get("copy") is False:  # (jax and TensorFlow copied)
                raise arg_error(ValueError, "reshape", "copy", "True or None, since "
                                "this reshape needs a copy (the array's strides "
                                "allow no view of that shape)", "False") from None
            # a copy; where x is a view whose array is its own (torch's flip),
            # the owner's reshape may be a view of that array: copied
            return (result if backend.IMMUTABLE or x._view is None
                    else _copied(result, backend))
        reshape = func
        backward = lambda a, c: reshape(c, parent)  # noqa: E731
    elif name == "permute_dims":
        axes = tuple(bound["axes"])
        inverse = tuple(sorted(range(ndim), key=lambda i: axes[i] % ndim))
        view = lambda: _numpy().transpose(layout(), axes)  # noqa: E731
        backward = lambda a, c: func(c, inverse)  # noqa: E731
    elif name == "matrix_transpose":
        view = lambda: _numpy().swapaxes(layout(), -1, -2)  # noqa: E731
        backward = lambda a, c: func(c)  # noqa: E731
    elif name in ("expand_dims", "squeeze"):
        axis = bound.get("axis", 0 if name == "expand_dims" else None)
        view = lambda: getattr(_numpy(), name)(layout(), axis)  # noqa: E731
        reshape = lookup(backend, "reshape")
        backward = lambda a, c: reshape(c, parent)  # noqa: E731
    elif name == "moveaxis":
        source, destination = bound["source"], bound["destination"]
        view = lambda: _numpy().moveaxis(layout(), source, destination)  # noqa: E731
        backward = lambda a, c: func(c, destination, source)  # noqa: E731
    elif name == "flip":
        if ndim == 0:
            return result  # numpy's flip of a 0-d array is a scalar: a copy
        axis = bound.get("axis")
        view = lambda: _numpy().flip(layout(), axis)  # noqa: E731
        backward = lambda a, c: func(c, **kwargs)  # noqa: E731
    elif name == "broadcast_to":
        shape = tuple(bound["shape"])
        view = lambda: _numpy().broadcast_to(layout(), shape)  # noqa: E731
        backward = refused
    elif name == "linalg.diagonal":
        offset = bound.get("offset", 0)
        view = lambda: _numpy().diagonal(layout(), offset, -2, -1)  # noqa: E731
        backward = refused
    else:  # real, imag: a part of each element, at the element's place
        view = layout
        backward = _part_back(name, x, backend, lookup)
    return _tie(x, result, ((forward, backward),), view)


def _part_back(name: str, x: Tensor, backend: Adapter,
               lookup: Lookup) -> Callable[[Any, Any], Any]:
    """The step back of ``real``/``imag`` of ``x``: the base with that part
    replaced, exactly (the adapter's ``complex_of``: no arithmetic on the
    parts). Of a real array, ``real`` is the array itself and ``imag`` a new
    read-only array of zeros (numpy's).
    """
    if x.dtype.kind != "complex floating":
        return (lambda a, c: c) if name == "real" else refused
    complex_of = backend.complex_of
    other = lookup(backend, "imag" if name == "real" else "real")
    if name == "real":
        return lambda a, c: complex_of(c, other(a))
    return lambda a, c: complex_of(other(a), c)


def broadcast(arrays: tuple[Any, ...], results: tuple[Tensor, ...],
              backend: Adapter, lookup: Lookup) -> tuple[Tensor, ...]:
    """``broadcast_arrays``' results (run by ``backend``) as read-only views:
    each of its array's base where that array is a Tensor of that owner, else
    (an array of another owner, converted) of its own.
    """
    if not results or any(n is None for n in results[0].shape):
        return results  # sizes dask knows only once computed: its own arrays
    shape = tuple(int(n or 0) for n in results[0].shape)
    broadcast_to = lookup(backend, "broadcast_to")
    steps: tuple[Step, ...] = ((lambda a: broadcast_to(a, shape), refused),)
    tied = []
    for x, result in zip(arrays, results, strict=True):
        of = x if getattr(x, "_backend", None) is backend else result
        layout = _layout(of, _known_shape(of)) or _strided(shape, None)
        tied.append(_tie(of, result, steps if of is x else ((_same, refused),),
                         lambda layout=layout: _numpy().broadcast_to(layout(), shape)))
    return tuple(tied)


def _same(a: Any) -> Any:
    return a


def _copied(result: Any, backend: Adapter) -> Any:
    """A Tensor of a copy of ``result``'s array."""
    result._native = backend.copy(result._native)
    return result


_PARAMETERS = {"reshape": ("shape", "copy"), "permute_dims": ("axes",),
               "matrix_transpose": (), "expand_dims": ("axis",),
               "squeeze": ("axis",), "moveaxis": ("source", "destination"),
               "flip": ("axis",), "unstack": ("axis",), "broadcast_to": ("shape",),
               "linalg.diagonal": (), "real": (), "imag": ()}


def _bind(name: str, args: list[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The arguments after x by parameter name."""
    return dict(zip(_PARAMETERS[name], args, strict=False)) | kwargs


# -- writing ----------------------------------------------------------------------
def write(x: Tensor, func: str, update: Callable[[Any], Any],
          rebind: Callable[[Tensor, Any, str], None]) -> None:
    """Write ``x`` (a view, or a Tensor of an immutable owner): ``update(array)``
    gives x's new array (or changes it in place); the base takes it through the
    inverse of each step, under the base's lock; ``rebind(x, array, func)``
    checks and stores x's new array.
    """
    link = x._view
    if link is None:  # the base itself (an immutable owner)
        base = _base_of(x)
        with base.lock:
            native = x._native
            updated = update(native)
            if updated is native:
                return
            rebind(x, updated, func)
            base.native = x._native
            base.version += 1
        return
    base = link.base
    with base.lock:
        if base.mutable:  # its memory may have been written where no counter
            # moves (through a numpy array of it): the view's own array, whose
            # every element goes back below, made again from it first
            _derive(x, link, base)
        old = x._native  # brought up to the base first
        updated = update(old)
        rebind(x, updated, func)
        try:
            parents = [base.native]
            for forward, _ in link.steps[:-1]:
                parents.append(forward(parents[-1]))
            child = x._native
            for (_, backward), parent in zip(reversed(link.steps), reversed(parents),
                                             strict=True):
                child = backward(parent, child)
        except BaseException:
            x._native = old
            raise
        if base.mutable:
            if child is not base.native:  # the base's memory, written in place
                x._backend.setitem(base.native, Ellipsis, child)
            link.counter = base.counter()
        else:
            base.native = child
            owner = base.tensor() if base.tensor is not None else None
            if owner is not None:  # the base Tensor, kept current (no view)
                rebind(owner, child, func)
        base.version += 1
        link.seen = base.version
