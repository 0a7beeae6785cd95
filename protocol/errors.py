"""Error codes and the one exception of the protocol package.

The rule of this module: every failure the wire contract can report is a member of
:class:`ErrorCode` (:data:`ERROR_CODES`: the same as a table), and every failure the
``protocol`` package detects raises :class:`ProtocolError` carrying one of those codes.
Nothing else escapes :meth:`~protocol.codec.JsonCodec.decode` or
:func:`~protocol.requests.parse_request`.

The server answers a failed request with ``{"type": "error", "rid": …, "code": …,
"message": …}`` (see :func:`protocol.messages.error`).  ``code`` is stable snake_case and is
what programs branch on; ``message`` is for humans and may change.

The rules engine raises its own error carrying a reason code; the server maps those reasons
1:1 onto codes of this table (``not_your_turn``, ``bad_amount``, ``bad_action``, ``no_hand``,
``bad_discard`` …), so every reason the engine can give has an entry here.
"""

from __future__ import annotations

from enum import StrEnum, unique
from typing import Any

__all__ = ["ERROR_CODES", "ErrorCode", "ProtocolError"]


@unique
class ErrorCode(StrEnum):
    """Every error code of the wire contract, with its default human message (`message`).

    A member is the ``str`` of its code (``ErrorCode.TABLE_FULL == "table_full"``): it goes on
    the wire, and compares with a code read from it, as that string."""

    _value_: str
    message: str

    def __new__(cls, code: str, message: str = "") -> ErrorCode:
        member = str.__new__(cls, code)
        member._value_ = code
        member.message = message
        return member

    # Frames and requests (detected by the protocol package itself).
    MALFORMED = "malformed", "The message could not be decoded."
    OVERSIZED = "oversized", "The message is larger than the server accepts."
    UNKNOWN_TYPE = "unknown_type", "Unknown message type."
    BAD_FIELD = "bad_field", "A field has the wrong type or an invalid value."
    MISSING_FIELD = "missing_field", "A required field is missing."
    BAD_AMOUNT = "bad_amount", "That amount is not allowed."
    # Connection, identity and accounts.
    UNAUTHORIZED = "unauthorized", "Say hello (log in or play as a guest) first."
    BAD_CREDENTIALS = "bad_credentials", "Wrong name or password."
    BAD_TOKEN = "bad_token", "That session token is unknown or has expired."
    NAME_TAKEN = "name_taken", "That name is already taken."
    WEAK_PASSWORD = "weak_password", "That password is too weak."
    RATE_LIMITED = "rate_limited", "Too many messages; slow down."
    SERVER_BUSY = "server_busy", "The server is busy; try again shortly."
    LOGIN_LOCKED = "login_locked", "Too many failed logins; try again after `retry_after` seconds."
    TOO_MANY_GUESTS = (
        "too_many_guests", "Too many guest accounts from your address; try again later.")
    NAME_RESERVED = "name_reserved", "That name is reserved."
    SHUTTING_DOWN = "shutting_down", "The server is shutting down."
    INTERNAL_ERROR = "internal_error", "Something went wrong on the server."
    NOT_ALLOWED = "not_allowed", "You are not allowed to do that."
    UNSUPPORTED = "unsupported", "The server does not support that here."
    # Lobby and tables.
    UNKNOWN_TABLE = "unknown_table", "No such table."
    MOVED = "moved", "That table is on another server: reconnect to `url` and ask again."
    TABLE_FULL = "table_full", "The table is full."
    TABLE_CLOSED = "table_closed", "The table is closing."
    TOO_MANY_TABLES = "too_many_tables", "You cannot create or join more tables."
    TOO_MANY_PRACTICE_TABLES = ("too_many_practice_tables",
                                "You already have a practice table open: leave it first.")
    BAD_VARIANT = "bad_variant", "Unknown or unavailable game variant."
    BAD_STRUCTURE = "bad_structure", "That betting structure is not available for this game."
    BAD_STAKES = "bad_stakes", "The stakes do not fit the betting structure."
    BAD_SETTINGS = "bad_settings", "Invalid table settings."
    BAD_DECK = "bad_deck", "A deck is not a permutation of the variant's cards."
    TEST_MODE_ONLY = "test_mode_only", "That is only available when the server runs in test mode."
    HOUSE_POLICY = (
        "house_policy",
        "The house sets that (jackpot terms, rake limits), not a table's creator.")
    NOT_WATCHING = "not_watching", "You are not watching that table."
    # Seats and money.
    BAD_SEAT = "bad_seat", "No such seat at this table."
    SEAT_TAKEN = "seat_taken", "That seat is taken."
    ALREADY_SEATED = "already_seated", "You are already seated at this table."
    NOT_SEATED = "not_seated", "You are not seated at this table."
    POST_BB_OFF = (
        "post_bb_off", "This table makes a player who comes in wait for the big blind.")
    INSUFFICIENT_FUNDS = "insufficient_funds", "Your balance is too low for that."
    BAD_BUY_IN = "bad_buy_in", "The buy-in is outside the table's limits."
    HAND_IN_PROGRESS = "hand_in_progress", "Not while a hand is in progress."
    LIMIT_EXCEEDED = "limit_exceeded", "That would pass the house's limit."
    # Playing a hand (engine reason codes map onto these).
    NO_HAND = "no_hand", "There is no hand in progress."
    NOT_IN_HAND = "not_in_hand", "You are not in this hand."
    NOT_YOUR_TURN = "not_your_turn", "It is not your turn."
    BAD_ACTION = "bad_action", "That action is not allowed now."
    BAD_DISCARD = "bad_discard", "Those cards cannot be discarded."
    UNKNOWN_HAND = "unknown_hand", "No such hand."
    NEXT_HAND_STARTED = (
        "next_hand_started",
        "The next hand has started: that hand's cards can no longer be shown.")
    CHAT_DISABLED = "chat_disabled", "Chat is disabled here."
    CHAT_LIMITED = "chat_limited", "This table's chat is busy; wait a moment."
    ACCOUNT_FROZEN = (
        "account_frozen",
        "Your account is frozen by the operator: you can watch, not sit or chat.")
    ACCOUNT_MUTED = "account_muted", "The operator has muted you in chat."
    # Private tables and their hosts. (``invite_required`` is no longer sent: since issue 23 a
    # private table answers whom it does not admit ``unknown_table``; kept for old clients.)
    INVITE_REQUIRED = (
        "invite_required",
        "This is a private table: you need its invite link (the code in it) to join.")
    NOT_HOST = "not_host", "Only the host of this private table or tournament can do that."
    NO_REQUEST = "no_request", "That player has no seat request waiting."
    REBUYS_OFF = "rebuys_off", "The host does not allow adding chips at this table."
    REMOVED = "removed", "The host removed you from this table."
    # Tournaments (protocol.tournaments; also ``not_allowed``: a rebuy or add-on that the
    # structure or the player's stack does not allow, TOUR-14; ``insufficient_funds``,
    # ``not_host``, ``bad_structure``).
    UNKNOWN_TOURNAMENT = "unknown_tournament", "No such tournament."
    REGISTRATION_CLOSED = "registration_closed", "Registration for that tournament is closed."
    TOURNAMENT_FULL = "tournament_full", "The tournament is full."
    ALREADY_REGISTERED = (
        "already_registered", "You are already registered in that tournament.")
    NOT_REGISTERED = "not_registered", "You are not registered in that tournament."


