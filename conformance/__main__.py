"""Run the conformance suite for each owner and print (or write) the results.

    python -m conformance [--owners numpy,torch,jax,tensorflow,array_api_strict]
                          [--examples N] [--write docs/conformance.md]
                          [--official PATH]

Each owner runs in its own process (``UNITENSOR_DEFAULT_OWNER`` set, JAX with
x64 on), so a whole run is exactly what a user's program on that owner sees.
``--official PATH`` also runs the data-apis/array-api-tests suite from a checkout
at PATH (with its ``array-api`` submodule) against ``unitensor``, per owner.
Exit status: non-zero if any test of the project's own suite failed.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from pathlib import Path

from unitensor._standard import API_VERSION  # the table: imports no framework

ROOT = Path(__file__).resolve().parent.parent
# The owners a plain run checks (CI's tests/test_conformance.py among them).
OWNERS = ("numpy", "torch", "jax", "tensorflow", "dask", "array_api_strict")
BEGIN, END = "<!-- conformance:begin -->", "<!-- conformance:end -->"


def run_pytest(args: list[str], owner: str, env_extra: dict[str, str],
               cwd: Path) -> dict[tuple[str, str], str]:
    """{(group, test): 'passed' | 'failed' | 'skipped' | 'xfailed'} for one run."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.xml"
        env = {**os.environ, "UNITENSOR_DEFAULT_OWNER": owner, "JAX_ENABLE_X64": "1",
               "PYTHONPATH": str(ROOT), **env_extra}
        run = subprocess.run([sys.executable, "-m", "pytest", *args, "-q", "-p",
                              "no:cacheprovider", f"--junitxml={report}"],
                             cwd=cwd, env=env, capture_output=True, text=True,
                             check=False)
        if not report.exists():
            # pytest stopped before running a test (a missing plugin, a broken
            # conftest): its own last lines say why
            tail = "\n".join((run.stdout + run.stderr).splitlines()[-15:])
            raise SystemExit(f"conformance: pytest produced no report for {owner} "
                             f"(exit status {run.returncode}):\n{tail}")
        return parse(report)


def parse(report: Path) -> dict[tuple[str, str], str]:
    outcomes = {}
    for case in ET.parse(report).iter("testcase"):
        group = case.get("classname", "").rpartition(".")[2].removeprefix("test_")
        name = case.get("name", "")
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed"
            elif child.tag == "skipped":
                outcome = ("xfailed" if "xfail" in (child.get("type", "") +
                                                    child.get("message", ""))
                           else "skipped")
        outcomes[(group, name)] = outcome
    return outcomes


def own_suite(owners: list[str], examples: int) -> dict[str, dict]:
    env = {"CONFORMANCE_EXAMPLES": str(examples)}
    results = {}
    for owner in owners:
        print(f"running the conformance suite on {owner} ...", flush=True)
        results[owner] = run_pytest(["conformance"], owner, env, ROOT)
    return results


def official_suite(path: Path, owners: list[str], examples: int) -> dict[str, dict]:
    # the suite tests the version the namespace says it implements
    env = {"ARRAY_API_TESTS_MODULE": "unitensor",
           "ARRAY_API_TESTS_VERSION": API_VERSION}
    results = {}
    for owner in owners:
        print(f"running data-apis/array-api-tests on {owner} ...", flush=True)
        results[owner] = run_pytest(
            ["array_api_tests", "--max-examples", str(examples),
             "--hypothesis-disable-deadline"], owner, env, path)
    return results


def group_table(results: dict[str, dict]) -> list[str]:
    groups = sorted({g for r in results.values() for g, _ in r})
    lines = ["| group | " + " | ".join(results) + " |",
             "| --- |" + " --- |" * len(results)]
    for group in groups:
        cells = []
        for outcomes in results.values():
            counts = Counter(o for (g, _), o in outcomes.items() if g == group)
            cells.append(_cell(counts))
        lines.append(f"| {group} | " + " | ".join(cells) + " |")
    totals = [_cell(Counter(r.values())) for r in results.values()]
    lines.append("| **all** | " + " | ".join(totals) + " |")
    return lines


