"""Error codes and the one exception of the protocol package.

The rule of this module: every failure the wire contract can report is a code in
:data:`ERROR_CODES`, and every failure the ``protocol`` package detects raises
:class:`ProtocolError` carrying one of those codes.  Nothing else escapes
:meth:`~protocol.codec.JsonCodec.decode` or :func:`~protocol.requests.parse_request`.

The server answers a failed request with ``{"type": "error", "rid": …, "code": …,
"message": …}`` (see :func:`protocol.messages.error`).  ``code`` is stable snake_case and is
what programs branch on; ``message`` is for humans and may change.

The rules engine raises its own error carrying a reason code; the server maps those reasons
1:1 onto codes of this table (``not_your_turn``, ``bad_amount``, ``bad_action``, ``no_hand``,
``bad_discard`` …), so every reason the engine can give has an entry here.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ERROR_CODES", "ProtocolError"]

#: Every error code of the wire contract, with the default human message.
ERROR_CODES: dict[str, str] = {
    # Frames and requests (detected by the protocol package itself).
    "malformed": "The message could not be decoded.",
    "oversized": "The message is larger than the server accepts.",
    "unknown_type": "Unknown message type.",
    "bad_field": "A field has the wrong type or an invalid value.",
    "missing_field": "A required field is missing.",
    "bad_amount": "That amount is not allowed.",
    # Connection, identity and accounts.
    "unauthorized": "Say hello (log in or play as a guest) first.",
    "bad_credentials": "Wrong name or password.",
    "bad_token": "That session token is unknown or has expired.",
    "name_taken": "That name is already taken.",
    "weak_password": "That password is too weak.",
    "rate_limited": "Too many messages; slow down.",
    "server_busy": "The server is busy; try again shortly.",
    "login_locked": "Too many failed logins; try again after `retry_after` seconds.",
    "too_many_guests": "Too many guest accounts from your address; try again later.",
    "name_reserved": "That name is reserved.",
    "shutting_down": "The server is shutting down.",
    "internal_error": "Something went wrong on the server.",
    "not_allowed": "You are not allowed to do that.",
    "unsupported": "The server does not support that here.",
    # Lobby and tables.
    "unknown_table": "No such table.",
    "table_full": "The table is full.",
    "table_closed": "The table is closing.",
    "too_many_tables": "You cannot create or join more tables.",
    "bad_variant": "Unknown or unavailable game variant.",
    "bad_structure": "That betting structure is not available for this game.",
    "bad_stakes": "The stakes do not fit the betting structure.",
    "bad_settings": "Invalid table settings.",
    "bad_deck": "A deck is not a permutation of the variant's cards.",
    "test_mode_only": "That is only available when the server runs in test mode.",
    "house_policy": "The house sets that (jackpot terms, rake limits), not a table's creator.",
    "not_watching": "You are not watching that table.",
    # Seats and money.
    "bad_seat": "No such seat at this table.",
    "seat_taken": "That seat is taken.",
    "already_seated": "You are already seated at this table.",
    "not_seated": "You are not seated at this table.",
    "insufficient_funds": "Your balance is too low for that.",
    "bad_buy_in": "The buy-in is outside the table's limits.",
    "hand_in_progress": "Not while a hand is in progress.",
    "limit_exceeded": "That would pass the house's limit.",
    # Playing a hand (engine reason codes map onto these).
    "no_hand": "There is no hand in progress.",
    "not_in_hand": "You are not in this hand.",
    "not_your_turn": "It is not your turn.",
    "bad_action": "That action is not allowed now.",
    "bad_discard": "Those cards cannot be discarded.",
    "unknown_hand": "No such hand.",
    "next_hand_started": "The next hand has started: that hand's cards can no longer be shown.",
    "chat_disabled": "Chat is disabled here.",
    "chat_limited": "This table's chat is busy; wait a moment.",
}


class ProtocolError(ValueError):
    """A frame or request broke the wire contract.

    ``code`` is a key of :data:`ERROR_CODES`; ``message`` is for humans; ``rid`` is the
    request id when it could be read from the offending request (so the answer can carry
    it), else ``None``; ``field`` names the offending field when there is one.

    The caller answers with :func:`protocol.messages.error` (or :meth:`to_message`) and
    keeps the connection open.
    """

    __slots__ = ("code", "message", "rid", "field", "retry_after")

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
        super().__init__(code, self.message)

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    def __repr__(self) -> str:
        return f"ProtocolError({self.code!r}, {self.message!r}, rid={self.rid!r})"

    def to_message(self) -> dict[str, Any]:
        """The ``error`` answer for this failure: ``{type, rid, code, message}``, and
        ``retry_after`` (whole seconds) when the refusal says when to try again
        (``login_locked``, ``too_many_guests``, ``server_busy``)."""
        out: dict[str, Any] = {"type": "error", "rid": self.rid, "code": self.code,
                               "message": self.message}
        if self.retry_after is not None:
            out["retry_after"] = self.retry_after
        return out
