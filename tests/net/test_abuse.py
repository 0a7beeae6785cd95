"""Abuse at the edge: token buckets, flooding (1008), a slow consumer (cut, 1013), and
random frames (hypothesis) against a live server without a crash."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path

import msgpack
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect as sync_connect

from protocol import MAX_FRAME_BYTES, REQUEST_TYPES, SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK
from server.config import Config
from server.net.ratelimit import FloodGuard, TokenBucket
from tests.net.conftest import TIMEOUT, LiveFactory, Subprocess, open_client, start_subprocess
from tests.net.test_edge import scrape


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


# --- the buckets, with an injected clock --------------------------------------------------
def test_token_bucket_burst_then_rate() -> None:
    clock = FakeClock()
    bucket = TokenBucket(rate=2.0, burst=3, clock=clock)
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]
    clock.now = 0.5  # one token back
    assert bucket.take() and not bucket.take()
    clock.now = 100.0  # never more than the burst
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]


def test_flood_guard_counts_within_the_window() -> None:
    clock = FakeClock()
    guard = FloodGuard(limit=3, window=1.0, clock=clock)
    assert not any(guard.strike() for _ in range(3))
    clock.now = 1.5  # the old strikes left the window
    assert not any(guard.strike() for _ in range(3))
    assert guard.strike()


# --- rate limits on a live edge ------------------------------------------------------------
async def test_requests_over_the_burst_are_rate_limited_and_the_connection_goes_on(
    live_server: LiveFactory,
) -> None:
    server = await live_server(request_rate=0.001, request_burst=5)
    client = await open_client(server, SUBPROTOCOL_MSGPACK)
    answers = [await client.request("ping") for _ in range(7)]
    assert [a["type"] for a in answers] == ["pong"] * 5 + ["error"] * 2
    assert all(a["code"] == "rate_limited" for a in answers[5:])
    assert answers[6]["rid"] == 7  # the refusal still names the request
    assert not client.ws.close_code


async def test_chat_has_its_own_bucket(live_server: LiveFactory) -> None:
    server = await live_server(chat_rate=0.001, chat_burst=2)
    client = await open_client(server)
    await client.hello("Chatty")
    codes = [(await client.request("chat", table="nope", text="hi"))["code"] for _ in range(3)]
    assert codes == ["unknown_table", "unknown_table", "rate_limited"]
    assert (await client.request("ping"))["type"] == "pong"  # requests are not limited


@pytest.mark.parametrize("encoding", [SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK])
async def test_a_sustained_flood_closes_with_1008(live_server: LiveFactory, encoding: str) -> None:
    server = await live_server(request_rate=0.001, request_burst=5)
    client = await open_client(server, encoding)
    frame = client.codec.encode({"type": "ping", "rid": 0})
    codes: list[str] = []
    with pytest.raises(ConnectionClosed) as excinfo:
        for _ in range(5 + Config().flood_limit + 20):
            await client.send_raw(frame)
        while True:
            reply = await client.receive()
            codes.append(reply.get("code", reply["type"]))
    assert excinfo.value.rcvd is not None and excinfo.value.rcvd.code == 1008
    assert codes[:5] == ["pong"] * 5 and set(codes[5:]) == {"rate_limited"}
    assert server.app.metrics.flood_disconnects_total == 1
    # the server is fine and serves others
    other = await open_client(server, encoding)
    assert (await other.request("ping"))["type"] == "pong"


# --- slow consumer -----------------------------------------------------------------------
async def test_a_client_that_stops_reading_is_cut_and_the_others_keep_pace(
    live_server: LiveFactory,
) -> None:
    """Frames are pushed through the table-side Sink path (`Edge.broadcast`, what the
    registry's jackpot listener calls); the stalled client is cut, the reader gets all."""
    server = await live_server(outbox_size=8)
    stalled = await open_client(server)
    reader = await open_client(server, SUBPROTOCOL_MSGPACK)
    assert (await stalled.request("ping"))["type"] == "pong"
    assert (await reader.request("ping"))["type"] == "pong"
    stalled.ws.transport.pause_reading()  # stop reading: kernel buffers, then outbox, fill

    got = 0

    async def read_all(expected: int) -> None:
        nonlocal got
        while got < expected:
            message = await reader.receive()
            assert message["type"] == "jackpot" and message["pool"] == got
            got += 1

    metrics = server.app.metrics
    payload = "j" * 16384
    sent = 0
    reading = asyncio.create_task(read_all(10**9))
    try:
        while metrics.slow_consumer_disconnects_total == 0:
            assert sent < 20000, "the stalled client was never cut"
            server.app.edge.broadcast({"type": "jackpot", "pool": sent, "table": payload})
            sent += 1
            await asyncio.sleep(0)  # a scheduling point (not a wait): let writers run
            # the healthy reader keeps up, as a real one would
            target = sent - 4
            await asyncio.wait_for(_until(lambda t=target: got >= t or reading.done()), TIMEOUT)
            assert not reading.done(), reading
        assert metrics.slow_consumer_disconnects_total == 1
        for extra in range(5):  # the others go on after the cut
            server.app.edge.broadcast({"type": "jackpot", "pool": sent + extra, "table": "x"})
        sent += 5
        await asyncio.wait_for(_until(lambda: got == sent), TIMEOUT)
    finally:
        reading.cancel()
    # the stalled one is gone server-side (at most `Config.slow_close_timeout` later: TCP abort)
    await asyncio.wait_for(_until(lambda: len(server.app.edge.connections) == 1), TIMEOUT)
    assert (await scrape(server))["poker_slow_consumer_disconnects_total"] == 1
    stalled.ws.transport.resume_reading()
    await asyncio.wait_for(_drain_until_closed(stalled.ws), TIMEOUT)
    # 1013 when the close frame got through; 1006 when the TCP connection had to be aborted
    assert stalled.ws.close_code in (1013, 1006)
    assert not reader.ws.close_code


async def _drain_until_closed(ws: ClientConnection) -> None:
    with contextlib.suppress(ConnectionClosed):
        while True:
            await ws.recv()


async def _until(predicate: object) -> None:
    assert callable(predicate)
    while not predicate():
        await asyncio.sleep(0)


# --- random frames against a live edge (subprocess) ---------------------------------------
@pytest.fixture(scope="module")
def subprocess_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Subprocess]:
    server = start_subprocess(Path(tmp_path_factory.mktemp("fuzz")))
    yield server
    server.proc.terminate()
    assert server.proc.wait(timeout=30) == 0


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=False)
    | st.text(max_size=30),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
