"""The standard's manipulation functions, each run by the owner of its operands."""

from __future__ import annotations

import operator

from . import _dispatch
from ._errors import arg_error, describe


def broadcast_shapes(*shapes: tuple[int | None, ...]) -> tuple[int | None, ...]:
    """Broadcast shapes against one another (2025.12).

    Shapes hold no data, so no framework takes part: the standard's broadcasting
    rule, computed here, gives one answer whoever the default owner is.

    Parameters
    ----------
    *shapes : tuple of int or None
        The shapes (tuples of non-negative ints; ``torch.Size`` is one). None is
        a size a lazy owner (dask) does not know yet: it propagates, as the
        standard asks of libraries that build graphs.

    Returns
    -------
    tuple of int or None
        The broadcast shape; ``()`` for no shapes.

    Raises
    ------
    TypeError
        A shape is not a tuple of ints.
    ValueError
        A size is negative, or the shapes do not broadcast together.
    """
    checked = []
    for i, shape in enumerate(shapes):
        if not isinstance(shape, tuple):
            raise arg_error(TypeError, "broadcast_shapes", f"shapes[{i}]",
                            "a tuple of ints", describe(shape))
        try:
            sizes = tuple(None if n is None else operator.index(n) for n in shape)
        except TypeError:
            raise arg_error(TypeError, "broadcast_shapes", f"shapes[{i}]",
                            "a tuple of ints (None for an unknown size)",
                            str(shape)) from None
        if any(n is not None and n < 0 for n in sizes):
            raise arg_error(ValueError, "broadcast_shapes", f"shapes[{i}]",
                            "non-negative sizes", str(shape))
        checked.append(sizes)
    if not checked:
        return ()
    result = _dispatch._broadcast(checked)
    if result is None:
        raise arg_error(ValueError, "broadcast_shapes", "shapes", "shapes that "
                        "broadcast together", " and ".join(map(str, checked)))
    return result


__all__ = _dispatch.define("manipulation", globals())

# Type checkers read _manipulation_functions.pyi, made from the same table
# (tests/project/test_typing.py writes it and checks it).
