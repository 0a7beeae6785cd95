"""Differential harness: one hand through our engine and through pokerkit 0.7.7, side by side.

:func:`play_differential` deals a deck in exact dealing order to our :class:`Hand`, feeds
pokerkit exactly the cards our deal gave each player (burns and board included, pokerkit's own
dealing automations off), and then plays random legal actions into both engines, comparing at
every decision: whose turn it is, the legal actions with their amounts, every stack and bet and
the pot; after every betting round the pots; at the end who shows in which order, who wins
what (odd chips included) and the final stacks.

Pokerkit is the oracle for everything our rulebook does not change on purpose.  Where it
does, the harness turns pokerkit's answer into the answer our rule gives, by one named
normalisation per difference.  Which normalisations may be used is decided by the caller's
by-design table (``by_design``: key -> :class:`ByDesign`); a normalisation whose key is not
in the table is not applied, so the raw pokerkit behaviour is compared and fails.

Representation differences (not rule differences, so not in the table): pokerkit counts
seats by position (index 0 = first left of the button; heads-up index 0 posts the big
blind), keeps a folded hand's winner's bet out of the pots (we compare the final stacks
instead of the last round's pots when a hand ends by folds), and is built uncapped, in cash
game mode (folding with nothing to call is allowed, BET-04) and with one runout.

The home games' house rules (docs/rules.md section 4) are played by pokerkit too: a table with
``straddle`` posts our engine's straddle (STRAD-01) as pokerkit's third blind/straddle; a table
with ``run_twice`` leaves pokerkit's runout-count selection to the harness, which answers our
engine's question (RIT-02) at random and makes the same choice for that player in pokerkit
(``select_runout_count``: 2 for yes, 1 for no, 1 for every player not asked after a no); both
runs' cards are fed to pokerkit as ours dealt them (RIT-03) and each pot's halves are compared
board by board (RIT-04, POT-01's odd chip within a half).
"""

from __future__ import annotations

import random
import warnings
from collections import Counter, deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NoReturn

from pokerkit import (
    Automation,
    BettingStructure,
    Card,
    ChipsPushing,
    Deck,
    HoleCardsShowingOrMucking,
    Mode,
    Opening,
    StandardHighHand,
    State,
    Street,
)

from server.rules.cards import card_key, make_deck
from server.rules.events import (
    BoardDealt,
    Burned,
    Dealt,
    HandEnded,
    Mucked,
    PotAwarded,
    Showdown,
    StreetEnded,
)
from server.rules.hand import Hand
from server.rules.holdem import HOLDEM
from server.rules.options import Options
from server.rules.structure import Stakes
from server.rules.stud import STUD7
from server.rules.variant import TableRules, Variant

NUM_SEATS = 10


@dataclass(frozen=True)
class ByDesign:
    """One difference our rulebook makes on purpose: the rule, why, and how it is normalised."""

    rule: str
    reason: str
    normalisation: str


@dataclass(frozen=True)
class Game:
    name: str
    variant: Variant
    structure: str
    stakes: Stakes
    pk_structure: BettingStructure


BLINDS = (5, 10)
GAMES: dict[str, Game] = {
    "nl_holdem": Game("nl_holdem", HOLDEM, "no_limit", Stakes(blinds=BLINDS, small_bet=10),
                      BettingStructure.NO_LIMIT),
    "pl_holdem": Game("pl_holdem", HOLDEM, "pot_limit", Stakes(blinds=BLINDS, small_bet=10),
                      BettingStructure.POT_LIMIT),
    "fl_holdem": Game("fl_holdem", HOLDEM, "fixed_limit",
                      Stakes(blinds=BLINDS, small_bet=10, big_bet=20),
                      BettingStructure.FIXED_LIMIT),
    "fl_stud7": Game("fl_stud7", STUD7, "fixed_limit",
                     Stakes(ante=2, bring_in=5, small_bet=10, big_bet=20),
                     BettingStructure.FIXED_LIMIT),
}

_AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.RUNOUT_COUNT_SELECTION,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)


@dataclass
class Table:
    """The inputs of one hand: everything a reproduction needs (with the actions)."""

    game: str
    stacks: dict[int, int]
    button: int
    deck: list[str]
    heads_up_button_first_blind: bool = False
    straddle: bool = False  # STRAD-01: the seat left of the big blind straddles when it can
    run_twice: bool = False  # RIT-01..04: the players are asked, answers drawn at random

    def rules(self) -> TableRules:
        g = GAMES[self.game]
        return TableRules(structure=g.structure, stakes=g.stakes,
                          heads_up_button_first_blind=self.heads_up_button_first_blind,
                          straddle=self.straddle, run_twice=self.run_twice)


class Mismatch(AssertionError):
    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


@dataclass
class Outcome:
    table: Table
    actions: list[tuple[int, str, int | None]] = field(default_factory=list)
    used: Counter[str] = field(default_factory=Counter)
    mismatch: Mismatch | None = None
    ours: dict[str, Any] = field(default_factory=dict)
    theirs: dict[str, Any] = field(default_factory=dict)

    def repro(self) -> str:
        t = self.table
        lines = [
            f"MISMATCH {self.mismatch}",
            f"game={t.game!r} heads_up_button_first_blind={t.heads_up_button_first_blind} "
            f"straddle={t.straddle} run_twice={t.run_twice}",
            f"stacks={t.stacks!r} button={t.button}",
            f"deck={' '.join(t.deck)}",
            f"actions={self.actions!r}",
            f"ours={self.ours!r}",
            f"pokerkit={self.theirs!r}",
        ]
        return "\n".join(lines)


