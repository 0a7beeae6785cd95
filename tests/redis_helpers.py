"""A ``redis-server`` of the test's own: a free port, a temporary directory, and control over
its life (stop, SIGKILL, restart with the same data) for persistence and fault tests."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Sequence
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

    def __init__(self, workdir: Path, *, appendonly: bool = True, port: int | None = None,
                 extra: Sequence[str] = ()) -> None:
        self.workdir = workdir
        self.appendonly = appendonly
        self.port = port or free_port()
        self.extra = tuple(extra)
        """More redis-server arguments (e.g. ``--replicaof 127.0.0.1 PORT``)."""
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        args = [redis_binary(), "--port", str(self.port), "--bind", "127.0.0.1",
                "--dir", str(self.workdir), "--save", "", "--protected-mode", "no",
                "--appendonly", "yes" if self.appendonly else "no",
                "--appendfsync", "always", "--loglevel", "warning", *self.extra]
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


def resp(port: int, *args: str, timeout: float = 2.0) -> object:
    """One command to 127.0.0.1:``port`` over a fresh socket; its reply parsed (bulk strings
    as ``str``, arrays as lists, errors as ``RuntimeError``). For the helpers' own checks."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(b"".join([f"*{len(args)}\r\n".encode()]
                           + [f"${len(a.encode())}\r\n{a}\r\n".encode() for a in args]))
        return _read_reply(s.makefile("rb"))


def _read_reply(f: object) -> object:
    line: bytes = f.readline()  # type: ignore[attr-defined]
    kind, rest = line[:1], line[1:-2].decode()
    if kind == b"+":
        return rest
    if kind == b"-":
        raise RuntimeError(rest)
    if kind == b":":
        return int(rest)
    if kind == b"$":
        return None if rest == "-1" else f.read(int(rest) + 2)[:-2].decode()  # type: ignore[attr-defined]
    if kind == b"*":
        return None if rest == "-1" else [_read_reply(f) for _ in range(int(rest))]
    raise RuntimeError(f"bad reply {line!r}")


