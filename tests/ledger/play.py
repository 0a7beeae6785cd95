"""Real hands played through the TableActor (fake clock, seeded decks), for the history tests.

Each hand's engine events are also kept as the truth of who saw which card
(:class:`tests.table.test_privacy.Truth`), so a test can check that no frame and no player's
copy carries a card its receiver did not see.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from server.ledger.history import HandRecord, MemoryHistory
from server.table import TableActor
from tests.table.helpers import FakeSink, Harness
from tests.table.test_privacy import TABLES, Truth, play_random_hand

VARIANTS = sorted(TABLES)


@dataclass
class Played:
    harness: Harness
    table: TableActor
    players: dict[int, FakeSink]
    spectator: FakeSink
    truths: dict[str, Truth]  # hand id -> who saw which card in it
    history: MemoryHistory

    @property
    def records(self) -> list[HandRecord]:
        return self.history.records


async def play(variant: str, hands: int = 6, *, seed: int = 0, seats: int = 4) -> Played:
    """Play up to ``hands`` random hands of ``variant`` with ``seats`` players (and a
    spectator); returns everything a test needs."""
    rng = random.Random(f"{variant}:{seed}")
    h = Harness(seed=seed + len(variant))
    t = h.create(variant=variant, seats=seats + 2, **TABLES[variant])
    # players on random seats with gaps, seat 0 always among them (GEN-05, BET-02 layouts)
    layout = sorted({0, *rng.sample(range(1, seats + 2), seats - 1)})
    history = t.recording.history
    assert isinstance(history, MemoryHistory)
    truths: dict[str, Truth] = {}
    original = t.dealer.apply

    async def wrapped(events: Sequence[Any]) -> None:
        truth = truths.setdefault(str(t.dealer.hand_id), Truth())
        for e in events:
            truth.feed(e)
        await original(events)

    t.dealer.apply = wrapped  # type: ignore[method-assign]
    spectator = FakeSink()
    await h.send(t, spectator, "watch")
    players: dict[int, FakeSink] = {}
    for i, seat in enumerate(layout):
        sink = h.player(f"p{seat}", msgpack=i == 1)
        answer = await h.send(t, sink, "sit", seat=seat, buy_in=t.spec.max_buy_in)
        assert answer["type"] == "ok", answer
        players[seat] = sink
    out = Played(h, t, players, spectator, truths, history)
    for _ in range(hands * 3):
        if len(history.records) >= hands:
            break
        for seat, sink in players.items():
            st = t.seats[seat]
            if st is not None and st.sitting_out:
                await h.send(t, sink, "sit_in")
            if st is not None and st.stack < t.spec.min_buy_in:
                await h.send(t, sink, "sit", seat=seat, buy_in=t.spec.min_buy_in)
        await h.advance(t, 2.5)
        if not t.in_hand:
            continue
        await play_random_hand(h, t, players, rng)
    return out


def frames_of_hand(sink: FakeSink, hand: str) -> list[dict[str, Any]]:
    """The messages ``sink`` received from ``hand``'s ``hand_started`` to its ``hand_ended``
    (between hands no frame carries a card)."""
    out: list[dict[str, Any]] = []
    inside = False
    for msg in sink.messages:
        if msg["type"] == "hand_started" and msg["hand"] == hand:
            inside = True
        if inside:
            out.append(msg)
            if msg["type"] == "hand_ended" and msg["hand"] == hand:
                return out
    raise AssertionError(f"{hand} not seen whole")
