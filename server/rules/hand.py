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
state changes.  What differs between variants is data (:mod:`server.rules.variant`).

The hand is a small driver over phases (:class:`~server.rules.phase.Phase`) whose steps come
from the variant's street table (:func:`~server.rules.phase.plan`): the forced bets and the
over-blind question (:mod:`~server.rules.forced`), each street's deal
(:mod:`~server.rules.dealing`), draw (:mod:`~server.rules.drawing`) and betting round
(:mod:`~server.rules.betting`), the run-it-twice question (:mod:`~server.rules.runout`), the
showdown and the finish (:mod:`~server.rules.showdown`).  Each phase's record is the only
writer of its fields; the driver only chooses the next step.  The seats' chips and cards are
:class:`~server.rules.state.Seats`.  The attributes the table and the tests read (``stacks``,
``board``, ``over_blind_ask``, ...) are read-through views of those records.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any, Protocol

from server.rules import errors
from server.rules.betting import Betting, validate
from server.rules.cards import DeckError, check_deck
from server.rules.dealing import Dealing
from server.rules.drawing import DrawRound
from server.rules.events import Event, Showdown, make_ended, make_started, make_turn
from server.rules.forced import Forced
from server.rules.options import Options
from server.rules.phase import Phase, StreetPlan, plan
from server.rules.pots import build_pots
from server.rules.runout import Runout
from server.rules.showdown import Result
from server.rules.state import Seats
from server.rules.structure import Stakes, check_stakes
from server.rules.variant import TableRules, Variant
from server.rules.view import SeatView, View, card_for

# the phases, as module constants (read on every action)
_READY, _OVER, _BETTING, _DRAW, _RUNOUT = (Phase.READY, Phase.OVER, Phase.BETTING, Phase.DRAW,
                                           Phase.RUNOUT)

# offered actions that are well-formed without an amount (``validate`` has nothing to refuse)
_NO_AMOUNT = frozenset(("fold", "check", "call"))

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
    for s in stacks:
        if not 0 <= s < num_seats:
            raise errors.IllegalAction(errors.BAD_SETUP, "seat or button outside the table")
    if not 0 <= button < num_seats:
        raise errors.IllegalAction(errors.BAD_SETUP, "seat or button outside the table")
    for v in stacks.values():
        if type(v) is not int or v <= 0:
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


class _Turn(Protocol):
    """A phase's record: whose turn it is in that phase."""

    @property
    def to_act(self) -> int | None: ...


class _Nobody:
    """The turn when no phase waits for a player (before the start, after the end)."""

    __slots__ = ()
    to_act = None

    def __repr__(self) -> str:
        return "nobody"


_NOBODY = _Nobody()


class _Field:
    """A :class:`Hand` attribute that reads (and writes) a field of one of its records."""

    __slots__ = ("record", "name")

    def __init__(self, record: str, name: str) -> None:
        self.record = record
        self.name = name

    def __get__(self, hand: object, owner: object = None) -> Any:
        return getattr(getattr(hand, self.record), self.name)

    def __set__(self, hand: object, value: object) -> None:
        setattr(getattr(hand, self.record), self.name, value)