def _cell(counts: Counter) -> str:
    text = f"{counts['passed']} passed"
    for outcome in ("failed", "xfailed", "skipped"):
        if counts[outcome]:
            text += f", {counts[outcome]} {outcome}"
    return text


def function_table(results: dict[str, dict]) -> list[str]:
    """One row per test (a function, an operator, an indexing form), per owner."""
    rows: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)
    for owner, outcomes in results.items():
        for (group, name), outcome in outcomes.items():
            rows[(group, name)][owner] = outcome
    marks = {"passed": "✓", "failed": "✗ fails", "xfailed": "xfail",
             "skipped": "skipped"}
    lines = ["| group | test | " + " | ".join(results) + " |",
             "| --- | --- |" + " --- |" * len(results)]
    for (group, name), by_owner in sorted(rows.items()):
        label = name.partition("[")[2].rstrip("]") or name
        lines.append(f"| {group} | `{label}` | " + " | ".join(
            marks[by_owner.get(o, "skipped")] for o in results) + " |")
    return lines


def official_summary(results: dict[str, dict]) -> list[str]:
    lines = ["| owner | passed | failed | skipped | failing tests |",
             "| --- | --- | --- | --- | --- |"]
    for owner, outcomes in results.items():
        counts = Counter(outcomes.values())
        failing = sorted(name for (_, name), o in outcomes.items() if o == "failed")
        shown = ", ".join(f"`{n}`" for n in failing[:12])
        more = f" and {len(failing) - 12} more" if len(failing) > 12 else ""
        lines.append(f"| {owner} | {counts['passed']} | {counts['failed']} | "
                     f"{counts['skipped']} | {shown}{more} |")
    return lines


def write(path: Path, text: str) -> None:
    """Replace the generated part of ``path`` (between the markers), keep the rest."""
    page = path.read_text() if path.exists() else f"{BEGIN}\n{END}\n"
    head, _, rest = page.partition(BEGIN)
    _, _, tail = rest.partition(END)
    path.write_text(f"{head}{BEGIN}\n{text}{END}{tail}")


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m conformance",
        description="The project's Array API conformance suite (property-based, "
        "differential against array-api-strict), once per owner, each in its own "
        "process; optionally the official data-apis suite too. Run it from the "
        "repository's root: the suite is a folder there, not part of the package.")
    parser.add_argument("--owners", default=",".join(
        o for o in OWNERS if importlib.util.find_spec(o) is not None),
        help="comma-separated owners to run (default: every installed one of "
        f"{','.join(OWNERS)})")
    parser.add_argument("--examples", type=int, default=20,
                        help="hypothesis examples per test (default: 20)")
    parser.add_argument("--write", type=Path, metavar="FILE",
                        help="also write the results table into FILE "
                        "(docs/conformance.md)")
    parser.add_argument("--official", type=Path, metavar="PATH",
                        help="also run data-apis/array-api-tests from a checkout "
                        "at PATH (with its array-api submodule), per owner")
    args = parser.parse_args()
    owners = [o for o in args.owners.split(",") if o]
    results = own_suite(owners, args.examples)
    lines = [f"Own suite, {args.examples} examples per test (`python -m conformance "
             f"--examples {args.examples}`):", "", *group_table(results), ""]
    if args.official is not None:
        official = official_suite(args.official, owners, args.examples)
        lines += [f"data-apis/array-api-tests at {API_VERSION}, {args.examples} "
                  "examples per test:",
                  "", *official_summary(official), ""]
    print("\n" + "\n".join(lines))
    if args.write is not None:
        write(args.write, "\n".join([*lines, "Every test of the own suite, per owner:",
                                     "", *function_table(results), ""]))
    failed = sum(o == "failed" for r in results.values() for o in r.values())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
