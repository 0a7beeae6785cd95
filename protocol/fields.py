"""Field validators shared by the request types.

The rule of this module: each validator takes a decoded value and returns it in canonical
form (names trimmed and NFC-normalised, lists as tuples; the plain data inside a
tournament's levels and settings keeps its lists) or raises
:class:`~protocol.errors.ProtocolError` with a specific code and the field name.  They are
idempotent: validating a canonical value returns an equal value.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable
from typing import Any

from .cards import is_card
from .constants import (
    ACTIONS,
    HISTORY_FORMATS,
    HOST_ACTIONS,
    LEDGER_FORMATS,
    MAX_CHAT_LEN,
    MAX_DECK_LEN,
    MAX_DECKS,
    MAX_DISCARD,
    MAX_HISTORY_LIMIT,
    MAX_ID_LEN,
    MAX_LEVEL_KEYS,
    MAX_LEVELS,
    MAX_LOBBY_LIMIT,
    MAX_NAME_LEN,
    MAX_PASSWORD_LEN,
    MAX_SAFE_INT,
    MAX_SEATS,
    MAX_SETTINGS_KEYS,
    MAX_STAKES_KEYS,
    MAX_STRUCTURE_DEPTH,
    MAX_STRUCTURE_LIST,
    MAX_STRUCTURE_NODES,
    MAX_STRUCTURE_TEXT,
    MAX_TABLE_NAME_LEN,
    MAX_TOKEN_LEN,
    MAX_TOURNAMENT_CAPACITY,
    MAX_TOURNAMENT_NAME_LEN,
    STRUCTURES,
    TOURNAMENT_GAMES,
    TOURNAMENT_KINDS,
    TOURNAMENT_STATES,
    VARIANTS,
)
from .errors import ProtocolError

Validator = Callable[[str, Any], Any]

#: The fields of one seat entry of a ``snapshot`` (``messages.seat_entry``): (required,
#: optional). ``sitting_out`` (wave 3) is always there; ``guest``/``tag`` for a guest account;
#: ``deadline`` (wave 3, Caribbean Stud) for a seat that still has to decide in the phase.
SEAT_FIELDS: tuple[tuple[str, ...], tuple[str, ...]] = (
    ("seat", "name", "stack", "bet", "state", "cards", "up", "sitting_out"),
    ("guest", "tag", "deadline", "wait_for_bb", "disconnected", "bot"),
)

# Bidirectional controls let a name or a chat line display as something it is not.
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")
# Categories never allowed in chat: controls, surrogates, private use, unassigned.
_CHAT_BANNED_CATEGORIES = frozenset({"Cc", "Cs", "Co", "Cn"})


def _bad(field: str, message: str, code: str = "bad_field") -> ProtocolError:
    return ProtocolError(code, f"`{field}`: {message}", field=field)


def is_int(value: Any) -> bool:
    """True for a real integer (``bool`` is not one)."""
    return isinstance(value, int) and not isinstance(value, bool)


def v_rid(field: str, value: Any) -> str | int | None:
    """Request id: a string of at most 64 characters or a safe integer, or absent."""
    if value is None:
        return None
    if is_int(value):
        if -MAX_SAFE_INT <= value <= MAX_SAFE_INT:
            return int(value)
        raise _bad(field, "integer out of range")
    if isinstance(value, str):
        if len(value) <= MAX_ID_LEN:
            return value
        raise _bad(field, f"longer than {MAX_ID_LEN} characters")
    raise _bad(field, "must be a string or an integer")


def _bounded_str(field: str, value: Any, max_len: int) -> str:
    if not isinstance(value, str):
        raise _bad(field, "must be a string")
    if not 1 <= len(value) <= max_len:
        raise _bad(field, f"must be 1 to {max_len} characters")
    return value


def v_id(field: str, value: Any) -> str:
    """Table id: a non-empty printable string of at most 64 characters."""
    text = _bounded_str(field, value, MAX_ID_LEN)
    if not text.isprintable():
        raise _bad(field, "must be printable")
    return text


def v_hand_id(field: str, value: Any) -> str | int:
    """Hand id: a table-id-like string or a non-negative safe integer."""
    if is_int(value):
        if 0 <= value <= MAX_SAFE_INT:
            return int(value)
        raise _bad(field, "must be a non-negative integer")
    return v_id(field, value)


def _clean_name(field: str, value: Any, max_len: int) -> str:
    if not isinstance(value, str):
        raise _bad(field, "must be a string")
    if len(value) > 4 * max_len:
        raise _bad(field, f"must be 1 to {max_len} characters")
    text = unicodedata.normalize("NFC", value).strip()
    if not 1 <= len(text) <= max_len:
        raise _bad(field, f"must be 1 to {max_len} characters")
    if not text.isprintable() or any(c in _BIDI_CONTROLS for c in text):
        raise _bad(field, "must be printable")
    return text


def v_name(field: str, value: Any) -> str:
    """Player name: 1..24 printable characters, trimmed and NFC-normalised."""
    return _clean_name(field, value, MAX_NAME_LEN)


def v_table_name(field: str, value: Any) -> str:
    """Table name: 1..48 printable characters, trimmed and NFC-normalised."""
    return _clean_name(field, value, MAX_TABLE_NAME_LEN)


def v_chat_text(field: str, value: Any) -> str:
    """Chat text: 1..200 characters after trimming; no control, bidi-control, private-use
    or unassigned characters (emoji sequences with joiners are fine)."""
    if not isinstance(value, str):
        raise _bad(field, "must be a string")
    if len(value) > 4 * MAX_CHAT_LEN:
        raise _bad(field, f"must be 1 to {MAX_CHAT_LEN} characters")
    text = unicodedata.normalize("NFC", value).strip()
    if not 1 <= len(text) <= MAX_CHAT_LEN:
        raise _bad(field, f"must be 1 to {MAX_CHAT_LEN} characters")
    for c in text:
        if c in _BIDI_CONTROLS or unicodedata.category(c) in _CHAT_BANNED_CATEGORIES:
            raise _bad(field, "contains a control or unassigned character")
    return text


def v_password(field: str, value: Any) -> str:
    """Password: 1..128 characters (the server judges strength)."""
    return _bounded_str(field, value, MAX_PASSWORD_LEN)


def v_token(field: str, value: Any) -> str:
    """Session token: 1..512 printable ASCII characters."""
    text = _bounded_str(field, value, MAX_TOKEN_LEN)
    if not (text.isascii() and text.isprintable()):
        raise _bad(field, "must be printable ASCII")
    return text


def v_seat(field: str, value: Any) -> int:
    """Seat number: an integer 0 <= seat < MAX_SEATS."""
    if not is_int(value):
        raise _bad(field, "must be an integer")
    if not 0 <= value < MAX_SEATS:
        raise _bad(field, f"must be 0 to {MAX_SEATS - 1}")
    return int(value)


def v_bot_count(field: str, value: Any) -> int:
    """Bots at a practice table: 0..MAX_SEATS - 1 (the table checks it against its seats)."""
    if not is_int(value):
        raise _bad(field, "must be an integer")
    if not 0 <= value < MAX_SEATS:
        raise _bad(field, f"must be 0 to {MAX_SEATS - 1}")
    return int(value)


def v_seat_count(field: str, value: Any) -> int:
    """Number of seats at a table: 1..MAX_SEATS."""
    if not is_int(value):
        raise _bad(field, "must be an integer")
    if not 1 <= value <= MAX_SEATS:
        raise _bad(field, f"must be 1 to {MAX_SEATS}")
    return int(value)


def v_amount(field: str, value: Any) -> int:
    """Chip amount: an integer 0 <= amount < 2**53 (``bad_amount`` otherwise)."""
    if not is_int(value):
        raise _bad(field, "must be a whole number of chips", "bad_amount")
    if not 0 <= value <= MAX_SAFE_INT:
        raise _bad(field, "must be 0 or more and below 2**53", "bad_amount")
    return int(value)


def v_seq(field: str, value: Any) -> int:
    """Event sequence number: a non-negative safe integer."""
    if not is_int(value) or not 0 <= value <= MAX_SAFE_INT:
        raise _bad(field, "must be a non-negative integer")
    return int(value)


def v_limit(field: str, value: Any) -> int:
    """Page size: 1..MAX_HISTORY_LIMIT."""
    if not is_int(value) or not 1 <= value <= MAX_HISTORY_LIMIT:
        raise _bad(field, f"must be an integer 1 to {MAX_HISTORY_LIMIT}")
    return int(value)


def v_lobby_limit(field: str, value: Any) -> int:
    """Lobby page size: 1..MAX_LOBBY_LIMIT (the server cuts it to its ``lobby_max_page``)."""
    if not is_int(value) or not 1 <= value <= MAX_LOBBY_LIMIT:
        raise _bad(field, f"must be an integer 1 to {MAX_LOBBY_LIMIT}")
    return int(value)


def v_free_seats(field: str, value: Any) -> int:
    """Free seats wanted in the lobby: 0..MAX_SEATS."""
    if not is_int(value) or not 0 <= value <= MAX_SEATS:
        raise _bad(field, f"must be an integer 0 to {MAX_SEATS}")
    return int(value)


def v_number(field: str, value: Any) -> int | float:
    """Any number (not a boolean) within +/-(2**53 - 1)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _bad(field, "must be a number")
    if not -MAX_SAFE_INT <= value <= MAX_SAFE_INT:
        raise _bad(field, "out of range")
    return value


