"""array-api-strict: the standard's reference namespace (numpy memory inside)."""

NAME = "array_api_strict"
MODULES = ("array_api_strict",)  # top-level modules whose types belong to it
INSTALL = "array-api-strict"  # what to install for it
