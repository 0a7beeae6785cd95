"""Property tests: hostile input never escapes as anything but ProtocolError, and the two
encodings carry identical objects."""

from __future__ import annotations

from typing import Any

import msgpack
import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol import (
    JSON_CODEC,
    MAX_SAFE_INT,
    MSGPACK_CODEC,
    REQUEST_TYPES,
    ProtocolError,
    Request,
    parse_request,
)

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large]
#: Flat inputs are cheap to generate; object trees are not (keep the suite fast).
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=_QUIET)
FUZZ_TREES = settings(max_examples=120, deadline=None, suppress_health_check=_QUIET)

# Anything a hostile peer could produce after decoding (wider than the data model).
wild_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30), st.binary(max_size=10),
)
wild_values = st.recursive(
    wild_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=6),
        st.dictionaries(st.one_of(st.text(max_size=10), st.integers()), inner, max_size=6),
    ),
    max_leaves=30,
)

# Values inside the shared data model.
safe_ints = st.integers(min_value=-MAX_SAFE_INT, max_value=MAX_SAFE_INT)
safe_floats = st.floats(min_value=-1e15, max_value=1e15)
model_values = st.recursive(
    st.one_of(st.none(), st.booleans(), safe_ints, safe_floats, st.text(max_size=30)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=6),
        st.dictionaries(st.text(max_size=10), inner, max_size=6),
    ),
    max_leaves=15,
)
model_messages = st.builds(
    lambda kind, body: {**body, "type": kind},
    st.text(min_size=1, max_size=20),
    st.dictionaries(st.text(max_size=10), model_values, max_size=8),
)

# Plausible requests: a real type with fields drawn from a mix of good and bad values.
FIELD_NAMES = ["rid", "table", "seat", "buy_in", "action", "amount", "discard", "jackpot",
               "text", "guest", "token", "name", "password", "variant", "structure", "stakes",
               "seats", "settings", "decks", "hand", "since", "limit", "before", "t"]
plausible = st.one_of(
    wild_values,
    st.sampled_from(["t1", "As", "Kd", "raise", "holdem", "no_limit", "Alice", ""]),
    st.lists(st.sampled_from(["As", "Kd", "7c", "2d", "Xx"]), max_size=7),
    st.fixed_dictionaries({"blinds": st.lists(st.integers(-5, 200), max_size=3)}),
)
requests_ish = st.builds(
    lambda kind, body: {**body, "type": kind},
    st.sampled_from(REQUEST_TYPES),
    st.dictionaries(st.sampled_from(FIELD_NAMES), plausible, max_size=8),
)


def _only_protocol_errors(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except ProtocolError as exc:
        assert exc.code and exc.message
        return None


@FUZZ
@given(st.binary(max_size=200))
def test_random_bytes_into_msgpack_decode(frame: bytes) -> None:
    obj = _only_protocol_errors(MSGPACK_CODEC.decode, frame)
    if obj is not None:
        _only_protocol_errors(parse_request, obj)
    _only_protocol_errors(JSON_CODEC.decode, frame)


@FUZZ
@given(st.text(max_size=200))
def test_random_text_into_json_decode(frame: str) -> None:
    obj = _only_protocol_errors(JSON_CODEC.decode, frame)
    if obj is not None:
        _only_protocol_errors(parse_request, obj)
    _only_protocol_errors(MSGPACK_CODEC.decode, frame)


@FUZZ_TREES
@given(wild_values)
def test_packed_wild_objects_never_escape(value: Any) -> None:
    try:
        frame = msgpack.packb(value, use_bin_type=True, strict_types=False)
    except (TypeError, ValueError, OverflowError):
        return
    obj = _only_protocol_errors(MSGPACK_CODEC.decode, frame)
    if obj is not None:
        _only_protocol_errors(parse_request, obj)


@FUZZ_TREES
@given(wild_values)
def test_parse_request_on_wild_objects(value: Any) -> None:
    _only_protocol_errors(parse_request, value)
    if isinstance(value, dict):
        _only_protocol_errors(parse_request, {**value, "type": "act"})


@FUZZ_TREES
@given(requests_ish)
def test_parse_request_on_plausible_requests(obj: dict[str, Any]) -> None:
    req = _only_protocol_errors(parse_request, obj)
    if req is not None:
        assert isinstance(req, Request)
        # A valid request survives its own wire form and both encodings.
        wire = req.to_dict()
        assert parse_request(wire) == req
        for codec in (JSON_CODEC, MSGPACK_CODEC):
            assert parse_request(codec.decode(codec.encode(wire))) == req


@FUZZ_TREES
@given(model_messages)
def test_json_and_msgpack_decode_to_equal_objects(msg: dict[str, Any]) -> None:
    from_json = JSON_CODEC.decode(JSON_CODEC.encode(msg), max_bytes=1 << 20)
    from_msgpack = MSGPACK_CODEC.decode(MSGPACK_CODEC.encode(msg), max_bytes=1 << 20)
    assert from_json == from_msgpack == msg
    # Frames written by another JSON writer (the browser's) decode the same way.
    assert JSON_CODEC.decode(orjson.dumps(msg).decode(), max_bytes=1 << 20) == msg

