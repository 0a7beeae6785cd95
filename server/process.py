"""Process-wide set-up of a serving process: its log format and its garbage collector.

Rule of this module: called once, from `server.main` (start-up), never from a request path;
standard library only.
"""

from __future__ import annotations

import gc
import logging
import sys

__all__ = ["GC_GEN0_THRESHOLD", "configure_logging", "tune_gc"]


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


GC_GEN0_THRESHOLD = 50_000
"""Allocations between young collections in a serving process (CPython's default is 700).
A hand makes tens of thousands of short-lived objects (messages, frames, events); at 700
the collector ran hundreds of times a second and promoted them, which fed the full
collections (20-70 ms pauses in the action latency)."""


def tune_gc() -> None:
    """Once the server is up: move every start-up object (modules, the evaluator's tables,
    the app) to the permanent generation (`gc.freeze`), so collections never walk them
    again, and collect young objects less often (`GC_GEN0_THRESHOLD`)."""
    gc.collect()
    gc.freeze()
    _, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(GC_GEN0_THRESHOLD, gen1, gen2)
