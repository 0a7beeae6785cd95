"""Frames to messages and back: the two encodings of the wire contract.

The rule of this module: a frame that :meth:`Codec.decode` returns is a plain message that
both encodings can carry identically, and every way a frame can be bad raises
:class:`~protocol.errors.ProtocolError` (never anything else).

Both encodings carry the same data model, the intersection of JSON and MessagePack:

* the top level is an object (a map) with a non-empty string ``type``;
* object keys are strings, always.  Maps keyed by seat (``winners``, ``stacks``,
  ``settled`` …) use the seat number written in decimal as the key (``{"3": 200}``), in
  both encodings, so that JSON and MessagePack frames decode to equal objects;
  :func:`seat_map` and :func:`parse_seat_map` convert;
* values are objects, arrays, strings, booleans, ``null``, integers and finite floats whose
  magnitude is at most :data:`~protocol.constants.MAX_SAFE_INT` (2**53 - 1, what a browser
  can hold exactly); no NaN or infinities, no MessagePack binary or extension types
  (timestamps included);
* nesting is at most :data:`~protocol.constants.MAX_DEPTH` deep and a frame is at most
  ``max_bytes`` long (default :data:`~protocol.constants.MAX_FRAME_BYTES`).

JSON travels in text frames (``str``), MessagePack in binary frames (``bytes``); a frame of
the other kind is ``malformed``.  Encoding checks the same rules (pass ``check=False`` to
skip the check for messages already known to be clean, e.g. built by
:mod:`protocol.messages` from validated values).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping, Sequence
from typing import Any, Final, Protocol

import msgpack
import orjson

from .constants import (
    DEFAULT_SUBPROTOCOL,
    MAX_DEPTH,
    MAX_FRAME_BYTES,
    MAX_ID_LEN,
    MAX_SAFE_INT,
    SUBPROTOCOL_JSON,
    SUBPROTOCOL_MSGPACK,
)
from .errors import ProtocolError

__all__ = [
    "CODECS",
    "JSON_CODEC",
    "MSGPACK_CODEC",
    "Codec",
    "JsonCodec",
    "MsgpackCodec",
    "check_message",
    "codec_for",
    "parse_seat_map",
    "seat_map",
    "select_subprotocol",
]

Message = dict[str, Any]


class Codec(Protocol):
    """What the server and clients need from an encoding."""

    #: The WebSocket subprotocol name of this encoding.
    subprotocol: str
    #: True when frames are binary (``bytes``), false for text frames (``str``).
    binary: bool

    def encode(self, message: Mapping[str, Any], *, check: bool = True) -> str | bytes:
        """One message to one frame."""
        ...

    def decode(
        self, frame: str | bytes, *, max_bytes: int = MAX_FRAME_BYTES, max_depth: int = MAX_DEPTH,
        trusted: bool = False,
    ) -> Message:
        """One frame to one message, or :class:`ProtocolError` (``trusted``: see
        :func:`check_message`)."""
        ...


def _peek_rid(obj: Mapping[str, Any]) -> str | int | None:
    """The request id of a decoded object, when it is a well-formed one (for answers)."""
    rid = obj.get("rid")
    if isinstance(rid, bool):
        return None
    if isinstance(rid, int) and -MAX_SAFE_INT <= rid <= MAX_SAFE_INT:
        return rid
    if isinstance(rid, str) and len(rid) <= MAX_ID_LEN:
        return rid
    return None


def _check_tree(obj: Any, max_depth: int) -> None:
    """Raise ``malformed`` unless ``obj`` fits the shared data model (see module doc).

    Iterative, so a hostile nesting cannot exhaust the Python stack.
    """
    stack: list[tuple[Any, int]] = [(obj, 1)]
    pop = stack.pop
    push = stack.append
    while stack:
        value, depth = pop()
        t = type(value)  # never a str, bool or None: the root is a dict, those are not pushed
        if t is int:
            if -MAX_SAFE_INT <= value <= MAX_SAFE_INT:
                continue
            raise ProtocolError("malformed", "integer out of range (beyond 2**53 - 1)")
        if t is float:
            if math.isfinite(value) and -MAX_SAFE_INT <= value <= MAX_SAFE_INT:
                continue
            raise ProtocolError("malformed", "number is not finite or out of range")
        if t is dict:
            if depth > max_depth:
                raise ProtocolError("malformed", f"nesting deeper than {max_depth}")
            for k, v in value.items():
                if type(k) is not str:
                    raise ProtocolError("malformed", "object keys must be strings")
                if type(v) in (dict, list):
                    push((v, depth + 1))
                elif not (type(v) is str or type(v) is bool or v is None):
                    push((v, depth))
            continue
        if t is list:
            if depth > max_depth:
                raise ProtocolError("malformed", f"nesting deeper than {max_depth}")
            for v in value:
                if type(v) in (dict, list):
                    push((v, depth + 1))
                elif not (type(v) is str or type(v) is bool or v is None):
                    push((v, depth))
            continue
        raise ProtocolError("malformed", f"unsupported value type {t.__name__}")


def _check_encodable(obj: Any, max_depth: int) -> None:
    """Like :func:`_check_tree` for outgoing messages, accepting tuples and subclasses."""
    stack: list[tuple[Any, int]] = [(obj, 1)]
    while stack:
        value, depth = stack.pop()
        if value is None or isinstance(value, str | bool):
            continue
        if isinstance(value, int):
            if not -MAX_SAFE_INT <= value <= MAX_SAFE_INT:
                raise ProtocolError("malformed", "integer out of range (beyond 2**53 - 1)")
            continue
        if isinstance(value, float):
            if not (math.isfinite(value) and -MAX_SAFE_INT <= value <= MAX_SAFE_INT):
                raise ProtocolError("malformed", "number is not finite or out of range")
            continue
        if depth > max_depth:
            raise ProtocolError("malformed", f"nesting deeper than {max_depth}")
        if isinstance(value, Mapping):
            for k, v in value.items():
                if not isinstance(k, str):
                    raise ProtocolError(
                        "malformed", "object keys must be strings (use seat_map for seat keys)"
                    )
                stack.append((v, depth + 1))
            continue
        if isinstance(value, list | tuple):
            stack.extend((v, depth + 1) for v in value)
            continue
        raise ProtocolError("malformed", f"cannot encode a {type(value).__name__}")


def check_message(obj: Any, *, max_depth: int = MAX_DEPTH, trusted: bool = False) -> Message:
    """Check an already-decoded object: the data model plus a non-empty string ``type``.

    ``trusted=True`` checks only that it is an object with a non-empty string ``type``, not
    every value in it: for frames from a peer known to encode only clean messages (a load
    tester or bot reading the server's frames). A server never decodes a client's frame so.

    Returns ``obj``; raises ``malformed`` (with ``rid`` set when readable).
    """
    if type(obj) is not dict:
        raise ProtocolError("malformed", "a message must be an object")
    if not trusted:
        try:
            _check_tree(obj, max_depth)
        except ProtocolError as exc:
            exc.rid = _peek_rid(obj)
            raise
    kind = obj.get("type")
    if type(kind) is not str or not kind:
        if "type" in obj:
            raise ProtocolError("malformed", "`type` must be a non-empty string",
                                rid=_peek_rid(obj), field="type")
        raise ProtocolError("malformed", "missing `type`", rid=_peek_rid(obj), field="type")
    return obj


def _oversized(size: int, max_bytes: int) -> ProtocolError:
    return ProtocolError("oversized", f"frame of {size} bytes exceeds the limit of {max_bytes}")


class JsonCodec:
    """``poker.v1.json``: UTF-8 JSON in text frames, via orjson."""

    subprotocol: str = SUBPROTOCOL_JSON
    binary: bool = False

    __slots__ = ()

    def encode(self, message: Mapping[str, Any], *, check: bool = True) -> str:
        """The text frame for ``message``; ``malformed`` if it breaks the data model."""
        if check:
            _check_encodable(message, MAX_DEPTH)
        try:
            return orjson.dumps(message).decode("utf-8")
        except (TypeError, ValueError) as exc:  # orjson.JSONEncodeError is a TypeError
            raise ProtocolError("malformed", f"cannot encode: {exc}") from None

    def decode(
        self, frame: str | bytes, *, max_bytes: int = MAX_FRAME_BYTES, max_depth: int = MAX_DEPTH,
        trusted: bool = False,
    ) -> Message:
        """The message in a text frame.

        Raises :class:`ProtocolError`: ``malformed`` for a binary frame, text that is not
        UTF-8 (lone surrogates), invalid JSON, or anything outside the data model;
        ``oversized`` when the frame's UTF-8 encoding exceeds ``max_bytes``. ``trusted``
        skips the walk over every value (see :func:`check_message`).
        """
        if not isinstance(frame, str):
            raise ProtocolError("malformed", "binary frame on a JSON connection")
        if len(frame) > max_bytes:  # characters <= bytes: cheap early refusal
            raise _oversized(len(frame), max_bytes)
        try:
            data = frame.encode("utf-8")
        except UnicodeEncodeError:
            raise ProtocolError("malformed", "text is not valid UTF-8") from None
        if len(data) > max_bytes:
            raise _oversized(len(data), max_bytes)
        try:
            obj = orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            raise ProtocolError("malformed", f"invalid JSON: {exc.msg}") from None
        return check_message(obj, max_depth=max_depth, trusted=trusted)


def _refuse_ext(code: int, data: bytes) -> Any:
    raise ProtocolError("malformed", f"MessagePack extension type {code} is not allowed")


_PACKERS = threading.local()


def _packer() -> msgpack.Packer:
    """This thread's MessagePack packer (``use_bin_type``): ``msgpack.packb`` builds a new
    one on every call, a third of a small frame's encoding time. A packer resets itself after
    each ``pack``, an exception included, so one per thread is reused safely."""
    packer: msgpack.Packer | None = getattr(_PACKERS, "packer", None)
    if packer is None:
        packer = _PACKERS.packer = msgpack.Packer(use_bin_type=True)
    return packer


class MsgpackCodec:
    """``poker.v1.msgpack``: MessagePack in binary frames.

    Strings are MessagePack ``str`` (UTF-8); binary (``bin``) and extension types are
    refused on decode.
    """

    subprotocol: str = SUBPROTOCOL_MSGPACK
    binary: bool = True

    __slots__ = ()

    def encode(self, message: Mapping[str, Any], *, check: bool = True) -> bytes:
        """The binary frame for ``message``; ``malformed`` if it breaks the data model."""
        if check:
            _check_encodable(message, MAX_DEPTH)
        try:
            data: bytes = _packer().pack(message)
        except (TypeError, ValueError, OverflowError) as exc:
            raise ProtocolError("malformed", f"cannot encode: {exc}") from None
        return data

    def decode(
        self, frame: str | bytes | bytearray | memoryview, *, max_bytes: int = MAX_FRAME_BYTES,
        max_depth: int = MAX_DEPTH, trusted: bool = False,
    ) -> Message:
        """The message in a binary frame.

        Raises :class:`ProtocolError`: ``malformed`` for a text frame, invalid MessagePack,
        trailing bytes, invalid UTF-8 in a string, non-string map keys, ``bin`` or
        extension values, or anything else outside the data model; ``oversized`` when the
        frame exceeds ``max_bytes``.  Unpacking runs with every length bounded by the frame
        size (the role of ``max_buffer_size`` in a streaming unpacker). ``trusted`` skips
        the walk over every value (see :func:`check_message`).
        """
        if not isinstance(frame, bytes | bytearray | memoryview):
            raise ProtocolError("malformed", "text frame on a MessagePack connection")
        size = frame.nbytes if isinstance(frame, memoryview) else len(frame)
        if size > max_bytes:
            raise _oversized(size, max_bytes)
        try:
            obj = msgpack.unpackb(
                frame,
                raw=False,
                use_list=True,
                strict_map_key=True,
                ext_hook=_refuse_ext,
                max_str_len=size,
                max_bin_len=size,
                max_array_len=size,
                max_map_len=size // 2,
                max_ext_len=size,
            )
        except ProtocolError:
            raise
        except UnicodeDecodeError:
            raise ProtocolError("malformed", "string is not valid UTF-8") from None
        except msgpack.ExtraData:
            raise ProtocolError("malformed", "trailing bytes after the message") from None
        except Exception as exc:  # FormatError, StackError, ValueError, TypeError ...
            raise ProtocolError("malformed", f"invalid MessagePack: {exc}") from None
        return check_message(obj, max_depth=max_depth, trusted=trusted)


JSON_CODEC: Final = JsonCodec()
MSGPACK_CODEC: Final = MsgpackCodec()
#: Codec by subprotocol name.
CODECS: Final[Mapping[str, JsonCodec | MsgpackCodec]] = {
    SUBPROTOCOL_JSON: JSON_CODEC,
    SUBPROTOCOL_MSGPACK: MSGPACK_CODEC,
}


def codec_for(subprotocol: str | None) -> JsonCodec | MsgpackCodec:
    """The codec of a negotiated subprotocol; ``None`` (no offer) means JSON.

    Raises ``KeyError`` for a name that is not in :data:`~protocol.constants.SUBPROTOCOLS`.
    """
    return CODECS[subprotocol or DEFAULT_SUBPROTOCOL]


def select_subprotocol(offered: Sequence[str]) -> str | None:
    """The server's choice among a client's offers: its first supported offer.

    Returns ``None`` when the client offered nothing we speak; the connection then speaks
    JSON without naming a subprotocol.
    """
    for name in offered:
        if name in CODECS:
            return name
    return None


def seat_map(mapping: Mapping[int, Any]) -> dict[str, Any]:
    """A seat-keyed map for the wire: ``{3: 200}`` becomes ``{"3": 200}``."""
    return {str(int(seat)): value for seat, value in mapping.items()}


def parse_seat_map(obj: Any) -> dict[int, Any]:
    """A seat-keyed map from the wire: ``{"3": 200}`` becomes ``{3: 200}``.

    Raises ``bad_field`` unless ``obj`` is an object whose keys are decimal seat numbers.
    """
    if not isinstance(obj, dict):
        raise ProtocolError("bad_field", "a seat map must be an object")
    out: dict[int, Any] = {}
    for key, value in obj.items():
        if not (isinstance(key, str) and key.isascii() and key.isdecimal() and len(key) <= 3):
            raise ProtocolError("bad_field", f"not a seat number: {key!r}")
        out[int(key)] = value
    return out
