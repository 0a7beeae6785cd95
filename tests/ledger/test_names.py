"""Display names by their UTS #39 confusables skeleton (`server.ledger.names`)."""

from __future__ import annotations

import pytest

from server.ledger.names import ReservedNames, clash, name_keys

ALICE = name_keys("Alice")


@pytest.mark.parametrize("lookalike", [
    "AIice",  # capital I for small l
    "\u0410lice",  # Cyrillic А
    "Alic\u00e9",  # an accent
    "ALICE", "alice", "  Alice ",
    "\uff21\uff4c\uff49\uff43\uff45",  # full width
    "Al1ce",  # digit one
    "A\u0301lice",  # a combining mark
])
def test_lookalikes_clash(lookalike: str) -> None:
    assert clash(name_keys(lookalike), ALICE), (lookalike, name_keys(lookalike))


@pytest.mark.parametrize("different", ["Alicia", "Alex", "Bob", "Malice", "Alise"])
def test_different_names_do_not(different: str) -> None:
    assert not clash(name_keys(different), ALICE)


def test_m_and_rn_in_either_case() -> None:
    assert clash(name_keys("rnary"), name_keys("Mary"))
    assert clash(name_keys("MARY"), name_keys("mary"))


def test_reserved_names_by_skeleton() -> None:
    reserved = ReservedNames(["admin", "dealer"])
    for name in ("admin", "ADMIN", "adrnin", "\u0410dmin", "ADM1N", "DeaIer"):
        assert name in reserved, name
    for name in ("Adam", "Bob", "administrators"):
        assert name not in reserved, name


def test_nothing_visible_has_no_key() -> None:
    assert name_keys("   ") == ()
