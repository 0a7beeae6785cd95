"""The operator listener's guards (issue 23), in process: the `Host` check, the credential
checked before a body is read, the JSON depth bound, failed credentials slowed and locked per
address (metrics, audit), an expired session that stays expired, the house's balance."""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import urlsplit

import pytest

from server.config import Config
from server.operator.auth import OperatorAuth, OperatorGuard
from server.operator.errors import AdminError
from tests.net.conftest import Live
from tests.operator.conftest import TOKEN, OperatorFactory, admin, player, seat_two

TIMEOUT = 10.0


async def raw(server: Live, request: bytes, *, source: str = "127.0.0.1",
              close_write: bool = False) -> tuple[int, dict[str, str], bytes]:
    """Send `request` (bytes as they go on the wire) to the operator listener from the
    loopback address `source`; (status, headers lower-cased, body)."""
    parts = urlsplit(server.app.operator_url or "")
    reader, writer = await asyncio.wait_for(asyncio.open_connection(
        parts.hostname, parts.port, local_addr=(source, 0)), TIMEOUT)
    try:
        writer.write(request)
        if close_write:
            writer.write_eof()
        data = await asyncio.wait_for(reader.read(), TIMEOUT)
    finally:
        writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip()
               for k, _, v in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split(" ")[1]), headers, body


