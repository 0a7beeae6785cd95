"""Visibility decided once: over random hands of all seven games played through a real
TableActor (in-memory sinks, seeded decks, players on random seats with seat 0 and gaps), each
player's live frames (dealt cards, draws, showdowns, the Caribbean dealer and settlement, the
reveal) are exactly what their copy of the stored record shows, the spectator's frames are the
public copy, and no frame carries a card its receiver may not see (SHOW-03, STUD-06, CSP-02)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.ledger.history import HandRecord, player_copy, public_copy
from tests.ledger.play import VARIANTS, frames_of_hand, play
from tests.table.test_privacy import cards_in


def _split(cards: list[Any], up: list[bool]) -> tuple[list[Any], list[Any]]:
    return ([c for c, u in zip(cards, up, strict=True) if not u],
            [c for c, u in zip(cards, up, strict=True) if u])


def expected(copy: HandRecord, viewer: int | None) -> dict[str, list[Any]]:
    """What the copy says this viewer's frames showed, frame kind by frame kind."""
    out: dict[str, list[Any]] = {"dealt": [], "drew": [], "showdown": [], "dealer": [],
                                 "settled": []}
    settled: dict[int, dict[str, Any]] = {}
    for e in copy.events:
        kind = e["e"]
        if kind == "Dealt" and not e.get("dead"):
            down, up = _split(e["cards"], e["up"])
            out["dealt"].append((e["seat"], down, up))
        elif kind == "Drew":
            cards = list(e["received"]) if e["seat"] == viewer else None
            out["drew"].append((e["seat"], len(e["received"]), cards))
        elif kind == "Showdown":
            out["showdown"].append((e["seat"], e["cards"], e["hand"], e["best"]))
        elif kind == "DealerDealt":
            out["dealer"].append((e["cards"], None, None))
        elif kind == "DealerRevealed":
            out["dealer"].append((e["cards"], e["hand"], e["best"]))
        elif kind == "Settled":
            entry: dict[str, Any] = {}
            if e["hand"] is not None:
                entry["hand"] = e["hand"]
            if None not in e["best"]:
                entry["best"] = e["best"]
            settled[e["seat"]] = entry
    if settled:
        out["settled"].append({str(s): v for s, v in settled.items()})
    return out


def shown(frames: list[dict[str, Any]], viewer: int | None) -> dict[str, list[Any]]:
    """The same, read from the frames the viewer received."""
    out: dict[str, list[Any]] = {"dealt": [], "drew": [], "showdown": [], "dealer": [],
                                 "settled": []}
    for msg in frames:
        kind = msg["type"]
        if kind == "dealt":
            out["dealt"].append((msg["seat"], msg["cards"], msg["up"]))
        elif kind == "drew":
            out["drew"].append((msg["seat"], msg["count"], msg.get("cards")))
        elif kind == "showdown":
            out["showdown"].append((msg["seat"], msg["cards"], msg["value"], msg["best"]))
        elif kind == "dealer":
            out["dealer"].append((msg["cards"], msg.get("hand"), msg.get("best")))
        elif kind == "settled":
            out["settled"].append({s: {k: r[k] for k in ("hand", "best") if k in r}
                                   for s, r in msg["results"].items()})
    return out


async def check(variant: str, seed: int, seats: int) -> int:
    p = await play(variant, hands=4, seed=seed, seats=seats)
    viewers = [(p.spectator, None), *((s, seat) for seat, s in p.players.items())]
    for record in p.records:
        truth = p.truths[record.hand]
        for sink, seat in viewers:
            copy = public_copy(record) if seat is None else player_copy(record, f"p{seat}")
            assert copy is not None and copy.audit is None and copy.viewer == seat
            frames = frames_of_hand(sink, record.hand)
            assert shown(frames, seat) == expected(copy, seat), (variant, seat)
            ended = next(m for m in frames if m["type"] == "hand_ended")
            assert ended["reveal"] == copy.reveal, (variant, seat)
            seen_here = cards_in(copy.to_dict())
            allowed = truth.public | (truth.own.get(seat, set()) if seat is not None else set())
            assert seen_here <= allowed | _discarded(record, seat), (variant, seat)
            for msg in frames:
                leaked = cards_in(msg) - seen_here
                assert not leaked, (variant, seat, msg, leaked)
    return len(p.records)


def _discarded(record: HandRecord, seat: int | None) -> set[str]:
    """A drawing player saw the cards they discarded (DRAW-03)."""
    return {c for e in record.events if e["e"] == "Drew" and e["seat"] == seat
            for c in e["discarded"]}


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=5, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), seats=st.integers(2, 4))
def test_live_frames_equal_each_viewers_copy_of_the_record(variant: str, seed: int,
                                                           seats: int) -> None:
    assert asyncio.run(check(variant, seed, seats)) >= 1
