"""Betting rounds: who acts, what they may do, and what each action does.

Rules implemented here: BET-01..13, ALLIN-01, ALLIN-02 (an incomplete all-in raise reopens
nothing), ALLIN-03 (an uncalled bet goes back), ALLIN-04 (no betting when at most one player
can bet), STUD-02 (bring-in or complete), STUD-04 (an all-in player does not open) and STUD-06
(dead cards until a wager).

:class:`Betting` is the record of the hand's betting, one round at a time, and the only writer
of its fields: ``pending`` (who still has to act in this round) and ``to_act`` (the seat whose
turn it is), the round's level (``current``: the highest bet the others must match;
``increment``: the largest full bet or raise so far, BET-05; ``full_level``: the bet level
after the last *full* bet or raise; ``acted_level[seat]``: the full level when that seat last
acted; a seat may raise only if it has not acted yet or a full raise came after it acted),
and the memory of the last round played (its aggressor and first actor, for SHOW-01).
Chips move through :class:`~server.rules.state.Seats`.
"""

from __future__ import annotations

from collections.abc import Callable

from server.rules import errors
from server.rules.evaluate import lowest_card, rank_showing
from server.rules.events import Event, make_acted, make_returned, make_street_ended
from server.rules.options import Options, make_options
from server.rules.phase import StreetPlan
from server.rules.pots import Pot, build_pots, uncalled
from server.rules.state import Seats, record_deepcopy, record_repr
from server.rules.structure import CAPPED, FIXED_LIMIT, HALF_POT, POT_LIMIT, raise_bounds
from server.rules.variant import BLINDS, BRING_IN, BUTTON, SHOWING, TableRules, Variant

_EXACT = frozenset(("call", "bring_in", "complete", "over_blind"))
_RAISING = frozenset(("bet", "raise", "complete", "bring_in"))
_POT_STRUCTURES = frozenset((POT_LIMIT, HALF_POT))  # the structures whose raises read the pot


