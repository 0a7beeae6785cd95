"""Client requests: one frozen, slotted dataclass per request type, validated on construction.

The rule of this module: a :class:`Request` object is always valid.  The server builds one
with :func:`parse_request` from a decoded message; a bot or test builds one directly
(``Act(rid=7, table="t1", action="raise", amount=600)``) and sends ``req.to_dict()``.  Both
paths run the same validators (:mod:`protocol.fields`) and raise
:class:`~protocol.errors.ProtocolError` with a specific code (``unknown_type``,
``missing_field``, ``bad_field``, ``bad_amount``, ``bad_discard``, ``bad_structure``).

Every request carries ``rid`` (a string of at most 64 characters or an integer the client
picks).  A request without one is accepted; its answer then carries ``"rid": null``.  The
server answers each request exactly once, with ``ok`` (``pong`` for ``ping``) or ``error``.
Unknown extra fields are ignored (forward compatibility); a field sent as ``null`` counts as
absent.  What the protocol cannot know (is it your turn, is the amount legal at this table,
does the server run in test mode) the server checks and reports with the codes in
:data:`~protocol.errors.ERROR_CODES`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .errors import ProtocolError
from .fields import (
    Validator,
    v_action,
    v_amount,
    v_bool,
    v_bot_count,
    v_chat_text,
    v_decks,
    v_discard,
    v_free_seats,
    v_hand_id,
    v_history_format,
    v_host_action,
    v_id,
    v_ledger_format,
    v_limit,
    v_lobby_limit,
    v_name,
    v_number,
    v_password,
    v_rid,
    v_seat,
    v_seat_count,
    v_seats_list,
    v_seq,
    v_settings,
    v_stakes,
    v_structure,
    v_table_name,
    v_token,
    v_variant,
)

__all__ = [
    "REQUEST_CLASSES",
    "Act",
    "Chat",
    "CreateTable",
    "Hand",
    "Hello",
    "History",
    "Host",
    "ChangePassword",
    "Leave",
    "Login",
    "Logout",
    "Mute",
    "Ping",
    "Register",
    "Request",
    "Resume",
    "ShowHands",
    "Sit",
    "SitIn",
    "SitOut",
    "Tables",
    "Unwatch",
    "Watch",
    "parse_request",
    "register",
    "validated",
]

Rid = str | int | None


def validated(validator: Validator, default: Any = dataclasses.MISSING) -> Any:
    """A request field validated by ``validator``; no default means required."""
    return field(default=default, metadata={"v": validator})


_v = validated


def _plain(value: Any) -> Any:
    """Tuples to lists (recursively) for the wire."""
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


_FIELDS: dict[type, tuple[tuple[str, bool, Validator], ...]] = {}


def _checked_fields(cls: type) -> tuple[tuple[str, bool, Validator], ...]:
    """``(name, has a default, validator)`` of each field of request class ``cls``, found
    once per class (``dataclasses.fields`` builds its tuple on every call: every frame)."""
    found = _FIELDS.get(cls)
    if found is None:
        found = _FIELDS[cls] = tuple(
            (f.name, f.default is not dataclasses.MISSING, f.metadata["v"])
            for f in dataclasses.fields(cls))
    return found


@dataclass(frozen=True, slots=True, kw_only=True)
class Request:
    """Base of every request.  ``TYPE`` is the wire ``type``; ``rid`` the request id."""

    TYPE: ClassVar[str] = ""
    rid: Rid = _v(v_rid, None)

    def __post_init__(self) -> None:
        for name, optional, validate in _checked_fields(type(self)):
            value = getattr(self, name)
            if value is None:
                if optional:
                    continue
                raise ProtocolError("missing_field", f"`{name}` is required", field=name)
            clean = validate(name, value)
            if clean is not value:
                object.__setattr__(self, name, clean)
        self._check()

    def _check(self) -> None:
        """Cross-field rules of the type (overridden where there are some)."""

    def to_dict(self) -> dict[str, Any]:
        """The wire form: ``{"type": TYPE, "rid": rid, …fields that are not None}``."""
        out: dict[str, Any] = {"type": self.TYPE, "rid": self.rid}
        for f in dataclasses.fields(self):
            if f.name != "rid":
                value = getattr(self, f.name)
                if value is not None:
                    out[f.name] = _plain(value)
        return out


# --- Identity --------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, kw_only=True)
class Hello(Request):
    """``hello``: start a guest session (``guest``: a name) or resume one (``token``).

    Exactly one of the two.  Answer: ``ok``, then ``welcome``
    (:func:`protocol.messages.welcome`).  Errors: ``bad_token``, ``name_taken``.
    """

    TYPE: ClassVar[str] = "hello"
    guest: str | None = _v(v_name, None)
    token: str | None = _v(v_token, None)

    def _check(self) -> None:
        if self.guest is None and self.token is None:
            raise ProtocolError("missing_field", "hello needs `guest` or `token`", field="guest")
        if self.guest is not None and self.token is not None:
            raise ProtocolError("bad_field", "hello takes `guest` or `token`, not both",
                                field="token")


@dataclass(frozen=True, slots=True, kw_only=True)
class Login(Request):
    """``login``: log in to a named account.  Answer: ``ok``, then ``welcome``.
    Errors: ``bad_credentials``, ``rate_limited``."""

    TYPE: ClassVar[str] = "login"
    name: str = _v(v_name)
    password: str = _v(v_password)


@dataclass(frozen=True, slots=True, kw_only=True)
class Register(Request):
    """``register``: create a named account with a password and log in to it.
    Answer: ``ok``, then ``welcome``.  Errors: ``name_taken``, ``weak_password``."""

    TYPE: ClassVar[str] = "register"
    name: str = _v(v_name)
    password: str = _v(v_password)


@dataclass(frozen=True, slots=True, kw_only=True)
class Logout(Request):
    """``logout``: revoke the token this connection signed in with (``all``: every token of
    the account, on every device).  Answer: ``ok`` with ``revoked`` (how many sessions);
    then the server closes this connection (1000, ``logged out``) and every other one of
    the account whose token was revoked.  A revoked token's ``hello`` gets ``bad_token``.
    Errors: ``unauthorized``."""

    TYPE: ClassVar[str] = "logout"
    all: bool = _v(v_bool, False)


@dataclass(frozen=True, slots=True, kw_only=True)
class ChangePassword(Request):
    """``change_password``: a named account's new password, given the current one.

    Every session of the account is revoked (its other connections are closed) and this
    connection gets a fresh one: answer ``ok`` with ``token`` (the new token to resume
    with).  Errors: ``bad_credentials`` (``old_password`` is wrong: counts towards
    ``login_locked``), ``login_locked`` (``retry_after``), ``weak_password``,
    ``not_allowed`` (a guest account), ``server_busy``, ``unauthorized``."""

    TYPE: ClassVar[str] = "change_password"
    old_password: str = _v(v_password)
    new_password: str = _v(v_password)


@dataclass(frozen=True, slots=True, kw_only=True)
class Ping(Request):
    """``ping``: liveness and latency.  Optional ``t`` (any number, e.g. the client's
    clock) is echoed.  Answer: ``pong`` (:func:`protocol.messages.pong`)."""

    TYPE: ClassVar[str] = "ping"
    t: int | float | None = _v(v_number, None)


# --- Lobby -----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, kw_only=True)
class Tables(Request):
    """``tables``: list open tables, a page at a time, optionally filtered.

    Filters: ``variant`` (one of VARIANTS); ``min_big_blind`` / ``max_big_blind`` (the
    table's *stake level*: the big blind of a blinds game, else the bring-in or the ante,
    the minimum ante at Caribbean Stud); ``free_seats`` (at least this many seats free,
    0..10).  Paging: ``limit`` (1..1000, default and maximum set by the server:
    ``lobby_page_size``, ``lobby_max_page``) and ``cursor`` (the ``next`` of the previous
    page).  Tables are listed in the order they were opened.

    Answer: ``ok`` with ``tables``: a list of
    ``{table, name, variant, structure, stakes, seats, players, spectators, rake}``
    (``rake``: the house's ``{bp, cap}``, GEN-10); Caribbean Stud tables also carry
    ``jackpot``: ``{pool}`` (and ``minor``, ``major`` when split), the shared progressive pool
    as it stands, and ``jackpot_terms``: the house's ``{wager, paytable, reset, royal_min,
    share_bp}`` (CSP-13; ``royal_min``: the least a royal flush is paid, CSP-09; plus
    ``minor_reset``, ``minor_share_bp``, ``major_share_bp`` when split);
    ``total``: how many tables match the filters; ``next``:
    the cursor of the next page, ``null`` on the last one.
    """

    TYPE: ClassVar[str] = "tables"
    variant: str | None = _v(v_variant, None)
    min_big_blind: int | None = _v(v_amount, None)
    max_big_blind: int | None = _v(v_amount, None)
    free_seats: int | None = _v(v_free_seats, None)
    limit: int | None = _v(v_lobby_limit, None)
    cursor: str | None = _v(v_id, None)


@dataclass(frozen=True, slots=True, kw_only=True)
class CreateTable(Request):
    """``create_table``: open a table.  Answer: ``ok`` with ``table`` (its id).

    ``variant`` (one of VARIANTS); ``structure`` (one of STRUCTURES; required except for
    ``caribbean``, which has none); ``stakes`` (chip amounts or lists of them, e.g.
    ``{"blinds": [50, 100]}``); ``seats`` (1..10); optional ``name`` and ``settings``
    (docs/rules.md table settings); optional ``decks`` (test mode only: one complete deck per
    coming hand, in dealing order, burns included); ``private`` (a home game: unlisted, its
    answer also carries ``code``, the invite code without which nobody else can watch or
    sit; the creator is its host); ``practice`` (issue 24: a practice table against ``bots``
    bots, 0..seats-1, with play money; unlisted, nobody but its creator may join it).
    Errors: ``bad_stakes``, ``bad_settings``, ``bad_deck``, ``test_mode_only``,
    ``too_many_practice_tables``.
    Not hashable: ``stakes`` and ``settings`` are dicts (amount lists become tuples).
    """

    TYPE: ClassVar[str] = "create_table"
    variant: str = _v(v_variant)
    structure: str | None = _v(v_structure, None)
    stakes: dict[str, Any] = _v(v_stakes)
    seats: int = _v(v_seat_count)
    name: str | None = _v(v_table_name, None)
    settings: dict[str, Any] | None = _v(v_settings, None)
    decks: tuple[tuple[str, ...], ...] | None = _v(v_decks, None)
    private: bool = _v(v_bool, False)
    practice: bool = _v(v_bool, False)
    bots: int | None = _v(v_bot_count, None)

    def _check(self) -> None:
        if self.bots is not None and not self.practice:
            raise ProtocolError("bad_field", "`bots` is for a practice table", field="bots")
        if self.variant == "caribbean":
            if self.structure is not None:
                raise ProtocolError("bad_structure", "Caribbean Stud has no betting structure",
                                    field="structure")
        elif self.structure is None:
            raise ProtocolError("missing_field", "`structure` is required", field="structure")


@dataclass(frozen=True, slots=True, kw_only=True)
class Watch(Request):
    """``watch``: follow a table.  Answer: ``ok``, then a ``snapshot`` and every later
    event's public projection.  ``code``: a private table's invite code.  Errors:
    ``unknown_table`` (also a private table, to whom it does not admit)."""

    TYPE: ClassVar[str] = "watch"
    table: str = _v(v_id)
    code: str | None = _v(v_id, None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Unwatch(Request):
    """``unwatch``: stop following a table.  Answer: ``ok``.  Errors: ``not_watching``."""

    TYPE: ClassVar[str] = "unwatch"
    table: str = _v(v_id)


# --- Seats -----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, kw_only=True)
class Sit(Request):
    """``sit``: take ``seat`` with ``buy_in`` chips from the balance.

    Answer: ``ok``, then a ``snapshot``.  Errors: ``seat_taken``, ``bad_seat``,
    ``already_seated``, ``insufficient_funds``, ``bad_buy_in``, ``table_full``.
    """

    TYPE: ClassVar[str] = "sit"
    table: str = _v(v_id)
    seat: int = _v(v_seat)
    buy_in: int = _v(v_amount)
    code: str | None = _v(v_id, None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Leave(Request):
    """``leave``: leave at the end of the current hand (at once if not in one); the
    table chips return to the balance.  Answer: ``ok``.  Errors: ``not_seated``."""

    TYPE: ClassVar[str] = "leave"
    table: str = _v(v_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class SitOut(Request):
    """``sit_out``: keep the seat but skip hands from the next one.  Answer: ``ok``."""

    TYPE: ClassVar[str] = "sit_out"
    table: str = _v(v_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class SitIn(Request):
    """``sit_in``: play again from the next hand.  Answer: ``ok``.  ``post_bb``: a player whom
    the big blind has not reached yet (new, or back after missing it) posts a big blind to
    play from the next hand rather than wait for it (GEN-05): where the table's
    ``post_to_enter`` is on or at a home game (else ``post_bb_off``); false (the default)
    waits for it.  Errors: ``not_seated``, ``post_bb_off``."""

    TYPE: ClassVar[str] = "sit_in"
    table: str = _v(v_id)
    post_bb: bool = _v(v_bool, False)


# --- Play ------------------------------------------------------------------------------
_NEEDS_AMOUNT = frozenset({"bet", "raise", "ante"})


@dataclass(frozen=True, slots=True, kw_only=True)
class Act(Request):
    """``act``: the player's action in the current hand.  Answer: ``ok``.

    ``action``: one of ACTIONS.  ``amount``: the total this round's bet becomes ("raise
    to"), never the increment; required for ``bet``, ``raise`` and ``ante``, optional
    elsewhere.  ``discard``: cards thrown on a ``draw`` (0..5 distinct cards; absent means
    standing pat, normalised to ``()``), only with ``draw``.  ``jackpot``: the Caribbean
    Stud jackpot wager, only with ``ante``.  ``over_blind`` / ``decline``: the answer of the
    seat asked about the Draw over blind before the deal (BLIND-04, ``turn`` options
    ``over_blind`` and ``decline``).
    Errors: ``not_your_turn``, ``bad_action``, ``bad_amount``, ``bad_discard``, ``no_hand``,
    ``not_in_hand``.
    """

    TYPE: ClassVar[str] = "act"
    table: str = _v(v_id)
    action: str = _v(v_action)
    amount: int | None = _v(v_amount, None)
    discard: tuple[str, ...] | None = _v(v_discard, None)
    jackpot: bool = _v(v_bool, False)

    def _check(self) -> None:
        if self.action in _NEEDS_AMOUNT and self.amount is None:
            raise ProtocolError("missing_field", f"`{self.action}` needs `amount`",
                                field="amount")
        if self.action == "draw":
            if self.discard is None:
                object.__setattr__(self, "discard", ())
        elif self.discard is not None:
            raise ProtocolError("bad_field", "`discard` goes only with `draw`", field="discard")
        if self.jackpot and self.action != "ante":
            raise ProtocolError("bad_field", "`jackpot` goes only with `ante`", field="jackpot")


@dataclass(frozen=True, slots=True, kw_only=True)
class Chat(Request):
    """``chat``: say ``text`` (1..200 characters) at a table.  Answer: ``ok``; the table
    gets a ``chat`` event.  Errors: ``chat_disabled``, ``rate_limited``."""

    TYPE: ClassVar[str] = "chat"
    table: str = _v(v_id)
    text: str = _v(v_chat_text)


@dataclass(frozen=True, slots=True, kw_only=True)
class Mute(Request):
    """``mute``: stop (``on``: true, the default) or start again (``on``: false) receiving
    another player's ``chat`` at every table, on all my connections.  The player is named at
    ``table`` by ``seat`` (a seated player) or by ``name`` (a spectator's ``chat`` name):
    exactly one of the two.  Answer: ``ok`` with ``muted`` (bool).  Errors: ``bad_seat``
    (nobody there), ``unauthorized``, ``not_allowed`` (yourself, or too many muted)."""

    TYPE: ClassVar[str] = "mute"
    table: str = _v(v_id)
    seat: int | None = _v(v_seat, None)
    name: str | None = _v(v_name, None)
    on: bool = _v(v_bool, True)

    def _check(self) -> None:
        if (self.seat is None) == (self.name is None):
            raise ProtocolError("missing_field" if self.seat is None else "bad_field",
                                "mute takes `seat` or `name`, one of them", field="seat")


@dataclass(frozen=True, slots=True, kw_only=True)
class ShowHands(Request):
    """``show_hands`` (docs/rules.md SHOW-02): after ``hand``'s showdown, reveal the hands that
    were in it to the table: those of ``seats``, or all when absent.  Answer: ``ok``; the
    table gets ``showdown`` events.  Errors: ``unknown_hand``, ``not_seated``."""

    TYPE: ClassVar[str] = "show_hands"
    table: str = _v(v_id)
    hand: str | int = _v(v_hand_id)
    seats: tuple[int, ...] | None = _v(v_seats_list, None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Resume(Request):
    """``resume``: after a reconnect, the table's events after ``since`` (a ``seq``), or a
    fresh ``snapshot`` when they are gone.  Answer: ``ok``, then the events."""

    TYPE: ClassVar[str] = "resume"
    table: str = _v(v_id)
    since: int = _v(v_seq)
    code: str | None = _v(v_id, None)


# --- A private table's host ------------------------------------------------------------
@dataclass(frozen=True, slots=True, kw_only=True)
class Host(Request):
    """``host``: what the host of a private table controls (docs/protocol.md "Private
    games"); refused ``not_host`` for anyone else.

    ``action`` (HOST_ACTIONS): ``approve`` / ``refuse`` the seat request of ``player``
    (``approve`` with ``seat``: at that seat instead of the one asked for);
    ``pause`` / ``resume`` the game between hands; ``remove`` the player at ``seat`` (at the
    end of the hand, chips back to their balance); ``change`` ``stakes`` and ``settings``
    (blinds, antes, ``action_clock``, ``pause``, ``starting_stack``, ``rebuys``, from the
    next hand); ``transfer`` the host role to the player at ``seat``; ``close`` the game
    (after the running hand); ``rotate_code`` (a new invite code: ``ok`` with ``code``);
    ``ledger``: ``ok`` with ``ledger`` (per player: buy-ins, rebuys, cash-outs, at the table,
    net) and, with ``format`` ``"csv"``, ``text`` (also to every player of the game).
    Errors: ``not_host``, ``no_request``,
    ``bad_seat``, ``bad_stakes``, ``bad_settings``, ``missing_field``.
    """

    TYPE: ClassVar[str] = "host"
    table: str = _v(v_id)
    action: str = _v(v_host_action)
    player: str | None = _v(v_id, None)
    seat: int | None = _v(v_seat, None)
    stakes: dict[str, Any] | None = _v(v_stakes, None)
    settings: dict[str, Any] | None = _v(v_settings, None)
    format: str | None = _v(v_ledger_format, None)

    def _check(self) -> None:
        needs = {"approve": "player", "refuse": "player", "remove": "seat",
                 "transfer": "seat"}.get(self.action)
        if needs is not None and getattr(self, needs) is None:
            raise ProtocolError("missing_field", f"`{self.action}` needs `{needs}`",
                                field=needs)
        if self.action == "change" and self.stakes is None and self.settings is None:
            raise ProtocolError("missing_field", "`change` needs `stakes` or `settings`",
                                field="settings")


# --- Hand history ----------------------------------------------------------------------
@dataclass(frozen=True, slots=True, kw_only=True)
class History(Request):
    """``history``: list my hands, newest first: at most ``limit`` (default 20, max 100),
    older than hand ``before`` when given, at ``table`` when given.

    Answer: ``ok`` with ``hands``: a list of ``{hand, table, variant, started, ended, net}``
    and ``more`` (bool).  Errors: ``unauthorized``.
    """

    TYPE: ClassVar[str] = "history"
    limit: int = _v(v_limit, 20)
    before: str | int | None = _v(v_hand_id, None)
    table: str | None = _v(v_id, None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Hand(Request):
    """``hand``: fetch one hand's history as I may see it (only a hand I played).

    ``format``: ``"json"`` (default), ``"pokerstars"`` or ``"phh"`` (HISTORY_FORMATS).
    Answer: ``ok`` with ``hand`` (id), ``format``, and for ``json``: ``record`` (my copy of
    the hand's history, :func:`server.ledger.history.player_copy`: ``commitment``,
    ``players``, ``events`` (the engine's events with others' hidden cards ``null``),
    ``result``, ``reveal`` (the openings of every public card and of my own cards)) and
    ``events`` (the same list as ``record.events``); for the text formats: ``text``
    (Caribbean Stud: its own text form for both).  ``poker-verify`` checks a saved
    ``record``.  Errors: ``unknown_hand``.
    """

    TYPE: ClassVar[str] = "hand"
    hand: str | int = _v(v_hand_id)
    format: str = _v(v_history_format, "json")


#: Request class by wire ``type``: those of this module and :mod:`protocol.tournaments`'s
#: (each added by :func:`register`).
REQUEST_CLASSES: dict[str, type[Request]] = {}
# Per type: (field name, required) for every field but rid.
_WIRE_FIELDS: dict[str, tuple[tuple[str, bool], ...]] = {}


def register(*classes: type[Request]) -> None:
    """Make :func:`parse_request` know request ``classes`` (by ``TYPE``, each once); a module
    of this package defining requests registers its own on import (protocol.tournaments)."""
    for cls in classes:
        if not cls.TYPE or cls.TYPE in REQUEST_CLASSES:
            raise ValueError(f"request type {cls.TYPE!r} is empty or taken")
        REQUEST_CLASSES[cls.TYPE] = cls
        _WIRE_FIELDS[cls.TYPE] = tuple((f.name, f.default is dataclasses.MISSING)
                                       for f in dataclasses.fields(cls) if f.name != "rid")


register(Hello, Login, Register, Logout, ChangePassword, Ping, Tables, CreateTable, Watch,
         Unwatch, Sit, Leave, Act, Chat, SitOut, SitIn, ShowHands, Resume, History, Hand, Mute,
         Host)


def request_fields(kind: str) -> tuple[tuple[str, bool], ...]:
    """The fields of request type ``kind`` (besides ``type`` and ``rid``) as
    ``(name, required)`` pairs."""
    return _WIRE_FIELDS[kind]


def parse_request(obj: Mapping[str, Any]) -> Request:
    """Validate one decoded client message and return its typed request.

    Raises :class:`ProtocolError`: ``malformed`` (not an object, no string ``type``),
    ``bad_field`` (a bad ``rid``, or a field of the wrong type or range),
    ``unknown_type``, ``missing_field``, ``bad_amount``, ``bad_discard``, ``bad_structure``.
    The error's ``rid`` is the request's when that was readable, so the caller can answer
    with ``error.to_message()``.
    """
    if not isinstance(obj, Mapping):
        raise ProtocolError("malformed", "a message must be an object")
    kind = obj.get("type")
    if not isinstance(kind, str) or not kind:
        raise ProtocolError("malformed", "missing `type`", field="type")
    rid = v_rid("rid", obj.get("rid"))
    cls = REQUEST_CLASSES.get(kind)
    if cls is None:
        raise ProtocolError("unknown_type", f"unknown request type {kind[:64]!r}", rid=rid)
    kwargs: dict[str, Any] = {}
    for name, required in _WIRE_FIELDS[kind]:
        value = obj.get(name)
        if value is None:
            if required:
                raise ProtocolError("missing_field", f"`{name}` is required",
                                    rid=rid, field=name)
            continue
        kwargs[name] = value
    try:
        return cls(rid=rid, **kwargs)
    except ProtocolError as exc:
        exc.rid = rid
        raise

