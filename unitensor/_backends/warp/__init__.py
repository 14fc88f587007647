"""NVIDIA Warp: arrays for its kernels (CPU and CUDA), no Array API namespace."""

NAME = "warp"
MODULES = ("warp",)  # top-level modules whose types belong to it (warp._src.types)
INSTALL = "warp-lang"  # what to install for it
