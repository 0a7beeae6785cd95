"""Tournament requests and messages on the wire (protocol.tournaments; docs/rules.md section 5,
TOUR-01..15): every request round-trips through `parse_request` in both encodings, every
validation failure has its code and field, and every builder has the documented shape.

`TOURNAMENT_REQUESTS` and `TOURNAMENT_MESSAGES` also feed test_roundtrip's every-type samples.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import protocol
from protocol import (
    CODECS,
    ERROR_CODES,
    EVENT_TYPES,
    REQUEST_CLASSES,
    REQUEST_TYPES,
    STRUCTURES,
    TOURNAMENT_GAMES,
    TOURNAMENT_MESSAGE_TYPES,
    TOURNAMENT_REQUEST_TYPES,
    TOURNAMENT_SEAT_REASONS,
    TOURNAMENT_STATES,
    VARIANTS,
    ErrorCode,
    ProtocolError,
    check_server_message,
    messages,
    parse_request,
    request_fields,
)
from protocol import tournaments as t
from protocol.constants import (
    MAX_LEVEL_KEYS,
    MAX_LEVELS,
    MAX_SETTINGS_KEYS,
    MAX_STRUCTURE_DEPTH,
    MAX_STRUCTURE_LIST,
    MAX_STRUCTURE_NODES,
    MAX_STRUCTURE_TEXT,
    MAX_TOURNAMENT_CAPACITY,
)
from protocol.export_js import render
from protocol.requests import Ping, Request, register
from protocol.tournaments import (
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

LEVELS: list[dict[str, Any]] = [{"stakes": {"blinds": [10, 20]}, "minutes": 10},
          {"stakes": {"blinds": [15, 30], "ante": 5}, "minutes": 10},
          {"break": True, "minutes": 5},
          {"stakes": {"bring_in": 10, "small_bet": 40}, "hands": 12, "game": "stud7",
           "structure": "fixed_limit"}]
SETTINGS = {"starting_stack": 3000, "seats": 9, "preset": "turbo",
            "breaks": [{"after": 4, "minutes": 5}], "late_until": 4, "re_entries": 1,
            "rebuy_until": 3, "add_on": {"chips": 3000, "price": 100}, "rotation": None,
            "shares": [5000, 3000, 2000], "time_bank_refill": 7.5}

TOURNAMENT_REQUESTS: list[Request] = [
    Tournaments(rid=100),
    Tournaments(rid="l1", state="registering", game="holdem"),
    Tournament(rid=101, tournament="T1"),
    Tournament(rid=102, tournament="sng-42_x", follow=False),
    Tournament(rid=111, tournament="T2-priv", invite="c0de-XyZ"),
    UnfollowTournament(rid=103, tournament="T1"),
    TournamentRegister(rid=104, tournament="T1"),
    TournamentRegister(rid=105, tournament="T2-priv", invite="c0de-XyZ"),
    TournamentUnregister(rid=106, tournament="T1"),
    TournamentRebuy(rid=107, tournament="T1"),
    TournamentAddOn(rid=108, tournament="T1"),
    CreateTournament(rid=109, name="Nightly turbo", game="holdem", structure="no_limit",
                     kind="sng", buy_in=1000, fee=100, capacity=9),
    CreateTournament(rid=110, name="Sunday Mixed", game="stud7", structure="fixed_limit",
                     kind="scheduled", buy_in=0, fee=0, capacity=MAX_TOURNAMENT_CAPACITY,
                     min_field=2, starts_at=1_800_000_000.5, private=True,
                     levels=tuple(LEVELS), settings=SETTINGS),
    CancelTournament(rid=None, tournament="T2-priv"),
]

LEVEL_1 = t.level_entry(number=1, game="holdem", structure="no_limit",
                        stakes={"blinds": [10, 20]}, minutes=10, hands=None)
LEVEL_2 = t.level_entry(number=2, game="holdem", structure="no_limit",
                        stakes={"blinds": [15, 30], "ante": 5}, minutes=None, hands=12)
SUMMARY = t.summary_entry(id="T1", name="Nightly turbo", game="holdem", structure="no_limit",
                          kind="sng", state="running", buy_in=1000, fee=100, entrants=9,
                          capacity=9, starts_at=None, level=3, players_left=5, private=False)


def _running(**extra: Any) -> dict[str, Any]:
    return t.tournament(
        id="T1", name="Nightly turbo", game="holdem", structure="no_limit", kind="sng",
        state="running", buy_in=1000, fee=100, starting_stack=3000, entrants=9, capacity=9,
        players_left=5, average_stack=5400, pool=9000, level=LEVEL_1, next_level=LEVEL_2,
        on_break=False, clock_left=312.5, late_until=None,
        payouts=[(1, 4500), (2, 2700), (3, 1800)],
        places=[(6, "Dora", 0), (7, "Eve", 0), (8, "Fay", 0), (8, "Gus", 0)],
        tables=[("t7", 3), ("t8", 2)],
        you=t.you_entry(entered=True, stack=4200, table="t7", seat=2, place=None, prize=None),
        **extra)


TOURNAMENT_MESSAGES: list[dict[str, Any]] = [
    messages.tournaments(tournaments=[SUMMARY]),
    messages.tournaments(tournaments=[]),
    _running(),
    _running(starts_at=1_800_000_000, private=True, invite="c0de-XyZ"),
    t.tournament(id="T3", name="Later", game="draw", structure="pot_limit", kind="scheduled",
                 state="registering", buy_in=0, fee=0, starting_stack=5000, entrants=0,
                 capacity=100, players_left=0, average_stack=0, pool=0, level=None,
                 next_level=None, on_break=False, clock_left=None, late_until=3, payouts=[],
                 places=[], tables=[], you=None),
    messages.tournament_seat(tournament="T1", table="t7", seat=2, why="start"),
    messages.tournament_result(tournament="T1", place=3, prize=1800, entrants=9),
    messages.tournament_result(tournament="T1", place=40, prize=None, entrants=60),
]

CODEC_LIST = list(CODECS.values())


def _err(obj: dict[str, Any]) -> ProtocolError:
    with pytest.raises(ProtocolError) as info:
        parse_request(obj)
    return info.value


def _create(**fields: Any) -> dict[str, Any]:
    base = {"type": "create_tournament", "rid": 9, "name": "Cup", "game": "holdem",
            "structure": "no_limit", "kind": "sng", "buy_in": 100, "fee": 10, "capacity": 6}
    return {**base, **fields}


def _scheduled(**fields: Any) -> dict[str, Any]:
    return _create(**{"kind": "scheduled", "starts_at": 1_800_000_000, **fields})


# --- The contract's lists -------------------------------------------------------------
def test_every_tournament_type_is_known_and_sampled() -> None:
    assert set(TOURNAMENT_REQUEST_TYPES) <= set(REQUEST_TYPES)
    assert set(REQUEST_TYPES) == set(REQUEST_CLASSES)
    assert {r.TYPE for r in TOURNAMENT_REQUESTS} == set(TOURNAMENT_REQUEST_TYPES)
    assert set(TOURNAMENT_MESSAGE_TYPES) <= set(EVENT_TYPES)
    assert {m["type"] for m in TOURNAMENT_MESSAGES} == set(TOURNAMENT_MESSAGE_TYPES)
    assert tuple(v for v in VARIANTS if v != "caribbean") == TOURNAMENT_GAMES
    assert TOURNAMENT_STATES == ("registering", "running", "finished", "cancelled")
    assert TOURNAMENT_SEAT_REASONS == ("start", "balance", "break", "late", "re_entry",
                                       "restore")


def test_the_package_exports_the_tournament_requests() -> None:
    for cls in (Tournaments, Tournament, UnfollowTournament, TournamentRegister,
                TournamentUnregister, TournamentRebuy, TournamentAddOn, CreateTournament,
                CancelTournament):
        assert getattr(protocol, cls.__name__) is cls
        assert REQUEST_CLASSES[cls.TYPE] is cls
        assert cls.__doc__ and f"``{cls.TYPE}``" in cls.__doc__
    for kind in TOURNAMENT_MESSAGE_TYPES:  # messages re-exports the builders
        assert getattr(messages, kind) is getattr(t, kind)
        assert messages.MESSAGE_FIELDS[kind] == t.TOURNAMENT_MESSAGE_FIELDS[kind]


def test_tournament_error_codes() -> None:
    """TOUR-01, TOUR-14: the refusals a tournament request can get, each with a message."""
    for code in ("unknown_tournament", "registration_closed", "tournament_full",
                 "already_registered", "not_registered", "not_allowed", "insufficient_funds",
                 "not_host", "bad_structure"):
        assert ErrorCode(code).message == ERROR_CODES[code]
    assert "tournament" in ErrorCode.NOT_HOST.message
    err = ProtocolError.unknown_tournament("T9", rid=4)
    assert err.to_message() == {"type": "error", "rid": 4, "code": "unknown_tournament",
                                "message": "no tournament 'T9'"}
    assert ProtocolError.unknown_tournament("x" * 100).message == f"no tournament {'x' * 64!r}"


def test_register_refuses_a_type_twice_or_without_a_name() -> None:
    with pytest.raises(ValueError, match="taken"):
        register(Tournaments)
    with pytest.raises(ValueError, match="empty"):
        register(Request)
    assert REQUEST_CLASSES["ping"] is Ping


def test_the_browser_module_knows_the_tournaments() -> None:
    text = render()
    for name in ("TOURNAMENT_GAMES", "TOURNAMENT_STATES", "TOURNAMENT_SEAT_REASONS",
                 "TOURNAMENT_FIELDS", "MAX_LEVELS", "MAX_TOURNAMENT_CAPACITY"):
        assert f"export const {name} = " in text
    assert '"create_tournament": Object.freeze({"required": Object.freeze(["name", "game", ' \
        '"structure", "kind", "buy_in", "fee", "capacity"])' in text


# --- Round trips ----------------------------------------------------------------------
@pytest.mark.parametrize("codec", CODEC_LIST, ids=lambda c: c.subprotocol)
@pytest.mark.parametrize("req", TOURNAMENT_REQUESTS, ids=lambda r: r.TYPE)
def test_request_round_trip(codec: Any, req: Request) -> None:
    decoded = codec.decode(codec.encode(req.to_dict()))
    assert decoded == req.to_dict()
    again = parse_request(decoded)
    assert again == req and type(again) is type(req)


def test_defaults_and_wire_form() -> None:
    assert Tournament(tournament="T1").follow is True
    assert parse_request({"type": "tournament", "tournament": "T1", "follow": None}) == (
        Tournament(tournament="T1"))
    assert Tournaments().to_dict() == {"type": "tournaments", "rid": None}
    req = TOURNAMENT_REQUESTS[-2]
    assert isinstance(req, CreateTournament)
    wire = req.to_dict()
    assert wire["levels"] == LEVELS and wire["settings"] == SETTINGS
    assert isinstance(req.levels, tuple) and wire["private"] is True
    assert dict(request_fields("create_tournament")) == {
        "name": True, "game": True, "structure": True, "kind": True, "buy_in": True,
        "fee": True, "capacity": True, "min_field": False, "starts_at": False,
        "private": False, "levels": False, "settings": False}
    assert CreateTournament(**{k: v for k, v in _create(name="  Cafe\u0301 ").items()
                               if k != "type"}).name == "Caf\u00e9"


def test_requests_are_frozen() -> None:
    req = TOURNAMENT_REQUESTS[2]
    with pytest.raises(dataclasses.FrozenInstanceError):
        req.tournament = "T2"  # type: ignore[attr-defined]


def test_tuples_inside_levels_and_settings_become_lists() -> None:
    """Canonical form: a bot may build a request with tuples; the value is the wire's."""
    req = CreateTournament(name="Cup", game="holdem", structure="no_limit", kind="sng",
                           buy_in=1, fee=0, capacity=2,
                           levels=({"stakes": {"blinds": (1, 2)}},),
                           settings={"shares": (6000, 4000)})
    assert req.levels == ({"stakes": {"blinds": [1, 2]}},)
    assert req.settings == {"shares": [6000, 4000]}