field_names = st.sampled_from(
    ["rid", "table", "seat", "buy_in", "action", "amount", "text", "guest", "token", "since",
     "variant", "structure", "stakes", "seats", "decks", "discard", "t", "hand"]
)
requests = st.fixed_dictionaries(
    {"type": st.sampled_from([*REQUEST_TYPES, "bogus", ""])},
    optional={"rid": st.integers(-(2**63), 2**64 - 1) | st.text(max_size=70)},
).flatmap(lambda base: st.dictionaries(field_names, json_values, max_size=5).map(
    lambda extra: {**extra, **base}))
frames = st.one_of(
    st.binary(max_size=200),
    st.text(max_size=200),
    requests.map(lambda m: orjson.dumps(m).decode()),
    requests.map(lambda m: msgpack.packb(m)),
    st.builds(lambda n: "[" * n + "]" * n, st.integers(0, 3000)),
    st.builds(lambda n: b"\x91" * n + b"\xc0", st.integers(0, 3000)),
    st.builds(lambda n: "x" * n, st.just(MAX_FRAME_BYTES + 100)),  # oversized
)


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(frame=frames, encoding=st.sampled_from([SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK]))
def test_random_frames_never_crash_the_edge(
    subprocess_server: Subprocess, frame: str | bytes, encoding: str
) -> None:
    loads = msgpack.unpackb if encoding == SUBPROTOCOL_MSGPACK else orjson.loads
    with sync_connect(subprocess_server.ws_url, subprotocols=[encoding],  # type: ignore[list-item]
                      open_timeout=TIMEOUT) as ws:
        ws.send(frame)
        answer = loads(ws.recv(timeout=TIMEOUT))
        assert answer["type"] in ("ok", "error", "pong"), answer
        if answer["type"] == "error":
            assert isinstance(answer["code"], str) and answer["message"]
        ws.send(msgpack.packb({"type": "ping", "rid": "after"})
                if encoding == SUBPROTOCOL_MSGPACK
                else orjson.dumps({"type": "ping", "rid": "after"}).decode())
        while (reply := loads(ws.recv(timeout=TIMEOUT)))["type"] != "pong":
            assert reply["type"] in ("welcome", "ok", "error"), reply
        assert reply["rid"] == "after"
    assert subprocess_server.proc.poll() is None