class _CachedHighHand(StandardHighHand):
    """Pokerkit's standard high hand, memoised per hand (its evaluation dominates the run)."""

    memo: dict[tuple[Any, ...], Any] = {}

    @classmethod
    def from_game(cls, hole_cards: Any, board_cards: Any = ()) -> Any:
        key = (tuple(Card.clean(hole_cards)), tuple(Card.clean(board_cards)))
        hit = cls.memo.get(key)
        if hit is None:
            try:
                hit = StandardHighHand.from_game(*key)
            except ValueError as exc:
                hit = exc
            cls.memo[key] = hit
        if isinstance(hit, ValueError):
            raise hit
        return hit


class _Diverged(Exception):  # noqa: N818 - a control-flow signal, not an error
    """A by-design difference after which the two engines cannot be fed the same actions."""


class _OracleState(State):
    """Pokerkit's state with a hook at the start of every betting round (opener normalisation)."""

    def _begin_betting(self) -> None:
        super()._begin_betting()
        hook = self.__dict__.get("oracle_hook")
        if hook is not None and self.actor_indices:
            hook(self)


def _streets(game: Game) -> tuple[Street, ...]:
    st = game.stakes
    if game.variant.is_stud:
        return (
            Street(False, (False, False, True), 0, False, Opening.LOW_CARD, st.small_bet, None),
            Street(True, (True,), 0, False, Opening.HIGH_HAND, st.small_bet, None),
            Street(True, (True,), 0, False, Opening.HIGH_HAND, st.big_bet, None),
            Street(True, (True,), 0, False, Opening.HIGH_HAND, st.big_bet, None),
            Street(True, (False,), 0, False, Opening.HIGH_HAND, st.big_bet, None),
        )
    small = st.small_bet
    big = st.big_bet or small
    return (
        Street(False, (False, False), 0, False, Opening.POSITION, small, None),
        Street(True, (), 3, False, Opening.POSITION, small, None),
        Street(True, (), 1, False, Opening.POSITION, big, None),
        Street(True, (), 1, False, Opening.POSITION, big, None),
    )


def _high_key(cards: list[str]) -> int:
    return max((card_key(c) for c in cards), default=-1)


