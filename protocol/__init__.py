"""The wire contract (protocol v1) shared by the server, the browser client, bots, the load
tester and the tests.

This package is the authoritative, complete definition of what travels on the WebSocket;
``docs/protocol.md`` is its summary.  It imports only the standard library,
``msgpack`` and ``orjson``, never ``server``.

Transport
    One WebSocket per client at ``/ws``.  Subprotocols :data:`SUBPROTOCOL_JSON`
    (``poker.v1.json``: UTF-8 JSON in text frames) and :data:`SUBPROTOCOL_MSGPACK`
    (``poker.v1.msgpack``: MessagePack in binary frames).  The server honours the client's
    first supported offer (:func:`select_subprotocol`); no offer means JSON.  One frame is
    one message: an object with a string ``type``.  Frames over :data:`MAX_FRAME_BYTES`
    (64 KiB by default), malformed frames and unknown types are answered with ``error``;
    the connection stays usable.

Data model (:mod:`protocol.codec`)
    Both encodings carry identical objects: string keys only, integers and finite floats
    within +/-(2**53 - 1), no binary or extension values, nesting at most
    :data:`MAX_DEPTH`.  Maps keyed by seat number (``winners``, ``stacks``, ``results``)
    use the decimal seat as a string key, ``{"3": 200}``, in both encodings
    (:func:`seat_map`, :func:`parse_seat_map`).  Chips are integers; cards are two-character
    strings such as ``"As"`` (:mod:`protocol.cards`), ``null`` for a card the viewer may
    not see.

Requests and answers (:mod:`protocol.requests`)
    Every client message is a request (:data:`REQUEST_TYPES`) carrying ``rid``, a string
    (at most 64 characters) or integer of the client's choosing.  The server answers each
    exactly once: ``{"type": "ok", "rid": …, …}`` (``pong`` for ``ping``) or
    ``{"type": "error", "rid": …, "code": …, "message": …}``.  A request without ``rid`` is
    accepted and answered with ``"rid": null``.  :func:`parse_request` turns a decoded
    message into a frozen dataclass (:class:`Act`, :class:`Sit` …) or raises
    :class:`ProtocolError`.

Events (:mod:`protocol.messages`)
    Table events (:data:`TABLE_EVENT_TYPES`) carry ``table`` and ``seq``: ``seq`` counts
    that table's events from 1, the same number for every viewer, each of whom gets their
    own projection (own hole cards only).  ``resume`` with ``since`` replays events after a
    ``seq``.  ``welcome`` follows a successful hello/login/register; ``jackpot`` goes to
    every connection.  One builder function per type.

Tournaments (:mod:`protocol.tournaments`)
    Their requests (:data:`TOURNAMENT_REQUEST_TYPES`: :class:`CreateTournament`,
    :class:`TournamentRegister` …, known to :func:`parse_request`) and the builders of their
    messages (:data:`TOURNAMENT_MESSAGE_TYPES`, no ``seq``; re-exported by
    :mod:`protocol.messages`).

Errors (:mod:`protocol.errors`)
    :class:`ErrorCode` is every stable snake_case code (a ``StrEnum``) with its human
    ``message``, :data:`ERROR_CODES` the same as a table;
    :class:`ProtocolError` (``code``, ``message``, ``rid``, ``field``) is the only
    exception the decoding and validation functions raise.

Names and limits (:mod:`protocol.constants`)
    :data:`VARIANTS`, :data:`STRUCTURES`, :data:`ACTIONS`, :data:`POST_KINDS`, the type
    lists and every limit.  ``python -m protocol.export_js`` writes them, with the error
    codes and field lists, to ``client_web/protocol.js`` for the browser.
"""

from __future__ import annotations

from . import messages, tournaments
from .cards import ALL_CARDS, is_card
from .codec import (
    CODECS,
    JSON_CODEC,
    MSGPACK_CODEC,
    Codec,
    JsonCodec,
    MsgpackCodec,
    check_message,
    codec_for,
    parse_seat_map,
    seat_map,
    select_subprotocol,
)
from .constants import (
    ACTIONS,
    ANSWER_TYPES,
    DEFAULT_SUBPROTOCOL,
    EVENT_TYPES,
    MAX_CHAT_LEN,
    MAX_DEPTH,
    MAX_FRAME_BYTES,
    MAX_ID_LEN,
    MAX_NAME_LEN,
    MAX_SAFE_INT,
    MAX_SEATS,
    POST_KINDS,
    PROTOCOL_VERSION,
    REQUEST_TYPES,
    STRUCTURES,
    SUBPROTOCOL_JSON,
    SUBPROTOCOL_MSGPACK,
    SUBPROTOCOLS,
    TABLE_EVENT_TYPES,
    TOURNAMENT_GAMES,
    TOURNAMENT_KINDS,
    TOURNAMENT_MESSAGE_TYPES,
    TOURNAMENT_REQUEST_TYPES,
    TOURNAMENT_SEAT_REASONS,
    TOURNAMENT_STATES,
    VARIANTS,
)
from .errors import ERROR_CODES, ErrorCode, ProtocolError
from .messages import MESSAGE_FIELDS, check_server_message
from .requests import (
    REQUEST_CLASSES,
    Act,
    ChangePassword,
    Chat,
    CreateTable,
    Hand,
    Hello,
    History,
    Host,
    Leave,
    Login,
    Logout,
    Mute,
    Ping,
    Register,
    Request,
    Resume,
    ShowHands,
    Sit,
    SitIn,
    SitOut,
    Tables,
    Unwatch,
    Watch,
    parse_request,
    request_fields,
)
from .tournaments import (
    CancelTournament,
    CreateTournament,
    Tournament,
    TournamentAddOn,
    TournamentRebuy,
    TournamentRegister,
    Tournaments,
    TournamentUnregister,
    UnfollowTournament,
)

__all__ = [
    "ACTIONS",
    "ALL_CARDS",
    "ANSWER_TYPES",
    "CODECS",
    "DEFAULT_SUBPROTOCOL",
    "ERROR_CODES",
    "EVENT_TYPES",
    "ErrorCode",
    "JSON_CODEC",
    "MAX_CHAT_LEN",
    "MAX_DEPTH",
    "MAX_FRAME_BYTES",
    "MAX_ID_LEN",
    "MAX_NAME_LEN",
    "MAX_SAFE_INT",
    "MAX_SEATS",
    "MESSAGE_FIELDS",
    "MSGPACK_CODEC",
    "POST_KINDS",
    "PROTOCOL_VERSION",
    "REQUEST_CLASSES",
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
    "Act",
    "CancelTournament",
    "Chat",
    "Codec",
    "CreateTable",
    "CreateTournament",
    "Hand",
    "Hello",
    "History",
    "Host",
    "JsonCodec",
    "ChangePassword",
    "Leave",
    "Login",
    "Logout",
    "Mute",
    "MsgpackCodec",
    "Ping",
    "ProtocolError",
    "Register",
    "Request",
    "Resume",
    "ShowHands",
    "Sit",
    "SitIn",
    "SitOut",
    "Tables",
    "Tournament",
    "TournamentAddOn",
    "TournamentRebuy",
    "TournamentRegister",
    "TournamentUnregister",
    "Tournaments",
    "UnfollowTournament",
    "Unwatch",
    "Watch",
    "check_message",
    "check_server_message",
    "codec_for",
    "is_card",
    "messages",
    "parse_request",
    "parse_seat_map",
    "request_fields",
    "seat_map",
    "select_subprotocol",
    "tournaments",
]
