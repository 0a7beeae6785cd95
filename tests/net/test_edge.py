"""The WebSocket edge against a live in-process server: subprotocols, hello/welcome/token,
lobby answers, who may do what before hello, error codes for bad frames, /metrics."""

from __future__ import annotations

import asyncio
import http.client
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import msgpack
import orjson
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from protocol import SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK
from server.net.edge import ws_max_size
from server.net.fastpath import EdgeConnection
from tests.net.conftest import ENCODINGS, TIMEOUT, Live, LiveFactory, open_client


@pytest.fixture(params=[True, False], ids=["fast", "plain"])
def fast_send(request: pytest.FixtureRequest) -> bool:
    """Every live test of this module runs over both send paths (`Config.fast_send`)."""
    return bool(request.param)


def http_get(server: Live, path: str, *, operator: bool = False) -> tuple[int, str, str]:
    """GET `path` from the public listener, or the operator listener with `operator`."""
    host, port = server.host_port
    if operator:
        parts = urlsplit(server.app.operator_url or "")
        assert parts.hostname and parts.port, "no operator listener"
        host, port = parts.hostname, parts.port
    conn = http.client.HTTPConnection(host, port, timeout=TIMEOUT)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.getheader("content-type") or "", response.read().decode()
    finally:
        conn.close()


async def scrape(server: Live) -> dict[str, float]:
    """The /metrics exposition of the operator listener as {series: value} (fetched off
    the event loop)."""
    status, ctype, body = await asyncio.to_thread(http_get, server, "/metrics", operator=True)
    assert status == 200 and ctype.startswith("text/plain; version=0.0.4")
    out: dict[str, float] = {}
    for line in body.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            out[name] = float(value)
    return out


# --- transport -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("offer", "chosen"),
    [
        (None, None),
        ([SUBPROTOCOL_JSON], SUBPROTOCOL_JSON),
        ([SUBPROTOCOL_MSGPACK], SUBPROTOCOL_MSGPACK),
        ([SUBPROTOCOL_MSGPACK, SUBPROTOCOL_JSON], SUBPROTOCOL_MSGPACK),
        (["poker.v9", SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK], SUBPROTOCOL_JSON),
    ],
)
async def test_subprotocol_is_the_clients_first_supported_offer(
    live: Live, offer: list[str] | None, chosen: str | None
) -> None:
    async with connect(live.ws_url, subprotocols=offer) as ws:  # type: ignore[arg-type]
        assert ws.subprotocol == chosen
        await ws.send(orjson.dumps({"type": "ping", "rid": 1}).decode()
                      if chosen != SUBPROTOCOL_MSGPACK
                      else msgpack.packb({"type": "ping", "rid": 1}))
        frame = await asyncio.wait_for(ws.recv(), TIMEOUT)
        reply = msgpack.unpackb(frame) if chosen == SUBPROTOCOL_MSGPACK else orjson.loads(frame)
        assert reply["type"] == "pong" and reply["rid"] == 1


async def test_compression_is_off_by_default(live: Live) -> None:
    async with connect(live.ws_url) as ws:
        assert ws.response is not None
        assert "Sec-WebSocket-Extensions" not in ws.response.headers


async def test_compression_when_configured(live_server: LiveFactory) -> None:
    server = await live_server(compression=True)
    async with connect(server.ws_url) as ws:
        assert ws.response is not None
        assert "permessage-deflate" in ws.response.headers.get("Sec-WebSocket-Extensions", "")
        await ws.send(orjson.dumps({"type": "ping", "rid": 1}).decode())
        assert orjson.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))["type"] == "pong"


# --- identity --------------------------------------------------------------------------
@pytest.mark.parametrize("encoding", ENCODINGS)
async def test_hello_guest_welcome_then_token_resumes(live: Live, encoding: str) -> None:
    alice = await open_client(live, encoding)
    welcome = await alice.hello("Alice")
    assert welcome["name"] == "Alice"
    assert welcome["balance"] == live.app.config.starting_balance
    assert welcome["player_id"] and welcome["token"]
    await alice.ws.close()

    again = await open_client(live, encoding)
    answer = await again.request("hello", token=welcome["token"])
    assert answer["type"] == "ok"
    resumed = await again.event("welcome")
    assert resumed["player_id"] == welcome["player_id"]
    assert resumed["name"] == "Alice"
    assert resumed["balance"] == live.app.config.starting_balance


async def test_two_guests_get_distinct_ids(live: Live) -> None:
    a, b = await open_client(live), await open_client(live)
    assert (await a.hello("Sam"))["player_id"] != (await b.hello("Sam"))["player_id"]