def http(method: str, path: str, *, host: str = "127.0.0.1", token: str | None = None,
         body: bytes = b"", length: int | None = None) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", "Connection: close",
             f"Content-Length: {len(body) if length is None else length}"]
    if token is not None:
        lines.append(f"Authorization: Bearer {token}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def error(body: bytes) -> str:
    return str(json.loads(body)["error"]["code"])


async def test_the_host_header_must_name_the_listener(operator_server: OperatorFactory
                                                      ) -> None:
    server = await operator_server(operator_token=None, operator_host_names=("ops.internal",))
    port = urlsplit(server.app.operator_url or "").port
    for path in ("/metrics", "/jackpot/history", "/operator/", "/healthz"):
        status, _, _ = await raw(server, http("GET", path, host=f"rebind.example:{port}"))
        assert status == 421, path
    status, _, body = await raw(server, http("GET", "/admin/tables", host="rebind.example"))
    assert (status, error(body)) == (421, "host_not_allowed")
    assert (await raw(server, b"GET /metrics HTTP/1.0\r\n\r\n"))[0] == 421  # no Host at all
    for host in (f"127.0.0.1:{port}", "localhost", f"LOCALHOST.:{port}", "[::1]:80",
                 "ops.internal", f"Ops.Internal:{port}", "10.1.2.3"):
        status, _, _ = await raw(server, http("GET", "/metrics", host=host))
        assert status == 200, host
    for host in ("127.0.0.1:x", "[::1", "[::1]x", "ops.internal.evil.example"):
        assert (await raw(server, http("GET", "/metrics", host=host)))[0] == 421, host
    status, _, text = await raw(server, http("GET", "/metrics", host="localhost"))
    assert b"poker_operator_host_refused_total 10\n" in text


async def test_the_credential_is_checked_before_the_body_is_read(
        operator_server: OperatorFactory) -> None:
    server = await operator_server()
    # 16,000 bytes announced, none sent: a bad credential is answered from the head alone
    status, _, body = await raw(server, http("POST", "/admin/session", token="wrong" * 5,
                                             length=16_000), close_write=True)
    assert (status, error(body)) == (401, "bad_credential")
    status, _, body = await raw(server, http("POST", "/admin/session", length=16_000),
                                close_write=True)
    assert (status, error(body)) == (401, "credential_required")
    # a deep body with the right credential: refused before it is parsed, 400, not 500
    deep = b"[" * 16_000
    status, _, body = await raw(server, http("POST", "/admin/session", token=TOKEN, body=deep))
    assert (status, error(body)) == (400, "bad_json")
    status, _, body = await raw(server, http("POST", "/admin/notice", token=TOKEN,
                                             body=b'{"a":' * 17 + b"1" + b"}" * 17))
    assert (status, error(body)) == (400, "bad_json")
    # brackets inside strings are not nesting
    status, _, body = await raw(server, http(
        "POST", "/admin/session", token=TOKEN, body=b'{"operator": "[[[[[[[[[[[[[[[[[[[[x"}'))
    assert (status, error(body)) == (400, "bad_operator")
    ok_body = json.dumps({"operator": "dana", "x": [[[["\\\"]]]]]"]]]]}).encode()
    status, _, body = await raw(server, http("POST", "/admin/session", token=TOKEN,
                                             body=ok_body))
    assert status == 200 and json.loads(body)["operator"] == "dana"


async def test_failed_credentials_are_slowed_locked_counted_and_audited(
        operator_server: OperatorFactory) -> None:
    server = await operator_server(operator_fail_limit=3, operator_fail_delay=0.2,
                                   operator_lockout=30.0)
    loop = asyncio.get_running_loop()
    started = loop.time()
    answers = await asyncio.gather(*(
        raw(server, http("GET", "/admin/tables", token=f"guess-{i:020d}"), source="127.0.0.2")
        for i in range(12)))
    codes = sorted(error(body) for _, _, body in answers)
    # three guesses were checked (and slowed); every other one met the lockout unchecked
    assert codes == ["bad_credential"] * 3 + ["operator_locked"] * 9, codes
    assert loop.time() - started >= 0.2
    locked = [headers for status, headers, _ in answers if status == 429]
    assert all(1 <= int(h["retry-after"]) <= 30 for h in locked)
    # the right token from the locked address is refused too; from another it works
    status, _, body = await raw(server, http("GET", "/admin/tables", token=TOKEN),
                                source="127.0.0.2")
    assert (status, error(body)) == (429, "operator_locked")
    status, _, text = await raw(server, http("GET", "/metrics", token=TOKEN), source="127.0.0.2")
    assert status == 429 and b"too many failed credentials" in text
    assert (await raw(server, http("GET", "/admin/tables", token=TOKEN)))[0] == 200
    status, _, text = await raw(server, http("GET", "/metrics", token=TOKEN))
    assert b"poker_operator_auth_failures_total 3\n" in text
    assert b"poker_operator_lockouts_total 1\n" in text
    assert b"poker_operator_locked_refusals_total 11\n" in text
    status, audit = await admin(server, "GET", "/admin/audit")
    assert [(e["who"], e["action"], e["target"], e["details"]["failures"])
            for e in audit["entries"]] == [("listener", "operator_locked", "127.0.0.2", 3)]


async def test_metrics_without_a_credential_count_no_failure(
        operator_server: OperatorFactory) -> None:
    server = await operator_server(operator_fail_limit=1)
    status, headers, _ = await raw(server, http("GET", "/metrics"))
    assert status == 401 and "bearer" in headers["www-authenticate"].lower()
    assert (await raw(server, http("GET", "/metrics", token=TOKEN)))[0] == 200  # not locked


def test_an_expired_session_stays_expired() -> None:
    now = [1000.0]
    auth = OperatorAuth(TOKEN, session_ttl=60.0, clock=lambda: now[0])
    session = str(auth.open_session(f"Bearer {TOKEN}", "carol")["session"])
    assert auth.who(f"Bearer {session}", None) == "carol"
    now[0] += 60.0
    for _ in range(3):  # every time, not once then `bad_credential`
        try:
            auth.who(f"Bearer {session}", None)
        except AdminError as exc:
            assert exc.code == "credential_expired"
        else:
            raise AssertionError("an expired session was accepted")
    now[0] += 61.0  # a ttl after it expired, the next opening forgets it
    auth.open_session(f"Bearer {TOKEN}", "dave")
    try:
        auth.check(f"Bearer {session}")
    except AdminError as exc:
        assert exc.code == "bad_credential"
    else:
        raise AssertionError("a forgotten session was accepted")


def test_the_guard_doubles_and_forgives() -> None:
    now = [0.0]
    guard = OperatorGuard(limit=2, window=100.0, lockout=10.0, lockout_max=25.0, tracked=2,
                          clock=lambda: now[0])
    assert guard.failed("a") == (1, 0.0)
    assert guard.failed("a") == (2, 10.0)
    assert guard.retry_after("a") == 10.0
    now[0] = 10.0
    assert guard.failed("a") == (3, 20.0)
    now[0] = 30.0
    assert guard.failed("a") == (4, 25.0)  # capped
    now[0] = 30.0 + 25.0 + 101.0  # a quiet window after the lockout: forgiven
    assert guard.failed("a") == (1, 0.0)
    guard.failed("b")
    guard.failed("c")  # only two addresses are remembered: the oldest is forgotten
    assert guard.retry_after("a") == 0.0 and guard.retry_after("zz") == 0.0


async def test_the_house_balance_can_be_read(operator_server: OperatorFactory) -> None:
    server = await operator_server()
    table, alice, bob = await seat_two(server)
    status, house = await admin(server, "GET", "/admin/house")
    assert status == 200, house
    accounts: dict[str, Any] = house["accounts"]
    assert set(accounts) == {"house", "rake", "bank", "jackpot_pool", "jackpot_minor",
                             "jackpot_house"}
    assert house["total"] == 0
    store = server.app.wallet.ledger.store
    assert accounts["bank"] == await store.balance("bank") < 0  # two guests' chips
    assert accounts["house"] == await store.balance("house")
    assert (await admin(server, "GET", "/admin/house", token=None))[0] == 401
    guest = await player(server, "Eve")
    for c in (alice, bob, guest):
        await c.ws.close()


@pytest.mark.parametrize(("field", "value"), [
    ("operator_fail_limit", 0), ("operator_json_depth", 0), ("operator_fail_window", 0),
    ("operator_lockout", -1.0), ("operator_lockout_max", 0), ("operator_fail_delay", 11),
    ("operator_fail_delay", -0.1), ("operator_lockout", 7200.0),
    ("operator_host_names", ("ops internal",)), ("operator_host_names", ("-ops",)),
])
def test_the_operator_limits_are_checked(field: str, value: Any) -> None:
    with pytest.raises(ValueError, match=field.split("_max")[0]):
        Config(**{field: value})
