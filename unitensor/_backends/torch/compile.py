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

Registered once, when ``torch._dynamo`` is first imported (``register``): a
program that never compiles never imports it (it costs seconds).
"""

from __future__ import annotations

import functools
from typing import Any

import torch
from torch.compiler import substitute_in_graph

from ... import _backends, _fast, _fastpath
from ..._tensor import Tensor

_registered = False


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
    def learn(name: str, backend: Any, func: Any) -> None:
        return None
