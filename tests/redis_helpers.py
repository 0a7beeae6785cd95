"""A ``redis-server`` of the test's own: a free port, a temporary directory, and control over
its life (stop, SIGKILL, restart with the same data) for persistence and fault tests."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path


def redis_binary() -> str:
    path = os.environ.get("POKER_REDIS_SERVER") or shutil.which("redis-server")
    if not path:
        raise RuntimeError("redis-server is not installed; `python3 dev.py test` installs it")
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisProcess:
    """One redis-server on 127.0.0.1, data in ``workdir``; ``appendonly`` for durability."""

    def __init__(self, workdir: Path, *, appendonly: bool = True, port: int | None = None) -> None:
        self.workdir = workdir
        self.appendonly = appendonly
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        args = [redis_binary(), "--port", str(self.port), "--bind", "127.0.0.1",
                "--dir", str(self.workdir), "--save", "", "--protected-mode", "no",
                "--appendonly", "yes" if self.appendonly else "no",
                "--appendfsync", "always", "--loglevel", "warning"]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        while True:  # wait for the port to answer PING, bounded
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server exited: {self.proc.stderr.read()!r}")  # type: ignore[union-attr]
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("redis-server did not answer in time")
            time.sleep(0.02)  # polling a child process's port: there is no event to wait on

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(10)
        self.proc = None

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()