@pytest.mark.parametrize("token", ["nonsense", "a.b", "x" * 512, "eyJwIjoiZyJ9.AAAA"])
async def test_forged_or_garbage_token_is_bad_token(live: Live, token: str) -> None:
    client = await open_client(live)
    answer = await client.request("hello", token=token)
    assert answer["type"] == "error" and answer["code"] == "bad_token"
    # still usable, still anonymous
    assert (await client.request("ping"))["type"] == "pong"
    assert (await client.request("sit", table="t", seat=0, buy_in=100))["code"] == "unauthorized"


async def test_token_from_another_server_secret_is_refused(
    live_server: LiveFactory, tmp_path: Path
) -> None:
    # two servers with their own stores (own secrets); servers sharing a store share it
    one = await live_server(data_dir=tmp_path / "one")
    two = await live_server(data_dir=tmp_path / "two")
    client = await open_client(one)
    token = (await client.hello("Eve"))["token"]
    other = await open_client(two)
    assert (await other.request("hello", token=token))["code"] == "bad_token"


async def test_second_hello_on_a_connection_is_not_allowed(live: Live) -> None:
    client = await open_client(live)
    await client.hello("Bob")
    assert (await client.request("hello", guest="Mallory"))["code"] == "not_allowed"


# --- lobby and authorisation -------------------------------------------------------------
async def test_ping_echoes_t(live: Live) -> None:
    client = await open_client(live, SUBPROTOCOL_MSGPACK)
    pong = await client.request("ping", t=123.5)
    assert pong["type"] == "pong" and pong["t"] == 123.5 and pong["time"] > 0


async def test_tables_lists_without_hello(live: Live) -> None:
    client = await open_client(live)
    answer = await client.request("tables")
    assert answer["type"] == "ok" and isinstance(answer["tables"], list)


@pytest.mark.parametrize(
    ("kind", "fields"),
    [
        ("sit", {"table": "t1", "seat": 0, "buy_in": 1000}),
        ("act", {"table": "t1", "action": "fold"}),
        ("chat", {"table": "t1", "text": "hi"}),
        ("leave", {"table": "t1"}),
        ("sit_out", {"table": "t1"}),
        ("create_table", {"variant": "holdem", "structure": "no_limit",
                          "stakes": {"blinds": [50, 100]}, "seats": 6}),
    ],
)
async def test_playing_needs_hello(live: Live, kind: str, fields: dict[str, object]) -> None:
    client = await open_client(live)
    answer = await client.request(kind, **fields)
    assert answer["type"] == "error" and answer["code"] == "unauthorized"


@pytest.mark.parametrize("kind", ["watch", "unwatch"])
async def test_watching_an_unknown_table_without_hello(live: Live, kind: str) -> None:
    client = await open_client(live)
    answer = await client.request(kind, table="no-such-table")
    assert answer["code"] == "unknown_table"


async def test_unknown_table_after_hello(live: Live) -> None:
    client = await open_client(live)
    await client.hello("Carol")
    for kind, fields in [("sit", {"seat": 0, "buy_in": 100}), ("act", {"action": "check"}),
                         ("chat", {"text": "gl"}), ("resume", {"since": 3})]:
        answer = await client.request(kind, table="nope", **fields)
        assert answer["code"] == "unknown_table", (kind, answer)


async def test_login_to_an_unknown_account_is_bad_credentials(live: Live) -> None:
    client = await open_client(live)
    answer = await client.request("login", name="x", password="y" * 12)
    assert answer["code"] == "bad_credentials"
    assert (await client.request("ping"))["type"] == "pong"  # still usable, still anonymous


# --- bad frames --------------------------------------------------------------------------
@pytest.mark.parametrize("encoding", ENCODINGS)
async def test_bad_frames_get_their_error_and_the_connection_goes_on(
    live: Live, encoding: str
) -> None:
    client = await open_client(live, encoding)
    msgpack_conn = encoding == SUBPROTOCOL_MSGPACK
    wrong_kind = "{}" if msgpack_conn else b"\x80"  # a frame of the other kind
    cases: list[tuple[str | bytes, str, object]] = [
        (wrong_kind, "malformed", None),
        (client.codec.encode({"type": "teleport", "rid": "u1"}), "unknown_type", "u1"),
        (client.codec.encode({"rid": 5}), "malformed", 5),
        (client.codec.encode({"type": "act", "rid": 6, "table": "t"}), "missing_field", 6),
        (client.codec.encode({"type": "act", "rid": 7, "table": "t", "action": "raise",
                              "amount": -5}), "bad_amount", 7),
        (client.codec.encode({"type": "watch", "rid": True, "table": "t"}), "bad_field", None),
    ]
    if msgpack_conn:
        cases.append((b"\xc1garbage", "malformed", None))
    else:
        cases.append(('{"type": "ping", "rid": 1', "malformed", None))
    for frame, code, rid in cases:
        await client.send_raw(frame)
        reply = await client.receive()
        assert reply["type"] == "error", (frame, reply)
        assert reply["code"] == code, (frame, reply)
        assert reply["rid"] == rid, (frame, reply)
    assert (await client.request("ping"))["type"] == "pong"


