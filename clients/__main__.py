"""Run real clients' own test suites on array_api_strict and on unitensor's owners.

    python -m clients [--suites scikit-learn,array-api-extra]
                      [--owners numpy,torch,jax,tensorflow,dask] [--sample K/N]
                      [--write docs/conformance.md] [--failures FILE]

Per suite: one run on array_api_strict (the reference, kept in the cache and shared
by every owner's run), then one per owner with unitensor as the namespace
(``UNITENSOR_DEFAULT_OWNER`` set, JAX with x64), each in fresh processes. A process
that dies (a crash in a framework's kernel) or hangs past ``--timeout`` is recorded
against the test it was running and the run resumes after it, so one test cannot end
the tier. The result per suite and owner is ``passed / reference``: of the tests that
pass on array_api_strict, how many pass on the owner. ``--sample K/N`` keeps a fixed
subset (the tests whose id hashes to K modulo N), the same on every run. Exit
status: non-zero when a test that passes on the reference fails on an owner for a
cause docs/conformance.md's known failures do not give (a row names a part of the
failure's message).
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import re
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
SUITES = ("scikit-learn", "array-api-extra")
# scikit-learn takes no lazy arrays (it reads shapes and values eagerly); dask runs
# array-api-extra's suite, which marks what lazy backends cannot do for its own dask.
OWNERS = {"scikit-learn": ("numpy", "torch", "jax", "tensorflow"),
          "array-api-extra": ("numpy", "torch", "jax", "tensorflow", "dask")}
CACHE = Path(os.environ.get("UNITENSOR_CLIENTS_CACHE",
                            Path.home() / ".cache" / "unitensor-clients"))
BEGIN, END = "<!-- clients:begin -->", "<!-- clients:end -->"
KNOWN_BEGIN, KNOWN_END = "<!-- clients-known:begin -->", "<!-- clients-known:end -->"
DOC = ROOT / "docs" / "conformance.md"
# pytest's exit codes for a run that finished: all passed, some failed, none collected
FINISHED = (0, 1, 5)
PASSED = ("passed", "xpassed")


def array_api_extra_tests() -> tuple[Path, str]:
    """array-api-extra's tests from its source distribution at the installed version.

    Fetched from PyPI's simple index (the file's sha256 checked) into CACHE once.
    ``pip download --no-binary`` would build the package's metadata first (with
    meson-python), which takes minutes and a compiler for nothing the tests need.
    """
    version = importlib.metadata.version("array-api-extra")
    root = CACHE / f"array_api_extra-{version}"
    if not (root / "tests" / "main").is_dir():
        CACHE.mkdir(parents=True, exist_ok=True)
        index = os.environ.get("UNITENSOR_CLIENTS_INDEX", "https://pypi.org/simple")
        page = urllib.request.urlopen(f"{index}/array-api-extra/", timeout=60)
        html = page.read().decode()
        name = f"array_api_extra-{version}.tar.gz"
        match = re.search(rf'href="([^"]*/{re.escape(name)})#sha256=([0-9a-f]+)"', html)
        if match is None:
            raise SystemExit(f"clients: {name} is not on {index}")
        url, digest = match.groups()
        data = urllib.request.urlopen(url, timeout=120).read()
        if hashlib.sha256(data).hexdigest() != digest:
            raise SystemExit(f"clients: {name}: sha256 differs from the index's")
        with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
            archive = Path(tmp) / name
            archive.write_bytes(data)
            with tarfile.open(archive) as tar:
                tar.extractall(tmp, filter="data")
            os.replace(Path(tmp) / root.name, root)
    return root, version


def scikit_learn_tests() -> tuple[Path, list[str], str]:
    """The test modules of the installed scikit-learn that take a namespace."""
    spec = importlib.util.find_spec("sklearn")
    assert spec is not None
    assert spec.submodule_search_locations is not None
    package = Path(spec.submodule_search_locations[0])
    files = sorted(
        str(path) for path in package.rglob("tests/test_*.py")
        if "yield_namespace" in path.read_text(encoding="utf-8"))
    return package.parent, files, importlib.metadata.version("scikit-learn")


def run_one(suite: str, namespace: str, owner: str, sample: str, timeout: float,
            only: set[str] | None = None) -> dict[str, tuple[str, str]]:
    """{test id: (outcome, message)} for one suite on one namespace and owner.

    ``only``: the test modules to collect (relative to the suite's root), where the
    reference run found tests: collecting scikit-learn's 30-odd modules costs
    about as much as running a sample of their tests.
    """
    if suite == "scikit-learn":
        cwd, files, _ = scikit_learn_tests()
        if only is not None:
            files = sorted(only)
        # The installed package has no pytest configuration of its own; an empty one
        # keeps pytest from taking a configuration file of a directory above it.
        config = CACHE / "scikit-learn-pytest.ini"
        CACHE.mkdir(parents=True, exist_ok=True)
        config.write_text("[pytest]\n")
        args = ["-c", str(config), f"--rootdir={cwd}", *files, "-k", "array_api"]
    else:
        cwd, _ = array_api_extra_tests()
        args = sorted(only) if only is not None else ["tests/main"]
    return run_pytest(cwd, args, suite, namespace, owner, sample, timeout)


def run_pytest(cwd: Path, args: list[str], suite: str, namespace: str, owner: str,
               sample: str, timeout: float) -> dict[str, tuple[str, str]]:
    """Run pytest with the plugin until every chosen test has an outcome.

    A run that ends without finishing (a signal, an abort), or whose test has run
    for ``timeout`` seconds (it is killed then), is charged to the test it had
    started ("crashed"), and the next run leaves out every test that has an outcome.
    The clock runs only inside a test: collecting a large suite on a loaded machine
    takes minutes and is no hang.
    """
    results: dict[str, tuple[str, str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        log, done = Path(tmp) / "log.jsonl", Path(tmp) / "done.txt"
        output = Path(tmp) / "output.txt"
        done.touch()
        # JAX compiles every new shape of every operation (most of the jax owner's
        # time): its persistent cache, in CACHE, makes a second run cheaper.
        env = {"JAX_COMPILATION_CACHE_DIR": str(CACHE / "jax"),
               "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
               "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0",
               **os.environ, "UNITENSOR_CLIENTS_SUITE": suite,
               "UNITENSOR_CLIENTS_NAMESPACE": namespace,
               "UNITENSOR_DEFAULT_OWNER": owner, "JAX_ENABLE_X64": "1",
               "SCIPY_ARRAY_API": "1", "UNITENSOR_CLIENTS_LOG": str(log),
               "UNITENSOR_CLIENTS_DONE": str(done), "UNITENSOR_CLIENTS_SAMPLE": sample,
               "PYTHONPATH": os.pathsep.join(
                   [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                   "-p", "clients.plugin", *args]
        while True:
            log.write_text("")
            with open(output, "w") as out:
                code, why = watch(subprocess.Popen(
                    command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT),
                    log, timeout)
            running = None
            for line in log.read_text().splitlines():
                record = json.loads(line)
                if "start" in record:
                    running = record["start"]
                else:
                    results[record["id"]] = (record["outcome"], record["message"])
                    running = None
            if code in FINISHED:
                break
            if running is None:
                # ended outside a test (collection, an import): nothing to resume
                tail = output.read_text(errors="replace").strip().splitlines()[-3:]
                results[f"<{suite} on {namespace}/{owner}>"] = (
                    "crashed", " / ".join([why, *tail]))
                break
            results[running] = ("crashed", why)
            done.write_text("".join(f"{test_id}\n" for test_id in results))
    return results


def watch(process: subprocess.Popen, log: Path,
          timeout: float) -> tuple[int | None, str]:
    """Wait for ``process``; kill it when one test has run ``timeout`` seconds.

    The plugin's log ends with a "start" record while a test runs.
    """
    size, since = 0, time.monotonic()
    while process.poll() is None:
        time.sleep(0.2)
        now, grown = time.monotonic(), log.stat().st_size
        if grown != size:
            size, since = grown, now
        elif size and now - since > timeout and \
                '"start"' in log.read_text().splitlines()[-1]:
            process.kill()
            process.wait()
            return None, f"no result within {timeout:.0f} s"
    return process.returncode, f"process ended with status {process.returncode}"


def known_failures(doc: Path = DOC) -> list[tuple[str, set[str], str, str]]:
    """docs/conformance.md's known failures: (suite, owners, message part, cause).

    A row names a failure by a part of its message (the first line of the
    exception, or "process ended with status -6" for an abort), so one row covers
    every test that one cause breaks, on the owners it names ("all": every owner).
    """
    text = doc.read_text()
    if KNOWN_BEGIN not in text:
        return []
    table = text.partition(KNOWN_BEGIN)[2].partition(KNOWN_END)[0]
    rows = []
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or cells[0] in ("suite", "---"):
            continue
        suite, owners, message, cause = cells
        rows.append((suite, {o.strip() for o in owners.split(",")},
                     message.strip("`"), cause))
    return rows


def explained(suite: str, owner: str, message: str,
              known: list[tuple[str, set[str], str, str]]) -> str | None:
    """The cause docs/conformance.md gives for this failure, if any."""
    for row_suite, owners, part, cause in known:
        if row_suite == suite and (owner in owners or "all" in owners) \
                and part in message:
            return cause
    return None


def reference(suite: str, sample: str, timeout: float) -> dict[str, tuple[str, str]]:
    """The suite's outcomes on array_api_strict, run once per version and sample.

    Kept in CACHE under a name made of the suite's, array_api_strict's and the
    plugin's versions (the plugin's text hashed), so the runs of several owners, in
    one process or in several pytest workers, share one reference run; a lock lets
    the first make it while the others wait.
    """
    plugin = (ROOT / "clients" / "plugin.py").read_bytes()
    key = hashlib.sha256(b"\0".join([
        suite.encode(), importlib.metadata.version(suite).encode(),
        importlib.metadata.version("array-api-strict").encode(), sample.encode(),
        plugin])).hexdigest()[:16]
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"reference-{suite}-{key}.json"
    with open(CACHE / f"reference-{suite}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if path.exists():
            return {t: (o, m) for t, (o, m) in json.loads(path.read_text()).items()}
        got = run_one(suite, "array_api_strict", "numpy", sample, timeout)
        path.write_text(json.dumps(got))
        return got


class Comparison(NamedTuple):
    """One suite on one owner against the reference."""

    suite: str
    version: str
    owner: str
    passing: set[str]                       # ids that pass on the reference
    got: dict[str, tuple[str, str]]          # the owner's outcomes
    failed: dict[str, tuple[str, str]]       # passing ids that do not pass here
    crashes: int                             # tests that killed their process


def compare(suite: str, owner: str, sample: str = "",
            timeout: float = 1800) -> Comparison:
    """Run ``suite`` on unitensor with ``owner`` and compare with the reference."""
    passing = {t for t, (outcome, _) in reference(suite, sample, timeout).items()
               if outcome in PASSED}
    # only the modules where the reference passed something are collected
    modules = {t.partition("::")[0] for t in passing}
    got = run_one(suite, "unitensor", owner, sample, timeout,
                  only=modules) if passing else {}
    failed = {t: got.get(t, ("missing", "")) for t in sorted(passing)
              if got.get(t, ("missing", ""))[0] not in PASSED}
    crashes = sum(outcome == "crashed" for outcome, _ in got.values())
    return Comparison(suite, importlib.metadata.version(suite), owner, passing, got,
                      failed, crashes)


def unexplained(comparison: Comparison, doc: Path = DOC) -> dict[str, str]:
    """{test id: outcome and message} of the failures docs/conformance.md's known
    failures do not explain."""
    known = known_failures(doc)
    return {test_id: f"{outcome}: {message}"
            for test_id, (outcome, message) in comparison.failed.items()
            if explained(comparison.suite, comparison.owner, message, known) is None}


def children_cpu() -> float:
    """CPU seconds of the finished child processes: a run's cost on a machine that
    other work shares, where its wall time says little."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m clients", description=__doc__,
                                     formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--suites", default=",".join(SUITES))
    parser.add_argument("--owners", default="")
    parser.add_argument("--sample", default="", help="K/N: a fixed subset")
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--write", type=Path, help="update the table in this file")
    parser.add_argument("--failures", type=Path,
                        help="write each failing test and its message here (JSON)")
    options = parser.parse_args(argv)
    rows, failures, count = [], {}, 0
    known = known_failures()
    for suite in options.suites.split(","):
        owners = options.owners.split(",") if options.owners else OWNERS[suite]
        for owner in owners:
            if owner not in OWNERS[suite]:
                continue
            start, cpu = time.monotonic(), children_cpu()
            result = compare(suite, owner, options.sample, options.timeout)
            passed = len(result.passing) - len(result.failed)
            failures[f"{suite} {owner}"] = result.failed
            rows.append((suite, result.version, owner, passed, len(result.passing),
                         result.crashes))
            print(f"{suite} {result.version} {owner}: {passed} / "
                  f"{len(result.passing)}"
                  + (f", {result.crashes} process deaths" if result.crashes else "")
                  + f" ({time.monotonic() - start:.0f} s, "
                  f"{children_cpu() - cpu:.0f} s of CPU)", flush=True)
            for test_id, (outcome, message) in result.failed.items():
                cause = explained(suite, owner, message, known)
                count += cause is None
                print(f"    {outcome}: {test_id}: {message}"
                      + (f" [known: {cause}]" if cause else ""), flush=True)
    if options.failures:
        options.failures.write_text(json.dumps(failures, indent=1))
    if options.write:
        write_table(options.write, rows, options.sample)
    if count:
        print(f"clients: {count} failures that docs/conformance.md does not explain",
              flush=True)
    return 1 if count else 0


def write_table(path: Path, rows: list[tuple], sample: str) -> None:
    scope = (f"the fixed subset `--sample {sample}`" if sample else "every test")
    lines = [BEGIN, f"Real clients' own suites, {scope} (`python -m clients"
             + (f" --sample {sample}" if sample else "") + "`):", "",
             "| suite | version | owner | passed / reference | process deaths |",
             "| --- | --- | --- | --- | --- |"]
    lines += [f"| {suite} | {version} | {owner} | {passed} / {reference} | {crashes} |"
              for suite, version, owner, passed, reference, crashes in rows]
    lines.append(END)
    text = path.read_text()
    if BEGIN in text:
        head, _, rest = text.partition(BEGIN)
        text = head + "\n".join(lines) + rest.partition(END)[2]
    else:
        text = text.rstrip("\n") + "\n\n" + "\n".join(lines) + "\n"
    path.write_text(text)


if __name__ == "__main__":
    sys.exit(main())
