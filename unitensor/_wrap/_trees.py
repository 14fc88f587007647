"""Argument trees: a bridged call's arguments and its body's results, flattened
to their leaves and built again, by the wing's own small walk (no framework's
pytree module is needed, so every pair reads its trees alike).

The rule: only these exact containers are walked (tuples, lists, named tuples,
structseqs, dicts); anything else is a leaf.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

# -- argument trees: nested tuples, lists and dicts -----------------------------
# A tree is described by nested tuples: None for a leaf, (type, children) for a
# tuple, list or named tuple, (dict, keys, children) for a dict. Only these exact
# containers are walked; anything else (a dict subclass, a dataclass) is a leaf.
# The common cases skip the walk (a few µs of a small call): FLAT is the tree of
# arguments that are the caller's arrays, positional only; ONE and TUPLE the
# structure (Call.out) of a body's result that is one array or a tuple of arrays.
FLAT: Final = ("flat",)
ONE: Final[tuple[list[Any], Any, list[int]]] = ([None], None, [0])
TUPLE: Final[tuple[list[Any], Any, list[int]]] = ([], "tuple", [])


def flatten(tree: Any) -> tuple[list[Any], Any]:
    """The leaves of ``tree`` in order, and its description."""
    leaves: list[Any] = []
    return leaves, _walk(tree, leaves)


def _walk(node: Any, leaves: list[Any]) -> Any:
    # (module functions, not recursive closures: those would be reference
    # cycles holding the leaves, the caller's arrays, until the next collection)
    kind = type(node)
    if kind is tuple or kind is list or (issubclass(kind, tuple) and (
            hasattr(kind, "_fields") or hasattr(kind, "n_sequence_fields"))):
        # (named tuples; structseqs: torch.return_types, os.stat_result)
        return (kind, [_walk(child, leaves) for child in node])
    if kind is dict:
        return (dict, list(node), [_walk(child, leaves) for child in node.values()])
    leaves.append(node)
    return None


def frozen(tree: Any) -> Any:
    """``flatten``'s description of a tree as a hashable key (its lists as
    tuples), for what is kept per call signature.
    """
    if type(tree) is list:
        return tuple(frozen(node) for node in tree)
    if type(tree) is tuple:
        return tuple(frozen(node) for node in tree)
    return tree


def constant_key(value: Any) -> Any:
    """A constant argument (not an array) as part of a key: with its type (1,
    1.0 and True are equal, and traced differently), a float by its bits (-0.0
    is not 0.0).
    """
    return (type(value), value.hex() if type(value) is float else value)


def unflatten(tree: Any, leaves: list[Any]) -> Any:
    """The tree ``flatten`` described, with ``leaves`` in order."""
    return _build(tree, iter(leaves))


def _build(node: Any, items: Iterator[Any]) -> Any:
    if node is None:
        return next(items)
    if node[0] is dict:
        return dict(zip(node[1], (_build(c, items) for c in node[2]), strict=True))
    kind, children = node
    values = [_build(c, items) for c in children]
    if kind is tuple or kind is list:
        return kind(values)
    if hasattr(kind, "n_sequence_fields"):
        # a structseq (torch.return_types.sort, ...) comes back a tuple: no
        # caller's framework takes the body's framework's type as a tree
        return tuple(values)
    return kind(*values)  # a named tuple


# -- the inexact leaves a jax caller's primitive passes -------------------------
# A jax caller hands a body's derivative rules tangents and cotangents of the
# inexact (floating, complex) leaves only; the parts' rules take one per leaf.
def spread(given: list[Any], mask: list[bool]) -> list[Any]:
    """``given`` placed at the True places of ``mask``, None elsewhere."""
    items = iter(given)
    return [next(items) if m else None for m in mask]


def kept(values: list[Any], mask: list[bool]) -> list[Any]:
    """The ``values`` at the True places of ``mask``."""
    return [v for v, m in zip(values, mask, strict=True) if m]
