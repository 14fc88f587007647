"""unitensor's data types: one table, mapped to every framework by name.

Every framework spells these dtypes the same way (``numpy.float32``,
``torch.float32``, ``jax.numpy.float32``, ``tf.float32``); bfloat16 in numpy and
jax comes from ml_dtypes. The DLPack code and bit width make the Buffer's dtype.
"""

from __future__ import annotations

from typing import Final

from ._errors import arg_error, describe

# DLPack type codes (see ext/dlpack.h).
_INT, _UINT, _FLOAT, _BFLOAT, _COMPLEX, _BOOL = 0, 1, 2, 4, 5, 6


class DType:
    """A data type, independent of any framework.

    One object per dtype (``unitensor.float32``): compare with ``==`` or ``is``.

    Attributes
    ----------
    name : str
        The standard's name ('float32').
    kind : str
        The standard's kind: 'bool', 'signed integer', 'unsigned integer',
        'real floating' or 'complex floating'.
    dlpack : tuple of int
        The DLPack ``(code, bits, lanes)``.
    itemsize : int
        Bytes per element.
    """

    __slots__ = ("dlpack", "itemsize", "kind", "name")

    def __init__(self, name: str, kind: str, code: int, bits: int) -> None:
        self.name: Final = name
        self.kind: Final = kind  # 'bool', 'signed integer', 'unsigned integer', ...
        self.dlpack: Final = (code, bits, 1)
        self.itemsize: Final = bits // 8

    def __repr__(self) -> str:
        return f"unitensor.{self.name}"

    def __reduce__(self) -> str:
        return self.name


# name, Array API kind, DLPack code, bits: the one table of dtypes.
_TABLE = [
    ("bool", "bool", _BOOL, 8),
    ("int8", "signed integer", _INT, 8),
    ("int16", "signed integer", _INT, 16),
    ("int32", "signed integer", _INT, 32),
    ("int64", "signed integer", _INT, 64),
    ("uint8", "unsigned integer", _UINT, 8),
    ("uint16", "unsigned integer", _UINT, 16),
    ("uint32", "unsigned integer", _UINT, 32),
    ("uint64", "unsigned integer", _UINT, 64),
    ("float16", "real floating", _FLOAT, 16),
    ("bfloat16", "real floating", _BFLOAT, 16),
    ("float32", "real floating", _FLOAT, 32),
    ("float64", "real floating", _FLOAT, 64),
    ("complex64", "complex floating", _COMPLEX, 64),
    ("complex128", "complex floating", _COMPLEX, 128),
]

DTYPES: Final[dict[str, DType]] = {row[0]: DType(*row) for row in _TABLE}
_BY_DLPACK: Final[dict[tuple[int, int, int], DType]] = {
    d.dlpack: d for d in DTYPES.values()}

