"""Creation functions. ``asarray`` and ``from_dlpack`` are unitensor's own (they
decide ownership); the rest run in the default owner, or in the owner of ``x``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import _dispatch
from ._convert import asarray as asarray
from ._convert import from_dlpack as from_dlpack

__all__ = _dispatch.define("creation", globals())

if TYPE_CHECKING:  # the functions define() makes at import, as type checkers see them
    from collections.abc import Callable
    from typing import Any

    def __getattr__(name: str) -> Callable[..., Any]: ...
