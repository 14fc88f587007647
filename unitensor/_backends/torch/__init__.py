"""PyTorch: CPU and CUDA tensors."""

from __future__ import annotations

import sys
import warnings

from .._after_import import AfterImport

NAME = "torch"
MODULES = ("torch",)  # top-level modules whose types belong to torch
INSTALL = "torch"  # what to install for it

_DYNAMO = "torch._dynamo"  # torch.compile's tracer: imported by its first use


def watch_compiler() -> None:
    """Show torch.compile's tracer unitensor's C paths in Python (compile.py),
    once it is imported: now if it is, else right after its import (it costs
    seconds; a program that never compiles never pays them).
    """
    if _DYNAMO in sys.modules:
        _register()
    else:
        _compiler_hook.add(_DYNAMO, "twins", _register)


def _register() -> None:
    from ..._wrap import torch_ops
    torch_ops.register()


def _not_registered(module: str, what: str, exc: Exception) -> None:
    warnings.warn(f"unitensor: torch.compile will break its graph at unitensor's "
                  f"calls (the Python twins of its C paths were not registered when "
                  f"{module} was imported: {exc})", RuntimeWarning, stacklevel=3)


_compiler_hook = AfterImport(_not_registered)
