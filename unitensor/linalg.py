"""The Array API ``linalg`` extension, each function run by its operands' owner."""

from __future__ import annotations

from . import _dispatch

__all__ = _dispatch.define("linalg", globals())

# Type checkers read linalg.pyi, made from the same table
# (tests/project/test_typing.py writes it and checks it).
