"""A tournament's hands in the history and its exports carry the tournament's id and level
(issue 27): PokerStars' tournament header form, PHH's own fields; `poker-verify` replays
them like any hand."""

from __future__ import annotations

import pytest

from server.ledger.export import export
from server.ledger.export.phh import read_phh
from server.ledger.export.pokerstars import read_pokerstars
from server.verify import verify_record
from tests.tournament.driver import Room
from tests.tournament.test_director import _create, _enter

pytestmark = pytest.mark.asyncio


async def test_tournament_hands_export_with_their_tournament_and_level() -> None:
    room = Room(seed=31, all_in=0.1)
    d = _create(room, capacity=4, buy_in=50, fee=5,
                settings={"starting_stack": 800, "seats": 4, "preset": "hyper"})
    await _enter(room, d, ["p0", "p1", "p2", "p3"])
    await room.run(d)
    hands = [r for r in d.log if r["kind"] == "hand_start"]
    last = hands[-1]
    record = await room.registry.history.get(last["hand"])
    assert record is not None
    stars = export(record, "pokerstars")
    first = stars.splitlines()[0]
    assert first.startswith("PokerStars Hand #") and f"Tournament #{d.info.id}, 50+5 " in first
    roman = {1: "I", 2: "II", 3: "III", 4: "IV", 5: "V", 6: "VI", 7: "VII", 8: "VIII",
             9: "IX", 10: "X", 11: "XI", 12: "XII"}[last["level"]]
    assert f" - Level {roman} (" in first
    parsed = read_pokerstars(stars)
    assert parsed["tournament"] == d.info.id and parsed["level"] == roman
    phh = export(record, "phh")
    assert f'_tournament = "{d.info.id}"' in phh and f"_level = {last['level']}" in phh
    assert read_phh(phh)["hand"] == last["hand"]
    report = verify_record(record)
    assert report.ok, report.problems
