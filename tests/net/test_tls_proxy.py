"""Friends over the internet (issue 24): Debian's nginx with deploy/nginx-tls.conf, exactly as
shipped but for its ports, paths and certificate, terminating TLS in front of a real
`poker-server` started as README "Play with friends" says (`--public-address https://...`,
`--trusted-proxies 127.0.0.1/32`), without test mode. The certificate is self-signed, made
by `openssl` in the test's temporary directory for `localhost`.

Checked through the proxy: plain http is sent to https; the page comes over https with the
public address written into it (the base of its invite links); a WebSocket over wss, with
the Origin a browser on that page sends, says hello, creates a private table, and a second
client watches and asks to sit with the invite code. Everything is on loopback, on free
ports; nginx and the server are stopped at teardown. Skipped when nginx is not installed
(`python3 dev.py test` installs it).
"""

from __future__ import annotations

import asyncio
import http.client
import ssl
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.typing import Origin, Subprotocol

from protocol import SUBPROTOCOL_JSON
from tests.cluster.test_nginx import nginx_binary, wait_port
from tests.ledger.test_crash import Server, start_server
from tests.net.conftest import Client
from tests.redis_helpers import free_port

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
GAME: dict[str, Any] = {"variant": "holdem", "structure": "no_limit",
                        "stakes": {"blinds": [50, 100]}, "seats": 6, "private": True}


@dataclass
class Proxy:
    https: int  # nginx's TLS port
    http: int  # nginx's plain port
    public: str  # the server's --public-address
    tls: ssl.SSLContext  # trusts the test's certificate


def make_certificate(tmp: Path) -> tuple[Path, Path]:
    cert, key = tmp / "cert.pem", tmp / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=localhost", "-addext",
                    "subjectAltName=DNS:localhost,IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    return cert, key


