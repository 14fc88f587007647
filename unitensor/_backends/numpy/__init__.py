"""numpy: always installed; the default owner and the natural owner of CPU memory."""

NAME = "numpy"
MODULES = ("numpy",)  # top-level modules whose types belong to numpy
INSTALL = "numpy"  # what to install for it
SCALARS_IN_DEFAULTS = True  # int32 * 0.5 is float64, numpy's default (NEP 50)
