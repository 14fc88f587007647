"""Where a bridged call's memory crosses between caller and body: through
unitensor's own conversions (``_convert``), so the one copy rule holds in a
bridge too, and nowhere else.

``lend`` hands an array to the other framework (a view, else a copy reported
naming its place in the call); ``copy_kept`` copies the outputs of a body whose
memory the body keeps, for a caller whose arrays must never change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import _convert
from .._errors import arg_error, conversion_refused, copy_or_refuse


def lend(array: Any, framework: str, quiet: bool = False, arg: str = "args",
         guarded: bool = False) -> Any:
    """``array`` as ``framework``'s, through unitensor's conversions; a refusal
    (a dtype JAX does not hold) and a copy's report name ``arg``, the array's
    place in the call. ``guarded``: the body's part refuses writes into the
    caller's read-only memory while it runs (torch's ``read_only``), so such
    memory is lent without the AliasWarning a user's own view gets.
    """
    t = _convert.asarray(array)
    try:
        if not quiet:
            return _convert.view(t, framework, None, "wrap", arg, guarded)
        try:
            return _convert.view(t, framework, False, "wrap", None, guarded)
        except BufferError:
            return _convert.view(t, framework, True, "wrap")
    except BufferError as exc:
        refused = conversion_refused("wrap", arg, exc)
        if refused is None:
            raise
        raise refused from exc
    except TypeError as exc:
        symbolic = _convert.no_memory(t)
        if symbolic is None:
            raise
        # a plain caller's call (numpy's) runs its body eagerly: inside a
        # trace of the body's framework its arrays have no values
        raise arg_error(NotImplementedError, "wrap", arg, "arrays with values (a "
                        "bridged call runs its body eagerly: call it outside "
                        "tf.function and jax transformations, or from a caller "
                        "that traces it: tensorflow, jax)", symbolic) from exc


def copy_kept(ys: list[Any], framework: str, quiet: bool,
              kept: Callable[[int], bool], memory: Callable[[Any], int],
              copy: Callable[[Any], Any] | None = None) -> list[Any]:
    """``ys``, the outputs of a body in ``framework`` for a caller whose arrays
    are immutable, with each one ``kept(i)`` says the body keeps, and every
    other on the same memory (``memory(y)``: an id of its holder), replaced by
    an aligned copy in ``framework`` (reported unless ``quiet``): ``copy(y)``
    where the framework's differentiation must see the copy (a tape that
    records it: a gradient seeded on the copy reaches the body's output),
    else unitensor's conversion.
    """
    # all decided before any is replaced: a kept output's sibling on its memory
    # counts as a holder that goes with the call, which it is not
    held = {memory(ys[i]) for i in range(len(ys)) if kept(i)}
    for i in range(len(ys)):
        if memory(ys[i]) in held:
            copy_or_refuse("wrap", "func", True if quiet else None,
                           "the body's output shares memory the body keeps (a "
                           "global, a cached array, a writable input) or memory "
                           f"{framework} did not allocate, which a later in-place "
                           "update would change in the caller's immutable array",
                           "func (an output of the body)")
            ys[i] = (copy(ys[i]) if copy is not None else
                     _convert.view(_convert.asarray(ys[i]), framework, True, "wrap"))
    return ys
