"""The fairness commitment and the history record of the hand a table is playing.

Rule of this module: the actor calls :meth:`HandLog.begin` once per hand with
the deck it is about to deal (before any card leaves it), feeds every engine event to
:meth:`HandRecorder.feed` before projecting it, and ends with :meth:`HandLog.end`
after the hand's last event was sent. The commitment in ``hand_started`` is the Merkle root of
:mod:`server.rules.commitment` over the deck with one fresh random salt (16 bytes from the
table's ``rng``, ``secrets`` in production) per card. ``hand_ended.reveal`` is built here
(:meth:`HandRecorder.reveal_for`): the openings of every card that became public (up cards,
the board, hands shown at showdown, the Caribbean dealer's cards once turned), plus, in a
player's own copy, the openings of every card dealt to that player (discarded ones too).
A card from a mid-hand reshuffle (STUD-05/DRAW-03) is not in the committed deck: its opening
has ``salt`` null and an empty ``proof``; the audit record's seed accounts for it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from server.ledger.history import HandRecord, HistoryStore, event_to_dict
from server.ledger.ids import IdBlocks
from server.rules import caribbean as csp
from server.rules import events as ev
from server.rules.commitment import DeckCommitment
from server.rules.visibility import seen
from server.table.api import Clock
from server.table.settings import TableSpec

log = logging.getLogger("server.table")

__all__ = ["HandLog", "HandRecorder", "SALT_BYTES"]

SALT_BYTES = 16
_CARDS_TO_SEATS = (ev.Dealt, csp.Dealt, ev.Drew)  # (a tuple, built once)


def _split(blob: bytes, size: int) -> list[bytes]:
    """``blob`` cut into consecutive ``size``-byte pieces (one salt per card, drawn at once)."""
    return [blob[i:i + size] for i in range(0, len(blob), size)]


def _by_position(item: tuple[str, int]) -> int:
    return item[1]


class HandRecorder:
    """One hand's commitment tree and record under construction."""

    def __init__(self, record: HandRecord, tree: DeckCommitment, seed: bytes) -> None:
        self.record = record
        self.tree = tree
        self.seed = seed
        self.public: dict[str, int] = {}  # card -> position
        self.own: dict[int, dict[str, int]] = {}  # seat -> card -> position (every card seen)
        self._held: dict[int, dict[str, int]] = {}  # seat -> its current own cards
        self._dealer: dict[str, int] = {}
        self._opened: dict[tuple[str, int], dict[str, Any]] = {}  # each opening built once
        self._public_list: list[dict[str, Any]] | None = None  # the public reveal, once

    def feed(self, events: Sequence[Any]) -> None:
        for e in events:
            self.record.events.append(event_to_dict(e))
            self._track(e)

    def _track(self, e: Any) -> None:
        """Where each card of ``e`` lies in the deck, and who may open it: the cards a
        spectator sees (:func:`~server.rules.visibility.seen` with no seat) become public;
        those the event's own seat sees become that seat's."""
        if isinstance(e, _CARDS_TO_SEATS):
            held = self._held.setdefault(e.seat, {})
            if isinstance(e, ev.Drew):
                for c in e.discarded:
                    held.pop(c, None)
                mine, public = seen(e, e.seat).received, seen(e, None).received
            else:
                mine, public = seen(e, e.seat).cards, seen(e, None).cards
            for c, p in zip(mine, e.positions, strict=False):
                if c is not None:
                    self.own.setdefault(e.seat, {})[c] = held[c] = p
            self._publish(zip(public, e.positions, strict=False))
        elif isinstance(e, ev.BoardDealt):
            self._publish(zip(seen(e, None).cards, e.positions, strict=False))
        elif isinstance(e, ev.Showdown):
            held = self._held.get(e.seat, {})
            self._publish((c, held[c]) for c in seen(e, None).cards if c in held)
        elif isinstance(e, csp.DealerDealt):
            self._dealer = dict(zip(e.cards, e.positions, strict=False))
            self._publish(zip(seen(e, None).cards, e.positions, strict=False))
        elif isinstance(e, csp.DealerRevealed):
            self._publish((c, self._dealer[c]) for c in seen(e, None).cards if c in self._dealer)

    def _publish(self, placed: Iterable[tuple[str | None, int]]) -> None:
        for c, p in placed:
            if c is not None and self.public.get(c) != p:
                self.public[c] = p
                self._public_list = None

    def opening(self, card: str, position: int) -> dict[str, Any]:
        """The card's opening, built once per hand (the public copy, every player's copy
        and the record share it; nobody mutates it: messages copy it)."""
        key = (card, position)
        found = self._opened.get(key)
        if found is None:
            if 0 <= position < len(self.tree.deck) and self.tree.deck[position] == card:
                found = self.tree.opening(position).to_wire()
            else:
                found = {"card": card, "position": position, "salt": None, "proof": []}
            self._opened[key] = found
        return found

    def _openings(self, cards: dict[str, int]) -> list[dict[str, Any]]:
        return [self.opening(c, p) for c, p in sorted(cards.items(), key=_by_position)]

    def reveal_for(self, seat: int | None) -> list[dict[str, Any]]:
        """``hand_ended.reveal`` for ``seat``'s player (None: the public copy)."""
        public = self._public_list
        if public is None:  # (built once per hand: every viewer's copy starts from it)
            public = self._public_list = self._openings(self.public)
        own = self.own.get(seat) if seat is not None else None
        extra = {c: p for c, p in own.items() if self.public.get(c) != p} if own else None
        if not extra:
            return list(public)
        cards = dict(self.public)
        cards.update(extra)
        return self._openings(cards)

    def finish(self, e: Any, *, ended: float, jackpot_paid: dict[int, int]) -> HandRecord:
        rec = self.record
        rec.ended = ended
        rec.result = {
            "stacks": {str(k): v for k, v in e.stacks.items()},
            "voided": bool(getattr(e, "voided", False)),
            "rake": int(getattr(e, "rake", 0)),
            "house_net": int(getattr(e, "house_net", 0)),
            "jackpot_collected": int(getattr(e, "jackpot_collected", 0)),
            "jackpot_paid": {str(k): v for k, v in jackpot_paid.items()},
        }
        rec.reveal = self._openings(self.public)
        rec.own = {str(s): self._openings(cards) for s, cards in sorted(self.own.items())}
        rec.audit = {"deck": list(self.tree.deck), "salts": [s.hex() for s in self.tree.salts],
                     "seed": self.seed.hex()}
        return rec


