"""Every recorded scenario (:mod:`tests.table.record_frames`) played with the code as it is
gives the same frames, byte for byte, in the same order, as the recording made at commit
9d128fc (before issue 25's refactor). On a difference the first differing line is shown,
both versions. The recordings are never regenerated to make a refactor pass (see
:mod:`tests.table.record_frames`)."""

from __future__ import annotations

import pytest

from tests.table.record_frames import RECORDINGS, SCENARIOS, first_difference, record, text_of


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_frames_are_byte_for_byte_the_recorded_ones(name: str) -> None:
    expected = (RECORDINGS / f"{name}.txt").read_text(encoding="utf-8")
    diff = first_difference(expected, text_of(record(name)))
    assert diff is None, f"{name}: {diff}"


def test_a_scenario_plays_the_same_twice_in_one_process() -> None:
    """No dict-order, id() or wall-clock dependence: the same script, the same bytes."""
    name = "holdem_no_limit"
    assert text_of(record(name)) == text_of(record(name))


def test_the_difference_report_names_the_first_differing_line() -> None:
    report = first_difference("a\tj\t{}\nb\tj\t{\"x\":1}\n", "a\tj\t{}\nb\tj\t{\"x\":2}\n")
    assert report is not None and report.startswith("line 2 differs")
    assert '{"x":1}' in report and '{"x":2}' in report
