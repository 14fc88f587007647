"""The public API's docstrings (STYLE: numpy style on public names).

Written by hand: numpydoc form, a one-line summary, then a ``Parameters`` section
naming every parameter in order and a ``Returns`` section where something is
returned. Generated from the standard's table: a summary and a link to the
function's page of the standard. Ruff's D rules check the form of every docstring
in unitensor/; these tests check what ruff cannot: that each public name has one
and that its sections match its signature.
"""

from __future__ import annotations

import inspect
import re

import pytest

import unitensor as ut
from unitensor._standard import API_VERSION, FUNCTIONS

STANDARD_PAGE = ("https://data-apis.org/array-api/{version}/API_specification/"
                 "generated/array_api.{name}.html")
GENERATED = {("" if row.group not in ("linalg", "fft") else row.group + ".") + row.name
             for row in FUNCTIONS}


def public_functions() -> dict[str, object]:
    """Every public function of the namespace, by qualified name ('linalg.qr')."""
    found = {}
    for prefix, module in (("", ut), ("linalg.", ut.linalg), ("fft.", ut.fft),
                           ("memory.", ut.memory)):
        for name in module.__all__:
            obj = getattr(module, name)
            if callable(obj) and not isinstance(obj, type):
                found[prefix + name] = obj
    return found


def is_generated(qualified: str, func: object) -> bool:
    """Made by _dispatch from the table (hand-written ones live in private modules)."""
    return qualified in GENERATED and getattr(func, "__module__", "") in (
        "unitensor", "unitensor.linalg", "unitensor.fft")


FUNCTIONS_BY_NAME = public_functions()
HAND_WRITTEN = sorted(q for q, f in FUNCTIONS_BY_NAME.items() if not is_generated(q, f))
MADE_FROM_TABLE = sorted(q for q, f in FUNCTIONS_BY_NAME.items() if is_generated(q, f))
CLASSES = [ut.Tensor, ut.DType, ut.Device, ut.CopyWarning,
           type(ut.__array_namespace_info__()), ut.memory.MemoryStats,
           ut.memory.Flushed, ut.memory.TooLateError, ut.memory.TooLateWarning]
# The Tensor's methods of the standard that are not operators.
STANDARD_METHODS = ("__array_namespace__", "__dlpack__", "__dlpack_device__")


def sections(doc: str) -> dict[str, list[str]]:
    """The docstring's numpydoc sections: header -> its lines ('' -> the summary
    and extended description)."""
    lines = inspect.cleandoc(doc).splitlines()
    found: dict[str, list[str]] = {"": []}
    current = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        following = lines[i + 1] if i + 1 < len(lines) else ""
        if line and following == "-" * len(line):
            current = line
            found[current] = []
            i += 2
            continue
        found[current].append(line)
        i += 1
    return found


def entry_names(lines: list[str]) -> list[str]:
    """The names a Parameters (or Attributes) section documents, in order."""
    names = []
    for line in lines:
        match = re.match(r"^(\*{0,2}\w+(?:,\s*\*{0,2}\w+)*)(\s*:.*)?$", line)
        if match and not line.startswith(" "):
            names.extend(n.strip() for n in match.group(1).split(","))
    return names


def check_summary(what: str, doc: str | None) -> list[str]:
    if not doc or not doc.strip():
        return [f"{what}: no docstring"]
    lines = inspect.cleandoc(doc).splitlines()
    problems = []
    if not lines[0].endswith("."):
        problems.append(f"{what}: the summary is not one line ending with '.'")
    if len(lines) > 1 and lines[1]:
        problems.append(f"{what}: no blank line after the one-line summary")
    return problems


def check_numpydoc(what: str, func: object) -> list[str]:
    doc = inspect.getdoc(func)
    problems = check_summary(what, doc)
    if problems:
        return problems
    assert doc is not None
    parts = sections(doc)
    params = [("*" if p.kind is p.VAR_POSITIONAL else "**" if p.kind is p.VAR_KEYWORD
               else "") + p.name
              for p in inspect.signature(func).parameters.values()
              if p.name not in ("self", "cls")]
    documented = entry_names(parts.get("Parameters", []))
    if documented != params:
        problems.append(f"{what}: Parameters documents {documented}, the signature "
                        f"has {params}")
    returns = inspect.signature(func).return_annotation
    if returns not in (None, "None") and "Returns" not in parts and \
            "Yields" not in parts:
        problems.append(f"{what}: no Returns section")
    return problems


@pytest.mark.parametrize("name", HAND_WRITTEN)
def test_hand_written_functions_have_numpydoc_docstrings(name):
    assert check_numpydoc(name, FUNCTIONS_BY_NAME[name]) == []


@pytest.mark.parametrize("name", MADE_FROM_TABLE)
def test_generated_functions_link_their_page_of_the_standard(name):
    doc = FUNCTIONS_BY_NAME[name].__doc__
    assert check_summary(name, doc) == []
    assert STANDARD_PAGE.format(version=API_VERSION, name=name) in doc


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_public_classes_document_every_public_member(cls):
    problems = check_summary(cls.__name__, cls.__doc__)
    attributes = entry_names(sections(cls.__doc__ or "").get("Attributes", []))
    names = sorted(n for n in vars(cls) if not n.startswith("_"))
    names += [n for n in STANDARD_METHODS if n in vars(cls)]
    for base in cls.__mro__[1:]:  # members the C base defines, e.g. the Tensor's
        if base.__module__.startswith("unitensor"):
            names += [n for n in vars(base) if not n.startswith("_") and n not in names]
    for name in names:
        member = inspect.getattr_static(cls, name)
        what = f"{cls.__name__}.{name}"
        if isinstance(member, (classmethod, staticmethod)):
            member = member.__func__
        if inspect.isfunction(member) or hasattr(member, "__wrapped__"):
            problems += check_numpydoc(what, getattr(cls, name))
        elif name not in attributes:
            problems += check_summary(what, getattr(member, "__doc__", None)
                                      if isinstance(member, property) else None)
    assert problems == []


def test_the_checks_catch_what_they_are_for():
    def undocumented(x, /, *, axis=None) -> None:
        """Sum it.

        Parameters
        ----------
        x : Tensor
            The array.
        """

    assert check_numpydoc("f", undocumented) == [
        "f: Parameters documents ['x'], the signature has ['x', 'axis']"]
    assert check_summary("g", "Two lines\nof summary.") != []
    assert entry_names(["x, y : int", "    text", "**kwargs"]) == ["x", "y", "**kwargs"]