class Hand:
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

    # read-through views of the records (see the module docstring)
    order = _Field("seats", "order")
    initial = _Field("seats", "initial")
    stacks = _Field("seats", "stacks")
    contrib = _Field("seats", "contrib")
    bets = _Field("seats", "bets")
    folded = _Field("seats", "folded")
    own = _Field("seats", "own")
    up = _Field("seats", "up")
    deck = _Field("dealing", "deck")
    stock = _Field("dealing", "stock")
    pos = _Field("dealing", "pos")
    board = _Field("dealing", "board")
    community = _Field("dealing", "community")
    blind_seats = _Field("forced", "blind_seats")
    over_blind_seat = _Field("forced", "over_blind_seat")
    over_blind_ask = _Field("forced", "over_blind_ask")
    runs = _Field("runout", "runs")
    runout_ask = _Field("runout", "ask")
    runout_from = _Field("runout", "start")
    runout_board = _Field("runout", "shared")
    board2 = _Field("runout", "board2")
    values = _Field("result", "values")
    shown = _Field("result", "shown")
    mucked = _Field("result", "mucked")
    rake = _Field("result", "rake")
    show_ask = _Field("result", "show_ask")

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
        self.variant = variant
        self.rules = rules
        self.stakes = rules.stakes
        self.num_seats = num_seats
        self.button = button
        self.hand_id = hand_id
        self.seed = seed
        self._events: list[Event] = []
        emit = self._events.append
        seats = self.seats = Seats(stacks, button, num_seats)
        self.dealing = Dealing(variant, seats, emit, list(deck), hand_id=hand_id, seed=seed)
        self.forced = Forced(variant, rules, seats, emit, blinds=blinds,
                             entry_posts=entry_posts, over_blind=over_blind,
                             ask_over_blind=ask_over_blind)
        self.betting = Betting(variant, rules, seats, emit)
        self.drawing = DrawRound(self.dealing, rules)
        self.runout = Runout(rules)
        self.result = Result(variant, rules, seats, emit, hand_id)
        self.plans: tuple[StreetPlan, ...] = plan(variant)
        self.phase = Phase.READY
        self._street = self.plans[0]
        self._turn: _Turn = _NOBODY
        self._opts_cache: Options | None = None  # ``to_act``'s options until the next action
        self.voided = False

    # ------------------------------------------------------------ the state
    @property
    def to_act(self) -> int | None:
        """The seat whose decision the hand waits for (None: nobody's)."""
        return self._turn.to_act

    @property
    def is_over(self) -> bool:
        return self.phase is _OVER

    @property
    def street(self) -> int:
        """The index of the street being played (0 before the start)."""
        return self._street.index

    @property
    def live(self) -> list[int]:
        """Seats still in the hand, in dealing order (a fresh list)."""
        return list(self.seats.live)

    @property
    def pot_total(self) -> int:
        """Every chip in the middle, this round's bets included."""
        return self.seats.pot_total

    def cards_of(self, seat: int) -> list[str]:
        """The seat's own cards (hole and up cards), in the order received."""
        return self.seats.own[seat]

    def hole_cards(self, seat: int) -> list[str]:
        """POT-01: the seat's face-down cards as held now."""
        return self.seats.hole_cards(seat)

    # ------------------------------------------------------------------ API
    def start(self) -> list[Event]:
        """Check the deck (GEN-02), post forced bets, deal, and run to the first decision."""
        if self.phase is not Phase.READY:
            raise errors.IllegalAction(errors.BAD_ACTION, "the hand has already started")
        seats = self.seats
        emit = self._events.append
        try:
            check_deck(self.dealing.deck, self.variant.card_set)
        except DeckError as exc:
            self.phase = Phase.OVER
            self.voided = True
            emit(make_started(self.hand_id, self.button, tuple(seats.order), dict(seats.initial)))
            emit(make_ended(self.hand_id, dict(seats.initial), voided=True,
                            reason=f"{exc.reason}: {exc}"))
            return self._drain()
        emit(make_started(self.hand_id, self.button, tuple(seats.order), dict(seats.initial)))
        self.forced.post(self.betting)
        asked = self.forced.over_blind_ask
        if asked is not None:  # BLIND-04: ask before the deal
            self._enter(Phase.OVER_BLIND, self.forced)
            emit(make_turn(asked, 0))
            return self._drain()
        self._deal(self.plans[0])
        self._advance()
        return self._drain()

    def options(self, seat: int) -> Options | None:
        """The legal options of ``seat`` now, or None when it is not that seat's turn."""
        if self.phase is _OVER or seat != self._turn.to_act:
            return None
        return self._current_options(seat)

    def deciding(self) -> tuple[int, ...]:
        """The seat with a decision now (the engine protocol: one at a time here)."""
        seat = self._turn.to_act
        return () if self.phase is _OVER or seat is None else (seat,)

    def view(self, seat: int | None) -> View:
        """What ``seat`` (None: a spectator) may see of the hand now: per seat its stack, its
        bet in this round, ``folded``/``all_in``/``active``, its face-down cards (the owner's
        own, None to everyone else) and its up cards; the board; the pots of the rounds
        before this one; and the viewer's options when it is the viewer's turn."""
        to_act = self._turn.to_act if self.phase is not _OVER else None
        st = self.seats
        bets = st.bets
        seats: dict[int, SeatView] = {}
        for s in st.order:
            stack = st.stacks[s]
            state = "folded" if s in st.folded else "all_in" if stack == 0 else "active"
            own, up = st.own[s], st.up[s]
            seats[s] = SeatView(
                s, stack, bets.get(s, 0), state,
                cards=tuple(card_for(c, up=False, owner=s, viewer=seat)
                            for c, u in zip(own, up, strict=True) if not u),
                up=tuple(c for c, u in zip(own, up, strict=True) if u),
                deciding=s == to_act)
        before = {s: c - bets.get(s, 0) for s, c in st.contrib.items()}
        pots = tuple((p.amount, p.eligible) for p in build_pots(before, st.live))
        return View(seat, seats, tuple(self.dealing.board), pots,
                    self.options(seat) if seat is not None else None)

    def act(self, seat: int, action: str, amount: int | None = None,
            discard: Iterable[str] = (), *, jackpot: bool = False) -> list[Event]:
        """Apply ``seat``'s action; raises IllegalAction (state unchanged) when illegal.
        ``jackpot`` (the protocol's, only with a house game's ``ante``) means nothing here:
        a pot game refuses ``ante`` as an action."""
        phase = self.phase
        if phase is _OVER or phase is _READY:
            raise errors.IllegalAction(errors.NO_HAND, "no hand is in progress")
        to_act = self._turn.to_act
        if seat != to_act:
            raise errors.IllegalAction(errors.NOT_YOUR_TURN, f"it is seat {to_act}'s turn")
        opts = self._opts_cache
        if opts is None or opts.seat != seat:
            opts = self._current_options(seat)
        discard = discard if type(discard) is tuple else tuple(discard)
        if action == "fold":  # the common actions' offers read directly (``Options.allows``)
            offered = opts.fold
        elif action == "call":
            offered = opts.call is not None
        elif action == "check":
            offered = opts.check
        elif action == "raise":
            offered = opts.raise_ is not None
        elif action == "bet":
            offered = opts.bet is not None
        else:
            offered = opts.allows(action)
        if not offered:
            raise errors.IllegalAction(errors.BAD_ACTION,
                                       f"{action!r} is not allowed now; allowed: {opts.kinds}")
        if action == "draw":
            self.drawing.validate(opts, discard)
        elif amount is not None or action not in _NO_AMOUNT:
            validate(opts, action, amount, self.seats.bets[seat], self.stakes.chip)
        if phase is _BETTING:  # ``_apply``'s commonest case, called directly
            self._opts_cache = None
            self.betting.apply(seat, opts, action, amount, timeout=False)
        else:
            self._apply(seat, opts, action, amount, discard, timeout=False)
        self._advance()
        events = self._events
        out = events[:]
        events.clear()
        return out

    def timeout(self, seat: int) -> list[Event]:
        """The clock ran out: check if free, else fold (draw: stand pat; bring-in: bring in)."""
        if self.phase is _OVER or seat != self._turn.to_act:
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
        if self.phase is _OVER:
            raise errors.IllegalAction(errors.NO_HAND, "the hand is over")
        self._opts_cache = None
        self.seats.restore()
        self._enter(Phase.OVER, _NOBODY)
        self.voided = True
        self._events.append(make_ended(self.hand_id, dict(self.seats.stacks), voided=True,
                                       reason=reason))
        return self._drain()

    def reveal_mucked(self, seats: Iterable[int] | None = None) -> list[Showdown]:
        """SHOW-02: show the hands given up unseen in the final showdown (once each); only
        those of ``seats`` when given."""
        if self.phase is not _OVER:
            raise errors.IllegalAction(errors.NO_HAND, "hands are shown after the hand")
        return self.result.reveal_mucked(seats)

    # ----------------------------------------------------------- the steps
    def _current_options(self, seat: int) -> Options:
        """The options of the seat to act, computed once per decision (the state changes only
        when an action is applied, which drops them)."""
        opts = self._opts_cache
        if opts is None or opts.seat != seat:
            phase = self.phase
            if phase is _BETTING:
                opts = self.betting.options(seat)
            elif phase is Phase.DRAW:
                opts = self.drawing.options(seat)
            elif phase is Phase.OVER_BLIND:
                opts = self.forced.options(seat)
            elif phase is Phase.RUNOUT:
                opts = self.runout.options(seat, self.seats.stacks[seat])
            else:
                assert phase is Phase.SHOW
                opts = self.result.show_options(seat)
            self._opts_cache = opts
        return opts

    def _drain(self) -> list[Event]:
        out = self._events[:]
        self._events.clear()
        return out

    def _enter(self, phase: Phase, turn: _Turn) -> None:
        self.phase = phase
        self._turn = turn

    def _apply(self, seat: int, opts: Options, action: str, amount: int | None,
               discard: tuple[str, ...], *, timeout: bool) -> None:
        """One validated action, by the phase that owns it (each phase offers only its own
        actions: see the phases' ``options``)."""
        self._opts_cache = None
        phase = self.phase
        if phase is _BETTING:
            self.betting.apply(seat, opts, action, amount, timeout=timeout)
        elif phase is _DRAW:
            self.drawing.apply(seat, discard)
        elif phase is Phase.OVER_BLIND:  # over_blind or decline
            self.forced.answer(seat, action == "over_blind", self.betting, timeout=timeout)
            self._deal(self.plans[0])
        elif phase is _RUNOUT:  # run_twice or run_once
            self._events.append(self.runout.answer(seat, action == "run_twice",
                                                   self.seats.stacks[seat], timeout=timeout))
        else:  # SHOW: show or muck
            self.result.answer_show(seat, action == "show", timeout=timeout)
            self._finish()

    def _deal(self, street: StreetPlan) -> None:
        """The street's cards, then its draw or its betting round."""
        self._street = street
        self.dealing.deal_street(street, self.betting.dead)
        if street.street.draw and len(self.seats.live) > 1:
            self.drawing.open()
            self._enter(Phase.DRAW, self.drawing)
            return
        self._bet()

    def _bet(self) -> None:
        """Open the street's betting round (which may have nobody to act, ALLIN-04)."""
        street = self._street
        if street.last:
            self.result.note_all_in()
        forced = self.forced
        after = forced.over_blind_seat if forced.over_blind_seat is not None else (
            forced.blind_seats[-1] if forced.blind_seats else None)
        self.betting.open_round(street, after)
        self._enter(Phase.BETTING, self.betting)

    def _finish(self) -> None:
        self.result.finish()
        self._enter(Phase.OVER, _NOBODY)

    def _advance(self) -> None:
        """Run the hand forward until a decision is needed or it ends."""
        emit = self._events.append
        live = self.seats.live
        while True:
            phase = self.phase
            if phase is _OVER:
                return
            street = self._street
            if len(live) == 1:  # BET-11
                self.betting.close()
                if self.result.award_uncontested(street.index, self.betting.pots):
                    self._enter(Phase.SHOW, self.result)  # SHOWWIN-01's question
                else:
                    self._finish()
                return
            if phase is _RUNOUT:  # RIT-02: the next player still in is asked
                asked = self.runout.to_act
                if asked is not None:
                    emit(make_turn(asked, street.index))
                    return
                self._deal(self.plans[street.index + 1])  # every answer is in: deal on
                continue
            if phase is _DRAW:
                if self.drawing.pending:
                    emit(make_turn(self.drawing.next_turn(), street.index))
                    return
                self._bet()  # the draw is done: its betting round follows (DRAW-03)
                continue
            seat = self.betting.turn()
            if seat is not None:
                emit(make_turn(seat, street.index))
                return
            self.betting.close()
            if street.last:
                self._showdown()
                return
            if self.runout.open(street, self.dealing):  # RIT-01: asked before the next card
                self._enter(Phase.RUNOUT, self.runout)
                continue
            self._deal(self.plans[street.index + 1])

    def _showdown(self) -> None:
        betting = self.betting
        order = self.result.show_order(betting.last_aggressor, betting.last_first)
        if self.runout.runs == 2:  # RIT-03/RIT-04: a board run twice has its own showdown
            self.runout.showdown_twice(self.plans, self.dealing, self.result, order,
                                       betting.pots)
        else:
            self.result.showdown(self.dealing.board, order, betting.pots)
        self._finish()
