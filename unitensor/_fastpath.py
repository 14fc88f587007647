"""The fast paths: C shortcuts (ext/_fast.c) to what the general path decided once.

This module alone builds the ``FastPath`` objects and owns the tables they read.
The general path (``_dispatch.py``, ``_convert.py``) never writes into them: once
it has decided how a call runs, it tells :func:`learn`, which fills the row the
fast path of that name reads next time. Each fast path calls the Python function
it stands for (``slow``) for anything its table does not answer, so it can only
ever be a shortcut to the general path's own answer.

The kinds, and what their rows hold (``_fast.Entry`` and ``_fast.TypeEntry``,
immutable C structs):

- ``asarray``: array type -> ``TypeEntry(backend, dtypes)``, the types asarray
  wraps as they are (``backend.native(obj) is obj``) and their dtype objects;
- ``unary``, ``binary``, ``call``, ``getitem``: backend -> ``Entry(func,
  array_type)``, the framework's function and its array type; a unary, binary
  or call row may add ``real_func``/``complex_dtypes`` where ``func`` is a fix
  that only some dtypes (of its first array) need (complex inputs:
  ``_backends/_fixes.py``'s ``real_path``; integer inputs of floating-point
  functions and means: ``_float_loops.py``; bool inputs of arithmetic and
  counts: ``_bool_loops.py``), and ``complex_dtypes`` alone where ``func``
  runs for those dtypes only (a ``real_path`` of None: the others take the
  general path, as torch's ``imag`` of a real array, which it makes read-only);
- ``view``: no table; the framework name (views read the Tensor's own cache and
  the target adapter's ``ROUTES``).

``enter_owner``/``leave_owner``/``owner_blocks`` count the open ``owner()`` blocks
in C: while one is open the fast paths step aside, since the owner rule may then
pick another framework.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias

from . import _backends, _fast
from . import _bool_loops as bool_loops
from . import _float_loops as float_loops
from ._backends import _adapter
from ._fast import Entry, TypeEntry, enter_owner, leave_owner, owner_blocks

if TYPE_CHECKING:
    from ._backends._adapter import Adapter

__all__ = [
    "asarray",
    "binary_function",
    "call_function",
    "configure",
    "enter_owner",
    "getitem",
    "learn",
    "leave_owner",
    "owner_blocks",
    "unary_function",
    "view",
]

MAX_CALL_ARGS: int = _fast.MAX_CALL_ARGS  # what one C call passes on, x included

# as_tensors(backend, result, name): the general path turning results that
# are not one array (tuples, named tuples) into Tensors; a fast path calls it.
AsTensors: TypeAlias = "Callable[[Adapter, Any, str], Any]"

# asarray's table: array type -> TypeEntry.
_types: _backends.Watched[type, TypeEntry] = _backends.Watched()
# Most arrays are of these: the asarray fast path compares an array's dtype with
# its row's in order.
_COMMON = ("float32", "float64", "int64", "int32", "bool")


def _common_first(backend: Adapter) -> tuple[Any, ...]:
    """The adapter's native dtypes, the common ones first."""
    native = backend.NATIVE_DTYPES
    return tuple(sorted(native, key=lambda dtype: (
        _COMMON.index(native[dtype].name) if native[dtype].name in _COMMON
        else len(_COMMON))))
# function name -> (kind, its table: backend -> Entry), for learn().
_tables: dict[str, tuple[str, dict[Adapter, Entry]]] = {}


def configure(tensor_type: type[_fast.TensorBase]) -> None:
    """Register unitensor.Tensor (the C side makes Tensors of it), the loaded
    adapters (the view fast path takes their ROUTES) and their class (whose
    members C reads from each adapter's dict).
    """
    _fast.configure(tensor_type, _backends._loaded, _adapter.Assembled)


