"""The host turns a home game's house rules on between hands (docs/rules.md section 4): a
``change`` of ``straddle`` / ``run_twice`` / ``show_uncontested`` is checked as a new table's
settings are and applies from the next hand; the straddle where the game has none is refused
``bad_settings``."""

from __future__ import annotations

from server.rules.cards import make_deck
from server.table.settings import PotSpec
from tests.table.helpers import Harness, hand_of


async def test_strad01_the_host_turns_the_straddle_on_for_the_next_hand() -> None:
    """STRAD-01 RIT-01 SHOWWIN-01: off at first (no question), on after the host's change."""
    h = Harness()
    t = h.create(variant="holdem", structure="no_limit", stakes={"blinds": [5, 10]}, seats=6,
                 private=True, decks=[make_deck(), make_deck()],
                 settings={"approve_seats": False})
    code = t.host.code
    owner = h.player("owner")
    sinks = [owner, h.player("p1"), h.player("p2")]
    for i, sink in enumerate(sinks):
        assert (await h.send(t, sink, "sit", seat=i, buy_in=1000, code=code))["type"] == "ok"
    change = await h.send(t, owner, "host", action="change",
                          settings={"straddle": True, "run_twice": True,
                                    "show_uncontested": True})
    assert change["type"] == "ok", change
    spec = t.spec
    assert isinstance(spec, PotSpec)
    assert spec.rules.straddle and spec.rules.run_twice and spec.rules.show_uncontested
    await h.advance(t, 2.5)
    hand = hand_of(t)
    assert hand is not None and hand.over_blind_ask == 2  # left of the big blind: asked
    opts = hand.options(2)
    assert opts is not None and opts.straddle
    off = await h.send(t, owner, "host", action="change", settings={"straddle": False})
    assert off["type"] == "ok" and off["pending"] is True  # from the next hand


async def test_strad01_the_host_cannot_give_draw_a_straddle() -> None:
    h = Harness()
    t = h.create(variant="draw", structure="pot_limit", stakes={"blinds": [5, 10]}, seats=6,
                 private=True)
    owner = h.player("owner")
    answer = await h.send(t, owner, "host", action="change", settings={"straddle": True})
    assert answer["code"] == "bad_settings" and "BLIND-04" in answer["message"], answer