class _Run:
    """One hand through both engines."""

    def __init__(self, table: Table, by_design: Mapping[str, ByDesign],
                 rng: random.Random) -> None:
        self.t = table
        self.g = GAMES[table.game]
        self.by_design = by_design
        self.rng = rng
        self.out = Outcome(table)
        self.hand = Hand(self.g.variant, table.rules(), table.stacks, button=table.button,
                         deck=table.deck, num_seats=NUM_SEATS, over_blind=table.straddle)
        order = list(self.hand.order)
        self.order = order
        n = len(order)
        self.n = n
        hu_button_blind = (table.heads_up_button_first_blind and table.button in table.stacks)
        self.hu_literal = (n == 2 and not self.g.variant.is_stud and not hu_button_blind)
        # pokerkit index -> our seat
        if self.hu_literal:
            self.seat_of = [order[1], order[0]]
        else:
            self.seat_of = list(order)
        self.idx_of = {s: i for i, s in enumerate(self.seat_of)}
        # our dealing, per street (STUD-06 dead cards excluded: pokerkit never deals them)
        self.street = 0
        self.burns: dict[int, deque[str]] = {}
        self.holes: dict[int, dict[int, deque[str]]] = {}
        self.boards: dict[int, deque[str]] = {}
        self.own: dict[int, list[str]] = {s: [] for s in order}
        self.hole: dict[int, list[str]] = {s: [] for s in order}  # POT-01: face-down cards
        self.board: list[str] = []
        self.street_pots: dict[int, tuple[Any, ...]] = {}
        self.events: list[Any] = []
        self.dealt_events: list[tuple[int, Any]] = []
        self.shows: list[tuple[int, bool]] = []
        self.pk_show_order: list[int] | None = None
        self.pk_pots_at_show: list[tuple[int, tuple[int, ...]]] | None = None
        self.pk_all_in_show = False
        self.allin_before_last: set[int] | None = None
        self.ended_by_fold = False
        self.act_log: list[tuple[int, int, str]] = []
        self.diverged = False
        # the round so far, for the ALLIN-02 and BET-10 normalisations
        self.round_street = -1
        self.seq = 0
        self.last_acted: dict[int, int] = {}
        # (seq, size, all_in, full, to, kind) of every bet, raise or completion this round
        self.raises: list[tuple[int, int, bool, bool, int, str]] = []
        self.full_raise_count = 0
        self.increment = 0
        self.run2_street = -1  # RIT-03: the street the second run is dealing now
        self.board2: list[str] = []
        self.answers: list[tuple[int, bool]] = []  # RIT-02: (seat, yes) in the order asked

    # ------------------------------------------------------------ helpers
    def use(self, key: str) -> bool:
        if key not in self.by_design:
            return False
        self.out.used[key] += 1
        return True

    def diverge(self, key: str, detail: str) -> None:
        """Stop comparing this hand, on purpose (the table entry ``key``), or fail."""
        if not self.use(key):
            self.fail(key, detail)
        self.diverged = True
        raise _Diverged(key)

    def fail(self, kind: str, detail: str) -> NoReturn:
        self.out.ours = self._our_view()
        self.out.theirs = self._pk_view()
        raise Mismatch(kind, detail)

    def _our_view(self) -> dict[str, Any]:
        h = self.hand
        view: dict[str, Any] = {"to_act": h.to_act, "street": h.street, "stacks": dict(h.stacks),
                                "bets": dict(h.bets), "pot": h.pot_total,
                                "folded": sorted(h.folded), "over": h.is_over}
        if h.to_act is not None and not h.is_over:
            view["options"] = _our_options(h.options(h.to_act))
        view["last_events"] = [repr(e) for e in self.events[-6:]]
        return view

    def _pk_view(self) -> dict[str, Any]:
        pk = self.pk
        view: dict[str, Any] = {
            "to_act": self._seat(pk.actor_index), "street": pk.street_index,
            "stacks": {self.seat_of[i]: v for i, v in enumerate(pk.stacks)},
            "bets": {self.seat_of[i]: v for i, v in enumerate(pk.bets)},
            "pot": pk.total_pot_amount if pk.status else None,
            "folded": sorted(self.seat_of[i] for i in range(self.n) if not pk.statuses[i]),
            "over": not pk.status}
        if pk.actor_index is not None:
            view["options"] = self._pk_options_raw()
        view["last_ops"] = [repr(o) for o in pk.operations[-6:]]
        return view

    def _seat(self, idx: int | None) -> int | None:
        return None if idx is None else self.seat_of[idx]

    # ------------------------------------------------------- our events
    def absorb(self, events: list[Any]) -> None:
        for e in events:
            self.events.append(e)
            if isinstance(e, Dealt):
                self.dealt_events.append((self.street, e))
                if not e.dead:
                    q = self.holes.setdefault(self.street, {}).setdefault(e.seat, deque())
                    q.extend(e.cards)
                    self.own[e.seat].extend(e.cards)
                    self.hole[e.seat].extend(c for c, up in zip(e.cards, e.up, strict=True)
                                             if not up)
            elif isinstance(e, Burned):
                self.burns.setdefault(self._dealing_street(), deque()).append(e.card)
            elif isinstance(e, BoardDealt):
                street = self._dealing_street()
                self.boards.setdefault(street, deque()).extend(e.cards)
                if e.run:  # RIT-03: the second run, street by street
                    self.board2 = list(e.board)
                    self.run2_street += 1
                else:
                    self.board.extend(e.cards)
                self.dealt_events.append((street, e))
            elif isinstance(e, StreetEnded):
                self.street_pots[e.street] = e.pots
                self.street = e.street + 1
            elif isinstance(e, Showdown):
                self.shows.append((e.seat, True))
            elif isinstance(e, Mucked):
                self.shows.append((e.seat, False))

    def _dealing_street(self) -> int:
        """The street our cards belong to: past the last street, the second run's (RIT-03)."""
        if self.street < len(self.g.variant.streets):
            return self.street
        if self.run2_street < 0:
            self.run2_street = self.hand.runout_from
        return self.run2_street

    # -------------------------------------------------------- pokerkit
    def build_pk(self) -> None:
        g = self.g
        st = g.stakes
        stacks = [self.t.stacks[s] for s in self.seat_of]
        blinds: Any = st.blinds if st.blinds else 0
        if self.hand.over_blind_seat is not None:  # STRAD-01: pokerkit's third blind
            assert self.seat_of[2] == self.hand.over_blind_seat
            blinds = (*st.blinds, 2 * st.blinds[-1])
        automations = tuple(a for a in _AUTOMATIONS if not (
            self.t.run_twice and a is Automation.RUNOUT_COUNT_SELECTION))
        self.pk = _OracleState(
            automations, Deck.STANDARD, (_CachedHighHand,), _streets(g), g.pk_structure,
            True, st.ante, blinds, st.bring_in, stacks, self.n,
            mode=Mode.CASH_GAME)
        self.pk.oracle_hook = self._opener_hook  # type: ignore[attr-defined]
        self.pk_snap: dict[int, list[tuple[int, tuple[int, ...]]]] = {}

    def _pk_pots(self) -> list[tuple[int, tuple[int, ...]]]:
        return [(p.amount, tuple(sorted(self.seat_of[i] for i in p.player_indices)))
                for p in self.pk.pots]

    def _opener_hook(self, pk: State) -> None:
        """Who opens a round, where our rulebook differs from pokerkit's position rule."""
        street = pk.street_index
        assert street is not None
        want: int | None = None
        if self.hu_literal and street > 0 and self.use("BLIND-01/heads-up"):
            want = self.idx_of[self.order[0]]  # BET-04: first left of the button
        elif self.g.variant.is_stud and street == 0:
            opener = pk.opener_index
            assert opener is not None
            if pk.stacks[opener] == 0 and self.use("STUD-04/bring-in"):
                able = [i for i in range(self.n) if pk.stacks[i] > 0 and pk.statuses[i]]
                want = min(able, key=lambda i: card_key(self._last_up(i)))
        elif self.g.variant.is_stud:
            entries = {i: pk._State__high_hand_opening_lookup.get_entry_or_none(  # type: ignore
                tuple(pk.get_up_cards(i))) for i in range(self.n) if pk.statuses[i]}
            top = max(entries.values())
            tied = [i for i, e in entries.items() if e == top]
            if len(tied) > 1 and self.use("STUD-03/ties"):
                want = max(tied, key=lambda i: _high_key(self._up_cards(i)))
        if want is None:
            return
        actors = pk.actor_indices
        for k in range(self.n):
            i = (want + k) % self.n
            if i in actors:
                while actors[0] != i:
                    actors.rotate(-1)
                pk.opener_index = i
                break

    def _up_cards(self, i: int) -> list[str]:
        seat = self.seat_of[i]
        cards = self.own[seat]
        ups = [c for k, c in enumerate(cards) if k >= 2 and k < 6]  # 3rd..6th street up
        return ups

    def _last_up(self, i: int) -> str:
        return self._up_cards(i)[-1]

    def pk_advance(self) -> None:
        """Run pokerkit's dealer steps (burn, deal, show) until a player must act or it ends."""
        pk = self.pk
        while pk.status and pk.actor_index is None:
            street = pk.street_index
            if street is None:  # chips being pushed and pulled: automated
                break
            if any(pk.runout_count_selector_statuses):  # RIT-02: answered with ours (step)
                break
            if pk.card_burning_status or any(pk.hole_dealing_statuses) or any(
                    pk.board_dealing_counts):
                if street > 0 and street - 1 not in self.pk_snap:
                    self.pk_snap[street - 1] = self._pk_pots()
                if street == len(pk.streets) - 1 and self.allin_before_last is None:
                    self.allin_before_last = {self.seat_of[i] for i in range(self.n)
                                              if pk.statuses[i] and pk.stacks[i] == 0}
                self._pk_deal(street)
                continue
            if pk.showdown_index is not None:
                self._pk_show()
                continue
            self.fail("pokerkit-stuck", "pokerkit waits for an operation the harness lacks")

    def _pk_deal(self, street: int) -> None:
        pk = self.pk
        if pk.card_burning_status:
            q = self.burns.get(street)
            if not q:
                self.fail("deal", f"pokerkit burns before street {street}; we burned nothing")
            pk.burn_card(q.popleft())
            return
        if any(pk.hole_dealing_statuses):
            i = pk.hole_dealee_index
            assert i is not None  # pokerkit names the dealee while it deals hole cards
            seat = self.seat_of[i]
            q = self.holes.get(street, {}).get(seat)
            if not q and self.g.variant.is_stud and self.boards.get(street):
                self.diverge("STUD-05", "ours turned a community card, pokerkit deals on")
            if not q:
                self.fail("deal", f"pokerkit deals seat {seat} a card on street {street}; "
                                  "our engine dealt it none")
            pk.deal_hole(q.popleft(), player_index=i)
            return
        q = self.boards.get(street)
        need = pk.board_dealing_count
        assert need is not None  # neither burning nor dealing hole cards: dealing the board
        if not q or len(q) < need:
            self.fail("deal", f"pokerkit deals {need} board cards on street {street}; "
                              f"ours dealt {list(q or ())}")
        pk.deal_board("".join(q.popleft() for _ in range(need)))

    def _pk_show(self) -> None:
        pk = self.pk
        if self.pk_show_order is None:
            self.pk_show_order = [self.seat_of[i] for i in pk.showdown_indices]
            self.pk_pots_at_show = self._pk_pots()
            self.pk_all_in_show = pk.all_in_status
            street = pk.street_index
            assert street is not None  # pokerkit keeps the last street's index at showdown
            self.pk_snap.setdefault(street, self.pk_pots_at_show)
        i = pk.showdown_index
        assert i is not None  # called only while pokerkit has a showdown index
        if pk.all_in_status:
            pk.show_or_muck_hole_cards(True)  # pokerkit turns every hand over (runout)
        else:
            pk.show_or_muck_hole_cards(pk.can_win_now(i))

    # ---------------------------------------------------------- options
    def _pk_options_raw(self) -> dict[str, Any]:
        pk = self.pk
        i = pk.actor_index
        assert i is not None  # asked only while somebody is to act
        d: dict[str, Any] = {}
        if not pk.bring_in_status:
            d["fold"] = True
            a = pk.checking_or_calling_amount
            if a == 0:
                d["check"] = True
            elif a is not None:
                d["call"] = pk.bets[i] + a
        else:
            bring_in = pk.effective_bring_in_amount
            assert bring_in is not None  # bring_in_status
            d["bring_in"] = pk.bets[i] + bring_in
        lo = pk.min_completion_betting_or_raising_to_amount
        if lo is not None:
            hi = pk.max_completion_betting_or_raising_to_amount
            if pk.completion_status:
                d["complete"] = (lo, hi)
            elif max(pk.bets) == 0:
                d["bet"] = (lo, hi)
            else:
                d["raise"] = (lo, hi)
        return d

    def pk_options(self) -> dict[str, Any]:
        """Pokerkit's options, turned into our rulebook's where it differs on purpose."""
        pk = self.pk
        d = self._pk_options_raw()
        i = pk.actor_index
        assert i is not None  # _pk_options_raw checked it
        seat = self.seat_of[i]
        if "raise" in d:
            live = sum(pk.statuses)
            if (self.g.structure == "fixed_limit" and live > 2 and self.full_raise_count >= 3
                    and self.use("BET-10")):
                del d["raise"]
            elif seat in self.last_acted:
                since = [r for r in self.raises if r[0] > self.last_acted[seat]]
                if (since and not any(r[3] for r in since)
                        and all(r[2] for r in since) and self.use("ALLIN-02")):
                    del d["raise"]
        if ("complete" in d and "bring_in" in d and d["complete"][0] == d["bring_in"]
                and self.use("STUD-02/short")):
            del d["complete"]
        if "raise" in d and self._straddled_round():  # STRAD-01: raise by the straddle
            lo, hi = d["raise"]
            want = min(max(pk.bets) + 2 * self.g.stakes.blinds[-1], hi)
            if lo != want and self.use("STRAD-01"):
                d["raise"] = (want, hi)
        return d

    def _straddled_round(self) -> bool:
        """The first round after a straddle, before any full raise (STRAD-01)."""
        return (self.hand.over_blind_seat is not None and self.pk.street_index == 0
                and not any(r[3] for r in self.raises))

    def pk_skip_no_opponent(self) -> None:
        """ALLIN-04: no turn for a player who owes nothing when nobody else can bet."""
        pk = self.pk
        while pk.status and pk.actor_index is not None:
            i = pk.actor_index
            others = [j for j in range(self.n) if j != i and pk.statuses[j] and pk.stacks[j] > 0]
            if (pk.bets[i] >= max(pk.bets) and not others and not pk.bring_in_status
                    and self.use("ALLIN-04")):
                pk.check_or_call()
                self.pk_advance()
                continue
            break

    # ------------------------------------------------------------- play
    def start(self) -> None:
        self.absorb(self.hand.start())
        self.build_pk()
        st = self.g.stakes
        if st.blinds and max(self.pk.bets) < st.blinds[-1]:
            # BET-03: the call is the whole last blind even when its poster is short
            if not self.use("BET-03/short-blind"):
                return
            self.diverged = True
            h = self.hand
            if h.to_act is not None:
                o = h.options(h.to_act)
                assert o is not None  # the seat to act has options
                want = min(st.blinds[-1], h.bets[h.to_act] + h.stacks[h.to_act])
                if o.call is not None and o.call != want:
                    self.fail("BET-03", f"call {o.call}, the last blind is {want}")

    def step(self) -> bool:
        """One decision; False when the hand is over in both engines."""
        self.pk_advance()
        self.pk_skip_no_opponent()
        h, pk = self.hand, self.pk
        if h.is_over or not pk.status:
            if h.is_over != (not pk.status):
                self.fail("end", f"ours over={h.is_over}, pokerkit over={not pk.status}")
            return False
        if h.runout_ask or any(pk.runout_count_selector_statuses):
            self._answer_runout()
            return True
        seat = h.to_act
        if seat != self._seat(pk.actor_index) or seat is None:
            self.fail("turn", f"ours seat {seat}, pokerkit seat {self._seat(pk.actor_index)}")
        street = pk.street_index
        if street is None or street != h.street:
            self.fail("street", f"ours {h.street}, pokerkit {street}")
        if street != self.round_street:
            self._new_round(street)
        for s in self.order:
            i = self.idx_of[s]
            if h.stacks[s] != pk.stacks[i] or h.bets[s] != pk.bets[i]:
                self.fail("chips", f"seat {s}: ours stack {h.stacks[s]} bet {h.bets[s]}, "
                                   f"pokerkit stack {pk.stacks[i]} bet {pk.bets[i]}")
        if h.pot_total != pk.total_pot_amount:
            self.fail("pot", f"ours {h.pot_total}, pokerkit {pk.total_pot_amount}")
        opts = h.options(seat)
        if opts is None:
            self.fail("options", f"seat {seat} is to act and has no options")
        mine = _our_options(opts)
        theirs = self.pk_options()
        if ("raise" in theirs and "complete" in mine and self.pk.completion_status is False
                and self.g.variant.is_stud and street == 0 and self._short_completion()):
            want = min(self.g.stakes.small_bet, h.bets[seat] + h.stacks[seat])
            if mine["complete"] != (want, want):
                self.fail("STUD-02", f"after a short all-in completion: ours {mine}")
            self.diverge("STUD-02/short-complete", "pokerkit raises over a short completion")
        if mine != theirs:
            self.fail("options", f"seat {seat}: ours {mine}, pokerkit {theirs}")
        kind, amount = _choose(self.rng, mine, opts)
        if (kind == "raise" and amount is not None and self._straddled_round()
                and amount - max(pk.bets) < 2 * self.g.stakes.blinds[-1]):
            self.diverge("STRAD-01", "an all-in raise smaller than the straddle's size")
        self._note(seat, kind, amount)
        self.out.actions.append((seat, kind, amount))
        self.act_log.append((street, seat, kind))
        self.absorb(h.act(seat, kind, amount))
        if kind == "fold":
            pk.fold()
        elif kind in ("check", "call"):
            pk.check_or_call()
        elif kind == "bring_in":
            pk.post_bring_in()
        else:
            pk.complete_bet_or_raise_to(amount)
        return True

    def _answer_runout(self) -> None:
        """RIT-02: our question and pokerkit's runout-count selection, answered alike."""
        h, pk = self.hand, self.pk
        seat = h.to_act
        if not h.runout_ask or seat is None:
            self.fail("RIT-01", "pokerkit selects a runout count; our engine asks nobody")
        assert seat is not None
        selectors = {self.seat_of[i] for i in range(self.n) if pk.runout_count_selector_statuses[i]}
        if not self.answers and set(h.runout_ask) != selectors:
            self.fail("RIT-02", f"ours asks {h.runout_ask}, pokerkit's selectors {selectors}")
        yes = self.rng.random() < 0.75
        self.answers.append((seat, yes))
        self.out.actions.append((seat, "run_twice" if yes else "run_once", None))
        self.absorb(h.act(seat, "run_twice" if yes else "run_once"))
        # pokerkit 0.7.7's select_runout_count hands its player_index to the verifier as the
        # runout count, so it is called without one: it answers for its next selector. The
        # count it settles on depends only on whether every answer is 2, not on the order.
        pk.select_runout_count(2 if yes else 1)
        while not yes and any(pk.runout_count_selector_statuses):  # the question ended
            pk.select_runout_count(1)

    def _short_completion(self) -> bool:
        """The round's only completion so far was an all-in below the full bet."""
        done = [r for r in self.raises if r[5] == "complete"]
        return bool(done) and all(r[2] and r[4] < self.g.stakes.small_bet for r in done)

    def _new_round(self, street: int) -> None:
        self.round_street = street
        self.seq = 0
        self.last_acted = {}
        self.raises = []
        self.full_raise_count = 0
        st = self.g.stakes
        big = self.g.variant.streets[street].big
        if self.g.structure == "fixed_limit":
            self.increment = st.big_bet if big else st.small_bet
        else:
            self.increment = st.blinds[-1] if st.blinds else st.small_bet
            if street == 0 and self.hand.over_blind_seat is not None:  # STRAD-01
                self.increment = 2 * st.blinds[-1]

    def _note(self, seat: int, kind: str, amount: int | None) -> None:
        """Track the round for the BET-10 and ALLIN-02 normalisations."""
        pk = self.pk
        i = self.idx_of[seat]
        self.seq += 1
        current = max(pk.bets)
        if kind in ("bet", "raise", "complete") and amount is not None and amount > current:
            size = amount - current
            all_in = amount == pk.bets[i] + pk.stacks[i]
            if kind == "complete":
                full = amount >= self.g.stakes.small_bet
            elif self.g.structure == "fixed_limit":
                full = size >= self.increment
            else:
                full = size >= self.increment
                if full:
                    self.increment = size
            if kind == "raise" and full:
                self.full_raise_count += 1
            self.raises.append((self.seq, size, all_in, full, amount, kind))
        self.last_acted[seat] = self.seq

    # ------------------------------------------------------------ finish
    def finish(self) -> None:
        h, pk = self.hand, self.pk
        if self.diverged:
            return
        self._check_dealing()
        awards = [e for e in self.events if isinstance(e, PotAwarded)]
        ended = next(e for e in self.events if isinstance(e, HandEnded))
        self.ended_by_fold = len(h.live) == 1
        # pots after every betting round (the round a fold ended is compared by the stacks)
        last = max(self.street_pots, default=-1)
        for street, pots in sorted(self.street_pots.items()):
            if self.ended_by_fold and street == last:
                continue
            snaps = [k for k in self.pk_snap if k <= street]
            if not snaps:
                self.fail("pots", f"street {street}: pokerkit has no pots to compare")
            theirs = self.pk_snap[max(snaps)]
            if list(pots) != theirs:
                self.fail("pots", f"after street {street}: ours {list(pots)}, "
                                  f"pokerkit {theirs}")
        pushed = [0] * self.n
        for op in pk.operations:
            if isinstance(op, ChipsPushing):
                for i, a in enumerate(op.amounts):
                    pushed[i] += a
        final = {self.seat_of[i]: v for i, v in enumerate(pk.stacks)}
        if not self.ended_by_fold and h.runs == 2:
            final = self._check_two_runs(awards, pushed, final)
        elif not self.ended_by_fold:
            final = self._check_showdown(awards, pushed, final)
        if dict(ended.stacks) != final:
            self.fail("stacks", f"final: ours {dict(ended.stacks)}, pokerkit {final}")

    def _check_dealing(self) -> None:
        """HOLD-01/HOLD-02: hole cards one at a time from the button's left, burn before each
        board card round; stud (STUD-01): round-robin per street, burns, deck order."""
        deck = self.t.deck
        h = self.hand
        if not self.g.variant.is_stud:
            n = self.n
            first_free = 2 * n + 8  # RIT-03: the second run's cards come after the first's
            for street, e in self.dealt_events:
                if isinstance(e, BoardDealt) and e.run:
                    for c, p in zip(e.cards, e.positions, strict=True):
                        if p < first_free or deck[p] != c:
                            self.fail("RIT-03", f"{e!r}: deck[{p}] is {deck[p]}")
                    continue
                if isinstance(e, Dealt):
                    j = self.order.index(e.seat)
                    want: tuple[str, ...] = (deck[j], deck[n + j])
                else:
                    start = {1: 2 * n + 1, 2: 2 * n + 5, 3: 2 * n + 7}[street]
                    want = tuple(deck[start:start + len(e.cards)])
                if tuple(e.cards) != want:
                    self.fail("deal", f"street {street}: {e!r}, expected {want}")
            burns = [e for e in self.events if isinstance(e, Burned)][:3]  # the first run's
            for k, b in enumerate(burns):
                want_pos = (2 * n, 2 * n + 4, 2 * n + 6)[k]
                if (b.position, b.card) != (want_pos, deck[want_pos]):
                    self.fail("deal", f"burn {k}: {b!r}, expected {deck[want_pos]}@{want_pos}")
            return
        for _street, e in self.dealt_events:
            for c, p in zip(e.cards, e.positions, strict=True):
                if p < len(deck) and deck[p] != c:
                    self.fail("deal", f"{e!r}: deck[{p}] is {deck[p]}")
            if isinstance(e, Dealt) and e.dead and e.seat not in h.folded:
                self.fail("STUD-06", f"dead cards to a seat in the hand: {e!r}")

    def _check_two_runs(self, awards: list[PotAwarded], pushed: list[int],
                        final: dict[int, int]) -> dict[int, int]:
        """RIT-03/RIT-04 against pokerkit's two runouts: every hand still in shown (in the
        SHOW-01 order); each pokerkit pot halved (its odd chip to the first board), each half
        split on its own board among its best hands, POT-01's odd chip within a half."""
        if self.pk.runout_count != 2 or not all(yes for _, yes in self.answers):
            self.fail("RIT-02", f"ours ran twice, pokerkit runout count {self.pk.runout_count}")
        self.out.used["RIT-two-runs"] += 1  # a count of the hands compared on two boards
        if self.pk_pots_at_show is None:
            self.fail("showdown", "ours went to a showdown, pokerkit did not")
        assert self.pk_pots_at_show is not None
        order = self._expected_show_order()
        if self.shows != [(s, True) for s in order]:
            self.fail("RIT-03", f"ours {self.shows}, every hand in {order} shown")
        boards = ("".join(self.board), "".join(self.board2))
        expected: list[tuple[int, dict[int, int]]] = []
        slack = 0
        for run, board in enumerate(boards):
            value = {s: _CachedHighHand.from_game("".join(self.own[s]), board) for s in order}
            for amount, eligible in self.pk_pots_at_show:
                half = amount - amount // 2 if run == 0 else amount // 2  # pokerkit's divmod
                slack += amount % 2 if run == 0 else 0  # RIT-04: a merged pot's odd chip
                if not half:
                    continue
                top = max(value[s] for s in eligible)
                winners = [s for s in eligible if value[s] == top]
                each, rem = divmod(half, len(winners))
                slack += rem
                shares = dict.fromkeys(winners, each)
                if rem:
                    self.use("POT-01")
                    shares[max(winners, key=lambda s: _high_key(self.hole[s]))] += rem
                expected.append((half, shares))
        got = [(a.amount, dict(a.winners)) for a in awards]
        if got != expected:
            self.fail("RIT-04 awards", f"ours {got}, expected {expected}")
        total: Counter[int] = Counter()
        for _, shares in expected:
            total.update(shares)
        pk_total = {self.seat_of[i]: a for i, a in enumerate(pushed) if a}
        diff = {s: total.get(s, 0) - pk_total.get(s, 0) for s in set(total) | set(pk_total)}
        net: int = sum(diff.values())
        if sum(abs(d) for d in diff.values()) > 2 * slack or net:
            self.fail("RIT-04", f"expected {dict(total)}, pokerkit pushed {pk_total}")
        if any(diff.values()) and not self.use("RIT-04"):
            self.fail("RIT-04", f"odd chips: expected {dict(total)}, pokerkit {pk_total}")
        return {s: v + diff.get(s, 0) for s, v in final.items()}

    def _expected_show_order(self) -> list[int]:
        """SHOW-01: the last round's aggressor, else its first actor (or the next player
        clockwise still in), else (nobody acted in the hand) the first left of the button;
        then clockwise.  Pokerkit starts at the round's position instead of its first actor."""
        live = [s for s in self.order if s not in self.hand.folded]
        acts = self.act_log
        if acts:
            last = max(st for st, _, _ in acts)
            this = [(seat, kind) for st, seat, kind in acts if st == last]
            aggr = [seat for seat, kind in this
                    if kind in ("bet", "raise", "complete", "bring_in")]
            start = aggr[-1] if aggr and aggr[-1] in live else this[0][0]
            k = self.order.index(start)
        else:
            k = 0
        rotated = self.order[k:] + self.order[:k]
        return [s for s in rotated if s in live]

    def _check_showdown(self, awards: list[PotAwarded], pushed: list[int],
                        final: dict[int, int]) -> dict[int, int]:
        """SHOW-01 order and show/muck, POT-01 split and odd chip, against pokerkit."""
        if self.pk_show_order is None or self.pk_pots_at_show is None:
            self.fail("showdown", "ours went to a showdown, pokerkit did not")
        assert self.pk_show_order is not None and self.pk_pots_at_show is not None
        board = self.board
        value = {s: _CachedHighHand.from_game("".join(self.own[s]), "".join(board))
                 for s in self.pk_show_order}
        pots = self.pk_pots_at_show
        order = self._expected_show_order()
        if order != self.pk_show_order and not self.use("SHOW-01"):
            order = self.pk_show_order
        expected_show: dict[int, bool] = {}
        best: dict[int, Any] = {}
        early = self.allin_before_last or set()
        for s in order:
            mine = [k for k, (_, el) in enumerate(pots) if s in el]
            must = any(k not in best or value[s] >= best[k] for k in mine)
            if s in early and not must and self.use("SHOW-01"):
                must = True
            expected_show[s] = must
            if must:
                for k in mine:
                    if k not in best or value[s] > best[k]:
                        best[k] = value[s]
        if not self.pk_all_in_show:
            theirs = {}
            for op in self.pk.operations:
                if isinstance(op, HoleCardsShowingOrMucking):
                    theirs[self.seat_of[op.player_index]] = bool(op.hole_cards)
            if order == self.pk_show_order and theirs != expected_show:
                self.fail("SHOW-01 harness", f"pokerkit {theirs}, harness {expected_show}")
        elif not self.use("SHOW-01"):
            expected_show = dict.fromkeys(order, True)
        if self.shows != list(expected_show.items()):
            self.fail("SHOW-01", f"ours {self.shows}, expected {list(expected_show.items())} "
                                 f"(pokerkit order {self.pk_show_order})")
        shown = {s for s, v in expected_show.items() if v}
        # POT-01: each pokerkit pot split on its own among its best shown hands
        expected: list[tuple[int, dict[int, int]]] = []
        slack = 0
        for amount, eligible in pots:
            contenders = [s for s in eligible if s in shown]
            top = max(value[s] for s in contenders)
            winners = [s for s in contenders if value[s] == top]
            each, rem = divmod(amount, len(winners))
            slack += rem
            shares = dict.fromkeys(winners, each)
            if rem:
                first = min(winners, key=lambda s: self.idx_of[s])  # pokerkit's odd chip
                odd = max(winners, key=lambda s: _high_key(self.hole[s]))
                if odd != first and not self.use("POT-01"):
                    odd = first
                shares[odd] += rem
            expected.append((amount, shares))
        got = [(a.amount, dict(a.winners)) for a in awards]
        if got != expected:
            self.fail("POT-01 awards", f"ours {got}, expected {expected}")
        total: Counter[int] = Counter()
        for _, shares in expected:
            total.update(shares)
        pk_total = {self.seat_of[i]: a for i, a in enumerate(pushed) if a}
        diff = {s: total.get(s, 0) - pk_total.get(s, 0) for s in set(total) | set(pk_total)}
        net: int = sum(diff.values())
        if sum(abs(d) for d in diff.values()) > 2 * slack or net:
            self.fail("awards", f"expected {dict(total)}, pokerkit pushed {pk_total}")
        if any(diff.values()) and not self.use("POT-01"):
            self.fail("POT-01", f"odd chips: expected {dict(total)}, pokerkit {pk_total}")
        return {s: v + diff.get(s, 0) for s, v in final.items()}


