"""A second server in the same checkout (issue 24): one server per data directory
(`server.instance`), and a plain answer, with the `--port` and `--data-dir` of a second one,
when the data directory or the port is taken."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from server.instance import LOCK_NAME, AlreadyRunning, DataDirLock, port_in_use_advice
from tests.net.test_main import ROOT, start_server, stop_server


def test_the_lock_is_exclusive_and_says_who_holds_it(tmp_path: Path) -> None:
    first = DataDirLock(tmp_path / "data")
    first.acquire()
    first.announce("http://127.0.0.1:8080/")
    second = DataDirLock(tmp_path / "data")
    with pytest.raises(AlreadyRunning) as caught:
        second.acquire()
    busy = caught.value
    assert (busy.pid, busy.url) == (os.getpid(), "http://127.0.0.1:8080/")
    advice = busy.advice(8080)
    assert f"pid {os.getpid()}" in advice and "listening on http://127.0.0.1:8080/" in advice
    assert f"--port 8081 --data-dir {tmp_path / 'data'}-8081" in advice
    assert "python3 dev.py serve --port 8081" in advice
    first.release()
    first.release()  # (twice is harmless)
    second.acquire()  # free again
    assert json.loads((tmp_path / "data" / LOCK_NAME).read_text()) == {"pid": os.getpid()}
    second.announce("http://x/")
    second.release()
    assert (tmp_path / "data" / LOCK_NAME).read_text() == ""


def test_a_lock_file_without_a_live_holder_is_free(tmp_path: Path) -> None:
    """A killed server leaves its file but not its lock (the kernel drops a flock)."""
    (tmp_path / LOCK_NAME).write_text('{"pid": 999999, "url": "http://old/"}')
    lock = DataDirLock(tmp_path)
    lock.acquire()
    lock.release()


def test_advice_for_an_unknown_holder_and_port_zero(tmp_path: Path) -> None:
    text = AlreadyRunning(tmp_path, None, None).advice(0)
    assert "another process" in text and "--port 8081" in text
    assert "--port 8081" in port_in_use_advice("127.0.0.1", 8080)
    assert "--port 0" in port_in_use_advice("127.0.0.1", 65535)


def second(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "server.main", *argv], cwd=ROOT,
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONUNBUFFERED": "1"})


def test_a_second_server_on_the_same_data_dir_or_port_says_so_plainly(tmp_path: Path) -> None:
    running = start_server(tmp_path / "data")
    try:
        same_dir = second("--port", "0", "--data-dir", str(tmp_path / "data"))
        same_port = second("--port", str(running.port), "--data-dir", str(tmp_path / "other"))
    finally:
        assert stop_server(running) == 0
    assert same_dir.returncode == 1 and same_dir.stdout == ""
    assert same_dir.stderr.startswith("poker-server: a server is already running from the "
                                      f"data directory {tmp_path / 'data'} (pid "
                                      f"{running.proc.pid}, listening on {running.url})")
    assert "--port 8081 --data-dir" in same_dir.stderr
    assert same_port.returncode == 1
    assert (f"poker-server: port {running.port} on 127.0.0.1 is already in use"
            in same_port.stderr)
    assert f"--port {running.port + 1}" in same_port.stderr
