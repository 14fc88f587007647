"""PyTorch: CPU and CUDA tensors."""

NAME = "torch"
MODULES = ("torch",)  # top-level modules whose types belong to torch
INSTALL = "torch"  # what to install for it
NEGATIVE_STRIDES = False  # flip and x[::-1] copy: views of their base (_views.py)
