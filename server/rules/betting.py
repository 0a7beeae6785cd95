"""Betting rounds: who acts, what they may do, and what each action does.

Rules implemented here: BLIND-01..05 (forced bets), BET-01..12, ALLIN-01,
ALLIN-02 (an incomplete all-in raise reopens nothing), ALLIN-04 (no betting
when at most one player can bet), STUD-02 (bring-in or complete), STUD-04
(an all-in player does not open) and STUD-06 (dead cards until a wager).

State of the round: ``bets`` (this round), ``current`` (the highest bet the
others must match), ``increment`` (the largest full bet or raise so far,
BET-05), ``full_level`` (the bet level after the last *full* bet or raise)
and ``acted_level[seat]`` (the full level when that seat last acted): a seat
may raise only if it has not acted yet or a full raise came after it acted.
"""

from __future__ import annotations

from server.rules import errors
from server.rules.evaluate import lowest_card, rank_showing
from server.rules.events import Acted, BetReturned, Posted, StreetEnded
from server.rules.options import Options
from server.rules.pots import build_pots, uncalled
from server.rules.state import HandState
from server.rules.structure import CAPPED, FIXED_LIMIT, raise_bounds
from server.rules.variant import BLINDS, BRING_IN, BUTTON, SHOWING


class BettingMixin(HandState):
    """Betting-round behaviour of :class:`~server.rules.hand.Hand`."""

    def _init_betting(self) -> None:
        self.current = 0
        self.increment = 0
        self.full_level = 0
        self.raises = 0
        self.acted_level: dict[int, int] = {}
        self.pending: set[int] = set()
        self.round_first: int | None = None
        self.aggressor: int | None = None
        self.round_played = False
        self.last_round_aggressor: int | None = None
        self.last_round_first: int | None = None
        self.bring_in_seat: int | None = None
        self.completed = True
        self.blind_seats: list[int] = []
        self.over_blind_seat: int | None = None
        self.over_blind_ask: int | None = None  # BLIND-04: the seat asked before the deal
        self.wagered = False  # STUD-06: a voluntary wager has been made in this round
        self.dead: set[int] = set()
        self._first_actor: int | None = None
        self._last_actor: int = self.button

    # ---------------------------------------------------------- forced bets
    def _put(self, seat: int, amount: int) -> int:
        """Move up to ``amount`` from the stack to the middle; returns what went in."""
        amount = min(amount, self.stacks[seat])
        self.stacks[seat] -= amount
        self.contrib[seat] += amount
        return amount

    def _post_forced(self) -> None:
        st = self.stakes
        if st.ante:  # BLIND-05: antes before any card, dead money
            for s in self.order:
                paid = self._put(s, st.ante)
                self._emit(Posted(s, "ante", paid, self.stacks[s]))
        if self.variant.is_stud or not st.blinds:
            return
        seats = list(self.order)
        plan: list[int | None]
        if self.blind_plan is not None:  # GEN-05: the table's dead-button positions
            plan = list(self.blind_plan)
        else:
            if (len(seats) == 2 and self.rules.heads_up_button_first_blind
                    and self.button in seats):
                seats = [self.button] + [s for s in seats if s != self.button]
            plan = list(seats[:len(st.blinds)])
        for seat, blind in zip(plan, st.blinds, strict=False):  # BLIND-01
            if seat is None:
                continue  # a dead blind (GEN-05): nobody posts it
            paid = self._put(seat, blind)
            self.bets[seat] += paid
            self.blind_seats.append(seat)
            self._emit(Posted(seat, "blind", paid, self.stacks[seat]))
        last_blind = st.blinds[-1]
        for seat in self.order:  # GEN-05: a late entrant posts a big blind to play at once
            if seat in self.entry_posts and seat not in self.blind_seats:
                paid = self._put(seat, last_blind)
                self.bets[seat] += paid
                self._emit(Posted(seat, "blind", paid, self.stacks[seat]))
        # BET-03: in the first round calling means matching the last blind (or over blind)
        self._set_first_level(last_blind)
        entitled = self._over_blind_entitled(last_blind)
        if entitled is not None and self.want_over_blind:
            self._post_over_blind(entitled)
        elif entitled is not None and self.ask_over_blind:
            self.over_blind_ask = entitled  # asked before the deal (Hand.start)

    def _set_first_level(self, level: int) -> None:
        self.current = level
        self.increment = max(level, self.stakes.opening_bet(big=False))
        self.full_level = level

    def _over_blind_entitled(self, last_blind: int) -> int | None:
        """BLIND-04: the seat left of the last compulsory blind, when it may post the over
        blind: not a blind itself (heads-up), not posting to come in, and able to cover
        exactly double the last blind (after any ante); None otherwise."""
        if not (self.want_over_blind or self.ask_over_blind):
            return None
        seat = self._next_seat(self.blind_seats[-1], self.order)
        if (seat is None or seat in self.blind_seats or seat in self.entry_posts
                or self.stacks[seat] < 2 * last_blind):
            return None
        return seat

    def _post_over_blind(self, seat: int) -> None:
        amount = 2 * self.stakes.blinds[-1]
        self._put(seat, amount)
        self.bets[seat] += amount
        self.over_blind_seat = seat
        kind = "straddle" if self.rules.straddle else "over_blind"  # STRAD-01 / BLIND-04
        self._emit(Posted(seat, kind, amount, self.stacks[seat]))
        self._set_first_level(amount)

    def _answer_over_blind(self, seat: int, post: bool, *, timeout: bool) -> None:
        """BLIND-04: the asked seat posts the over blind or declines (a timeout declines);
        then the cards are dealt."""
        self.over_blind_ask = None
        self.to_act = None
        if post:
            self._post_over_blind(seat)
        else:
            self._emit(Acted(seat, "decline", 0, self.stacks[seat], timeout=timeout))
        self._begin_street()

    # -------------------------------------------------------------- rounds
    def _start_betting(self) -> None:
        """Open this street's betting round, or skip it (ALLIN-04)."""
        street = self.variant.streets[self.street]
        if self.street > 0:
            self.bets = {s: 0 for s in self.order}
            self.current = 0
            self.full_level = 0
            self.increment = self.stakes.opening_bet(big=street.big)
            self.wagered = False  # STUD-06: a fold before this round's first wager is dead
        if self.street == len(self.variant.streets) - 1:
            self._note_last_street()
        self.raises = 0
        self.acted_level = {}
        self.aggressor = None
        self.completed = True
        self.bring_in_seat = None
        stacks = self.stacks
        able = [s for s in self._live if stacks[s] > 0]  # can bet: live (unfolded), chips
        if not self._betting_open():
            self.pending = set()  # ALLIN-04: deal on without betting
            self.round_first = None
            self.round_played = False
            return
        self.pending = set(able)
        self.round_played = True
        first = self._opener(street.opener, able)
        self.round_first = first
        self.to_act = None
        self._first_actor = first

    def _opener(self, how: str, able: list[int]) -> int:
        if how == BLINDS:  # BET-02: left of the last blind, or over blind
            last = self.over_blind_seat if self.over_blind_seat is not None else (
                self.blind_seats[-1] if self.blind_seats else self.button)
            return self._first_after(last, able)
        if how == BRING_IN:  # STUD-02, STUD-04: lowest up card among those who can bet
            low = lowest_card([self._last_up(s) for s in able])
            seat = next(s for s in able if self._last_up(s) == low)
            self.bring_in_seat = seat
            self.completed = False
            self.current = 0
            self.increment = self.stakes.fixed_size(big=False)
            return seat
        if how == SHOWING:  # STUD-03: highest showing; all-in -> pass left (STUD-04)
            best = max(self._live, key=lambda s: rank_showing(self._up_cards(s)))
            if best in able:
                return best
            return self._first_after(best, able)
        assert how == BUTTON  # BET-04
        return self._first_after(self.button, able)

    def _first_after(self, seat: int, able: list[int]) -> int:
        """The first seat of ``able`` clockwise after ``seat`` (seat numbers start at 0:
        never ``x or y`` on a seat, BET-02/BET-04/STUD-04)."""
        found = self._next_seat(seat, able)
        assert found is not None, "no seat can bet"
        return found

    def _betting_open(self) -> bool:
        """ALLIN-04, after every action: is anyone left who may be given a turn?

        False when nobody still in the hand has chips behind, or when exactly one has and
        that player owes nothing: the cards are then dealt with no more betting.
        """
        stacks = self.stacks
        bets = self.bets
        able = [s for s in self._live if stacks[s] > 0]
        if len(able) > 1:
            return True
        if not able:
            return False
        top = max(bets[s] for s in self._live)
        return bets[able[0]] < top

    def _up_cards(self, seat: int) -> list[str]:
        return [c for c, u in zip(self.own[seat], self.up[seat], strict=True) if u]

    def _last_up(self, seat: int) -> str:
        return self._up_cards(seat)[-1]

    def _pick_next_actor(self) -> int:
        """Choose who acts next among ``pending``: the opener first, then clockwise."""
        first = self._first_actor
        self._first_actor = None
        if first is not None and first in self.pending:
            seat: int | None = first
        else:
            seat = self._next_seat(first if first is not None else self._last_actor, self.pending)
        assert seat is not None
        self.to_act = seat
        return seat

    def _close_round(self) -> None:
        """End the betting round: return an uncalled bet (ALLIN-03), note the round."""
        self.pending = set()
        self.to_act = None
        back = uncalled(self.contrib)
        if back is not None:
            seat, amount = back
            self.contrib[seat] -= amount
            self.bets[seat] -= amount
            self.stacks[seat] += amount
            self._emit(BetReturned(seat, amount, self.stacks[seat]))
        if self.round_played:
            self.last_round_aggressor = self.aggressor
            self.last_round_first = self.round_first
        self.round_played = False
        if self.street >= 0 and not self.is_over:
            pots = tuple((p.amount, p.eligible) for p in build_pots(self.contrib, self._live))
            self._emit(StreetEnded(self.street, self.pot_total, pots))

    # -------------------------------------------------------------- options
    def _options(self, seat: int) -> Options:
        stack = self.stacks[seat]
        if self.over_blind_ask is not None:  # BLIND-04: the only question before the deal
            return Options(seat, over_blind=2 * self.stakes.blinds[-1], decline=True,
                           stack=stack, straddle=self.rules.straddle)
        if self.runout_ask:  # RIT-02: the run-it-twice question, nothing else
            return Options(seat, run_twice=True, stack=stack)
        if self.show_ask is not None:  # SHOWWIN-01: show or muck, nothing else
            return Options(seat, show=True, stack=stack)
        if self.draw_pending:
            return Options(seat, draw=min(self.rules.max_discard, len(self.own[seat]),
                                          self._spare_for_draw(seat)), stack=stack)
        own = self.bets[seat]
        all_in = own + stack
        current = self.current
        if seat == self.bring_in_seat and not self.completed and current == 0:
            bring = min(self.stakes.bring_in, all_in)
            # ALLIN-01: a completion is capped at the stack (all-in for less than the full bet);
            # STUD-02: it is more than the bring-in, or it is not offered (a bring-in already
            # as large as the full bet, as in no-limit stud with small_bet == bring_in)
            completion = min(self.stakes.fixed_size(big=False), all_in)
            return Options(seat, bring_in=bring,
                           complete=completion if completion > bring else None, stack=stack)
        to_call = current - own if current > own else 0
        opts_call = (current if current < all_in else all_in) if to_call > 0 else None
        bet = raise_ = None
        complete = None
        acted = self.acted_level.get(seat)
        stacks = self.stacks
        bets = self.bets
        if (stack > to_call
                and (acted is None or self.full_level > acted)
                # BET-13: someone else still in the hand can put in more than the current bet
                and any(s != seat and bets[s] + stacks[s] > current for s in self._live)):
            if not self.completed:  # stud: only a completion before the full bet
                full = self.stakes.fixed_size(big=False)
                complete = min(full, all_in)
            elif current == 0:
                big = self.variant.streets[self.street].big
                lo, hi = raise_bounds(self.rules.structure, self.stakes, big=big, current=0,
                                      increment=self.increment, own_bet=own, stack=stack,
                                      pot=sum(self.contrib.values()))
                lo = max(lo, self.stakes.opening_bet(big=big))
                bet = _on_grid(min(lo, all_in), min(max(hi, lo), all_in), all_in,
                               self.stakes.chip)
            elif not (self.rules.structure in CAPPED and len(self._live) > 2
                      and self.raises >= self.rules.raise_cap):  # BET-10: capped
                big = self.variant.streets[self.street].big
                lo, hi = raise_bounds(self.rules.structure, self.stakes, big=big,
                                      current=current, increment=self.increment,
                                      own_bet=own, stack=stack, pot=sum(self.contrib.values()))
                raise_ = _on_grid(min(lo, all_in), min(hi, all_in), all_in, self.stakes.chip)
        return Options(seat, fold=True, check=to_call == 0, call=opts_call, bet=bet,
                       raise_=raise_, complete=complete, stack=stack,
                       to_call=to_call if to_call < stack else stack)

    def _validate(self, opts: Options, action: str, amount: object,
                  discard: tuple[str, ...]) -> None:
        """Refuse anything ``opts`` does not offer (BET-01, BET-12)."""
        if not opts.allows(action):
            raise errors.IllegalAction(errors.BAD_ACTION,
                                       f"{action!r} is not allowed now; allowed: {opts.kinds}")
        if action == "draw":
            self._validate_draw(opts, discard)
            return
        if amount is not None and (type(amount) is not int):
            raise errors.IllegalAction(errors.BAD_AMOUNT, "amount must be a whole number")
        if action in ("call", "bring_in", "complete", "over_blind"):
            exact = _exact_target(opts, action)
            if amount is not None and amount != exact:
                raise errors.IllegalAction(errors.BAD_AMOUNT,
                                           f"{action} is to exactly {exact}")
            return
        all_in = self.bets[opts.seat] + opts.stack
        if action in ("bet", "raise"):
            bounds = opts.bet if action == "bet" else opts.raise_
            assert bounds is not None
            if amount is None:
                raise errors.IllegalAction(errors.BAD_AMOUNT, f"{action} needs an amount")
            lo, hi = bounds
            if amount == all_in and amount <= hi:
                return  # tapping out is always on the grid (ALLIN-01)
            if amount < lo or amount > hi:
                raise errors.IllegalAction(errors.BAD_AMOUNT,
                                           f"{action} to between {lo} and {hi}")
            if amount % self.stakes.chip:
                raise errors.IllegalAction(errors.BAD_AMOUNT,
                                           f"amounts are multiples of {self.stakes.chip}")
            return
        if amount not in (None, 0, self.bets[opts.seat]):
            raise errors.IllegalAction(errors.BAD_AMOUNT, f"{action} takes no amount")

    # --------------------------------------------------------------- apply
    def _apply(self, seat: int, opts: Options, action: str, amount: int | None,
               discard: tuple[str, ...], *, timeout: bool) -> None:
        self._opts_cache = None
        if action == "draw":
            self._apply_draw(seat, discard, timeout=timeout)
            return
        if action == "over_blind" or action == "decline":
            self._answer_over_blind(seat, action == "over_blind", timeout=timeout)
            return
        if action == "run_twice" or action == "run_once":
            self._answer_runout(seat, action == "run_twice", timeout=timeout)
            return
        if action == "show" or action == "muck":
            self._answer_show(seat, action == "show", timeout=timeout)
            return
        self._last_actor = seat
        self.to_act = None
        self.pending.discard(seat)
        if action == "fold":
            self._fold(seat)
            if not self.wagered and self.variant.is_stud:
                self.dead.add(seat)  # STUD-06
            self._emit(Acted(seat, "fold", self.bets[seat], self.stacks[seat], timeout=timeout))
            return
        if action == "check":
            self.acted_level[seat] = self.full_level
            self._emit(Acted(seat, "check", self.bets[seat], self.stacks[seat], timeout=timeout))
            return
        if action == "call" or action == "bring_in" or action == "complete":
            target = _exact_target(opts, action)
        else:
            target = amount
        assert target is not None
        self._put(seat, target - self.bets[seat])
        self.bets[seat] = target
        if action != "bring_in":
            self._wager()
        if action in ("bet", "raise", "complete", "bring_in") and target > self.current:
            self._raised(seat, action, target)
        else:
            self.acted_level[seat] = self.full_level
        self._emit(Acted(seat, action, target, self.stacks[seat],
                         all_in=self.stacks[seat] == 0, timeout=timeout))

    def _wager(self) -> None:
        """STUD-06: a wager stops the dead cards to seats that folded without one."""
        self.wagered = True
        self.dead.clear()

    def _raised(self, seat: int, action: str, target: int) -> None:
        size = target - self.current
        self.aggressor = seat  # the player who may be called (SHOW-01)
        if action == "bring_in" and target >= self.stakes.fixed_size(big=False):
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
        elif action == "complete" and target < self.stakes.fixed_size(big=False):
            # ALLIN-01/ALLIN-02: all-in for less than the completion: the others call it or
            # complete to the full bet; it is not itself the full bet
            self.current = target
            self.acted_level[seat] = self.full_level
        elif action == "complete":  # to the full bet: the round's opening bet, not a raise
            self.completed = True
            self.increment = self.stakes.fixed_size(big=False)
            self.current = target
            self.full_level = target
            self.acted_level[seat] = target
        else:
            if self.rules.structure == FIXED_LIMIT:
                full = size >= self.stakes.fixed_size(big=self.variant.streets[self.street].big)
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
        stacks = self.stacks  # live seats that can still bet (unfolded, with chips)
        self.pending = {s for s in self._live if s != seat and stacks[s] > 0}


def _on_grid(lo: int, hi: int, all_in: int, chip: int) -> tuple[int, int]:
    """BET-12: bounds on the chip grid (the minimum rounded up, the maximum down), except the
    all-in total, which is always allowed (ALLIN-01)."""
    if chip > 1:
        if lo < all_in and lo % chip:
            lo = min(all_in, lo + chip - lo % chip)
        if hi < all_in and hi % chip:
            hi -= hi % chip
        hi = max(hi, lo)
    return lo, hi


def _exact_target(opts: Options, action: str) -> int | None:
    """The bet total of a call, bring-in or completion (the only amount it takes)."""
    if action == "call":
        return opts.call
    if action == "bring_in":
        return opts.bring_in
    if action == "over_blind":
        return opts.over_blind
    return opts.complete
