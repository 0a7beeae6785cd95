"""Display names by their UTS #39 confusables skeleton (`server.ledger.names`)."""

from __future__ import annotations

import pytest

from server.ledger.names import ReservedNames, clash, invisible, invisible_reason, name_keys

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


# --- issue 23: names that show nothing, or less than they are -------------------------------
INVISIBLE_NAMES = [
    "Dana\u3164",  # Hangul filler after a name: looked like "Dana"
    "\u3164",
    "\u2800\u2800\u2800",  # Braille pattern blank
    "\u115f\u115f",  # Hangul choseong filler
    "\u1160", "\uffa0",  # the other Hangul fillers
    "Da\u200bna",  # zero width space
    "Dana\u2060",  # word joiner
    "Dana\u034f",  # combining grapheme joiner
    "Dana\ufe0f",  # variation selector
    "Dana\u00a0",  # no-break space
    "Da\u3000na",  # ideographic space
    "Dana\u00ad",  # soft hyphen
]


@pytest.mark.parametrize("name", INVISIBLE_NAMES)
def test_invisible_code_points_are_refused(name: str) -> None:
    reason = invisible_reason(name)
    assert reason is not None and "invisible" in reason, (name, reason)


@pytest.mark.parametrize("name", ["--", "...", "\u2605\u2605", "()"])
def test_a_name_shows_a_letter_or_digit(name: str) -> None:
    assert invisible_reason(name) == "a name must show at least one letter or digit"


@pytest.mark.parametrize("name", ["Dana", "Da na", "\u00dcnal", "\u674e\u5c0f\u9f99", "42",
                                  "A\u0301lice", "R2-D2", "\u0414\u0430\u043d\u0430"])
def test_visible_names_pass(name: str) -> None:
    assert invisible_reason(name) is None


@pytest.mark.parametrize("name", [n for n in INVISIBLE_NAMES if "Dana" in n or "Da" in n])
def test_the_comparison_ignores_invisible_code_points(name: str) -> None:
    """A name that got in before the rule still clashes with the one it imitates."""
    assert name_keys(name) == name_keys("Dana")


def test_nothing_but_invisible_code_points_has_no_key() -> None:
    for name in ("\u3164", "\u2800\u2800", "\u115f", "\u200b"):
        assert name_keys(name) == (), name


def test_invisible_is_icus_default_ignorable_and_more() -> None:
    assert invisible("\u3164") and invisible("\u2800") and invisible("\u200d")
    assert not invisible(" ") and not invisible("a") and not invisible("\u0301")
