"""Dealing: burns, hole and up cards, the board, running short.

Cards leave the deck in order (``deck[0]`` first).  Own cards go one at a
time to each seat in turn from the left of the button (HOLD-01, MAN-01,
DRAW-01, STUD-01).  When a variant may run short (DRAW-03, STUD-05) the burn
cards (and, in Draw, the discards of the other players) are shuffled with
the hand's ``seed`` (:func:`~server.rules.cards.seeded_shuffle`) and dealing
goes on; Seven Card Stud falls back to one community card when even that is
not enough.  Positions in events index the *stock*: the deck followed by
any reshuffled cards, so every card's source is on record.

:class:`Dealing` is the deck's record and the only writer of ``stock``, ``pos``, ``burns``,
``discards``, ``board`` and ``community``; it also gives the seats their cards
(:class:`~server.rules.state.Seats`' ``own`` and ``up``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from server.rules import errors
from server.rules.cards import seeded_shuffle
from server.rules.events import Event, Reshuffled, make_board, make_burned, make_dealt
from server.rules.phase import StreetPlan
from server.rules.state import Seats, flat_fields, record_deepcopy, record_repr
from server.rules.variant import UP, Variant


class Dealing:
    """The deck of one hand: what is left, what was burnt or discarded, the board."""

    __slots__ = ("variant", "seats", "emit", "hand_id", "seed", "deck", "stock", "pos",
                 "burns", "discards", "reshuffles", "board", "community")
    __repr__ = record_repr
    __deepcopy__ = record_deepcopy

    def __init__(self, variant: Variant, seats: Seats, emit: Callable[[Event], None],
                 deck: list[str], *, hand_id: str, seed: bytes) -> None:
        self.variant = variant
        self.seats = seats
        self.emit = emit
        self.hand_id = hand_id
        self.seed = seed
        self.deck = deck
        self.stock: list[str] = []
        self.pos = 0
        self.burns: list[str] = []
        self.discards: dict[int, list[str]] = {}
        self.reshuffles = 0
        self.board: list[str] = []
        self.community: list[str] = []  # STUD-05's community card (also on ``board``)

    # ------------------------------------------------------------- the deck
    def left(self) -> int:
        return len(self.stock) - self.pos

    def take(self) -> tuple[str, int]:
        pos = self.pos
        if pos >= len(self.stock):
            raise errors.InvariantError("the deck ran out")
        self.pos = pos + 1
        return self.stock[pos], pos

    def burn(self) -> None:
        at = self.pos
        stock = self.stock
        if at == len(stock):
            return  # nothing left to burn: the cards that are left all go to players
        card = stock[at]  # (``take``, inline)
        self.pos = at + 1
        self.burns.append(card)
        self.emit(make_burned(card, at))

    def reshuffle(self, cards: list[str]) -> None:
        """Shuffle ``cards`` (burns, discards) onto the end of the stock."""
        self.reshuffles += 1
        order = seeded_shuffle(cards, self.seed, label=f"{self.hand_id}:{self.reshuffles}")
        self.stock.extend(order)
        self.emit(Reshuffled(len(order)))

    # ------------------------------------------------------------ a street
    def deal_street(self, street: StreetPlan, dead: Collection[int]) -> None:
        """The street's burn and cards: own cards to the seats still in (and STUD-06's
        ``dead`` seats), then any board cards."""
        if street.index == 0:
            self.stock = list(self.deck)
        if street.street.burn:
            self.burn()
        if street.own_deal:
            self._deal_own(street.own_deal, dead)
        for n in street.board_deal:
            pos = self.pos
            end = pos + n
            if end > len(self.stock):
                for _ in range(n):
                    self.take()  # the deck ran out: raises InvariantError
            cards = tuple(self.stock[pos:end])
            positions = tuple(range(pos, end))
            self.pos = end
            board = self.board
            board.extend(cards)
            self.emit(make_board(cards, tuple(board), positions))

    def _deal_own(self, steps: tuple[tuple[str, int], ...], dead: Collection[int]) -> None:
        folded = self.seats.folded
        # live seats and STUD-06 dead seats, from the button's left
        seats = [s for s in self.seats.order if s not in folded or s in dead]
        passes = [kind for kind, n in steps for _ in range(n)]
        need = len(passes) * len(seats)
        if need > self.left():
            short = self.left() + len(self.burns) < len(seats)
            if self.variant.community_fallback and len(passes) == 1 and short:
                self._community_card()
                return
            if self.variant.reshuffle_burns or self.variant.community_fallback:
                pass  # STUD-05: deal as far as it goes, then shuffle the burns to finish
            else:
                raise errors.InvariantError("the deck cannot serve this deal")
        else:  # the common case: every card comes straight off the stock
            self._deal_own_direct(seats, passes, need)
            return
        got: dict[int, list[tuple[str, int, bool]]] = {s: [] for s in seats}
        for kind in passes:
            for s in seats:
                if self.left() == 0:
                    if not self.burns:
                        raise errors.InvariantError("no cards left to deal")
                    burns, self.burns = self.burns, []
                    self.reshuffle(burns)
                c, at = self.take()
                got[s].append((c, at, kind == UP))
        own, up = self.seats.own, self.seats.up
        for s in seats:
            cards = got[s]
            is_dead = s in folded
            if not is_dead:
                own[s].extend(c for c, _, _ in cards)
                up[s].extend(u for _, _, u in cards)
            self.emit(make_dealt(s, tuple(c for c, _, _ in cards), tuple(u for _, _, u in cards),
                                 tuple(a for _, a, _ in cards), dead=is_dead))

    def _deal_own_direct(self, seats: list[int], passes: list[str], need: int) -> None:
        """``_deal_own`` when the stock holds all ``need`` cards: the same cards and events."""
        n = len(seats)
        base = self.pos
        stock = self.stock
        ups = tuple(kind == UP for kind in passes)
        folded = self.seats.folded
        own, up = self.seats.own, self.seats.up
        emit = self.emit
        for i, s in enumerate(seats):
            cards = tuple(stock[base + i:base + need:n])
            dead = s in folded
            if not dead:
                own[s].extend(cards)
                up[s].extend(ups)
            emit(make_dealt(s, cards, ups, tuple(range(base + i, base + need, n)), dead))
        self.pos = base + need

    def _community_card(self) -> None:
        """STUD-05: not enough cards even with the burns: one card face up for everyone."""
        if self.left() == 0:
            burns, self.burns = self.burns, []
            self.reshuffle(burns)
        c, at = self.take()
        self.community.append(c)
        self.board.append(c)
        self.emit(make_board((c,), tuple(self.board), (at,)))

    # ------------------------------------------------------------ the draw
    def replace(self, seat: int, discard: tuple[str, ...]) -> tuple[list[str], list[int]]:
        """DRAW-03: a card (and its position) for each of ``seat``'s discards, reshuffling the
        burns and the other players' discards when the stock runs short; the discards are
        kept as the seat's."""
        received: list[str] = []
        positions: list[int] = []
        for _ in discard:
            if self.left() == 0:
                pool = self.burns + [c for s, cs in self.discards.items() if s != seat for c in cs]
                if not pool:  # pragma: no cover (the draw was capped at what is left)
                    raise errors.InvariantError("no cards left for the draw")
                self.burns = []
                for s in list(self.discards):
                    if s != seat:
                        self.discards[s] = []
                self.reshuffle(pool)
            c, at = self.take()
            received.append(c)
            positions.append(at)
        self.discards.setdefault(seat, []).extend(discard)
        return received, positions

    # ------------------------------------------------------- second run
    def deal_again(self, streets: tuple[StreetPlan, ...], shared: int) -> list[str]:
        """RIT-03: ``streets`` dealt again after the ``shared`` board cards, burns
        included; returns the second run's board."""
        board2 = self.board[:shared]
        for street in streets:
            if street.street.burn:
                self.burn()
            for _, n in street.street.deal:
                got = [self.take() for _ in range(n)]
                board2.extend(c for c, _ in got)
                self.emit(make_board(tuple(c for c, _ in got), tuple(board2),
                                     tuple(p for _, p in got), run=1))
        return board2


flat_fields(Dealing, "deck", "stock", "burns", "board", "community")