def v_bool(field: str, value: Any) -> bool:
    """A real boolean."""
    if not isinstance(value, bool):
        raise _bad(field, "must be true or false")
    return value


def _enum(names: tuple[str, ...]) -> Validator:
    def check(field: str, value: Any) -> str:
        if not isinstance(value, str) or value not in names:
            raise _bad(field, f"must be one of {', '.join(names)}")
        return value

    return check


v_variant = _enum(VARIANTS)
v_structure = _enum(STRUCTURES)
v_action = _enum(ACTIONS)
v_history_format = _enum(HISTORY_FORMATS)
v_host_action = _enum(HOST_ACTIONS)
v_ledger_format = _enum(LEDGER_FORMATS)


def v_card(field: str, value: Any) -> str:
    """A card string such as ``"As"``."""
    if not is_card(value):
        raise _bad(field, f"not a card: {str(value)[:8]!r}")
    return str(value)


def v_discard(field: str, value: Any) -> tuple[str, ...]:
    """Discards: a list of 0..5 distinct cards (``bad_discard`` for repeats or too many)."""
    if not isinstance(value, list | tuple):
        raise _bad(field, "must be a list of cards")
    if len(value) > MAX_DISCARD:
        raise _bad(field, f"at most {MAX_DISCARD} cards", "bad_discard")
    cards = tuple(v_card(field, c) for c in value)
    if len(set(cards)) != len(cards):
        raise _bad(field, "a card is listed twice", "bad_discard")
    return cards


