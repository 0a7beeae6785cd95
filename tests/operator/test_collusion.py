"""Collusion review of a pair of accounts, against hands computed by hand; and the endpoint
over real hands."""

from __future__ import annotations

import asyncio
from typing import Any

from server.ledger.history import HandRecord
from server.operator.collusion import review
from tests.net.test_play import ok
from tests.operator.conftest import OperatorFactory, admin, seat_two


def record(hand: str, seats: dict[int, str], events: list[tuple[str, int, str]],
           end: dict[int, int], *, voided: bool = False) -> HandRecord:
    """A hand of players `seats` (seat -> id), each starting with 1000; `events` are
    ("Acted", seat, action) or ("StreetEnded", 0, ""); `end`: seat -> stack after."""
    evs: list[dict[str, Any]] = []
    for kind, seat, action in events:
        if kind == "Acted":
            evs.append({"e": "Acted", "seat": seat, "action": action, "amount": 0, "stack": 0})
        else:
            evs.append({"e": "StreetEnded", "street": 0, "pot": 0})
    return HandRecord(hand=hand, table="t1", variant="holdem", structure="no_limit",
                      stakes={"blinds": [25, 50]}, settings={}, num_seats=6, button=0,
                      started=1.0, commitment="", deck_size=52,
                      players={str(s): {"player": p, "name": p, "stack": 1000}
                               for s, p in seats.items()},
                      events=evs,
                      result={"voided": voided, "stacks": {str(s): v for s, v in end.items()}})


A, B, C = "pa", "pb", "pc"
S = ("StreetEnded", 0, "")
HANDS = [
    # A raises, B folds (B faced A, folded), C calls; next street C bets, A folds (not B's)
    record("t1.1", {0: A, 1: B, 2: C},
           [("Acted", 0, "raise"), ("Acted", 1, "fold"), ("Acted", 2, "call"), S,
            ("Acted", 2, "bet"), ("Acted", 0, "fold")], {0: 700, 1: 950, 2: 1350}),
    # heads-up: A bets, B calls (faced); B bets, A raises (A faced B), B folds (faced, folded)
    record("t1.2", {0: A, 1: B},
           [("Acted", 0, "bet"), ("Acted", 1, "call"), S, ("Acted", 1, "bet"),
            ("Acted", 0, "raise"), ("Acted", 1, "fold")], {0: 1400, 1: 600}),
    # B bets, A folds: A faced B and folded; B won A's 100
    record("t1.3", {1: A, 0: B}, [("Acted", 0, "bet"), ("Acted", 1, "fold")],
           {1: 900, 0: 1100}),
    # voided: listed, no chips moved
    record("t1.4", {0: A, 1: B}, [], {0: 1000, 1: 1000}, voided=True),
    # A and C only: not theirs
    record("t1.5", {0: A, 2: C}, [("Acted", 0, "bet"), ("Acted", 2, "fold")],
           {0: 1050, 2: 950}),
]


def test_collusion_figures_against_hand_computed_hands() -> None:
    result = review(HANDS, A, B)
    assert [h["hand"] for h in result["hands"]] == ["t1.1", "t1.2", "t1.3", "t1.4"]
    assert result["count"] == 4
    assert [h["voided"] for h in result["hands"]] == [False, False, False, True]
    assert result["hands"][1]["net"] == {A: 400, B: -400}
    assert result["folds"] == {A: {"faced": 2, "folded": 1, "rate": 0.5},
                               B: {"faced": 3, "folded": 2, "rate": 0.6667}}
    assert result["chips"] == {"a_to_b": 100, "b_to_a": 400, "net_to_a": 300}
    # the pair the other way round: the same figures, mirrored
    other = review(HANDS, B, A)
    assert other["chips"] == {"a_to_b": 400, "b_to_a": 100, "net_to_a": -300}
    assert review(HANDS, B, C)["folds"][C] == {"faced": 0, "folded": 0, "rate": None}


async def test_collusion_endpoint_over_real_hands(operator_server: OperatorFactory) -> None:
    server = await operator_server()
    table, alice, bob = await seat_two(server)
    await alice.event("hand_started", table=table)
    turn = await alice.event("turn", table=table)
    first, second = (alice, bob) if turn["seat"] == 0 else (bob, alice)
    await ok(first, "act", table=table, action="raise", amount=400)
    await second.event("turn", table=table)
    await ok(second, "act", table=table, action="fold")
    await alice.event("hand_ended", table=table)
    await asyncio.sleep(0.1)  # the record is saved after the hand ends
    status, body = await admin(server, "GET",
                               f"/admin/collusion?a={first.player_id}&b={second.player_id}")
    assert status == 200, body
    assert body["count"] == 1 and body["truncated"] is False
    assert body["folds"][second.player_id] == {"faced": 1, "folded": 1, "rate": 1.0}
    assert body["chips"]["a_to_b"] == 0 and body["chips"]["b_to_a"] > 0
    bad = await admin(server, "GET", f"/admin/collusion?a={first.player_id}&b={first.player_id}")
    assert bad[0] == 400 and bad[1]["error"]["code"] == "bad_field"
    await alice.ws.close()
    await bob.ws.close()
