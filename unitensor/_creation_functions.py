"""Creation functions. ``asarray`` and ``from_dlpack`` are unitensor's own (they
decide ownership); the rest run in the default owner, or in the owner of ``x``.
"""

from __future__ import annotations

from . import _dispatch
from ._convert import asarray as asarray
from ._convert import from_dlpack as from_dlpack

__all__ = _dispatch.define("creation", globals())

# Type checkers read _creation_functions.pyi, made from the same table
# (tests/project/test_typing.py writes it and checks it).
