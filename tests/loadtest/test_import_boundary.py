"""The load tester measures the server as an outside client: every module of
``server.loadtest`` imports only the standard library, ``protocol``, ``websockets`` and its
own package (never ``server`` internals, nor anything else)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "server" / "loadtest"
ALLOWED = {"protocol", "websockets"}


def imported_roots(path: Path) -> set[str]:
    """Top-level names of every absolute import in ``path`` (relative ones are the package's
    own: returned as ``.``)."""
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level > 0:
                roots.add(".")
            else:
                assert node.module is not None
                roots.add(node.module if node.module.startswith("server.loadtest")
                          else node.module.split(".")[0])
    return roots


def test_every_module_is_checked() -> None:
    names = {p.name for p in PACKAGE.glob("*.py")}
    assert {"__init__.py", "bots.py", "runner.py", "report.py", "cli.py"} <= names


def test_loadtest_imports_only_protocol_websockets_and_stdlib() -> None:
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    for path in sorted(PACKAGE.glob("*.py")):
        for root in imported_roots(path):
            own = root == "." or root.startswith("server.loadtest")
            assert own or root in ALLOWED or root in stdlib, f"{path.name} imports {root}"


def test_the_checker_sees_a_forbidden_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from server.table import actor\nimport orjson\nfrom . import bots\n")
    assert imported_roots(bad) == {"server", "orjson", "."}
