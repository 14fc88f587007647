"""Where a call runs: the one rule that picks the owner, and the call itself.

The rule, in order:

1. inside ``with unitensor.owner(name):``, that framework;
2. otherwise the owner of the left-most Tensor (or framework array) operand;
   where operands have several owners, of the left-most one carrying autodiff
   state (``autodiff_state`` of its adapter: a torch tensor that requires grad,
   a jax tracer, a TF tensor a tape watches), whose graph a conversion would
   drop; two frameworks' autodiff state is a TypeError naming ``ut.wrap``;
3. with no array operand (creation functions), the framework of the ``device``
   argument: a Tensor's device knows its owner (``device=x.device`` creates
   where ``x`` lives), and a framework's device object names its framework;
4. otherwise the default owner: :func:`unitensor.set_default_owner`, else
   ``UNITENSOR_DEFAULT_OWNER``, else numpy.

Operands owned by another framework are converted to the chosen one zero-copy
(read-only memory may be aliased, since an operand is only read). Operands on
different devices are an error naming both: never an implicit transfer.
A backend whose adapter has no namespace (``namespace()`` is None: Warp) computes
in numpy on zero-copy views, its results numpy's; an in-place operator writes the
result back into its memory (every other backend has a namespace: tensorflow's is
written in its ``namespace/``, against TF's own ops).

Each backend's functions are looked up once per name: the adapter's fix for a
deviation where it has one, else the backend's Array API namespace. Once the
general call has decided, it tells the fast paths (``_fastpath.learn``), which
repeat the decision in C next time (``_fastpath.py``).
"""

from __future__ import annotations

import ast
import collections
import contextlib
import functools
import math
import numbers
import operator
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from . import (
    _backends,
    _bool_loops,
    _config,
    _convert,
    _fast,
    _fastpath,
    _float_loops,
    _integers,
    _views,
)
from ._backends._fixes import nan_past_correction
from ._device import Device
from ._device import parse as parse_device
from ._dtypes import (
    HELD_BY_ALL,
    KIND_RANK,
    DType,
    bool_,
    check_int,
    holds,
    int64,
    promote,
    with_scalar,
)
from ._dtypes import parse as parse_dtype
from ._errors import (
    arg_error,
    as_argument,
    describe,
    from_computing,
    is_ours,
    refused,
    renamed,
    restated,
)
from ._fastpath import enter_owner, learn, leave_owner, owner_blocks
from ._standard import (
    API_VERSION,
    ELEMENT_ARGUMENTS,
    FUNCTIONS,
    NAMED_RESULTS,
    SCALAR_ARGUMENTS,
    Function,
)
from ._tensor import Tensor, _make

if TYPE_CHECKING:
    from ._backends._adapter import Adapter

_forced = _config.forced  # the framework an open owner() block names
_BY_TYPE = _backends._by_type
# backend -> {function name -> the callable that runs it}: filled on first call.
_impls: dict[Adapter, dict[str, Callable[..., Any]]] = {}


# -- the owner rule -------------------------------------------------------------
@contextlib.contextmanager
def owner(name: str) -> Iterator[str]:
    """Run every unitensor call in this block in framework ``name``.

    Operands owned by other frameworks are converted zero-copy; creation
    functions create arrays of ``name``. Nests, and is local to the thread (and
    to the asyncio task).

    Parameters
    ----------
    name : str
        A framework: 'numpy', 'torch', 'jax', 'tensorflow', 'cupy' or
        'array_api_strict'.

    Yields
    ------
    str
        The framework's name.

    Raises
    ------
    ValueError
        ``name`` is not a known framework.
    """
    backend = _backends.get(name, "owner")
    token = _forced.set(backend)
    enter_owner()  # the fast paths step aside while any owner() block is open
    try:
        yield backend.NAME
    finally:
        leave_owner()
        _forced.reset(token)


def set_default_owner(name: str) -> None:
    """Make ``name`` the owner of arrays made with no array operand.

    Parameters
    ----------
    name : str
        A framework: 'numpy', 'torch', 'jax', 'tensorflow', 'cupy' or
        'array_api_strict'. ``UNITENSOR_DEFAULT_OWNER`` sets it at import.

    Raises
    ------
    ValueError
        ``name`` is not a known framework.
    """
    _config.set_default_owner(_backends.get(name, "set_default_owner").NAME)


def get_default_owner() -> str:
    """Tell which framework creates arrays when no operand decides.

    Returns
    -------
    str
        The framework's name ('numpy' unless set).
    """
    return _config.default_owner()


def _compute(backend: Adapter) -> Adapter:
    """The backend that runs operations on ``backend``'s arrays."""
    return backend if backend.namespace() is not None else _backends.get("numpy")


def _choose(args: tuple[Any, ...], kwargs: dict[str, Any],
            func: str = "asarray") -> tuple[Adapter, Tensor | None]:
    """The backend that runs the call, and the Tensor that decided it (if any)."""
    if len(args) == 2 and not kwargs and not owner_blocks():
        x1, x2 = args  # x1, x2: two Tensors, read without the general loop below
        if type(x1) is Tensor and type(x2) is Tensor:
            b1, b2 = x1._backend, x2._backend
            if b1 is b2 or not b2.AUTODIFF or (  # x1 decides whatever it carries,
                    (not b1.AUTODIFF or b1.autodiff_state(x1._native) is None)
                    and b2.autodiff_state(x2._native) is None):  # or x2 carries none
                return _compute(b1), x1
            return _by_autodiff(x1, args, kwargs, func)
    # The C count first: no owner() block open anywhere, no context to read
    # (and none for a compiler tracing this to read: unitensor/_compile.py).
    forced = _forced.get() if owner_blocks() else None
    first: Tensor | None = None
    for value in (*args, *kwargs.values()):
        kind = type(value)
        items = value if kind is list or kind is tuple else (value,)
        for item in items:
            backend: Adapter | None = (item._backend if type(item) is Tensor
                                       else _native_backend(item))
            if backend is None:
                continue
            if first is None:
                if forced is not None:
                    return _compute(forced), _convert.asarray(item)
                first = item if type(item) is Tensor else _convert.asarray(item)
            elif backend is not first._backend and (
                    backend.AUTODIFF or first._backend.AUTODIFF):
                # owners mix, one of them a framework with autodiff: only such
                # calls pay (numpy with dask: the left-most, as before)
                return _by_autodiff(first, args, kwargs, func)
    if first is not None:
        return _compute(first._backend), first
    return _compute(_config.new_array_owner(kwargs.get("device"))), None


def _by_autodiff(first: Tensor, args: tuple[Any, ...], kwargs: dict[str, Any],
                 func: str) -> tuple[Adapter, Tensor]:
    """Operands of several owners: the left-most one carrying autodiff state (a
    torch tensor that requires grad, a jax tracer, a TF tensor a tape watches)
    decides, since converting it to another framework would drop its graph
    silently; where none carries any, the left-most array (``first``). Operands
    carrying the state of two frameworks are refused: only ``ut.wrap`` carries
    gradients from one framework to another.
    """
    if not kwargs and len(args) == 2:  # x1, x2 of two owners, neither with a graph:
        x1, x2 = args                   # asked without the general loop below
        if type(x1) is Tensor and type(x2) is Tensor:
            b1, b2 = x1._backend, x2._backend
            if ((not b1.AUTODIFF or b1.autodiff_state(x1._native) is None)
                    and (not b2.AUTODIFF or b2.autodiff_state(x2._native) is None)):
                return _compute(first._backend), first
    carrying: list[tuple[Tensor, str]] = []
    for value in (*args, *kwargs.values()):
        kind = type(value)
        items = value if kind is list or kind is tuple else (value,)
        for item in items:
            backend: Adapter | None = (item._backend if type(item) is Tensor
                                       else _native_backend(item))
            if backend is None:
                continue
            if not backend.AUTODIFF:  # numpy, dask, array_api_strict: no graph
                continue
            if type(item) is not Tensor:
                item = _convert.asarray(item)
            state = backend.autodiff_state(item._native)
            if state is not None:
                carrying.append((item, state))
    if not carrying:
        return _compute(first._backend), first
    decider, state = carrying[0]
    for other, other_state in carrying[1:]:
        if other._backend is not decider._backend:
            raise arg_error(TypeError, func, "arrays", "operands carrying autodiff "
                            "state of one framework (no framework differentiates "
                            "another's operations: bridge them with ut.wrap, "
                            "docs/wrap.md)", f"{state} and {other_state}")
    return _compute(decider._backend), decider


def _native_backend(value: Any) -> Adapter | None:
    """The backend of a framework's own array passed directly, or None."""
    kind = type(value)
    if kind in _NEVER_ARRAYS:
        return None
    return _BY_TYPE.get(kind) or _backends.for_type(kind)


_PYTHON_SCALARS = frozenset({bool, int, float, complex})
_NEVER_ARRAYS = _PYTHON_SCALARS | {str, type(None), slice, type(Ellipsis), DType,
                                   Device}


# -- operands in, results out ---------------------------------------------------
def _operand(value: Any, backend: Adapter, func: str, anchor: Tensor | None) -> Any:
    """``value`` as ``backend`` takes it: arrays native, dtypes and devices too."""
    kind = type(value)
    if kind is Tensor:
        if value._backend is backend:
            return value._native
        if anchor is not None and value is not anchor:
            check_same_device(func, anchor, value)
        return _convert.operand(value, backend, func)
    if kind in _NEVER_ARRAYS:
        if kind is DType:
            try:
                return backend.native_dtype(value)
            except KeyError:
                raise arg_error(TypeError, func, "dtype", f"a dtype {backend.NAME} "
                                "has", value.name) from None
        if kind is Device:
            return backend.native_device(value)
        if kind is slice and Tensor in (type(value.start), type(value.stop),
                                        type(value.step)):  # a 0-d array as a bound
            return slice(*(_operand(p, backend, func, anchor)
                           for p in (value.start, value.stop, value.step)))
        return value
    if kind is list or kind is tuple:
        return kind(_operand(item, backend, func, anchor) for item in value)
    if _native_backend(value) is not None:
        return _operand(_convert.asarray(value), backend, func, anchor)
    return value


def _as_tensors(backend: Adapter, result: Any, name: str = "") -> Any:
    """The backend's results as Tensors: named tuples as the standard names them,
    every other sequence a tuple (2025.12: meshgrid and broadcast_arrays too, which
    jax returns as lists).
    """
    if type(result) is backend.ARRAY:
        return _make(backend, result)
    if isinstance(result, (tuple, list)):
        items = [_as_tensors(backend, item) for item in result]
        if name in NAMED_RESULTS:
            return _named_tuple(name)(*items)
        return tuple(items)
    return _make(backend, backend.result(result))


