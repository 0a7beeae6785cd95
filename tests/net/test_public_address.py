"""Getting friends in (issue 24): the address players open (`Config.public_address`,
`--public-address`, `server.net.addresses`), the start-up line that names it, the page that
receives it for its invite links (`server.net.http`), and the WebSocket Origin it allows."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from server.config import Config
from server.main import App, _announce_players, build_parser, config_from_args, run
from server.net.addresses import (
    LOOPBACK_NOTE,
    PLAYERS_PREFIX,
    is_loopback,
    is_wildcard,
    lan_addresses,
    page_address,
    player_addresses,
    players_lines,
)
from server.net.http import PAGE_ADDRESS_META, HttpEndpoints
from tests.net.test_main import START_TIMEOUT, start_server, stop_server

ROOT = Path(__file__).resolve().parents[2]
INDEX = (ROOT / "client_web" / "index.html").read_bytes()
LAN = ("192.168.1.20", "10.0.0.7")


def parse(*argv: str) -> Config:
    return config_from_args(build_parser().parse_args(list(argv)), list(argv))


# --- the setting --------------------------------------------------------------------------


@pytest.mark.parametrize("address", ["https://poker.example.com", "http://192.168.1.20:8080",
                                     "https://poker.example.com:8443/", "http://[::1]:8080",
                                     "http://localhost"])
def test_public_address_accepts_an_origin(address: str) -> None:
    assert Config(public_address=address).public_address == address
    assert parse("--public-address", address).public_address == address


@pytest.mark.parametrize("address", ["poker.example.com", "ws://poker.example.com/ws",
                                     "https://poker.example.com/poker", "https://a.b/?x=1",
                                     "https://user@poker.example.com", "https://",
                                     "https://poker.example.com:99999", "https://a b.com",
                                     "ftp://poker.example.com", "https://a.b#x"])
def test_public_address_refuses_anything_but_an_origin(address: str) -> None:
    with pytest.raises(ValueError, match="public_address must be http"):
        Config(public_address=address)


def test_public_address_option_wins_over_the_config_file(tmp_path: Path) -> None:
    path = tmp_path / "poker.toml"
    path.write_text('public_address = "https://from-file.example"\n')
    assert parse("--config", str(path)).public_address == "https://from-file.example"
    assert parse("--config", str(path), "--public-address",
                 "https://given.example").public_address == "https://given.example"
    assert parse().public_address is None


# --- where players go ----------------------------------------------------------------------


def test_host_kinds() -> None:
    assert all(is_wildcard(h) for h in ("0.0.0.0", "::", "[::]", ""))
    assert not any(is_wildcard(h) for h in ("127.0.0.1", "192.168.1.20", "localhost"))
    assert all(is_loopback(h) for h in ("127.0.0.1", "127.0.0.2", "[::1]", "::1",
                                        "localhost", "LOCALHOST", "app.localhost"))
    assert not any(is_loopback(h) for h in ("192.168.1.20", "poker.example.com", "0.0.0.0"))


def test_lan_addresses_are_never_the_loopback() -> None:
    for address in lan_addresses():  # whatever this machine has (maybe nothing)
        assert not is_loopback(address) and not is_wildcard(address)


def test_player_addresses_in_the_rules_order() -> None:
    public = player_addresses(host="0.0.0.0", port=8080, lan=lambda: LAN,
                              public_address="https://poker.example.com")
    assert [a.url for a in public] == ["https://poker.example.com/"]
    assert "friends" in public[0].note
    home = player_addresses(host="0.0.0.0", port=8080, public_address=None, lan=lambda: LAN)
    assert [a.url for a in home] == ["http://192.168.1.20:8080/", "http://10.0.0.7:8080/"]
    assert all("on this network" in a.note for a in home)
    lonely = player_addresses(host="::", port=9000, public_address=None, lan=lambda: ())
    assert [a.url for a in lonely] == ["http://127.0.0.1:9000/"]
    assert "--public-address" in lonely[0].note
    local = player_addresses(host="127.0.0.1", port=8080, public_address=None)
    assert [(a.url, a.note) for a in local] == [("http://127.0.0.1:8080/", LOOPBACK_NOTE)]
    assert "--host 0.0.0.0" in LOOPBACK_NOTE and "Play with friends" in LOOPBACK_NOTE
    six = player_addresses(host="::1", port=8080, public_address=None)
    assert six[0].url == "http://[::1]:8080/"
    given = player_addresses(host="192.168.1.20", port=8080, public_address=None)
    assert given[0].url == "http://192.168.1.20:8080/" and "friends" in given[0].note


def test_players_lines_name_each_address_then_who_the_operator_url_is_for() -> None:
    lines = players_lines(player_addresses(host="0.0.0.0", port=8080, public_address=None,
                                           lan=lambda: LAN))
    assert lines[:2] == [
        f"{PLAYERS_PREFIX}http://192.168.1.20:8080/ (on this network: send it to your friends)",
        f"{PLAYERS_PREFIX}http://10.0.0.7:8080/ (on this network: send it to your friends)"]
    assert "operator URL above is for you" in lines[2] and len(lines) == 3


def test_page_address() -> None:
    public = "https://poker.example.com/"
    for host in ("127.0.0.1:8080", "poker.example.com", None):
        assert page_address(public_address=public, request_host=host,
                            lan_url=None) == "https://poker.example.com"
    lan = "http://192.168.1.20:8080/"
    for host in ("127.0.0.1:8080", "localhost:8080", "[::1]:8080", "localhost", "0.0.0.0:80"):
        assert page_address(public_address=None, request_host=host,
                            lan_url=lan) == "http://192.168.1.20:8080"
    for host in ("192.168.1.20:8080", "[fe80::1]:8080", None):  # opened as friends open it
        assert page_address(public_address=None, request_host=host, lan_url=lan) is None
    assert page_address(public_address=None, request_host="127.0.0.1:8080", lan_url=None) is None


# --- the page and the Origin ----------------------------------------------------------------


def endpoints(public: str | None = None, lan_url: str | None = None) -> HttpEndpoints:
    http = HttpEndpoints(static_dir=ROOT / "client_web")
    http.public_address, http.lan_url = public, lan_url
    return http


def test_index_html_has_the_placeholder_once() -> None:
    assert INDEX.count(PAGE_ADDRESS_META) == 1


def test_the_page_receives_the_public_address_escaped() -> None:
    page = endpoints("https://poker.example.com").route("/", host="127.0.0.1:8080")
    assert page.status_code == 200
    assert b'<meta name="poker-public-address" content="https://poker.example.com">' in page.body
    assert page.body.replace(b"https://poker.example.com", b"") == INDEX
    assert int(page.headers["Content-Length"]) == len(page.body)
    tricky = endpoints('http://a.example"><script>x</script>').route("/", host=None)
    assert b"<script>x" not in tricky.body and b"&quot;&gt;&lt;script&gt;" in tricky.body


def test_the_page_gets_the_lan_address_only_when_opened_on_the_loopback() -> None:
    http = endpoints(None, "http://192.168.1.20:8080/")
    here = http.route("/index.html", host="127.0.0.1:8080").body
    assert b'content="http://192.168.1.20:8080"' in here
    there = http.route("/", host="192.168.1.20:8080").body
    assert there == INDEX  # a friend's page: its own location is right
    assert endpoints().route("/", host="127.0.0.1:8080").body == INDEX
    script = http.route("/js/home.js", host="127.0.0.1:8080").body
    assert script == (ROOT / "client_web" / "js" / "home.js").read_bytes()


def handshake(http: HttpEndpoints, origin: str, host: str) -> Response | None:
    request = Request("/ws", Headers([("Host", host), ("Origin", origin),
                                      ("Upgrade", "websocket")]))
    answer = http.process_request(None, request)  # type: ignore[arg-type]
    assert answer is None or isinstance(answer, Response)
    return answer


def test_a_page_from_the_public_address_may_open_the_websocket() -> None:
    """Behind a proxy the `Host` the server sees may not be the page's (a proxy that sends
    its upstream's name): the public address's origin is still the server's own."""
    public = endpoints("https://poker.example.com:8443/")
    assert handshake(public, "https://poker.example.com:8443", "127.0.0.1:9000") is None
    refused = handshake(public, "https://evil.example", "127.0.0.1:9000")
    assert refused is not None and refused.status_code == 403
    wrong_port = handshake(public, "https://poker.example.com", "127.0.0.1:9000")
    assert wrong_port is not None and wrong_port.status_code == 403
    plain = endpoints()
    refused = handshake(plain, "https://poker.example.com:8443", "127.0.0.1:9000")
    assert refused is not None and refused.status_code == 403


