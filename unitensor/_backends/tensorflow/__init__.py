"""TensorFlow: immutable eager tensors."""

NAME = "tensorflow"
MODULES = ("tensorflow",)  # top-level modules whose types belong to tensorflow
IMMUTABLE = True  # writes rebind the Tensor to an updated array
INSTALL = "tensorflow-cpu"  # what to install for it
