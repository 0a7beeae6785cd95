"""A home game's house rules in the hand history (docs/rules.md section 4): a straddled hand
whose board was run twice, played through the table (fake clock, fixed deck), is recorded,
verifies (``poker-verify`` replays the straddle and the answers), and exports: the PokerStars
text names the straddle, the answers, both boards and the second run's halves; PHH marks the
second run; every player's copy reads the same (every hand was shown)."""

from __future__ import annotations

from typing import Any

from server.ledger.export import to_phh, to_pokerstars
from server.ledger.history import player_copy
from server.rules.cards import make_deck
from server.verify import verify_record
from tests.table.helpers import Harness


async def test_straddle_and_run_twice_recorded_verified_and_exported() -> None:
    """STRAD-01 RIT-02 RIT-03 RIT-04 in the record, the verifier and both exports."""
    h = Harness()
    t = h.create(variant="holdem", structure="no_limit", stakes={"blinds": [5, 10]}, seats=6,
                 private=True, decks=[make_deck()],
                 settings={"approve_seats": False, "straddle": True, "run_twice": True})
    code = t.host.code
    sinks = [h.player(f"p{i}") for i in range(3)]
    for i, sink in enumerate(sinks):
        answer = await h.send(t, sink, "sit", seat=i, buy_in=1000, code=code)
        assert answer["type"] == "ok", answer
    await h.advance(t, 2.5)
    assert t.engine is not None
    script: list[tuple[int, dict[str, Any]]] = [
        (2, {"action": "over_blind"}), (0, {"action": "raise", "amount": 1000}),
        (1, {"action": "call"}), (2, {"action": "call"}),
        (0, {"action": "run_twice"}), (1, {"action": "run_twice"}),
        (2, {"action": "run_twice"})]
    for seat, fields in script:
        answer = await h.send(t, sinks[seat], "act", **fields)
        assert answer["type"] == "ok", (seat, fields, answer)
    record = (await t.recording.history.hands_of("p0", limit=1))[0][0]
    full = await t.recording.history.get(record.hand)
    assert full is not None
    assert verify_record(full).ok, verify_record(full).problems
    text = to_pokerstars(full)
    lines = text.splitlines()
    assert "P2: posts straddle 20" in lines
    answers = [x for x in lines if "run it twice" in x]
    assert answers == [f"P{i}: agrees to run it twice" for i in range(3)]
    assert any(x.startswith("*** SECOND FLOP *** [") for x in lines)
    assert any(x.startswith("*** SECOND RIVER *** [") for x in lines)
    assert any(x.startswith("FIRST Board [") for x in lines)
    assert any(x.startswith("SECOND Board [") for x in lines)
    assert sum("from pot (second run)" in x for x in lines) >= 1
    assert "Total pot 3000 | Rake 0" in lines
    phh = to_phh(full)
    assert phh.count("# second run") == 3 and "# p1 run twice" in phh
    for i in range(3):
        mine = player_copy(full, f"p{i}")
        assert mine is not None
        assert verify_record(mine).ok
        assert to_pokerstars(mine).count("agrees to run it twice") == 3


async def test_showwin01_a_shown_uncontested_hand_is_public_recorded_and_exported() -> None:
    """SHOWWIN-01 at a home game: everyone folds to Bob, who is asked and shows: the
    spectator sees his cards (and not before), the record verifies and the exports show
    them."""
    h = Harness()
    t = h.create(variant="holdem", structure="no_limit", stakes={"blinds": [5, 10]}, seats=6,
                 private=True, decks=[make_deck()],
                 settings={"approve_seats": False, "show_uncontested": True})
    code = t.host.code
    sinks = [h.player(f"p{i}") for i in range(3)]
    for i, sink in enumerate(sinks):
        assert (await h.send(t, sink, "sit", seat=i, buy_in=1000, code=code))["type"] == "ok"
    rail = h.player("rail")
    assert (await h.send(t, rail, "watch", code=code))["type"] == "ok"
    await h.advance(t, 2.5)
    for seat, fields in ((2, {"action": "raise", "amount": 30}), (0, {"action": "fold"}),
                         (1, {"action": "fold"})):
        assert (await h.send(t, sinks[seat], "act", **fields))["type"] == "ok"
    turn = [m for m in sinks[2].of("turn") if m["seat"] == 2][-1]
    assert turn["options"] == {"fold": False, "check": False, "show": True, "muck": True,
                               "stack": 1015}
    assert not rail.of("showdown")  # nothing shown before the winner chooses
    assert (await h.send(t, sinks[2], "act", action="show"))["type"] == "ok"
    shown = rail.of("showdown")[-1]
    assert shown["seat"] == 2 and None not in shown["cards"] and len(shown["cards"]) == 2
    record = (await t.recording.history.hands_of("p0", limit=1))[0][0]
    full = await t.recording.history.get(record.hand)
    assert full is not None
    assert verify_record(full).ok, verify_record(full).problems
    assert f"P2: shows [{' '.join(shown['cards'])}]" in to_pokerstars(full)
    theirs = player_copy(full, "p0")
    assert theirs is not None and " ".join(shown["cards"]) in to_pokerstars(theirs)
