"""The project's own promises: README commands, CI, docs build, lint, main job."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    block = re.search(r"\A# unitensor\n\n```bash\n(.*?)```", text, re.S)
    assert block, "README must open with the bash block of the two commands"
    return block.group(1).strip().splitlines()


def test_readme_opens_with_exactly_two_commands():
    install_and_run, install_and_test = readme_commands()
    assert "constraints.txt" in install_and_run
    assert "-m unitensor" in install_and_run
    assert "constraints.txt" in install_and_test
    assert "pytest" in install_and_test
    assert pins()["torch"] == "2.13.0"  # the CPU wheel on these machines


def pins() -> dict[str, str]:
    """constraints.txt: package -> the oldest release CI tests."""
    lines = (ROOT / "constraints.txt").read_text().splitlines()
    return dict(line.split("==") for line in lines if line and not line.startswith("#"))


def test_declared_lower_bounds_are_the_oldest_releases_ci_tests():
    # pyproject's ranges start where CI's first leg tests (constraints.txt), and the
    # README's table says the same: no range claims a release nothing runs.
    text = (ROOT / "pyproject.toml").read_text()
    # (a version may be a post release: apache-tvm-ffi's 0.1.15.post2)
    bounds = dict(re.findall(
        r'"([A-Za-z0-9_.-]+)(?:\[[a-z]+\])?>=([0-9][0-9a-z.]*)', text))
    for package, version in pins().items():
        assert bounds.get(package) == version, (package, bounds.get(package), version)
    readme = (ROOT / "README.md").read_text()
    table = dict(re.findall(r"^\| (\S+) \| ([0-9.]+) \| [0-9.]+ \|$", readme, re.M))
    for package in ("numpy", "torch", "jax", "dask", "scipy", "scikit-learn"):
        assert table[package] == pins()[package], package
    assert table["tensorflow"] == pins()["tensorflow-cpu"]
    assert table["Python"] == "3.11"
    assert re.search(r'requires-python = ">=3\.11"', text)


def test_ci_runs_the_readme_test_command():
    script = (ROOT / ".ci" / "run").read_text()
    assert "README.md" in script
    assert "eval" in script


@pytest.mark.slow
def test_main_job_runs_with_no_tensorflow_info_lines():
    # (TF's log level left as a user's shell has it: its C++ info lines, which
    # the main job silences, would land in the table's output)
    env = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}
    out = subprocess.run([sys.executable, "-m", "unitensor"], capture_output=True,
                         text=True, timeout=600, cwd=ROOT, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "zero-copy" in out.stdout
    assert "MISMATCH" not in out.stdout
    assert out.stdout.count(" ok") >= 3
    for name in ("numpy", "torch", "jax", "tensorflow", "array_api_strict", "dask"):
        if importlib.util.find_spec(name) is not None:  # each computes its own data
            assert f"{name}: ran in {name} " in out.stdout
    info = [line for line in out.stderr.splitlines() if " I tensorflow/" in line
            or line.startswith("I0000")]
    assert not info, info


@pytest.mark.slow  # mkdocstrings imports the package and its frameworks (~20 s)
@pytest.mark.long  # the docs build (~30 s): in .ci/run's long step, not the 8 minutes
@pytest.mark.skipif(shutil.which("mkdocs", path=os.path.dirname(sys.executable))
                    is None, reason="mkdocs is not installed (test extra)")
def test_docs_build_with_warnings_as_errors(tmp_path):
    mkdocs = os.path.join(os.path.dirname(sys.executable), "mkdocs")
    out = subprocess.run([mkdocs, "build", "--strict", "-q", "-d", str(tmp_path)],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "architecture" / "index.html").exists()
    api = (tmp_path / "api" / "index.html").read_text()  # from the docstrings
    for name in ("unitensor.Tensor.numpy", "unitensor.asarray", "unitensor.wrap",
                 "unitensor.memory.configure", "unitensor.dask.map_blocks"):
        assert f'id="{name}"' in api, name


@pytest.mark.skipif(shutil.which("ruff", path=os.path.dirname(sys.executable))
                    is None, reason="ruff is not installed (test extra)")
def test_ruff_clean():
    ruff = os.path.join(os.path.dirname(sys.executable), "ruff")
    paths = [p for p in ("unitensor", "tests", "benchmarks", "conformance",
                              "clients")
             if (ROOT / p).is_dir()]
    out = subprocess.run([ruff, "check", *paths], capture_output=True, text=True,
                         cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr


def test_c_sources_are_clang_formatted():
    """ext/ follows ext/.clang-format (the clang-format wheel is in the test extra)."""
    clang_format = shutil.which("clang-format", path=os.path.dirname(sys.executable))
    assert clang_format is not None, "pip install clang-format (the test extra has it)"
    sources = sorted(str(p) for p in (ROOT / "ext").glob("*.[ch]"))
    out = subprocess.run([clang_format, "--dry-run", "--Werror", *sources],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]


def test_architecture_map_names_files_that_exist():
    """docs/architecture.md's map and table name real files (keep it true)."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    tables = text[text.index("## The map"):text.index("## ext/")]
    named = set(re.findall(r"`([\w./]+\.(?:py|c|h))`", tables))
    homes = [ROOT, ROOT / "unitensor", ROOT / "tests",
             *(ROOT / "tests" / room for room in ("backends", "ext", "wrap", "project",
                                                  "helpers")),
             ROOT / "unitensor" / "_backends",
             ROOT / "unitensor" / "_backends" / "numpy"]
    missing = sorted(n for n in named if not any((h / n).exists() for h in homes))
    assert len(named) > 30
    assert missing == []


