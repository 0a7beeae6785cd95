"""Per-viewer projection: engine events (the whole truth) to protocol events (what a viewer
may see).

Rule of this module: who sees which card is decided by :func:`server.rules.visibility.seen`,
never here. An engine event becomes zero or more :class:`Draft` s; a draft has one *public*
form (every viewer without a private copy: spectators and the other players) built from the
event as a spectator sees it, and *private* forms keyed by player id, built from the event as
that player's seat sees it, wherever the two differ. Burns, reshuffles and dead stud cards give
no frame at all. Messages are built with the :mod:`protocol.messages` builders, so field names
are the protocol's; the table assigns ``seq`` when it sends the draft (:meth:`Draft.render`).

The ``hand_ended.reveal`` list holds the openings ``{card, position, salt, proof}`` of every
card that became public in the hand, plus, in a player's private copy, their own cards; the
table passes ``reveal`` (:meth:`server.table.recording.HandRecorder.reveal_for`, the Merkle
openings of the deck committed in ``hand_started``; the same rule decides them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from protocol import messages as m
from server.rules import caribbean as csp
from server.rules import events as ev
from server.rules.view import SeatView
from server.rules.visibility import seen

__all__ = ["Draft", "HandProjector", "Msg", "seat_fields"]

Msg = dict[str, Any]
_DEALT = (ev.Dealt, csp.Dealt)  # (a tuple, built once)
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


def seat_fields(sv: SeatView) -> Msg:
    """The hand's part of a ``snapshot`` seat entry, from the engine's view of that seat
    (:meth:`server.rules.engine.Engine.view`): ``stack``, ``bet``, ``state``, ``cards`` (the
    viewer's own, ``null`` per hidden card) and ``up``."""
    return {"stack": sv.stack, "bet": sv.bet, "state": sv.state, "cards": list(sv.cards),
            "up": list(sv.up)}


def _down_up(cards: tuple[Any, ...], up: tuple[bool, ...]) -> tuple[list[Any], list[Any]]:
    """A ``Dealt``'s cards split into the face-down ones and the face-up ones, in order."""
    return ([c for c, u in zip(cards, up, strict=True) if not u],
            [c for c, u in zip(cards, up, strict=True) if u])


class HandProjector:
    """Projects one hand's (or Caribbean round's) engine events.

    ``owner``: seat -> player id for the seats in the hand (fixed for the hand).
    ``stack_of``: the seat's current stack (Caribbean events that lack one).
    ``reveal``: ``hand_ended.reveal`` for a seat (None: the public copy).
    """

    def __init__(self, owner: dict[int, str], *, stack_of: Callable[[int], int],
                 reveal: Callable[[int | None], list[Msg]] | None = None,
                 hand: str = "") -> None:
        self.owner = dict(owner)
        self.hand_id = hand  # the hand id (from ``HandStarted``): every ``showdown`` has it
        self.reveal_fn = reveal
        self.stack_of = stack_of
        self._settled: list[csp.Settled] = []

    # ------------------------------------------------------------------ helpers
    def _reveal(self, seat: int | None) -> list[Msg]:
        return self.reveal_fn(seat) if self.reveal_fn is not None else []

    def _seen(self, e: Any, build: Callable[[Any, bool], Builder]) -> Draft:
        """The draft of an event with a ``seat``: the public form from the event as a
        spectator sees it; the seat's player gets their own form when their view differs."""
        public = seen(e, None)
        priv: dict[str, Builder] = {}
        if e.seat in self.owner:
            mine = seen(e, e.seat)
            if mine is not public:  # (the event itself when it hides nothing from them)
                priv[self.owner[e.seat]] = build(mine, True)
        return Draft(build(public, False), priv)

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
        if isinstance(e, _DEALT):
            if isinstance(e, ev.Dealt) and e.dead:  # STUD-06 dead cards: no frame at all
                return []
            return [self._seen(e, lambda v, _: partial(
                m.dealt, seat=v.seat, cards=_down_up(v.cards, v.up)[0],
                up=_down_up(v.cards, v.up)[1]))]
        if isinstance(e, ev.BoardDealt):
            return [Draft(partial(m.board, cards=list(e.board), run=e.run + 1))]  # RIT-03
        if isinstance(e, ev.TurnStarted):
            pub = partial(m.turn, seat=e.seat, deadline=deadline, time_bank=time_bank,
                          in_bank=in_bank)
            priv: dict[str, Builder] = {}
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
        if isinstance(e, ev.Drew):  # the new cards: in the drawing player's own form only
            return [self._seen(e, lambda v, own: partial(
                m.drew, seat=v.seat, count=len(v.received),
                cards=list(v.received) if own else None))]
        if isinstance(e, ev.BetReturned):
            return [Draft(partial(m.acted, seat=e.seat, action="returned", amount=e.amount,
                                  stack=e.stack))]
        if isinstance(e, ev.Showdown):
            return [self._seen(e, lambda v, _: partial(
                m.showdown, seat=v.seat, cards=list(v.cards), hand=self.hand_id,
                value=v.hand, best=list(v.best)))]
        if isinstance(e, ev.Mucked):
            return [Draft(partial(m.mucked, seat=e.seat))]
        if isinstance(e, ev.PotAwarded):
            return [Draft(partial(m.pot_awarded, pot=e.pot, amount=e.amount,
                                  winners=dict(e.winners), odd_chip=e.odd_chip,
                                  run=e.run + 1))]  # RIT-04
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
        if isinstance(e, csp.SatOut):  # (timeout: the clock's, told from a leaver's fold)
            sat: Builder = partial(m.acted, seat=e.seat, action="fold", amount=0,
                                   stack=self.stack_of(e.seat))
            return [Draft(_with(sat, {"timeout": True}) if e.timeout else sat)]
        if isinstance(e, csp.DealerDealt):
            return [Draft(partial(m.dealer, cards=list(seen(e, None).cards)))]
        if isinstance(e, csp.PlayerDecided):
            dec: Builder = partial(m.acted, seat=e.seat, action=e.action, amount=e.amount,
                                   stack=e.stack)
            return [Draft(_with(dec, {"timeout": True}) if e.timeout else dec)]
        if isinstance(e, csp.DealerRevealed):
            v = seen(e, None)
            return [Draft(partial(m.dealer, cards=list(v.cards), hand=v.hand,
                                  qualifies=v.qualifies, best=list(v.best)))]
        if isinstance(e, csp.Settled):
            self._settled.append(e)
            return []
        if isinstance(e, csp.RoundEnded):
            out: list[Draft] = []
            if self._settled:
                out.append(self._settled_draft())
            out.append(self._ended(e.round_id, e.stacks, voided=e.voided))
            return out
        return []

    def _settled_draft(self) -> Draft:
        """Every seat's results, as each viewer sees them: a folded hand is named to its owner
        only (SHOW-03: no ``hand`` for it elsewhere); ``best`` (the five cards that make the
        hand) only in its owner's copy."""
        def results(viewer: int | None) -> dict[int, Msg]:
            out: dict[int, Msg] = {}
            for e in self._settled:
                v = seen(e, viewer)
                r: Msg = {"ante": v.ante, "play": None if v.folded else v.play,
                          "jackpot": v.jackpot if v.jackpot or v.jackpot_hand else None,
                          "hand": v.hand, "stack": v.stack}
                if v.hand is None:
                    del r["hand"]
                if v.best and None not in v.best:
                    r["best"] = list(v.best)
                out[v.seat] = r
            return out
        pub = partial(m.settled, results=results(None))
        priv: dict[str, Builder] = {
            self.owner[e.seat]: partial(m.settled, results=results(e.seat))
            for e in self._settled if e.seat in self.owner}
        return Draft(pub, priv)