# --- Validation -----------------------------------------------------------------------
@pytest.mark.parametrize("kind", TOURNAMENT_REQUEST_TYPES)
def test_every_required_field_is_required(kind: str) -> None:
    required = [name for name, req in request_fields(kind) if req]
    for name in required:
        err = _err({**_create(), "type": kind, "tournament": "T1", name: None})
        assert (err.code, err.field, err.rid) == ("missing_field", name, 9)


@pytest.mark.parametrize("tid", ["", "x" * 65, "T 1", "T/1", "t\u00e9", "T1\n", 7, None, ["T1"],
                                 True])
def test_bad_tournament_ids(tid: Any) -> None:
    for kind in ("tournament", "unfollow_tournament", "tournament_register",
                 "tournament_unregister", "tournament_rebuy", "tournament_add_on",
                 "cancel_tournament"):
        err = _err({"type": kind, "rid": "r", "tournament": tid})
        assert err.field == "tournament" and err.rid == "r"
        assert err.code == ("missing_field" if tid is None else "bad_field")


@pytest.mark.parametrize("tid", ["T", "x" * 64, "sng-12_AbZ", "0", "-_-"])
def test_good_tournament_ids(tid: str) -> None:
    req = parse_request({"type": "tournament_rebuy", "tournament": tid})
    assert isinstance(req, TournamentRebuy) and req.tournament == tid


