"""`Connection.send`: the direct write (fan-out fast path: the frames of one event-loop turn
in one transport write) and the outbox keep every frame in order, and a socket under flow
control gets its frames through the outbox and the writer."""

from __future__ import annotations

import asyncio

import pytest

from protocol import JSON_CODEC, SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK
from server.net.edge import Connection
from tests.net.conftest import TIMEOUT, Live, open_client


@pytest.fixture(params=[True, False], ids=["fast", "plain"])
def fast_send(request: pytest.FixtureRequest) -> bool:
    """Every live test of this module runs over both send paths (`Config.fast_send`)."""
    return bool(request.param)


def _server_side(live: Live) -> Connection:
    """The server's `Connection` of the one client connected (a frame exchange proves the
    handler registered it)."""
    (conn,) = live.app.edge.connections.values()
    return conn


def _frame(i: int) -> str:
    return str(JSON_CODEC.encode({"type": "chat", "table": "t", "seq": i, "text": f"m{i}"},
                                 check=False))


async def test_frames_keep_their_order_across_flow_control(live: Live, fast_send: bool) -> None:
    client = await open_client(live, SUBPROTOCOL_JSON)
    await client.request("ping", t=1)  # the handler runs: its Connection is registered
    conn = _server_side(live)

    writes: list[bytes] = []
    transport_write = conn.ws.transport.write
    conn.ws.transport.write = lambda data: (writes.append(data), transport_write(data))[1]
    for i in range(3):  # socket takes data: batched, then written in one write
        conn.send(_frame(i))
    await asyncio.sleep(0)  # the end of the turn: the batch is written
    if fast_send:
        assert conn.outbox.empty()
        assert len(writes) == 1, "the frames of one turn go out in one transport write"
    else:  # websockets' public path: the outbox and `await ws.send()`, a write per frame
        await asyncio.wait_for(conn.outbox.join(), TIMEOUT)
        assert len(writes) == 3

    conn.ws.pause_writing()  # the transport's flow control says: buffer full
    for i in range(3, 8):
        conn.send(_frame(i))
    await asyncio.sleep(0)
    assert conn._backlog == 5, "under flow control frames go to the outbox (and its writer)"
    conn.ws.resume_writing()
    conn.send(_frame(8))  # frames wait in the outbox: queued behind them
    await asyncio.wait_for(conn.outbox.join(), TIMEOUT)
    conn.send(_frame(9))  # idle again: written at once (fast path) or by the writer
    await asyncio.sleep(0)
    await asyncio.wait_for(conn.outbox.join(), TIMEOUT)

    seqs = [(await client.receive())["seq"] for _ in range(10)]
    assert seqs == list(range(10))
    await client.ws.close()


async def test_binary_frames_take_the_direct_path_too(live: Live, fast_send: bool) -> None:
    client = await open_client(live, SUBPROTOCOL_MSGPACK)
    await client.request("ping", t=1)
    conn = _server_side(live)
    for i in range(5):
        conn.send(conn.codec.encode({"type": "chat", "table": "t", "seq": i, "text": "x"},
                                    check=False))
    await asyncio.sleep(0)
    assert conn.outbox.empty() or not fast_send
    assert [(await client.receive())["seq"] for _ in range(5)] == list(range(5))
    await client.ws.close()


def test_wire_bytes_are_websockets_own_frames() -> None:
    """The fan-out's prebuilt frame bytes equal websockets' serialisation (RFC 6455 5.2:
    7-bit, 16-bit and 64-bit lengths; a server never masks)."""
    from websockets.frames import Frame, Opcode

    from server.net.fastpath import wire as _wire

    for n in (0, 10, 125, 126, 200, 65535, 65536, 70000):
        text, data = "x" * n, b"y" * n
        assert _wire(text) == Frame(Opcode.TEXT, text.encode()).serialize(mask=False,
                                                                          extensions=[])
        assert _wire(data) == Frame(Opcode.BINARY, data).serialize(mask=False, extensions=[])


async def test_the_send_path_follows_the_config(live: Live, fast_send: bool) -> None:
    """`Config.fast_send` False: no fast writer, messages through websockets' `async for`."""
    client = await open_client(live, SUBPROTOCOL_JSON)
    await client.request("ping", t=1)
    conn = _server_side(live)
    assert (conn._fast is not None) is fast_send
    assert getattr(conn.ws, "fast_receive", None) is fast_send
    await client.ws.close()
