"""Dealing: burns, hole and up cards, the board, the draw, running short.

Cards leave the deck in order (``deck[0]`` first).  Own cards go one at a
time to each seat in turn from the left of the button (HOLD-01, MAN-01,
DRAW-01, STUD-01).  When a variant may run short (DRAW-03, STUD-05) the burn
cards (and, in Draw, the discards of the other players) are shuffled with
the hand's ``seed`` (:func:`~server.rules.cards.seeded_shuffle`) and dealing
goes on; Seven Card Stud falls back to one community card when even that is
not enough.  Positions in events index the *stock*: the deck followed by
any reshuffled cards, so every card's source is on record.
"""

from __future__ import annotations

from server.rules import errors
from server.rules.cards import is_card, seeded_shuffle
from server.rules.events import BoardDealt, Burned, Dealt, Drew, Reshuffled
from server.rules.options import Options
from server.rules.state import HandState
from server.rules.variant import BOARD, UP


class DealingMixin(HandState):
    """Dealing behaviour of :class:`~server.rules.hand.Hand`."""

    def _init_dealing(self) -> None:
        self.stock: list[str] = []
        self.pos = 0
        self.burns: list[str] = []
        self.discards: dict[int, list[str]] = {}
        self.draw_pending = False
        self.reshuffles = 0
        self.community: list[str] = []  # STUD-05's community card (also on ``board``)

    # ------------------------------------------------------------- the deck
    def _left(self) -> int:
        return len(self.stock) - self.pos

    def _take(self) -> tuple[str, int]:
        if self.pos >= len(self.stock):
            raise errors.InvariantError("the deck ran out")
        card = self.stock[self.pos]
        self.pos += 1
        return card, self.pos - 1

    def _burn(self) -> None:
        if self._left() == 0:
            return  # nothing left to burn: the cards that are left all go to players
        card, at = self._take()
        self.burns.append(card)
        self._emit(Burned(card, at))

    def _reshuffle(self, cards: list[str]) -> None:
        """Shuffle ``cards`` (burns, discards) onto the end of the stock."""
        self.reshuffles += 1
        order = seeded_shuffle(cards, self.seed, label=f"{self.hand_id}:{self.reshuffles}")
        self.stock.extend(order)
        self._emit(Reshuffled(len(order)))

    # ------------------------------------------------------------ a street
    def _begin_street(self) -> None:
        if self.street == 0:
            self.stock = list(self.deck)
        street = self.variant.streets[self.street]
        if street.burn:
            self._burn()
        own_steps = [(kind, n) for kind, n in street.deal if kind != BOARD]
        if own_steps:
            self._deal_own(own_steps)
        for kind, n in street.deal:
            if kind == BOARD:
                cards, positions = [], []
                for _ in range(n):
                    c, at = self._take()
                    cards.append(c)
                    positions.append(at)
                self.board.extend(cards)
                self._emit(BoardDealt(tuple(cards), tuple(self.board), tuple(positions)))
        if street.draw and len(self._live) > 1:
            self.draw_pending = True
            self.pending = set(self._live)
            self._first_actor = self._next_seat(self.button, self._live)
            self.to_act = None
            return
        self._start_betting()

    def _deal_order(self) -> list[int]:
        """Seats that receive cards: live ones and STUD-06 dead seats, from the button's left."""
        return [s for s in self.order if s not in self.folded or s in self.dead]

    def _deal_own(self, steps: list[tuple[str, int]]) -> None:
        seats = self._deal_order()
        passes = [kind for kind, n in steps for _ in range(n)]
        need = len(passes) * len(seats)
        if need > self._left():
            short = self._left() + len(self.burns) < len(seats)
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
                if self._left() == 0:
                    if not self.burns:
                        raise errors.InvariantError("no cards left to deal")
                    burns, self.burns = self.burns, []
                    self._reshuffle(burns)
                c, at = self._take()
                got[s].append((c, at, kind == UP))
        for s in seats:
            cards = got[s]
            dead = s in self.folded
            if not dead:
                self.own[s].extend(c for c, _, _ in cards)
                self.up[s].extend(u for _, _, u in cards)
            self._emit(Dealt(s, tuple(c for c, _, _ in cards), tuple(u for _, _, u in cards),
                             tuple(a for _, a, _ in cards), dead=dead))

    def _deal_own_direct(self, seats: list[int], passes: list[str], need: int) -> None:
        """``_deal_own`` when the stock holds all ``need`` cards: the same cards and events."""
        n = len(seats)
        base = self.pos
        stock = self.stock
        ups = tuple(kind == UP for kind in passes)
        folded = self.folded
        for i, s in enumerate(seats):
            cards = tuple(stock[base + i:base + need:n])
            dead = s in folded
            if not dead:
                self.own[s].extend(cards)
                self.up[s].extend(ups)
            self._emit(Dealt(s, cards, ups, tuple(range(base + i, base + need, n)), dead=dead))
        self.pos = base + need

    def _community_card(self) -> None:
        """STUD-05: not enough cards even with the burns: one card face up for everyone."""
        if self._left() == 0:
            burns, self.burns = self.burns, []
            self._reshuffle(burns)
        c, at = self._take()
        self.community.append(c)
        self.board.append(c)
        self._emit(BoardDealt((c,), tuple(self.board), (at,)))

    # --------------------------------------------------------------- draw
    def _validate_draw(self, opts: Options, discard: tuple[str, ...]) -> None:
        assert opts.draw is not None
        hand = self.own[opts.seat]
        if len(discard) > opts.draw:
            raise errors.IllegalAction(errors.BAD_DISCARD, f"at most {opts.draw} cards")
        if len(set(discard)) != len(discard):
            raise errors.IllegalAction(errors.BAD_DISCARD, "a card is discarded twice")
        for c in discard:
            if not is_card(c) or c not in hand:
                raise errors.IllegalAction(errors.BAD_DISCARD, f"{c!r} is not in your hand")
        spare = self._spare_for_draw(opts.seat)
        if len(discard) > spare:  # pragma: no cover (opts.draw, checked above, is at most spare)
            raise errors.IllegalAction(errors.BAD_DISCARD, f"only {spare} cards can be replaced")

    def _spare_for_draw(self, seat: int) -> int:
        """Cards that can replace ``seat``'s discards: the stock, burns, others' discards."""
        return self._left() + len(self.burns) + sum(
            len(cs) for s, cs in self.discards.items() if s != seat)

    def _apply_draw(self, seat: int, discard: tuple[str, ...], *, timeout: bool) -> None:
        """DRAW-03: discard and replace, reshuffling burns and others' discards if short."""
        self._opts_cache = None
        self._last_actor = seat
        self.to_act = None
        self.pending.discard(seat)
        received: list[str] = []
        positions: list[int] = []
        for _ in discard:
            if self._left() == 0:
                pool = self.burns + [c for s, cs in self.discards.items() if s != seat for c in cs]
                if not pool:  # pragma: no cover (the draw was capped at _spare_for_draw)
                    raise errors.InvariantError("no cards left for the draw")
                self.burns = []
                for s in list(self.discards):
                    if s != seat:
                        self.discards[s] = []
                self._reshuffle(pool)
            c, at = self._take()
            received.append(c)
            positions.append(at)
        kept = [c for c in self.own[seat] if c not in discard]
        self.own[seat] = kept + received
        self.up[seat] = [False] * len(self.own[seat])
        self.discards.setdefault(seat, []).extend(discard)
        self._emit(Drew(seat, discard, tuple(received), tuple(positions)))
