"""Named accounts over the wire (in-process server, embedded store): register, login, the
error codes, a guest that tries a registered name, and a second identity on one connection."""

from __future__ import annotations

from pathlib import Path

from tests.net.conftest import open_client, start_live, test_config


async def test_register_login_and_refusals(tmp_path: Path) -> None:
    live = await start_live(test_config(tmp_path, starting_balance=777))
    try:
        first = await open_client(live)
        answer = await first.request("register", name="Grace", password="grace-hopper")
        assert answer["type"] == "ok"
        welcome = await first.event("welcome")
        assert welcome["guest"] is False and welcome["balance"] == 777
        assert welcome["name"] == "Grace"
        again = await first.request("login", name="Grace", password="grace-hopper")
        assert again["code"] == "not_allowed"  # one identity per connection

        other = await open_client(live)
        for kind, fields, code in [
            ("register", {"name": "grace", "password": "another-one"}, "name_taken"),
            ("register", {"name": "Heidi", "password": "short"}, "weak_password"),
            ("login", {"name": "Grace", "password": "wrong-password"}, "bad_credentials"),
            ("login", {"name": "Nobody", "password": "grace-hopper"}, "bad_credentials"),
            ("hello", {"guest": "GRACE"}, "name_taken"),
        ]:
            answer = await other.request(kind, **fields)
            assert answer["type"] == "error" and answer["code"] == code, (kind, answer)
        assert (await other.request("sit", table="t1", seat=0, buy_in=100))["code"] == \
            "unauthorized"  # still anonymous after every refusal
        assert (await other.request("login", name="GRACE", password="grace-hopper"))["type"] \
            == "ok"
        back = await other.event("welcome")
        assert back["player_id"] == welcome["player_id"] and back["balance"] == 777

        third = await open_client(live)
        assert (await third.request("hello", token=back["token"]))["type"] == "ok"
        resumed = await third.event("welcome")
        assert (resumed["player_id"], resumed["guest"]) == (welcome["player_id"], False)
        assert await live.app.wallet.ledger.total() == 0
    finally:
        await live.close()
