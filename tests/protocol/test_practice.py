"""Issue 24, a practice table against bots: `create_table`'s `practice` and `bots`, the bots'
mark (`bot: true`) on `seated` and the snapshot's seat entries, and the cap's error code."""

from __future__ import annotations

from typing import Any

import pytest

from protocol import CreateTable, ProtocolError, messages, parse_request
from protocol.errors import ERROR_CODES
from protocol.fields import SEAT_FIELDS


def _create(**extra: Any) -> dict[str, Any]:
    return {"type": "create_table", "rid": 1, "variant": "holdem", "structure": "no_limit",
            "stakes": {"blinds": [5, 10]}, "seats": 6, **extra}


def test_practice_table_with_its_bots() -> None:
    req = parse_request(_create(practice=True, bots=3))
    assert isinstance(req, CreateTable) and req.practice and req.bots == 3
    plain = parse_request(_create())
    assert isinstance(plain, CreateTable) and not plain.practice and plain.bots is None


@pytest.mark.parametrize("bots", [-1, 10, 2.5, "3", True])
def test_bad_bot_counts(bots: Any) -> None:
    with pytest.raises(ProtocolError) as err:
        parse_request(_create(practice=True, bots=bots))
    assert err.value.code == "bad_field" and err.value.field == "bots"


def test_bots_only_at_a_practice_table() -> None:
    with pytest.raises(ProtocolError) as err:
        parse_request(_create(bots=2))
    assert err.value.code == "bad_field" and "practice" in err.value.message


def test_bots_are_marked() -> None:
    bot = messages.seated("p1-x", 3, seat=5, name="Bot Ada", stack=1000, bot=True)
    assert bot["bot"] is True and "guest" not in bot
    person = messages.seated("p1-x", 4, seat=0, name="Ann", stack=1000)
    assert "bot" not in person
    entry = messages.seat_entry(seat=5, name="Bot Ada", stack=1000, sitting_out=False,
                                bot=True)
    assert entry["bot"] is True and "bot" in SEAT_FIELDS[1]
    assert "bot" not in messages.seat_entry(seat=0, name="Ann", stack=1, sitting_out=False)


def test_the_cap_has_its_code() -> None:
    assert "too_many_practice_tables" in ERROR_CODES
