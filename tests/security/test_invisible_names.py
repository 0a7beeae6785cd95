"""Names that show nothing, or less than they are (issue 23), against a real `poker-server`
(no test mode): "Dana" followed by a Hangul filler registered beside "Dana", and names made only
of Braille blanks or Hangul fillers were accepted. Now `register` and a guest's `hello` refuse
them with the wire's bad-name refusal (`bad_field`, its message naming `name`), and "Dana" is
still one account, reachable by its owner."""

from __future__ import annotations

from tests.security.conftest import ServerFactory, client, ledger_sum

IMPOSTORS = ["Dana\u3164", "\u2800\u2800\u2800", "\u115f", "\u3164\u3164", "Da\u200bna",
             "Da\u00a0na", "Dana\u2060"]


async def test_invisible_names_are_refused_on_the_wire(hostile_server: ServerFactory) -> None:
    srv = hostile_server()
    dana = await client(srv)
    assert (await dana.request("register", name="Dana", password="dana-password"))["type"] \
        == "ok"
    attacker = await client(srv)
    for name in IMPOSTORS:
        answer = await attacker.request("register", name=name, password="mallory-password")
        assert answer["type"] == "error" and answer["code"] == "bad_field", (name, answer)
        assert answer["message"].startswith("`name`: "), answer
        answer = await attacker.request("hello", guest=name)
        assert answer["type"] == "error" and answer["code"] == "bad_field", (name, answer)
    # the attacker's connection is still usable, and a visible name still works
    assert (await attacker.request("hello", guest="Mallory"))["type"] == "ok"
    back = await client(srv)
    assert (await back.request("login", name="Dana", password="dana-password"))["type"] == "ok"
    for c in (dana, attacker, back):
        await c.ws.close()
    assert ledger_sum(srv) == 0
