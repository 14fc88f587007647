"""A framework's own functions given a Tensor: the frameworks' hooks.

The rule: a framework's own function computes in that framework, on the
Tensor's memory (its zero-copy view, the one ``t.torch()``, ``t.numpy()``,
``t.tf()`` give), and returns that framework's array: ``torch.sin(t)`` is
``torch.sin(t.torch())``, ``np.sin(t)`` is ``np.sin(t.numpy())``, ``tf.sin(t)``
is ``tf.sin(t.tf())``. Operators stay unitensor's in both orders
(``torch_tensor + t`` and ``ndarray + t`` are Tensors, as ``t + torch_tensor``
is): a hook that cannot tell an operator from the framework's function behind it
hands the operator back to Python, which then calls the Tensor's.

``Tensor.__torch_function__`` is ext/_fast.c's ``torch_function``: a reading
function (learned here, ``_kinds``) called with positional arguments only runs
there, each Tensor replaced by its cached torch view; everything else (keywords,
lists of Tensors, writes, a function not seen before) comes to
:func:`torch_function` below, which the C hook calls.

Read-only memory (a JAX or TensorFlow array) reaches torch aliased, as
``t.torch()`` gives it; a torch function that visibly writes into a read-only
Tensor (an in-place ``name_`` function, ``out=``, ``inplace=True``) is refused
before torch runs.

JAX has no hook left: jax.numpy's functions are jitted, and since JAX 0.9 jit
refuses ``__jax_array__`` while abstracting its arguments; ``jnp.sin(t.jax())``
is the spelling (docs/interop.md, "Native functions").
"""

from __future__ import annotations

from typing import Any

from ._errors import arg_error
from ._fast import TensorBase

# The torch.Tensor methods behind Python's binary operators. torch calls
# __torch_function__ with the method itself (``TensorBase.add`` for both
# ``a + t`` and ``a.add(t)``), so the method form is handed back too: it raises
# torch's TypeError, as it did before the hook; the operator then runs as the
# Tensor's reflected one.
_OPERATOR_METHODS = frozenset(
    "add sub mul div true_divide floor_divide remainder pow matmul "
    "lt le gt ge eq ne bitwise_and bitwise_or bitwise_xor "
    "bitwise_left_shift bitwise_right_shift".split()
    + [f"{n}_" for n in "add sub mul div true_divide floor_divide remainder pow "
       "bitwise_and bitwise_or bitwise_xor bitwise_left_shift "
       "bitwise_right_shift".split()]
    + [f"__{p}{n}__" for p in ("", "r", "i") for n in
       "add sub mul truediv div floordiv mod pow matmul and or xor lshift rshift"
       .split()]
    + [f"__{n}__" for n in "lt le gt ge eq ne".split()])

# func -> what torch_function does with it (learned once per function): _READS
# computes on the torch views, _WRITES also refuses a read-only first argument
# (an in-place ``name_`` function, ``__setitem__``), _OPERATOR hands it back.
_READS, _WRITES, _OPERATOR = 0, 1, 2
_kinds: dict[Any, int] = {}


def _learn(func: Any) -> int:
    name = getattr(func, "__name__", "")
    if (getattr(func, "__qualname__", "").startswith(("TensorBase.", "Tensor."))
            and name in _OPERATOR_METHODS):
        kind = _OPERATOR
    elif name == "__setitem__" or (name.endswith("_") and not name.endswith("__")):
        kind = _WRITES
    else:
        kind = _READS
    _kinds[func] = kind
    return kind


def torch_function(func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
    """``Tensor.__torch_function__``: ``func`` on each Tensor's torch view."""
    # (the common call, a reading function of positional arguments, is kept
    # short: torch's own dispatch to this hook already costs ~1.6 µs)
    kind = _kinds.get(func)
    if kind is None:
        kind = _learn(func)
    if kind:
        if kind == _OPERATOR:
            return NotImplemented
        if args:
            _check_writable(args[0], func, "input")
    if kwargs:
        if kwargs.get("inplace") is True and args:
            _check_writable(args[0], func, "input")
        out = kwargs.get("out")
        if out is not None:
            for o in out if type(out) in (tuple, list) else (out,):
                _check_writable(o, func, "out")
        return func(*_torch_views(args), **{k: _torch_view(v)
                                            for k, v in kwargs.items()})
    if len(args) == 1 and isinstance(args[0], TensorBase):  # torch.sin(t)
        return func(args[0].torch())  # type: ignore[attr-defined]
    return func(*_torch_views(args))


def _torch_views(args: Any) -> list[Any]:
    return [a.torch() if isinstance(a, TensorBase) else  # type: ignore[attr-defined]
            _torch_view(a) if type(a) in (list, tuple) else a for a in args]


def _torch_view(x: Any) -> Any:
    """``x`` with each Tensor in it (in lists and tuples) as its torch view."""
    if isinstance(x, TensorBase):
        return x.torch()  # type: ignore[attr-defined]
    if type(x) in (list, tuple):
        return type(x)(_torch_views(x))
    return x


def _check_writable(x: Any, func: Any, arg: str) -> None:
    """Refuse a torch function's visible write into a read-only Tensor."""
    if isinstance(x, TensorBase) and x.readonly:  # type: ignore[attr-defined]
        name = getattr(func, "__name__", repr(func))
        raise arg_error(ValueError, name, arg, "an array whose memory can be "
                        "written (torch would write into it)", "read-only memory")
