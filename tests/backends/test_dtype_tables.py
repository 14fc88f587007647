"""The frameworks' dtype tables onto unitensor's one table
(unitensor/_backends/_dtype_tables.py)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from unitensor._backends._dtype_tables import dtype_in, numpy_dtype_table
from unitensor._dtypes import DTYPES


def test_numpy_s_table_maps_onto_the_rows_of_the_one_table():
    table = numpy_dtype_table(np)
    for name, row in DTYPES.items():
        if name != "bfloat16":
            assert table[np.dtype(name)] is row  # the row itself, never a copy
    has_bfloat16 = importlib.util.find_spec("ml_dtypes") is not None
    assert (DTYPES["bfloat16"] in table.values()) == has_bfloat16


def test_a_dtype_missing_from_a_framework_s_table_is_refused_naming_it():
    table = numpy_dtype_table(np)
    assert dtype_in(table, np.dtype("int16"), "numpy") is DTYPES["int16"]
    with pytest.raises(TypeError, match=r"^asarray\(\): obj: expected an array of "
                       r"one of bool, .*, got numpy dtype <U3$"):
        dtype_in(table, np.dtype("<U3"), "numpy")