#: Every error code (its ``str``) with its default human message: :class:`ErrorCode` as a
#: table, for lookups of codes that come as plain strings (the engine's reasons).
ERROR_CODES: dict[str, str] = {code.value: code.message for code in ErrorCode}


class ProtocolError(ValueError):
    """A frame or request broke the wire contract.

    ``code`` is an :class:`ErrorCode` (or its string); ``message`` is for humans; ``rid`` is the
    request id when it could be read from the offending request (so the answer can carry
    it), else ``None``; ``field`` names the offending field when there is one.

    The caller answers with :func:`protocol.messages.error` (or :meth:`to_message`) and
    keeps the connection open.
    """

    __slots__ = ("code", "message", "rid", "field", "retry_after", "table", "url")

    def __init__(
        self,
        code: str,
        message: str | None = None,
        *,
        rid: str | int | None = None,
        field: str | None = None,
    ) -> None:
        if code not in ERROR_CODES:
            raise ValueError(f"unknown protocol error code {code!r}")
        self.code = code
        self.message = message if message is not None else ERROR_CODES[code]
        self.rid = rid
        self.field = field
        self.retry_after: int | None = None  # seconds, for refusals that say when to retry
        self.table: str | None = None  # `moved`: the table asked for (when there is one)
        self.url: str | None = None  # `moved`: the process to reconnect to (ws://…/ws)
        super().__init__(code, self.message)

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    def __repr__(self) -> str:
        return f"ProtocolError({self.code!r}, {self.message!r}, rid={self.rid!r})"

    def to_message(self) -> dict[str, Any]:
        """The ``error`` answer for this failure: ``{type, rid, code, message}``, and
        ``retry_after`` (whole seconds) when the refusal says when to try again
        (``login_locked``, ``too_many_guests``, ``server_busy``); ``url`` and ``table`` for
        ``moved``."""
        out: dict[str, Any] = {"type": "error", "rid": self.rid, "code": self.code,
                               "message": self.message}
        if self.retry_after is not None:
            out["retry_after"] = self.retry_after
        if self.url is not None:  # `moved`: where to reconnect, and the table asked for
            out["url"] = self.url
            if self.table is not None:
                out["table"] = self.table
        return out

    @classmethod
    def moved(cls, url: str, *, table: str | None = None,
              rid: str | int | None = None) -> ProtocolError:
        """``moved``: another process of the cluster owns ``table`` (or, for
        ``create_table``, should open it): the client reconnects to ``url`` with its token,
        says ``hello`` and sends the request again."""
        exc = cls("moved", rid=rid)
        exc.url, exc.table = url, table
        return exc

    @classmethod
    def unknown_table(cls, table: str, *, rid: str | int | None = None) -> ProtocolError:
        """``unknown_table``: no table ``table`` here, and the one answer (same code, same
        message) to a request naming a private table that does not admit the asker, so
        that nothing tells the two apart."""
        return cls("unknown_table", f"no table {table[:64]!r}", rid=rid)

    @classmethod
    def unknown_tournament(cls, tournament: str, *,
                           rid: str | int | None = None) -> ProtocolError:
        """``unknown_tournament``: no tournament ``tournament``, and the one answer to a
        request naming a private tournament without its invite (as :meth:`unknown_table`)."""
        return cls("unknown_tournament", f"no tournament {tournament[:64]!r}", rid=rid)