def _our_options(o: Options | None) -> dict[str, Any]:
    assert o is not None
    d: dict[str, Any] = {}
    if o.fold:
        d["fold"] = True
    if o.check:
        d["check"] = True
    if o.call is not None:
        d["call"] = o.call
    if o.bring_in is not None:
        d["bring_in"] = o.bring_in
    if o.complete is not None:
        d["complete"] = (o.complete, o.complete)
    if o.bet is not None:
        d["bet"] = tuple(o.bet)
    if o.raise_ is not None:
        d["raise"] = tuple(o.raise_)
    return d


def _choose(rng: random.Random, d: dict[str, Any], o: Options) -> tuple[str, int | None]:
    """A random legal action: fold/check/call, min-raise, max, all-in or a random amount."""
    weights = {"fold": 2, "check": 5, "call": 6, "bet": 3, "raise": 3, "bring_in": 3,
               "complete": 2}
    kinds = [k for k in d if k in weights]
    kind = rng.choices(kinds, [weights[k] for k in kinds])[0]
    if kind in ("bet", "raise"):
        lo, hi = d[kind]
        r = rng.random()
        if r < 0.4:
            return kind, lo
        if r < 0.6:
            return kind, hi
        return kind, rng.randint(lo, hi)
    if kind == "call":
        return kind, None
    if kind == "bring_in":
        return kind, d["bring_in"]
    if kind == "complete":
        return kind, d["complete"][0]
    return kind, None


