"""TensorFlow and triton in one process: triton must be imported first.

The rule this module keeps: each module of unitensor that imports
TensorFlow imports ``tensorflow/_triton_first.py`` before it (triton first, where it
is installed), and asks
:func:`dynamo_would_abort` before any call of its own that imports
``torch._dynamo`` (``torch.func.vjp``, ``FakeTensorMode``,
``torch.compiler.set_stance``, ``compile.py``).

Why: triton (torch.compile's GPU compiler, which PyPI's torch wheels bring, CUDA
build or not) and TensorFlow each carry a copy of LLVM. Imported after
TensorFlow, triton registers LLVM's command-line options a second time and the
process aborts ("LLVM ERROR: inconsistency in registered CommandLine options";
seen with torch 2.15/triton 3.9 and tensorflow-cpu 2.21). torch imports triton
with ``torch._dynamo``, which ``torch.compile``, ``torch.func.grad``/``vjp``,
``make_fx`` and fake tensors import on first use. Imported before TensorFlow,
triton and TensorFlow both load and work. This module imports no framework
itself until asked.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Container

_DYNAMO = "torch._dynamo"


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a broken install, or a __spec__ of None
        return False


def before_tensorflow() -> None:
    """Import triton and Dr.Jit where installed and TensorFlow is not loaded yet:
    unitensor is about to import TensorFlow (after it, triton's import would
    abort the process at torch.compile's first use, Dr.Jit's crash it; before
    it, they all load).

    Dr.Jit carries LLVM too (its CPU backend, loaded at its import): where
    TensorFlow came first, its first kernel crashes the process, and the
    process aborts at exit ("free(): invalid pointer"; drjit 1.5,
    tensorflow-cpu 2.21). ``_backends/drjit/interop.py`` refuses to load after
    TensorFlow instead.
    """
    if "tensorflow" in sys.modules:
        return
    if "triton" not in sys.modules and _installed("triton"):
        import triton  # noqa: F401  (its LLVM options registered before TF's)
    if "drjit" not in sys.modules and _installed("drjit"):
        import drjit  # noqa: F401  (its LLVM loaded before TF's)


def dynamo_would_abort(modules: Container[str] | None = None,
                       triton_installed: bool | None = None) -> bool:
    """Whether importing ``torch._dynamo`` now would abort the process: the
    user imported TensorFlow before triton, which is installed and not
    imported yet (nor ``torch._dynamo``, which would have imported it).
    ``modules`` (the names imported) and ``triton_installed`` default to this
    process's state; given, the decision is told for that state.
    """
    if modules is None:
        modules = sys.modules
    return ("tensorflow" in modules and _DYNAMO not in modules
            and "triton" not in modules
            and (_installed("triton") if triton_installed is None
                 else triton_installed))


def refuse_dynamo(func: str, arg: str, what: str) -> ImportError:
    """The error for a call that needs ``torch._dynamo`` where its import would
    abort the process (``dynamo_would_abort``).
    """
    from .._errors import arg_error
    return arg_error(ImportError, func, arg,
                     f"triton imported before TensorFlow ({what} needs "
                     "torch._dynamo, whose import of triton after TensorFlow "
                     "aborts the process: import triton, or torch._dynamo, "
                     "before tensorflow; docs/interop.md)",
                     "TensorFlow imported first, triton installed and not imported")
