"""Names and limits of the wire contract (v1).

The rule of this module: every name a peer may send or receive (subprotocols, message
types, actions, variants, structures, posting kinds) and every limit the protocol enforces is
a constant here, so the server, the bots, the load tester, the tests and (through
``python -m protocol.export_js``) the browser client share one spelling.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "ACTIONS",
    "ANSWER_TYPES",
    "DEFAULT_SUBPROTOCOL",
    "EVENT_TYPES",
    "MAX_CHAT_LEN",
    "MAX_DECKS",
    "MAX_DECK_LEN",
    "MAX_DEPTH",
    "MAX_DISCARD",
    "MAX_FRAME_BYTES",
    "MAX_HISTORY_LIMIT",
    "MAX_LEVELS",
    "MAX_LEVEL_KEYS",
    "MAX_LOBBY_LIMIT",
    "MAX_ID_LEN",
    "MAX_NAME_LEN",
    "MAX_PASSWORD_LEN",
    "MAX_SAFE_INT",
    "MAX_SEATS",
    "HISTORY_FORMATS",
    "HOST_ACTIONS",
    "LEDGER_FORMATS",
    "MAX_SETTINGS_KEYS",
    "MAX_STAKES_KEYS",
    "MAX_STRUCTURE_DEPTH",
    "MAX_STRUCTURE_LIST",
    "MAX_STRUCTURE_NODES",
    "MAX_STRUCTURE_TEXT",
    "MAX_TABLE_NAME_LEN",
    "MAX_TOKEN_LEN",
    "MAX_TOURNAMENT_CAPACITY",
    "MAX_TOURNAMENT_NAME_LEN",
    "POST_KINDS",
    "PROTOCOL_VERSION",
    "REQUEST_TYPES",
    "STRUCTURES",
    "SUBPROTOCOLS",
    "SUBPROTOCOL_JSON",
    "SUBPROTOCOL_MSGPACK",
    "TABLE_EVENT_TYPES",
    "TOURNAMENT_GAMES",
    "TOURNAMENT_KINDS",
    "TOURNAMENT_MESSAGE_TYPES",
    "TOURNAMENT_REQUEST_TYPES",
    "TOURNAMENT_SEAT_REASONS",
    "TOURNAMENT_STATES",
    "VARIANTS",
]

PROTOCOL_VERSION: Final = 1

# --- Transport -------------------------------------------------------------------------
#: JSON in WebSocket text frames (UTF-8).
SUBPROTOCOL_JSON: Final = "poker.v1.json"
#: MessagePack in WebSocket binary frames.
SUBPROTOCOL_MSGPACK: Final = "poker.v1.msgpack"
#: Supported subprotocols, in the server's order of preference.
SUBPROTOCOLS: Final = (SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK)
#: What a connection speaks when the client offered no subprotocol.
DEFAULT_SUBPROTOCOL: Final = SUBPROTOCOL_JSON

# --- Limits ----------------------------------------------------------------------------
#: Largest frame accepted by default (bytes of the encoded frame); configurable per call.
MAX_FRAME_BYTES: Final = 64 * 1024
#: Deepest nesting of objects/arrays accepted (the top-level object is depth 1).
MAX_DEPTH: Final = 32
#: Largest magnitude of any number on the wire: JavaScript's Number.MAX_SAFE_INTEGER.
MAX_SAFE_INT: Final = 2**53 - 1
#: Player and account names: 1..24 printable characters after trimming.
MAX_NAME_LEN: Final = 24
#: Table names (optional in create_table).
MAX_TABLE_NAME_LEN: Final = 48
#: Chat text: 1..200 characters after trimming.
MAX_CHAT_LEN: Final = 200
#: Table ids, hand ids and string request ids: at most 64 characters.
MAX_ID_LEN: Final = 64
#: Session tokens.
MAX_TOKEN_LEN: Final = 512
#: Passwords (the server sets the minimum strength, see ``weak_password``).
MAX_PASSWORD_LEN: Final = 128
#: Seats at one table.
MAX_SEATS: Final = 10
#: Cards one draw may discard.
MAX_DISCARD: Final = 5
#: Decks one create_table may carry (test mode), and cards per deck.
MAX_DECKS: Final = 256
MAX_DECK_LEN: Final = 52
#: Entries in ``stakes`` and ``settings`` objects.
MAX_STAKES_KEYS: Final = 16
MAX_SETTINGS_KEYS: Final = 64
#: Most hands one ``history`` request may list.
MAX_HISTORY_LIMIT: Final = 100
#: Most lobby entries one ``tables`` request may ask for (the server cuts it further to its
#: ``lobby_max_page``).
MAX_LOBBY_LIMIT: Final = 1000
#: ``action`` of a ``host`` request (the table's host only; docs/protocol.md "Private games").
HOST_ACTIONS: Final = (
    "approve", "refuse", "pause", "resume", "remove", "change", "transfer", "close",
    "rotate_code", "ledger",
)
#: ``format`` of a host's ``ledger``: as data, or also as CSV text.
LEDGER_FORMATS: Final = ("json", "csv")
#: ``format`` of a ``hand`` request: the record as data, PokerStars-style text, PHH (TOML).
HISTORY_FORMATS: Final = ("json", "pokerstars", "phh")
#: Tournament names (``create_tournament``): 1..40 printable characters after trimming.
MAX_TOURNAMENT_NAME_LEN: Final = 40
#: A tournament's ``capacity``: 2..10000 entrants (``min_field`` is bounded by it too).
MAX_TOURNAMENT_CAPACITY: Final = 10_000
#: Levels one ``create_tournament`` may list, and entries in one level object.
MAX_LEVELS: Final = 100
MAX_LEVEL_KEYS: Final = 16
#: Bounds of the plain data in a tournament's ``levels`` and ``settings`` (the protocol checks
#: only shapes; the server checks their poker meaning): nesting (the field's own list or
#: object is depth 1), items of one list, characters of one string, values in all.
MAX_STRUCTURE_DEPTH: Final = 5
MAX_STRUCTURE_LIST: Final = 1000
MAX_STRUCTURE_TEXT: Final = 200
MAX_STRUCTURE_NODES: Final = 5000

# --- Games -----------------------------------------------------------------------------
VARIANTS: Final = ("holdem", "manila", "manila3", "draw", "stud5", "stud7", "caribbean")
STRUCTURES: Final = ("fixed_limit", "spread_limit", "pot_limit", "half_pot", "no_limit")
ACTIONS: Final = (
    "fold", "check", "call", "bet", "raise", "bring_in", "complete", "draw", "ante", "play",
    "over_blind", "decline", "run_twice", "run_once", "show", "muck",
)
#: Games a tournament may play: the pot games (Caribbean Stud is house-banked: no tournaments).
TOURNAMENT_GAMES: Final = ("holdem", "manila", "manila3", "draw", "stud5", "stud7")
#: ``kind`` of a tournament: a sit-and-go (starts when full) or scheduled (starts at a time).
TOURNAMENT_KINDS: Final = ("sng", "scheduled")
#: ``state`` of a tournament (``tournaments`` filter and messages).
TOURNAMENT_STATES: Final = ("registering", "running", "finished", "cancelled")
#: ``why`` of a ``tournament_seat`` push: the first draw (TOUR-04), a move to balance
#: (TOUR-06), a broken table (TOUR-08), a late entry or a re-entry (TOUR-14).
TOURNAMENT_SEAT_REASONS: Final = ("start", "balance", "break", "late", "re_entry",
                                   "restore")
#: ``kind`` of a ``posted`` event (``straddle``: a home game's house rule, STRAD-01).
POST_KINDS: Final = ("blind", "ante", "bring_in", "over_blind", "straddle")

# --- Message types ---------------------------------------------------------------------
#: Every request type a client may send (see :mod:`protocol.requests`).
REQUEST_TYPES: Final = (
    "hello", "login", "register", "logout", "change_password", "ping",
    "tables", "create_table", "watch", "unwatch",
    "sit", "leave", "act", "chat", "sit_out", "sit_in", "show_hands", "resume",
    "history", "hand", "mute", "host",
    "tournaments", "tournament", "unfollow_tournament", "tournament_register",
    "tournament_unregister", "tournament_rebuy", "tournament_add_on", "create_tournament",
    "cancel_tournament",
)
#: The tournament requests among them (see :mod:`protocol.tournaments`).
TOURNAMENT_REQUEST_TYPES: Final = REQUEST_TYPES[REQUEST_TYPES.index("tournaments"):]
#: Answers to requests; each carries the request's ``rid`` (``null`` when it had none).
#: ``pong`` is the success answer to ``ping``; every other success answer is ``ok``.
ANSWER_TYPES: Final = ("ok", "error", "pong")
#: Events carrying ``table`` and ``seq`` (see :mod:`protocol.messages`).
TABLE_EVENT_TYPES: Final = (
    "snapshot", "seated", "left", "sat_out", "sat_in",
    "hand_started", "posted", "dealt", "drew", "board", "turn", "acted",
    "showdown", "mucked", "pot_awarded", "pots", "hand_ended", "chat",
    "dealer", "settled", "table_closed", "seat_request", "seat_refused", "table_updated",
    "ledger", "presence",
)
#: Tournament messages (no ``seq``; see :mod:`protocol.tournaments`): the lobby's list, one
#: tournament's state, and the two pushes to a player (go to this table; your result).
TOURNAMENT_MESSAGE_TYPES: Final = (
    "tournaments", "tournament", "tournament_seat", "tournament_result")
#: Every message type the server sends that is not an answer: the table events, plus
#: ``welcome`` (after hello/login/register), ``jackpot`` (broadcast to every connection;
#: no ``seq``), ``balance`` (to a player's connections when their balance changes),
#: ``notice`` and the tournament messages.
EVENT_TYPES: Final = (*TABLE_EVENT_TYPES, "jackpot", "welcome", "balance", "notice",
                      *TOURNAMENT_MESSAGE_TYPES)
