"""The newcomer commands: CI runs `dev.py test`, and the README opens with the two commands."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def test_ci_run_execs_dev_py_test() -> None:
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert script.startswith("#!/usr/bin/env bash\n") or script.startswith("#!/bin/bash\n")
    assert "set -euo pipefail" in script
    commands = [
        line.strip()
        for line in script.splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]
    assert commands[-1] == "exec python3 dev.py test"
    assert os.access(ROOT / ".ci" / "run", os.X_OK)


def test_readme_first_code_block_has_exactly_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", readme, flags=re.S | re.M)
    assert blocks, "README has no code block"
    lines = [line for line in blocks[0].splitlines() if line.strip()]
    commands = [line.split("#", 1)[0].strip() for line in lines]
    assert commands == ["python3 dev.py serve", "python3 dev.py test"]


def test_readme_opens_with_the_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    before_block = readme.split("```", 1)[0]
    headings = [line for line in before_block.splitlines() if line.startswith("#")]
    assert len(headings) == 1, "only the title comes before the two commands"


def test_dev_py_is_stdlib_only() -> None:
    source = (ROOT / "dev.py").read_text(encoding="utf-8")
    imported = set(re.findall(r"^(?:from|import) (\w+)", source, flags=re.M))
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}


def test_dev_py_help_runs_without_the_venv() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "dev.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0
    for command in ("serve", "test", "bench"):
        assert command in result.stdout


def _dev_module() -> ModuleType:
    import importlib.util

    spec = importlib.util.spec_from_file_location("dev", ROOT / "dev.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_import_contracts_are_configured_and_dev_py_runs_them() -> None:
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    linter = config["tool"]["importlinter"]
    assert set(linter["root_packages"]) == {"server", "protocol"}
    ids = {contract["id"] for contract in linter["contracts"]}
    assert {"rules-pure", "protocol-standalone", "net-edge-only", "layers"} <= ids
    source = (ROOT / "dev.py").read_text(encoding="utf-8")
    steps = re.findall(r'^\s+\("([\w-]+)", \[', source, flags=re.M)
    assert steps.index("lint-imports") < steps.index("pytest")
    assert any(
        "import-linter" in dep for dep in config["project"]["optional-dependencies"]["test"]
    )


def test_coverage_gate_covers_only_rules_and_protocol() -> None:
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    coverage = config["tool"]["coverage"]
    assert sorted(coverage["run"]["source"]) == ["protocol", "server.rules"]
    assert coverage["report"]["fail_under"] == 100
    dev = _dev_module()
    whole = dev.coverage_args([])
    assert sorted(a for a in whole if a.startswith("--cov=")) == [
        "--cov=protocol",
        "--cov=server.rules",
    ]
    assert dev.coverage_args(["-x", "-q"]) == whole
    for narrowed in (["tests/rules"], ["-k", "holdem"], ["-m", "not slow"], ["t.py::test_a"]):
        assert dev.coverage_args(narrowed) == []
