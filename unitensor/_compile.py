"""unitensor inside ``torch.compile``: what Dynamo is shown in place of C.

Dynamo compiles by tracing Python bytecode; a call into C it does not know is
a graph break (and an error under ``fullgraph=True``). unitensor's hot paths are
C (``ext/_fast.c``): the ``FastPath`` callables (every elementwise function, the
generated functions, ``x[key]``, the operators, ``.torch()``) and
``make_tensor``, which makes every Tensor. Here each gets a Python twin of the
same behaviour, registered with :func:`torch.compiler.substitute_in_graph`:
Dynamo traces the twin, eager code still runs the C.

- ``FastPath.__call__`` and ``FastPath.__get__``: the Python function the fast
  path stands for (``slow``), which gives the same answer by construction
  (ext/_fast.c's contract); so the general path, ``_dispatch``, is traced.
- ``make_tensor``: ``object.__new__(Tensor)`` and the three fields assigned,
  which Dynamo can model (and replay, should a Tensor leave the graph).
- ``_fastpath.learn``: nothing (its tables are for eager calls; their rows are
  C structs Dynamo cannot make).

The rule: registered once, when ``torch._dynamo`` is first imported (``watch``,
called by ``unitensor/__init__.py``, which also hands it ``ut.wrap``'s part:
a bridged call as one op of the graph, ``_wrap/torch_ops.py``); nothing here
imports torch before that, so a program that never compiles never pays for
Dynamo (it costs seconds).
"""

from __future__ import annotations

import functools
import sys
import warnings
from collections.abc import Callable
from typing import Any

from . import _backends, _fast, _fastpath
from ._backends._after_import import AfterImport
from ._tensor import Tensor

_DYNAMO = "torch._dynamo"  # torch.compile's tracer: imported by its first use
_registered = False


def watch(*then: Callable[[], object]) -> None:
    """Show torch.compile's tracer unitensor's C paths in Python (``register``),
    then run ``then`` in order, once it is imported: now if it is, else right
    after its import (a program that never compiles never pays for it).
    """
    def show() -> None:
        register()
        for action in then:
            action()

    if _DYNAMO in sys.modules:
        show()
    else:
        _compiler_hook.add(_DYNAMO, "twins", show)


def _not_registered(module: str, what: str, exc: Exception) -> None:
    warnings.warn(f"unitensor: torch.compile will break its graph at unitensor's "
                  f"calls (the Python twins of its C paths were not registered when "
                  f"{module} was imported: {exc})", RuntimeWarning, stacklevel=3)


_compiler_hook = AfterImport(_not_registered)


def register() -> None:
    """Register the twins with Dynamo (once; later calls do nothing).

    Where unitensor's general path itself does what Dynamo cannot trace (an
    ``owner()`` block open inside the compiled function, a conversion to
    another framework), Dynamo says so: a graph break, an error under
    ``fullgraph=True`` (docs/namespace.md, "Under compilers").
    """
    global _registered
    if _registered:
        return
    _registered = True
    import torch  # (imported already: torch._dynamo is)
    from torch.compiler import substitute_in_graph

    # What a traced call must find loaded: an import is no part of a graph.
    for kind in (torch.Tensor, torch.nn.Parameter):
        _backends.for_type(kind)

    @substitute_in_graph(_fast.make_tensor, skip_signature_check=True)
    def make_tensor(backend: Any, native: Any, aliases: Any = None, /) -> Tensor:
        t = object.__new__(Tensor)
        t._backend = backend
        t._native = native
        t._aliases = aliases
        return t

    # The general path a FastPath stands for: the same answer, by its contract.
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        return self.slow(*args, **kwargs)
    substitute_in_graph(_fast.FastPath.__call__, skip_signature_check=True)(call)

    # Read when traced (constant-folded: the count of open owner() blocks then),
    # so that no context variable need be traced where none is open.
    @substitute_in_graph(_fast.owner_blocks, can_constant_fold_through=True)
    def owner_blocks() -> int:
        return _fast.owner_blocks()

    def get(self: Any, obj: Any, owner: Any = None, /) -> Any:
        # fastpath_get's behaviour: a FastPath on Tensor (t.torch()) binds t.
        return self if obj is None else functools.partial(self, obj)
    _fast.show_get(get)

    @substitute_in_graph(_fastpath.learn, skip_signature_check=True)
    def learn(name: str, backend: Any, func: Any, tie: Any = None) -> None:
        return None
