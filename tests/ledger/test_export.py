"""Hand history exports for every variant, read back and checked against the record: the
PokerStars-style text and PHH for the pot games, Caribbean Stud's own text form (neither
PokerStars nor PHH can express a game against the house). A scripted hold'em hand (fixed deck)
is checked line by line."""

from __future__ import annotations

from typing import Any

import pytest

from server.ledger.export import (
    export,
    hand_number,
    phh_variant_code,
    read_caribbean_text,
    read_phh,
    read_pokerstars,
    to_caribbean_text,
    to_phh,
    to_pokerstars,
)
from server.ledger.history import HandRecord, player_copy
from tests.ledger.play import VARIANTS, play
from tests.net.test_play import fixed_deck
from tests.table.helpers import Harness

POT_VARIANTS = [v for v in VARIANTS if v != "caribbean"]


def _name(record: HandRecord, seat: Any) -> str:
    return str(record.players[str(seat)]["name"])


def expected_actions(record: HandRecord) -> list[tuple[str, str, int | None]]:
    """The PokerStars action lines a record must give, computed from its events."""
    out: list[tuple[str, str, int | None]] = []
    bets: dict[int, int] = {}
    for e in record.events:
        kind = e["e"]
        seat: Any = e.get("seat")
        if kind == "StreetEnded":
            bets = {}
        elif kind == "Posted":
            if e["kind"] == "ante":
                out.append((_name(record, seat), "posts the ante", e["amount"]))
                continue
            bets[seat] = bets.get(seat, 0) + e["amount"]
            verb = "brings in for" if e["kind"] == "bring_in" else "posts"
            out.append((_name(record, seat), verb, e["amount"]))
        elif kind == "Acted":
            act, amount = e["action"], e["amount"]
            if act == "decline":  # BLIND-04's "no": a note, not a PokerStars action
                continue
            put = amount - bets.get(seat, 0)
            verb, shown = {
                "fold": ("folds", None), "check": ("checks", None), "call": ("calls", put),
                "bet": ("bets", put), "raise": ("raises", amount),
                "complete": ("completes it to", amount), "bring_in": ("brings in for", amount),
            }[act]
            if act not in ("fold", "check"):
                bets[seat] = amount
            out.append((_name(record, seat), verb, shown))
        elif kind == "Mucked":
            out.append((_name(record, seat), "mucks hand", None))
        elif kind == "Drew":
            n = len(e["discarded"])
            out.append((_name(record, seat), "discards", n) if n else
                       (_name(record, seat), "stands pat", None))
    return out


def check_pokerstars(record: HandRecord, text: str) -> None:
    got = read_pokerstars(text)
    assert got["number"] == hand_number(record.hand)
    assert (got["table"], got["hand"], got["button"]) == (record.table, record.hand,
                                                          record.button)
    assert got["seats"] == {int(s): (p["name"], p["stack"]) for s, p in record.players.items()}
    assert got["actions"] == expected_actions(record)
    boards = [e for e in record.events if e["e"] == "BoardDealt"]
    assert got["board"] == (boards[-1]["board"] if boards else [])
    shows = {_name(record, e["seat"]): e["cards"] for e in record.events if e["e"] == "Showdown"}
    assert got["shows"] == shows
    won: dict[str, int] = {}
    for e in record.events:
        if e["e"] == "PotAwarded":
            for s, amount in e["winners"].items():
                won[_name(record, s)] = won.get(_name(record, s), 0) + amount
    assert got["collected"] == won
    rake = sum(e["amount"] for e in record.events if e["e"] == "RakeTaken")
    assert (got["total"], got["rake"]) == (sum(won.values()) + rake, rake)
    # chips: what each player put in, less what came back, is their loss
    for seat, info in record.players.items():
        name = str(info["name"])
        delta = record.result["stacks"][seat] - info["stack"]
        returned = got["returned"].get(name, 0)
        assert won.get(name, 0) + returned - _put(record, int(seat)) == delta


def _put(record: HandRecord, seat: int) -> int:
    total, bet = 0, 0
    for e in record.events:
        if e["e"] == "StreetEnded":
            bet = 0
        elif e.get("seat") != seat:
            continue
        elif e["e"] == "Posted":
            total += e["amount"]
            bet += 0 if e["kind"] == "ante" else e["amount"]
        elif e["e"] == "Acted" and e["action"] not in ("fold", "check"):
            total += e["amount"] - bet
            bet = e["amount"]
    return total


