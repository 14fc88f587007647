"""Types of unitensor._fast (ext/_fast.c): the Tensor's C base and the fast paths.

Kept in step with ext/_fast.c by hand: its PyMethodDef, PyMemberDef and
PyGetSetDef tables are the source of truth. (A stub is never imported, so its
imports make no cycle.)
"""

from collections.abc import Callable
from collections.abc import Set as AbstractSet
from typing import Any, Final, Literal, Self, TypeAlias, final

from typing_extensions import disjoint_base

from ._backends._adapter import Adapter
from ._core import Buffer
from ._tensor import Tensor
from ._views import Base as ViewsBase

#: the most arguments one CALL fast path passes on, x included
MAX_CALL_ARGS: Final[int]
HELD_BY_ALL: Final[int]  # _dtypes.HELD_BY_ALL: the ints the binary path passes on
# For ext/_core.c's C exchange API: the Buffer a Tensor holds, read from C.
_tensor_buffer: Final[object]

# Subclassed by unitensor.Tensor, which has every method; calling it raises
# TypeError (asarray() and from_dlpack() make Tensors). Its C storage makes it a
# disjoint base: no class derives from it and another such base at once.
@disjoint_base
class TensorBase:
    """The storage of unitensor.Tensor."""

    _backend: Adapter  # the owner's adapter
    _native: Any  # the owner's array (assigning it forgets the cached dtype)
    _aliases: Aliases | None  # shared by every Tensor aliasing this memory
    # a view's tie to its base (its _native is re-derived where the base moved;
    # it takes no fast path), and the base record of which this one is the base
    _view: Link | None
    _base: ViewsBase | None
    # refuses: Tensors come from unitensor.asarray / from_dlpack (object.__new__
    # makes an empty one, for torch.compile's tracer)
    def __init__(self, *args: Any, **kwargs: Any) -> None: ...

@final
class Aliases:
    """What every Tensor aliasing one memory shares."""

    buffer: Buffer | None  # None until the memory is exported
    ordered: bool  # CUDA memory: a cached view orders the consumer's stream first
    lock: Any  # None until buffer_of() fills `buffer`: the lock making it once
    def __new__(cls, buffer: Buffer | None = None) -> Self: ...
    @property
    def views(self) -> dict[str, Any]: ...  # framework name -> its zero-copy array

# tie(x, args, kwargs, result): a view function's result tied to x's base
_Tie: TypeAlias = Callable[[Any, tuple[Any, ...], dict[str, Any], Any], Any]

@final
class Entry:
    """A row of a UNARY, BINARY, GETITEM or CALL table, for one backend."""

    def __new__(cls, func: Callable[..., Any], array_type: type,
                real_func: Callable[..., Any] | None = None,
                complex_dtypes: AbstractSet[Any] | None = None, *,
                tie: _Tie | None = None) -> Self: ...
    @property
    def func(self) -> Callable[..., Any]: ...
    @property
    def array_type(self) -> type: ...
    @property
    def real_func(self) -> Callable[..., Any] | None: ...
    @property
    def complex_dtypes(self) -> AbstractSet[Any] | None: ...
    @property
    def tie(self) -> _Tie | None: ...

@final
class TypeEntry:
    """A row of asarray's table, for one array type."""

    def __new__(cls, backend: Adapter, dtypes: tuple[Any, ...],
                layout_attr: str | None = None, layout: Any = None, *,
                dtype_method: str | None = None,
                dtype_codes: dict[Any, Any] | None = None) -> Self: ...
    @property
    def backend(self) -> Adapter: ...
    @property
    def dtypes(self) -> tuple[Any, ...]: ...

# forward(parent) -> child, backward(parent, new child) -> new parent (_views.Step)
_Step: TypeAlias = tuple[Callable[[Any], Any], Callable[[Any, Any], Any]]

# The C storage of _views.Base (which subclasses it): what the getitem fast path
# reads of a base record.
@disjoint_base
class Base:
    version: int  # moved by each write
    shape: tuple[int, ...] | None  # None where a size is unknown
    mutable: bool  # written in place (torch): its framework's counter moves too

@final
class Link:
    """A view's tie to its base (unitensor/_views.py); one taken by the getitem
    fast path has its key, backend and getitem, and makes its steps and layout
    from them when first read (the set_unfold hook).
    """

    seen: int  # the base's version the view's array was derived at
    counter: int  # a mutable base: its framework's counter then, else 0
    steps: tuple[_Step, ...]
    layout: Any  # what makes the layout, the layout, or None
    # base must be a Base (else TypeError); steps a tuple
    def __new__(cls, base: Base, steps: tuple[_Step, ...], layout: Any,
                seen: int = 0, counter: int = 0) -> Self: ...
    @property
    def base(self) -> ViewsBase: ...
    @property
    def key(self) -> Any: ...  # taken by the fast path: x[key]; else None
    @property
    def backend(self) -> Adapter | None: ...
    @property
    def getitem(self) -> Callable[[Any, Any], Any] | None: ...
    def shaped(self) -> Any: ...  # the layout, made on first need and kept

