"""What a seat may do now, and the actions it can send.

:class:`Options` is the engine's answer to "what may this seat do?"; the
table sends it with ``turn`` and the engine accepts exactly what it offers
(and refuses everything else with a reason).  Every amount is the total the
seat's bet in this round becomes ("raise to").
"""

from __future__ import annotations

from dataclasses import dataclass

from server.rules.frozen import maker, quick_init
from server.rules.vocabulary import Action

# the members of `Action` under the names the engine has always used
FOLD = Action.FOLD
CHECK = Action.CHECK
CALL = Action.CALL
BET = Action.BET
RAISE = Action.RAISE
BRING_IN = Action.BRING_IN
COMPLETE = Action.COMPLETE
DRAW = Action.DRAW
OVER_BLIND = Action.OVER_BLIND
DECLINE = Action.DECLINE
RUN_TWICE = Action.RUN_TWICE
RUN_ONCE = Action.RUN_ONCE
SHOW = Action.SHOW
MUCK = Action.MUCK
ACTIONS: tuple[Action, ...] = tuple(Action)
# the Options field that offers each action other than fold and check (None: not offered)
_OFFER_FIELDS: dict[str, str] = {CALL: "call", BET: "bet", RAISE: "raise_",
                                 BRING_IN: "bring_in", COMPLETE: "complete", DRAW: "draw",
                                 OVER_BLIND: "over_blind"}


@dataclass(frozen=True, slots=True)
class Options:
    """Legal choices of ``seat``; ``None`` means "not offered".

    ``call``: the bet total after calling (a short stack calls all-in).
    ``bet`` / ``raise_``: ``(min_to, max_to)``; when the stack cannot reach
    ``min_to`` both are the all-in total (tapping out, ALLIN-01).
    ``bring_in`` / ``complete``: the stud first-round amounts (STUD-02).
    ``draw``: the most cards the seat may discard (DRAW-03).
    ``over_blind``: the Draw over blind the seat is asked about before the deal (BLIND-04:
    exactly double the last blind), with ``decline`` (do not post it); nothing else is
    offered then.  ``straddle``: that question is a home game's straddle (STRAD-01, the same
    voluntary blind at Hold'em/Manila).  ``run_twice``: the run-it-twice question (RIT-02):
    ``run_twice`` or ``run_once``, nothing else.  ``show``: the uncontested winner's question
    (SHOWWIN-01): ``show`` or ``muck``, nothing else.

    A house game (Caribbean Stud, CSP-01/03) offers, in its ante phase, ``sit_out`` (the
    seat's "fold" there), ``ante`` ``(min, max)`` (absent when the stack cannot cover even the
    minimum) and ``jackpot`` ``(wager, max_ante)`` (None when not offered); in its decision
    phase ``fold`` and ``play`` (the call bet, twice the ante).
    """

    seat: int
    fold: bool = False
    check: bool = False
    call: int | None = None
    bet: tuple[int, int] | None = None
    raise_: tuple[int, int] | None = None
    bring_in: int | None = None
    complete: int | None = None
    draw: int | None = None
    stack: int = 0
    to_call: int = 0
    sit_out: bool = False
    ante: tuple[int, int] | None = None
    jackpot: tuple[int, int] | None = None
    play: int | None = None
    over_blind: int | None = None
    decline: bool = False
    straddle: bool = False
    run_twice: bool = False
    show: bool = False

    def allows(self, kind: str) -> bool:
        """True when ``kind`` is among the offered actions."""
        if kind == FOLD:
            return self.fold
        if kind == CHECK:
            return self.check
        if kind == DECLINE:
            return self.decline
        if kind in (RUN_TWICE, RUN_ONCE):
            return self.run_twice
        if kind in (SHOW, MUCK):
            return self.show
        field = _OFFER_FIELDS.get(kind)
        return field is not None and getattr(self, field) is not None

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(k for k in ACTIONS if self.allows(k))

    def to_wire(self) -> dict[str, object]:
        """The protocol's ``options`` object (docs/protocol.md ``turn``)."""
        if self.sit_out or self.play is not None:
            return self._house_wire()
        if self.over_blind is not None:  # BLIND-04: the question before the deal
            out_ob: dict[str, object] = {"fold": False, "check": False,
                                         "over_blind": self.over_blind,
                                         "decline": self.decline, "stack": self.stack}
            if self.straddle:  # STRAD-01: the same question, named a straddle
                out_ob["straddle"] = True
            return out_ob
        if self.run_twice:  # RIT-02: the run-it-twice question
            return {"fold": False, "check": False, "run_twice": True, "run_once": True,
                    "stack": self.stack}
        if self.show:  # SHOWWIN-01: show or muck after winning uncontested
            return {"fold": False, "check": False, "show": True, "muck": True,
                    "stack": self.stack}
        out: dict[str, object] = {"fold": self.fold, "check": self.check}
        if self.call is not None:
            out["call"] = self.call
            out["to_call"] = self.to_call
        if self.bet is not None:
            out["bet"] = {"min": self.bet[0], "max": self.bet[1]}
        if self.raise_ is not None:
            out["raise"] = {"min": self.raise_[0], "max": self.raise_[1]}
        if self.bring_in is not None:
            out["bring_in"] = self.bring_in
        if self.complete is not None:
            out["complete"] = self.complete
        if self.draw is not None:
            out["draw"] = {"max": self.draw}
        out["stack"] = self.stack
        return out

    def _house_wire(self) -> dict[str, object]:
        """A house game's ``options`` (CSP-01/03): the ante phase's or the decision's."""
        if self.play is not None:
            return {"fold": self.fold, "play": self.play}
        out: dict[str, object] = {"sit_out": True}
        if self.ante is not None:
            out["ante"] = {"min": self.ante[0], "max": self.ante[1]}
            jp = self.jackpot
            out["jackpot"] = {"wager": jp[0], "max_ante": jp[1]} if jp is not None else None
        return out


quick_init(Options)  # speed only: the same frozen options, built faster (issue 25)
make_options = maker(Options)  # the same again, faster still: a turn's options (frozen.maker)