class SentinelGroup:
    """A primary, ``replicas`` replicas and ``sentinels`` sentinels (``redis-server --sentinel``,
    the binary Debian's redis-sentinel package runs) on loopback, in ``workdir``, watching one
    service; Sentinel's failure detection made short (``down_after_ms``) for tests.
    ``url`` is the adapter's ``redis-sentinel://`` URL for it."""

    def __init__(self, workdir: Path, *, service: str = "poker", replicas: int = 2,
                 sentinels: int = 3, down_after_ms: int = 1000,
                 failover_timeout_ms: int = 3000) -> None:
        self.workdir = workdir
        self.service = service
        self.down_after_ms = down_after_ms
        self.failover_timeout_ms = failover_timeout_ms
        primary = RedisProcess(workdir / "r0")
        self.servers = [primary] + [
            RedisProcess(workdir / f"r{i + 1}",
                         extra=("--replicaof", "127.0.0.1", str(primary.port)))
            for i in range(replicas)]
        self.sentinel_ports = [free_port() for _ in range(sentinels)]
        self.sentinel_procs: list[subprocess.Popen[bytes]] = []

    @property
    def url(self) -> str:
        hosts = ",".join(f"127.0.0.1:{p}" for p in self.sentinel_ports)
        return f"redis-sentinel://{hosts}/{self.service}"

    @property
    def sentinel_arg(self) -> str:
        """``--redis-sentinel``'s value."""
        return ",".join(f"127.0.0.1:{p}" for p in self.sentinel_ports)

    def start(self, timeout: float = 30.0) -> None:
        for server in self.servers:
            server.start()
        primary = self.servers[0].port
        self._poll(lambda: self._online_replicas(primary) == len(self.servers) - 1, timeout,
                   "replicas did not sync")
        for i, port in enumerate(self.sentinel_ports):
            conf = self.workdir / f"sentinel{i}.conf"
            conf.write_text(
                f"port {port}\nbind 127.0.0.1\nprotected-mode no\ndir {self.workdir}\n"
                f"sentinel monitor {self.service} 127.0.0.1 {primary} 2\n"
                f"sentinel down-after-milliseconds {self.service} {self.down_after_ms}\n"
                f"sentinel failover-timeout {self.service} {self.failover_timeout_ms}\n"
                f"sentinel parallel-syncs {self.service} 1\n")
            self.sentinel_procs.append(subprocess.Popen(
                [redis_binary(), str(conf), "--sentinel", "--loglevel", "notice",
                 "--logfile", str(self.workdir / f"sentinel{i}.log")],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        want = (len(self.servers) - 1, len(self.sentinel_ports) - 1)
        self._poll(lambda: all(self._sentinel_view(p) == want for p in self.sentinel_ports),
                   timeout, "sentinels did not discover each other and the replicas")

    def sentinel_logs(self) -> str:
        """What the sentinels logged (their view of every failover: for a failing test)."""
        return "".join(f"--- sentinel{i}\n" + (self.workdir / f"sentinel{i}.log").read_text(
            errors="replace") for i in range(len(self.sentinel_ports))
            if (self.workdir / f"sentinel{i}.log").exists())

    def primary_port(self) -> int:
        """The primary's port as the first answering sentinel tells it."""
        for port in self.sentinel_ports:
            try:
                addr = resp(port, "SENTINEL", "get-master-addr-by-name", self.service)
            except OSError:
                continue
            if isinstance(addr, list):
                return int(addr[1])
        raise RuntimeError("no sentinel answers")

    def master_port(self) -> int:
        """The port of the one running server whose ``ROLE`` is master (after a promotion,
        whatever a sentinel slow to hear of it still says)."""
        masters = []
        for server in self.servers:
            if server.proc is None:
                continue
            role = resp(server.port, "ROLE")
            if isinstance(role, list) and role[0] == "master":
                masters.append(server.port)
        if len(masters) != 1:
            raise RuntimeError(f"not one master: {masters}")
        return masters[0]

    def server_on(self, port: int) -> RedisProcess:
        return next(s for s in self.servers if s.port == port)

    def kill_primary(self) -> RedisProcess:
        """SIGKILL the current primary; returns its process (not restarted)."""
        server = self.server_on(self.primary_port())
        server.kill()
        return server

    def stop(self) -> None:
        for proc in self.sentinel_procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
        self.sentinel_procs = []
        for server in self.servers:
            server.kill()

    def _online_replicas(self, port: int) -> int:
        try:
            info = resp(port, "INFO", "replication")
        except OSError:
            return -1
        return str(info).count("state=online")

    def _sentinel_view(self, port: int) -> tuple[int, int] | None:
        try:
            fields = resp(port, "SENTINEL", "master", self.service)
        except (OSError, RuntimeError):
            return None
        if not isinstance(fields, list):
            return None
        view = dict(zip(fields[::2], fields[1::2], strict=False))
        return int(view["num-slaves"]), int(view["num-other-sentinels"])

    @staticmethod
    def _poll(check: Callable[[], bool], timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while not check():
            if time.monotonic() > deadline:
                raise RuntimeError(what)
            time.sleep(0.05)  # polling child processes' state: there is no event to wait on


def _cluster_port() -> int:
    """A free port whose cluster bus port (+10000) is free too (so below 55536)."""
    for _ in range(200):
        port = free_port()
        if port + 10000 < 65536:
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", port + 10000))
                except OSError:
                    continue
            return port
    raise RuntimeError("no free port pair for a cluster node")


class RedisCluster:
    """A Redis Cluster of ``primaries`` primaries (no replicas) on loopback, in ``workdir``:
    ``redis-server --cluster-enabled yes`` on free ports, joined and given every slot by
    ``redis-cli --cluster create``. ``url`` is the adapter's ``redis-cluster://`` URL."""

    def __init__(self, workdir: Path, *, primaries: int = 3) -> None:
        self.workdir = workdir
        self.servers = [
            RedisProcess(workdir / f"n{i}", port=_cluster_port(),
                         extra=("--cluster-enabled", "yes", "--cluster-config-file",
                                "nodes.conf", "--cluster-node-timeout", "2000"))
            for i in range(primaries)]

    @property
    def url(self) -> str:
        return "redis-cluster://" + ",".join(f"127.0.0.1:{s.port}" for s in self.servers)

    def start(self, timeout: float = 30.0) -> None:
        for server in self.servers:
            server.start()
        cli = os.environ.get("POKER_REDIS_CLI") or shutil.which("redis-cli")
        if not cli:
            raise RuntimeError("redis-cli is not installed (it comes with redis-server)")
        subprocess.run([cli, "--cluster", "create",
                        *(f"127.0.0.1:{s.port}" for s in self.servers),
                        "--cluster-replicas", "0", "--cluster-yes"],
                       check=True, capture_output=True, timeout=timeout)
        SentinelGroup._poll(lambda: all(self._ok(s.port) for s in self.servers), timeout,
                            "the cluster did not reach cluster_state:ok")

    def owners(self) -> dict[int, tuple[int, int]]:
        """Each primary's port -> the (first, last) slot of its first range."""
        slots = resp(self.servers[0].port, "CLUSTER", "SLOTS")
        assert isinstance(slots, list)
        return {int(r[2][1]): (int(r[0]), int(r[1])) for r in slots}

    def keys_per_node(self) -> dict[int, int]:
        """How many keys each primary holds (``DBSIZE``)."""
        return {s.port: int(str(resp(s.port, "DBSIZE"))) for s in self.servers}

    def stop(self) -> None:
        for server in self.servers:
            server.kill()

    @staticmethod
    def _ok(port: int) -> bool:
        try:
            return "cluster_state:ok" in str(resp(port, "CLUSTER", "INFO"))
        except (OSError, RuntimeError):
            return False