def tls_conf(tmp: Path, *, https: int, http_port: int, server: int, cert: Path,
             key: Path) -> Path:
    """deploy/nginx-tls.conf with loopback ports, the test's certificate, and the pid, web
    root and temporary files under `tmp` (each replaced text must be there: the test fails
    when the shipped file changes shape)."""
    text = (DEPLOY / "nginx-tls.conf").read_text()
    swaps = {
        "listen 443 ssl;": f"listen 127.0.0.1:{https} ssl;",
        "listen 80;": f"listen 127.0.0.1:{http_port};",
        "server 127.0.0.1:8080;": f"server 127.0.0.1:{server};",
        "/etc/letsencrypt/live/poker.example.com/fullchain.pem": str(cert),
        "/etc/letsencrypt/live/poker.example.com/privkey.pem": str(key),
        "pid /run/nginx-poker.pid;": f"pid {tmp}/nginx.pid;",
        "root /var/www/html;": f"root {tmp}/www;",
        "server_name poker.example.com;": "server_name localhost;",
    }
    for old, new in swaps.items():
        assert old in text, old
        text = text.replace(old, new)
    temps = "".join(f"    {kind}_temp_path {tmp}/{kind};\n"
                    for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    text = text.replace("http {\n", "http {\n" + temps, 1)
    path = tmp / "nginx-tls.conf"
    path.write_text(text)
    return path


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[Proxy]:
    binary = nginx_binary()
    if binary is None:
        pytest.skip("nginx is not installed (python3 dev.py test installs it)")
    cert, key = make_certificate(tmp_path)
    https, plain, port = free_port(), free_port(), free_port()
    public = f"https://localhost:{https}"
    server: Server | None = None
    nginx: subprocess.Popen[bytes] | None = None
    try:
        server = start_server(tmp_path / "data", "--port", str(port), "--public-address",
                              public, "--trusted-proxies", "127.0.0.1/32", test_mode=False)
        conf = tls_conf(tmp_path, https=https, http_port=plain, server=port, cert=cert, key=key)
        nginx = subprocess.Popen([binary, "-p", str(tmp_path), "-c", str(conf), "-e", "stderr",
                                  "-g", "daemon off;"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wait_port(https, nginx)
        wait_port(plain, nginx)
        yield Proxy(https=https, http=plain, public=public,
                    tls=ssl.create_default_context(cafile=str(cert)))
    finally:
        if nginx is not None:
            nginx.terminate()
            try:
                nginx.wait(10)
            except subprocess.TimeoutExpired:
                nginx.kill()
                nginx.wait(10)
        if server is not None:
            server.proc.kill()
            server.proc.wait(10)


def fetch(proxy: Proxy, path: str, *, tls: bool = True) -> tuple[int, dict[str, str], bytes]:
    conn: http.client.HTTPConnection
    if tls:
        conn = http.client.HTTPSConnection("localhost", proxy.https, context=proxy.tls,
                                           timeout=10)
    else:
        conn = http.client.HTTPConnection("localhost", proxy.http, timeout=10)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return (response.status, {k.lower(): v for k, v in response.getheaders()},
                response.read())
    finally:
        conn.close()


def test_http_moves_to_https_and_the_page_carries_the_public_address(proxy: Proxy) -> None:
    status, headers, _ = fetch(proxy, "/#ignored", tls=False)
    assert status == 301 and headers["location"].startswith("https://localhost")
    status, headers, page = fetch(proxy, "/")
    assert status == 200 and headers["content-type"].startswith("text/html")
    meta = f'<meta name="poker-public-address" content="{proxy.public}">'.encode()
    assert meta in page  # the base of the invite links (client_web/js/home.js linkBase)
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert fetch(proxy, "/readyz")[0] == 200


async def open_wss(proxy: Proxy, origin: str | None = None) -> Client:
    ws = await asyncio.wait_for(connect(
        f"wss://localhost:{proxy.https}/ws", ssl=proxy.tls, ping_interval=None,
        subprotocols=[Subprotocol(SUBPROTOCOL_JSON)],
        origin=Origin(origin or proxy.public)), 10)
    return Client(ws=ws, subprotocol=SUBPROTOCOL_JSON)


async def test_friends_play_over_wss_with_the_invite_code(proxy: Proxy) -> None:
    ann, bob = await open_wss(proxy), await open_wss(proxy)
    await ann.hello("Ann")
    await bob.hello("Bob")
    made = await ann.request("create_table", **GAME)
    assert made["type"] == "ok" and made["code"], made
    table, code = made["table"], made["code"]
    assert (await ann.request("sit", table=table, seat=0, buy_in=5000))["type"] == "ok"
    stranger = await bob.request("watch", table=table)
    assert stranger["code"] == "unknown_table", stranger  # no code, no table
    watched = await bob.request("watch", table=table, code=code)
    assert watched["type"] == "ok", watched
    snapshot = await bob.event("snapshot", table=table)
    assert [s["name"] for s in snapshot["seats"] if s] == ["Ann"]
    asked = await bob.request("sit", table=table, seat=1, buy_in=4000, code=code)
    assert asked["type"] == "ok" and asked["pending"] is True, asked
    request = await ann.event("seat_request", player=bob.player_id)
    assert request["buy_in"] == 4000
    approved = await ann.request("host", table=table, action="approve", player=bob.player_id)
    assert approved["type"] == "ok", approved
    await bob.event("seated", seat=1)
    await ann.ws.close()
    await bob.ws.close()


async def test_a_foreign_page_cannot_open_the_websocket_through_the_proxy(
        proxy: Proxy) -> None:
    with pytest.raises(Exception, match="403"):
        await open_wss(proxy, origin="https://evil.example")


def test_the_shipped_file_names_what_the_readme_says() -> None:
    text = (DEPLOY / "nginx-tls.conf").read_text()
    assert "--public-address https://poker.example.com" in text
    assert "--trusted-proxies 127.0.0.1/32" in text
