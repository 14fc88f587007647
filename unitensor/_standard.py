"""The Array API standard (2025.12) as one table: each function, its group, signature.

The namespace is made from this table: each group module (``_elementwise.py``,
``linalg.py``, ...) defines the functions of its group, generated from these rows
unless the module writes one by hand, and ``tests/test_namespace.py`` checks the
table against what ``unitensor`` exposes. Signatures are the standard's, so
``inspect.signature(ut.sum)`` reads like the specification.
"""

from __future__ import annotations

from typing import Final, NamedTuple

API_VERSION: Final = "2025.12"
SUPPORTED_VERSIONS: Final = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")


class Function(NamedTuple):
    name: str
    group: str  # the standard's section: 'elementwise', 'linalg', 'fft', ...
    signature: str  # the parameter list, as the standard writes it


FUNCTIONS: Final = tuple(Function(*row) for row in (
    # creation
    ("arange", "creation", "start, /, stop=None, step=1, *, dtype=None, device=None"),
    ("asarray", "creation", "obj, /, *, dtype=None, device=None, copy=None"),
    ("empty", "creation", "shape, *, dtype=None, device=None"),
    ("empty_like", "creation", "x, /, *, dtype=None, device=None"),
    ("eye", "creation", "n_rows, n_cols=None, /, *, k=0, dtype=None, device=None"),
    ("from_dlpack", "creation", "x, /, *, device=None, copy=None"),
    ("full", "creation", "shape, fill_value, *, dtype=None, device=None"),
    ("full_like", "creation", "x, /, fill_value, *, dtype=None, device=None"),
    ("linspace", "creation",
     "start, stop, /, num, *,"
     " dtype=None, device=None, endpoint=True"),
    ("meshgrid", "creation", "*arrays, indexing='xy'"),
    ("ones", "creation", "shape, *, dtype=None, device=None"),
    ("ones_like", "creation", "x, /, *, dtype=None, device=None"),
    ("tril", "creation", "x, /, *, k=0"),
    ("triu", "creation", "x, /, *, k=0"),
    ("zeros", "creation", "shape, *, dtype=None, device=None"),
    ("zeros_like", "creation", "x, /, *, dtype=None, device=None"),
    # data_types
    ("astype", "data_types", "x, dtype, /, *, copy=True, device=None"),
    ("can_cast", "data_types", "from_, to, /"),
    ("finfo", "data_types", "type, /"),
    ("iinfo", "data_types", "type, /"),
    ("isdtype", "data_types", "dtype, kind"),
    ("result_type", "data_types", "*arrays_and_dtypes"),
    # elementwise
    ("abs", "elementwise", "x, /"),
    ("acos", "elementwise", "x, /"),
    ("acosh", "elementwise", "x, /"),
    ("add", "elementwise", "x1, x2, /"),
    ("asin", "elementwise", "x, /"),
    ("asinh", "elementwise", "x, /"),
    ("atan", "elementwise", "x, /"),
    ("atan2", "elementwise", "x1, x2, /"),
    ("atanh", "elementwise", "x, /"),
    ("bitwise_and", "elementwise", "x1, x2, /"),
    ("bitwise_left_shift", "elementwise", "x1, x2, /"),
    ("bitwise_invert", "elementwise", "x, /"),
    ("bitwise_or", "elementwise", "x1, x2, /"),
    ("bitwise_right_shift", "elementwise", "x1, x2, /"),
    ("bitwise_xor", "elementwise", "x1, x2, /"),
    ("ceil", "elementwise", "x, /"),
    ("clip", "elementwise", "x, /, min=None, max=None"),
    ("conj", "elementwise", "x, /"),
    ("copysign", "elementwise", "x1, x2, /"),
    ("cos", "elementwise", "x, /"),
    ("cosh", "elementwise", "x, /"),
    ("divide", "elementwise", "x1, x2, /"),
    ("equal", "elementwise", "x1, x2, /"),
    ("exp", "elementwise", "x, /"),
    ("expm1", "elementwise", "x, /"),
    ("floor", "elementwise", "x, /"),
    ("floor_divide", "elementwise", "x1, x2, /"),
    ("greater", "elementwise", "x1, x2, /"),
    ("greater_equal", "elementwise", "x1, x2, /"),
    ("hypot", "elementwise", "x1, x2, /"),
    ("imag", "elementwise", "x, /"),
    ("isfinite", "elementwise", "x, /"),
    ("isinf", "elementwise", "x, /"),
    ("isnan", "elementwise", "x, /"),
    ("less", "elementwise", "x1, x2, /"),
    ("less_equal", "elementwise", "x1, x2, /"),
    ("log", "elementwise", "x, /"),
    ("log1p", "elementwise", "x, /"),
    ("log2", "elementwise", "x, /"),
    ("log10", "elementwise", "x, /"),
    ("logaddexp", "elementwise", "x1, x2, /"),
    ("logical_and", "elementwise", "x1, x2, /"),
    ("logical_not", "elementwise", "x, /"),
    ("logical_or", "elementwise", "x1, x2, /"),
    ("logical_xor", "elementwise", "x1, x2, /"),
    ("maximum", "elementwise", "x1, x2, /"),
    ("minimum", "elementwise", "x1, x2, /"),
    ("multiply", "elementwise", "x1, x2, /"),
    ("negative", "elementwise", "x, /"),
    ("nextafter", "elementwise", "x1, x2, /"),
    ("not_equal", "elementwise", "x1, x2, /"),
    ("positive", "elementwise", "x, /"),
    ("pow", "elementwise", "x1, x2, /"),
    ("real", "elementwise", "x, /"),
    ("reciprocal", "elementwise", "x, /"),
    ("remainder", "elementwise", "x1, x2, /"),
    ("round", "elementwise", "x, /"),
    ("sign", "elementwise", "x, /"),
    ("signbit", "elementwise", "x, /"),
    ("sin", "elementwise", "x, /"),
    ("sinh", "elementwise", "x, /"),
    ("square", "elementwise", "x, /"),
    ("sqrt", "elementwise", "x, /"),
    ("subtract", "elementwise", "x1, x2, /"),
    ("tan", "elementwise", "x, /"),
    ("tanh", "elementwise", "x, /"),
    ("trunc", "elementwise", "x, /"),
    # indexing
    ("take", "indexing", "x, indices, /, *, axis=None"),
    ("take_along_axis", "indexing", "x, indices, /, *, axis=-1"),
    # linear_algebra
    ("matmul", "linear_algebra", "x1, x2, /"),
    ("matrix_transpose", "linear_algebra", "x, /"),
    ("tensordot", "linear_algebra", "x1, x2, /, *, axes=2"),
    ("vecdot", "linear_algebra", "x1, x2, /, *, axis=-1"),
    # manipulation
    ("broadcast_arrays", "manipulation", "*arrays"),
    ("broadcast_shapes", "manipulation", "*shapes"),
    ("broadcast_to", "manipulation", "x, /, shape"),
    ("concat", "manipulation", "arrays, /, *, axis=0"),
    ("expand_dims", "manipulation", "x, /, axis"),
    ("flip", "manipulation", "x, /, *, axis=None"),
    ("moveaxis", "manipulation", "x, source, destination, /"),
    ("permute_dims", "manipulation", "x, /, axes"),
    ("repeat", "manipulation", "x, repeats, /, *, axis=None"),
    ("reshape", "manipulation", "x, /, shape, *, copy=None"),
    ("roll", "manipulation", "x, /, shift, *, axis=None"),
    ("squeeze", "manipulation", "x, /, axis"),
    ("stack", "manipulation", "arrays, /, *, axis=0"),
    ("tile", "manipulation", "x, repetitions, /"),
    ("unstack", "manipulation", "x, /, *, axis=0"),
    # searching
    ("argmax", "searching", "x, /, *, axis=None, keepdims=False"),
    ("argmin", "searching", "x, /, *, axis=None, keepdims=False"),
    ("count_nonzero", "searching", "x, /, *, axis=None, keepdims=False"),
    ("nonzero", "searching", "x, /"),
    ("searchsorted", "searching", "x1, x2, /, *, side='left', sorter=None"),
    ("where", "searching", "condition, x1, x2, /"),
    # set
    ("isin", "set", "x1, x2, /, *, invert=False"),
    ("unique_all", "set", "x, /"),
    ("unique_counts", "set", "x, /"),
    ("unique_inverse", "set", "x, /"),
    ("unique_values", "set", "x, /"),
    # sorting
    ("argsort", "sorting", "x, /, *, axis=-1, descending=False, stable=True"),
    ("sort", "sorting", "x, /, *, axis=-1, descending=False, stable=True"),
    # statistical
    ("cumulative_sum", "statistical",
     "x, /, *,"
     " axis=None, dtype=None, include_initial=False"),
    ("cumulative_prod", "statistical",
     "x, /, *,"
     " axis=None, dtype=None, include_initial=False"),
    ("max", "statistical", "x, /, *, axis=None, keepdims=False"),
    ("mean", "statistical", "x, /, *, axis=None, keepdims=False"),
    ("min", "statistical", "x, /, *, axis=None, keepdims=False"),
    ("prod", "statistical", "x, /, *, axis=None, dtype=None, keepdims=False"),
    ("std", "statistical", "x, /, *, axis=None, correction=0.0, keepdims=False"),
    ("sum", "statistical", "x, /, *, axis=None, dtype=None, keepdims=False"),
    ("var", "statistical", "x, /, *, axis=None, correction=0.0, keepdims=False"),
    # utility
    ("all", "utility", "x, /, *, axis=None, keepdims=False"),
    ("any", "utility", "x, /, *, axis=None, keepdims=False"),
    ("diff", "utility", "x, /, *, axis=-1, n=1, prepend=None, append=None"),
    # linalg
    ("cholesky", "linalg", "x, /, *, upper=False"),
    ("cross", "linalg", "x1, x2, /, *, axis=-1"),
    ("det", "linalg", "x, /"),
    ("diagonal", "linalg", "x, /, *, offset=0"),
    ("eig", "linalg", "x, /"),
    ("eigh", "linalg", "x, /"),
    ("eigvals", "linalg", "x, /"),
    ("eigvalsh", "linalg", "x, /"),
    ("inv", "linalg", "x, /"),
    ("matmul", "linalg", "x1, x2, /"),
    ("matrix_norm", "linalg", "x, /, *, keepdims=False, ord='fro'"),
    ("matrix_power", "linalg", "x, n, /"),
    ("matrix_rank", "linalg", "x, /, *, rtol=None"),
    ("matrix_transpose", "linalg", "x, /"),
    ("outer", "linalg", "x1, x2, /"),
    ("pinv", "linalg", "x, /, *, rtol=None"),
    ("qr", "linalg", "x, /, *, mode='reduced'"),
    ("slogdet", "linalg", "x, /"),
    ("solve", "linalg", "x1, x2, /"),
    ("svd", "linalg", "x, /, *, full_matrices=True"),
    ("svdvals", "linalg", "x, /"),
    ("tensordot", "linalg", "x1, x2, /, *, axes=2"),
    ("trace", "linalg", "x, /, *, offset=0, dtype=None"),
    ("vecdot", "linalg", "x1, x2, /, *, axis=-1"),
    ("vector_norm", "linalg", "x, /, *, axis=None, keepdims=False, ord=2"),
    # fft
    ("fft", "fft", "x, /, *, n=None, axis=-1, norm='backward'"),
    ("ifft", "fft", "x, /, *, n=None, axis=-1, norm='backward'"),
    ("fftn", "fft", "x, /, *, s=None, axes=None, norm='backward'"),
    ("ifftn", "fft", "x, /, *, s=None, axes=None, norm='backward'"),
    ("rfft", "fft", "x, /, *, n=None, axis=-1, norm='backward'"),
    ("irfft", "fft", "x, /, *, n=None, axis=-1, norm='backward'"),
    ("rfftn", "fft", "x, /, *, s=None, axes=None, norm='backward'"),
    ("irfftn", "fft", "x, /, *, s=None, axes=None, norm='backward'"),
    ("hfft", "fft", "x, /, *, n=None, axis=-1, norm='backward'"),
    ("ihfft", "fft", "x, /, *, n=None, axis=-1, norm='backward'"),
    ("fftfreq", "fft", "n, /, *, d=1.0, dtype=None, device=None"),
    ("rfftfreq", "fft", "n, /, *, d=1.0, dtype=None, device=None"),
    ("fftshift", "fft", "x, /, *, axes=None"),
    ("ifftshift", "fft", "x, /, *, axes=None"),
))