# -- the hook ---------------------------------------------------------------------
def learn(name: str, backend: Adapter, func: Any,
          tie: Callable[..., Any] | None = None) -> None:
    """What the general path decided, for the fast paths standing for ``name``.

    Called once the general path has run ``name`` on an array of ``backend`` in
    ``backend`` itself (its owner, computing in its own namespace) with ``func``
    (the adapter's implementation). For ``"asarray"``, ``func`` is the array type
    asarray wrapped as it is. ``tie``: for a view function whose result the
    general path tied to x's base, ``tie(x, args, kwargs, result)``, which the
    fast path calls on its result as the general path does. A row, once there,
    is never replaced (setdefault: two threads learning at once keep the first).
    """
    if name == "asarray":
        if func not in _types and backend.wraps_as_is(func):
            method, codes = backend.DTYPE_CODE or (None, None)
            if method is not None and not hasattr(func, method):
                method = None
            _types.setdefault(func, TypeEntry(backend, _common_first(backend),
                                              *backend.DENSE_LAYOUT,
                                              dtype_method=method, dtype_codes=codes))
        return
    found = _tables.get(name)
    if found is None or backend in found[1]:
        return
    kind, table = found
    if kind == "unary" or kind == "binary":
        # Operands of one dtype: the framework's own function where the adapter
        # names one (skipping array-api-compat's promotion wrappers), under the
        # rule for integer inputs of floating-point functions, as the general path
        same = backend.SAME_DTYPE.get(name)
        if same is not None:
            func = float_loops.rule(backend, name,
                                    bool_loops.rule(backend, name, same))
    dtypes = (getattr(func, "complex_dtypes", None)
              if kind in ("unary", "binary", "call", "scalar") else None)
    if dtypes is not None:  # only some dtypes need func's fix (a real_path of
        # None: the other dtypes are the general path's)
        table.setdefault(backend, Entry(func, backend.ARRAY,
                                        getattr(func, "real_path", None), dtypes,
                                        tie=tie))
    else:
        table.setdefault(backend, Entry(func, backend.ARRAY, tie=tie))


# -- building them ------------------------------------------------------------------
def _build(kind: str, slow: Callable[..., Any], table: Any, **options: Any) -> Any:
    """A C shortcut standing for ``slow``, looking like it (``__wrapped__``,
    ``__name__``, ``__doc__``: inspect.signature shows ``slow``'s).
    """
    return functools.update_wrapper(_fast.FastPath(kind, slow, table, **options), slow)


def _table(name: str, kind: str) -> dict[Adapter, Entry]:
    """The table that learn() fills for ``name``: one per name, whatever reads it."""
    found = _tables.setdefault(name, (kind, {}))
    if found[0] != kind:
        raise ValueError(f"fast path {name!r}: already a {found[0]} path, not {kind}")
    return found[1]


def _as_tensors_for(as_tensors: AsTensors,
                    name: str) -> Callable[[Adapter, Any], Any]:
    """What a fast path calls for results that are not one array (tuples)."""
    def results(backend: Adapter, result: Any) -> Any:
        return as_tensors(backend, result, name)
    return results


def asarray(slow: Callable[..., Any]) -> Any:
    """``asarray``: a Tensor as it is, or an array of a type and dtype seen before
    wrapped in C; ``slow`` (the general asarray) for everything else.
    """
    return _build("asarray", slow, _types)


def view(slow: Callable[..., Any], framework: str) -> Any:
    """A Tensor's ``.torch()`` (etc.) for ``framework``: the cached view, the
    owner's own array, or the target adapter's route, in C; else ``slow``.
    """
    return _build("view", slow, framework)


def getitem(slow: Callable[..., Any], as_tensors: AsTensors) -> Any:
    """``x[key]`` for basic keys (ints, slices without a negative step, None,
    Ellipsis), which every framework reads alike, in C; else ``slow``. Taught by
    ``learn("__getitem__", backend, operator.getitem)``; on the base of an
    immutable owner's views, the view of it (_views.py), taught by
    ``learn("__getitem__" + VIEWS, backend, getitem)``; a scalar read (as many
    ints as axes) of an owner whose read is a view, copied, taught by
    ``learn("__getitem__" + COPIES, backend, copy)`` first.
    """
    return _build("getitem", slow, _table("__getitem__", "getitem"),
                  as_tensors=_as_tensors_for(as_tensors, "__getitem__"),
                  views=_table("__getitem__" + VIEWS, "getitem"),
                  copies=_table("__getitem__" + COPIES, "getitem"))


