"""The state every part of a hand shares, and its small helpers.

:class:`HandState` declares the fields; the behaviour lives in mixins by
concept (:mod:`~server.rules.dealing`, :mod:`~server.rules.betting`,
:mod:`~server.rules.showdown`) joined in :class:`~server.rules.hand.Hand`.
"""

from __future__ import annotations

from collections.abc import Collection

from server.rules.evaluate import HandValue
from server.rules.events import Event
from server.rules.options import Options
from server.rules.pots import Pot
from server.rules.structure import Stakes
from server.rules.variant import TableRules, Variant


class HandState:
    """Fields of a hand in progress (see :class:`~server.rules.hand.Hand`)."""

    variant: Variant
    rules: TableRules
    stakes: Stakes
    num_seats: int
    button: int
    hand_id: str
    seed: bytes
    want_over_blind: bool
    ask_over_blind: bool
    blind_plan: tuple[int | None, ...] | None
    entry_posts: frozenset[int]
    initial: dict[int, int]
    stacks: dict[int, int]
    order: list[int]
    contrib: dict[int, int]
    bets: dict[int, int]
    folded: set[int]
    _live: list[int]
    _after: dict[int, tuple[int, ...]]
    _opts_cache: Options | None
    own: dict[int, list[str]]
    up: dict[int, list[bool]]
    board: list[str]
    deck: list[str]
    street: int
    to_act: int | None
    is_over: bool
    voided: bool
    _events: list[Event]
    # dealing
    stock: list[str]
    pos: int
    burns: list[str]
    discards: dict[int, list[str]]
    draw_pending: bool
    reshuffles: int
    community: list[str]
    # betting
    current: int
    increment: int
    full_level: int
    raises: int
    acted_level: dict[int, int]
    pending: set[int]
    round_first: int | None
    aggressor: int | None
    round_played: bool
    last_round_aggressor: int | None
    last_round_first: int | None
    bring_in_seat: int | None
    completed: bool
    blind_seats: list[int]
    over_blind_seat: int | None
    over_blind_ask: int | None
    wagered: bool
    dead: set[int]
    _first_actor: int | None
    _last_actor: int
    # showdown
    values: dict[int, HandValue]
    shown: list[int]
    mucked: list[int]
    revealed: set[int]
    all_in_early: set[int]
    rake: int
    # run it twice (RIT, a home game's house rule)
    runs: int
    runout_ask: list[int]
    runout_next: bool
    runout_from: int
    runout_board: int
    board2: list[str]
    show_ask: int | None  # SHOWWIN-01: the uncontested winner asked whether to show

    def _emit(self, event: Event) -> None:
        self._events.append(event)

    @property
    def live(self) -> list[int]:
        """Seats still in the hand, in dealing order (a fresh list)."""
        return list(self._live)

    def _fold(self, seat: int) -> None:
        """Mark ``seat`` folded; ``_live`` (the cached ``live``) follows."""
        self.folded.add(seat)
        self._live = [s for s in self.order if s not in self.folded]

    @property
    def pot_total(self) -> int:
        """Every chip in the middle, this round's bets included."""
        return sum(self.contrib.values())

    def cards_of(self, seat: int) -> list[str]:
        """The seat's own cards (hole and up cards), in the order received."""
        return self.own[seat]

    def _next_seat(self, seat: int, candidates: Collection[int]) -> int | None:
        """The first seat of ``candidates`` clockwise after ``seat`` (``seat`` itself last)."""
        after = self._after.get(seat)
        if after is None:  # the hand's seats clockwise after ``seat`` (``seat`` last)
            n = self.num_seats
            after = self._after[seat] = tuple(
                sorted(self.order, key=lambda x: (x - seat - 1) % n))
        for s in after:
            if s in candidates:
                return s
        # candidates outside the hand, or none at all: never from the engine itself, whose
        # candidates are always some of the hand's seats
        pool = set(candidates)  # pragma: no cover
        for step in range(1, self.num_seats + 1):  # pragma: no cover
            s = (seat + step) % self.num_seats
            if s in pool:
                return s
        return None  # pragma: no cover

    # implemented by the mixins
    def _start_betting(self) -> None:
        raise NotImplementedError

    def _begin_street(self) -> None:
        raise NotImplementedError

    def _note_last_street(self) -> None:
        raise NotImplementedError

    def _betting_open(self) -> bool:
        raise NotImplementedError

    def _options(self, seat: int) -> Options:
        raise NotImplementedError

    def _validate_draw(self, opts: Options, discard: tuple[str, ...]) -> None:
        raise NotImplementedError

    def _spare_for_draw(self, seat: int) -> int:
        raise NotImplementedError

    def _apply_draw(self, seat: int, discard: tuple[str, ...], *, timeout: bool) -> None:
        raise NotImplementedError

    def _answer_runout(self, seat: int, yes: bool, *, timeout: bool) -> None:
        raise NotImplementedError

    def _answer_show(self, seat: int, show: bool, *, timeout: bool) -> None:
        raise NotImplementedError

    def _burn(self) -> None:
        raise NotImplementedError

    def _take(self) -> tuple[str, int]:
        raise NotImplementedError

    def _left(self) -> int:
        raise NotImplementedError

    def _show_order(self) -> list[int]:
        raise NotImplementedError

    def _finish(self) -> None:
        raise NotImplementedError

    def _raked(self, pots: list[Pot]) -> list[Pot]:
        raise NotImplementedError

    def _showdown_twice(self) -> None:
        raise NotImplementedError

    def hole_cards(self, seat: int) -> list[str]:
        raise NotImplementedError
