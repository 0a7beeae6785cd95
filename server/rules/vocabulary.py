"""The engine's vocabulary: each closed set of names is one `enum.StrEnum`.

Rule of this module: a name the engine compares or sends (an action, a deal kind, who opens a
betting round, a Caribbean round's phase) is a member of one enum here. Members are `str`
subclasses equal to their value (`Action.FOLD == "fold"`), so they compare equal to the
plain strings of requests and records and go on the wire (JSON, msgpack, the ledger) as those
strings; `options.FOLD`, `variant.DOWN`, ... are these members under their older names.
Standard library only, as the rest of `server.rules`.
"""

from __future__ import annotations

from enum import StrEnum, unique

__all__ = ["Action", "CaribbeanPhase", "DealKind", "Opener"]


@unique
class Action(StrEnum):
    """What a seat may do in a betting round or a draw (`options.Options`), in the order the
    options list them."""

    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BET = "bet"
    RAISE = "raise"
    BRING_IN = "bring_in"
    COMPLETE = "complete"
    DRAW = "draw"
    OVER_BLIND = "over_blind"  # BLIND-04: post the voluntary over blind (asked before the deal)
    DECLINE = "decline"        # BLIND-04: do not post it
    RUN_TWICE = "run_twice"    # RIT-02 (house rule): agree to run the board twice
    RUN_ONCE = "run_once"      # RIT-02: do not agree (the board is run once)
    SHOW = "show"              # SHOWWIN-01 (house rule): the uncontested winner shows
    MUCK = "muck"              # SHOWWIN-01: the uncontested winner does not show


@unique
class DealKind(StrEnum):
    """How a street's cards are dealt (`variant.Street.deal`)."""

    DOWN = "down"    # to each player, face down
    UP = "up"        # to each player, face up (stud)
    BOARD = "board"  # to the board, shared


@unique
class Opener(StrEnum):
    """Who opens a betting round (`variant.Street.opener`)."""

    BLINDS = "blinds"      # first player left of the last blind or over blind (BET-02)
    BUTTON = "button"      # first active player left of the button (BET-04)
    BRING_IN = "bring_in"  # lowest up card makes the forced bring-in (STUD-02)
    SHOWING = "showing"    # highest hand showing opens (STUD-03)


@unique
class CaribbeanPhase(StrEnum):
    """The phases of a Caribbean Stud round (`caribbean.CaribbeanRound.phase`): `antes` ->
    (`deal`) `decisions` -> `ended`; `void` when the round is called off."""

    ANTES = "antes"
    DECISIONS = "decisions"
    ENDED = "ended"
    VOID = "void"
