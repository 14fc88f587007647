"""``ut.wrap``'s wing: a function written in one framework, called and
differentiated from another.

The rule: everything of ``ut.wrap`` lives here, above the Tensor, and nothing
below imports it (``_backends/`` holds only what lies below the Tensor). The
bridge every pair shares is framework-free: ``_bridge`` (``wrap``, the pairs,
``Bridge`` and ``Call``), ``_trees`` (argument trees) and ``_lend`` (where memory
crosses, through ``_convert``'s copy rule). Each framework's part is one module
(``torch``, ``jax``, ``tensorflow``: callers and bodies with derivatives;
``numpy``, ``array_api_strict``, ``cupy``: plain bodies), imported when a bridge
of that framework is first called, and ``torch_ops`` holds a torch caller's call
as one op of ``torch.compile``'s and make_fx's graphs. ``_parts`` states what a
part provides (``typing.Protocol`` classes, checked member by member by
tests/wrap/test_wrap_parts.py) and finds the parts through one table, ``PARTS``.

A new differentiable framework is one row of ``_parts.PARTS`` (its module, what
it asks of a body as a caller, what the bridge asks of it alone) and one file,
its part, fulfilling the contracts its row names (``_parts.contracts``).
"""

from ._bridge import wrap

__all__ = ["wrap"]