def check_phh(record: HandRecord, text: str, *, copy_of: int | None = None) -> None:
    data = read_phh(text)
    assert data["variant"] == phh_variant_code(record.variant, record.structure)
    assert (data["_variant"], data["_structure"]) == (record.variant, record.structure)
    assert data["hand"] == record.hand and data["_commitment"] == record.commitment
    order = [s - 1 for s in data["seats"]]
    assert sorted(order) == sorted(int(s) for s in record.players)
    assert data["starting_stacks"] == [record.players[str(s)]["stack"] for s in order]
    assert data["finishing_stacks"] == [record.result["stacks"][str(s)] for s in order]
    assert data["players"] == [record.players[str(s)]["name"] for s in order]
    acts = data["parsed_actions"]
    p = {s: f"p{i + 1}" for i, s in enumerate(order)}
    deals = [a for a in acts if a[:2] == ["d", "dh"]]
    dealt = [e for e in record.events if e["e"] == "Dealt" and not e.get("dead")]
    drawn = [e for e in record.events if e["e"] == "Drew" and e["received"]]
    assert len(deals) == len(dealt) + len(drawn)
    for a, e in zip(deals, dealt, strict=False):
        assert a[2] == p[e["seat"]]
        want = "".join(c if c is not None else "??" for c in e["cards"])
        assert a[3] == want
        if copy_of is not None and e["seat"] != copy_of:
            assert all(c is None for c, up in zip(e["cards"], e["up"], strict=True)
                       if not up)
    assert [a[2] for a in acts if a[:2] == ["d", "db"]] == [
        "".join(e["cards"]) for e in record.events if e["e"] == "BoardDealt"]
    cbr = [int(a[2]) for a in acts if a[0] != "d" and a[1] == "cbr"]
    assert cbr == [e["amount"] for e in record.events if e["e"] == "Acted"
                   and e["action"] in ("bet", "raise", "complete")]
    folds = [a[0] for a in acts if a[0] != "d" and a[1] == "f"]
    assert folds == [p[e["seat"]] for e in record.events
                     if e["e"] == "Acted" and e["action"] == "fold"]
    shows = [(a[0], a[2] if len(a) > 2 else None) for a in acts if a[0] != "d" and a[1] == "sm"]
    assert shows == [(p[e["seat"]], "".join(e["cards"]) if e["e"] == "Showdown" else None)
                     for e in record.events if e["e"] in ("Showdown", "Mucked")]
    antes = [0] * len(order)
    blinds = [0] * len(order)
    for e in record.events:
        if e["e"] == "Posted" and e["kind"] == "ante":
            antes[order.index(e["seat"])] += e["amount"]
        elif e["e"] == "Posted" and e["kind"] in ("blind", "over_blind"):
            blinds[order.index(e["seat"])] += e["amount"]
    assert data["antes"] == antes
    if "blinds_or_straddles" in data:
        assert data["blinds_or_straddles"] == blinds


@pytest.mark.parametrize("variant", POT_VARIANTS)
async def test_pokerstars_and_phh_of_every_pot_variant_read_back(variant: str) -> None:
    p = await play(variant, hands=6, seed=5)
    assert len(p.records) >= 5
    for record in p.records:
        check_pokerstars(record, export(record, "pokerstars"))
        check_phh(record, export(record, "phh"))
        for info in record.players.values():  # a player's copy exports what they saw
            mine = player_copy(record, str(info["player"]))
            assert mine is not None and mine.viewer is not None
            check_phh(mine, to_phh(mine), copy_of=mine.viewer)
            got = read_pokerstars(to_pokerstars(mine))
            assert got["actions"] == expected_actions(record)
            others = {_name(record, s) for s in record.players if int(s) != mine.viewer}
            if record.variant not in ("stud5", "stud7"):  # stud: others' up cards are dealt
                assert not others & set(got["dealt"])


def test_phh_standard_variant_codes() -> None:
    assert phh_variant_code("holdem", "no_limit") == "NT"
    assert phh_variant_code("holdem", "fixed_limit") == "FT"
    assert phh_variant_code("stud7", "fixed_limit") == "F7S"
    assert phh_variant_code("manila", "pot_limit") == "PMN"
    with pytest.raises(ValueError, match="missing"):
        read_phh('variant = "NT"\nantes = [0, 0]\nstarting_stacks = [1, 1]\nactions = []\n')