def play_differential(table: Table, by_design: Mapping[str, ByDesign],
                      rng: random.Random) -> Outcome:
    """Play one hand through both engines; the outcome carries any mismatch and its repro."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _CachedHighHand.memo.clear()
        run = _Run(table, by_design, rng)
        try:
            run.start()
            if not run.diverged:
                guard = 0
                while run.step():
                    guard += 1
                    if guard > 400:
                        run.fail("loop", "the hand does not end")
                run.finish()
        except _Diverged:
            pass
        except Mismatch as exc:
            run.out.mismatch = exc
        except Exception as exc:  # pokerkit refused what we fed it: a difference too
            run.out.mismatch = Mismatch("pokerkit-refused", f"{type(exc).__name__}: {exc}")
            run.out.ours = run._our_view()
            try:
                run.out.theirs = run._pk_view()
            except Exception:  # noqa: BLE001 - best effort for the report
                run.out.theirs = {}
    return run.out


def random_table(rng: random.Random, game: str) -> Table:
    """Random seats (2..10 of 10, gaps, seat 0 often, dead buttons), stacks short to deep."""
    variant = GAMES[game].variant
    top = min(variant.max_seats, NUM_SEATS)
    n = 2 if rng.random() < 0.25 else rng.randint(3, top)
    seats = set(rng.sample(range(NUM_SEATS), n))
    if 0 not in seats and rng.random() < 0.5:
        seats.discard(rng.choice(sorted(seats)))
        seats.add(0)
    empty = [s for s in range(NUM_SEATS) if s not in seats]
    button = rng.choice(empty) if empty and rng.random() < 0.2 else rng.choice(sorted(seats))

    def stack() -> int:
        r = rng.random()
        if r < 0.06:
            return 1
        if r < 0.14:
            return rng.randint(2, 9)
        if r < 0.3:
            return rng.randint(10, 60)
        if r < 0.8:
            return rng.randint(61, 400)
        return rng.randint(1000, 5000)

    stacks = {s: stack() for s in sorted(seats)}
    hu_first = n == 2 and rng.random() < 0.5
    deck = list(make_deck())
    rng.shuffle(deck)
    table = Table(game, stacks, button, deck, hu_first)
    blinds = GAMES[game].stakes.blinds
    if blinds and rng.random() < 0.85:  # keep most big blinds whole (BET-03 short blind)
        order = sorted(stacks, key=lambda s: (s - button - 1) % NUM_SEATS)
        bb = order[1]
        if n == 2 and hu_first and button in stacks:
            bb = order[0]
        if stacks[bb] < blinds[-1]:
            stacks[bb] = rng.randint(blinds[-1], 400)
    return table

