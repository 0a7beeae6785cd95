"""The browser edge: a hostile page cannot open the server's WebSocket from its own origin,
frame the client or read operator data; operator endpoints live on their own listener (loopback
by default) behind an optional bearer token. Against a real `poker-server` without test mode.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin

from tests.security.conftest import ROOT, TIMEOUT, HostileServer, ServerFactory, round_trip
from tests.security.test_connections import http_get

TOKEN = "s3cret-operator-token-0123456789"


async def handshake(server: HostileServer, origin: str | None) -> int:
    """The status of a WebSocket handshake with this Origin (101 when it opened: a ping is
    answered on it)."""
    try:
        ws = await asyncio.wait_for(connect(server.ws_url, origin=Origin(origin) if origin
                                            else None, ping_interval=None), TIMEOUT)
    except InvalidStatus as exc:
        return exc.response.status_code
    async with ws:
        await ws.send('{"type":"ping","rid":1}')
        assert '"pong"' in str(await asyncio.wait_for(ws.recv(), TIMEOUT))
    return 101


async def test_a_foreign_origin_is_refused_and_the_own_origin_and_none_are_not(
        hostile_server: ServerFactory) -> None:
    """Cross-site WebSocket hijacking: a page on evil.example opening /ws in a visitor's
    browser gets 403; the server's own origin (as its Host header) and no Origin at all
    (bots, the load tester) go on."""
    srv = hostile_server()
    own = f"http://{srv.host}:{srv.port}"
    assert await handshake(srv, "https://evil.example") == 403
    assert await handshake(srv, f"http://{srv.host}:{srv.port + 1}") == 403  # another port
    assert await handshake(srv, "null") == 403  # sandboxed frames, file: pages
    assert await handshake(srv, own) == 101
    assert await handshake(srv, None) == 101
    status, _, body = await http_get(srv.operator_url, "/metrics")
    assert status == 200 and b"poker_origin_refused_total 3" in body


async def test_an_origin_allowlist_replaces_the_own_origin(hostile_server: ServerFactory
                                                          ) -> None:
    """Behind a reverse proxy the public origin is configured: only it is accepted."""
    srv = hostile_server("--set", "allowed_origins=https://poker.example,https://m.poker.example")
    assert await handshake(srv, "https://poker.example") == 101
    assert await handshake(srv, "https://m.poker.example:443") == 101
    assert await handshake(srv, "http://poker.example") == 403  # another scheme
    assert await handshake(srv, f"http://{srv.host}:{srv.port}") == 403
    assert await handshake(srv, None) == 101


@pytest.mark.parametrize("path", ["/", "/js/app.js", "/style.css", "/nope"])
async def test_static_pages_carry_the_browser_headers(hostile_server: ServerFactory,
                                                      path: str) -> None:
    """Clickjacking and injection: CSP with default-src 'self' and frame-ancestors 'none',
    no referrer, no sniffing, on every public response (a 404 included)."""
    srv = hostile_server()
    status, headers, _ = await http_get(srv.url, path)
    assert status == (404 if path == "/nope" else 200)
    csp = headers["content-security-policy"]
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives["default-src"] == "'self'"
    assert directives["script-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'"
    assert directives["object-src"] == "'none'"
    assert directives["connect-src"] == (f"'self' ws://{srv.host}:{srv.port} "
                                         f"wss://{srv.host}:{srv.port}")
    assert headers["referrer-policy"] == "no-referrer"
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["x-frame-options"] == "DENY"


def test_the_client_runs_under_the_csp() -> None:
    """The browser client has nothing the CSP refuses: no inline <script> or <style>, no
    inline event handlers, no javascript: URLs, no eval; only same-origin scripts and styles.
    (Style attributes are allowed by `style-src-attr`.)"""
    web = ROOT / "client_web"
    html = (web / "index.html").read_text()
    for tag in re.findall(r"<script\b[^>]*>", html):
        assert re.search(r'\bsrc="/', tag), tag
    assert "<style" not in html
    assert not re.search(r"\son[a-z]+\s*=", html)
    assert "javascript:" not in html
    for link in re.findall(r'<link\b[^>]*href="([^"]+)"', html):
        assert link.startswith("/") or link == "data:,", link
    sources = [p for p in web.rglob("*.js") if "tests" not in p.parts
               and "node_modules" not in p.parts]
    assert sources
    for path in sources:
        text = Path(path).read_text()
        assert not re.search(r"\beval\(|new Function\(|setTimeout\(\s*[\"'`]", text), path
        assert "<script" not in text and "<style" not in text, path
        assert not re.search(r"\son(click|load|error|input|change|submit)=", text), path


async def test_operator_endpoints_are_not_on_the_public_port(hostile_server: ServerFactory
                                                            ) -> None:
    """/metrics and /jackpot/history are 404 on the public listener; the operator listener
    (loopback by default, its URL the second stdout line) serves them, /healthz too."""
    srv = hostile_server()
    for path in ("/metrics", "/jackpot/history", "/jackpot/history?start=0&count=5"):
        assert (await http_get(srv.url, path))[0] == 404, path
    assert urlsplit(srv.operator_url).hostname == "127.0.0.1"
    assert urlsplit(srv.operator_url).port != srv.port
    status, headers, body = await http_get(srv.operator_url, "/metrics")
    assert status == 200 and headers["content-type"].startswith("text/plain; version=0.0.4")
    assert b"poker_connections " in body
    status, _, body = await http_get(srv.operator_url, "/jackpot/history?start=0&count=5")
    assert status == 200 and b'"entries"' in body
    assert (await http_get(srv.operator_url, "/healthz"))[0] == 200
    assert (await http_get(srv.operator_url, "/"))[0] == 404  # no static client there
    assert await round_trip(srv) < 5.0


async def test_an_operator_token_is_required_when_configured(
        hostile_server: ServerFactory, tmp_path: Path) -> None:
    """With `--operator-token-file`: 401 without or with a wrong token, 200 with it;
    health probes need none. The token is in no log line."""
    token_file = tmp_path / "operator.token"
    token_file.write_text(TOKEN + "\n")
    srv = hostile_server("--operator-token-file", str(token_file))
    for path in ("/metrics", "/jackpot/history"):
        assert (await http_get(srv.operator_url, path))[0] == 401
        assert (await http_get(srv.operator_url, path,
                               headers={"Authorization": "Bearer wrong-token"}))[0] == 401
        assert (await http_get(srv.operator_url, path,
                               headers={"Authorization": f"Basic {TOKEN}"}))[0] == 401
        assert (await http_get(srv.operator_url, path,
                               headers={"Authorization": f"Bearer {TOKEN}"}))[0] == 200
        assert (await http_get(srv.url, path,
                               headers={"Authorization": f"Bearer {TOKEN}"}))[0] == 404
    assert (await http_get(srv.operator_url, "/healthz"))[0] == 200
    assert not any(TOKEN in line for line in srv.stderr_lines())


async def test_the_operator_token_from_the_environment(hostile_server: ServerFactory,
                                                       monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    monkeypatch.setenv("POKER_OPERATOR_TOKEN", TOKEN)
    srv = hostile_server()
    assert (await http_get(srv.operator_url, "/metrics"))[0] == 401
    assert (await http_get(srv.operator_url, "/metrics",
                           headers={"Authorization": f"Bearer {TOKEN}"}))[0] == 200
