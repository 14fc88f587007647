"""Data type functions: the standard's promotion rules, the same on every owner.

``result_type``, ``can_cast`` and ``isdtype`` are answered by unitensor itself
from the standard's promotion table (frameworks disagree: numpy promotes
int64 + uint64 to float64, torch lacks most unsigned promotions), so they give
one answer whoever owns the data. ``result_type`` adds unitensor's rule for mixed
kinds (``_dtypes.promote``: int32 with float32 is float32, as every owner computes
it), and for a Python scalar of a higher kind than the arrays (``int32`` with
``0.5``: the owner's default float, float64 on the CPU); ``can_cast`` keeps to
the standard's table (no int to float).
``finfo``/``iinfo`` accept Tensors and dtypes alike. ``astype`` runs in the
owner, like every operation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from . import _dispatch
from ._dispatch import _DEFAULT_KIND, _SCALAR_RANK
from ._dtypes import DTYPES, KIND_RANK, DType, promote, with_scalar
from ._errors import arg_error, describe
from ._tensor import Tensor

_KINDS = {
    "bool": ("bool",),
    "signed integer": ("signed integer",),
    "unsigned integer": ("unsigned integer",),
    "integral": ("signed integer", "unsigned integer"),
    "real floating": ("real floating",),
    "complex floating": ("complex floating",),
    "numeric": ("signed integer", "unsigned integer", "real floating",
                "complex floating"),
}
_FLOAT_OF_COMPLEX = {"complex64": "float32", "complex128": "float64"}


def _dtype_of(value: Any, func: str, arg: str) -> DType:
    if isinstance(value, DType):
        return value
    if type(value) is Tensor:
        return value.dtype
    raise arg_error(TypeError, func, arg, "a unitensor dtype or a Tensor",
                    describe(value))


def result_type(*arrays_and_dtypes: Tensor | DType | bool | int | float | complex
                ) -> DType:
    """Give the dtype the standard gives an operation on these operands.

    The same answer on every owner: unitensor's own promotion table, with Python
    scalars taking the arrays' dtype where their kinds agree.

    Parameters
    ----------
    *arrays_and_dtypes : Tensor, DType or Python scalar
        At least one Tensor or dtype.

    Returns
    -------
    DType
        The promoted dtype.

    Raises
    ------
    TypeError
        The standard promotes no such mix (e.g. int8 with uint64).
    ValueError
        Only Python scalars were given.
    """
    dtypes, scalars = [], []
    like: Tensor | None = None  # the first array: its owner's defaults
    for value in arrays_and_dtypes:
        if isinstance(value, (bool, int, float, complex)):
            scalars.append(value)
        else:
            dtypes.append(_dtype_of(value, "result_type", "arrays_and_dtypes"))
            if like is None and type(value) is Tensor:
                like = value
    if not dtypes:
        raise arg_error(ValueError, "result_type", "arrays_and_dtypes",
                        "at least one array or dtype", f"{len(scalars)} scalars only")
    result = dtypes[0]
    for dt in dtypes[1:]:
        result = promote(result, dt)
    for scalar in scalars:
        # (bool before int, its base class; np.float64 is a float)
        rank = next(r for kind, r in _SCALAR_RANK.items() if isinstance(scalar, kind))
        if rank > KIND_RANK[result.kind] and KIND_RANK[result.kind] < 2:
            # a higher-kind scalar (a float with an integer dtype): the default
            # dtype of its kind, as every operation computes it (_one_kind)
            result = _scalar_default(like, _DEFAULT_KIND[rank])
            continue
        result = promote(result, with_scalar(result, scalar))
    return result


def _scalar_default(like: Tensor | None, kind: str) -> DType:
    """The default dtype of ``kind`` of ``like``'s owner on its device, else of
    the owner a creation function would use (``__array_namespace_info__``).
    """
    if like is not None:
        return _dispatch._default_dtype(like._backend, like, kind)
    from ._inspection import __array_namespace_info__
    return __array_namespace_info__().default_dtypes()[kind]


def can_cast(from_: DType | Tensor, to: DType, /) -> bool:
    """Tell whether ``from_`` promotes to ``to`` under the standard's rules.

    Parameters
    ----------
    from_ : DType or Tensor
        The source dtype, or an array of it.
    to : DType
        The target dtype.

    Returns
    -------
    bool
        True where the promotion of the two is ``to``.
    """
    source = _dtype_of(from_, "can_cast", "from_")
    target = _dtype_of(to, "can_cast", "to")
    try:
        return promote(source, target, mixed=False) is target
    except TypeError:
        return False


def isdtype(dtype: DType, kind: DType | str | tuple[DType | str, ...]) -> bool:
    """Tell whether ``dtype`` is of ``kind``.

    Parameters
    ----------
    dtype : DType
        The dtype asked about.
    kind : DType, str or tuple of them
        A dtype; a kind name ('bool', 'signed integer', 'unsigned integer',
        'integral', 'real floating', 'complex floating', 'numeric'); or a tuple
        of them, any of which may match.

    Returns
    -------
    bool
        True where ``dtype`` is ``kind`` or of that kind.
    """
    if not isinstance(dtype, DType):
        raise arg_error(TypeError, "isdtype", "dtype", "a unitensor dtype",
                        describe(dtype))
    if isinstance(kind, tuple):
        return any(_is_kind(dtype, k) for k in kind)
    return _is_kind(dtype, kind)


def _is_kind(dtype: DType, kind: object) -> bool:
    if isinstance(kind, DType):
        return dtype is kind
    if isinstance(kind, str):
        try:
            return dtype.kind in _KINDS[kind]
        except KeyError:
            raise arg_error(ValueError, "isdtype", "kind",
                            f"a dtype or one of {tuple(_KINDS)}", repr(kind)) from None
    raise arg_error(TypeError, "isdtype", "kind",
                    "a dtype, a kind name, or a tuple of them", describe(kind))


class finfo_object(NamedTuple):  # the standard's name
    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: DType


class iinfo_object(NamedTuple):  # the standard's name
    bits: int
    max: int
    min: int
    dtype: DType


def finfo(type: DType | Tensor, /) -> finfo_object:  # standard's name
    """Give the machine limits of a floating-point dtype.

    Parameters
    ----------
    type : DType or Tensor
        A real or complex floating-point dtype (a complex one: its real part's
        limits), or an array of it.

    Returns
    -------
    finfo_object
        ``bits``, ``eps``, ``max``, ``min``, ``smallest_normal`` and ``dtype``.
    """
    dtype = _dtype_of(type, "finfo", "type")
    if dtype.kind not in ("real floating", "complex floating"):
        raise arg_error(TypeError, "finfo", "type", "a floating-point dtype",
                        dtype.name)
    real = DTYPES[_FLOAT_OF_COMPLEX.get(dtype.name, dtype.name)]
    info = _numpy_finfo(real)
    return finfo_object(bits=real.itemsize * 8, eps=float(info.eps),
                        max=float(info.max), min=float(info.min),
                        smallest_normal=float(info.smallest_normal), dtype=real)


def iinfo(type: DType | Tensor, /) -> iinfo_object:  # standard's name
    """Give the limits of an integer dtype.

    Parameters
    ----------
    type : DType or Tensor
        An integer dtype, or an array of it.

    Returns
    -------
    iinfo_object
        ``bits``, ``max``, ``min`` and ``dtype``.
    """
    dtype = _dtype_of(type, "iinfo", "type")
    if dtype.kind not in ("signed integer", "unsigned integer"):
        raise arg_error(TypeError, "iinfo", "type", "an integer dtype", dtype.name)
    bits = dtype.itemsize * 8
    if dtype.kind == "signed integer":
        return iinfo_object(bits, 2 ** (bits - 1) - 1, -(2 ** (bits - 1)), dtype)
    return iinfo_object(bits, 2 ** bits - 1, 0, dtype)


def _numpy_finfo(dtype: DType) -> Any:
    import numpy as np  # imported here: `import unitensor` imports no framework

    if dtype.name == "bfloat16":
        import ml_dtypes
        return ml_dtypes.finfo(ml_dtypes.bfloat16)
    return np.finfo(dtype.name)


__all__ = _dispatch.define("data_types", globals())

if TYPE_CHECKING:  # what define() makes at import, as type checkers see it
    __all__ = ["astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type"]

    def astype(x: Any, dtype: Any, /, *, copy: Any = ...,
               device: Any = ...) -> Tensor: ...