def v_decks(field: str, value: Any) -> tuple[tuple[str, ...], ...]:
    """Test decks: a list of 1..256 lists of well-formed cards (at most 52 each).

    Only the structure is checked here; whether each deck is a permutation of the variant's
    cards (``bad_deck``) and whether the server runs in test mode (``test_mode_only``) is
    the server's check.
    """
    if not isinstance(value, list | tuple) or not 1 <= len(value) <= MAX_DECKS:
        raise _bad(field, f"must be a list of 1 to {MAX_DECKS} decks")
    decks = []
    for deck in value:
        if not isinstance(deck, list | tuple) or not 1 <= len(deck) <= MAX_DECK_LEN:
            raise _bad(field, f"each deck must be a list of 1 to {MAX_DECK_LEN} cards")
        decks.append(tuple(v_card(field, c) for c in deck))
    return tuple(decks)


def v_stakes(field: str, value: Any) -> dict[str, int | tuple[int, ...]]:
    """Stakes: an object of at most 16 entries, each a chip amount or a list of at most
    8 chip amounts (``{"blinds": [50, 100], "ante": 10}``).  Which keys a structure needs
    is the server's check (``bad_stakes``)."""
    if not isinstance(value, dict) or len(value) > MAX_STAKES_KEYS:
        raise _bad(field, f"must be an object of at most {MAX_STAKES_KEYS} entries")
    out: dict[str, int | tuple[int, ...]] = {}
    for key, item in value.items():
        if not isinstance(key, str) or not 1 <= len(key) <= 32:
            raise _bad(field, "keys must be strings of 1 to 32 characters")
        if isinstance(item, list | tuple):
            if len(item) > 8:
                raise _bad(field, f"`{key}` holds more than 8 amounts")
            out[key] = tuple(v_amount(f"{field}.{key}", x) for x in item)
        else:
            out[key] = v_amount(f"{field}.{key}", item)
    return out


def v_settings(field: str, value: Any) -> dict[str, Any]:
    """Table settings: an object of at most 64 entries with string keys; values are any
    plain data (the server validates names and values, ``bad_settings``)."""
    if not isinstance(value, dict) or len(value) > MAX_SETTINGS_KEYS:
        raise _bad(field, f"must be an object of at most {MAX_SETTINGS_KEYS} entries")
    for key in value:
        if not isinstance(key, str) or not 1 <= len(key) <= 64:
            raise _bad(field, "keys must be strings of 1 to 64 characters")
    return dict(value)


def v_seats_list(field: str, value: Any) -> tuple[int, ...]:
    """A list of distinct seat numbers."""
    if not isinstance(value, list | tuple) or len(value) > MAX_SEATS:
        raise _bad(field, f"must be a list of at most {MAX_SEATS} seats")
    seats = tuple(v_seat(field, s) for s in value)
    if len(set(seats)) != len(seats):
        raise _bad(field, "a seat is listed twice")
    return seats


# --- Tournaments (protocol.tournaments) ------------------------------------------------
_TOURNAMENT_ID = re.compile(rf"[A-Za-z0-9_-]{{1,{MAX_ID_LEN}}}")

v_tournament_game = _enum(TOURNAMENT_GAMES)
v_tournament_kind = _enum(TOURNAMENT_KINDS)
v_tournament_state = _enum(TOURNAMENT_STATES)


