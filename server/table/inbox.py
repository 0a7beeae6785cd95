"""A table actor's inbox, and the check that nothing writes an actor outside its own task.

Rule of this module: the :class:`Inbox` is the one object that both the actor's task and the
code outside it write: callers put items (requests, wake-ups, calls) and count the requests
waiting (:attr:`Inbox.requests`, the bound ``Config.inbox_size`` is checked against), the
actor's task takes them and counts them down. Everything else of a table is written in its
task only; :func:`check_owner` (installed by :meth:`~server.table.actor.TableActor.guard_writes`
in tests, never in production) raises :class:`OwnershipError` on a write from elsewhere.
"""

from __future__ import annotations

import asyncio
from typing import Any

__all__ = ["Inbox", "OwnershipError", "WriteGuard", "check_owner", "guarded_setattr"]


class Inbox(asyncio.Queue[object]):
    """The actor's queue, with the number of requests (``Envelope``) in it."""

    def __init__(self) -> None:
        super().__init__()
        self.requests = 0


class OwnershipError(AssertionError):
    """A field of a table actor was written outside the actor's task (a bug)."""


def check_owner(obj: Any, what: str) -> None:
    """Raise :class:`OwnershipError` unless the running task is ``obj``'s task (its
    ``_task``: None before the task starts and after it ended, when the registry alone holds
    the actor and may wire, restore, recover or cash it out)."""
    task = obj.__dict__.get("_task")
    if task is None:
        return
    try:
        current = asyncio.current_task()
    except RuntimeError:  # no running loop
        current = None
    if current is not task:
        name = getattr(current, "get_name", lambda: None)()
        raise OwnershipError(f"{type(obj).__name__}.{what} written from task {name!r}, "
                             f"not the actor's {task.get_name()!r}")


def guarded_setattr(obj: Any, name: str, value: Any) -> None:
    """``__setattr__`` that checks the writer first (see :func:`check_owner`)."""
    check_owner(obj, name)
    object.__setattr__(obj, name, value)


class WriteGuard:
    """The switch of the ownership check for one class (tests only): on, the class's
    ``__setattr__`` checks the writer (:func:`guarded_setattr`) and :meth:`check` checks
    other writes the class routes through it (a lifecycle's transitions); off, neither costs
    anything but one attribute read."""

    def __init__(self) -> None:
        self.on = False

    def turn(self, cls: type, on: bool) -> None:
        self.on = on
        if on:
            setattr(cls, "__setattr__", guarded_setattr)  # noqa: B010 (a class slot)
        elif "__setattr__" in cls.__dict__:
            delattr(cls, "__setattr__")

    def check(self, obj: Any, what: str) -> None:
        if self.on:
            check_owner(obj, what)