@functools.cache
def _named_tuple(name: str) -> type:
    """The standard's named tuple for ``name`` ('linalg.svd' -> SvdResult), made
    on first use: each costs a compile, which ``import unitensor`` need not pay.
    """
    words = name.rpartition(".")[2].split("_")
    return collections.namedtuple("".join(w.capitalize() for w in words) + "Result",
                                  NAMED_RESULTS[name])


# -- the call -------------------------------------------------------------------
_CORRECTED = frozenset({"var", "std"})


def implementation(backend: Adapter, name: str) -> Callable[..., Any]:
    """``backend``'s function for the standard's ``name`` ('sum', 'linalg.qr')."""
    table = _impls.get(backend)
    if table is None:
        table = _impls[backend] = {}
    func = table.get(name)
    if func is None:
        func = backend.FIXES.get(name)
        if func is None:
            func = backend.namespace()
            for part in name.split("."):
                func = getattr(func, part, None)
            if func is None:
                raise NotImplementedError(
                    f"{name}(): not available in {backend.NAME} "
                    f"(its namespace has no {name})")
        adapt = getattr(backend, "adapt", None)
        if adapt is not None:  # a framework-wide fix (torch's unsigned types)
            func = adapt(name, func)
        if name in _CORRECTED:
            func = nan_past_correction(func)
        func = _bool_loops.rule(backend, name, func)
        table[name] = func = _float_loops.rule(backend, name, func)
    return func