@pytest.mark.slow  # a cold mypy run reads the frameworks' stubs: ~1 minute
@pytest.mark.long  # a whole-tool run: in .ci/run's long step, not the 8 minutes
@pytest.mark.skipif(shutil.which("mypy", path=os.path.dirname(sys.executable))
                    is None, reason="mypy is not installed (test extra)")
def test_mypy_clean():
    """mypy on unitensor/ with pyproject's settings: no errors."""
    mypy = os.path.join(os.path.dirname(sys.executable), "mypy")
    out = subprocess.run([mypy], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("mypy", path=os.path.dirname(sys.executable))
                    is None, reason="mypy is not installed (test extra)")
def test_c_extension_stubs_match_the_built_modules(tmp_path):
    """unitensor/_core.pyi, _fast.pyi and _xla.pyi describe what ext/ really
    exports.
    """
    # The stubs against the modules: what they import is not followed
    # (3 s, where building the whole package and numpy's stubs took 80 s).
    config = tmp_path / "stubtest.ini"
    config.write_text("[mypy]\nfollow_imports = skip\nignore_missing_imports = true\n")
    out = subprocess.run([sys.executable, "-m", "mypy.stubtest", "unitensor._core",
                          "unitensor._fast", "unitensor._xla", "--mypy-config-file",
                          str(config)],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]


def test_the_license_text_ships_with_the_package():
    """pyproject says BSD-3-Clause, which requires its text in every distribution."""
    import tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "BSD-3-Clause"
    assert project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("BSD 3-Clause License")
    assert "Neither the name of the copyright holder" in text
    assert (ROOT / "CHANGELOG.md").read_text().startswith("# Changelog")


def test_main_job_help_prints_usage_and_runs_nothing():
    """``--help`` answers at once: no matrix, no framework imported."""
    code = ("import sys, runpy\nsys.argv = ['unitensor', '--help']\n"
            "try:\n    runpy.run_module('unitensor', run_name='__main__')\n"
            "except SystemExit as e:\n    assert e.code == 0, e.code\n"
            "loaded = [m for m in ('torch', 'jax', 'tensorflow') if m in sys.modules]\n"
            "print('loaded:', loaded)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "usage: python -m unitensor" in out.stdout
    assert "--markdown" in out.stdout
    assert "--frameworks" in out.stdout
    assert "Conversion matrix" not in out.stdout
    assert "loaded: []" in out.stdout


def test_conformance_runner_explains_its_options():
    out = subprocess.run([sys.executable, "-m", "conformance", "--help"],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    for option in ("--owners", "--examples", "--write", "--official"):
        line = next(x for x in out.stdout.splitlines() if x.strip().startswith(option))
        assert len(line.split(None, 2)) == 3, line  # option, metavar, then help
    assert "repository's root" in out.stdout