@final
class FastPath:
    """A C shortcut standing for ``slow``; binds like a function (a method of
    Tensor) and has a ``__dict__`` (for functools.update_wrapper).
    """

    # kind: 'asarray', 'unary', 'binary', 'view', 'getitem' or 'call' (else
    # ValueError). table: {type: TypeEntry} (asarray), {backend: Entry} (unary,
    # binary, getitem, call) or the framework's name (view). keywords: call only.
    # scalars, finish: binary only, a Tensor with a Python scalar: scalars is
    # {backend: Entry}, finish(x, scalar, result) takes a result whose dtype is not
    # x's (TypeError for scalars without a callable finish, or on another kind).
    # views: getitem only, {backend: Entry}: x[key] of an immutable owner's base
    # taken as a view of it (TypeError on another kind). least_ndim: call only, an
    # x of fewer dimensions takes the slow path (ValueError on another kind).
    # copies: getitem only, {backend: Entry}: the owners whose x[i, j] of as many
    # ints as axes is a 0-d view, and the function copying it (TypeError on
    # another kind). named: call only, {name: position} of the positional
    # parameters a caller may give by name, passed on in their places (TypeError
    # on another kind). integers: call only, {name: (position, -1 keyword-only;
    # whether it takes an int; whether it takes a tuple)} of the integer
    # parameters, whose values other than a Python int or a tuple of them, where
    # taken, take the slow path.
    def __new__(cls, kind: str, slow: Callable[..., Any],
                table: dict[type, TypeEntry] | dict[Adapter, Entry] | str, *,
                as_tensors: Callable[[Adapter, Any], Any] | None = None,
                keywords: dict[str, Any] | None = None,
                scalars: dict[Adapter, Entry] | None = None,
                finish: Callable[[Tensor, Any, Any], Any] | None = None,
                max_positional: int = 1,
                views: dict[Adapter, Entry] | None = None,
                least_ndim: int = 0,
                copies: dict[Adapter, Entry] | None = None,
                named: dict[str, int] | None = None,
                integers: dict[str, tuple[int, bool, bool]] | None = None) -> Self: ...
    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...
    def __get__(self, obj: object, owner: type | None = None, /) -> Any: ...
    @property
    def slow(self) -> Callable[..., Any]: ...
    @property
    def table(self) -> dict[type, TypeEntry] | dict[Adapter, Entry] | str: ...
    @property
    def scalars(self) -> dict[Adapter, Entry] | None: ...
    @property
    def views(self) -> dict[Adapter, Entry] | None: ...
    @property
    def copies(self) -> dict[Adapter, Entry] | None: ...
    @property
    def kind(self) -> Literal["asarray", "unary", "binary", "view", "getitem",
                              "call"]: ...

# Register unitensor.Tensor (make_tensor and the fast paths make instances of it)
# and _backends._loaded (framework name -> adapter; the view path reads ROUTES).
def configure(tensor_type: type[TensorBase], loaded: dict[str, Adapter],
              adapter_type: type, /) -> None: ...
def adapters_changed() -> None: ...  # an adapter's attribute set or deleted
def set_refresh(hook: Callable[[Tensor], None], /) -> None: ...  # views (_views)
# Whether two Tensors' dtypes are of one kind by ranks[(backend, native dtype)]
# (_dispatch._NATIVE_RANK); None where either pair is not in it.
def same_kind(x1: Tensor, x2: Tensor, ranks: dict[tuple[Adapter, Any], int],
              /) -> bool | None: ...
# hook(link) sets the steps and layout of a Link the getitem fast path took
def set_unfold(hook: Callable[[Link], None], /) -> None: ...
# Tensor.__torch_function__ (a classmethod of it): a reading torch function of
# positional arguments on each Tensor's torch view; the rest through `hook`
# (_native.torch_function), given with its {func: kind} table (0: only reads) and
# Tensor.torch by set_torch_function (RuntimeError before that).
def torch_function(func: Any, types: Any, args: Any = (), kwargs: Any = None,
                   /) -> Any: ...
def set_torch_function(hook: Callable[..., Any], kinds: dict[Any, int],
                       torch_view: Callable[[Tensor], Any], /) -> None: ...
def enter_owner() -> None: ...
def leave_owner() -> None: ...  # RuntimeError where no owner() block is open
def owner_blocks() -> int: ...
# A Tensor (of the class given to configure()), without any checks.
def make_tensor(backend: Adapter, native: Any, aliases: Aliases | None = None,
                /) -> Tensor: ...
# Put func in FastPath's type dict as __get__, where torch.compile's tracer reads
# it; CPython still binds through the C slot (unitensor/_compile.py).
def show_get(func: Callable[..., Any], /) -> None: ...
# Tensor's operator, comparison and subscript slots call these FastPaths
# (dunder name -> FastPath; every name ext/_fast.c's OPERATOR_NAMES lists).
def show_operators(tensor_type: type[Tensor], operators: dict[str, FastPath],
                   /) -> None: ...