def call(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Run the standard's function ``name`` on the chosen owner."""
    if name in _SCALAR_VALUES:  # numpy scalars there: the Python scalars they are
        found = _python_values(name, args, kwargs)
        if found is not None:  # again, through the checks of Python ints
            return _PUBLIC[name](*found[0], **found[1])
    for position in _ARRAY_POSITIONS.get(name, ()):  # Tensors, all but always
        if position >= len(args) or type(args[position]) is not Tensor:
            args = _check_arrays(name, _ARRAY_PARAMETERS[name], args)
            break
    scalars = _SCALAR_PARAMETERS.get(name)
    if scalars is not None and (kwargs or scalars[0]):
        _check_no_arrays(name, scalars, args, kwargs)
    flags = _FLAGS.get(name)
    if flags is not None and kwargs:
        _flags(name, flags, kwargs)
    if name in _integers.PARAMETERS:
        args, kwargs = _integers.checked(name, args, kwargs)
    if name in _FILLS:
        args, kwargs = _fill_value_as_scalar(name, args, kwargs)
    elif name in _OPERAND_RULES:
        args = _OPERAND_RULES[name](name, args, kwargs)
    dtype = kwargs.get("dtype")
    if dtype is not None and type(dtype) is not DType:  # np.float32, torch.int8
        kwargs["dtype"] = parse_dtype(dtype, name)
    elif name == "astype" and len(args) > 1 and type(args[1]) is not DType:
        args = (args[0], parse_dtype(args[1], name), *args[2:])
    if (name == "astype" and kwargs.get("copy") is False and len(args) > 1
            and type(args[0]) is Tensor and args[1] is args[0].dtype
            and kwargs.get("device") in (None, args[0].device)):
        return args[0]  # the standard's: the input array itself (on jax, a new
        # Tensor, which a write through left the input as it was)
    if type(kwargs.get("device")) is str:  # 'cpu', 'cuda:1': each owner's own
        # device object (jax takes no str); a str names no owner
        kwargs["device"] = parse_device(kwargs["device"], name)
    return _run(name, args, kwargs)


def _run(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``call`` once its arguments are checked: the owner, the one dtype rule,
    the owner's function, the results as Tensors.
    """
    try:
        backend, anchor = _choose(args, kwargs, name)
        positions = _PROMOTED.get(name)
        if positions is not None:  # operands promoted together: one kind
            if (len(args) == 2 and type(args[0]) is Tensor  # (x1, x2 of one kind:
                    and type(args[1]) is Tensor and _same_kind(*args)):  # at once)
                # the standard's table, which the owner's may extend (numpy's
                # int64 with uint64: float64): a pair it has no entry for refused
                promote(args[0].dtype, args[1].dtype, name)
            else:
                args = _one_kind(name, args, positions, backend)
    except (TypeError, BufferError) as exc:  # a framework's array no Tensor holds
        error = _wrapping_refused(name, exc, args, kwargs)
        if error is None:
            raise
        raise error from exc
    func = implementation(backend, name)
    try:
        if len(args) == 2 and not kwargs:  # x1, x2 (no comprehension to make)
            native_args = [_operand(args[0], backend, name, anchor),
                           _operand(args[1], backend, name, anchor)]
            native_kwargs = kwargs
        else:
            native_args = [_operand(a, backend, name, anchor) for a in args]
            native_kwargs = {k: _operand(v, backend, name, anchor)
                             for k, v in kwargs.items()}
        result = func(*native_args, **native_kwargs)
    except Exception as exc:
        error = _refusal(name, backend, exc, args, kwargs)
        if error is None:
            raise
        raise error from exc
    if name == "broadcast_arrays" and anchor is not None and _views.ties(
            name, anchor, result, backend):  # numpy's read-only views, here too
        return _views.broadcast(args, _as_tensors(backend, result, name), backend,
                                implementation)
    if anchor is not None and args and args[0] is anchor and backend is anchor._backend:
        if _views.ties(name, anchor, result, backend):
            # a view in numpy: a view of x's base here too (the fast path ties
            # its result as this does)
            if anchor._view is None and _views.learnable(name, anchor):
                learn(name, backend, func, _views.tying(name, backend, implementation))
            return _views.derive(anchor, name, native_args[1:], native_kwargs,
                                 _as_tensors(backend, result, name), backend,
                                 implementation)
        # x run by its own owner: what a fast path repeats (x1, x2 of two owners
        # too: C takes them where x2's array for x1's owner is cached)
        if _views.learnable(name, anchor):
            learn(name, backend, func)
    return _as_tensors(backend, result, name)


_EMPTY: dict[str, Callable[..., Any]] = {}  # never written


def _one_kind(name: str, args: tuple[Any, ...], positions: tuple[int, ...],
              backend: Adapter) -> tuple[Any, ...]:
    """``args`` with the operands at ``positions`` (a list there: its items) of a
    lower kind cast to the dtype of mixed-kind promotion (``_dtypes.promote``:
    int32 with float32 is float32), by their own framework, so that every owner
    computes the one rule (numpy's table would give float64, array_api_strict
    refuses). Operands of one kind, the standard's table, are left to the owner.

    A Python scalar of a higher kind than every array operand (a float or a
    complex with an integer or bool array, an int with a bool array), which the
    standard leaves open, stands for a 0-D array of ``backend``'s default dtype
    of its kind on the array's device (what ``asarray(scalar)`` makes there:
    float64 on the CPU), and the arrays are cast to it: ``int32_x * 0.5`` is
    float64 on every owner, as numpy computes it (torch would give float32,
    TensorFlow and array_api_strict refuse).
    """
    if len(args) == 2 and positions == (0, 1):  # x1, x2: two Tensors of one kind
        x1, x2 = args  # (mixed owners' common case: no list, set or loop)
        if type(x1) is Tensor and type(x2) is Tensor and _same_kind(x1, x2):
            return args
    found: list[tuple[int, int | None, Tensor]] = []  # (position, index, tensor)
    scalar = -1  # the highest kind of a Python scalar among the operands
    bools = False  # whether a Python bool is one of them
    for position in positions:
        if position >= len(args):
            continue
        value = args[position]
        in_sequence = type(value) in (list, tuple)
        items = value if in_sequence else (value,)
        for i, item in enumerate(items):
            if type(item) is not Tensor:
                rank = _SCALAR_RANK.get(type(item))
                if rank is not None:
                    scalar = max(scalar, rank)
                    bools = bools or rank == 0
                    continue
                if _native_backend(item) is None:
                    continue
                item = _convert.asarray(item)
            found.append((position, i if in_sequence else None, item))
    ranks = {_rank(t) for _, _, t in found}  # (no dtype read: the common case)
    if bools and ranks and max(ranks) > 0:
        args = _bools_as_ints(args, positions)
    if ranks and scalar > max(ranks) and max(ranks) < 2 and not (
            scalar >= 2 and name.startswith("bitwise_")):  # bitwise: no floats
        target = _default_dtype(backend, found[0][2], _DEFAULT_KIND[scalar])
    elif len(ranks) < 2 or min(ranks) >= 2:  # one kind, or floating with complex
        return args
    else:
        target = found[0][2].dtype
        for _, _, t in found[1:]:
            target = promote(target, t.dtype, name)
    rank = KIND_RANK[target.kind]
    new = list(args)
    for position, index, t in found:
        if KIND_RANK[t.dtype.kind] < rank:
            cast = _make(t._backend, t._backend.astype(t._native, target))
            if index is None:
                new[position] = cast
            else:
                items = list(new[position])
                items[index] = cast
                new[position] = type(args[position])(items)
    return tuple(new)


def _bools_as_ints(args: tuple[Any, ...],
                   positions: tuple[int, ...]) -> tuple[Any, ...]:
    """``args`` with each Python bool operand at ``positions`` as the int it
    equals. Beside an array of a higher kind, which the standard leaves open,
    numpy takes ``True`` as the weak scalar 1 (``float32_x + True`` is float32
    ``x + 1``); TensorFlow and array_api_strict refuse a bool there, and every
    owner takes the int.
    """
    new = list(args)
    for position in positions:
        if position >= len(args):
            continue
        value = args[position]
        if type(value) is bool:
            new[position] = int(value)
        elif type(value) in (list, tuple) and any(type(v) is bool for v in value):
            new[position] = type(value)(int(v) if type(v) is bool else v
                                        for v in value)
    return tuple(new)


# A Python scalar's kind, ranked as KIND_RANK ranks an array's, and the default
# dtype that stands for it beside an array of a lower kind (_one_kind).
_SCALAR_RANK = {bool: 0, int: 1, float: 2, complex: 3}
_DEFAULT_KIND = {1: "integral", 2: "real floating", 3: "complex floating"}


def _default_dtype(backend: Adapter, like: Tensor, kind: str) -> DType:
    """``backend``'s default dtype of ``kind`` on ``like``'s device (its own
    inspection API: torch's float64 on the CPU, JAX's x64 switch).
    """
    info = implementation(backend, "__array_namespace_info__")()
    device = backend.native_device(like.device)
    native = info.default_dtypes(device=device)[kind]
    dtype = backend.dtype_from_native(native)
    if dtype is None:  # every owner's default is one of the standard's dtypes
        raise TypeError(f"{backend.NAME}: default dtype {native!r} unknown")
    return dtype


def binary(name: str, x1: Any, x2: Any) -> Any:
    """The general path of a two-operand function (the generated function holds
    the fast path for two Tensors of one owner and dtype): a Tensor and a Python
    scalar go straight to the owner's implementation, once a Python int is known
    to fit the array's dtype (an int every integer dtype holds is not looked at).
    """
    kind1, kind2 = type(x1), type(x2)
    if (kind1 is complex or kind2 is complex) and name in _REAL_ONLY:
        # (dask made an array of Python objects of float_x // 1j, or NotImplemented)
        raise arg_error(TypeError, name, "x1" if kind1 is complex else "x2",
                        "a real number (the standard's floor_divide and remainder "
                        "take real values)", describe(x1 if kind1 is complex else x2))
    if kind2 is int and not 0 <= x2 <= HELD_BY_ALL:
        _check_int(name, x1, x2, "x2")
        if not holds(int64, x2):
            x2 = _as_float(x1, x2)
    elif kind1 is int and not 0 <= x1 <= HELD_BY_ALL:
        _check_int(name, x2, x1, "x1")
        if not holds(int64, x1):
            x1 = _as_float(x2, x1)
    if (kind1 is Tensor and kind2 in _PYTHON_SCALARS and name in _TAKE_SCALARS
            and not (owner_blocks() and _forced.get() is not None)):
        backend = x1._backend
        func = _impls.get(backend, _EMPTY).get(name)
        if func is not None:
            try:
                result = func(x1._native, x2)
            except Exception:  # the general path says why (outside this handler)
                result = _FAILED
            if result is not _FAILED:
                # the C fast path (ext/_fast.c, fast_binary) repeats this shortcut
                _fastpath.learn(name + _fastpath.SCALAR, backend, func)
                if ((kind2 is float or kind2 is complex)
                        and result.dtype is not x1._native.dtype):
                    return _scalar_result(name, x1, x2, result)
                return _as_tensors(backend, result, name)
    # numpy's float64 and complex128 scalars are Python floats and complexes
    # (subclasses): taken as the Python scalars they are, weak, as torch and
    # array_api_strict take them (numpy's own rule would make float32 + np.float64(1)
    # float64). Only calls past the shortcut above look.
    if kind2 is not Tensor and kind2 not in _PYTHON_SCALARS and isinstance(x2, _NUMBER):
        return binary(name, x1, _weak(x2))
    if kind1 is not Tensor and kind1 not in _PYTHON_SCALARS and isinstance(x1, _NUMBER):
        return binary(name, _weak(x1), x2)
    if ((kind1 is float or kind1 is complex) and kind2 is Tensor
            and name in _TAKE_SCALARS and _rank(x2) < 2
            and not name.startswith("bitwise_")
            and not (owner_blocks() and _forced.get() is not None)):
        return call(name, (x1, _lifted(x2, kind1)), {})  # 1.5 + int_x: as above
    if kind1 is Tensor and kind2 is Tensor and name not in _SCALAR_PARAMETERS:
        # (two owners, or two dtypes, which C leaves here): nothing of call()'s
        # checks applies to two Tensors and no keywords
        return _run(name, (x1, x2), {})
    return call(name, (x1, x2), {})


_REAL_ONLY = frozenset({"floor_divide", "remainder"})


def _as_float(array: Any, value: int) -> int | float:
    """A Python int beyond 64 bits beside a floating array: the float it rounds
    to, as numpy computes it (jax and torch refused such an int).
    """
    dtype = _dtype_of(array)
    if dtype is None or KIND_RANK[dtype.kind] < KIND_RANK["real floating"]:
        return value
    try:
        return float(value)
    except OverflowError:  # beyond float64 too: the owner's refusal
        return value


def _scalar_result(name: str, x1: Tensor, x2: float | complex, result: Any) -> Any:
    """The Tensor of binary()'s shortcut for ``result``, ``x1``'s owner's function
    of ``x1``'s array and the Python float or complex ``x2``, where ``result``'s
    dtype object is not ``x1``'s (the C fast path calls it there too).
    """
    backend = x1._backend
    if backend.SCALARS_IN_DEFAULTS and not name.startswith("bitwise_"):
        # the framework's own result is the rule's: in its default dtype of the
        # scalar's kind where x is of a lower kind, the standard's dtype otherwise
        return _as_tensors(backend, result, name)
    if _rank(x1) < 2:
        # a float or complex with an integer or bool array (its result's dtype is
        # another: only then is x's kind read): the array cast to the default
        # dtype of the scalar's kind first (_one_kind's rule; torch would give its
        # float32)
        if name.startswith("bitwise_"):
            return call(name, (x1, x2), {})  # no floats: refused
        target = _default_dtype(backend, x1, _DEFAULT_KIND[_SCALAR_RANK[type(x2)]])
        if backend.dtype_from_native(result.dtype) == target:
            # the framework computed in that dtype already, its operands cast to
            # it: the values the rule's cast gives (numpy's, torch's, jax's
            # int32 * 0.5), not made twice
            return _as_tensors(backend, result, name)
        return binary(name, _cast_to(x1, target), x2)
    return _as_tensors(backend, result, name)


# (adapter, the framework's dtype object) -> its kind's KIND_RANK: binary() reads
# it for every Tensor with a Python float (a Tensor's dtype costs a call of its
# adapter). The adapter first: frameworks' dtype objects are never compared.
_NATIVE_RANK: dict[tuple[Adapter, Any], int] = {}
_DYNAMO = "torch._dynamo"


def _same_kind(x1: Tensor, x2: Tensor) -> bool:
    """``_rank(x1) == _rank(x2)``, read in C where both dtypes were seen (each
    Tensor's dtype object is cached there): mixed owners ask it every call.
    """
    if _DYNAMO not in sys.modules:  # (see _rank)
        same = _fast.same_kind(x1, x2, _NATIVE_RANK)
        if same is not None:
            return same
    return _rank(x1) == _rank(x2)


def _rank(x: Tensor) -> int:
    """KIND_RANK of ``x``'s dtype, by its framework's dtype object once seen."""
    if _DYNAMO in sys.modules and sys.modules["torch"].compiler.is_compiling():
        # Dynamo traces this and cannot hash a torch.dtype (a C slot it does
        # not model): the dtype's own kind, as it traces everywhere else.
        # (Dynamo is imported by torch.compile's first use, not by torch.)
        return KIND_RANK[x.dtype.kind]
    try:
        key = (x._backend, x._native.dtype)
    except AttributeError:  # an array with no dtype attribute (Dr.Jit's)
        return KIND_RANK[x.dtype.kind]
    try:
        return _NATIVE_RANK[key]
    except KeyError:
        rank = _NATIVE_RANK[key] = KIND_RANK[x.dtype.kind]
        return rank
    except TypeError:  # an unhashable dtype object
        return KIND_RANK[x.dtype.kind]


def _lifted(x: Tensor, scalar: type) -> Tensor:
    """``x`` (of an integer or bool dtype) cast by its owner to the default dtype
    of the Python scalar type ``scalar`` (float or complex) on its device.
    """
    return _cast_to(x, _default_dtype(x._backend, x,
                                      _DEFAULT_KIND[_SCALAR_RANK[scalar]]))


def _cast_to(x: Tensor, dtype: DType) -> Tensor:
    backend = x._backend
    return _make(backend, backend.astype(x._native, dtype))


_NUMBER = (bool, int, float, complex)


def _weak(value: bool | int | float | complex) -> bool | int | float | complex:
    """An instance of a subclass of a Python scalar type (np.float64, np.complex128,
    an IntEnum) as the Python scalar it is.
    """
    if isinstance(value, complex):
        return complex(value)
    if isinstance(value, float):
        return float(value)
    return int(value)  # an int subclass (bool has none)


_FAILED = object()  # binary()'s direct call raised

# Parameters whose numpy scalars are read as the Python scalars they hold, weak:
# those taking Python values, or scalars standing for arrays of x's dtype (clip's
# bounds: the result keeps x's dtype), every numpy number (np.int64(3),
# np.bool_(True), np.float32(0.5), np.float64(0.0)); and where's operands, as
# the operators read them (np.float64 and np.complex128, Python floats and
# complexes; other numpy scalars are 0-D arrays of their dtype).
_SCALAR_VALUES: dict[str, tuple[str, ...]] = {
    "clip": ("min", "max"), "full": ("fill_value",), "full_like": ("fill_value",),
    "arange": ("start", "stop", "step"), "linspace": ("start", "stop"),
    "where": ("x1", "x2"),
    # (TensorFlow and array_api_strict refused numpy's numbers there)
    "std": ("correction",), "var": ("correction",),
    "linalg.vector_norm": ("ord",), "linalg.matrix_norm": ("ord",),
    "linalg.matrix_rank": ("rtol",), "linalg.pinv": ("rtol",)}
_OPERANDS_ONLY = frozenset({"where"})
# the namespace's functions by qualified name (define() fills it)
_PUBLIC: dict[str, Callable[..., Any]] = {}


def _python_values(name: str, args: tuple[Any, ...], kwargs: dict[str, Any],
                   ) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
    """``args`` and ``kwargs`` with the numpy scalars of ``_SCALAR_VALUES[name]``
    as Python scalars, or None where there is none.
    """
    params = _SCALAR_VALUES[name]
    positional = _POSITIONAL.get(name, ())
    new_args, new_kwargs, changed = list(args), dict(kwargs), False
    for i, value in enumerate(args):
        if i < len(positional) and positional[i] in params:
            python = _python_scalar(value, name in _OPERANDS_ONLY)
            if python is not value:
                new_args[i], changed = python, True
    for key, value in kwargs.items():
        if key in params:
            python = _python_scalar(value, name in _OPERANDS_ONLY)
            if python is not value:
                new_kwargs[key], changed = python, True
    return (tuple(new_args), new_kwargs) if changed else None


def _python_scalar(value: Any, operand: bool) -> Any:
    """A numpy number as the Python scalar it holds (``operand``: only those that
    are Python scalars, np.float64 and np.complex128); anything else as it is.
    """
    kind = type(value)
    if kind in _PYTHON_SCALARS or kind is Tensor:
        return value
    if isinstance(value, _NUMBER):  # np.float64, np.complex128, an IntEnum
        return _weak(value)
    if operand:
        return value
    np = sys.modules.get("numpy")  # not loaded: no numpy scalar exists
    if np is not None and isinstance(value, (np.number, np.bool_)):
        return value.item()
    return value


# -- arguments that must be arrays; refusals in the project's format -------------
_AN_ARRAY = ("an array (a unitensor Tensor or a framework's array; ut.asarray() "
             "makes one from other data)")
_INDEXING = frozenset({"__getitem__", "__setitem__", "take", "take_along_axis"})


def _array_parameters(row: Function) -> tuple[tuple[int, str, str], ...]:
    """Where ``row``'s arrays go: (position, parameter, kind), kind one of 'array',
    'array or scalar' (elementwise functions, where, and the parameters of
    ``SCALAR_ARGUMENTS`` take Python scalars too),
    'arrays' (a sequence of arrays) and '*arrays' (every argument from there on).
    The standard's arrays are all positional.
    """
    names = [p.strip().partition("=")[0] for p in row.signature.split(",")]
    found = []
    for position, name in enumerate(n for n in names if n not in ("/", "*")):
        if name in ("x", "condition", "indices") and row.name != "from_dlpack":
            kind = "array"
        elif name in ("x1", "x2"):
            kind = ("array or scalar" if row.group == "elementwise"
                    or row.name == "where"
                    or name in SCALAR_ARGUMENTS.get(row.name, ()) else "array")
        elif name in ("arrays", "*arrays"):
            kind = name
        else:
            continue
        found.append((position, name.lstrip("*"), kind))
    return tuple(found)


def _qualified(row: Function) -> str:
    return row.name if row.group not in ("linalg", "fft") else f"{row.group}.{row.name}"


# the positional parameters of each function, to name what a framework refused
_POSITIONAL = {_qualified(row): tuple(
    p.strip().partition("=")[0] for p in row.signature.partition("*")[0].split(",")
    if p.strip() not in ("", "/")) for row in FUNCTIONS}
_ARRAY_PARAMETERS = {_qualified(row): params for row in FUNCTIONS
                     if (params := _array_parameters(row))}
_ALWAYS = 1 << 30  # a position no call reaches
# where the arrays are, for the check that they are Tensors (a sequence of arrays
# and *arrays take the full check)
_ARRAY_POSITIONS = {name: tuple(_ALWAYS if kind in ("arrays", "*arrays") else position
                                for position, _, kind in params)
                    for name, params in _ARRAY_PARAMETERS.items()}


# Parameters that take arrays besides the array operands (clip's bounds, diff's
# prepend/append, searchsorted's sorter, repeat's repeats, matrix_rank's and pinv's
# rtol) or other objects (asarray's obj, dtypes, finfo's type): the others take
# Python values only.
_ARRAYS_ALLOWED = frozenset({"min", "max", "prepend", "append", "sorter", "repeats",
                             "obj", "from_", "to", "type", "dtype", "kind", "rtol"})
# Keyword parameters that take an array or a Python scalar (and None), nothing else
# (pinv's and matrix_rank's rtol: "Optional[Union[float, array]]").
_ARRAY_OR_SCALAR = frozenset({"min", "max", "prepend", "append", "sorter", "rtol"})


def _scalar_parameters(row: Function) -> tuple[tuple[tuple[int, str], ...],
                                                 frozenset[str]]:
    """The parameters that take no array (an axis, a shape, a correction, a
    norm, ...): (position, name) where passed by position, and every name.
    """
    arrays = {name for _, name, _ in _array_parameters(row)}
    positional = _POSITIONAL[_qualified(row)]
    names = [p.strip().partition("=")[0].lstrip("*") for p in row.signature.split(",")]
    scalar = [n for n in names if n not in ("", "/", "*") and n not in arrays
              and n not in _ARRAYS_ALLOWED and not (row.name == "from_dlpack"
                                                     and n == "x")]
    either = [n for n in names if n in _ARRAY_OR_SCALAR]
    return (tuple((i, n) for i, n in enumerate(positional) if n in scalar),
            frozenset(scalar + either))  # by keyword: every one (step= of arange)


def _check_no_arrays(func: str, scalars: tuple[tuple[tuple[int, str], ...],
                                                frozenset[str]],
                     args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Refuse an array (of one element or more) where the standard takes a Python
    value: frameworks would read it as something else, or fail deep inside.
    """
    positions, names = scalars
    given = [(param, args[i]) for i, param in positions if i < len(args)]
    given += [(k, v) for k, v in kwargs.items() if k in names]
    for param, value in given:
        kind = type(value)
        if param in _ARRAY_OR_SCALAR:  # clip's bounds, diff's prepend/append
            if kind not in _PYTHON_SCALARS and value is not None and not _is_array(
                    value):
                raise arg_error(TypeError, func, param, _AN_ARRAY + ", a Python "
                                "scalar or None", describe(value))
            continue
        plain = kind in _NEVER_ARRAYS or kind is list or kind is tuple
        if not plain and (kind is Tensor or _native_backend(value) is not None) and (
                getattr(value, "ndim", 1) != 0):
            raise arg_error(TypeError, func, param, "a Python value (the standard "
                            f"takes no array for {param})",
                            f"an array of shape {tuple(value.shape)}")
        if param == "ord" and func == "linalg.vector_norm" and kind is str:
            raise arg_error(TypeError, func, param, "an int, a float, inf or -inf "
                            "(the matrix norms 'fro' and 'nuc' are matrix_norm's)",
                            describe(value))  # (numpy, jax said ValueError)
        if param == "fill_value" and not isinstance(value, numbers.Number) and (
                plain or not (kind is Tensor or _native_backend(value) is not None)):
            raise arg_error(TypeError, func, param, "a number (a Python bool, int, "
                            "float or complex, or a framework's scalar)",
                            describe(value))


_FILLS = frozenset({"full", "full_like"})


def _three_vectors(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
                   ) -> tuple[Any, ...]:
    """``linalg.cross``'s operands: vectors of 3 along ``axis`` (array-api-compat's
    numpy and dask namespaces took vectors of 2, or a 3 with a 2, from np.cross).
    """
    axis = kwargs.get("axis", args[2] if len(args) > 2 else -1)
    for arg, x in zip(("x1", "x2"), args[:2], strict=False):
        shape = _shape(x)
        if shape is None or type(axis) is not int or not -len(shape) <= axis < len(
                shape) or shape[axis] in (3, None):
            continue  # (an axis out of range: the owner's refusal, diagnosed)
        raise arg_error(ValueError, name, arg, f"an array whose axis {axis} has size "
                        "3 (vectors of three elements)", f"an array of shape {shape}")
    return args


def _index_vector(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
                  ) -> tuple[Any, ...]:
    """``take``'s indices: one-dimensional, as the standard says (numpy, jax and
    TensorFlow took others and gave results of their shape; torch, dask and
    array_api_strict refused them, each with an error of its own type).
    """
    indices = args[1] if len(args) > 1 else kwargs.get("indices")
    shape = _shape(indices)
    if shape is not None and len(shape) != 1:
        raise arg_error(ValueError, name, "indices", "a one-dimensional array of "
                        "indices", f"a {len(shape)}-d array")
    return args


def _enough_dimensions(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
                       ) -> tuple[Any, ...]:
    """x of at least LEAST_DIMENSIONS[name] dimensions, as the standard has them:
    sort's axis -1 of a 0-d array and tril's matrices of a vector are refused
    (torch and TensorFlow sorted a 0-d array; numpy made a vector a matrix).
    A 0-d array's cumulative sum or product is numpy's, of its one element as a
    vector (torch gave a 0-d array; jax, TensorFlow and dask refused it).
    """
    shape = _shape(args[0])
    least = LEAST_DIMENSIONS[name]
    if shape is None or len(shape) >= least:
        return args
    if name.startswith("cumulative_"):
        return (_run("reshape", (args[0], (1,)), {}), *args[1:])
    raise arg_error(ValueError, name, "x", f"an array of at least {least} "
                    f"dimension{'s' if least > 1 else ''}", f"a {len(shape)}-d array")


# the fewest dimensions of x the standard's functions take, where owners answered
# fewer differently (the C fast path leaves such an x to _enough_dimensions)
LEAST_DIMENSIONS = {"sort": 1, "argsort": 1, "cumulative_sum": 1,
                    "cumulative_prod": 1, "tril": 2, "triu": 2}


def _an_array_among(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
                    ) -> tuple[Any, ...]:
    """``where``'s x1 and x2: at least one an array, as the standard says (numpy,
    jax and dask made float64 of ``where(c, 1, 2.5)``, torch float32).
    """
    if all(type(a) in _PYTHON_SCALARS for a in args[1:3]) and len(args) == 3:
        raise arg_error(TypeError, name, "x1, x2", "at least one array (a Python "
                        "scalar stands beside an array)", "two Python scalars")
    return args


def _bounds_of_x_kind(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
                      ) -> tuple[Any, ...]:
    """``clip``'s array bounds of no higher kind than x: the result keeps x's
    dtype (torch and jax made an int x clipped by float64 bounds float64, numpy
    kept int64; a Python float bound is refused likewise, ``_check_scalars``).
    """
    x = args[0] if args else kwargs.get("x")
    if type(x) is not Tensor:
        return args
    bounds = dict(zip(("min", "max"), args[1:3], strict=False)) | {
        k: v for k, v in kwargs.items() if k in ("min", "max")}
    for arg, bound in bounds.items():
        if type(bound) is Tensor and KIND_RANK[bound.dtype.kind] > KIND_RANK[
                x.dtype.kind]:
            raise arg_error(TypeError, name, arg, f"None, a Python int or an array "
                            f"of a kind {x.dtype.name} holds (the result keeps x's "
                            "dtype)", f"an array of {bound.dtype.name}")
    return args


# the standard's rules for operands that owners read differently (shapes, kinds),
# checked here before any owner; each returns the arguments to run. The C fast
# path runs none: these functions have none, or it leaves the operands a rule
# answers here (LEAST_DIMENSIONS, where's two scalars); linalg.outer's rule, which
# it cannot tell, is a fix of the owners that need it (_fixes.outer_of_vectors)
_OPERAND_RULES = {"linalg.cross": _three_vectors, "take": _index_vector,
                  "where": _an_array_among, "clip": _bounds_of_x_kind,
                  **dict.fromkeys(LEAST_DIMENSIONS, _enough_dimensions)}


def _fill_value_as_scalar(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
                          ) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """``full``'s and ``full_like``'s 0-d array ``fill_value`` (numpy, torch and
    jax take one; ``_check_no_arrays`` refused any other array) as the Python
    scalar it holds, which every owner's function takes. As numpy answers:
    ``full`` makes the array's dtype where no dtype is given, and the array
    decides the owner (its device, where none is given), as an operand would.
    """
    value = args[1] if len(args) > 1 else kwargs.get("fill_value")
    if type(value) in _PYTHON_SCALARS or not _is_array(value):
        return args, kwargs
    fill = value if type(value) is Tensor else _convert.asarray(value)
    kwargs = dict(kwargs)
    if name == "full":
        if kwargs.get("dtype") is None:
            kwargs["dtype"] = fill.dtype
        if kwargs.get("device") is None:
            kwargs["device"] = fill.device
    kind = fill.dtype.kind
    scalar = (bool(fill) if kind == "bool" else int(fill) if kind.endswith("integer")
              else complex(fill) if kind == "complex floating" else float(fill))
    if len(args) > 1:
        return (*args[:1], scalar, *args[2:]), kwargs
    kwargs["fill_value"] = scalar
    return args, kwargs


def _is_array(value: Any) -> bool:
    return type(value) is Tensor or _native_backend(value) is not None


def _check_arrays(func: str, params: tuple[tuple[int, str, str], ...],
                  args: tuple[Any, ...]) -> tuple[Any, ...]:
    """Refuse what is not an array where the standard takes one (a TypeError
    naming the parameter), before any framework reads it as something else;
    ``args`` back, a tuple subclass of arrays (a namedtuple) as a plain tuple,
    which the owner rule and the conversions read as they read a tuple.
    """
    scalars = 0
    for position, param, kind in params:
        if kind == "*arrays":
            for i, item in enumerate(args[position:]):
                if not _is_array(item):
                    raise arg_error(TypeError, func, f"arrays[{i}]", _AN_ARRAY,
                                    describe(item))
            continue
        if position >= len(args):
            continue
        value = args[position]
        if kind == "arrays":
            if type(value) not in (list, tuple):
                if not isinstance(value, tuple):
                    raise arg_error(TypeError, func, param,
                                    "a list or tuple of arrays", describe(value))
                value = tuple(value)
                args = (*args[:position], value, *args[position + 1:])
            for i, item in enumerate(value):
                if not _is_array(item):
                    raise arg_error(TypeError, func, f"{param}[{i}]", _AN_ARRAY,
                                    describe(item))
        elif not _is_array(value):
            if kind == "array or scalar" and type(value) in _PYTHON_SCALARS:
                scalars += 1
            else:
                accepted = _AN_ARRAY + (" or a Python scalar" if kind ==
                                        "array or scalar" else "")
                raise arg_error(TypeError, func, param, accepted, describe(value))
    if scalars == 2 and func not in ("where",):
        raise arg_error(TypeError, func, "x1, x2", "at least one array (the "
                        "standard's rule for Python scalars)", "two Python scalars")
    return args


# the functions whose x1, x2 may be Python scalars (binary()'s shortcut)
_TAKE_SCALARS = frozenset(name for name, params in _ARRAY_PARAMETERS.items()
                          if any(kind == "array or scalar" for _, _, kind in params))
_SCALAR_PARAMETERS = {_qualified(row): found for row in FUNCTIONS
                      if any(found := _scalar_parameters(row))}
# The standard's flags (keepdims, descending, stable, upper, full_matrices, ...,
# keyword-only, of a default True or False), by function: frameworks read other
# values each their own way (numpy as true or false, torch refuses, jax hands
# full_matrices=None to LAPACK: NaNs), so only a bool passes.
_FLAGS = {_qualified(row): flags for row in FUNCTIONS if (flags := frozenset(
    name for name, _, default in (p.strip().partition("=")
                                  for p in row.signature.split(","))
    if default in ("True", "False")))}


def _flags(func: str, flags: frozenset[str], kwargs: dict[str, Any]) -> None:
    """Refuse a flag that is not a bool (numpy's bool is one: made Python's)."""
    for name in flags & kwargs.keys():
        value = kwargs[name]
        if type(value) is not bool:
            if type(value).__module__ == "numpy" and type(value).__name__ in (
                    "bool", "bool_"):
                kwargs[name] = bool(value)
                continue
            raise arg_error(TypeError, func, name, "a bool (True or False)",
                            describe(value))
# The functions whose array operands the standard promotes together, and where
# they are: x1 and x2 of the elementwise and linear algebra functions, where's
# x1 and x2 (not its condition), concat's and stack's arrays.
_PROMOTED: dict[str, tuple[int, ...]] = {_qualified(row): (0, 1) for row in FUNCTIONS
             if row.signature.startswith("x1, x2")
             and row.group in ("elementwise", "linear_algebra", "linalg")}
_PROMOTED |= {"where": (1, 2), "concat": (0,), "stack": (0,)}


def _refusal(func: str, backend: Adapter, exc: Exception, args: tuple[Any, ...],
             kwargs: dict[str, Any]) -> Exception | None:
    """What to raise for the framework's ``exc`` (raised ``from exc``): an error
    naming the argument where unitensor can tell which (devices, shapes, axes),
    else the framework's message in the project's format and of the standard's
    type (``error_type``). None where ``exc`` is unitensor's own already.
    Only failures pay for this.
    """
    if isinstance(exc, Warning) or from_computing(exc):  # a warning made an
        return None  # error: ours; a graph's error (a lazy operand's): as raised
    if is_ours(exc):
        return _wrapping_refused(func, exc, args, kwargs) or renamed(func, exc)
    error = (_devices_differ(func, (*args, *kwargs.values()))
             or _diagnosis(func, dict(zip(_POSITIONAL.get(func, ()), args,
                                          strict=False)) | kwargs))
    if error is not None:
        return error
    kind = backend.error_type(exc)
    if kind is IndexError and func not in _INDEXING:
        kind = ValueError  # an axis out of range (torch's IndexError): AxisError
    return refused(exc, kind, func, backend.NAME)


def _wrapping_refused(func: str, exc: Exception, args: tuple[Any, ...],
                      kwargs: dict[str, Any]) -> Exception | None:
    """asarray's refusal of a framework's array passed to ``func`` (a dtype no
    Tensor holds: strings), naming ``func`` and the argument, the first whose
    array asarray refuses; None where ``exc`` is no such refusal.
    """
    bound = dict(zip(_POSITIONAL.get(func, ()), args, strict=False))
    bound |= {f"args[{i}]": a for i, a in enumerate(args[len(bound):])} | kwargs
    for arg, value in bound.items():
        kind = type(value)
        for item in value if kind is list or kind is tuple else (value,):
            if type(item) is Tensor or _native_backend(item) is None:
                continue
            try:
                _convert.asarray(item)
            except (TypeError, BufferError) as refusal:
                return as_argument(func, arg, refusal)
    return None


def _shape(value: Any) -> tuple[int, ...] | None:
    if type(value) in _PYTHON_SCALARS:
        return ()
    return tuple(value.shape) if _is_array(value) else None


def _diagnosis(func: str, bound: dict[str, Any]) -> Exception | None:
    """The argument at fault, where the standard's rules can tell: operands whose
    shapes do not broadcast, an axis that is not one of ``x``'s.
    """
    if func == "reshape" and bound.get("copy") is False and _same_size(
            _shape(bound.get("x")), bound.get("shape")):
        return arg_error(ValueError, func, "copy", "True or None, since this reshape "
                         "needs a copy (the array's strides allow no view of that "
                         "shape)", "False")
    operands = [name for name in ("condition", "x1", "x2") if name in bound]
    shapes = [shape for name in operands if (shape := _shape(bound[name])) is not None]
    if len(shapes) > 1 and func not in _NOT_BROADCASTING:
        if len(shapes) == len(operands) and _broadcast(shapes) is None:
            return arg_error(ValueError, func, ", ".join(operands), "shapes that "
                             "broadcast together", " and ".join(map(str, shapes)))
    if "axis" not in bound or bound["axis"] is None:
        return None
    x = bound.get("x")
    arrays = bound.get("arrays")
    if x is None and type(arrays) in (list, tuple) and arrays:
        x = arrays[0]
    shape = _shape(x)
    if shape is None:
        return None
    axis = bound["axis"]
    items = axis if type(axis) is tuple else (axis,)
    # expand_dims places its axes in the result, of ndim + len(axis) dimensions
    ndim = len(shape) + (len(items) if func == "expand_dims" else func == "stack")
    kind = IndexError if func == "expand_dims" else ValueError  # the standard's
    for item in items:
        if type(item) is not int:
            return arg_error(TypeError, func, "axis", "an int, a tuple of ints or "
                             "None", describe(axis))
        if not -ndim <= item < ndim:
            return arg_error(kind, func, "axis", f"an axis in [{-ndim}, "
                             f"{ndim - 1}] for an array of shape {shape}", str(item))
    if func == "expand_dims" and len({item % ndim for item in items}) < len(items):
        return arg_error(IndexError, func, "axis", "distinct axis positions in the "
                         f"result of {ndim} dimensions", str(axis))
    return None


def _same_size(shape: tuple[int, ...] | None, new_shape: Any) -> bool:
    """Whether ``new_shape`` (one size may be -1) holds ``shape``'s elements."""
    if shape is None or type(new_shape) is not tuple:
        return False
    known = math.prod(n for n in new_shape if n != -1)
    size = math.prod(shape)
    return known == size or (-1 in new_shape and known > 0 and size % known == 0)


# operands named x1, x2 that do not broadcast elementwise
_NOT_BROADCASTING = frozenset({
    "matmul", "linalg.matmul", "tensordot", "linalg.tensordot", "linalg.outer",
    "linalg.solve", "searchsorted", "vecdot", "linalg.vecdot", "linalg.cross",
    "isin"})


def _broadcast(shapes: Sequence[tuple[int | None, ...]],
               ) -> tuple[int | None, ...] | None:
    """The standard's broadcast of ``shapes``, or None where they do not. An
    unknown size (None, a lazy owner's) stands for 1 or the known size beside it,
    and stays unknown where no size other than 1 is known.
    """
    result: list[int | None] = []
    ndim = max(map(len, shapes))
    for i in range(1, ndim + 1):
        sizes = {s[-i] for s in shapes if len(s) >= i} - {1}
        known = sizes - {None}
        if len(known) > 1:
            return None
        result.insert(0, known.pop() if known else None if sizes else 1)
    return tuple(result)


def _check_int(func: str, array: Any, value: int, arg: str) -> None:
    """Refuse the Python int operand ``value`` if ``array``'s dtype cannot hold it
    (a bool array's: the default integer it meets the int as; torch wrapped
    ``mask + 2**63``).
    """
    dtype = _dtype_of(array)
    if dtype is not None:  # else two Python scalars: the owner decides
        check_int(int64 if dtype is bool_ else dtype, value, func, arg)


def _check_scalars(func: str, arrays: tuple[Any, ...], **values: Any) -> None:
    """Refuse Python ints among ``values`` that the dtype of the function's array
    operand (the first array of ``arrays``) cannot hold: such a scalar stands for an
    array of that dtype (the standard's mixing of arrays and scalars).
    """
    dtype = next((d for a in arrays if (d := _dtype_of(a)) is not None), None)
    if dtype is None:  # no array: the arguments' check refuses the call
        return
    for arg, value in values.items():
        if type(value) is int:
            check_int(dtype, value, func, arg)
        elif func == "clip" and type(value) in _INEXACT and KIND_RANK[dtype.kind] < (
                KIND_RANK["real floating"]):
            # clip keeps x's dtype: a bound it cannot hold (the standard leaves
            # mixed kinds unspecified; torch and jax gave floats, numpy cut 2.5
            # to 2, TensorFlow refused)
            raise arg_error(TypeError, func, arg, f"None or a Python int for an "
                            f"array of {dtype.name} (the result keeps its dtype)",
                            describe(value))


_INEXACT = frozenset({float, complex})


def _dtype_of(array: Any) -> DType | None:
    """The dtype of a Tensor or a framework's array; None for anything else."""
    if type(array) is Tensor:
        return array.dtype
    return None if _native_backend(array) is None else _convert.asarray(array).dtype


def _check_elements(func: str, like: Any, dtype: Any, **values: Any) -> None:
    """Refuse Python ints that would make elements the result's dtype cannot hold:
    ``full``'s ``fill_value``, ``arange``'s first and last elements (reported by
    the bound that lets them out; the bounds need not fit: ``arange(0, 300, 100)``
    is uint8 values, but each, and the step, within 64 bits).

    That dtype is ``dtype``; else ``like``'s (``full_like``); else, where every
    value is an int, the owner's default integer dtype (the standard's inference).
    """
    if any(type(v) is not int and v is not None for v in values.values()):
        return  # a float: a floating result
    if func == "arange" and values["start"] is None:  # dask reads it as 0
        raise arg_error(TypeError, func, "start", "an int or a float",
                        describe(None))
    if dtype is not None:
        dtype = parse_dtype(dtype, func)  # np.int8 as ut.int8
    elements = _arange_ends(**values) if func == "arange" else values
    if not all(0 <= v <= HELD_BY_ALL for v in elements.values()):
        if dtype is None and like is not None:
            dtype = _dtype_of(like)
        elif dtype is None:
            backend = _choose((), {})[0]
            defaults = backend.namespace().__array_namespace_info__().default_dtypes()
            dtype = backend.dtype_from_native(defaults["integral"])
        for arg, element in elements.items():
            if dtype is not None and not holds(dtype, element):
                check_int(dtype, values[arg], func, arg)  # that bound is outside too
    for arg, value in values.items():  # arange's step: numpy makes objects of it
        if func == "arange" and value is not None and not -2**63 <= value < 2**64:
            raise arg_error(OverflowError, func, arg, "a Python int within the "
                            "range of int64 or uint64", describe(value))


def _diff_count(x: Any, axis: Any, n: int, prepend: Any, append: Any) -> int:
    """``diff``'s ``n`` no larger than the length it differences: beyond it the
    result is as empty as at it, and some frameworks loop ``n`` times to find that.
    A negative ``n`` is refused (TensorFlow's diff returned ``x`` as it was).
    """
    if n < 0:
        raise arg_error(ValueError, "diff", "n", "a non-negative int", str(n))
    shape = getattr(x, "shape", None)
    if type(axis) is not int or type(shape) is not tuple or not (
            -len(shape) <= axis < len(shape)) or shape[axis] is None:
        return n  # refused, or left to the owner, as before
    length = shape[axis] + sum(1 if getattr(e, "size", None) is None else e.size
                               for e in (prepend, append) if e is not None)
    return min(n, length)


def _arange_ends(start: int, stop: int | None, step: int) -> dict[str, int]:
    """arange's first and last elements, by the bound reported if one does not
    fit (an element outside a dtype's range puts that bound outside too).
    """
    if stop is None:  # 0 to start - 1
        return {"start": start - 1} if start > 0 else {}
    elements = range(start, stop, step) if step else range(0)  # step 0: the owner's
    return {"start": elements[0], "stop": elements[-1]} if elements else {}


# -- the array object's indexing and in-place operators ---------------------------
def getitem(x: Tensor, key: Any, /) -> Tensor:
    """``x[key]`` (the general path; basic keys are read in C, _fastpath.py)."""
    backend = _compute(x._backend)
    native = (x._native if backend is x._backend
              else _operand(x, backend, "__getitem__", x))
    key = _operand(_list_keys(key, backend), backend, "__getitem__", x)
    nothing = _nothing_selected(x, key, backend, "__getitem__")
    if nothing is not None:
        return _make(backend, implementation(backend, "empty")(
            nothing, dtype=backend.native_dtype(x.dtype),
            device=backend.native_device(x.device)))
    fix = backend.FIXES.get("__getitem__")
    try:
        result = native[key] if fix is None else fix(native, key)
    except Exception as exc:
        error = _refusal("__getitem__", backend, exc, (x,), {})
        if error is None:
            raise
        raise error from exc
    if backend.SCALAR_VIEWS and _views.scalar_key(key, x.ndim):
        result = backend.copy(result)  # numpy's scalar: a copy
    if backend is x._backend:
        if backend.IMMUTABLE or x._view is not None or (
                not backend.NEGATIVE_STRIDES and _views.negative_step(key)):
            # a view in numpy: a view of x's base here too; the base's own views
            # of an immutable owner are taken in C next time (ext/_fast.c)
            if backend.IMMUTABLE and x._view is None:  # (a fix's real_path: what C
                # reads for the basic keys it takes, having checked them itself)
                learn("__getitem__" + _fastpath.VIEWS, backend,
                      getattr(fix, "real_path", fix) or operator.getitem)
            return _views.taken(x, key, _as_tensors(backend, result), backend,
                                fix or operator.getitem,
                                implementation(backend, "reshape"))
        # basic keys, which every framework reads alike
        if backend.SCALAR_VIEWS:
            learn("__getitem__" + _fastpath.COPIES, backend, backend.copy)
        learn("__getitem__", backend, operator.getitem)
    return _as_tensors(backend, result)


_BASIC_KEYS = frozenset({slice, int, bool, tuple, type(None), type(Ellipsis)})


def _nothing_selected(x: Tensor, key: Any, backend: Adapter, func: str
                      ) -> tuple[int, ...] | None:
    """For ``key`` (native) one boolean mask of one or more dimensions, numpy's
    rule on every owner: each dimension is ``x``'s size or 0, else an
    IndexError (TensorFlow raised ValueError); a 0 where ``x``'s size is not
    selects nothing (torch and TensorFlow refused that mismatch): the shape of
    ``x[key]`` then. None for any other key, and where a size is unknown.
    """
    mask = key[0] if type(key) is tuple and len(key) == 1 else key
    if type(mask) in _BASIC_KEYS:  # (a key of several items: a tuple)
        return None
    shape, dtype = getattr(mask, "shape", None), getattr(mask, "dtype", None)
    if shape is None or dtype is None:
        return None
    shape = tuple(shape)
    sizes = [n for n in x.shape if type(n) is int]  # (None, NaN: known once computed)
    if not shape or any(type(m) is not int for m in shape) or len(sizes) < x.ndim or (
            backend.dtype_from_native(dtype) is not bool_):
        return None
    if len(shape) > x.ndim or any(m != 0 and m != n
                                  for m, n in zip(shape, sizes, strict=False)):
        raise arg_error(IndexError, func, "key", "a boolean mask of shape "
                        f"{tuple(sizes[:len(shape)])} (x's leading axes; a size 0 "
                        "selects nothing)", f"one of shape {shape}")
    # (a mask of x's own sizes, empty or not, is the owner's: it keeps autograd)
    return (0, *sizes[len(shape):]) if list(shape) != sizes[:len(shape)] else None


def _list_keys(key: Any, backend: Adapter) -> Any:
    """``key`` with each list in it (the key, or an item of a tuple key) an array
    of ``backend``, as numpy reads a list index (``x[[0, 1, 1]]``, ``x[[True,
    False]]``; an empty list an integer one): jax and TensorFlow refuse lists.
    """
    kind = type(key)
    if kind is list:
        return _make(backend, _convert.python_data(key, backend,
                                                   None if key else int64))
    if kind is tuple and list in map(type, key):
        return tuple(_list_keys(k, backend) if type(k) is list else k for k in key)
    return key


# what x[key] = value writes besides arrays (numpy, torch and jax take lists too)
_VALUES = _PYTHON_SCALARS | {list, tuple}


def setitem(x: Tensor, key: Any, value: Any, /) -> None:
    """``x[key] = value``: in place, or, on an immutable owner or through a view
    it cannot express, a functional update of the base (_views.py).
    """
    _check_writable(x, "__setitem__")
    kind = type(value)
    if kind not in _VALUES and isinstance(value, _NUMBER) and kind is not Tensor:
        value = _weak(value)  # np.float64(0.0): the Python float it is
        kind = type(value)
    if kind not in _VALUES and not _is_array(value):
        raise arg_error(TypeError, "__setitem__", "value", _AN_ARRAY + ", a Python "
                        "scalar or a list of them", describe(value))
    backend = x._backend
    if kind in _PYTHON_SCALARS:
        value = _scalar_value(x.dtype, value)
    elif kind is list or kind is tuple:  # torch takes no lists
        value = backend.from_python(value, x.dtype)
    elif type(value) not in _PYTHON_SCALARS and not (
            type(value) is Tensor and value.dtype is x.dtype):  # inline: common
        try:
            value = _promoted_value(x, value)
        except (TypeError, BufferError) as exc:  # an array no Tensor holds
            error = as_argument("__setitem__", "value", exc)
            if error is None:
                raise
            raise error from exc
    shape = getattr(value, "shape", ())
    if shape and _views.scalar_key(key, x.ndim):
        # one element given an array (of one element: numpy's int arrays refused
        # it, its bool arrays and torch's tensors wrote it)
        raise arg_error(ValueError, "__setitem__", "value", "a value that "
                        "broadcasts to x[key]'s shape () (one element)",
                        f"an array of shape {tuple(shape)} (a sequence into one "
                        "element)")
    native_key = _operand(_list_keys(key, backend), backend, "__setitem__", x)
    native_value = _operand(value, backend, "__setitem__", x)
    nothing = _nothing_selected(x, native_key, backend, "__setitem__")
    if nothing is not None:  # no element written: the value must still fit
        shape = tuple(getattr(native_value, "shape", ()))
        if _broadcast([shape, nothing]) != nothing:
            raise arg_error(ValueError, "__setitem__", "value", "a value that "
                            f"broadcasts to x[key]'s shape {nothing}",
                            f"an array of shape {shape}")
        return

    def update(native: Any) -> Any:
        try:
            return backend.setitem(native, native_key, native_value)
        except Exception as exc:
            error = (_autodiff_write(x, "__setitem__")
                     or _refusal("__setitem__", backend, exc, (x, value), {}))
            if error is None:
                raise
            raise error from exc
    if backend.IMMUTABLE or x._view is not None:  # through the base (_views.py)
        _views.write(x, "__setitem__", update, _rebind)
        return
    native = x._native
    updated = update(native)
    if updated is not native:
        _rebind(x, updated, "__setitem__")


def _scalar_value(dtype: DType, value: bool | int | float | complex,
                  ) -> bool | int | float | complex:
    """A Python scalar written into an array of ``dtype``, by one rule on every
    owner: the in-place operators' and the array values' (a value whose kind the
    dtype does not hold is a TypeError: a float into an integer or bool array,
    a complex into a real one, where numpy and torch truncate, jax warns and
    TensorFlow refuses); an int must fit an integer dtype (OverflowError); bools
    and ints are numbers of the dtype's kind (``mask[0] = 1``, ``n[0] = True``).
    """
    kind = dtype.kind
    if type(value) is bool or type(value) is int:
        if kind == "bool":
            return bool(value)
        if type(value) is int:
            check_int(dtype, value, "__setitem__", "value")
        return int(value)
    if kind in ("bool", "signed integer", "unsigned integer") or (
            type(value) is complex and kind == "real floating"):
        raise arg_error(TypeError, "__setitem__", "value", "a Python scalar of a "
                        f"kind {dtype.name} holds (the in-place operators' rule)",
                        describe(value))
    return value


def _autodiff_write(x: Tensor, func: str) -> Exception | None:
    """The error for a write the owner refused into an array of its autodiff
    graph (torch refuses in-place writes into a leaf that requires grad, with a
    RuntimeError of its own); None for any other array. Only failures ask.
    """
    state = x._backend.autodiff_state(x._native)
    if state is None:
        return None
    return arg_error(ValueError, func, "self", "an array its framework lets be "
                     "written in place (torch refuses writes into a leaf tensor "
                     "that requires grad: write into x.detach(), or under "
                     "torch.no_grad())", state)


def _promoted_value(x: Tensor, value: Any) -> Any:
    """An array ``value`` of ``x[key] = value`` in ``x``'s dtype: promoted by the
    standard's table (2025.12), where torch's masked and integer-array writes refuse
    another dtype and numpy and jax would cast anything. A value the table does not
    promote to ``x``'s dtype (float into int, int16 into int8), which the standard
    leaves unspecified, is refused, as the in-place operators refuse it.
    """
    dtype = _dtype_of(value)
    if dtype is None or dtype is x.dtype:
        return value
    try:
        promoted: DType | None = promote(x.dtype, dtype)
    except TypeError:
        promoted = None  # the standard promotes no such pair
    if promoted is not x.dtype:
        raise arg_error(TypeError, "__setitem__", "value", "an array whose dtype "
                        f"promotes to the array's dtype {x.dtype.name}", dtype.name)
    # cast by x's own framework, whose array the write takes (tensorflow too,
    # which computes in numpy: a numpy cast would be copied again to align it)
    backend = x._backend
    return _make(backend, backend.astype(_operand(value, backend, "__setitem__", x),
                                         x.dtype))


def inplace(x: Tensor, name: str, native_op: Callable[[Any, Any], Any],
            other: Any) -> None:
    """``x op= other``: in place where the owner mutates, rebinding where it cannot.

    The standard's rule first: the result keeps ``x``'s dtype and shape, and
    read-only memory is never written. Where an ``owner()`` block makes another
    framework compute, its result is written back into ``x``'s memory.
    """
    func = f"__{native_op.__name__}__"  # operator.__iadd__ is named 'iadd'
    _check_writable(x, func)
    kind = type(other)
    if kind is not Tensor and kind not in _PYTHON_SCALARS and isinstance(other,
                                                                          _NUMBER):
        other = _weak(other)  # np.float64(2.0): the Python float it is
    _check_keeps_dtype_and_shape(x, other, func)
    if x.dtype is bool_ and _bool_loops.elementwise_dtype(name) not in (None, bool_):
        # mask //= mask, %=, **=: int8 by the bool rule (numpy's loops), which a
        # bool array cannot keep (numpy refused **=; the others wrote bools)
        raise arg_error(TypeError, func, "other", "an operand that keeps the array's "
                        f"dtype bool ({name} of bools is int8)",
                        type(other).__name__ if type(other) in _PYTHON_SCALARS
                        else other.dtype.name)
    if type(other) is Tensor and KIND_RANK[other.dtype.kind] < KIND_RANK[
            x.dtype.kind]:  # float32 += int32: the operand cast first (as binary)
        other = _make(other._backend, other._backend.astype(other._native, x.dtype))
    backend = x._backend
    if backend.namespace() is None:  # a framework computing in numpy (Warp)
        computed = binary(name, x, other)
        if backend.IMMUTABLE:
            _rebind(x, computed._native, func, _compute(backend))
            return
        # written back into x's memory, which stays its owner's (as numpy's
        # in-place operators write)
        _check_result(x, computed, func)
        backend.setitem(x._native, ..., computed._native)
        return
    forced = _forced.get() if owner_blocks() else None  # as _choose reads it
    operand = None if forced is not None else _operand(other, backend, name, x)

    def update(native: Any) -> Any:
        """x's new array (an immutable owner's), or x's written in place."""
        if forced is not None and _compute(forced) is not backend:
            computed = binary(name, x, other)
            _check_result(x, computed, func)
            try:  # a lazy owner (dask) computes here, and may refuse only now
                result = _operand(computed, backend, func, x)
            except Exception as exc:
                error = _refusal(func, computed._backend, exc, (x, other), {})
                if error is None:
                    raise
                raise error from exc
            return backend.setitem(native, ..., result)
        this = operand if forced is None else _operand(other, backend, name, x)
        try:
            if not _needs(backend.FIXES.get(name), native):
                return native_op(native, this)
            # the adapter's fix of the operation, written back in place
            fixed = implementation(backend, name)(native, this)
            if backend.IMMUTABLE and backend.dtype(fixed) is x.dtype and (
                    backend.shape(fixed) == x.shape) and (
                    None not in x.shape or not hasattr(this, "shape")):
                # all of x written with an array of its dtype and shape: that
                # array (a lazy owner's write of all of an array whose sizes are
                # known once computed, x[m] **= 2, would need them now)
                return fixed
            return backend.setitem(native, ..., fixed)
        except Exception as exc:
            failure = exc
        # The framework's own in-place operator cannot (torch's uint16/32/64):
        # the general path computes it (raising its own refusal, outside the
        # handler), written back if it keeps x's dtype and shape.
        if None in x.shape:  # sizes a lazy owner pairs (computing them) only now
            try:
                result = binary(name, x, other)
            except ValueError as exc:
                if not is_ours(exc):
                    raise
                raise restated(exc, ValueError, func, "other") from failure
        else:
            result = binary(name, x, other)
        try:
            _check_result(x, result, func)
        except TypeError as error:
            raise error from failure
        try:
            return backend.setitem(native, ..., result._native)
        except Exception as exc:
            refusal = _autodiff_write(x, func)
            if refusal is None:
                raise
            raise refusal from exc
    if backend.IMMUTABLE or x._view is not None:  # through the base (_views.py)
        _views.write(x, func, update, _rebind)
        return
    native = x._native
    updated = update(native)
    if updated is not native:  # an immutable framework made a new array
        _rebind(x, updated, func)


def _check_result(x: Tensor, result: Tensor, func: str) -> None:
    """Refuse writing back a result that is not of ``x``'s dtype and shape (the
    operation, not only the promotion, decides: bool / bool is floating).
    """
    if result.dtype is not x.dtype or result.shape != x.shape:
        # a shape alone (known once a lazy owner computed it) is a ValueError, as
        # _check_keeps_dtype_and_shape's
        raise arg_error(TypeError if result.dtype is not x.dtype else ValueError,
                        func, "other", "an operand that keeps the "
                        f"array's dtype {x.dtype.name} and shape {x.shape}",
                        f"one giving {result.dtype.name} {result.shape}")


def _check_writable(x: Tensor, func: str) -> None:
    """Refuse a write into read-only memory (an immutable owner rebinds instead)
    and into numpy's read-only views (``broadcast_to``'s, on every owner: a
    mutable owner's ``readonly`` says so too).
    """
    if _views.read_only(x) if x._backend.IMMUTABLE else x.readonly:
        raise arg_error(ValueError, func, "self", "an array whose memory can be "
                        "written", "read-only memory")


def _needs(fix: Callable[..., Any] | None, native: Any) -> bool:
    """Whether the adapter's ``fix`` (None: none) is needed for an array
    ``native`` first: a fix only some dtypes need names them (complex_dtypes,
    beside real_path, the framework's own function for the others).
    """
    if fix is None:
        return False
    dtypes = getattr(fix, "complex_dtypes", None)
    return dtypes is None or getattr(native, "dtype", None) in dtypes


def _check_keeps_dtype_and_shape(x: Tensor, other: Any, func: str) -> None:
    """Apply the standard's in-place rule before anything is written.

    ``x op= other`` keeps ``x``'s dtype (else TypeError) and shape (else
    ValueError), by the standard's promotion, not the framework's casting.
    """
    kind = type(other)
    if kind is not Tensor and kind not in _PYTHON_SCALARS:
        if _native_backend(other) is None:
            raise arg_error(TypeError, func, "other", _AN_ARRAY + " or a Python "
                            "scalar", describe(other))
        try:
            other = _convert.asarray(other)
        except (TypeError, BufferError) as exc:
            error = as_argument(func, "other", exc)
            if error is None:
                raise
            raise error from exc
    try:
        dtype: DType | None = (with_scalar(x.dtype, other, func, "other")
                               if kind in _PYTHON_SCALARS
                               else promote(x.dtype, other.dtype))
    except TypeError:
        dtype = None  # the standard promotes no such pair
    if dtype is not x.dtype:
        got = type(other).__name__ if kind in _PYTHON_SCALARS else other.dtype.name
        raise arg_error(TypeError, func, "other", "an operand that keeps the "
                        f"array's dtype {x.dtype.name}", f"{got}")
    if func == "__itruediv__" and KIND_RANK[x.dtype.kind] < 2:
        # true division of integers is floating point (TensorFlow's wrote it back
        # truncated: [7, -7] /= 2 gave [3, -3])
        raise arg_error(TypeError, func, "other", "an operand that keeps the "
                        f"array's dtype {x.dtype.name} and shape {x.shape}", "one "
                        f"giving a floating-point array (true division; //= keeps "
                        f"{x.dtype.name})")
    shape = () if kind in _PYTHON_SCALARS else other.shape
    # a size of x's known only once a lazy owner computes (None) is the
    # operation's to pair (dask's computes it there) and _check_result's to check
    if len(shape) > x.ndim or any(o not in (1, d) and d is not None for o, d in
                                  zip(reversed(shape), reversed(x.shape),
                                      strict=False)):
        raise arg_error(ValueError, func, "other", "a shape that broadcasts to the "
                        f"array's shape {x.shape}", f"shape {shape}")


def _rebind(x: Tensor, native: Any, func: str,
            backend: Adapter | None = None) -> None:
    """Point ``x`` at a new array of the same dtype and shape (immutable owners)."""
    backend = backend or x._backend
    if type(native) is not backend.ARRAY:
        native = backend.result(native)
    shape = backend.shape(native)  # None for a size a lazy owner does not know
    if backend.dtype(native) is not x.dtype or shape != x.shape:
        got = f"{backend.dtype(native).name} {shape}"
        raise arg_error(TypeError, func, "other", "an operand that keeps the "
                        f"array's dtype {x.dtype.name} and shape {x.shape}",
                        f"one giving {got}")
    if backend is x._backend:  # the framework's own state follows (a tf.Variable)
        native = backend.written(x._native, native)
    x._backend, x._native, x._aliases = backend, native, None


def _devices_differ(func: str, values: tuple[Any, ...]) -> Exception | None:
    """The error naming both devices, where operands are on two."""
    devices: list[Device] = []
    for value in values:
        items = value if isinstance(value, (list, tuple)) else (value,)
        for item in items:
            if type(item) is Tensor and item.device not in devices:
                devices.append(item.device)
    if len(devices) > 1:
        return arg_error(ValueError, func, "arrays", "operands on one device (move "
                         "them with to_device() first)",
                         f"arrays on {devices[0]} and {devices[1]}")
    return None


def check_same_device(func: str, first: Tensor, other: Tensor) -> None:
    # the adapters' devices, not Tensor.device (which adds the owner: equality
    # ignores it); the CPU is one object, so most calls compare identities
    mine = first._backend.device(first._native)
    theirs = other._backend.device(other._native)
    if mine is not theirs and mine != theirs:
        raise arg_error(ValueError, func, "arrays", "operands on one device (move "
                        "them with to_device() first)",
                        f"arrays on {first.device} and {other.device}")


# -- making the namespace from the table ----------------------------------------
def define(group: str, namespace: dict[str, Any]) -> list[str]:
    """Define the functions of ``group`` in ``namespace`` (a module's globals).

    Functions the module already wrote by hand are kept. Returns the names, in the
    standard's order, for the module's ``__all__``.
    """
    rows = [row for row in FUNCTIONS if row.group == group]
    prefix = "" if group not in ("linalg", "fft") else f"{group}."
    for row in rows:
        if row.name not in namespace:
            namespace[row.name] = _make_function(row, prefix + row.name)
        _PUBLIC[prefix + row.name] = namespace[row.name]
    return [row.name for row in rows]


# Literals to the C fast path that no array-or-number parameter takes.
_NOT_OPERANDS = frozenset({type(None), str, tuple})


def _make_function(row: Function, qualified: str) -> Callable[..., Any]:
    """A function with the standard's exact signature that dispatches the call.

    One-array and elementwise two-array functions (every one named ``x`` or
    ``x1, x2`` by the standard) are small closures calling the general path. The
    others are generated from one template (:data:`_TEMPLATE`, like
    ``collections.namedtuple``), so their real signature shows in
    ``inspect.signature`` and ``help()`` and a call costs no ``*args`` packing;
    keyword arguments are passed on only when they differ from the default, so
    each framework applies its own defaults. Each stands behind its C fast path
    (``_fastpath.py``), which looks like it.
    """
    params = [p.strip() for p in row.signature.split(",")]
    positional_only = "/" in params
    positional: list[str] = []
    keywords: list[tuple[str, str]] = []
    star: str | None = None
    named: dict[str, int] = {}  # positional parameters a caller may name: places
    for p in params:
        if p == "/":
            positional_only = False
            continue
        if p == "*":
            continue
        name, _, default = p.partition("=")
        if name.startswith("*"):
            star = name[1:]
        elif default and not positional_only:
            keywords.append((name, default))
        else:
            if not positional_only and star is None:
                named[name] = len(positional)
            positional.append(name)
    if row.signature == "x, /" and _takes_array(row):
        func = _fastpath.unary_function(qualified, _unary(qualified), _as_tensors)
    elif row.signature == "x1, x2, /":
        func = _fastpath.binary_function(qualified, _binary(qualified), _as_tensors,
                                         _scalar_result)
    else:
        func = _generated(row, qualified, positional, keywords, star, named)
    func.__name__ = func.__qualname__ = row.name
    func.__module__ = "unitensor" + ("" if "." not in qualified else
                                     "." + qualified.partition(".")[0])
    func.__doc__ = (f"``{row.name}`` of the Array API standard ({row.group}), run "
                    "by the owner of the operands.\n\nParameters, results and special "
                    f"cases are the standard's: {STANDARD_PAGE.format(qualified)}\n")
    return func


# A generated function: ``_general``, the general path (keywords passed on only
# where they differ from the default), and, where something is checked before the
# C fast path, the function itself: the checks, then ``_fast`` (the C path in
# front of ``_general``, or ``_general`` itself where there is none).
_TEMPLATE = """\
def _general({signature}):
    kw = {{}}
{keywords}
    return _call({qualified!r}, {args}, kw)
"""
_FRONT = """\
def {name}({signature}):
{checks}
    return _fast({passed})
"""


def _generated(row: Function, qualified: str, positional: list[str],
               keywords: list[tuple[str, str]], star: str | None,
               named: dict[str, int]) -> Callable[..., Any]:
    """The function of ``row`` other than the one- and two-array ones: made by one
    ``exec`` of :data:`_TEMPLATE` (source built from the table only). ``named``:
    the positional parameters that may be given by name, by place.
    """
    packed = positional + ([f"*{star}"] if star else [])
    # (== only between values of the default's type: an array given there is
    # passed on, to be refused by name, not compared elementwise)
    lines = [f"    if {name} is not {default}: kw[{name!r}] = {name}"
             if default in ("None", "True", "False") else
             f"    if type({name}) is not {_type_name(default)} "
             f"or {name} != {default}: kw[{name!r}] = {name}"
             for name, default in keywords]
    source = _TEMPLATE.format(signature=row.signature, qualified=qualified,
                              keywords="\n".join(lines),
                              args=f"({', '.join(packed)},)" if packed else "()")
    passed = ", ".join([*positional, *(f"{n}={n}" for n, _ in keywords)])
    checks = []
    elements = ELEMENT_ARGUMENTS.get(qualified)
    scalars = SCALAR_ARGUMENTS.get(qualified)
    if elements is not None or scalars is not None:
        # full(), arange(): Python ints must fit the result's dtype; clip(),
        # isin(), searchsorted(): the array operand's. Checked before the fast
        # path (inline, the test that skips the ints every integer dtype holds)
        names = elements or scalars or ()
        unusual = " or ".join(f"type({name}) is int and not 0 <= {name} <= "
                              f"{HELD_BY_ALL}" for name in names)
        if qualified == "arange":
            unusual = f"start is None or {unusual}"
        if qualified == "clip":  # a float bound an integer x cannot hold
            unusual += " or type(min) is float or type(max) is float"
        values = ", ".join(f"{name}={name}" for name in names)
        if elements is not None:
            like = "x" if "x" in positional else "None"
            check = f"_check_elements({qualified!r}, {like}, dtype, {values})"
        else:
            arrays = "".join(f"{n}, " for n in positional if n in ("x", "x1", "x2"))
            check = f"_check_scalars({qualified!r}, ({arrays}), {values})"
        checks += [f"    if {unusual}:", f"        {check}"]
    if qualified == "diff":  # numpy and jax loop n times: 2**70 never ends
        checks += [f"    if type(n) is int and not 0 <= n <= {HELD_BY_ALL}:",
                   "        n = _diff_count(x, axis, n, prepend, append)"]
    # The C path takes x and literal arguments only: where a later argument must
    # be an array (tensordot's x2, take's indices), it would only ever take a
    # call to refuse, past the check that refuses it.
    fast_path = not any(position > 0 and kind == "array"
                        for position, _, kind in _array_parameters(row))
    # An array or a number (where's x1/x2, isin's and searchsorted's x2): None, a
    # str or a tuple are literals to the C path, which a learned call would hand
    # to the framework; the general path refuses them.
    operands = [name for position, name, kind in _array_parameters(row)
                if position > 0 and kind == "array or scalar"] if fast_path else []
    if operands:
        odd = " or ".join(f"type({name}) in _NOT_OPERANDS" for name in operands)
        if len(operands) == 2:  # where: two Python scalars, which C would pass on
            odd += " or " + " and ".join(f"type({name}) in _PYTHON_SCALARS"
                                         for name in operands)
        checks += [f"    if {odd}:", f"        return _general({passed})"]
    if checks:
        source += "\n\n" + _FRONT.format(name=row.name, signature=row.signature,
                                         checks="\n".join(checks), passed=passed)
    scope: dict[str, Any] = {
        "_call": call, "_NOT_OPERANDS": _NOT_OPERANDS, "_diff_count": _diff_count,
        "_PYTHON_SCALARS": _PYTHON_SCALARS,
        "_check_elements": _check_elements, "_check_scalars": _check_scalars}
    exec(source, scope)  # source built above from the table only
    general = scope["_general"]
    general.__name__ = general.__qualname__ = row.name
    fast = general if not fast_path else _fastpath.call_function(
        general, qualified, keywords, len(positional) if star is None else None,
        _as_tensors, LEAST_DIMENSIONS.get(qualified, 0), named,
        _integers.fast_path_table(qualified))
    if not checks:
        return fast
    scope["_fast"] = fast  # (read by the function at call time)
    return scope[row.name]


# Each function's page of the standard, by qualified name ('sum', 'linalg.qr').
STANDARD_PAGE = (f"https://data-apis.org/array-api/{API_VERSION}/API_specification/"
                 "generated/array_api.{}.html")

# The general paths of the one- and two-array functions; _fastpath puts the C
# fast path in front of each (a Tensor, or two of one owner and dtype).
def _unary(name: str) -> Callable[[Any], Any]:
    def function(x: Any, /) -> Any:
        return call(name, (x,), {})
    return function


def _binary(name: str) -> Callable[[Any, Any], Any]:
    def function(x1: Any, x2: Any, /) -> Any:
        return binary(name, x1, x2)
    return function


def _type_name(default: str) -> str:
    """The type of a default the table writes as a literal ('0', "'fro'")."""
    return type(ast.literal_eval(default)).__name__


def _takes_array(row: Function) -> bool:
    """One-argument functions that take an array (not a shape or a number)."""
    return row.group not in ("creation", "data_types") or row.name.endswith("_like")