bool_ = DTYPES["bool"]
int8, int16, int32, int64 = (DTYPES[n] for n in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (
    DTYPES[n] for n in ("uint8", "uint16", "uint32", "uint64"))
float16, bfloat16, float32, float64 = (
    DTYPES[n] for n in ("float16", "bfloat16", "float32", "float64"))
complex64, complex128 = DTYPES["complex64"], DTYPES["complex128"]

# Each integer dtype's range, for Python ints (which frameworks wrap or narrow).
_INT_RANGES: Final[dict[DType, tuple[int, int]]] = {
    d: ((-(1 << (8 * d.itemsize - 1)), (1 << (8 * d.itemsize - 1)) - 1)
        if d.kind == "signed integer" else (0, (1 << (8 * d.itemsize)) - 1))
    for d in DTYPES.values() if d.kind.endswith("integer")}
# Every integer dtype holds the Python ints 0 to HELD_BY_ALL (int8's max; uint8's
# min is 0): the hot paths skip the check for these without reading the dtype.
HELD_BY_ALL: Final = 127


_COMPLEX_OF_FLOAT = {"float16": "complex64", "bfloat16": "complex64",
                     "float32": "complex64", "float64": "complex128"}


# The kinds in the order mixed-kind promotion reads them: an operand of a lower
# kind takes the dtype of the higher-kind operand (int32 * float32 is float32).
KIND_RANK: Final[dict[str, int]] = {
    "bool": 0, "signed integer": 1, "unsigned integer": 1, "real floating": 2,
    "complex floating": 3}


def promote(a: DType, b: DType, func: str = "result_type", *,
            mixed: bool = True) -> DType:
    """The standard's promotion of two dtypes, and unitensor's rule for mixed
    kinds, which the standard leaves open: a bool or integer dtype with a
    floating (real or complex) one, and bool with an integer one, give the
    dtype of the higher kind (``int32`` with ``float32``: ``float32``;
    ``int64`` with ``float16``: ``float16``), as torch and jax compute them
    (numpy's own table would widen to float64; every owner computes this rule,
    ``_dispatch`` casting the lower-kind operand first). TypeError where no rule
    applies (``int64`` with ``uint64``), and for mixed kinds where ``mixed`` is
    False (``can_cast``: the standard's table only, as numpy's safe casting).
    """
    if a is b:
        return a
    ka, kb = a.kind, b.kind
    ra, rb = KIND_RANK[ka], KIND_RANK[kb]
    if mixed and ra != rb and (ra < 2 or rb < 2):  # bool/integer with a higher kind
        return a if ra > rb else b
    if ka == kb:
        if ka in ("signed integer", "unsigned integer", "complex floating"):
            return a if a.itemsize > b.itemsize else b
        if ka == "real floating":
            if {a.name, b.name} == {"float16", "bfloat16"}:
                return DTYPES["float32"]  # neither holds the other (as JAX does)
            return a if a.itemsize > b.itemsize else b
    elif {ka, kb} == {"signed integer", "unsigned integer"}:
        signed, unsigned = (a, b) if ka == "signed integer" else (b, a)
        if unsigned.itemsize < signed.itemsize:
            return signed
        if unsigned.itemsize < 8:  # the next signed type holds both
            return DTYPES[f"int{unsigned.itemsize * 16}"]
    elif {ka, kb} == {"real floating", "complex floating"}:
        real, cplx = (a, b) if ka == "real floating" else (b, a)
        wide = _COMPLEX_OF_FLOAT[real.name]
        return cplx if cplx.itemsize >= DTYPES[wide].itemsize else DTYPES[wide]
    raise arg_error(TypeError, func, "arrays_and_dtypes",
                    "dtypes the Array API standard promotes together",
                    f"{a.name} and {b.name}")


def with_scalar(dtype: DType, scalar: bool | int | float | complex,
                func: str = "result_type", arg: str = "arrays_and_dtypes") -> DType:
    """The dtype of an array of ``dtype`` combined with a Python scalar.

    The scalar takes the array's dtype where their kinds agree (a complex scalar
    makes a real floating array complex), and a bool takes any (numpy's weak 1
    or 0; the standard leaves it open); TypeError where they do not, and
    OverflowError for an int outside an integer dtype's range.
    """
    kind = dtype.kind
    if isinstance(scalar, bool):
        fits = True
    elif isinstance(scalar, int):
        fits = kind != "bool"
        check_int(dtype, scalar, func, arg)
    elif isinstance(scalar, float):
        fits = kind in ("real floating", "complex floating")
    else:
        if kind == "real floating":
            return complex_of(dtype)
        fits = kind == "complex floating"
    if not fits:
        raise arg_error(TypeError, func, arg,
                        "Python scalars of a kind the array dtypes accept",
                        f"{type(scalar).__name__} with {dtype.name}")
    return dtype


def check_int(dtype: DType, value: int, func: str, arg: str) -> None:
    """Refuse a Python int that an array of integer ``dtype`` cannot hold.

    Frameworks wrap it (torch: ``int32 + 2**40`` adds 0) or narrow it, or raise
    errors of their own; the standard leaves it unspecified. Any other dtype
    takes any int (a float dtype rounds it).
    """
    if not holds(dtype, value):
        low, high = _INT_RANGES[dtype]
        raise arg_error(OverflowError, func, arg, f"a Python int within "
                        f"{dtype.name}'s range [{low}, {high}]", describe(value))


def holds(dtype: DType, value: int) -> bool:
    """Whether an array of ``dtype`` holds the Python int ``value`` as it is."""
    bounds = _INT_RANGES.get(dtype)
    return bounds is None or bounds[0] <= value <= bounds[1]


def complex_of(real: DType) -> DType:
    """The complex dtype a real floating dtype promotes to with a complex scalar."""
    return DTYPES[_COMPLEX_OF_FLOAT[real.name]]


def from_dlpack_code(code: tuple[int, int, int]) -> DType:
    """The dtype of a Buffer (the C layer has validated the code already)."""
    return _BY_DLPACK[code]


def from_name(name: str) -> DType | None:
    """The dtype whose framework-independent name is ``name``, or None."""
    return DTYPES.get(name)


def parse(dtype: object, func: str, arg: str = "dtype") -> DType:
    """A unitensor dtype from itself, its name, or any framework's dtype object
    (``torch.float32``, ``np.float32``, ``np.dtype('f4')``, ``tf.float32``), so
    that a dtype argument means the same whoever runs the call.
    """
    if type(dtype) is DType:
        return dtype
    if isinstance(dtype, str):
        name: object = dtype
    else:  # numpy/tensorflow dtypes have .name, numpy scalar types __name__,
        # and torch dtypes print as 'torch.float32'
        name = getattr(dtype, "name", None) or getattr(dtype, "__name__", None) or (
            str(dtype).removeprefix("torch."))
    found = DTYPES.get(name) if isinstance(name, str) else None
    if found is None:
        raise arg_error(TypeError, func, arg, "a unitensor dtype such as "
                        "unitensor.float32, its name, or a framework's dtype",
                        describe(dtype))
    return found
