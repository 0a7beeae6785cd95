"""Encode once per codec, send to many: the one implementation of fan-out's encoding.

Every place that sends one message to several connections (a table's events, a cluster
relay's spectators, the edge's broadcasts and per-player pushes, the operator's notices) builds
an :class:`EncodedOnce` for the message and asks it for each connection's frame: the message
is encoded at most once per codec, and every connection of that codec gets the same frame
object (a websockets write of one ``bytes``/``str`` object to many, and no second encoding).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol, TypeVar

from .codec import Codec

__all__ = ["EncodedOnce", "Receiver", "deliver"]


class Receiver(Protocol):
    """What a message is delivered to: a connection with its codec."""

    @property
    def codec(self) -> Codec: ...

    def send(self, frame: str | bytes) -> None: ...


R = TypeVar("R", bound=Receiver)


class EncodedOnce:
    """One message and its frames, encoded at most once per codec (on first use).

    ``check``: validate the message against the data model before encoding
    (:func:`protocol.codec.check_message`); ``False`` for messages the server built itself
    from the protocol's builders (a table's events)."""

    __slots__ = ("check", "frames", "message")

    def __init__(self, message: Mapping[str, Any], *, check: bool = True) -> None:
        self.message = message
        self.check = check
        self.frames: dict[int, str | bytes] = {}
        """The frames made so far, by ``id(codec)`` (a hot loop may look here first and
        call :meth:`frame` on a miss; nothing else writes it)."""

    def frame(self, codec: Codec) -> str | bytes:
        """The frame of this message for ``codec`` (the same object on every call)."""
        key = id(codec)  # (codecs are long-lived; this object lives for one fan-out)
        found = self.frames.get(key)
        if found is None:
            found = self.frames[key] = codec.encode(self.message, check=self.check)
        return found


def deliver(message: Mapping[str, Any] | EncodedOnce, receivers: Iterable[R], *,
            check: bool = True,
            failed: Callable[[R, Exception], None] | None = None) -> int:
    """Send ``message`` to every receiver, encoded once per codec; the number sent to.
    A receiver whose ``send`` raises is handed to ``failed`` (the others still get it);
    without ``failed`` the error propagates."""
    once = message if isinstance(message, EncodedOnce) else EncodedOnce(message, check=check)
    sent = 0
    for receiver in receivers:
        frame = once.frame(receiver.codec)
        try:
            receiver.send(frame)
        except Exception as exc:
            if failed is None:
                raise
            failed(receiver, exc)
            continue
        sent += 1
    return sent
