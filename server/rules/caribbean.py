"""Caribbean Stud Poker (docs/rules.md section 3, CSP-01..CSP-11): one round at one table.

Everything that decides a Caribbean round lives here: the ante/jackpot phase, the deal, the
fold-or-play decisions, the dealer's qualification and the per-seat settlement.  The table
settings (pay schedules, pool shares) and the jackpot *payout* arithmetic (CSP-09/CSP-11)
are in :mod:`server.rules.caribbean_payout` and re-exported here, as are the events
(:mod:`server.rules.caribbean_events`); the settlement arithmetic and what it hands the jackpot
coordinator are pure functions of :mod:`server.rules.caribbean_settle`.  Ordering claims across
tables (CSP-10) and the shared pool (CSP-12) belong to the jackpot coordinator, which this
module only feeds with :meth:`CaribbeanRound.contributions` and
:meth:`CaribbeanRound.jackpot_claims`.

The engine is pure and deterministic: the caller passes the deck (in dealing order) and the
actions; every method returns the new events, and the same deck plus the same actions give
the same events.  A refused action raises :class:`IllegalAction` and changes nothing.

Money is ``int`` in the smallest chip unit; shares are basis points (1/10,000), rounded down.

Decisions on the points the rule text leaves open (see also the tests):

* **Stack cover (CSP-01/03).**  An ante is accepted only when the seat's stack covers the
  ante, the jackpot wager (if any) *and* the possible call bet of twice the ante, so a player
  can never be dealt a hand they cannot afford to play.  Otherwise ``bad_amount``.
* **The jackpot wager of a qualifying hand (CSP-07).**  "Collected at settlement unless its hand
  qualifies": a qualifying wager is *returned* to the player at settlement (its ``Settled``
  jackpot result is 0) and the hand becomes a :class:`JackpotClaim`; the payout itself comes
  later from the coordinator (its amount depends on the pool and on claims at other tables).
  Every other wager (non-qualifying hand, folded hand) is collected (result ``-wager``) and is a
  contribution: its pool share (CSP-08/CSP-11) goes to the pool, the rest to the house's
  jackpot ledger (GEN-09).  A returned wager contributes nothing.
* **A hand qualifies for the jackpot** when its category has a non-zero jackpot payout
  (defaults: flush or better).  A folded hand never qualifies (CSP-03/07).
* **Eligibility moment (CSP-10)** is reported as the deck position (0-based) of the card that
  made the hand eligible: the seat's first card in ``"shoe"`` mode, its fifth card in
  ``"shuffler"`` mode.  Positions grow with dealing time, so within a round they order claims;
  the coordinator combines them with the round's own deal time across tables.
* **Timeouts**: in the ante phase a timeout sits the seat out; in the decision phase it folds.
* **Nobody anted**: :meth:`deal` ends the round without dealing (house net 0).
* **Deck check (GEN-02)** happens in :meth:`deal`; a bad deck voids the round and returns every
  ante and jackpot wager (``RoundVoided`` then ``RoundEnded(voided=True)``).
* Refusal reasons: unknown seat or a seat without cards -> ``no_hand``; a seat that already
  did its part of the current phase -> ``not_your_turn``; an action that is not part of the
  current phase (or any action after the end) -> ``bad_action``; a wrong or unaffordable
  amount -> ``bad_amount``; bad table setup -> ``bad_setup``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from server.rules import caribbean_settle as settlement
from server.rules.cards import DeckError, check_deck, make_deck
from server.rules.caribbean_events import (
    AnteAccepted,
    DealerDealt,
    DealerRevealed,
    Dealt,
    Event,
    JackpotWagered,
    PlayerDecided,
    RoundEnded,
    RoundVoided,
    SatOut,
    Settled,
)
from server.rules.caribbean_payout import (
    BP,
    HAND_KEYS,
    JACKPOT_KEYS,
    MAJOR_KEYS,
    MINOR_KEYS,
    ROYAL_FLUSH,
    CaribbeanSettings,
    Contribution,
    DealingMode,
    JackpotClaim,
    JackpotPayouts,
    JackpotSchedule,
    PaySchedule,
    PoolOutcome,
    SplitJackpotPayouts,
    hand_key,
    is_int,
    jackpot_payouts,
    split_jackpot_payouts,
)
from server.rules.errors import (
    BAD_ACTION,
    BAD_AMOUNT,
    BAD_SETUP,
    NO_HAND,
    NOT_YOUR_TURN,
    IllegalAction,
)
from server.rules.evaluate import HandValue
from server.rules.options import Options
from server.rules.view import SeatView, View, cards_for
from server.rules.vocabulary import CaribbeanPhase

__all__ = [
    "BP", "HAND_KEYS", "JACKPOT_KEYS", "MAJOR_KEYS", "MINOR_KEYS", "ROYAL_FLUSH",
    "CaribbeanSettings", "Contribution", "DealingMode", "JackpotClaim", "JackpotPayouts",
    "JackpotSchedule", "PaySchedule", "PoolOutcome", "SplitJackpotPayouts", "hand_key",
    "jackpot_payouts", "split_jackpot_payouts", "CaribbeanRound", "Event", "AnteAccepted",
    "JackpotWagered", "SatOut", "RoundVoided", "Dealt", "DealerDealt", "PlayerDecided",
    "DealerRevealed", "Settled", "RoundEnded", "MAX_PLAYERS",
]

CARDS_PER_HAND = 5
DECK_SIZE = 52
MAX_PLAYERS = (DECK_SIZE - CARDS_PER_HAND) // CARDS_PER_HAND  # 9: 9 players + dealer = 50 cards
Phase = CaribbeanPhase  # (the older name)

# --- the round ------------------------------------------------------------------------------


class CaribbeanRound:
    """One round at one table.  Phases: ``antes`` -> (:meth:`deal`) ``decisions`` -> ``ended``
    (or ``void`` on a bad deck).  The table actor calls :meth:`ante`/:meth:`sit_out` per seat,
    then :meth:`deal` when it closes betting, then :meth:`play`/:meth:`fold`/:meth:`timeout`
    per dealt seat; the last decision settles the round.  Ask :meth:`options` what a seat may do.
    """

    def __init__(
        self,
        settings: CaribbeanSettings,
        seats: Mapping[int, int],
        deck: Sequence[str],
        *,
        round_id: str,
    ) -> None:
        if not seats or len(seats) > MAX_PLAYERS:
            raise IllegalAction(BAD_SETUP, f"a Caribbean round needs 1..{MAX_PLAYERS} seats")
        for seat, stack in seats.items():
            if not is_int(seat) or seat < 0 or not is_int(stack) or stack < 0:
                raise IllegalAction(BAD_SETUP, f"bad seat or stack: {seat!r}: {stack!r}")
        self.settings = settings
        self.round_id = round_id
        self._deck = tuple(deck)
        self._initial = dict(sorted(seats.items()))
        self._stacks = dict(self._initial)
        self._phase: Phase = CaribbeanPhase.ANTES
        self._antes: dict[int, int] = {}
        self._wagers: dict[int, int] = {}
        self._sat_out: set[int] = set()
        self._hands: dict[int, tuple[str, ...]] = {}
        self._positions: dict[int, tuple[int, ...]] = {}
        self._dealer: tuple[str, ...] = ()
        self._decisions: dict[int, str] = {}
        self._settled: dict[int, Settled] = {}
        self._values: dict[int, HandValue] = {}
        self._house_net = 0
        self._events: list[Event] = []

    # -- reading ---------------------------------------------------------------------------
    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def stacks(self) -> dict[int, int]:
        return dict(self._stacks)

    @property
    def events(self) -> tuple[Event, ...]:
        """Every event so far, in order."""
        return tuple(self._events)

    @property
    def house_net(self) -> int:
        return self._house_net

    def snapshot(self) -> dict[str, object]:
        """The whole mutable state as plain values (equal snapshots = equal states)."""
        return {
            "phase": self._phase, "stacks": dict(self._stacks), "antes": dict(self._antes),
            "wagers": dict(self._wagers), "sat_out": sorted(self._sat_out),
            "hands": dict(self._hands), "dealer": self._dealer,
            "decisions": dict(self._decisions), "settled": dict(self._settled),
            "house_net": self._house_net, "events": len(self._events),
        }

    def options(self, seat: int) -> Options | None:
        """What ``seat`` may do now (None when nothing), as the one
        :class:`~server.rules.options.Options` type of every engine.

        Ante phase: ``sit_out``, ``ante`` ``(min, max)`` and ``jackpot`` ``(wager, max_ante)``
        or None: ``max`` is the largest ante the stack covers without the jackpot wager (the
        stack must cover ante + jackpot wager + 2 x ante), ``max_ante`` the largest with it;
        ``ante`` is None when even the minimum is not covered.  Decision phase: ``fold`` and
        ``play`` (2 x ante).  ``timeout`` is legal whenever ``sit_out`` or ``fold`` is.
        """
        s = self.settings
        if seat not in self._stacks:
            return None
        stack = self._stacks[seat]
        if self._phase == CaribbeanPhase.ANTES:
            if seat in self._antes or seat in self._sat_out:
                return None
            top = min(s.ante_max, stack // 3)
            if top < s.ante_min:
                return Options(seat, sit_out=True, stack=stack)
            top_jp = min(s.ante_max, (stack - s.jackpot_wager) // 3)
            ok = s.jackpot_wager > 0 and top_jp >= s.ante_min
            return Options(seat, sit_out=True, stack=stack, ante=(s.ante_min, top),
                           jackpot=(s.jackpot_wager, top_jp) if ok else None)
        if (self._phase == CaribbeanPhase.DECISIONS and seat in self._hands
                and seat not in self._decisions):
            return Options(seat, fold=True, play=2 * self._antes[seat], stack=stack)
        return None

    def view(self, seat: int | None) -> View:
        """What ``seat`` (None: a spectator) may see of the round now: every seat's stack
        and its five cards (the owner's own, None to everyone else: CSP-02), who still has to
        decide in the phase (all at once), the viewer's options, and the dealer's cards: the up
        card once dealt, all five once turned (CSP-04).  A seat's ``state`` stays ``active``."""
        deciding = set(self.deciding())
        seats = {s: SeatView(s, stack, cards=cards_for(self._hands.get(s, ()),
                                                       (False,) * len(self._hands.get(s, ())),
                                                       owner=s, viewer=seat),
                             deciding=s in deciding)
                 for s, stack in self._stacks.items()}
        turned = self._phase == CaribbeanPhase.ENDED
        dealer = cards_for(self._dealer, (turned,) * (len(self._dealer) - 1) + (True,),
                           owner=-1, viewer=seat) if self._dealer else ()
        return View(seat, seats, options=self.options(seat) if seat is not None else None,
                    together=True, dealer=dealer)

    # -- the engine protocol (server.rules.engine) -----------------------------------------
    def start(self) -> list[Event]:
        """The round opens with its ante phase: nothing happens until the first ante."""
        return []

    @property
    def is_over(self) -> bool:
        return self._phase in (CaribbeanPhase.ENDED, CaribbeanPhase.VOID)

    def deciding(self) -> tuple[int, ...]:
        """Every seat with a decision to make now (all at once: one deadline for the phase)."""
        return tuple(s for s in self._stacks if self.options(s) is not None)

    def act(self, seat: int, action: str, amount: int | None = None,
            discard: Sequence[str] = (), *, jackpot: bool = False) -> list[Event]:
        """One engine entry for every action: ``ante`` (``amount``, ``jackpot``) and ``fold``
        (sitting out) in the ante phase, ``play`` and ``fold`` in the decision phase.  When
        the last seat of the ante phase has answered, the round is dealt (:meth:`deal`)."""
        if self._phase == CaribbeanPhase.ANTES:
            if action == "ante":
                if amount is None:
                    raise IllegalAction(BAD_AMOUNT, "an ante needs an amount")
                return self._then_deal(self.ante(seat, amount, jackpot=jackpot))
            if action == "fold":
                return self._then_deal(self.sit_out(seat))
        elif self._phase == CaribbeanPhase.DECISIONS:
            if action == "play":
                return self.play(seat)
            if action == "fold":
                return self.fold(seat)
        raise IllegalAction(BAD_ACTION, f"{action} is not possible now")

    def expire(self) -> list[Event]:
        """The phase's deadline passed: every seat still deciding times out (then, in the
        ante phase, the round is dealt)."""
        out: list[Event] = []
        for s in self.deciding():
            out += self.timeout(s)
        return self._then_deal(out)

    def _then_deal(self, events: list[Event]) -> list[Event]:
        if self._phase == CaribbeanPhase.ANTES and not self.deciding():
            events = events + self.deal()
        return events

    # -- ante phase ------------------------------------------------------------------------
    def ante(self, seat: int, amount: int, *, jackpot: bool = False) -> list[Event]:
        """CSP-01: place an ante (and optionally the fixed jackpot wager, locked at once)."""
        _check_phase(self._phase, CaribbeanPhase.ANTES, "ante")
        _check_seat(self._stacks, seat)
        if seat in self._antes or seat in self._sat_out:
            raise IllegalAction(NOT_YOUR_TURN, f"seat {seat} has already anted or sat out")
        s = self.settings
        if not is_int(amount) or not s.ante_min <= amount <= s.ante_max:
            raise IllegalAction(
                BAD_AMOUNT, f"ante must be {s.ante_min}..{s.ante_max}, not {amount!r}"
            )
        if not isinstance(jackpot, bool) or (jackpot and s.jackpot_wager <= 0):
            raise IllegalAction(BAD_ACTION, "this table takes no jackpot wager")
        wager = s.jackpot_wager if jackpot else 0
        need = 3 * amount + wager
        if self._stacks[seat] < need:
            raise IllegalAction(
                BAD_AMOUNT,
                f"stack {self._stacks[seat]} must cover ante, jackpot wager and call bet ({need})",
            )
        self._antes[seat] = amount
        self._stacks[seat] -= amount
        out: list[Event] = [AnteAccepted(seat, amount, self._stacks[seat])]
        if wager:
            self._wagers[seat] = wager
            self._stacks[seat] -= wager
            out.append(JackpotWagered(seat, wager, self._stacks[seat]))
        return self._emit(out)

    def sit_out(self, seat: int, *, timeout: bool = False) -> list[Event]:
        """The seat takes no part in this round (the default if it never antes); ``timeout``:
        the action clock decided it (:meth:`timeout`)."""
        _check_phase(self._phase, CaribbeanPhase.ANTES, "sit_out")
        _check_seat(self._stacks, seat)
        if seat in self._antes or seat in self._sat_out:
            raise IllegalAction(NOT_YOUR_TURN, f"seat {seat} has already anted or sat out")
        self._sat_out.add(seat)
        return self._emit([SatOut(seat, timeout)])

    def deal(self) -> list[Event]:
        """Close the ante phase and deal (GEN-02 check first; CSP-02)."""
        _check_phase(self._phase, CaribbeanPhase.ANTES, "deal")
        try:
            check_deck(self._deck, make_deck())
        except DeckError as err:
            self._stacks = dict(self._initial)
            self._phase = CaribbeanPhase.VOID
            return self._emit([
                RoundVoided(err.reason, str(err)),
                RoundEnded(self.round_id, dict(self._stacks), 0, 0, voided=True),
            ])
        players = sorted(self._antes)
        if not players:
            self._phase = CaribbeanPhase.ENDED
            return self._emit([RoundEnded(self.round_id, dict(self._stacks), 0, 0)])
        width = len(players) + 1
        out: list[Event] = []
        for i, seat in enumerate(players):
            pos = tuple(r * width + i for r in range(CARDS_PER_HAND))
            self._positions[seat] = pos
            self._hands[seat] = tuple(self._deck[p] for p in pos)
            out.append(Dealt(seat, self._hands[seat], (False,) * CARDS_PER_HAND, pos))
        dpos = tuple(r * width + len(players) for r in range(CARDS_PER_HAND))
        self._dealer = tuple(self._deck[p] for p in dpos)
        out.append(DealerDealt(self._dealer, (False,) * (CARDS_PER_HAND - 1) + (True,), dpos))
        self._phase = CaribbeanPhase.DECISIONS
        return self._emit(out)

    # -- decision phase --------------------------------------------------------------------
    def play(self, seat: int) -> list[Event]:
        """CSP-03: call with exactly twice the ante (covered since the ante was accepted)."""
        _check_decider(self._phase, self._stacks, self._hands, self._decisions, seat, "play")
        bet = 2 * self._antes[seat]
        self._stacks[seat] -= bet
        self._decisions[seat] = "play"
        return self._decided(PlayerDecided(seat, "play", bet, self._stacks[seat]))

    def fold(self, seat: int) -> list[Event]:
        """CSP-03: fold, losing the ante and any jackpot wager."""
        _check_decider(self._phase, self._stacks, self._hands, self._decisions, seat, "fold")
        self._decisions[seat] = "fold"
        return self._decided(PlayerDecided(seat, "fold", 0, self._stacks[seat]))

    def timeout(self, seat: int) -> list[Event]:
        """The action clock ran out: sit out in the ante phase, fold in the decision phase."""
        if self._phase == CaribbeanPhase.ANTES:
            return self.sit_out(seat, timeout=True)
        _check_decider(self._phase, self._stacks, self._hands, self._decisions, seat, "timeout")
        self._decisions[seat] = "fold"
        return self._decided(PlayerDecided(seat, "fold", 0, self._stacks[seat], timeout=True))

    def _decided(self, event: PlayerDecided) -> list[Event]:
        out: list[Event] = [event]
        if len(self._decisions) == len(self._hands):
            done = settlement.settle(
                self.settings, self.round_id, dealer=self._dealer, hands=self._hands,
                antes=self._antes, decisions=self._decisions, wagers=self._wagers,
                stacks=self._stacks, house_net=self._house_net)
            self._stacks, self._settled = done.stacks, done.settled
            self._values, self._house_net = done.values, done.house_net
            self._phase = CaribbeanPhase.ENDED
            out.extend(done.events)
        return self._emit(out)

    # -- settlement (server.rules.caribbean_settle) ----------------------------------------
    def contributions(self) -> tuple[Contribution, ...]:
        """CSP-08/11: the collected jackpot wagers of this round, in seat order (after the end).
        Returned wagers (qualifying hands) and a voided round contribute nothing."""
        _check_over(self._phase, "contributions")
        return settlement.contributions(self.settings, self.round_id, self._settled)

    def jackpot_claims(self) -> tuple[JackpotClaim, ...]:
        """CSP-07/10: this round's qualifying hands, in order of their eligibility moments."""
        _check_over(self._phase, "jackpot_claims")
        return settlement.jackpot_claims(self.settings, self.round_id, self._settled,
                                         self._positions)

    def eligibility(self) -> dict[int, int]:
        """CSP-10: every dealt seat's eligibility moment (deck position) under the table's mode."""
        return settlement.eligibility(self.settings, self._positions)

    def _emit(self, events: list[Event]) -> list[Event]:
        self._events.extend(events)
        return events


# -- guards (each raises before anything changes) --------------------------------------------
def _check_phase(current: Phase, phase: Phase, action: str) -> None:
    if current != phase:
        raise IllegalAction(BAD_ACTION, f"{action} is not allowed in phase {current}")


def _check_seat(stacks: Mapping[int, int], seat: int) -> None:
    if not is_int(seat) or seat not in stacks:
        raise IllegalAction(NO_HAND, f"seat {seat!r} is not in this round")


def _check_decider(current: Phase, stacks: Mapping[int, int], hands: Mapping[int, object],
                   decisions: Mapping[int, str], seat: int, action: str) -> None:
    _check_phase(current, CaribbeanPhase.DECISIONS, action)
    _check_seat(stacks, seat)
    if seat not in hands:
        raise IllegalAction(NO_HAND, f"seat {seat} has no hand in this round")
    if seat in decisions:
        raise IllegalAction(NOT_YOUR_TURN, f"seat {seat} has already decided")


def _check_over(current: Phase, what: str) -> None:
    if current not in (CaribbeanPhase.ENDED, CaribbeanPhase.VOID):
        raise IllegalAction(BAD_ACTION, f"{what} is known only after settlement")
