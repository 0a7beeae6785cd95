"""Encode once per codec, send to many (protocol/frames.py): one encoding per codec, the same
frame object to every connection of that codec, failures handed back, checks on request."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from protocol import JSON_CODEC, MSGPACK_CODEC
from protocol.errors import ProtocolError
from protocol.frames import EncodedOnce, deliver


@dataclass(eq=False)
class Conn:
    codec: Any
    frames: list[str | bytes] = field(default_factory=list)
    broken: bool = False

    def send(self, frame: str | bytes) -> None:
        if self.broken:
            raise ConnectionError("gone")
        self.frames.append(frame)


class CountingCodec:
    """JSON, counting its encodings."""

    subprotocol = "counting"
    binary = False

    def __init__(self) -> None:
        self.calls = 0

    def encode(self, message: Any, *, check: bool = True) -> str:
        self.calls += 1
        return JSON_CODEC.encode(message, check=check)


def test_each_codec_encodes_once_and_shares_one_frame_object() -> None:
    counting = CountingCodec()
    conns = [Conn(JSON_CODEC), Conn(MSGPACK_CODEC), Conn(counting), Conn(counting),
             Conn(JSON_CODEC), Conn(MSGPACK_CODEC), Conn(counting)]
    sent = deliver({"type": "chat", "text": "hi"}, conns)
    assert sent == 7 and counting.calls == 1
    json_frames = [c.frames[0] for c in conns if c.codec is JSON_CODEC]
    msgpack_frames = [c.frames[0] for c in conns if c.codec is MSGPACK_CODEC]
    assert json_frames[0] is json_frames[1] and msgpack_frames[0] is msgpack_frames[1]
    assert JSON_CODEC.decode(json_frames[0]) == MSGPACK_CODEC.decode(msgpack_frames[0]) == {
        "type": "chat", "text": "hi"}


def test_a_failing_receiver_is_handed_back_and_the_others_still_get_it() -> None:
    conns = [Conn(JSON_CODEC), Conn(JSON_CODEC, broken=True), Conn(MSGPACK_CODEC)]
    failed: list[tuple[Conn, Exception]] = []
    sent = deliver({"type": "jackpot", "pool": 5}, conns,
                   failed=lambda c, e: failed.append((c, e)))
    assert sent == 2 and [c for c, _ in failed] == [conns[1]]
    assert isinstance(failed[0][1], ConnectionError)
    assert conns[0].frames and conns[2].frames
    with pytest.raises(ConnectionError):  # without `failed`, the error is the caller's
        deliver({"type": "jackpot", "pool": 5}, conns)


def test_checked_by_default_unchecked_on_request_and_reusable() -> None:
    bad = {"type": "x", "value": 2 ** 70}  # outside the data model's integers
    with pytest.raises(ProtocolError):
        deliver(bad, [Conn(JSON_CODEC)])
    once = EncodedOnce({"type": "x", "n": 1}, check=False)
    first, second = Conn(JSON_CODEC), Conn(JSON_CODEC)
    assert deliver(once, [first]) == 1 and deliver(once, [second]) == 1
    assert first.frames[0] is second.frames[0] is once.frame(JSON_CODEC)
    assert deliver({"type": "x"}, []) == 0
