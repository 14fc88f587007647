"""numpy: always installed; the default owner and the natural owner of CPU memory."""

NAME = "numpy"
MODULES = ("numpy",)  # top-level modules whose types belong to numpy
INSTALL = "numpy"  # what to install for it