@pytest.mark.parametrize(("fields", "field"), [
    ({"state": "open"}, "state"), ({"state": 1}, "state"), ({"game": "bridge"}, "game"),
    ({"game": ["holdem"]}, "game")])
def test_bad_list_filters(fields: dict[str, Any], field: str) -> None:
    err = _err({"type": "tournaments", **fields})
    assert (err.code, err.field) == ("bad_field", field)


def test_list_filter_takes_every_variant() -> None:
    """`game` filters like `tables`' `variant`: any variant name (none are Caribbean)."""
    for variant in VARIANTS:
        assert parse_request({"type": "tournaments", "game": variant}) == Tournaments(
            game=variant)


@pytest.mark.parametrize(("fields", "code", "field"), [
    ({"follow": "yes"}, "bad_field", "follow"), ({"follow": 1}, "bad_field", "follow")])
def test_bad_follow(fields: dict[str, Any], code: str, field: str) -> None:
    err = _err({"type": "tournament", "tournament": "T1", **fields})
    assert (err.code, err.field) == (code, field)


@pytest.mark.parametrize("invite", ["", "x" * 65, 12, "a\nb"])
def test_bad_invite(invite: Any) -> None:
    for kind in ("tournament", "tournament_register"):
        err = _err({"type": kind, "tournament": "T1", "invite": invite})
        assert (err.code, err.field) == ("bad_field", "invite")