async def test_caribbean_has_its_own_text_form_read_back() -> None:
    p = await play("caribbean", hands=5, seed=6)
    assert len(p.records) >= 4
    dealt_rounds = 0
    for record in p.records:
        text = to_caribbean_text(record)
        assert export(record, "pokerstars") == text == export(record, "phh")
        got = read_caribbean_text(text)
        assert (got["hand"], got["table"], got["commitment"]) == (
            record.hand, record.table, record.commitment)
        assert got["seats"] == {int(s): (i["name"], i["stack"])
                                for s, i in record.players.items()}
        ev = record.events
        assert got["antes"] == {_name(record, e["seat"]): e["amount"]
                                for e in ev if e["e"] == "AnteAccepted"}
        assert got["decisions"] == {_name(record, e["seat"]): e["action"] + "s"
                                    if e["action"] == "play" else "folds"
                                    for e in ev if e["e"] == "PlayerDecided"}
        assert got["settled"] == {_name(record, e["seat"]): (e["ante"], e["play"], e["jackpot"])
                                  for e in ev if e["e"] == "Settled"}
        assert got["final"] == {int(s): v for s, v in record.result["stacks"].items()}
        revealed = [e["cards"] for e in ev if e["e"] == "DealerRevealed"]
        assert got["dealer"] == (revealed[0] if revealed else None)
        dealt_rounds += bool(revealed)
        for info in record.players.values():
            mine = player_copy(record, str(info["player"]))
            assert mine is not None
            shown = read_caribbean_text(to_caribbean_text(mine))["dealt"]
            assert set(shown) <= {str(info["name"])}  # only my own five cards
    assert dealt_rounds >= 2


async def test_scripted_holdem_hand_line_by_line() -> None:
    h = Harness()
    deck = fixed_deck("As", "Kc", "Ad", "Kd", "2c", "Ah", "7s", "8d", "3c", "9h", "4c", "Jc")
    t = h.create(variant="holdem", structure="no_limit", stakes={"blinds": [5, 10]}, seats=6,
                 decks=[deck])
    p0, p1 = h.player("p0"), h.player("p1")
    await h.send(t, p0, "sit", seat=0, buy_in=1000)
    await h.send(t, p1, "sit", seat=1, buy_in=1000)
    await h.advance(t, 2.5)
    assert t.engine is not None
    script: list[tuple[Any, dict[str, Any]]] = [
        (p0, {"action": "raise", "amount": 30}), (p1, {"action": "call"}),
        (p0, {"action": "bet", "amount": 20}), (p1, {"action": "call"}),
        (p0, {"action": "check"}), (p1, {"action": "check"}),
        (p0, {"action": "check"}), (p1, {"action": "check"})]
    for sink, fields in script:
        assert (await h.send(t, sink, "act", **fields))["type"] == "ok", fields
    record = (await t.recording.history.hands_of("p0", limit=1))[0][0]
    full = await t.recording.history.get(record.hand)
    assert full is not None
    text = to_pokerstars(full)
    lines = text.splitlines()
    assert lines[1] == f"Table '{t.table_id}' 6-max Seat #2 is the button (hand {full.hand})"
    body = lines[lines.index("P0: posts small blind 5"):lines.index("*** SUMMARY ***")]
    assert body[:12] == [
        "P0: posts small blind 5", "P1: posts big blind 10", "*** HOLE CARDS ***",
        "Dealt to P0 [As Ad]", "Dealt to P1 [Kc Kd]", "P0: raises 20 to 30", "P1: calls 20",
        "*** FLOP *** [Ah 7s 8d]", "P0: bets 20", "P1: calls 20",
        "*** TURN *** [Ah 7s 8d] [9h]", "P0: checks"]
    assert "*** RIVER *** [Ah 7s 8d 9h] [Jc]" in body
    assert body[-3].startswith("P0: shows [As Ad] (three of a kind")
    assert body[-2:] == ["P1: mucks hand", "P0 collected 100 from pot"]
    assert "Total pot 100 | Rake 0" in lines
    assert "Seat 1: P0 showed [As Ad] and won (100)" in lines
    assert "Seat 2: P1 (button) mucked" in lines
    phh = read_phh(to_phh(full))
    assert (phh["variant"], phh["blinds_or_straddles"], phh["min_bet"]) == ("NT", [5, 10], 10)
    assert phh["starting_stacks"] == [1000, 1000] and phh["finishing_stacks"] == [1050, 950]
    assert [" ".join(a) for a in phh["parsed_actions"]] == [
        "d dh p1 AsAd", "d dh p2 KcKd", "p1 cbr 30", "p2 cc", "d db Ah7s8d", "p1 cbr 20",
        "p2 cc", "d db 9h", "p1 cc", "p2 cc", "d db Jc", "p1 cc", "p2 cc", "p1 sm AsAd",
        "p2 sm"]
    # p1's copy: p0's hole cards are unknown when dealt and known once shown; p1's own
    # mucked cards are still theirs to see
    theirs = to_phh(player_copy(full, "p1"))  # type: ignore[arg-type]
    assert '"d dh p1 ????"' in theirs and '"p1 sm AsAd"' in theirs
    assert '"d dh p2 KcKd"' in theirs
    mine = to_phh(player_copy(full, "p0"))  # type: ignore[arg-type]
    assert '"d dh p2 ????"' in mine and "Kc" not in mine
