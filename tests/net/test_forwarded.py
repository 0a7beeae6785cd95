"""The client's address behind a reverse proxy (issue 23, `server.net.forwarded`): read from
`X-Forwarded-For` only when the TCP peer is a trusted proxy, the right-most entry that is not
itself one; and the admission caps that follow from it (`server.net.admission`)."""

from __future__ import annotations

import pytest

from server.cli import build_parser, config_from_args
from server.config import Config
from server.net.admission import PROXIED, Admission
from server.net.forwarded import TrustedProxies, parse_ip, trusted
from server.net.http import method_refusal
from server.net.metrics import Metrics

PROXIES = TrustedProxies(["10.0.0.0/8", "127.0.0.1", "fd00::/8"])


@pytest.mark.parametrize(("peer", "header", "client"), [
    # not from a trusted proxy: the header is ignored, whatever it says
    ("203.0.113.9", ["1.2.3.4"], "203.0.113.9"),
    # from the proxy: the right-most entry (what nginx's $proxy_add_x_forwarded_for appended)
    ("127.0.0.1", ["198.51.100.7"], "198.51.100.7"),
    # a client forging entries on the left changes nothing
    ("127.0.0.1", ["6.6.6.6, 198.51.100.7"], "198.51.100.7"),
    ("127.0.0.1", ["6.6.6.6", "198.51.100.7"], "198.51.100.7"),  # several header lines
    # two proxies: the entry of the inner one is skipped
    ("10.1.1.1", ["6.6.6.6, 198.51.100.7, 10.2.2.2"], "198.51.100.7"),
    # every entry a trusted proxy: the furthest
    ("10.1.1.1", ["10.3.3.3, 10.2.2.2"], "10.3.3.3"),
    # no header (a probe on the proxy's host): the peer
    ("127.0.0.1", [], "127.0.0.1"),
    # garbage stops the walk at the last address vouched for
    ("10.1.1.1", ["198.51.100.7, nonsense"], "10.1.1.1"),
    ("10.1.1.1", ["198.51.100.7, bogus, 10.2.2.2"], "10.2.2.2"),
    # IPv6, brackets and ports, IPv4-mapped
    ("fd00::1", ["2001:db8::5"], "2001:db8::5"),
    ("127.0.0.1", ["[2001:db8::5]:4711"], "2001:db8::5"),
    ("127.0.0.1", ["198.51.100.7:4711"], "198.51.100.7"),
    ("::ffff:127.0.0.1", ["::ffff:198.51.100.7"], "198.51.100.7"),
    (None, ["1.2.3.4"], None),
])
def test_client_ip(peer: str | None, header: list[str], client: str | None) -> None:
    assert PROXIES.client_ip(peer, header) == client


def test_nothing_trusted_by_default() -> None:
    proxies = trusted(Config().trusted_proxies)
    assert not proxies
    assert proxies.client_ip("127.0.0.1", ["1.2.3.4"]) == "127.0.0.1"
    assert not proxies.is_proxy("127.0.0.1")


def test_a_long_header_is_walked_only_so_far() -> None:
    header = [", ".join(["10.0.0.1"] * 10_000)]
    assert PROXIES.client_ip("10.0.0.2", header) == "10.0.0.1"


def test_parse_ip() -> None:
    assert parse_ip("x") is None
    assert str(parse_ip(" fe80::1%eth0 ")) == "fe80::1"


def test_trusted_proxies_config_and_command_line() -> None:
    argv = ["--trusted-proxies", "10.0.0.0/8,127.0.0.1"]
    assert config_from_args(build_parser().parse_args(argv), argv).trusted_proxies == (
        "10.0.0.0/8", "127.0.0.1")
    with pytest.raises(ValueError, match="trusted_proxies"):
        Config(trusted_proxies=("10.0.0.0/33",))
    with pytest.raises(ValueError, match="trusted_proxies"):
        Config(trusted_proxies=("proxy.example",))


def test_a_proxys_connections_count_in_the_total_only() -> None:
    metrics = Metrics()
    admission = Admission(Config(max_connections_per_ip=2, max_connections=5,
                                 trusted_proxies=("127.0.0.1",)), metrics)
    keys = [admission.admit(("127.0.0.1", 1000 + i)) for i in range(5)]
    assert keys == [PROXIED] * 5  # five through the proxy, over the per-IP cap of 2
    assert admission.admit(("127.0.0.1", 2000)) is None  # the total still holds
    assert metrics.connections_refused_total == {"total": 1}
    # the forwarded clients are counted per address once the handshake is read
    a = [admission.admit_forwarded("198.51.100.7") for _ in range(3)]
    assert a[:2] == ["198.51.100.7"] * 2 and a[2] is None
    assert admission.admit_forwarded("198.51.100.8") == "198.51.100.8"
    assert metrics.connections_refused_total == {"total": 1, "per_ip": 1}
    admission.release_forwarded("198.51.100.7")
    assert admission.admit_forwarded("198.51.100.7") == "198.51.100.7"
    for key in keys:
        assert key is not None
        admission.release(key)
    assert admission.open == 0
    # another peer is counted at accept as before
    assert admission.admit(("203.0.113.9", 1)) == "203.0.113.9"
    assert admission.by_peer["203.0.113.9"] == 1


def test_method_refusal() -> None:
    assert method_refusal(b"POST /admin/drain HTTP/1.1").startswith(b"HTTP/1.1 404 ")
    assert method_refusal(b"POST /metrics HTTP/1.1").startswith(b"HTTP/1.1 404 ")
    refused = method_refusal(b"DELETE /index.html HTTP/1.1")
    assert refused.startswith(b"HTTP/1.1 405 ") and b"Allow: GET, HEAD\r\n" in refused
    assert method_refusal(b"garbage").startswith(b"HTTP/1.1 405 ")