def unary_function(name: str, slow: Callable[[Any], Any], as_tensors: AsTensors) -> Any:
    """The namespace's one-array function ``name``: a Tensor whose backend was
    learned goes straight to the framework's function.
    """
    return _build("unary", slow, _table(name, "unary"),
                  as_tensors=_as_tensors_for(as_tensors, name))


def binary_function(name: str, slow: Callable[[Any, Any], Any],
                    as_tensors: AsTensors,
                    finish: Callable[[str, Any, Any, Any], Any]) -> Any:
    """The namespace's two-array elementwise function ``name``: two Tensors of one
    learned backend and one dtype go straight to the framework's function; so
    does a Tensor with a Python scalar, once the general path's shortcut has
    taken one on that backend (``learn(name + SCALAR, ...)``), and
    ``finish(name, x, scalar, result)`` is what the shortcut does with a result
    of another dtype than x's (the one dtype rule).
    """
    return _build("binary", slow, _table(name, "binary"),
                  as_tensors=_as_tensors_for(as_tensors, name),
                  scalars=_table(name + SCALAR, "scalar"),
                  finish=functools.partial(finish, name))


# learn(name + SCALAR, ...): the general path's shortcut took a Tensor and a Python
# scalar for the binary function ``name``.
SCALAR = " with a scalar"
# learn("__getitem__" + VIEWS, ...): the general path took x[key] of an immutable
# owner's Tensor as a view of its base (_views.taken), which C repeats for a base.
VIEWS = " as a view"
# learn("__getitem__" + COPIES, ...): the general path copied x[i, j] of as many
# ints as axes, which the owner read as a 0-d view (torch); taught before
# "__getitem__" itself, so that C never reads such a key without it.
COPIES = " copied"


def call_function(python_func: Callable[..., Any], name: str,
                  keywords: list[tuple[str, str]], positional: int | None,
                  as_tensors: AsTensors, least_ndim: int = 0,
                  named: dict[str, int] | None = None,
                  integers: dict[str, tuple[int, bool, bool]] | None = None) -> Any:
    """``python_func`` (a generated function of the namespace) behind the C fast
    path for a Tensor and plain Python arguments (``sum(x, axis=0)``).

    ``keywords``: (name, default as the standard writes it); the C path leaves out
    keywords equal to their defaults, as ``python_func`` does. ``positional``: how
    many positional parameters, x included (None: ``*args``). ``named``: the
    positional parameters a caller may also give by name (``expand_dims(x,
    axis=0)``), by position: the C path passes them on in their places, as
    ``python_func`` does. ``least_ndim``: an x of fewer dimensions is left to
    ``python_func``. ``integers``: the integer parameters
    (``_integers.fast_path_table``), whose values other than a Python int or a
    tuple of them, where taken, are left to ``python_func`` (``_integers``
    reads them). Where a default is not a literal,
    ``python_func`` itself.
    """
    try:
        defaults = {k: _literal(v) for k, v in keywords if k not in _PARSED}
    except ValueError:
        return python_func
    return _build("call", python_func, _table(name, "call"), keywords=defaults,
                  as_tensors=_as_tensors_for(as_tensors, name),
                  max_positional=MAX_CALL_ARGS if positional is None else positional,
                  least_ndim=least_ndim, named=named or None,
                  integers=integers or None)


_CONSTANTS = {"None": None, "True": True, "False": False}
# Keywords the general path parses (``parse_dtype``, ``parse_device``): a C path
# would hand their literals to the framework as they are, which reads some as
# something else (TensorFlow reads dtype=5 as its DataType 5, device=0 as a
# device). Not keywords of the C path: given, they take the general path.
_PARSED = frozenset({"dtype", "device"})


def _literal(text: str) -> Any:
    """A default of the table ('fro', -1, 0.0, None): ast.literal_eval's answer
    for them, without the 3 ms that importing ast adds to ``import unitensor``.
    """
    if text in _CONSTANTS:
        return _CONSTANTS[text]
    if len(text) >= 2 and text[0] in "'\"" and text[-1] == text[0]:
        return text[1:-1]
    try:
        return int(text)
    except ValueError:
        return float(text)  # a ValueError for anything else: no fast path then
