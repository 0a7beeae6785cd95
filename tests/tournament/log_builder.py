"""Builds tournament logs (docs/rules.md 5.1) for the referee's tests.

Rule of this module: the builder only numbers records and does the bookkeeping a test would
otherwise repeat (seats, stacks, hand ids, the players dealt in); every decision (who moves,
where, who is placed where, who is paid what) is written by the test itself, so a test log says
in plain data what a director decided.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

Record = dict[str, Any]


def renumber(records: Iterable[Mapping[str, Any]]) -> list[Record]:
    """A deep copy of ``records`` numbered 1, 2, ... (after a test inserted or deleted some)."""
    out = [copy.deepcopy(dict(r)) for r in records]
    for i, r in enumerate(out, 1):
        r["n"] = i
    return out


class LogBuilder:
    """Writes a log record by record; ``records`` is the log so far."""

    def __init__(self) -> None:
        self.records: list[Record] = []
        self.stack: dict[str, int] = {}
        self.where: dict[str, tuple[str, int]] = {}
        self.level_now = 0
        self.hands = 0
        self.in_play: dict[str, tuple[str, dict[str, int]]] = {}

    def add(self, kind: str, **fields: Any) -> Record:
        """Appends a record of ``kind`` with ``fields`` as they are."""
        rec: Record = {"n": len(self.records) + 1, "kind": kind, **fields}
        self.records.append(rec)
        return rec

    def start(self, *, seats: int, paid: int, stack: int,
              draw: Mapping[str, tuple[str, int]]) -> Record:
        for p, (table, seat) in draw.items():
            self.where[p] = (table, seat)
            self.stack[p] = stack
        return self.add("start", seats=seats, paid=paid, entries=list(draw),
                        draw={p: [t, s] for p, (t, s) in draw.items()}, stack=stack)

    def level(self, level: int, *, small: int, big: int, game: str = "holdem") -> Record:
        self.level_now = level
        return self.add("level", level=level, stakes={"blinds": [small, big], "ante": 0},
                        game=game)

    def seated(self, table: str) -> dict[str, int]:
        """{player: seat} at ``table`` (every player seated there, with or without chips)."""
        return {p: s for p, (t, s) in self.where.items() if t == table}

    def hand_start(self, table: str, *, button: int | None, blinds: Sequence[int | None],
                   waiting: Iterable[str] = (), hand: str | None = None,
                   level: int | None = None) -> Record:
        """Deals every player seated at ``table`` with chips, except ``waiting``."""
        self.hands += 1
        hand_id = hand or f"h{self.hands}"
        wait = set(waiting)
        players = {p: s for p, s in self.seated(table).items()
                   if self.stack[p] > 0 and p not in wait}
        stacks = {p: self.stack[p] for p in players}
        self.in_play[table] = (hand_id, stacks)
        return self.add("hand_start", table=table, hand=hand_id,
                        level=self.level_now if level is None else level, players=players,
                        stacks=stacks, button=button, blinds=list(blinds))

    def hand_end(self, table: str, result: Mapping[str, int] | None = None) -> Record:
        """Ends ``table``'s hand; ``result`` is each player's gain or loss (summing to 0)."""
        hand_id, _ = self.in_play.pop(table)
        for p, delta in (result or {}).items():
            self.stack[p] += delta
        seated = self.seated(table)
        return self.add("hand_end", table=table, hand=hand_id,
                        stacks={p: self.stack[p] for p in seated}, seats=seated)

    def hand(self, table: str, *, button: int | None, blinds: Sequence[int | None],
             result: Mapping[str, int] | None = None, waiting: Iterable[str] = ()) -> str:
        """A whole hand (``hand_start`` then ``hand_end``); returns its id."""
        rec = self.hand_start(table, button=button, blinds=blinds, waiting=waiting)
        self.hand_end(table, result)
        return str(rec["hand"])

    def move(self, player: str, to: tuple[str, int], why: str = "balance") -> Record:
        src = self.where[player]
        self.where[player] = to
        return self.add("move", player=player, **{"from": list(src)}, to=list(to), why=why)

    def out(self, places: Mapping[str, int], hand: str | None = None,
            tie_odd_chip: str | None = None) -> Record:
        for p in places:
            self.where.pop(p, None)
        return self.add("out", places=dict(places), hand=hand or f"h{self.hands}",
                        tie_odd_chip=tie_odd_chip)

    def enter(self, player: str, to: tuple[str, int], stack: int, why: str = "late") -> Record:
        self.where[player] = to
        self.stack[player] = stack
        return self.add("enter", player=player, to=list(to), stack=stack, why=why)

    def chips(self, player: str, amount: int, why: str = "rebuy") -> Record:
        self.stack[player] += amount
        return self.add("chips", player=player, amount=amount, why=why)

    def void(self, table: str) -> Record:
        hand_id, stacks = self.in_play.pop(table)
        self.stack.update(stacks)
        return self.add("void", table=table, hand=hand_id, stacks=dict(stacks))

    def payouts(self, amounts: Sequence[tuple[str, int, int]], pool: int) -> None:
        """``payout`` records for (player, place, amount), then ``finish``."""
        for player, place, amount in amounts:
            self.add("payout", player=player, place=place, amount=amount)
        self.add("finish", pool=pool, paid={p: a for p, _, a in amounts})