# Functions returning the standard's named tuples: the field names.
NAMED_RESULTS: Final = {
    "unique_all": ("values", "indices", "inverse_indices", "counts"),
    "unique_counts": ("values", "counts"),
    "unique_inverse": ("values", "inverse_indices"),
    "linalg.eig": ("eigenvalues", "eigenvectors"),
    "linalg.eigh": ("eigenvalues", "eigenvectors"),
    "linalg.qr": ("Q", "R"),
    "linalg.slogdet": ("sign", "logabsdet"),
    "linalg.svd": ("U", "S", "Vh"),
}

# Creation functions whose Python numbers become the result's elements: the
# parameters (a Python int among them must fit the result's integer dtype).
ELEMENT_ARGUMENTS: Final = {"arange": ("start", "stop", "step"),
                            "full": ("fill_value",), "full_like": ("fill_value",)}

# Functions whose Python scalars stand for arrays of their array operand's dtype
# (the standard's mixing of arrays and scalars; 2025.12 added isin and searchsorted's
# scalars and spelled out clip's): the parameters (a Python int among them must fit
# that dtype, as an elementwise operand must).
SCALAR_ARGUMENTS: Final = {"clip": ("min", "max"), "isin": ("x1", "x2"),
                           "searchsorted": ("x2",), "diff": ("prepend", "append"),
                           "where": ("x1", "x2")}

GROUPS: Final = tuple(dict.fromkeys(f.group for f in FUNCTIONS))


def group(name: str) -> tuple[Function, ...]:
    """The rows of one group, in the standard's order."""
    return tuple(f for f in FUNCTIONS if f.group == name)