# --- the start-up lines ---------------------------------------------------------------------


def test_announce_on_every_interface_gives_the_page_the_lan_address(
        capsys: pytest.CaptureFixture[str]) -> None:
    """`--host 0.0.0.0` (not bound here: the lines and the page's address are computed from
    the config and the bound port, with the LAN addresses given)."""
    http = endpoints()
    app = cast(App, SimpleNamespace(http=http, lan_addresses=lambda: LAN))
    _announce_players(app, Config(host="0.0.0.0"), 8080)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (f"{PLAYERS_PREFIX}http://192.168.1.20:8080/ "
                      "(on this network: send it to your friends)")
    assert http.lan_url == "http://192.168.1.20:8080/"
    alone = endpoints()
    capsys.readouterr()
    _announce_players(cast(App, SimpleNamespace(http=alone, lan_addresses=lambda: ())),
                      Config(host="0.0.0.0"), 8080)
    assert alone.lan_url is None  # only the loopback: nothing better than the page's own
    assert "no network address found" in capsys.readouterr().out
    public = endpoints("https://poker.example.com")
    _announce_players(cast(App, SimpleNamespace(http=public, lan_addresses=lambda: LAN)),
                      Config(host="0.0.0.0", public_address="https://poker.example.com"), 8080)
    assert public.lan_url is None
    assert capsys.readouterr().out.startswith(f"{PLAYERS_PREFIX}https://poker.example.com/ ")