@pytest.mark.parametrize(("fields", "code", "field"), [
    ({"name": ""}, "bad_field", "name"),
    ({"name": "   "}, "bad_field", "name"),
    ({"name": "x" * 41}, "bad_field", "name"),
    ({"name": "a\u202eb"}, "bad_field", "name"),
    ({"name": 5}, "bad_field", "name"),
    ({"game": "caribbean"}, "bad_field", "game"),
    ({"game": "HOLDEM"}, "bad_field", "game"),
    ({"structure": "pot"}, "bad_field", "structure"),
    ({"kind": "freezeout"}, "bad_field", "kind"),
    ({"buy_in": -1}, "bad_amount", "buy_in"),
    ({"buy_in": 2**53}, "bad_amount", "buy_in"),
    ({"buy_in": 10.5}, "bad_amount", "buy_in"),
    ({"buy_in": "100"}, "bad_amount", "buy_in"),
    ({"buy_in": True}, "bad_amount", "buy_in"),
    ({"fee": -5}, "bad_amount", "fee"),
    ({"fee": 10**30}, "bad_amount", "fee"),
    ({"capacity": 1}, "bad_field", "capacity"),
    ({"capacity": MAX_TOURNAMENT_CAPACITY + 1}, "bad_field", "capacity"),
    ({"capacity": 6.0}, "bad_field", "capacity"),
    ({"capacity": False}, "bad_field", "capacity"),
    ({"private": "true"}, "bad_field", "private"),
    ({"starts_at": 1_800_000_000}, "bad_field", "starts_at"),  # not for a sit-and-go
    ({"min_field": 2}, "bad_field", "min_field"),  # not for a sit-and-go
])
def test_bad_create_fields(fields: dict[str, Any], code: str, field: str) -> None:
    err = _err(_create(**fields))
    assert (err.code, err.field, err.rid) == (code, field, 9)


@pytest.mark.parametrize(("fields", "code", "field"), [
    ({"starts_at": None}, "missing_field", "starts_at"),
    ({"starts_at": -1}, "bad_field", "starts_at"),
    ({"starts_at": 2**53}, "bad_field", "starts_at"),
    ({"starts_at": float("inf")}, "bad_field", "starts_at"),
    ({"starts_at": float("nan")}, "bad_field", "starts_at"),
    ({"starts_at": "tomorrow"}, "bad_field", "starts_at"),
    ({"starts_at": True}, "bad_field", "starts_at"),
    ({"min_field": 1}, "bad_field", "min_field"),
    ({"min_field": 7}, "bad_field", "min_field"),  # more than the capacity, 6
    ({"min_field": "2"}, "bad_field", "min_field"),
])
def test_bad_scheduled_fields(fields: dict[str, Any], code: str, field: str) -> None:
    """TOUR-03: a scheduled tournament starts at `starts_at` with at least `min_field`."""
    err = _err(_scheduled(**fields))
    assert (err.code, err.field) == (code, field)


