"""`dev.py`'s installs (issue 24): `serve` installs what serving needs (`pip install -e .`),
`test` the `[test]` extra, each with its own stamp in `.venv`, so switching between them
reinstalls nothing and a changed pyproject.toml reinstalls once. pip itself is not run: the
commands dev.py would run are recorded."""

from __future__ import annotations

import hashlib
import json
import subprocess
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.test_tooling import ROOT, _dev_module


@pytest.fixture
def dev(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[ModuleType, list[str]]:
    """dev.py with its .venv and pyproject.toml in `tmp_path`; the specs pip is asked for."""
    module = _dev_module()
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "poker-server").write_text("#!/bin/sh\n")
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text("[project]\nname = 'x'\n")
    monkeypatch.setattr(module, "VENV", venv)
    monkeypatch.setattr(module, "VENV_BIN", venv / "bin")
    monkeypatch.setattr(module, "PYPROJECT", pyproject)
    monkeypatch.setattr(module, "_venv_works", lambda: True)
    monkeypatch.setattr(module, "ensure_icu_build_deps", lambda: None)
    specs: list[str] = []

    def run(cmd: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        assert cmd[-3:-1] == ["install", "-e"], cmd
        specs.append(cmd[-1])
        return subprocess.CompletedProcess(cmd, 0)

    monkeypatch.setattr(module.subprocess, "run", run)
    return module, specs


def test_serve_installs_the_runtime_only_and_test_the_test_extra(
        dev: tuple[ModuleType, list[str]]) -> None:
    module, specs = dev
    module.ensure_venv(module.SERVE_EXTRAS)
    assert specs == ["."]
    module.ensure_venv(module.SERVE_EXTRAS)  # stamped: nothing again
    assert specs == ["."]
    module.ensure_venv(("test",))
    assert specs == [".", ".[test]"]
    module.ensure_venv(module.SERVE_EXTRAS)  # the test install covers serving
    module.ensure_venv(("test",))
    assert specs == [".", ".[test]"]
    stamps = sorted(p.name for p in module.VENV.glob(module.STAMP_GLOB))
    assert stamps == [".nzpoker-install-runtime.json", ".nzpoker-install-test.json"]
    module.ensure_venv(("test", "bench"))
    assert specs[-1] == ".[bench,test]"


def test_a_changed_pyproject_reinstalls_once_per_command(
        dev: tuple[ModuleType, list[str]]) -> None:
    module, specs = dev
    module.ensure_venv(("test",))
    module.PYPROJECT.write_text("[project]\nname = 'y'\n")
    module.ensure_venv(module.SERVE_EXTRAS)
    module.ensure_venv(module.SERVE_EXTRAS)
    assert specs == [".[test]", "."]
    module.ensure_venv(("test",))  # its stamp is of the old file
    assert specs == [".[test]", ".", ".[test]"]


def test_the_older_single_stamp_still_counts(dev: tuple[ModuleType, list[str]]) -> None:
    module, specs = dev
    digest = hashlib.sha256(module.PYPROJECT.read_bytes()).hexdigest()
    (module.VENV / ".nzpoker-install.json").write_text(
        json.dumps({"pyproject_sha256": digest, "extras": ["test"]}))
    module.ensure_venv(module.SERVE_EXTRAS)
    module.ensure_venv(("test",))
    assert specs == []


def test_a_failed_install_leaves_no_stamp(dev: tuple[ModuleType, list[str]],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    module, _ = dev
    monkeypatch.setattr(module.subprocess, "run",
                        lambda cmd, **kw: subprocess.CompletedProcess(cmd, 1))
    with pytest.raises(SystemExit):
        module.ensure_venv(module.SERVE_EXTRAS)
    assert list(module.VENV.glob(module.STAMP_GLOB)) == []


def test_serve_asks_for_no_extra_and_runs_poker_server(
        monkeypatch: pytest.MonkeyPatch) -> None:
    module = _dev_module()
    asked: list[tuple[str, ...]] = []
    ran: list[list[str]] = []
    monkeypatch.setattr(module, "ensure_venv", lambda extras=("test",): asked.append(extras))
    monkeypatch.setattr(module.os, "chdir", lambda path: None)
    monkeypatch.setattr(module.os, "execve", lambda exe, argv, env: ran.append(argv))
    module.cmd_serve(["--host", "0.0.0.0"])
    assert asked == [()]
    assert ran[0][0].endswith("poker-server") and ran[0][1:] == ["--host", "0.0.0.0"]


def test_serving_needs_nothing_of_the_test_extra() -> None:
    """What `serve` installs is `[project] dependencies`; the toolchain is only in `[test]`."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    runtime = " ".join(config["project"]["dependencies"])
    for tool in ("pytest", "playwright", "mypy", "ruff", "pokerkit", "hypothesis"):
        assert tool not in runtime
        assert any(tool in dep for dep in config["project"]["optional-dependencies"]["test"])


def test_usage_says_what_serve_installs_and_how_friends_get_in() -> None:
    module = _dev_module()
    assert "runtime dependencies only" in module.USAGE
    assert "--host 0.0.0.0" in module.USAGE and "--public-address" in module.USAGE
