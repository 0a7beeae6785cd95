"""Issue 25: inside ``server.table`` only the registry imports the actor. The two import
contracts of ``pyproject.toml`` (``table-desks-ported``, ``table-actor-built-by-registry``) name
their modules one by one; this holds that together they name every module of the package but
the actor, the registry and the package itself, so a new module cannot slip past them."""

from __future__ import annotations

import pathlib
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_every_table_module_is_kept_off_the_actor() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = {c["id"]: c for c in config["tool"]["importlinter"]["contracts"]}
    covered: set[str] = set()
    for cid in ("table-desks-ported", "table-actor-built-by-registry"):
        assert "server.table.actor" in contracts[cid]["forbidden_modules"], cid
        covered |= set(contracts[cid]["source_modules"])
    modules = {f"server.table.{p.stem}" for p in (ROOT / "server" / "table").glob("*.py")
               if p.stem != "__init__"}
    assert modules - covered == {"server.table.actor", "server.table.registry"}
    assert covered <= modules  # (no contract names a module that is gone)