def test_good_scheduled() -> None:
    req = parse_request(_scheduled(min_field=6, capacity=6))
    assert isinstance(req, CreateTournament)
    assert (req.kind, req.min_field, req.starts_at) == ("scheduled", 6, 1_800_000_000)
    assert parse_request(_scheduled(starts_at=0.0)) == parse_request(_scheduled(starts_at=0))


def _deep(depth: int) -> Any:
    """A value nested ``depth`` lists deep (0: a number)."""
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("levels", [
    [], {"1": {}}, "fast", [{}] * (MAX_LEVELS + 1), [1], [[{"minutes": 5}]], [None],
    [{str(i): i for i in range(MAX_LEVEL_KEYS + 1)}],
    [{"minutes": -2**53}], [{"minutes": float("inf")}], [{"name": "x" * (MAX_STRUCTURE_TEXT + 1)}],
    [{"stakes": _deep(MAX_STRUCTURE_DEPTH - 1)}],
    [{"": 1}], [{"k" * 65: 1}], [{"stakes": {3: 1}}], [{"blob": b"\x00"}], [{"set": {1, 2}}],
    [{"x": list(range(MAX_STRUCTURE_LIST + 1))}],
    # each level is within the bounds, all of them hold more than MAX_STRUCTURE_NODES values
    [{"x": list(range(MAX_STRUCTURE_LIST))}] * (MAX_STRUCTURE_NODES // MAX_STRUCTURE_LIST + 1),
])
def test_bad_levels(levels: Any) -> None:
    """TOUR-05's levels: the protocol bounds their shape (sizes, types, depth)."""
    err = _err(_create(levels=levels))
    assert (err.code, err.field) == ("bad_field", "levels")


def test_levels_at_their_bounds() -> None:
    levels = [{"stakes": {"blinds": [i, 2 * i]}, "minutes": 15} for i in range(1, MAX_LEVELS)]
    levels.append({"deep": _deep(MAX_STRUCTURE_DEPTH - 2),
                   **{f"k{i}": i for i in range(MAX_LEVEL_KEYS - 1)}})
    req = parse_request(_create(levels=levels))
    assert isinstance(req, CreateTournament) and req.levels is not None
    assert len(req.levels) == MAX_LEVELS and list(req.levels) == levels


@pytest.mark.parametrize("settings", [
    [], "turbo", 3, {str(i): i for i in range(MAX_SETTINGS_KEYS + 1)},
    {"breaks": _deep(MAX_STRUCTURE_DEPTH)}, {"shares": [1.5, float("nan")]}, {"preset": object()},
    {7: "x"},
])
def test_bad_settings(settings: Any) -> None:
    err = _err(_create(settings=settings))
    assert (err.code, err.field) == ("bad_field", "settings")


def test_settings_keep_any_names_for_the_server_to_judge() -> None:
    """The poker meaning (`bad_structure`) is the server's check, not the protocol's."""
    req = parse_request(_create(settings={"starting_stack": -5, "who_knows": "?",
                                          "breaks": _deep(MAX_STRUCTURE_DEPTH - 1)}))
    assert isinstance(req, CreateTournament) and req.settings is not None
    assert req.settings["starting_stack"] == -5 and "who_knows" in req.settings


@pytest.mark.parametrize("value", [None, 0, -1, 2**53, "", [], {}, True, 3.5, "x" * 5000])
def test_hostile_values_never_escape_as_anything_but_protocol_errors(value: Any) -> None:
    for kind in TOURNAMENT_REQUEST_TYPES:
        for name, _required in request_fields(kind):
            obj = {**_scheduled(), "type": kind, "tournament": "T1", name: value}
            try:
                req = parse_request(obj)
            except ProtocolError as exc:
                assert exc.code in ERROR_CODES and exc.rid == 9
            else:
                assert type(req) is REQUEST_CLASSES[kind]


_FIELD_NAMES = sorted({n for kind in TOURNAMENT_REQUEST_TYPES for n, _ in request_fields(kind)})
_wild = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=70),
    lambda inner: st.lists(inner, max_size=5)
    | st.dictionaries(st.one_of(st.text(max_size=8), st.integers()), inner, max_size=5),
    max_leaves=20)