async def test_in_process_server_announces_the_public_address(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stop = asyncio.Event()
    urls: asyncio.Queue[str] = asyncio.Queue()
    config = Config(port=0, data_dir=tmp_path / "store", public_address="http://localhost:1")
    task = asyncio.create_task(run(config, stop=stop, on_listening=urls.put_nowait))
    url = await asyncio.wait_for(urls.get(), 20)
    stop.set()
    await asyncio.wait_for(task, 20)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"poker-server listening on {url}"
    assert lines[1].startswith("poker-server operator on http://127.0.0.1:")
    assert lines[2] == f"{PLAYERS_PREFIX}http://localhost:1/ (send this address to your friends)"


def test_the_process_says_where_players_go_after_its_two_urls(tmp_path: Path) -> None:
    running = start_server(tmp_path)
    try:
        second = running.lines.get(timeout=START_TIMEOUT)
        third = running.lines.get(timeout=START_TIMEOUT)
        fourth = running.lines.get(timeout=START_TIMEOUT)
    finally:
        assert stop_server(running) == 0
    assert second is not None and second.startswith("poker-server operator on ")
    assert third == f"{PLAYERS_PREFIX}{running.url} ({LOOPBACK_NOTE})\n"
    assert fourth is not None and "for you, the operator" in fourth


def test_config_replace_keeps_the_check() -> None:
    with pytest.raises(ValueError, match="public_address"):
        dataclasses.replace(Config(), public_address="https://a.example/path")

