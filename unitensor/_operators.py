"""The array object's operators, each the namespace function of the same meaning.

Installed on Tensor once the namespace exists (``unitensor/__init__.py`` imports
this module last): ``x + y`` *is* a call of the generated ``ut.add``, so it costs
what ``ut.add(x, y)`` costs and follows the same owner rule. So are indexing
(``x[key]``, ``x[key] = value``, through ``_dispatch``) and the transposes
(``x.mT`` is ``matrix_transpose(x)``, ``x.T`` is ``permute_dims(x, (1, 0))``).

Each operator is a small Python function in Tensor's dict (``__mul__`` calls
``multiply(self, other)``, ``__rmul__`` ``multiply(other, self)``), which a
tracer of Python bytecode such as torch.compile's Dynamo follows; CPython does
not call it: ``_fast.show_operators`` points Tensor's C slots straight at the
namespace functions' fast paths (ext/_fast.c), so ``x * y`` costs what
``ut.multiply(x, y)`` costs.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from . import (
    _dispatch,
    _elementwise_functions,
    _fast,
    _fastpath,
    _linear_algebra_functions,
    _manipulation_functions,
)
from ._errors import arg_error
from ._tensor import Tensor

_BINARY = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "pow",
    "matmul": "matmul", "and": "bitwise_and", "or": "bitwise_or",
    "xor": "bitwise_xor", "lshift": "bitwise_left_shift",
    "rshift": "bitwise_right_shift",
}
_COMPARISONS = {"lt": "less", "le": "less_equal", "gt": "greater",
                "ge": "greater_equal", "eq": "equal", "ne": "not_equal"}
_UNARY = {"neg": "negative", "pos": "positive", "abs": "abs",
          "invert": "bitwise_invert"}


def _function(name: str) -> Callable[..., Any]:
    module = _linear_algebra_functions if name == "matmul" else _elementwise_functions
    return getattr(module, name)


# dunder -> the namespace function's fast path it is (x[key]'s own fast path for
# __getitem__): what the methods below call, and what Tensor's C slots call.
_OPERATORS: dict[str, Any] = {}


def _method(dunder: str, doc: str) -> Callable[[Tensor, Any], Any]:
    def method(self: Tensor, other: Any, /) -> Any:
        return _OPERATORS[dunder](self, other)
    return _named(method, dunder, doc)


def _reflected(dunder: str, doc: str) -> Callable[[Tensor, Any], Any]:
    def method(self: Tensor, other: Any, /) -> Any:
        return _OPERATORS[dunder](other, self)
    return _named(method, f"__r{dunder[2:]}", doc)


def _unary(dunder: str, doc: str) -> Callable[[Tensor], Any]:
    def method(self: Tensor, /) -> Any:
        return _OPERATORS[dunder](self)
    return _named(method, dunder, doc)


def _named(method: Any, dunder: str, doc: str) -> Any:
    method.__name__ = dunder
    method.__qualname__ = f"Tensor.{dunder}"
    method.__doc__ = doc
    return method


def _inplace(name: str, dunder: str) -> Callable[[Tensor, Any], Tensor]:
    native_op = getattr(operator, f"__i{dunder}__")

    def method(self: Tensor, other: Any, /) -> Tensor:
        _dispatch.inplace(self, name, native_op, other)
        return self
    return method


def __getitem__(self: Tensor, key: Any, /) -> Tensor:  # Tensor's method
    return _dispatch.getitem(self, key)


def __setitem__(self: Tensor, key: Any, value: Any, /) -> None:
    _dispatch.setitem(self, key, value)


def mT(self: Tensor) -> Tensor:  # the standard's name
    """The transpose of the last two axes (``matrix_transpose``)."""
    return _linear_algebra_functions.matrix_transpose(self)


def T(self: Tensor) -> Tensor:  # the standard's name
    """The transpose of a 2-d array (``permute_dims(x, (1, 0))``)."""
    if self.ndim != 2:
        raise arg_error(ValueError, "T", "self", "a 2-d array (use mT or "
                        "permute_dims for others)", f"a {self.ndim}-d array")
    return _manipulation_functions.permute_dims(self, (1, 0))


for _func in (__getitem__, __setitem__, mT, T):
    _func.__qualname__ = f"Tensor.{_func.__name__}"
# x[key]: basic keys in C (_fastpath.py), everything else through _dispatch.getitem.
_OPERATORS["__getitem__"] = _fastpath.getitem(__getitem__, _dispatch._as_tensors)
for _dunder, _name in _BINARY.items():
    _OPERATORS[f"__{_dunder}__"] = _function(_name)
for _dunder, _name in (_COMPARISONS | _UNARY).items():
    _OPERATORS[f"__{_dunder}__"] = _function(_name)

# Installed like the operators below (Tensor declares these four for type checkers).
for _name, _member in {
        "__getitem__": _method("__getitem__", "``self[key]``: basic keys in C, "
                               "the rest through the general path."),
        "__setitem__": __setitem__, "mT": property(mT), "T": property(T)}.items():
    setattr(Tensor, _name, _member)
for _dunder, _name in _BINARY.items():
    _key = f"__{_dunder}__"
    setattr(Tensor, _key, _method(_key, f"``{_name}(self, other)``."))
    setattr(Tensor, f"__r{_dunder}__",
            _reflected(_key, f"``{_name}(other, self)``."))
    setattr(Tensor, f"__i{_dunder}__", _inplace(_name, _dunder))
for _dunder, _name in _COMPARISONS.items():
    _key = f"__{_dunder}__"
    setattr(Tensor, _key, _method(_key, f"``{_name}(self, other)``."))
for _dunder, _name in _UNARY.items():
    _key = f"__{_dunder}__"
    setattr(Tensor, _key, _unary(_key, f"``{_name}(self)``."))
# Eager code: Tensor's C slots call the fast paths themselves (ext/_fast.c).
_fast.show_operators(Tensor, _OPERATORS)
del _dunder, _name, _func, _member, _key
