"""Package shape: documented, typed, and independent of the server."""

from __future__ import annotations

import ast
from pathlib import Path

import protocol

PACKAGE = Path(protocol.__file__).resolve().parent


def test_protocol_imports_only_stdlib_msgpack_orjson() -> None:
    allowed_third_party = {"msgpack", "orjson"}
    for path in PACKAGE.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                roots = {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                roots = {node.module.split(".")[0]}
            else:
                continue
            assert "server" not in roots, path.name
            for root in roots - allowed_third_party:
                assert root in __import__("sys").stdlib_module_names, (path.name, root)


def test_py_typed_marker() -> None:
    assert (PACKAGE / "py.typed").exists()


def test_package_docstring_covers_the_contract() -> None:
    doc = protocol.__doc__ or ""
    for words in ("poker.v1.json", "poker.v1.msgpack", "rid", "seq", "string key",
                  "protocol.codec", "protocol.requests", "protocol.messages", "protocol.errors"):
        assert words in doc, words


def test_all_names_exist() -> None:
    for name in protocol.__all__:
        assert hasattr(protocol, name), name
