"""The one reading of an integer argument (an axis, a count, an offset), whoever
owns the data.

The standard's axes are ints (``axis=-1``), or also None or a tuple of ints where
its signature says so (``sum(axis=(0, 1))``); fftn's ``axes`` and ``s`` are a
sequence of ints; ``k``, ``n``, ``offset`` and ``shift`` are ints (``shift`` or a
tuple). The frameworks read everything else each their own way (numpy refuses
``axis=True`` in ``sum`` and takes it in ``vector_norm``, takes ``tril(k=1.5)``;
jax and TensorFlow take ``axis=True``; dask refuses ``np.int64(1)``; torch takes a
list), so every owner gets what numpy's ``operator.index`` reading gives: an
integer that is not a bool (a numpy integer, a 0-d integer array) as a Python
int, a tuple of them where a tuple is taken (a list too where numpy's own function
takes one), and a TypeError naming the argument for anything else. The C fast
path passes a Python int (and a tuple of them where taken) as it is and leaves
every other value here.
"""

from __future__ import annotations

import operator
from typing import Any, Final

from ._errors import arg_error, describe
from ._standard import FUNCTIONS

# What an axis parameter takes: an int ("i"), a tuple of ints ("+"), a list or
# tuple of ints ("*": where numpy's own function takes a list, which clients pass,
# as scipy's xp_swapaxes does to permute_dims; numpy's reductions and squeeze
# refuse one), and None where its default is None ("?", added below). An int
# alone unless named here.
_KINDS: Final = {
    **dict.fromkeys(("sum", "prod", "max", "min", "mean", "std", "var", "all", "any",
                     "count_nonzero", "linalg.vector_norm", "squeeze"), "i+"),
    **dict.fromkeys(("flip", "roll", "expand_dims", "moveaxis", "fft.fftshift",
                     "fft.ifftshift"), "i*"),
    **dict.fromkeys(("permute_dims", "fft.fftn", "fft.ifftn", "fft.rfftn",
                     "fft.irfftn"), "*"),
    "concat": "i?",  # (axis=0 by default; None: the arrays flattened)
}
_NAMES: Final = frozenset({"axis", "axes", "source", "destination"})
# the other integer parameters, by function: what each takes (an int unless said)
_OTHERS: Final = {
    "diff": {"n": "i"}, "tril": {"k": "i"}, "triu": {"k": "i"},
    "linalg.diagonal": {"offset": "i"}, "linalg.trace": {"offset": "i"},
    "roll": {"shift": "i*"}, "linalg.matrix_power": {"n": "i"},
    **{name: {"n": "i"} for name in ("fft.fft", "fft.ifft", "fft.rfft", "fft.irfft",
                                     "fft.hfft", "fft.ihfft")},
    **{name: {"s": "*"} for name in ("fft.fftn", "fft.ifftn", "fft.rfftn",
                                     "fft.irfftn")},
}


def _table() -> dict[str, tuple[tuple[str, int | None, str], ...]]:
    """By function: each integer parameter, its position (None: keyword-only)
    and what it takes (_KINDS' letters).
    """
    found = {}
    for row in FUNCTIONS:
        name = row.name if row.group not in ("linalg", "fft") else (
            f"{row.group}.{row.name}")
        if name == "tensordot":  # (its axes: an int or two sequences of axes)
            continue
        params, position, keyword = [], 0, False
        for part in row.signature.split(","):
            part = part.strip()
            if part in ("/", "*"):
                keyword = keyword or part == "*"
                continue
            param, _, default = part.partition("=")
            other = _OTHERS.get(name, {}).get(param)
            if param in _NAMES or other is not None:
                kind = other or _KINDS.get(name, "i")
                if default == "None" and "?" not in kind:
                    kind += "?"
                params.append((param, None if keyword else position, kind))
            position += 1
        if params:
            found[name] = tuple(params)
    return found


PARAMETERS: Final = _table()


def fast_path_table(func: str) -> dict[str, tuple[int, bool, bool]]:
    """The integer parameters of ``func`` (its qualified name) as the C fast path
    takes them: name -> (position, -1 for a keyword-only one; whether an int is
    taken as it is; whether a tuple of ints is).
    """
    return {param: (-1 if position is None else position, "i" in kind,
                    "+" in kind or "*" in kind)
            for param, position, kind in PARAMETERS.get(func, ())}


def checked(func: str, args: tuple[Any, ...], kwargs: dict[str, Any]
            ) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """``args`` and ``kwargs`` of a call of ``func`` with each integer argument
    read as the standard says: Python ints (and None, tuples of them, where
    taken), or a TypeError naming the parameter. ``take``'s axis may be None
    for a one-dimensional x alone (the standard's rule; numpy's own flattened
    any other, where the other owners refused it): a ValueError there.
    """
    if func == "take" and kwargs.get("axis") is None and args:
        ndim = getattr(args[0], "ndim", 1)
        if type(ndim) is int and ndim > 1:
            raise arg_error(ValueError, func, "axis", "an axis for an x of more than "
                            "one dimension (None only for a one-dimensional x)",
                            f"None for an x of {ndim} dimensions")
    for param, position, kind in PARAMETERS[func]:
        if position is not None and position < len(args):
            value = args[position]
            fixed = _read(func, param, kind, value)
            if fixed is not value:
                args = (*args[:position], fixed, *args[position + 1:])
        elif param in kwargs:
            value = kwargs[param]
            fixed = _read(func, param, kind, value)
            if fixed is not value:
                kwargs[param] = fixed
    return args, kwargs


def _read(func: str, param: str, kind: str, value: Any) -> Any:
    if (type(value) is int and "i" in kind) or (value is None and "?" in kind):
        return value
    if (type(value) is tuple and "+" in kind) or (
            type(value) in (tuple, list) and "*" in kind):
        items = [_integer(v) for v in value]
        if None not in items:
            return tuple(items)
    elif "i" in kind:
        found = _integer(value)
        if found is not None:
            return found
    accepted = [text for flag, text in (("i", "an int"), ("+", "a tuple of ints"),
                                        ("*", "a list or tuple of ints"),
                                        ("?", "None")) if flag in kind]
    listed = ", ".join(accepted[:-1]) + " or " if len(accepted) > 1 else ""
    raise arg_error(TypeError, func, param, listed + accepted[-1], describe(value))


def _integer(value: Any) -> int | None:
    """``value`` as a Python int where it is an integer and not a bool (numpy's
    reading, ``operator.index``), else None.
    """
    if type(value) is int:
        return value
    if isinstance(value, bool) or type(value).__name__ in ("bool", "bool_") or (
            "bool" in str(getattr(value, "dtype", ""))):  # (a 0-d bool array)
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None
