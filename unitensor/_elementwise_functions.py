"""The standard's elementwise functions, each run by the owner of its operands."""

from __future__ import annotations

from . import _dispatch

__all__ = _dispatch.define("elementwise", globals())

# Type checkers read _elementwise_functions.pyi, made from the same table
# (tests/project/test_typing.py writes it and checks it).
