"""The table's lifecycle (server.table.lifecycle): every legal transition, every illegal one,
and no sequence of events leaving the table of phases."""

from __future__ import annotations

import itertools
from collections import deque

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.table.lifecycle import TRANSITIONS, Event, Lifecycle, LifecycleError, Phase

PAIRS = list(itertools.product(Phase, Event))
LEGAL = [pair for pair in PAIRS if pair in TRANSITIONS]
ILLEGAL = [pair for pair in PAIRS if pair not in TRANSITIONS]


def _paths() -> dict[Phase, list[Event]]:
    """The shortest sequence of events from OPEN to each reachable phase."""
    paths: dict[Phase, list[Event]] = {Phase.OPEN: []}
    todo = deque([Phase.OPEN])
    while todo:
        phase = todo.popleft()
        for event in Event:
            nxt = TRANSITIONS.get((phase, event))
            if nxt is not None and nxt not in paths:
                paths[nxt] = [*paths[phase], event]
                todo.append(nxt)
    return paths


PATHS = _paths()


def _at(phase: Phase) -> Lifecycle:
    life = Lifecycle()
    for event in PATHS[phase]:
        life.fire(event, reason="host")
    assert life.state is phase
    return life


def test_every_phase_is_reachable_and_can_end() -> None:
    assert set(PATHS) == set(Phase)
    assert Lifecycle().state is Phase.OPEN
    for phase in Phase:  # from every phase some event leads to a stopped one
        ends = {TRANSITIONS.get((phase, e)) for e in Event} - {None}
        assert phase.name in ("STOPPED", "MOVED", "CLOSED") or any(
            p is not None and p.name in ("STOPPED", "MOVED", "CLOSED", "CLOSING") for p in ends)


@pytest.mark.parametrize(("phase", "event"), LEGAL, ids=lambda x: x.name)
def test_legal_transition(phase: Phase, event: Event) -> None:
    life = _at(phase)
    assert life.fire(event, reason="idle") is TRANSITIONS[phase, event]
    assert life.state is TRANSITIONS[phase, event]


@pytest.mark.parametrize(("phase", "event"), ILLEGAL, ids=lambda x: x.name)
def test_illegal_transition_raises_and_changes_nothing(phase: Phase, event: Event) -> None:
    life = _at(phase)
    with pytest.raises(LifecycleError, match=f"{event.name} in phase {phase.name}"):
        life.fire(event)
    assert life.state is phase


def test_the_table_has_both_kinds() -> None:
    assert len(LEGAL) + len(ILLEGAL) == len(Phase) * len(Event)
    assert ILLEGAL and LEGAL
    # what must never happen: a stopped table plays again, a closed one un-closes
    for stopped in (Phase.STOPPED, Phase.MOVED, Phase.CLOSED):
        for event in Event:
            assert TRANSITIONS.get((stopped, event), stopped) is stopped
    assert (Phase.OPEN, Event.RELEASE) not in TRANSITIONS  # released without a hold: a bug
    assert (Phase.HOLDING, Event.HOLD) not in TRANSITIONS  # two moves of one table


def test_the_flags_the_table_had_are_predicates_of_the_phase() -> None:
    """``closing``, ``hold``, ``stopped``, ``closed_for_good`` as the actor kept them."""
    want = {  # phase: (may_start_hand, holding, closing, stopped, closed_for_good)
        Phase.OPEN: (True, False, False, False, False),
        Phase.HOLDING: (False, True, False, False, False),
        Phase.DRAINING: (False, False, True, False, False),
        Phase.LAST_HAND: (False, False, True, False, False),
        Phase.CLOSING: (False, False, True, False, True),
        Phase.STOPPED: (False, False, True, True, False),
        Phase.MOVED: (False, False, False, True, False),
        Phase.CLOSED: (False, False, True, True, True),
    }
    for phase, flags in want.items():
        life = _at(phase)
        assert (life.may_start_hand, life.holding, life.closing, life.stopped,
                life.closed_for_good) == flags, phase
        assert life.accepts_requests is not life.stopped


def test_the_reason_of_a_close_after_the_hand() -> None:
    life = Lifecycle()
    life.fire(Event.CLOSE_AFTER_HAND, reason="host")
    assert life.reason == "host"
    life.fire(Event.DRAIN)  # a shutdown meanwhile: the close for good still wins
    assert life.state is Phase.LAST_HAND and life.reason == "host"
    life.fire(Event.CLOSE_AFTER_HAND, reason="practice")
    assert life.reason == "practice"
    life.fire(Event.CLOSE)
    assert life.reason is None and life.closed_for_good


def test_the_check_runs_before_each_change_and_can_refuse_it() -> None:
    calls: list[Phase] = []
    life = Lifecycle(check=lambda: calls.append(life.state))
    life.fire(Event.HOLD)
    life.fire(Event.RELEASE)
    assert calls == [Phase.OPEN, Phase.HOLDING]

    def refuse() -> None:
        raise AssertionError("written outside its task")

    guarded = Lifecycle(check=refuse)
    with pytest.raises(AssertionError):
        guarded.fire(Event.HOLD)
    assert guarded.state is Phase.OPEN
    with pytest.raises(LifecycleError):  # an illegal event is refused before the check
        guarded.fire(Event.FINISH)


def _walk(events: list[Event]) -> None:
    life = Lifecycle()
    for event in events:
        before = life.state
        if (before, event) in TRANSITIONS:
            assert life.fire(event) is TRANSITIONS[before, event]
        else:
            with pytest.raises(LifecycleError):
                life.fire(event)
            assert life.state is before
        assert isinstance(life.state, Phase)


def test_every_sequence_of_four_events_stays_in_the_table() -> None:
    for events in itertools.product(Event, repeat=4):
        _walk(list(events))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(Event), max_size=30))
def test_no_sequence_of_events_leaves_the_table(events: list[Event]) -> None:
    _walk(events)
