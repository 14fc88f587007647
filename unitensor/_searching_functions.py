"""The standard's searching functions, each run by the owner of its operands."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import _dispatch

__all__ = _dispatch.define("searching", globals())

if TYPE_CHECKING:  # the functions define() makes at import, as type checkers see them
    from collections.abc import Callable
    from typing import Any

    def __getattr__(name: str) -> Callable[..., Any]: ...
