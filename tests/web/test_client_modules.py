"""The browser client's module graph (issue 25), read from the files, no browser: every
`import ... from "./x.js"` (and `export ... from`) of client_web/js/**/*.js is an edge, and the
graph has no cycle; there is no `ctx.js` (the object whose function slots app.js filled in at
boot, which hid the circles); and no module puts a function into an object it imported (a
lower module tells a higher one through js/bus.js instead)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "client_web"
JS = CLIENT / "js"
NODE = shutil.which("node") or "/usr/bin/node"

# `import {a, b as c} from "./x.js";`, `import x from "../y.js";`, `import * as n from ...`,
# `export { a } from "./x.js";`, `import "./x.js";` and `import("./x.js")`, over lines
_STATIC = re.compile(
    r"^[ \t]*(?:import|export)\b([^;\"'`]*?)\bfrom\s*[\"']([^\"']+)[\"']", re.M)
_BARE = re.compile(r"^[ \t]*import\s*[\"']([^\"']+)[\"']", re.M)
_DYNAMIC = re.compile(r"\bimport\(\s*[\"']([^\"']+)[\"']\s*\)")
_IMPORT_CLAUSE = re.compile(r"^[ \t]*import\b([^;\"'`]*?)\bfrom\s*[\"'](\.{1,2}/[^\"']+)[\"']",
                            re.M)


def modules() -> list[Path]:
    return sorted(JS.rglob("*.js"))


def name(path: Path) -> str:
    return path.relative_to(CLIENT).as_posix()


def specifiers(source: str) -> list[str]:
    """The module specifiers `source` imports (statically, bare or dynamically) or re-exports."""
    found = [m.group(2) for m in _STATIC.finditer(source)]
    found += _BARE.findall(source) + _DYNAMIC.findall(source)
    return found


def import_graph() -> dict[str, set[str]]:
    """client_web-relative module -> the client_web modules it imports (relative specifiers)."""
    graph: dict[str, set[str]] = {}
    for path in modules():
        edges = graph.setdefault(name(path), set())
        for spec in specifiers(path.read_text(encoding="utf-8")):
            if not spec.startswith("."):
                continue
            target = (path.parent / spec).resolve()
            assert target.is_file(), f"{name(path)} imports {spec}, which does not exist"
            edges.add(name(target))
            graph.setdefault(name(target), set())
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of `graph` as a path that ends where it starts, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def imported_bindings(source: str) -> set[str]:
    """The local names a module binds from its relative imports."""
    names: set[str] = set()
    for m in _IMPORT_CLAUSE.finditer(source):
        clause = m.group(1)
        for star in re.findall(r"\*\s*as\s+(\w+)", clause):
            names.add(star)
        braces = re.search(r"\{([^}]*)\}", clause)
        if braces:
            for part in braces.group(1).split(","):
                part = part.strip()
                if part:
                    names.add(part.split(" as ")[-1].strip())
        default = re.match(r"\s*(\w+)\s*(?:,|$)", clause)
        if default:
            names.add(default.group(1))
    return names


def function_slot_writes(source: str) -> list[str]:
    """Where `source` puts a function into an object it imported: `Object.assign(imported, ...)`
    or `imported.slot = <a function, an arrow, or a function of this module>`; and the empty
    method stubs such slots start as (`render() {},`)."""
    bound = imported_bindings(source)
    local_functions = set(re.findall(r"\bfunction\s*\*?\s*(\w+)\s*\(", source))
    hits: list[str] = []
    for m in re.finditer(r"\bObject\.assign\(\s*(\w+)\s*,", source):
        if m.group(1) in bound:
            hits.append(m.group(0))
    slot = re.compile(r"(?<![\w.])(\w+)((?:\.\w+|\[[^\]]+\])+)\s*=(?![=>])\s*([^;\n]*)")
    function_like = re.compile(
        r"^(?:async\b|function\b|\([^)]*\)\s*=>|\w+\s*=>)")
    for m in slot.finditer(source):
        target, rhs = m.group(1), m.group(3).strip()
        if target not in bound:
            continue
        ident = re.fullmatch(r"(\w+)\s*,?", rhs)
        if function_like.match(rhs) or (ident and ident.group(1) in local_functions | bound):
            hits.append(m.group(0).strip())
    hits += [s.strip() for s in re.findall(r"^[ \t]*(?:async\s+)?\w+\s*\(\s*\)\s*\{\s*\},?[ \t]*$",
                                           source, re.M)]
    return hits


# ------------------------------------------------------------------------------------------
# the checks hold on synthetic sources (each would pass vacuously if its regex never matched)


def test_the_parser_sees_every_kind_of_import() -> None:
    source = (
        'import { a, b as c } from "./x.js";\n'
        "import {\n  d,\n  e,\n} from '../y.js';\n"
        'import * as ns from "./z.js";\n'
        'import def, { f } from "./w.js";\n'
        'export { g } from "./v.js";\n'
        'import "./side.js";\n'
        'const later = import("./lazy.js");\n'
        '// "import x from" in prose is not at a line start\n'
    )
    assert specifiers(source) == ["./x.js", "../y.js", "./z.js", "./w.js", "./v.js",
                                  "./side.js", "./lazy.js"]
    assert imported_bindings(source) == {"a", "c", "d", "e", "ns", "def", "f"}


def test_a_cycle_is_found_and_named() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"a"}}) == ["a", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_the_slot_check_catches_the_removed_pattern() -> None:
    ctx = 'export const app = {\n  store: null,\n  render() {},\n  dispatch() {},\n};\n'
    assert function_slot_writes(ctx) == ["render() {},", "dispatch() {},"]
    boot = (
        'import { app } from "./ctx.js";\n'
        "function render() {}\n"
        "function dispatch(msg) { return msg; }\n"
        "Object.assign(app, { render, dispatch });\n"
        "app.showBanner = (text) => text;\n"
        "app.actError = function (text) { return text; };\n"
        "app.dispatch = dispatch;\n"
        "app.hooks.onOpen = async () => {};\n"
    )
    assert function_slot_writes(boot) == [
        "Object.assign(app,", "app.showBanner = (text) => text",
        "app.actError = function (text) { return text", "app.dispatch = dispatch",
        "app.hooks.onOpen = async () => {}"]
    data = (
        'import { page } from "./page.js";\n'
        "const local = {};\n"
        "local.render = () => 1;\n"
        "Object.assign(local, { a: 1 });\n"
        'page.route = routeOf("#/");\n'
        'page.actionsKey = "";\n'
        "page.watchRoutes[id] = !!watch;\n"
        "if (page.prefs === null) page.prefs = loadPrefs();\n"
    )
    assert function_slot_writes(data) == []


# ------------------------------------------------------------------------------------------
# the client itself


def test_the_graph_is_read_from_every_module() -> None:
    graph = import_graph()
    assert len(modules()) >= 30
    assert "js/app.js" in graph and "js/bus.js" in graph and "js/page.js" in graph
    # a few edges that must be there (so an empty parse cannot pass the cycle check)
    assert {"js/page.js", "js/bus.js", "js/table-render.js"} <= graph["js/app.js"]
    assert "js/state.js" in graph["js/page.js"]
    assert "protocol.js" in graph["js/ui/lobby.js"]
    assert graph["js/bus.js"] == set(), "the bus imports nothing"
    assert sum(len(e) for e in graph.values()) >= 80


def test_the_client_module_graph_has_no_cycle() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_no_ctx_module() -> None:
    assert [name(p) for p in CLIENT.rglob("ctx.js") if "node_modules" not in p.parts] == []
    for path in modules():
        spec = [s for s in specifiers(path.read_text(encoding="utf-8")) if s.endswith("ctx.js")]
        assert spec == [], f"{name(path)} imports {spec}"


def test_no_module_fills_in_an_imported_objects_function_slots() -> None:
    hits = {name(p): function_slot_writes(p.read_text(encoding="utf-8")) for p in modules()}
    assert {k: v for k, v in hits.items() if v} == {}


# what the bus and the store do, under node (as tests/web/test_client_units.py runs node)
_BUS_SCRIPT = """
import { DISPATCHED, emit, off, on, RENDER } from "./client_web/js/bus.js";
import { dispatch, page, store } from "./client_web/js/page.js";
const seen = [];
const first = (x) => seen.push(`first:${x}`);
on(RENDER, first);
on(RENDER, (x) => seen.push(`second:${x}`));
emit(RENDER, 1);
off(RENDER, first);
emit(RENDER, 2);
let unknown = "";
try { emit("rendr"); } catch (e) { unknown = e.message; }
on(DISPATCHED, (msg) => seen.push(`${msg.type}:${store.state.status}`));
dispatch({ type: "local:status", status: "online" });
const functions = Object.entries(page).filter(([, v]) => typeof v === "function").map(([k]) => k);
console.log(JSON.stringify({ seen, unknown, functions }));
"""


def test_the_bus_and_the_store_under_node() -> None:
    result = subprocess.run([NODE, "--input-type=module", "-e", _BUS_SCRIPT], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == (
        '{"seen":["first:1","second:1","second:2","local:status:online"],'
        '"unknown":"unknown bus event: rendr","functions":[]}')
