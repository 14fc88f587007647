"""PyTorch: CPU and CUDA tensors."""

from __future__ import annotations

import sys
from typing import Any

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
        from . import compile
        compile.register()
    elif not any(isinstance(f, _AfterDynamo) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterDynamo())


class _AfterDynamo:
    """A meta-path finder that finds nothing itself: for torch._dynamo it asks
    the other finders, and makes the loader register compile.py's twins once the
    module has executed (then leaves sys.meta_path).
    """

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != _DYNAMO:
            return None
        for finder in sys.meta_path:
            spec = (None if finder is self or not hasattr(finder, "find_spec")
                    else finder.find_spec(fullname, path, target))
            if spec is not None:
                break
        else:
            return None
        loader: Any = spec.loader
        exec_module = getattr(loader, "exec_module", None)
        if exec_module is None:
            return spec

        def exec_then_register(module: Any) -> None:
            try:
                exec_module(module)
            finally:  # the loader's own exec_module again (it serves one module)
                del loader.exec_module
            if self in sys.meta_path:
                sys.meta_path.remove(self)
            from . import compile
            compile.register()

        loader.exec_module = exec_then_register
        return spec