def v_tournament_id(field: str, value: Any) -> str:
    """Tournament id: 1..64 characters of ``[A-Za-z0-9_-]``."""
    if not isinstance(value, str) or _TOURNAMENT_ID.fullmatch(value) is None:
        raise _bad(field, f"must be 1 to {MAX_ID_LEN} characters of A-Z, a-z, 0-9, _ and -")
    return value


def v_tournament_name(field: str, value: Any) -> str:
    """Tournament name: 1..40 printable characters, trimmed and NFC-normalised."""
    return _clean_name(field, value, MAX_TOURNAMENT_NAME_LEN)


def v_field_size(field: str, value: Any) -> int:
    """A tournament's ``capacity`` or ``min_field``: 2..MAX_TOURNAMENT_CAPACITY entrants."""
    if not is_int(value) or not 2 <= value <= MAX_TOURNAMENT_CAPACITY:
        raise _bad(field, f"must be an integer 2 to {MAX_TOURNAMENT_CAPACITY}")
    return int(value)


def v_epoch(field: str, value: Any) -> int | float:
    """A time in Unix seconds: a finite number 0..2**53 - 1 (whether it is in the future is
    the server's check)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _bad(field, "must be a number of seconds since 1970")
    if not (math.isfinite(value) and 0 <= value <= MAX_SAFE_INT):
        raise _bad(field, "must be 0 or more and below 2**53")
    return value


def _plain_data(field: str, value: Any, depth: int, budget: list[int]) -> Any:
    """A copy of ``value`` (tuples as lists) checked to be plain data within the structure
    bounds; ``depth`` is its own nesting (the field's value is 1); ``budget`` holds how many
    values may still come (one cell, shared by the whole field)."""
    budget[0] -= 1
    if budget[0] < 0:
        raise _bad(field, f"holds more than {MAX_STRUCTURE_NODES} values")
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        if not (math.isfinite(value) and -MAX_SAFE_INT <= value <= MAX_SAFE_INT):
            raise _bad(field, "holds a number out of range")
        return value
    if isinstance(value, str):
        if len(value) > MAX_STRUCTURE_TEXT:
            raise _bad(field, f"holds a string longer than {MAX_STRUCTURE_TEXT} characters")
        return value
    if not isinstance(value, dict | list | tuple):
        raise _bad(field, "holds a value that is not plain data")
    if depth > MAX_STRUCTURE_DEPTH:
        raise _bad(field, f"nested more than {MAX_STRUCTURE_DEPTH} deep")
    if isinstance(value, dict):
        if len(value) > MAX_SETTINGS_KEYS:
            raise _bad(field, f"holds an object of more than {MAX_SETTINGS_KEYS} entries")
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str) or not 1 <= len(key) <= 64:
                raise _bad(field, "keys must be strings of 1 to 64 characters")
            out[key] = _plain_data(field, item, depth + 1, budget)
        return out
    if len(value) > MAX_STRUCTURE_LIST:
        raise _bad(field, f"holds a list of more than {MAX_STRUCTURE_LIST} items")
    return [_plain_data(field, item, depth + 1, budget) for item in value]


def v_levels(field: str, value: Any) -> tuple[dict[str, Any], ...]:
    """A tournament's levels: a list of 1..MAX_LEVELS objects of at most MAX_LEVEL_KEYS
    entries each, holding plain data (nesting, sizes: the MAX_STRUCTURE_* bounds).  What a
    level means (``stakes``, ``minutes``, ``game`` …) is the server's check
    (``bad_structure``)."""
    if not isinstance(value, list | tuple) or not 1 <= len(value) <= MAX_LEVELS:
        raise _bad(field, f"must be a list of 1 to {MAX_LEVELS} levels")
    budget = [MAX_STRUCTURE_NODES]
    levels = []
    for n, level in enumerate(value, 1):
        if not isinstance(level, dict) or len(level) > MAX_LEVEL_KEYS:
            raise _bad(field, f"level {n} must be an object of at most {MAX_LEVEL_KEYS} entries")
        levels.append(_plain_data(field, level, 2, budget))
    return tuple(levels)


def v_structure_settings(field: str, value: Any) -> dict[str, Any]:
    """A tournament's structure settings (``starting_stack``, ``seats``, ``breaks`` …): an
    object of at most MAX_SETTINGS_KEYS entries holding plain data within the
    MAX_STRUCTURE_* bounds; names and values are the server's check (``bad_structure``)."""
    if not isinstance(value, dict):
        raise _bad(field, f"must be an object of at most {MAX_SETTINGS_KEYS} entries")
    out: dict[str, Any] = _plain_data(field, value, 1, [MAX_STRUCTURE_NODES])
    return out
