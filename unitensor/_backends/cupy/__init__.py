"""CuPy: CUDA arrays."""

NAME = "cupy"
MODULES = ("cupy",)  # top-level modules whose types belong to cupy
INSTALL = "cupy-cuda12x"  # what to install for it
