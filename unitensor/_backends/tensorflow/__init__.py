"""TensorFlow: immutable eager tensors."""

NAME = "tensorflow"
MODULES = ("tensorflow",)  # top-level modules whose types belong to tensorflow
INSTALL = "tensorflow-cpu"  # what to install for it