class HandLog:
    """A table's hand ids and the record of the hand it plays (see the module docstring).

    ``hand_numbers``: set by the registry: the durable hand numbers
    (:mod:`server.ledger.ids`).
    """

    def __init__(self, table_id: str, *, history: HistoryStore, clock: Clock,
                 rng: Callable[[int], bytes]) -> None:
        self.table_id = table_id
        self.history = history
        self.clock = clock
        self.rng = rng
        self.recorder: HandRecorder | None = None
        self.hand_numbers: IdBlocks | None = None
        self.count = 0  # hands started here (the id's number without ``hand_numbers``)

    async def new_hand_id(self) -> str:
        """The next hand's id, ``<table id>.<n>``: ``n`` from the registry's durable counter
        (unique for ever, across restarts and processes sharing a store; also the hand's
        number in exports), else this table's own count (a table built alone, in tests)."""
        self.count += 1
        n = await self.hand_numbers.next() if self.hand_numbers is not None else self.count
        return f"{self.table_id}.{n}"

    def begin(self, hand_id: str, spec: TableSpec, deck: Sequence[str], *,
              button: int | None, seed: bytes, players: dict[str, dict[str, Any]],
              number: int | None = None) -> str:
        """Commit to ``deck`` (fresh salts) and open the hand's record; returns the root.
        ``players``: seat (as a string) -> ``{player, name, stack}``."""
        tree = DeckCommitment(deck, _split(self.rng(SALT_BYTES * len(deck)), SALT_BYTES))
        record = HandRecord(
            hand=hand_id, table=self.table_id, variant=spec.variant_name,
            structure=spec.structure, stakes=dict(spec.stakes_wire),
            settings=dict(spec.settings_wire), num_seats=spec.seats, button=button,
            started=self.clock.wall(), commitment=tree.root_hex, deck_size=len(deck),
            players=players, number=number)
        self.recorder = HandRecorder(record, tree, seed)
        return tree.root_hex

    def feed(self, events: Sequence[Any]) -> None:
        if self.recorder is not None:
            self.recorder.feed(events)

    def reveal(self, seat: int | None) -> list[dict[str, Any]]:
        return self.recorder.reveal_for(seat) if self.recorder is not None else []

    def drop(self) -> None:
        """The hand was voided: its record is not kept."""
        self.recorder = None

    async def end(self, e: Any, jackpot_paid: dict[int, int]) -> None:
        """Store the finished hand's record; a store failure is logged, never raised."""
        recorder, self.recorder = self.recorder, None
        if recorder is None:
            return
        record = recorder.finish(e, ended=self.clock.wall(), jackpot_paid=jackpot_paid)
        try:
            await self.history.save(record)
        except Exception:
            log.exception("event=history_save_failed table=%s hand=%s", self.table_id,
                          record.hand)