class Betting:
    """The hand's betting rounds (see the module docstring)."""

    __slots__ = ("seats", "emit", "variant", "rules", "stakes", "structure", "chip", "full_bet",
                 "index", "big", "opening", "current", "increment", "full_level",
                 "raises", "acted_level", "pending", "to_act", "first_actor", "last_actor",
                 "round_first", "aggressor", "played", "last_aggressor", "last_first",
                 "bring_in_seat", "completed", "wagered", "dead", "pots")
    __repr__ = record_repr
    __deepcopy__ = record_deepcopy

    def __init__(self, variant: Variant, rules: TableRules, seats: Seats,
                 emit: Callable[[Event], None]) -> None:
        self.seats = seats
        self.emit = emit
        self.variant = variant
        self.rules = rules
        stakes = self.stakes = rules.stakes
        self.structure = rules.structure
        self.chip = stakes.chip
        self.full_bet = stakes.fixed_size(big=False)  # STUD-02: what a bring-in completes to
        self.index = 0  # the street of the round (0: the first)
        self.big = False
        self.opening = stakes.opening_bet(big=False)
        self.current = 0
        self.increment = 0
        self.full_level = 0
        self.raises = 0
        self.acted_level: dict[int, int] = {}
        self.pending: set[int] = set()
        self.to_act: int | None = None
        self.first_actor: int | None = None
        self.last_actor: int = seats.button
        self.round_first: int | None = None
        self.aggressor: int | None = None
        self.played = False
        self.last_aggressor: int | None = None
        self.last_first: int | None = None
        self.bring_in_seat: int | None = None
        self.completed = True
        self.wagered = False  # STUD-06: a voluntary wager has been made in this round
        self.dead: set[int] = set()
        self.pots: list[Pot] = []  # the pots when the last round closed

    def set_first_level(self, level: int) -> None:
        """BET-03: the first round's level, the last blind (or the over blind)."""
        self.current = level
        self.increment = max(level, self.opening)
        self.full_level = level

    # -------------------------------------------------------------- rounds
    def open_round(self, street: StreetPlan, forced_last: int | None) -> None:
        """Open ``street``'s betting round, or skip it (ALLIN-04).  ``forced_last``: the
        seat the first round's action starts after (the over blind, else the last blind)."""
        self.index = street.index
        big = street.street.big
        if big != self.big:  # (``opening`` follows ``big``: recomputed only when it changes)
            self.big = big
            self.opening = self.stakes.opening_bet(big=big)
        if street.index > 0:
            self.seats.new_round()
            self.current = 0
            self.full_level = 0
            self.increment = self.opening
            self.wagered = False  # STUD-06: a fold before this round's first wager is dead
        self.raises = 0
        self.acted_level = {}
        self.aggressor = None
        self.completed = True
        self.bring_in_seat = None
        if not self.is_open():
            self.pending = set()  # ALLIN-04: deal on without betting
            self.round_first = None
            self.played = False
            return
        able = self.seats.able()
        self.pending = set(able)
        self.played = True
        first = self._opener(street.street.opener, able, forced_last)
        self.round_first = first
        self.to_act = None
        self.first_actor = first

    def _opener(self, how: str, able: list[int], forced_last: int | None) -> int:
        seats = self.seats
        if how == BLINDS:  # BET-02: left of the last blind, or over blind
            return self._first_after(forced_last if forced_last is not None else seats.button,
                                     able)
        if how == BRING_IN:  # STUD-02, STUD-04: lowest up card among those who can bet
            low = lowest_card([seats.up_cards(s)[-1] for s in able])
            seat = next(s for s in able if seats.up_cards(s)[-1] == low)
            self.bring_in_seat = seat
            self.completed = False
            self.current = 0
            self.increment = self.full_bet
            return seat
        if how == SHOWING:  # STUD-03: highest showing; all-in -> pass left (STUD-04)
            best = max(seats.live, key=lambda s: rank_showing(seats.up_cards(s)))
            if best in able:
                return best
            return self._first_after(best, able)
        assert how == BUTTON  # BET-04
        return self._first_after(seats.button, able)

    def _first_after(self, seat: int, able: list[int]) -> int:
        """The first seat of ``able`` clockwise after ``seat`` (seat numbers start at 0:
        never ``x or y`` on a seat, BET-02/BET-04/STUD-04)."""
        found = self.seats.next_seat(seat, able)
        assert found is not None, "no seat can bet"
        return found

    def is_open(self) -> bool:
        """ALLIN-04, after every action: is anyone left who may be given a turn?

        False when nobody still in the hand has chips behind, or when exactly one has and
        that player owes nothing: the cards are then dealt with no more betting.
        """
        seats = self.seats
        stacks = seats.stacks
        live = seats.live
        able = -1
        for s in live:
            if stacks[s] > 0:
                if able >= 0:
                    return True
                able = s
        if able < 0:
            return False
        bets = seats.bets
        return bets[able] < max([bets[s] for s in live])

    def turn(self) -> int | None:
        """The next seat to act in this round, or None when the round is done (nobody
        pending, or ALLIN-04: nobody left who may be given a turn)."""
        if not self.pending:
            return None
        if not self.is_open():
            self.pending = set()  # ALLIN-04, checked after every action
            return None
        # who acts next among ``pending``: the opener first, then clockwise
        first = self.first_actor
        self.first_actor = None
        if first is not None and first in self.pending:
            seat: int | None = first
        else:
            seat = self.seats.next_seat(first if first is not None else self.last_actor,
                                        self.pending)
        assert seat is not None
        self.to_act = seat
        return seat

    def close(self) -> None:
        """End the betting round: return an uncalled bet (ALLIN-03), note the round."""
        self.pending = set()
        self.to_act = None
        seats = self.seats
        back = uncalled(seats.contrib)
        if back is not None:
            seat, amount = back
            seats.give_back(seat, amount)
            self.emit(make_returned(seat, amount, seats.stacks[seat]))
        if self.played:
            self.last_aggressor = self.aggressor
            self.last_first = self.round_first
        self.played = False
        pots = self.pots = build_pots(seats.contrib, seats.live)
        self.emit(make_street_ended(self.index, seats.pot_total,
                                    tuple([(p.amount, p.eligible) for p in pots])))

    # -------------------------------------------------------------- options
    def options(self, seat: int) -> Options:
        seats = self.seats
        stacks = seats.stacks
        bets = seats.bets
        stack = stacks[seat]
        own = bets[seat]
        all_in = own + stack
        current = self.current
        if seat == self.bring_in_seat and not self.completed and current == 0:
            bring = min(self.stakes.bring_in, all_in)
            # ALLIN-01: a completion is capped at the stack (all-in for less than the full bet);
            # STUD-02: it is more than the bring-in, or it is not offered (a bring-in already
            # as large as the full bet, as in no-limit stud with small_bet == bring_in)
            completion = min(self.full_bet, all_in)
            return make_options(seat, bring_in=bring,
                                complete=completion if completion > bring else None,
                                stack=stack)
        to_call = current - own if current > own else 0
        opts_call = (current if current < all_in else all_in) if to_call > 0 else None
        bet = raise_ = complete = None
        acted = self.acted_level.get(seat)
        if stack > to_call and (acted is None or self.full_level > acted):
            # BET-13: someone else still in the hand can put in more than the current bet
            for s in seats.live:
                if s != seat and bets[s] + stacks[s] > current:
                    break
            else:
                return make_options(seat, fold=True, check=to_call == 0, call=opts_call,
                                    stack=stack, to_call=to_call if to_call < stack else stack)
            if not self.completed:  # stud: only a completion before the full bet
                complete = min(self.full_bet, all_in)
            elif current == 0:
                bet = self._range(own, stack, 0, self.opening)
            elif not (self.structure in CAPPED and len(seats.live) > 2
                      and self.raises >= self.rules.raise_cap):  # BET-10: capped
                raise_ = self._range(own, stack, current, 0)
        return make_options(seat, fold=True, check=to_call == 0, call=opts_call, bet=bet,
                            raise_=raise_, complete=complete, stack=stack,
                            to_call=to_call if to_call < stack else stack)

    def _range(self, own: int, stack: int, current: int, least: int) -> tuple[int, int]:
        """The ``(min, max)`` "to" amounts of a full bet (``current`` 0, at least ``least``)
        or raise: :func:`~server.rules.structure.raise_bounds`, capped at the stack
        (ALLIN-01) and on the chip grid (BET-12, :func:`_on_grid`)."""
        structure = self.structure
        pot = self.seats.pot_total if structure in _POT_STRUCTURES else 0
        lo, hi = raise_bounds(structure, self.stakes, big=self.big, current=current,
                              increment=self.increment, own_bet=own, stack=stack, pot=pot)
        lo = lo if lo > least else least  # (max, without the call)
        hi = hi if hi > lo else lo  # (below only when ``least`` raised lo: raise_bounds' hi >= lo)
        all_in = own + stack
        lo = lo if lo < all_in else all_in
        hi = hi if hi < all_in else all_in
        chip = self.chip
        return _on_grid(lo, hi, all_in, chip) if chip > 1 else (lo, hi)

    # --------------------------------------------------------------- apply
    def apply(self, seat: int, opts: Options, action: str, amount: int | None, *,
              timeout: bool) -> None:
        """Apply a validated betting action (fold, check, call, bet, raise, bring-in,
        complete)."""
        seats = self.seats
        self.last_actor = seat
        self.to_act = None
        self.pending.discard(seat)
        bets = seats.bets
        if action == "fold":
            seats.fold(seat)
            if not self.wagered and self.variant.is_stud:
                self.dead.add(seat)  # STUD-06
            self.emit(make_acted(seat, "fold", bets[seat], seats.stacks[seat], timeout=timeout))
            return
        if action == "check":
            self.acted_level[seat] = self.full_level
            self.emit(make_acted(seat, "check", bets[seat], seats.stacks[seat], timeout=timeout))
            return
        if action == "call":  # (the commonest of ``_EXACT``)
            target = opts.call
        else:
            target = exact_target(opts, action) if action in _EXACT else amount
        assert target is not None
        seats.put(seat, target - bets[seat])
        bets[seat] = target
        if action != "bring_in":
            self.wagered = True  # STUD-06: a wager stops the dead cards to seats that folded
            self.dead.clear()
        if action in _RAISING and target > self.current:
            self._raised(seat, action, target)
        else:
            self.acted_level[seat] = self.full_level
        stack = seats.stacks[seat]
        self.emit(make_acted(seat, action, target, stack, all_in=stack == 0, timeout=timeout))

    def _raised(self, seat: int, action: str, target: int) -> None:
        size = target - self.current
        self.aggressor = seat  # the player who may be called (SHOW-01)
        full_bet = self.full_bet
        if action == "bring_in" and target >= full_bet:
            # STUD-02: a bring-in as large as the full bet is the round's opening bet: the
            # others call it or raise it, and nobody "completes" to what it already is
            self.completed = True
            self.increment = target
            self.current = target
            self.full_level = target
            self.acted_level[seat] = target
        elif action == "bring_in":  # STUD-02: a forced bet below the full bet
            self.completed = False
            self.current = target
            self.full_level = target
            self.acted_level[seat] = target
        elif action == "complete" and target < full_bet:
            # ALLIN-01/ALLIN-02: all-in for less than the completion: the others call it or
            # complete to the full bet; it is not itself the full bet
            self.current = target
            self.acted_level[seat] = self.full_level
        elif action == "complete":  # to the full bet: the round's opening bet, not a raise
            self.completed = True
            self.increment = full_bet
            self.current = target
            self.full_level = target
            self.acted_level[seat] = target
        else:
            if self.structure == FIXED_LIMIT:
                full = size >= self.stakes.fixed_size(big=self.big)
            else:
                full = size >= self.increment
            if full:  # a full bet or raise reopens the betting (BET-05)
                if action == "raise":
                    self.raises += 1
                self.increment = size
                self.full_level = target
            # ALLIN-02: an incomplete all-in raise changes the amount to call, nothing more
            self.current = target
            self.acted_level[seat] = self.full_level
        stacks = self.seats.stacks  # live seats that can still bet (unfolded, with chips)
        self.pending = {s for s in self.seats.live if s != seat and stacks[s] > 0}


