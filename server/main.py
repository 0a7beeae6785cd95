"""The server process: command line, logging, the listening socket, graceful shutdown.

Rule of this module: it is the only place that reads the command line and builds the `Config`;
everything else receives the `Config`. One port serves plain HTTP (health, readiness, the static
client; see `server.net.http`) and the WebSocket at `/ws` (`handle_connection`).

Run it as `poker-server [--host H] [--port P] [--test-mode] [--redis URL] [--data-dir DIR]`.
Once listening it prints exactly one line to stdout, `poker-server listening on http://H:P/`
(the actually bound port, so `--port 0` is usable by tests), then logs structured lines
(key=value) to stderr. SIGTERM or SIGINT closes it gracefully within
`Config.shutdown_deadline` and the process exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import msgpack
import orjson
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

from server.config import Config
from server.net.http import WS_PATH, HttpEndpoints

log = logging.getLogger("server.main")

SUBPROTOCOL_JSON = Subprotocol("poker.v1.json")
SUBPROTOCOL_MSGPACK = Subprotocol("poker.v1.msgpack")
SUBPROTOCOLS = [SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK]
"""PROTOCOL.md Transport: the server honours the client's first offer; no offer means JSON."""


def select_subprotocol(
    connection: ServerConnection, offered: Sequence[Subprotocol]
) -> Subprotocol | None:
    """Pick the client's first offer that we speak; None (JSON) when it offers none of ours."""
    for subprotocol in offered:
        if subprotocol in SUBPROTOCOLS:
            return subprotocol
    return None


# --------------------------------------------------------------------------------------------
# WebSocket handler (placeholder until server.net takes over)
# --------------------------------------------------------------------------------------------


async def handle_connection(connection: ServerConnection) -> None:
    """Serve one WebSocket connection at `/ws`.

    Placeholder: no message type is implemented yet, so every decodable request is answered
    with `{"type": "error", "code": "unknown_type", ...}` (echoing its `rid`), and an
    undecodable frame with code `malformed`. The connection stays open. `server.net` replaces
    this function with the real edge (decode, dispatch to table actors, bounded outbox).
    """
    binary = connection.subprotocol == SUBPROTOCOL_MSGPACK
    try:
        async for frame in connection:
            reply = _placeholder_reply(frame, binary=binary)
            await connection.send(_encode(reply, binary=binary))
    except ConnectionClosed:
        pass


def _placeholder_reply(frame: str | bytes, *, binary: bool) -> dict[str, Any]:
    try:
        message = msgpack.unpackb(frame, raw=False) if binary else orjson.loads(frame)
    except Exception:
        return {"type": "error", "code": "malformed", "message": "frame could not be decoded"}
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        return {"type": "error", "code": "malformed", "message": "expected an object with type"}
    reply: dict[str, Any] = {
        "type": "error",
        "code": "unknown_type",
        "message": f"unknown message type {message['type']!r}",
    }
    if "rid" in message:
        reply["rid"] = message["rid"]
    return reply


def _encode(message: dict[str, Any], *, binary: bool) -> str | bytes:
    if binary:
        packed: bytes = msgpack.packb(message, use_bin_type=True)
        return packed
    return orjson.dumps(message).decode("utf-8")


# --------------------------------------------------------------------------------------------
# Command line and process lifecycle
# --------------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface; every option maps onto one `Config` field."""
    defaults = Config()
    parser = argparse.ArgumentParser(
        prog="poker-server",
        description="Real-time poker server: HTTP (static client, /healthz, /readyz) and a "
        f"WebSocket at {WS_PATH} on one port.",
    )
    parser.add_argument(
        "--host", default=defaults.host, help=f"interface to bind (default {defaults.host})"
    )
    parser.add_argument(
        "--port",
        type=int,
        default=defaults.port,
        help=f"TCP port (default {defaults.port}; 0 picks a free port)",
    )
    parser.add_argument(
        "--test-mode",
        action="store_true",
        help="enable test-only features such as scripted decks (never for production)",
    )
    parser.add_argument(
        "--redis",
        metavar="URL",
        default=None,
        help="redis://host:port/db for the shared store; default: the embedded store",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=defaults.data_dir,
        help=f"directory of the embedded store (default {defaults.data_dir})",
    )
    return parser


def config_from_args(args: argparse.Namespace) -> Config:
    """Turn parsed arguments into the one immutable `Config`."""
    return Config(
        host=args.host,
        port=args.port,
        test_mode=args.test_mode,
        redis_url=args.redis,
        data_dir=args.data_dir,
    )


def configure_logging(level: int = logging.INFO) -> None:
    """Structured logs: one `key=value` line per event on stderr."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        logging.Formatter(
            "ts=%(asctime)s level=%(levelname)s logger=%(name)s %(message)s",
            datefmt="%Y-%m-%dT%H:%M:%S%z",
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # websockets logs every rejected (plain HTTP) handshake at INFO; we log our own line.
    logging.getLogger("websockets").setLevel(logging.WARNING)


def listening_url(host: str, port: int) -> str:
    """The URL printed at start-up; IPv6 literals get brackets."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def _bound_port(server: Server, fallback: int) -> int:
    for sock in server.sockets:
        address = sock.getsockname()
        if isinstance(address, tuple) and len(address) >= 2:
            return int(address[1])
    return fallback


async def run(
    config: Config,
    *,
    stop: asyncio.Event | None = None,
    on_listening: Callable[[str], None] | None = None,
) -> None:
    """Serve until `stop` is set (or SIGTERM/SIGINT arrives), then shut down gracefully.

    `on_listening` is called with the URL once the socket is bound (in-process tests use it).
    Signal handlers are installed only when running in the main thread.
    """
    stop = stop if stop is not None else asyncio.Event()
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError, ValueError):
            continue
        installed.append(sig)

    if config.redis_url is None:
        config.data_dir.mkdir(parents=True, exist_ok=True)

    http = HttpEndpoints(static_dir=config.static_dir)
    server = await serve(
        handle_connection,
        config.host,
        config.port,
        process_request=http.process_request,
        subprotocols=SUBPROTOCOLS,
        select_subprotocol=select_subprotocol,
        compression="deflate" if config.compression else None,
        max_size=config.max_frame_bytes,
        ping_interval=config.ping_interval or None,
        ping_timeout=config.ping_timeout or None,
    )
    try:
        url = listening_url(config.host, _bound_port(server, config.port))
        http.ready = True
        print(f"poker-server listening on {url}", flush=True)
        log.info(
            "event=listening url=%s test_mode=%s store=%s",
            url,
            config.test_mode,
            "redis" if config.redis_url else "embedded",
        )
        if on_listening is not None:
            on_listening(url)
        await stop.wait()
        log.info("event=shutdown_started deadline=%s", config.shutdown_deadline)
    finally:
        http.ready = False
        server.close()
        try:
            await asyncio.wait_for(server.wait_closed(), config.shutdown_deadline)
        except TimeoutError:
            log.warning("event=shutdown_deadline_exceeded deadline=%s", config.shutdown_deadline)
        for sig in installed:
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(sig)
        log.info("event=stopped")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `poker-server`: parse `argv`, serve until signalled, return exit code 0."""
    args = build_parser().parse_args(argv)
    try:
        config = config_from_args(args)
    except ValueError as error:
        build_parser().error(str(error))
    configure_logging()
    try:
        asyncio.run(run(config))
    except KeyboardInterrupt:  # a second Ctrl-C, or a signal before handlers were installed
        return 130
    except OSError as error:  # e.g. address already in use
        log.error("event=start_failed error=%r", str(error))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
