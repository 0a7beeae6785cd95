"""The hand state machine shared by every pot-game variant.

Sans-I/O: a :class:`Hand` takes its inputs (seats and stacks, the button,
the deck in dealing order, a seed for any mid-hand reshuffle, then one
action or timeout at a time) and hands back events.  It knows nothing of
sockets, clocks or randomness, so the same inputs always replay to the
same events.

The caller's loop is::

    hand = Hand(HOLDEM, rules, stacks, button=5, deck=deck)
    events = hand.start()
    while not hand.is_over:
        seat = hand.to_act
        opts = hand.options(seat)      # send with the turn
        events = hand.act(seat, "call")  # or hand.timeout(seat)

Every refusal raises :class:`~server.rules.errors.IllegalAction` before any
state changes.  What differs between variants is data (:mod:`server.rules.variant`);
betting is :mod:`server.rules.betting`, dealing :mod:`server.rules.dealing`,
showdown :mod:`server.rules.showdown`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from server.rules import errors
from server.rules.betting import BettingMixin
from server.rules.cards import DeckError, check_deck
from server.rules.dealing import DealingMixin
from server.rules.events import Event, HandEnded, HandStarted, TurnStarted
from server.rules.options import Options
from server.rules.pots import build_pots
from server.rules.runout import RunoutMixin
from server.rules.showdown import ShowdownMixin
from server.rules.structure import Stakes, check_stakes
from server.rules.variant import TableRules, Variant
from server.rules.view import SeatView, View, card_for

_cached_check_stakes = lru_cache(maxsize=256)(check_stakes)  # pure; Stakes are frozen values


def _stakes_problem(structure: str, stakes: Stakes) -> str | None:
    try:
        return _cached_check_stakes(structure, stakes)
    except TypeError:  # unhashable fields (a list of blinds): check without the cache
        return check_stakes(structure, stakes)


def _check_setup(variant: Variant, rules: TableRules, stacks: Mapping[int, int], *,
                 button: int, num_seats: int, blinds: Sequence[int | None] | None) -> None:
    """Refuse (BAD_SETUP) a hand that cannot be dealt: stakes, players, seats, stacks, blinds."""
    problem = _stakes_problem(rules.structure, rules.stakes)
    if problem:
        raise errors.IllegalAction(errors.BAD_SETUP, problem)
    if len(stacks) < 2:
        raise errors.IllegalAction(errors.BAD_SETUP, "a hand needs at least two players")
    if len(stacks) > variant.max_seats:
        raise errors.IllegalAction(errors.BAD_SETUP, f"{variant.name} deals to at most "
                                   f"{variant.max_seats} players (GEN-07)")
    if any(not 0 <= s < num_seats for s in stacks) or not 0 <= button < num_seats:
        raise errors.IllegalAction(errors.BAD_SETUP, "seat or button outside the table")
    if any(type(v) is not int or v <= 0 for v in stacks.values()):
        raise errors.IllegalAction(errors.BAD_SETUP, "every stack must be a positive int")
    if not variant.is_stud and len(rules.stakes.blinds) > len(stacks) and blinds is None:
        raise errors.IllegalAction(errors.BAD_SETUP, "more blinds than players")
    if blinds is not None:
        posting = [b for b in blinds if b is not None]
        if (variant.is_stud or len(blinds) != len(rules.stakes.blinds) or not posting
                or blinds[-1] is None or len(set(posting)) != len(posting)
                or any(b not in stacks for b in posting)):
            raise errors.IllegalAction(errors.BAD_SETUP, "bad blind positions (GEN-05)")
    if variant.is_stud and rules.stakes.bring_in <= 0:
        raise errors.IllegalAction(errors.BAD_SETUP, "stud needs a bring-in")


class Hand(DealingMixin, BettingMixin, RunoutMixin, ShowdownMixin):
    """One hand of a pot game (Hold'em, Manila, Draw, Stud).

    ``stacks``: seat -> chips in front of the player when the hand starts
    (GEN-06 table stakes: only these can be wagered).  ``num_seats``: the
    table's seat count, for clockwise order.  ``over_blind``: the seat left
    of the last blind posts the Draw over blind (BLIND-04), when it can cover it.
    ``ask_over_blind``: that seat is asked first (the table's case): :meth:`start` posts the
    blinds and stops at its decision, a turn whose only options are ``over_blind`` (post it)
    and ``decline`` (a timeout declines); the cards are dealt once it has answered.
    ``blinds``: the seat posting each compulsory blind, None for a
    dead blind (GEN-05, :mod:`server.rules.button`); without it the blinds go to the players
    left of the button (BLIND-01).  ``entry_posts``: seats that post a big blind to come in at
    once rather than wait for the big blind (GEN-05's table setting).
    With ``rules.straddle`` (a home game's house rule, STRAD-01) ``over_blind`` and
    ``ask_over_blind`` are the straddle at Hold'em/Manila: the same voluntary blind, posted as
    ``straddle``.  With ``rules.run_twice`` (RIT-01..04) the players still in are asked, once
    no more betting can happen, whether to run the rest of the board twice.
    """

    def __init__(
        self,
        variant: Variant,
        rules: TableRules,
        stacks: Mapping[int, int],
        *,
        button: int,
        deck: Sequence[str],
        num_seats: int = 10,
        hand_id: str = "",
        seed: bytes = b"",
        over_blind: bool = False,
        ask_over_blind: bool = False,
        blinds: Sequence[int | None] | None = None,
        entry_posts: Iterable[int] = (),
    ) -> None:
        _check_setup(variant, rules, stacks, button=button, num_seats=num_seats, blinds=blinds)
        self.blind_plan: tuple[int | None, ...] | None = (
            tuple(blinds) if blinds is not None else None)
        self.entry_posts: frozenset[int] = frozenset(entry_posts)
        self.variant = variant
        self.rules = rules
        self.stakes = rules.stakes
        self.num_seats = num_seats
        self.button = button
        self.hand_id = hand_id
        self.seed = seed
        allowed = rules.over_blind or rules.straddle  # BLIND-04 / STRAD-01
        self.want_over_blind = over_blind and allowed
        self.ask_over_blind = ask_over_blind and allowed
        self._init_seats(stacks, button, num_seats)
        self.deck = list(deck)
        self._init_dealing()
        self._init_betting()
        self._init_showdown()
        self._init_runout()

    def _init_seats(self, stacks: Mapping[int, int], button: int, num_seats: int) -> None:
        """The per-seat state at the start: stacks, dealing order, bets, cards, the board."""
        self.initial = dict(stacks)
        self.stacks: dict[int, int] = dict(stacks)
        # clockwise from the button's left: the dealing order (HOLD-01)
        self.order: list[int] = sorted(stacks, key=lambda s: (s - button - 1) % num_seats)
        self.contrib: dict[int, int] = {s: 0 for s in self.order}
        self.bets: dict[int, int] = {s: 0 for s in self.order}
        self.folded: set[int] = set()
        self._live: list[int] = list(self.order)  # ``live``, kept up to date by ``_fold``
        order = self.order  # ``_next_seat``'s clockwise orders, seat itself last
        self._after: dict[int, tuple[int, ...]] = {
            s: (*order[i + 1:], *order[:i + 1]) for i, s in enumerate(order)}
        self._opts_cache: Options | None = None  # ``to_act``'s options until the next change
        self.own: dict[int, list[str]] = {s: [] for s in self.order}
        self.up: dict[int, list[bool]] = {s: [] for s in self.order}
        self.board: list[str] = []
        self.street = -1
        self.to_act: int | None = None
        self.is_over = False
        self.voided = False
        self._events: list[Event] = []

    # ------------------------------------------------------------------ API
    def start(self) -> list[Event]:
        """Check the deck (GEN-02), post forced bets, deal, and run to the first decision."""
        if self.street != -1:
            raise errors.IllegalAction(errors.BAD_ACTION, "the hand has already started")
        try:
            check_deck(self.deck, self.variant.card_set)
        except DeckError as exc:
            self.street = len(self.variant.streets)
            self.is_over = True
            self.voided = True
            self._emit(HandStarted(self.hand_id, self.button, tuple(self.order),
                                   dict(self.initial)))
            self._emit(HandEnded(self.hand_id, dict(self.initial), voided=True,
                                 reason=f"{exc.reason}: {exc}"))
            return self._drain()
        self._emit(HandStarted(self.hand_id, self.button, tuple(self.order), dict(self.initial)))
        self.street = 0
        self._post_forced()
        if self.over_blind_ask is not None:  # BLIND-04: ask before the deal
            self.to_act = self.over_blind_ask
            self._emit(TurnStarted(self.over_blind_ask, self.street))
            return self._drain()
        self._begin_street()
        self._advance()
        return self._drain()

    def options(self, seat: int) -> Options | None:
        """The legal options of ``seat`` now, or None when it is not that seat's turn."""
        if self.is_over or seat != self.to_act:
            return None
        return self._current_options(seat)

    def deciding(self) -> tuple[int, ...]:
        """The seat with a decision now (the engine protocol: one at a time here)."""
        return () if self.is_over or self.to_act is None else (self.to_act,)

    def view(self, seat: int | None) -> View:
        """What ``seat`` (None: a spectator) may see of the hand now: per seat its stack, its
        bet in this round, ``folded``/``all_in``/``active``, its face-down cards (the owner's
        own, None to everyone else) and its up cards; the board; the pots of the rounds
        before this one; and the viewer's options when it is the viewer's turn."""
        to_act = self.to_act if not self.is_over else None
        seats: dict[int, SeatView] = {}
        for s in self.order:
            stack = self.stacks[s]
            state = "folded" if s in self.folded else "all_in" if stack == 0 else "active"
            own, up = self.own[s], self.up[s]
            seats[s] = SeatView(
                s, stack, self.bets.get(s, 0), state,
                cards=tuple(card_for(c, up=False, owner=s, viewer=seat)
                            for c, u in zip(own, up, strict=True) if not u),
                up=tuple(c for c, u in zip(own, up, strict=True) if u),
                deciding=s == to_act)
        bets = self.bets
        before = {s: c - bets.get(s, 0) for s, c in self.contrib.items()}
        pots = tuple((p.amount, p.eligible) for p in build_pots(before, self._live))
        return View(seat, seats, tuple(self.board), pots,
                    self.options(seat) if seat is not None else None)

    def act(self, seat: int, action: str, amount: int | None = None,
            discard: Iterable[str] = (), *, jackpot: bool = False) -> list[Event]:
        """Apply ``seat``'s action; raises IllegalAction (state unchanged) when illegal.
        ``jackpot`` (the protocol's, only with a house game's ``ante``) means nothing here:
        a pot game refuses ``ante`` as an action."""
        if self.is_over or self.street < 0:
            raise errors.IllegalAction(errors.NO_HAND, "no hand is in progress")
        if seat != self.to_act:
            raise errors.IllegalAction(errors.NOT_YOUR_TURN, f"it is seat {self.to_act}'s turn")
        opts = self._current_options(seat)
        discard = discard if type(discard) is tuple else tuple(discard)
        self._validate(opts, action, amount, discard)
        self._apply(seat, opts, action, amount, discard, timeout=False)
        self._advance()
        return self._drain()

    def timeout(self, seat: int) -> list[Event]:
        """The clock ran out: check if free, else fold (draw: stand pat; bring-in: bring in)."""
        if self.is_over or seat != self.to_act:
            raise errors.IllegalAction(errors.NOT_YOUR_TURN, "not this seat's decision")
        opts = self._current_options(seat)
        if opts.over_blind is not None:  # BLIND-04: no answer is no over blind
            self._apply(seat, opts, "decline", None, (), timeout=True)
        elif opts.run_twice:  # RIT-02: no answer is no
            self._apply(seat, opts, "run_once", None, (), timeout=True)
        elif opts.show:  # SHOWWIN-01: no answer keeps the cards hidden
            self._apply(seat, opts, "muck", None, (), timeout=True)
        elif opts.draw is not None:
            self._apply(seat, opts, "draw", None, (), timeout=True)
        elif opts.bring_in is not None:
            self._apply(seat, opts, "bring_in", opts.bring_in, (), timeout=True)
        elif opts.check:
            self._apply(seat, opts, "check", None, (), timeout=True)
        else:
            self._apply(seat, opts, "fold", None, (), timeout=True)
        self._advance()
        return self._drain()

    def void(self, reason: str) -> list[Event]:
        """Void the hand (a fault): every player gets back exactly their starting stack."""
        if self.is_over:
            raise errors.IllegalAction(errors.NO_HAND, "the hand is over")
        self._opts_cache = None
        self.stacks = dict(self.initial)
        self.is_over = True
        self.voided = True
        self.to_act = None
        self._emit(HandEnded(self.hand_id, dict(self.stacks), voided=True, reason=reason))
        return self._drain()

    # ------------------------------------------------------------ internals
    def _current_options(self, seat: int) -> Options:
        """``_options(seat)`` for the seat to act, computed once per decision.

        Options depend only on the state, which changes only when an action is applied
        (``_apply``/``_apply_draw`` drop the cached value), so asking :meth:`options` and
        then acting computes them once.
        """
        opts = self._opts_cache
        if opts is None or opts.seat != seat:
            opts = self._opts_cache = self._options(seat)
        return opts

    def _drain(self) -> list[Event]:
        out, self._events = self._events, []
        return out

    def _advance(self) -> None:
        """Run the hand forward until a decision is needed or it ends."""
        while not self.is_over:
            if len(self._live) == 1:  # BET-11
                self._close_round()
                self._award_uncontested()
                return
            if self.to_act is not None:  # pragma: no cover (set only by _pick_next_actor: returns)
                return
            if self.runout_ask:  # RIT-02: the next player still in is asked
                self.to_act = self.runout_ask[0]
                self._emit(TurnStarted(self.to_act, self.street))
                return
            if self.runout_next:  # RIT-02: every answer is in: deal on
                self.runout_next = False
                self.street += 1
                self._begin_street()
                continue
            if self.pending and not self.draw_pending and not self._betting_open():
                self.pending = set()  # ALLIN-04, checked after every action (not the draw)
            if self.pending:
                self._emit(TurnStarted(self._pick_next_actor(), self.street))
                return
            if self.draw_pending:  # the draw is done: its betting round follows (DRAW-03)
                self.draw_pending = False
                self._start_betting()
                continue
            self._close_round()
            if self.street + 1 >= len(self.variant.streets):
                self._showdown()
                return
            if self._ask_runout():  # RIT-01: the question comes before the next card
                continue
            self.street += 1
            self._begin_street()