def validate(opts: Options, action: str, amount: object, own_bet: int, chip: int) -> None:
    """Refuse an amount ``opts`` does not allow (BET-01, BET-12); the action itself is
    offered (the caller checked ``opts.allows``) and is not a draw.  ``own_bet``: the
    seat's bet in this round."""
    if amount is not None and (type(amount) is not int):
        raise errors.IllegalAction(errors.BAD_AMOUNT, "amount must be a whole number")
    if action in _EXACT:
        exact = exact_target(opts, action)
        if amount is not None and amount != exact:
            raise errors.IllegalAction(errors.BAD_AMOUNT, f"{action} is to exactly {exact}")
        return
    if action == "bet" or action == "raise":
        bounds = opts.bet if action == "bet" else opts.raise_
        assert bounds is not None
        if amount is None:
            raise errors.IllegalAction(errors.BAD_AMOUNT, f"{action} needs an amount")
        lo, hi = bounds
        if amount == own_bet + opts.stack and amount <= hi:
            return  # tapping out is always on the grid (ALLIN-01)
        if amount < lo or amount > hi:
            raise errors.IllegalAction(errors.BAD_AMOUNT, f"{action} to between {lo} and {hi}")
        if amount % chip:
            raise errors.IllegalAction(errors.BAD_AMOUNT, f"amounts are multiples of {chip}")
        return
    if amount not in (None, 0, own_bet):
        raise errors.IllegalAction(errors.BAD_AMOUNT, f"{action} takes no amount")


def _on_grid(lo: int, hi: int, all_in: int, chip: int) -> tuple[int, int]:
    """BET-12: bounds on the grid of a chip above 1 (the minimum rounded up, the maximum
    down), except the all-in total, which is always allowed (ALLIN-01)."""
    if lo < all_in and lo % chip:
        lo = min(all_in, lo + chip - lo % chip)
    if hi < all_in and hi % chip:
        hi -= hi % chip
    return lo, max(hi, lo)


def exact_target(opts: Options, action: str) -> int | None:
    """The bet total of a call, bring-in, completion or over blind (the only amount each
    takes)."""
    if action == "call":
        return opts.call
    if action == "bring_in":
        return opts.bring_in
    if action == "over_blind":
        return opts.over_blind
    return opts.complete
