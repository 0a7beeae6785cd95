"""Per-viewer projection: engine events (the whole truth) to protocol events (what a viewer
may see).

Rule of this module: it is the only place that decides who sees which card. An engine event
becomes zero or more :class:`Draft` s; a draft has one *public* form (every viewer without a
private copy: spectators and the other players) and *private* forms keyed by player id (the
owner of the cards). Burns, reshuffles and dead stud cards never leave the engine. A face-down
card appears only in its owner's private form; face-up cards, the board and cards shown at
showdown are public. Messages are built with the :mod:`protocol.messages` builders, so field
names are the protocol's; the table assigns ``seq`` when it sends the draft
(:meth:`Draft.render`).

The ``hand_ended.reveal`` list holds the openings ``{card, position, salt, proof}`` of every
card that became public in the hand, plus, in a player's private copy, their own cards; the
table passes ``reveal`` (:meth:`server.table.recording.HandRecorder.reveal_for`, the Merkle
openings of the deck committed in ``hand_started``). Without it the list holds
``{card, position}`` from what this projector saw.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from protocol import messages as m
from server.rules import caribbean as csp
from server.rules import events as ev

__all__ = ["Draft", "HandProjector", "Msg"]

Msg = dict[str, Any]
Builder = Callable[[str, int], Msg]


@dataclass(slots=True)
class Draft:
    """One table event before its ``seq``: ``public`` (None = nobody else sees it) and
    ``private`` builders by player id."""

    public: Builder | None
    private: dict[str, Builder] = field(default_factory=dict)

    def render(self, table: str, seq: int) -> tuple[Msg | None, dict[str, Msg]]:
        pub = self.public(table, seq) if self.public is not None else None
        private = self.private
        if not private:
            return pub, {}
        return pub, {pid: b(table, seq) for pid, b in private.items()}


def _with(builder: Builder, extra: Msg) -> Builder:
    def build(table: str, seq: int) -> Msg:
        msg = builder(table, seq)
        msg.update(extra)
        return msg
    return build


class HandProjector:
    """Projects one hand's (or Caribbean round's) engine events.

    ``owner``: seat -> player id for the seats in the hand (fixed for the hand).
    ``stack_of``: the seat's current stack (Caribbean events that lack one).
    """

    def __init__(self, owner: dict[int, str], *, stack_of: Callable[[int], int],
                 reveal: Callable[[int | None], list[Msg]] | None = None,
                 hand: str = "") -> None:
        self.owner = dict(owner)
        self.hand_id = hand  # the hand id (from ``HandStarted``): every ``showdown`` has it
        self.reveal_fn = reveal
        self.stack_of = stack_of
        self.public_cards: dict[str, int] = {}  # card -> deck position
        self.own: dict[int, dict[str, int]] = {s: {} for s in owner}
        self.down: dict[int, set[str]] = {s: set() for s in owner}
        self.up: dict[int, list[str]] = {s: [] for s in owner}
        self._settled: dict[int, Msg] = {}
        self._folded: set[int] = set()  # Caribbean seats that folded (SHOW-03)
        self._dealer_positions: tuple[int, ...] = ()

    # ------------------------------------------------------------------ helpers
    def _reveal(self, seat: int | None) -> list[Msg]:
        if self.reveal_fn is not None:
            return self.reveal_fn(seat)
        cards = dict(self.public_cards)
        if seat is not None:
            cards.update(self.own.get(seat, {}))
        return [{"card": c, "position": p} for c, p in sorted(cards.items(), key=lambda x: x[1])]

    def _own(self, seat: int, cards: tuple[str, ...], positions: tuple[int, ...]) -> None:
        for i, c in enumerate(cards):
            self.own.setdefault(seat, {})[c] = positions[i] if i < len(positions) else -1

    def hole(self, seat: int) -> list[str]:
        """The seat's face-down cards now, in the order received."""
        return [c for c in self.own.get(seat, {}) if c in self.down.get(seat, set())]

    def _show(self, seat: int, cards: tuple[str, ...]) -> None:
        for c in cards:
            self.public_cards[c] = self.own.get(seat, {}).get(c, -1)

    # --------------------------------------------------------------- pot games
    def project(self, e: object, *, deadline: float = 0.0, options: Msg | None = None,
                time_bank: float | None = None, in_bank: bool = False) -> list[Draft]:
        """Drafts for one engine event (pot games and Caribbean). ``deadline``,
        ``options``, ``time_bank`` and ``in_bank`` are the table's for a ``TurnStarted``."""
        if isinstance(e, ev.HandStarted):  # the table sends its own hand_started
            self.hand_id = e.hand
            return []
        if isinstance(e, ev.Posted):
            return [Draft(partial(m.posted, seat=e.seat, kind=e.kind, amount=e.amount))]
        if isinstance(e, ev.Dealt):
            if e.dead:  # STUD-06 dead cards: to nobody
                return []
            self._own(e.seat, e.cards, e.positions)
            down = [c for c, u in zip(e.cards, e.up, strict=True) if not u]
            ups = [c for c, u in zip(e.cards, e.up, strict=True) if u]
            self.down.setdefault(e.seat, set()).update(down)
            self.up.setdefault(e.seat, []).extend(ups)
            for c, u, i in zip(e.cards, e.up, range(len(e.cards)), strict=False):
                if u:
                    self.public_cards[c] = e.positions[i] if i < len(e.positions) else -1
            pub = partial(m.dealt, seat=e.seat, cards=[None] * len(down), up=ups)
            priv: dict[str, Builder] = {}
            if e.seat in self.owner:
                priv[self.owner[e.seat]] = partial(m.dealt, seat=e.seat, cards=down, up=ups)
            return [Draft(pub, priv)]
        if isinstance(e, ev.BoardDealt):
            for i, c in enumerate(e.cards):
                self.public_cards[c] = e.positions[i] if i < len(e.positions) else -1
            return [Draft(partial(m.board, cards=list(e.board)))]
        if isinstance(e, ev.TurnStarted):
            pub = partial(m.turn, seat=e.seat, deadline=deadline, time_bank=time_bank,
                          in_bank=in_bank)
            priv = {}
            if e.seat in self.owner:
                priv[self.owner[e.seat]] = partial(m.turn, seat=e.seat, deadline=deadline,
                                                   options=options or {}, time_bank=time_bank,
                                                   in_bank=in_bank)
            return [Draft(pub, priv)]
        if isinstance(e, ev.Acted):
            extra: Msg = {"timeout": True} if e.timeout else {}
            b: Builder = partial(m.acted, seat=e.seat, action=e.action, amount=e.amount,
                                 stack=e.stack)
            return [Draft(_with(b, extra) if extra else b)]
        if isinstance(e, ev.Drew):
            mine = self.own.setdefault(e.seat, {})
            for c in e.discarded:
                mine.pop(c, None)
                self.down.setdefault(e.seat, set()).discard(c)
            self._own(e.seat, e.received, e.positions)
            self.down.setdefault(e.seat, set()).update(e.received)
            pub = partial(m.drew, seat=e.seat, count=len(e.received))
            priv = {}
            if e.seat in self.owner:
                priv[self.owner[e.seat]] = partial(m.drew, seat=e.seat, count=len(e.received),
                                                   cards=list(e.received))
            return [Draft(pub, priv)]
        if isinstance(e, ev.BetReturned):
            return [Draft(partial(m.acted, seat=e.seat, action="returned", amount=e.amount,
                                  stack=e.stack))]
        if isinstance(e, ev.Showdown):
            self._show(e.seat, e.cards)
            return [Draft(partial(m.showdown, seat=e.seat, cards=list(e.cards),
                                  hand=self.hand_id, value=e.hand))]
        if isinstance(e, ev.Mucked):
            return [Draft(partial(m.mucked, seat=e.seat))]
        if isinstance(e, ev.PotAwarded):
            return [Draft(partial(m.pot_awarded, pot=e.pot, amount=e.amount,
                                  winners=dict(e.winners), odd_chip=e.odd_chip))]
        if isinstance(e, ev.HandEnded):
            return [self._ended(e.hand, e.stacks, voided=e.voided)]
        if isinstance(e, ev.StreetEnded):  # the pot breakdown, the same for every viewer
            return [Draft(partial(m.pots, pots=[{"amount": a, "eligible": el}
                                                for a, el in e.pots]))]
        # Caribbean events; Burned, Reshuffled, RakeTaken give nothing
        return self._caribbean(e)

    def voided(self, hand: str, stacks: dict[int, int]) -> Draft:
        """The ``hand_ended`` of a voided hand (``stacks``: everyone's from before it)."""
        return self._ended(hand, stacks, voided=True)

    def _ended(self, hand: str, stacks: dict[int, int], *, voided: bool) -> Draft:
        extra: Msg = {"voided": True} if voided else {}
        pub = _with(partial(m.hand_ended, hand=hand, stacks=dict(stacks),
                            reveal=self._reveal(None)), extra)
        priv = {pid: _with(partial(m.hand_ended, hand=hand, stacks=dict(stacks),
                                   reveal=self._reveal(seat)), extra)
                for seat, pid in self.owner.items()}
        return Draft(pub, priv)

    # --------------------------------------------------------------- caribbean
    def _caribbean(self, e: Any) -> list[Draft]:
        if isinstance(e, csp.AnteAccepted):
            return [Draft(partial(m.posted, seat=e.seat, kind="ante", amount=e.amount))]
        if isinstance(e, csp.JackpotWagered):
            return [Draft(_with(partial(m.acted, seat=e.seat, action="ante", amount=e.amount,
                                        stack=e.stack), {"jackpot": True}))]
        if isinstance(e, csp.SatOut):
            return [Draft(partial(m.acted, seat=e.seat, action="fold", amount=0,
                                  stack=self.stack_of(e.seat)))]
        if isinstance(e, csp.Dealt):
            self._own(e.seat, e.cards, e.positions)
            self.down.setdefault(e.seat, set()).update(e.cards)
            pub = partial(m.dealt, seat=e.seat, cards=[None] * len(e.cards), up=[])
            priv: dict[str, Builder] = {}
            if e.seat in self.owner:
                priv[self.owner[e.seat]] = partial(m.dealt, seat=e.seat, cards=list(e.cards),
                                                   up=[])
            return [Draft(pub, priv)]
        if isinstance(e, csp.DealerDealt):
            self.public_cards[e.up_card] = e.positions[-1]
            self._dealer_positions = e.positions
            cards: list[str | None] = [None] * (len(e.cards) - 1) + [e.up_card]
            return [Draft(partial(m.dealer, cards=cards))]
        if isinstance(e, csp.PlayerDecided):
            return [Draft(partial(m.acted, seat=e.seat, action=e.action, amount=e.amount,
                                  stack=e.stack))]
        if isinstance(e, csp.DealerRevealed):
            for c, p in zip(e.cards, self._dealer_positions, strict=False):
                self.public_cards[c] = p
            return [Draft(partial(m.dealer, cards=list(e.cards), hand=e.hand,
                                  qualifies=e.qualifies))]
        if isinstance(e, csp.Settled):
            self._settled[e.seat] = {
                "ante": e.ante, "play": None if e.folded else e.play,
                "jackpot": e.jackpot if e.jackpot or e.jackpot_hand else None,
                "hand": e.hand, "stack": e.stack,
            }
            if e.folded:
                self._folded.add(e.seat)
            return []
        if isinstance(e, csp.RoundEnded):
            out: list[Draft] = []
            if self._settled:
                out.append(self._settled_draft())
            out.append(self._ended(e.round_id, e.stacks, voided=e.voided))
            return out
        return []

    def _settled_draft(self) -> Draft:
        """SHOW-03: a folded hand is named to its owner only. The public ``settled`` (every
        other player, spectators) has no ``hand`` for a folded seat; the owner of a folded
        seat gets a copy naming their own hand (and still no other folded one)."""
        def results(viewer: int | None) -> dict[int, Msg]:
            out: dict[int, Msg] = {}
            for seat, r in self._settled.items():
                if seat in self._folded and seat != viewer:
                    r = {k: v for k, v in r.items() if k != "hand"}
                out[seat] = dict(r)
            return out
        pub = partial(m.settled, results=results(None))
        priv: dict[str, Builder] = {
            self.owner[s]: partial(m.settled, results=results(s))
            for s in sorted(self._folded) if s in self.owner}
        return Draft(pub, priv)
