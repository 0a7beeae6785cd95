"""The WebSocket-edge attacks of issue 23, as an attacker process: run it in a subprocess
(`python -m tests.security.wsattack MODE ...`) so that its CPU is not the probe's, and read the
one JSON line it prints at the end.

Modes (every socket opens from one of `--sources`, as outside attackers from other addresses;
a socket that is closed opens again until `--seconds` have passed, so the attack lasts; with
`--until-ended N` it goes on after that until the server has ended N sockets, or for at most
`--max-seconds`, so a loaded machine that cuts them more slowly is waited for, not raced):

* `pings`: a socket writes ping frames (125-byte payloads) as fast as its socket takes them and
  never reads a byte after the handshake (its reader stops at a few KiB): every pong the
  server answers piles up on the server's side.
* `fragments`: a socket writes text messages of `--pieces` frames (one byte each) at `--rate`
  messages a second and reads what comes back (the close code).
* `frames`: the same as fast as the socket takes them (use `--pieces` within the server's
  `max_fragments`: the frame rate limit is what must stop it).

It prints `go` when it starts, then one JSON summary: `{"connections": opened, "refused":
failed handshakes, "ended": sockets the server ended, "codes": {close code: count}, "frames":
frames written}`. Nothing here trusts the server beyond reading its close frame.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import os
import struct
import time
from collections import Counter
from typing import Any

__all__ = ["close_code", "frame", "main"]

PING_PAYLOAD = b"p" * 125


def frame(opcode: int, payload: bytes, *, fin: bool = True) -> bytes:
    """One masked client frame (the mask key fixed: the server only unmasks)."""
    key = b"\x01\x02\x03\x04"
    n = len(payload)
    first = (0x80 if fin else 0) | opcode
    if n < 126:
        head = struct.pack("!BB", first, 0x80 | n)
    elif n < 65536:
        head = struct.pack("!BBH", first, 0x80 | 126, n)
    else:
        head = struct.pack("!BBQ", first, 0x80 | 127, n)
    masked = bytes(b ^ key[i % 4] for i, b in enumerate(payload))
    return head + key + masked


def fragmented(pieces: int) -> bytes:
    """A text message of `pieces` one-byte frames (TEXT, CONT..., CONT with FIN)."""
    parts = [frame(0x1, b"x", fin=pieces == 1)]
    parts += [frame(0x0, b"x", fin=i == pieces - 1) for i in range(1, pieces)]
    return b"".join(parts)


def close_code(data: bytes) -> int | None:
    """The code of the first close frame among the server's (unmasked) frames in `data`."""
    pos = 0
    while len(data) - pos >= 2:
        b0, length = data[pos], data[pos + 1] & 0x7F
        start = pos + 2
        if length == 126:
            if len(data) - pos < 4:
                return None
            (length,) = struct.unpack_from("!H", data, pos + 2)
            start = pos + 4
        elif length == 127:
            if len(data) - pos < 10:
                return None
            (length,) = struct.unpack_from("!Q", data, pos + 2)
            start = pos + 10
        if (b0 & 0x0F) == 0x8:
            if start + 2 > len(data):
                return None
            (code,) = struct.unpack_from("!H", data, start)
            return int(code)
        pos = start + length
    return None


