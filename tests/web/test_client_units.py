"""The browser client's unit tests (`node --test client_web/tests/`: the pure state reducer,
the socket's answers and reconnection with a fake WebSocket, formatting, the action bar's
legal sizes), run from pytest so that CI runs them."""

from __future__ import annotations

import shutil
import subprocess

from tests.web.conftest import ROOT

NODE = shutil.which("node") or "/usr/bin/node"


def test_the_client_unit_tests_pass_under_node() -> None:
    result = subprocess.run([NODE, "--test", "client_web/tests/"], cwd=ROOT, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout
    passed = int(result.stdout.split("# pass ")[1].split()[0])
    assert passed >= 20, result.stdout[-2000:]
