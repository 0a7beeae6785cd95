"""The generated browser module is committed and up to date."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from protocol import ACTIONS, ERROR_CODES, EVENT_TYPES, REQUEST_TYPES, VARIANTS
from protocol.export_js import DEFAULT_OUTPUT, main, render

REPO = Path(__file__).resolve().parents[2]


def test_committed_protocol_js_is_current() -> None:
    assert DEFAULT_OUTPUT == REPO / "client_web" / "protocol.js"
    assert DEFAULT_OUTPUT.read_text(encoding="utf-8") == render(), (
        "client_web/protocol.js is stale: run `python -m protocol.export_js`"
    )


def test_render_is_deterministic_and_complete() -> None:
    text = render()
    assert text == render()
    for name in ("SUBPROTOCOL_JSON", "SUBPROTOCOL_MSGPACK", "REQUEST_TYPES", "EVENT_TYPES",
                 "ACTIONS", "VARIANTS", "STRUCTURES", "ERROR_CODES", "MESSAGE_FIELDS"):
        assert re.search(rf"^export const {name} = ", text, re.M)
    for word in (*ACTIONS, *VARIANTS, *REQUEST_TYPES, *EVENT_TYPES, *ERROR_CODES):
        assert f'"{word}"' in text
    assert '"poker.v1.json"' in text and '"poker.v1.msgpack"' in text


def test_check_mode(tmp_path: Path) -> None:
    out = tmp_path / "protocol.js"
    assert main(["--check", "--output", str(out)]) == 1
    assert main(["--output", str(out)]) == 0
    assert main(["--check", "--output", str(out)]) == 0
    out.write_text("// stale\n", encoding="utf-8")
    assert main(["--check", "--output", str(out)]) == 1


def test_module_entry_point(tmp_path: Path) -> None:
    out = tmp_path / "p.js"
    subprocess.run([sys.executable, "-m", "protocol.export_js", "-o", str(out)], check=True,
                   cwd=REPO)
    assert out.read_text(encoding="utf-8") == render()


@pytest.mark.skipif(shutil.which("node") is None, reason="node not installed")
def test_protocol_js_loads_as_an_es_module() -> None:
    script = (
        "import * as p from './client_web/protocol.js';"
        "if (p.errorMessage('table_full') !== p.ERROR_CODES.table_full) process.exit(2);"
        "if (!Object.isFrozen(p.ACTIONS)) process.exit(3);"
        "console.log(p.SUBPROTOCOL_MSGPACK);"
    )
    done = subprocess.run(["node", "--input-type=module", "-e", script], cwd=REPO,
                          capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "poker.v1.msgpack"
