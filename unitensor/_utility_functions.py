"""The standard's utility functions, each run by the owner of its operands."""

from __future__ import annotations

from . import _dispatch

__all__ = _dispatch.define("utility", globals())

# Type checkers read _utility_functions.pyi, made from the same table
# (tests/project/test_typing.py writes it and checks it).
