"""Issue 25: nothing writes a table actor's fields outside the actor's own task (the rule in
``server/table/actor.py``'s docstring), and outside code reaches the table's lifecycle only
by messages. ``TableActor.guard_writes()`` makes such a write raise; here it catches a
deliberate one, and whole table scenarios (moves between registries, crashes and restarts,
closes, practice tables, a host's table) run with it on. The cluster's in-process tests run
under it with ``POKER_GUARD_WRITES=1`` (tests/conftest.py)."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from server.table import TableActor
from server.table.inbox import OwnershipError
from server.table.lifecycle import Event, LifecycleError, Phase
from server.table.settings import build_spec
from tests.table.helpers import Harness

HOLDEM = {"variant": "holdem", "structure": "no_limit", "stakes": {"blinds": [50, 100]},
          "seats": 6}


@pytest.fixture
def guard() -> Iterator[None]:
    TableActor.guard_writes(True)
    try:
        yield
    finally:
        TableActor.guard_writes(False)


async def test_a_write_from_outside_the_task_raises(guard: None) -> None:
    h = Harness()
    t = h.create(**HOLDEM)
    await t.idle()
    with pytest.raises(OwnershipError, match="TableActor.remote_spectators written from"):
        t.remote_spectators = 3  # the cluster's count, written from the test's task
    with pytest.raises(OwnershipError, match="lifecycle"):
        t.lifecycle.fire(Event.HOLD)  # the lifecycle too: only the actor fires it
    assert t.phase is Phase.OPEN and t.remote_spectators == 0
    await t.ask(lambda: setattr(t, "remote_spectators", 3))  # the same write, by message
    assert t.remote_spectators == 3


async def test_the_guard_costs_nothing_when_off_and_allows_the_registry_before_and_after(
        ) -> None:
    assert "__setattr__" not in TableActor.__dict__  # production: plain attribute writes
    TableActor.guard_writes(True)
    try:
        assert "__setattr__" in TableActor.__dict__
        h = Harness()
        t = h.create(**HOLDEM)  # built, wired and started by the registry: allowed
        await t.idle()
        await t.ask(lambda: None)
        task = h.registry._tasks[t.table_id]
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        t.remote_spectators = 1  # its task is gone: the registry's (cash-out) writes pass
        await t.cash_out_all()
        assert t.stopped and t.phase is Phase.STOPPED
    finally:
        TableActor.guard_writes(False)
    assert "__setattr__" not in TableActor.__dict__


async def test_a_move_holds_and_releases_the_table_by_message(guard: None) -> None:
    h = Harness()
    t = h.create(**HOLDEM)
    await t.idle()
    assert await t.hold_for_move() is True
    assert t.hold and t.phase is Phase.HOLDING and not t.closing
    assert await t.hold_for_move() is False  # one move at a time
    await t.hand_end()  # no hand runs: at once
    await t.release_hold()
    assert not t.hold and t.phase is Phase.OPEN
    with pytest.raises(LifecycleError):  # released twice: a bug, told to the asker
        await t.ask(lambda: t.lifecycle.fire(Event.RELEASE))
    await t.ask(lambda: t.close_for_good("operator"))
    assert t.phase is Phase.CLOSED and t.closed_for_good and t.stopped
    assert await t.hold_for_move() is False  # stopped: nothing to hold, at once


async def test_a_table_built_by_hand_may_be_written_before_its_task() -> None:
    h = Harness()
    spec = build_spec(_create(), h.config, name="Table 1")
    t = TableActor("t1", spec, config=h.config, wallet=h.wallet, clock=h.clock,
                   rng=lambda n: bytes(n), shuffle=list)
    TableActor.guard_writes(True)
    try:
        t.remote_spectators = 2  # no task runs it yet: the builder's writes pass
        t.lifecycle.fire(Event.HOLD)
        assert t.hold
        with pytest.raises(AttributeError):
            t.hold = False  # type: ignore[misc]  # the old flags are read-only views now
    finally:
        TableActor.guard_writes(False)


def _create() -> Any:
    from protocol import parse_request
    return parse_request({"type": "create_table", **HOLDEM})


SCENARIOS = ["test_handoff", "test_lifecycle", "test_lobby_idle", "test_issue24", "test_host",
             "test_table_behaviour"]


def _scenarios() -> Iterator[Any]:
    for name in SCENARIOS:
        module = importlib.import_module(f"tests.table.{name}")
        for fname, fn in vars(module).items():
            if (fname.startswith("test_") and inspect.iscoroutinefunction(fn)
                    and not inspect.signature(fn).parameters):
                yield pytest.param(fn, id=f"{name}::{fname}")


@pytest.mark.parametrize("scenario", list(_scenarios()))
async def test_table_scenarios_write_the_actor_only_in_its_task(
        guard: None, scenario: Callable[[], Awaitable[None]]) -> None:
    await scenario()


@pytest.mark.redis
def test_live_moves_between_processes_write_each_actor_only_in_its_task() -> None:
    """The cluster's moves (in-process servers: server.cluster.moves holds, waits for the
    hand's end and hands over by message) pass with the guard on in every process."""
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "POKER_GUARD_WRITES": "1"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "tests/cluster/test_moves.py"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "failed" not in done.stdout
