"""One server process per data directory (the embedded store), and a plain answer to a second.

Rule of this module: `poker-server` with the embedded store holds an exclusive `flock` on
`<data dir>/server.lock` (`LOCK_NAME`) for as long as it runs; the kernel drops it when the
process ends, however it ends (a killed server leaves no stale lock). The file says who holds
it: the pid, then the address players open once the server listens. A second server on the
same data directory (a second `python3 dev.py serve` in the same checkout) does not start: it
prints `AlreadyRunning.advice` (who runs there, and the `--port` and `--data-dir` of a second
one) and exits 1. Two processes must never share one ledger file; with `--redis` each process
is a `--node` of its own and the store's node claim (`server.ledger`) keeps them apart.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from pathlib import Path

__all__ = ["LOCK_NAME", "AlreadyRunning", "DataDirLock", "port_in_use_advice"]

LOCK_NAME = "server.lock"


class AlreadyRunning(Exception):
    """The data directory is another live server's (`pid`, and `url` once it listened)."""

    def __init__(self, data_dir: Path, pid: int | None, url: str | None) -> None:
        super().__init__(f"{data_dir} is in use by another server (pid {pid})")
        self.data_dir, self.pid, self.url = data_dir, pid, url

    def advice(self, port: int) -> str:
        """What to tell the person who started the second server (`port`: the one asked)."""
        who = f"pid {self.pid}" if self.pid else "another process"
        where = f", listening on {self.url}" if self.url else ""
        other = port + 1 if 0 < port < 65535 else 8081
        return (f"poker-server: a server is already running from the data directory "
                f"{self.data_dir} ({who}{where}).\n"
                f"  Use that one, or stop it (Ctrl-C in its terminal, or kill {self.pid}).\n"
                f"  To run a second server beside it, give it its own port and data "
                f"directory: --port {other} --data-dir {self.data_dir}-{other}\n"
                f"  (e.g. python3 dev.py serve --port {other} --data-dir "
                f"{self.data_dir}-{other})")


def port_in_use_advice(host: str, port: int) -> str:
    """The plain answer when the listening port is taken (by another server or program)."""
    other = port + 1 if 0 < port < 65535 else 8081
    return (f"poker-server: port {port} on {host} is already in use (another poker-server "
            f"with another data directory, or another program).\n"
            f"  Choose another port: --port {other} (or --port 0 for any free one).")


class DataDirLock:
    """The exclusive lock of one data directory, held from `acquire` to `release` (or the
    end of the process)."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.path = data_dir / LOCK_NAME
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock and write this pid; `AlreadyRunning` when a live server holds it."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            held = _read(fd)
            os.close(fd)
            pid = held.get("pid")
            url = held.get("url")
            raise AlreadyRunning(self.data_dir, pid if isinstance(pid, int) else None,
                                 url if isinstance(url, str) else None) from None
        self._fd = fd
        self._write({"pid": os.getpid()})

    def announce(self, url: str) -> None:
        """Once listening: the address players open, for a second server's message."""
        if self._fd is not None:
            self._write({"pid": os.getpid(), "url": url})

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, 0)
            os.close(self._fd)  # (closing drops the flock)
            self._fd = None

    def _write(self, data: dict[str, object]) -> None:
        assert self._fd is not None
        text = json.dumps(data).encode()
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, text, 0)


def _read(fd: int) -> dict[str, object]:
    try:
        data = json.loads(os.pread(fd, 4096, 0) or b"{}")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
