"""The Array API ``fft`` extension, each function run by its operands' owner."""

from __future__ import annotations

from . import _dispatch

__all__ = _dispatch.define("fft", globals())

# Type checkers read fft.pyi, made from the same table
# (tests/project/test_typing.py writes it and checks it).
