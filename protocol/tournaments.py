"""Tournaments on the wire: their requests and the builders of their messages.

The rule of this module: everything a client says or is told about tournaments (docs/rules.md
section 5, TOUR-01..15; docs/protocol.md "Tournaments") is defined here, the requests as
frozen, slotted dataclasses validated on construction like those of :mod:`protocol.requests`
(which :func:`~protocol.requests.parse_request` knows: this module registers them when the
package imports it), the messages as one builder function per type returning a plain ``dict``
(lists, never tuples) like those of :mod:`protocol.messages` (which re-exports them and lists
their fields: :data:`TOURNAMENT_MESSAGE_FIELDS`).  The protocol checks shapes and bounds
(types, sizes, nesting); the server checks the poker meaning of a structure
(``bad_structure``) and everything that depends on the tournament's state
(``unknown_tournament``, ``registration_closed``, ``tournament_full``,
``already_registered``, ``not_registered``, ``not_allowed``, ``insufficient_funds``,
``not_host``).

Tournament messages carry no ``seq``: ``tournament`` is a fresh copy of the whole state,
pushed to each follower on every change, so a client that missed one loses nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from .errors import ProtocolError
from .fields import (
    v_amount,
    v_bool,
    v_epoch,
    v_field_size,
    v_id,
    v_levels,
    v_structure,
    v_structure_settings,
    v_tournament_game,
    v_tournament_id,
    v_tournament_kind,
    v_tournament_name,
    v_tournament_state,
    v_variant,
)
from .requests import Request, register, validated

__all__ = [
    "LEVEL_FIELDS",
    "SUMMARY_FIELDS",
    "TOURNAMENT_MESSAGE_FIELDS",
    "YOU_FIELDS",
    "CancelTournament",
    "CreateTournament",
    "Tournament",
    "TournamentAddOn",
    "TournamentRebuy",
    "TournamentRegister",
    "TournamentUnregister",
    "Tournaments",
    "UnfollowTournament",
    "level_entry",
    "summary_entry",
    "tournament",
    "tournament_result",
    "tournament_seat",
    "tournaments",
    "you_entry",
]

Msg = dict[str, Any]


# --- Requests --------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, kw_only=True)
class Tournaments(Request):
    """``tournaments``: list the tournaments, optionally only those in ``state``
    (TOURNAMENT_STATES) or of ``game`` (a variant, as ``tables``' filter).  Answer: ``ok``,
    then a ``tournaments`` message (:func:`tournaments`).  A private tournament is listed
    only to its host and its entrants."""

    TYPE: ClassVar[str] = "tournaments"
    state: str | None = validated(v_tournament_state, None)
    game: str | None = validated(v_variant, None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Tournament(Request):
    """``tournament``: one tournament's state.  Answer: ``ok``, then a ``tournament`` message
    (:func:`tournament`); with ``follow`` (the default) a fresh one is pushed on every change
    until ``unfollow_tournament`` or the connection ends.  ``invite``: a private
    tournament's code (its host and entrants need none).  Errors: ``unknown_tournament``
    (also a private one, to whom it does not admit)."""

    TYPE: ClassVar[str] = "tournament"
    tournament: str = validated(v_tournament_id)
    follow: bool = validated(v_bool, True)
    invite: str | None = validated(v_id, None)


@dataclass(frozen=True, slots=True, kw_only=True)
class UnfollowTournament(Request):
    """``unfollow_tournament``: stop the ``tournament`` pushes of that tournament.  Answer:
    ``ok`` (also when not following it).  Errors: ``unknown_tournament``."""

    TYPE: ClassVar[str] = "unfollow_tournament"
    tournament: str = validated(v_tournament_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentRegister(Request):
    """``tournament_register``: enter the tournament, paying its buy-in and fee from the
    balance (TOUR-01); while late registration is open after the start (TOUR-14) the entry
    is seated at once (``tournament_seat`` with ``why`` ``late``), and a player who is out
    enters again the same way (``re_entry``) while re-entries are left.  ``invite``: a
    private tournament's code.  Answer: ``ok``.  Errors: ``unknown_tournament`` (also a
    private one without its invite), ``registration_closed``, ``tournament_full``,
    ``already_registered``, ``insufficient_funds``, ``unauthorized``."""

    TYPE: ClassVar[str] = "tournament_register"
    tournament: str = validated(v_tournament_id)
    invite: str | None = validated(v_id, None)


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentUnregister(Request):
    """``tournament_unregister``: withdraw before the start; buy-in and fee are refunded
    (TOUR-01).  Answer: ``ok``.  Errors: ``unknown_tournament``, ``not_registered``,
    ``registration_closed`` (it has started)."""

    TYPE: ClassVar[str] = "tournament_unregister"
    tournament: str = validated(v_tournament_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentRebuy(Request):
    """``tournament_rebuy``: buy the structure's rebuy chips, paying the buy-in to the pool
    (TOUR-14: while rebuys are open, between hands, with no more than the starting stack).
    Answer: ``ok``.  Errors: ``unknown_tournament``, ``not_registered``, ``not_allowed``
    (the structure or the player's stack does not allow it now), ``insufficient_funds``."""

    TYPE: ClassVar[str] = "tournament_rebuy"
    tournament: str = validated(v_tournament_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentAddOn(Request):
    """``tournament_add_on``: take the structure's add-on, once per entry, at the first break
    after the rebuys (TOUR-14).  Answer: ``ok``.  Errors: as ``tournament_rebuy``."""

    TYPE: ClassVar[str] = "tournament_add_on"
    tournament: str = validated(v_tournament_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class CreateTournament(Request):
    """``create_tournament``: announce a tournament.  Answer: ``ok`` with ``tournament`` (its
    id) and, when ``private``, ``invite`` (the code without which nobody else can see or
    enter it; its creator is its host).

    ``name`` (1..40 characters); ``game`` (TOURNAMENT_GAMES: a pot game); ``structure``
    (STRUCTURES); ``kind``: ``sng`` (starts when ``capacity`` players have registered) or
    ``scheduled`` (starts at ``starts_at``, Unix seconds, required, when ``min_field``
    players, default the server's, have registered; else it is cancelled: TOUR-03);
    ``buy_in`` and ``fee`` (chips, TOUR-01); ``capacity`` (2..10000: a scheduled one's
    largest field); optional ``levels`` (1..100 objects: ``stakes``, ``minutes`` or
    ``hands``, and ``game``/``structure`` in a mixed tournament, TOUR-05) and ``settings``
    (the structure: ``starting_stack``, ``seats``, ``preset``, ``breaks``, ``late_until``,
    ``re_entries``, ``rebuy_until``, ``add_on``, ``rotation``, ``shares``,
    ``time_bank_refill``).  The protocol checks their shapes and bounds; their meaning is the
    server's check (``bad_structure``).  Not hashable: ``levels`` and ``settings`` hold
    dicts.
    """

    TYPE: ClassVar[str] = "create_tournament"
    name: str = validated(v_tournament_name)
    game: str = validated(v_tournament_game)
    structure: str = validated(v_structure)
    kind: str = validated(v_tournament_kind)
    buy_in: int = validated(v_amount)
    fee: int = validated(v_amount)
    capacity: int = validated(v_field_size)
    min_field: int | None = validated(v_field_size, None)
    starts_at: int | float | None = validated(v_epoch, None)
    private: bool = validated(v_bool, False)
    levels: tuple[dict[str, Any], ...] | None = validated(v_levels, None)
    settings: dict[str, Any] | None = validated(v_structure_settings, None)

    def _check(self) -> None:
        if self.kind == "sng":
            for name in ("starts_at", "min_field"):
                if getattr(self, name) is not None:
                    raise ProtocolError("bad_field", f"`{name}` is for a scheduled tournament",
                                        field=name)
            return
        if self.starts_at is None:
            raise ProtocolError("missing_field", "a scheduled tournament needs `starts_at`",
                                field="starts_at")
        if self.min_field is not None and self.min_field > self.capacity:
            raise ProtocolError("bad_field", "`min_field` is more than `capacity`",
                                field="min_field")


@dataclass(frozen=True, slots=True, kw_only=True)
class CancelTournament(Request):
    """``cancel_tournament``: its host (a private tournament's creator) calls it off before
    the start; every entry is refunded (TOUR-01), entrants get a ``tournament`` message with
    ``state`` ``cancelled``.  Answer: ``ok``.  Errors: ``unknown_tournament``, ``not_host``,
    ``not_allowed`` (it is no longer registering)."""

    TYPE: ClassVar[str] = "cancel_tournament"
    tournament: str = validated(v_tournament_id)


register(Tournaments, Tournament, UnfollowTournament, TournamentRegister, TournamentUnregister,
         TournamentRebuy, TournamentAddOn, CreateTournament, CancelTournament)


# --- Messages --------------------------------------------------------------------------
#: The fields of one ``tournaments`` entry (:func:`summary_entry`), all always there.
SUMMARY_FIELDS: tuple[str, ...] = (
    "id", "name", "game", "structure", "kind", "state", "buy_in", "fee", "entrants",
    "capacity", "starts_at", "level", "players_left", "private")
#: The fields of a level (``level`` and ``next_level`` of ``tournament``: :func:`level_entry`).
LEVEL_FIELDS: tuple[str, ...] = ("number", "game", "structure", "stakes", "minutes", "hands")
#: The fields of ``you`` in ``tournament`` (:func:`you_entry`).
YOU_FIELDS: tuple[str, ...] = ("entered", "stack", "table", "seat", "place", "prize")

#: For every tournament message type: (required fields, optional fields), besides ``type``
#: (part of :data:`protocol.messages.MESSAGE_FIELDS`).
TOURNAMENT_MESSAGE_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "tournaments": (("tournaments",), ()),
    "tournament": (("id", "name", "game", "structure", "kind", "state", "buy_in", "fee",
                    "starting_stack", "entrants", "capacity", "players_left", "average_stack",
                    "pool", "level", "next_level", "on_break", "clock_left", "late_until",
                    "payouts", "places", "tables", "you"),
                   ("starts_at", "private", "invite")),
    "tournament_seat": (("tournament", "table", "seat", "why"), ()),
    "tournament_result": (("tournament", "place", "prize", "entrants"), ()),
}


def summary_entry(*, id: str, name: str, game: str, structure: str, kind: str, state: str,
                  buy_in: int, fee: int, entrants: int, capacity: int,
                  starts_at: int | float | None, level: int, players_left: int,
                  private: bool) -> Msg:
    """One tournament of a ``tournaments`` list (fields: :data:`SUMMARY_FIELDS`).
    ``entrants``: entries so far (re-entries count); ``starts_at``: Unix seconds, null for a
    sit-and-go; ``level``: the level playing, 0 before the start; ``players_left``: players
    still in (the entrants before the start)."""
    return {"id": id, "name": name, "game": game, "structure": structure, "kind": kind,
            "state": state, "buy_in": buy_in, "fee": fee, "entrants": entrants,
            "capacity": capacity, "starts_at": starts_at, "level": level,
            "players_left": players_left, "private": private}


def level_entry(*, number: int, game: str, structure: str, stakes: Mapping[str, Any],
                minutes: int | float | None, hands: int | None) -> Msg:
    """One level (fields: :data:`LEVEL_FIELDS`): its ``number`` (from 1), ``game`` and
    ``structure``, ``stakes`` (as a table's: ``{"blinds": [50, 100], "ante": 10}``), and how
    long it lasts: ``minutes`` or ``hands`` (the other null; TOUR-05)."""
    return {"number": number, "game": game, "structure": structure, "stakes": dict(stakes),
            "minutes": minutes, "hands": hands}


def you_entry(*, entered: bool, stack: int | None, table: str | None, seat: int | None,
              place: int | None, prize: int | None) -> Msg:
    """The viewer's part in a tournament they entered (fields: :data:`YOU_FIELDS`):
    ``entered`` (true); ``stack`` (their chips; null once out or before the start);
    ``table`` and ``seat`` while seated, else null; ``place`` once out (or the winner's 1),
    else null; ``prize`` once fixed (TOUR-12), else null."""
    return {"entered": entered, "stack": stack, "table": table, "seat": seat, "place": place,
            "prize": prize}


def tournaments(*, tournaments: Sequence[Mapping[str, Any]]) -> Msg:
    """``tournaments``: after the ``ok`` of a ``tournaments`` request, the list asked for:
    each a :func:`summary_entry`, in the order they were announced."""
    return {"type": "tournaments", "tournaments": [dict(t) for t in tournaments]}


def tournament(*, id: str, name: str, game: str, structure: str, kind: str, state: str,
               buy_in: int, fee: int, starting_stack: int, entrants: int, capacity: int,
               players_left: int, average_stack: int, pool: int,
               level: Mapping[str, Any] | None, next_level: Mapping[str, Any] | None,
               on_break: bool, clock_left: int | float | None, late_until: int | None,
               payouts: Sequence[Sequence[int]], places: Sequence[Sequence[Any]],
               tables: Sequence[Sequence[Any]], you: Mapping[str, Any] | None,
               starts_at: int | float | None = None, private: bool = False,
               invite: str | None = None) -> Msg:
    """``tournament``: one tournament's whole state as this viewer may see it, after the
    ``ok`` of a ``tournament`` request and, to followers, on every change.

    ``starting_stack``: chips per entry (TOUR-02); ``average_stack``: chips in play over
    ``players_left`` (0 before the start); ``pool``: the prize pool (TOUR-12); ``level``: the level
    playing, a :func:`level_entry` (null before the start); ``next_level``: the one to come
    (level 1 before the start; null after the last level or once finished);
    ``on_break``; ``clock_left``: seconds left in the level (or the break), null when the
    clock is not running; ``late_until``: the level to whose end late registration stays
    open (TOUR-14), null when there is none; ``payouts``: ``[place, amount]`` per paid
    place, best first; ``places``: ``[place, name, prize]`` per player out, best first
    (TOUR-11: tied players share a place); ``tables``: ``[table_id, players]`` per table
    playing; ``you``: :func:`you_entry`, null for a viewer who has not entered.  Optional:
    ``starts_at`` (a scheduled tournament's start, Unix seconds); ``private`` (true for a
    private tournament); ``invite`` (its code, only in its host's copy)."""
    msg: Msg = {
        "type": "tournament", "id": id, "name": name, "game": game, "structure": structure,
        "kind": kind, "state": state, "buy_in": buy_in, "fee": fee,
        "starting_stack": starting_stack, "entrants": entrants, "capacity": capacity,
        "players_left": players_left, "average_stack": average_stack, "pool": pool,
        "level": None if level is None else _level(level),
        "next_level": None if next_level is None else _level(next_level),
        "on_break": on_break, "clock_left": clock_left, "late_until": late_until,
        "payouts": [list(p) for p in payouts], "places": [list(p) for p in places],
        "tables": [list(t) for t in tables], "you": None if you is None else dict(you),
    }
    if starts_at is not None:
        msg["starts_at"] = starts_at
    if private:
        msg["private"] = True
    if invite is not None:
        msg["invite"] = invite
    return msg


def _level(level: Mapping[str, Any]) -> Msg:
    out = dict(level)
    out["stakes"] = dict(out["stakes"])
    return out


def tournament_seat(*, tournament: str, table: str, seat: int, why: str) -> Msg:
    """``tournament_seat`` (to the player's connections): go to ``table`` (a table id, as
    ``watch`` takes it), where the player now sits at ``seat``.  ``why``
    (TOURNAMENT_SEAT_REASONS): ``start`` (the draw, TOUR-04), ``balance`` (TOUR-06),
    ``break`` (the table was broken, TOUR-08), ``late`` or ``re_entry`` (TOUR-14)."""
    return {"type": "tournament_seat", "tournament": tournament, "table": table, "seat": seat,
            "why": why}


def tournament_result(*, tournament: str, place: int, prize: int | None,
                      entrants: int) -> Msg:
    """``tournament_result`` (to the player's connections): the player finished ``place``
    of ``entrants`` (TOUR-11) and won ``prize`` chips, paid to the balance (0 out of the
    money; TOUR-12); ``prize`` is null while the prize table is not fixed yet (a player
    out during late registration: the pool still grows), and the ``tournament`` message's
    ``you`` carries it once it is."""
    return {"type": "tournament_result", "tournament": tournament, "place": place,
            "prize": prize, "entrants": entrants}
