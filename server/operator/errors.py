"""The admin API's refusals: a stable snake_case code, its HTTP status and a default message.

Rule of this module: every refusal of the admin API is an :class:`AdminError` with a code of
:data:`ADMIN_ERRORS`, answered as ``{"error": {"code": ..., "message": ...}}`` with the
code's status, and raised before anything changed.
"""

from __future__ import annotations

__all__ = ["ADMIN_ERRORS", "AdminError"]

ADMIN_ERRORS: dict[str, tuple[int, str]] = {
    "admin_disabled": (403, "the admin API is off: start the server with an operator token "
                            "(--operator-token-file or $POKER_OPERATOR_TOKEN)"),
    "credential_required": (401, "an operator credential is required "
                                 "(Authorization: Bearer <token or session>)"),
    "bad_credential": (401, "this operator credential is not valid"),
    "credential_expired": (401, "this operator session has expired; open a new one"),
    "operator_locked": (429, "too many failed credentials from your address; try again "
                             "after Retry-After seconds"),
    "host_not_allowed": (421, "this listener does not answer to that Host name (add it to "
                              "operator_host_names)"),
    "bad_operator": (400, "the operator name must be 1..32 letters, digits or ._@-"),
    "unknown_endpoint": (404, "no such admin endpoint"),
    "method_not_allowed": (405, "this endpoint does not take that method"),
    "bad_json": (400, "the body must be a JSON object"),
    "bad_field": (400, "a field is missing or has the wrong type"),
    "bad_reason": (400, "a reason is required, within the operator's bounds"),
    "bad_text": (400, "the text is empty or longer than the operator's bound"),
    "bad_amount": (400, "the amount must be a non-zero integer within the operator's bound"),
    "unknown_table": (404, "no such open table"),
    "unknown_player": (404, "no such account"),
    "unknown_hand": (404, "no such hand"),
    "unknown_tournament": (404, "no such tournament"),
    "bad_structure": (400, "the tournament's structure cannot be played (see the message)"),
    "not_allowed": (409, "that tournament has already ended"),
    "not_seated": (409, "that player is neither seated at nor waiting for that table"),
    "insufficient_balance": (409, "the balance is smaller than the debit"),
    "balance_limit": (409, "the credit would take the balance above max_balance"),
    "unavailable": (503, "that store is not available"),
}
"""code -> (HTTP status, default message)."""


class AdminError(Exception):
    """A refusal with one of :data:`ADMIN_ERRORS`' codes (``message``: for humans)."""

    def __init__(self, code: str, message: str | None = None) -> None:
        if code not in ADMIN_ERRORS:
            raise ValueError(f"unknown admin error code {code!r}")
        self.code = code
        self.status, default = ADMIN_ERRORS[code]
        self.message = message if message is not None else default
        super().__init__(f"{code}: {self.message}")

    def body(self) -> dict[str, dict[str, str]]:
        return {"error": {"code": self.code, "message": self.message}}