@pytest.mark.parametrize("encoding", ENCODINGS)
async def test_oversized_frame_gets_oversized_and_connection_stays(
    live_server: LiveFactory, encoding: str
) -> None:
    server = await live_server(max_frame_bytes=4096)
    client = await open_client(server, encoding)
    big = client.codec.encode({"type": "chat", "rid": 1, "table": "t", "text": "x" * 4200})
    assert 4096 < len(big) <= ws_max_size(server.app.config)
    await client.send_raw(big)
    reply = await client.receive()
    assert reply["type"] == "error" and reply["code"] == "oversized"
    assert (await client.request("ping"))["type"] == "pong"


async def test_reads_are_capped_and_a_frame_longer_than_one_read_arrives_whole(
        live: Live) -> None:
    """Each accepted socket reads at most `Config.read_chunk_bytes` per `recv()` (not asyncio's
    256 KiB, which costs a 256 KiB allocation per read); a frame three reads long is still
    taken whole: its answer carries the rid that is its last field."""
    client = await open_client(live)
    await client.request("ping")
    (conn,) = live.app.edge.connections.values()
    chunk = live.app.config.read_chunk_bytes
    assert conn.ws.transport.max_size == chunk  # type: ignore[attr-defined]
    frame = '{"type":"ping","t":1,"pad":"' + "x" * (3 * chunk) + '","rid":77}'
    assert chunk * 3 < len(frame) < live.app.config.max_frame_bytes
    await client.send_raw(frame)
    reply = await client.receive()
    assert reply["rid"] == 77
    assert (await client.request("ping"))["type"] == "pong"


async def test_frame_beyond_the_websocket_limit_closes_1009(live_server: LiveFactory) -> None:
    server = await live_server(max_frame_bytes=4096)
    client = await open_client(server)
    await client.send_raw("x" * (ws_max_size(server.app.config) + 1))
    with pytest.raises(ConnectionClosed) as excinfo:
        await client.receive()
    assert excinfo.value.rcvd is not None and excinfo.value.rcvd.code == 1009


