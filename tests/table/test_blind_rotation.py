"""GEN-05 (the dead-button rule) and BLIND-01 played through a table, on random seat layouts.

Written from the rule text: the first button is on the highest-numbered occupied seat; after
every hand the big blind moves to the next player clockwise who is in the game and the small
blind and the button follow behind it; each player pays each blind once per orbit; nobody pays a
blind twice in a row or skips one; a player who sits down waits until the big blind reaches
them (or posts a big blind to play at once, ``post_to_enter``).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from server.config import Config
from server.table import TableActor
from tests.table.helpers import FakeSink, Harness, hand_of
from tests.table.test_hand_flow import HOLDEM

CFG = Config(test_mode=True, hand_pause=2.0, action_clock=10.0, time_bank=5.0, reconnect_grace=30.0)


def clockwise_between(a: int, b: int, n: int) -> list[int]:
    """The seats strictly between ``a`` and ``b`` going clockwise (seat numbers mod ``n``)."""
    out, s = [], (a + 1) % n
    while s != b:
        out.append(s)
        s = (s + 1) % n
    return out


class Table:
    """A table on the harness with a log of who was dealt in and who posted what."""

    def __init__(self, h: Harness, seats: int, **extra: Any) -> None:
        self.h = h
        self.n = seats
        self.t: TableActor = h.create(**{**HOLDEM, "seats": seats, **extra})
        self.sinks: dict[int, FakeSink] = {}
        self.hands: list[dict[str, Any]] = []
        self._names = iter(range(10_000))
        self.watcher = h.player("watcher")

    async def watch(self) -> None:
        assert (await self.h.send(self.t, self.watcher, "watch"))["type"] == "ok"

    async def sit(self, seat: int) -> None:
        sink = self.h.player(f"p{next(self._names)}")
        assert (await self.h.send(self.t, sink, "sit", seat=seat, buy_in=5000))["type"] == "ok"
        self.sinks[seat] = sink

    async def leave(self, seat: int) -> None:
        assert (await self.h.send(self.t, self.sinks.pop(seat), "leave"))["type"] == "ok"

    async def play_hand(self) -> dict[str, Any]:
        """Start the next hand, record its blinds, and play it out by checking or folding."""
        if not self.hands:
            await self.watch()
        await self.h.advance(self.t, 2.0)
        hand = hand_of(self.t)
        assert hand is not None
        frames = self.watcher.messages
        start = max(i for i, f in enumerate(frames) if f["type"] == "hand_started")
        posted = [f for f in frames[start:] if f["type"] == "posted" and f["kind"] == "blind"]
        players = {s: self.sinks[s].player_id for s in hand.stacks}
        rec = {"button": hand.button, "players": players,
               "blinds": [(f["seat"], f["amount"]) for f in posted],
               "blind_seats": hand.blind_seats}
        self.hands.append(rec)
        while self.t.engine is not None:
            seat = hand_of(self.t).to_act
            assert seat is not None
            opts = hand_of(self.t).options(seat)
            assert opts is not None
            action = "check" if opts.check else "fold"
            answer = await self.h.send(self.t, self.sinks[seat], "act", action=action)
            assert answer["type"] == "ok"
        return rec


async def test_gen_05_players_in_seats_1_to_3_of_six() -> None:
    """GEN-05 (the reported fault): 6 seats, players in 1-3. The button never walks onto an
    empty seat with everyone staying, and over six hands each player posts the small blind
    exactly twice and the big blind exactly twice (never seat 1 three times)."""
    table = Table(Harness(config=CFG), 6)
    for s in (1, 2, 3):
        await table.sit(s)
    for _ in range(6):
        await table.play_hand()
    assert [h["button"] for h in table.hands] == [3, 1, 2, 3, 1, 2]
    for s in (1, 2, 3):
        assert sum(h["blind_seats"][0] == s for h in table.hands) == 2
        assert sum(h["blind_seats"][-1] == s for h in table.hands) == 2


@pytest.mark.parametrize("layout_seed", range(12))
async def test_gen_05_stable_table_each_blind_once_per_orbit(layout_seed: int) -> None:
    """GEN-05/BLIND-01: a stable table (random seats out of 10, seat 0 often, gaps): over
    two orbits every player pays the small and the big blind exactly once per orbit, and the
    first button is on the highest-numbered occupied seat."""
    rng = random.Random(layout_seed)
    n = rng.randint(2, 10)
    seats = sorted(rng.sample(range(10), n))
    if layout_seed % 3 == 0 and 0 not in seats:
        seats = sorted([0, *seats[1:]])
    table = Table(Harness(config=CFG, seed=layout_seed), 10)
    for s in seats:
        await table.sit(s)
    for _ in range(2 * n):
        await table.play_hand()
    assert table.hands[0]["button"] == max(seats)
    for orbit in (table.hands[:n], table.hands[n:]):
        bigs = sorted(h["blind_seats"][-1] for h in orbit)
        assert bigs == seats
        if n > 2:  # heads-up the small blind is the other player each hand anyway
            smalls = sorted(h["blind_seats"][0] for h in orbit)
            assert smalls == seats


def assert_no_blind_twice_or_skipped(hands: list[dict[str, Any]], n: int) -> None:
    """Nobody pays the big blind (or the small blind) in two hands in a row that they play,
    and the big blind never jumps over a player dealt into both hands."""
    for prev, cur in zip(hands, hands[1:], strict=False):
        pb, cb = prev["blind_seats"][-1], cur["blind_seats"][-1]
        same = {s for s, p in cur["players"].items() if prev["players"].get(s) == p}
        if pb in same:
            assert cb != pb, f"seat {pb} paid the big blind twice in a row: {prev} {cur}"
        skipped = [s for s in clockwise_between(pb, cb, n) if s in same]
        assert not skipped, f"the big blind skipped {skipped}: {prev} -> {cur}"
        if len(cur["blind_seats"]) == 2 and len(prev["blind_seats"]) == 2:
            ps, cs = prev["blind_seats"][0], cur["blind_seats"][0]
            if ps in same and len(cur["players"]) > 2:
                assert cs != ps, f"seat {ps} paid the small blind twice in a row"


@pytest.mark.parametrize("churn_seed", range(10))
async def test_gen_05_joins_and_leaves_nobody_pays_twice_or_skips(churn_seed: int) -> None:
    """GEN-05 with players joining and leaving between hands on random seats: nobody pays a
    blind twice in a row or skips one, and a newcomer is first dealt in on the big blind."""
    rng = random.Random(1000 + churn_seed)
    table = Table(Harness(config=CFG, seed=churn_seed), 10)
    for s in sorted(rng.sample(range(10), rng.randint(3, 6))):
        await table.sit(s)
    newcomers: set[str] = set()
    seen: set[str] = set()
    for _ in range(30):
        rec = await table.play_hand()
        for s, pid in rec["players"].items():
            if pid in newcomers and pid not in seen:
                assert rec["blind_seats"][-1] == s or len(rec["players"]) == 2, (
                    f"newcomer {pid} on seat {s} dealt in off the big blind: {rec}")
            seen.add(pid)
        roll = rng.random()
        free = [s for s in range(10) if s not in table.sinks]
        if roll < 0.3 and len(table.sinks) > 2:
            await table.leave(rng.choice(sorted(table.sinks)))
        elif roll < 0.6 and free:
            seat = rng.choice(free)
            await table.sit(seat)
            newcomers.add(table.sinks[seat].player_id)  # type: ignore[arg-type]
    assert_no_blind_twice_or_skipped(table.hands, 10)


async def test_gen_05_newcomer_waits_for_the_big_blind_or_posts_to_enter() -> None:
    """GEN-05: a player who sits down where the big blind has not reached waits (default);
    with ``post_to_enter`` they post a big blind and play at once."""
    for post in (False, True):
        table = Table(Harness(config=CFG), 10, settings={"post_to_enter": post})
        for s in (0, 3, 6):
            await table.sit(s)
        first = await table.play_hand()  # button 6, blinds 0 and 3
        assert first["blind_seats"] == [0, 3]
        await table.sit(2)  # between the blinds: the big blind reaches seat 2 last
        # everyone is told the newcomer waits (or not, when they post to come in)
        assert table.watcher.of("seated")[-1].get("wait_for_bb", False) is not post
        late = FakeSink()
        await table.h.send(table.t, late, "watch")
        assert late.of("snapshot")[-1]["seats"][2].get("wait_for_bb", False) is not post
        rec = await table.play_hand()  # big blind on 6
        assert rec["blind_seats"][-1] == 6
        if post:
            assert 2 in rec["players"] and (2, 100) in rec["blinds"]
        else:
            assert 2 not in rec["players"]
            rec = await table.play_hand()  # big blind on 0
            assert 2 not in rec["players"]
            rec = await table.play_hand()  # the big blind reaches seat 2
            assert 2 in rec["players"] and rec["blind_seats"][-1] == 2


async def test_gen_05_dead_small_blind_and_dead_button_after_a_leave() -> None:
    """GEN-05: when last hand's big blind leaves, the small blind is dead next hand (nobody
    posts it) and the big blind still moves one player; the button may be dead too."""
    table = Table(Harness(config=CFG), 10)
    for s in (1, 4, 7):
        await table.sit(s)
    first = await table.play_hand()  # button 7, blinds 1 and 4
    assert first["blind_seats"] == [1, 4]
    await table.leave(4)
    rec = await table.play_hand()
    assert rec["blind_seats"] == [7]  # the small blind (seat 4's position) is dead
    assert rec["button"] == 1
    assert [a for _, a in rec["blinds"]] == [100]


async def test_gen_05_export_names_the_big_blind_when_the_small_blind_is_dead() -> None:
    """GEN-05 in the hand history export: with a dead small blind the one blind posted is
    named the big blind (not the small blind because its seat comes first)."""
    from server.ledger.export import to_pokerstars
    from server.ledger.history import MemoryHistory

    table = Table(Harness(config=CFG), 10)
    for s in (1, 4, 7):
        await table.sit(s)
    await table.play_hand()
    await table.leave(4)
    await table.play_hand()
    history = table.t.recording.history
    assert isinstance(history, MemoryHistory)
    text = to_pokerstars(history.records[-1])
    posts = [line for line in text.splitlines() if ": posts " in line]
    assert len(posts) == 1 and posts[0].endswith("posts big blind 100"), posts
