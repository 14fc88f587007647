"""The standard's linear algebra functions, each run by the owner of its operands."""

from __future__ import annotations

from . import _dispatch

__all__ = _dispatch.define("linear_algebra", globals())

# Type checkers read _linear_algebra_functions.pyi, made from the same table
# (tests/project/test_typing.py writes it and checks it).