async def test_an_exception_in_handling_is_internal_error_and_the_connection_goes_on(
    live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(request: object) -> dict[str, object]:
        raise RuntimeError("boom")

    monkeypatch.setattr(live.app.registry, "page", broken)
    client = await open_client(live)
    answer = await client.request("tables")
    assert answer["type"] == "error" and answer["code"] == "internal_error"
    monkeypatch.undo()
    assert (await client.request("ping"))["type"] == "pong"


# --- metrics -------------------------------------------------------------------------------
async def test_metrics_exposes_the_counters(live: Live) -> None:
    client = await open_client(live)
    await client.request("ping")
    await client.send_raw("garbage")
    assert (await client.receive())["code"] == "malformed"
    metrics = await scrape(live)
    assert metrics["poker_connections"] == 1
    assert metrics["poker_tables"] == 0
    assert metrics["poker_messages_in_total"] >= 2
    assert metrics["poker_messages_out_total"] >= 2
    assert metrics['poker_errors_total{code="malformed"}'] == 1
    assert metrics["poker_slow_consumer_disconnects_total"] == 0
    assert metrics["poker_hands_total"] == 0
    assert metrics['poker_action_latency_seconds_bucket{le="+Inf"}'] == 0
    assert "poker_action_latency_seconds_count" in metrics
    await client.ws.close()


# --- the inbound path: messages handled as parsed, in order behind a request that waits ------
async def test_messages_behind_a_waiting_hello_are_answered_after_it_in_order(
        live: Live, monkeypatch: pytest.MonkeyPatch) -> None:
    """A `hello` that waits (the store) holds the connection's later messages until it is
    answered: the pings sent right behind it are answered after its `ok` and `welcome`, in the
    order sent; past `Config.inbound_high_water` waiting messages the socket is not read (and is
    again once they are handled)."""
    release = asyncio.Event()
    entered = asyncio.Event()
    real_hello = live.app.sessions.hello

    async def slow_hello(request: Any, *args: Any) -> Any:
        entered.set()
        await release.wait()
        return await real_hello(request, *args)

    monkeypatch.setattr(live.app.sessions, "hello", slow_hello)
    client = await open_client(live)
    await client.send({"type": "hello", "rid": "h", "guest": "Ann"})
    await asyncio.wait_for(entered.wait(), TIMEOUT)
    (conn,) = live.app.edge.connections.values()
    transport = conn.ws.transport
    paused = asyncio.Event()
    real_pause = transport.pause_reading

    def pause_reading() -> None:
        paused.set()
        real_pause()

    monkeypatch.setattr(transport, "pause_reading", pause_reading)
    count = live.app.config.inbound_high_water + 2  # (within the request bucket's burst)
    for i in range(count):
        await client.send({"type": "ping", "rid": i, "t": i})
    await asyncio.wait_for(paused.wait(), TIMEOUT)
    assert conn._reading_paused
    release.set()
    order = [await client.receive() for _ in range(count + 2)]
    assert [m["type"] for m in order[:2]] == ["ok", "welcome"] and order[0]["rid"] == "h"
    assert [(m["type"], m["rid"]) for m in order[2:]] == [("pong", i) for i in range(count)]
    assert not conn._reading_paused and conn._inbound is None
    assert (await client.request("tables"))["type"] == "ok"


async def test_a_fragmented_message_is_joined(live: Live) -> None:
    client = await open_client(live)
    await client.ws.send(['{"type":"pi', 'ng","t":2,', '"rid":5}'])
    reply = await client.receive()
    assert (reply["type"], reply["rid"]) == ("pong", 5)
    binary = await open_client(live, SUBPROTOCOL_MSGPACK)
    packed = msgpack.packb({"type": "ping", "t": 3, "rid": 6})
    await binary.ws.send([packed[:4], packed[4:9], packed[9:]])
    reply = await binary.receive()
    assert (reply["type"], reply["rid"]) == ("pong", 6)


async def test_too_many_fragments_close_1009_and_bad_utf8_closes_1007(
        live: Live, fast_send: bool) -> None:
    """Both receive paths (`fast_send`) close a message in more than `max_fragments` pieces
    with 1009; one in exactly `max_fragments` is joined and answered."""
    pieces = live.app.config.max_fragments
    assert pieces == 16  # the default
    whole = await open_client(live)
    text = '{"type":"ping","rid":3}'
    # (websockets' client ends a fragmented message with an empty piece: `pieces` in all)
    await whole.ws.send([*text[:pieces - 2], text[pieces - 2:]])
    reply = await whole.receive()
    assert (reply["type"], reply["rid"]) == ("pong", 3)
    client = await open_client(live)
    await client.ws.send(["x"] * (pieces + 1))
    with pytest.raises(ConnectionClosed) as excinfo:
        await client.receive()
    assert excinfo.value.rcvd is not None and excinfo.value.rcvd.code == 1009
    other = await open_client(live)
    await other.ws.send(b'{"type":"ping","rid":1,"t":"\xff\xfe"}', text=True)
    with pytest.raises(ConnectionClosed) as excinfo:
        await other.receive()
    assert excinfo.value.rcvd is not None and excinfo.value.rcvd.code == 1007


async def test_every_frame_counts_a_ping_flood_closes_1008(live_server: LiveFactory) -> None:
    """Control frames count against the frame limit too (`frame_burst` 5, `frame_rate` 1,
    and the request bucket no larger, `flood_limit` 3): after a request (one frame), pings
    beyond the burst are strikes and the fourth strike closes the connection with 1008
    `flooding`, counted once in `poker_flood_disconnects_total`."""
    live = await live_server(frame_rate=1.0, frame_burst=5, request_rate=1.0, request_burst=5,
                             flood_limit=3)
    client = await open_client(live)
    assert (await client.request("ping"))["type"] == "pong"
    for _ in range(20):
        if client.ws.close_code is not None or client.ws.protocol.close_rcvd is not None:
            break
        await client.ws.ping()
    await asyncio.wait_for(client.ws.wait_closed(), TIMEOUT)
    assert (client.ws.close_code, client.ws.close_reason) == (1008, "flooding")
    seen = await scrape(live)
    assert seen["poker_flood_disconnects_total"] == 1
    other = await open_client(live)  # others are not affected
    assert (await other.request("ping"))["type"] == "pong"


async def raw_socket(live: Live) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A WebSocket opened by hand that reads nothing after the handshake (its reader stops
    at 1 KiB), once the edge has its `Connection`."""
    host, port = live.host_port
    known = set(live.app.edge.connections)
    reader, writer = await asyncio.open_connection(host, port, limit=1024)
    writer.write(f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                 "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                 "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n".encode())
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), TIMEOUT)
    assert b" 101 " in head.split(b"\r\n", 1)[0]
    for _ in range(1000):  # (the handler registers it within a few loop turns)
        if set(live.app.edge.connections) - known:
            break
        await asyncio.sleep(0)
    return reader, writer


async def test_a_client_that_does_not_read_is_cut_over_the_write_budget(
        live_server: LiveFactory) -> None:
    """`max_write_buffer` 64 KiB: a client that does not read is sent 140 frames of 30 KB
    (4.2 MB, more than every socket buffer on the way): what waits in the transport plus
    the outbox goes over the budget, so the TCP connection is aborted at once (no close
    handshake) and counted in `poker_write_budget_disconnects_total{reason="buffer"}`; on
    both send paths."""
    live = await live_server(max_write_buffer=65536)
    _, writer = await raw_socket(live)
    (conn,) = live.app.edge.connections.values()
    frame = "x" * 30_000
    for _ in range(140):
        conn.send(frame)
    ws = conn.ws
    assert isinstance(ws, EdgeConnection)
    await asyncio.wait_for(ws.lost, TIMEOUT)
    assert conn.closing
    seen = await scrape(live)
    assert seen['poker_write_budget_disconnects_total{reason="buffer"}'] == 1
    assert seen['poker_write_budget_disconnects_total{reason="stall"}'] == 0
    assert seen["poker_slow_consumer_disconnects_total"] == 0
    writer.close()


async def test_writes_paused_past_the_stall_timeout_cut_the_socket(
        live_server: LiveFactory) -> None:
    """`write_stall_timeout` 0.3 s and a budget it cannot reach: a client that does not read
    is sent enough to pause the server's writes (above websockets' 32 KiB high-water mark,
    within the outbox), and is aborted once they have stayed paused 0.3 s
    (`reason="stall"`); a reading client sent the same is not."""
    live = await live_server(max_write_buffer=1 << 30, write_stall_timeout=0.3)
    reading = await open_client(live)
    assert (await reading.request("ping"))["type"] == "pong"
    _, writer = await raw_socket(live)
    conns = list(live.app.edge.connections.values())
    frame = "y" * 30_000
    for _ in range(60):  # 1.8 MB each
        for conn in conns:
            conn.send(frame)
    silent = conns[-1]
    assert isinstance(silent.ws, EdgeConnection)

    async def read_all() -> None:
        for _ in range(60):
            assert await reading.ws.recv() == frame

    await asyncio.wait_for(asyncio.gather(read_all(), silent.ws.lost), TIMEOUT)
    assert (await reading.request("ping"))["type"] == "pong"
    seen = await scrape(live)
    assert seen['poker_write_budget_disconnects_total{reason="stall"}'] == 1
    assert seen['poker_write_budget_disconnects_total{reason="buffer"}'] == 0
    writer.close()


def test_messages_before_the_handler_are_kept_and_handed_over_in_order() -> None:
    """`EdgeConnection` (unit): data frames parsed before the edge sets `on_message` (between
    the handshake and the handler) are kept, then handed over in order when it is set; text
    and binary pieces of fragmented messages are joined."""
    from websockets.frames import Frame, Opcode

    from server.net.fastpath import EdgeConnection

    conn = EdgeConnection.__new__(EdgeConnection)  # no socket: only the frame handling
    conn.request = object()  # type: ignore[assignment]  # (the handshake is done)
    conn._on_message = None
    conn._early = []
    conn._fragments = None
    conn._fragments_text = False
    conn.process_event(Frame(Opcode.TEXT, b'{"a":1}'))
    conn.process_event(Frame(Opcode.BINARY, b"\x81\xa1b\x02", fin=False))
    conn.process_event(Frame(Opcode.CONT, b"", fin=True))
    got: list[str | bytes] = []
    conn.set_on_message(got.append)
    # (a UTF-8 character split between two fragments: joined before it is decoded)
    conn.process_event(Frame(Opcode.TEXT, b'{"c":"\xc3', fin=False))
    conn.process_event(Frame(Opcode.CONT, b'\xa9"}', fin=True))
    assert got == ['{"a":1}', b"\x81\xa1b\x02", '{"c":"é"}']
