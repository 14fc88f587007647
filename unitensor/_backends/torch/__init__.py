"""PyTorch: CPU and CUDA tensors."""

NAME = "torch"
MODULES = ("torch",)  # top-level modules whose types belong to torch
INSTALL = "torch"  # what to install for it