class Attack:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.deadline = time.monotonic() + args.seconds
        self.hard = time.monotonic() + max(args.seconds, args.max_seconds)
        self.opened = self.refused = self.ended = self.frames = 0
        self.codes: Counter[int] = Counter()

    async def handshake(self, source: str, limit: int
                        ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        args = self.args
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(
                args.host, args.port, local_addr=(source, 0), limit=limit), 5.0)
        except (OSError, TimeoutError):
            self.refused += 1
            return None
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write((f"GET {args.path} HTTP/1.1\r\nHost: {args.host}:{args.port}\r\n"
                      "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: {key}\r\n\r\n").encode())
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5.0)
        except (OSError, TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            head = b""
        if b" 101 " not in head.split(b"\r\n", 1)[0] + b" ":
            self.refused += 1
            writer.close()
            return None
        self.opened += 1
        return reader, writer

    def left(self) -> float:
        """Seconds the pings attack still runs: `--seconds`, then (`--until-ended`) until the
        server has ended that many sockets or `--max-seconds` are over; 0 once over."""
        now = time.monotonic()
        until: int = self.args.until_ended
        if now < self.deadline:
            return float(self.deadline - now)
        if self.ended >= until or now >= self.hard:
            return 0.0
        return float(self.hard - now)

    async def pings(self, source: str) -> None:
        """Pings as fast as the socket takes them; never read (see the module doc)."""
        burst = frame(0x9, PING_PAYLOAD) * 64
        while self.left() > 0:
            pair = await self.handshake(source, limit=1024)
            if pair is None:
                await asyncio.sleep(0.05)  # pacing the reconnection (not a wait on an event)
                continue
            _, writer = pair
            try:
                while self.left() > 0:
                    writer.write(burst)
                    self.frames += 64
                    while not await self.drained(writer):
                        if self.left() <= 0:
                            return  # the attack is over, the socket still open: not ended
            except (OSError, ConnectionError):
                self.ended += 1
            finally:
                writer.transport.abort()

    async def drained(self, writer: asyncio.StreamWriter) -> bool:
        """Whether `writer` drained within a quarter second (or what is left of the attack):
        the server reading, or not; raises when the server ended the socket."""
        try:
            await asyncio.wait_for(writer.drain(), max(0.01, min(0.25, self.left())))
        except TimeoutError:
            return False
        return True

    async def fragments(self, source: str, *, paced: bool) -> None:
        """Messages of `--pieces` frames (see the module doc); reads the close code."""
        message = fragmented(self.args.pieces)
        while time.monotonic() < self.deadline:
            pair = await self.handshake(source, limit=1 << 20)
            if pair is None:
                await asyncio.sleep(0.05)  # pacing the reconnection (not a wait on an event)
                continue
            reader, writer = pair
            reading = asyncio.ensure_future(self.read_close(reader))
            try:
                while time.monotonic() < self.deadline and not reading.done():
                    writer.write(message)
                    self.frames += self.args.pieces
                    await writer.drain()
                    # the attack's own pace; unpaced, a turn for the other sockets and reads
                    await asyncio.sleep(1 / self.args.rate if paced else 0)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(reading), 2.0)
            except (OSError, ConnectionError):
                pass
            finally:
                if reading.done():
                    self.ended += 1
                    self.codes[reading.result() or 1006] += 1
                reading.cancel()
                with contextlib.suppress(BaseException):
                    await reading
                writer.transport.abort()

    @staticmethod
    async def read_close(reader: asyncio.StreamReader) -> int | None:
        """Read until the server's close frame (its code) or the end of the stream (None)."""
        received = bytearray()
        with contextlib.suppress(OSError, ConnectionError):
            while chunk := await reader.read(65536):
                received.extend(chunk)
                found = close_code(bytes(received))
                if found is not None:
                    return found
        return None

    async def run(self) -> dict[str, Any]:
        args = self.args
        sources = args.sources.split(",")
        jobs = []
        for i in range(args.sockets):
            source = sources[i % len(sources)]
            if args.mode == "pings":
                jobs.append(self.pings(source))
            else:
                jobs.append(self.fragments(source, paced=args.mode == "fragments"))
        await asyncio.gather(*jobs)
        return {"connections": self.opened, "refused": self.refused, "ended": self.ended,
                "codes": {str(k): v for k, v in sorted(self.codes.items())},
                "frames": self.frames}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=("pings", "fragments", "frames"))
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--path", default="/ws")
    parser.add_argument("--sources", default="127.0.0.2")
    parser.add_argument("--sockets", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--until-ended", type=int, default=0)
    parser.add_argument("--max-seconds", type=float, default=0.0)
    parser.add_argument("--pieces", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=18.0)
    args = parser.parse_args(argv)
    print("go", flush=True)  # (started: the caller's measurements begin)
    print(json.dumps(asyncio.run(Attack(args).run())), flush=True)


if __name__ == "__main__":
    main()