@settings(max_examples=300)
@given(kind=st.sampled_from(TOURNAMENT_REQUEST_TYPES),
       body=st.dictionaries(st.sampled_from(_FIELD_NAMES), _wild, max_size=8))
def test_fuzz_only_protocol_errors_and_valid_requests(kind: str, body: dict[str, Any]) -> None:
    """Any decoded body: a ProtocolError with a known code, or a request that survives its
    own wire form."""
    try:
        req = parse_request({**body, "type": kind, "rid": 5})
    except ProtocolError as exc:
        assert exc.code in ERROR_CODES and exc.rid == 5
    else:
        assert parse_request(req.to_dict()) == req


# --- Messages -------------------------------------------------------------------------
@pytest.mark.parametrize("codec", CODEC_LIST, ids=lambda c: c.subprotocol)
@pytest.mark.parametrize("msg", TOURNAMENT_MESSAGES, ids=lambda m: str(m["type"]))
def test_message_round_trip(codec: Any, msg: dict[str, Any]) -> None:
    decoded = codec.decode(codec.encode(msg))
    assert decoded == msg
    assert check_server_message(decoded) == msg["type"]
    assert "seq" not in msg


def test_tournaments_message_shape() -> None:
    msg = TOURNAMENT_MESSAGES[0]
    assert msg == {"type": "tournaments", "tournaments": [SUMMARY]}
    assert tuple(SUMMARY) == t.SUMMARY_FIELDS
    assert SUMMARY["starts_at"] is None and SUMMARY["level"] == 3
    assert msg["tournaments"][0] is not SUMMARY  # copied


def test_tournament_message_shape() -> None:
    msg = _running()
    required, optional = t.TOURNAMENT_MESSAGE_FIELDS["tournament"]
    assert set(msg) == {"type", *required}
    assert msg["level"] == {"number": 1, "game": "holdem", "structure": "no_limit",
                            "stakes": {"blinds": [10, 20]}, "minutes": 10, "hands": None}
    assert tuple(msg["level"]) == t.LEVEL_FIELDS and msg["next_level"]["hands"] == 12
    assert msg["payouts"] == [[1, 4500], [2, 2700], [3, 1800]]
    assert msg["places"][-1] == [8, "Gus", 0] and msg["tables"] == [["t7", 3], ["t8", 2]]
    assert msg["you"] == {"entered": True, "stack": 4200, "table": "t7", "seat": 2,
                          "place": None, "prize": None}
    assert tuple(msg["you"]) == t.YOU_FIELDS
    assert msg["level"] is not LEVEL_1 and msg["level"]["stakes"] is not LEVEL_1["stakes"]
    hosted = _running(starts_at=1_800_000_000, private=True, invite="c0de")
    assert set(hosted) - set(msg) == set(optional)
    assert (hosted["private"], hosted["invite"]) == (True, "c0de")
    before = TOURNAMENT_MESSAGES[4]
    assert before["level"] is None and before["you"] is None and before["late_until"] == 3


def test_pushes_to_a_player() -> None:
    """TOUR-04/06/08/14 seat a player (`tournament_seat`); TOUR-11/12 place and pay them."""
    for why in TOURNAMENT_SEAT_REASONS:
        assert t.tournament_seat(tournament="T1", table="t9", seat=0, why=why) == {
            "type": "tournament_seat", "tournament": "T1", "table": "t9", "seat": 0,
            "why": why}
    assert t.tournament_result(tournament="T1", place=1, prize=4500, entrants=9) == {
        "type": "tournament_result", "tournament": "T1", "place": 1, "prize": 4500,
        "entrants": 9}
    # TOUR-12: out during late registration, the prize is not fixed yet
    assert t.tournament_result(tournament="T1", place=40, prize=None, entrants=60)[
        "prize"] is None


def test_a_message_without_a_required_field_is_refused() -> None:
    msg = dict(_running())
    del msg["pool"]
    with pytest.raises(ProtocolError) as info:
        check_server_message(msg)
    assert (info.value.code, info.value.field) == ("missing_field", "pool")


def test_every_game_takes_every_structure() -> None:
    """Every structure is accepted with every tournament game (the server judges pairs:
    `bad_structure`)."""
    for game in TOURNAMENT_GAMES:
        for structure in STRUCTURES:
            req = parse_request(_create(game=game, structure=structure))
            assert isinstance(req, CreateTournament) and (req.game, req.structure) == (
                game, structure)
