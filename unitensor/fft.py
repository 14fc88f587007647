"""The Array API ``fft`` extension, each function run by its operands' owner."""

from __future__ import annotations

from . import _dispatch

__all__ = _dispatch.define("fft", globals())
