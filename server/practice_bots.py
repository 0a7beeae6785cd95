"""The bots of the practice tables (issue 24): in-process clients of the server's own
WebSocket on loopback, so they play through exactly the protocol a person's page speaks.

Rule of this module: every bot task is owned here (:class:`PracticeBots` keeps it in a set
with a done-callback that logs a failure) and ends when its table closes or the server
stops (:meth:`PracticeBots.close`). A bot's identity is a ``b_`` id the server issues
itself (:meth:`server.net.sessions.Sessions.bot_token`): no guest account, no balance, no
guest limit spent; it is marked ``bot: true`` wherever its seat is shown
(:mod:`server.table.practice`). ``server.main`` builds it and hands
:meth:`PracticeBots.start` to the registry (``TableRegistry.start_bots``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable

from server.loadtest.practice import PracticeBot
from server.table.practice import BOT_NAMES

__all__ = ["PracticeBots", "loopback_url"]

log = logging.getLogger("server.practice")


def loopback_url(host: str, port: int, path: str) -> str:
    """The server's own WebSocket URL for its bots: loopback when it listens on every
    interface (or on loopback), else the address it listens on."""
    if host in ("", "0.0.0.0", "localhost"):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    shown = f"[{host}]" if ":" in host else host
    return f"ws://{shown}:{port}{path}"


class PracticeBots:
    """Starts and owns the bots of every practice table of this process.

    ``token``: issues a bot's (player id, token) for a name; ``revoke`` ends its session
    when it is done (``Sessions.revoke``). ``think``: seconds a bot waits before it acts
    (``Config.practice_think``). ``url`` is set once the server listens."""

    def __init__(self, token: Callable[[str], Awaitable[tuple[str, str]]], *,
                 think: float,
                 revoke: Callable[[str, str | None], Awaitable[int]] | None = None) -> None:
        self._token = token
        self._revoke = revoke
        self.think = think
        self.url: str | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._bots: set[PracticeBot] = set()

    def start(self, table: str, code: str, count: int, min_buy_in: int, max_buy_in: int,
              seats: int) -> None:
        """Seat ``count`` bots at ``table``, from its last seat down (the first seats stay
        free for the person), each buying in the table's maximum."""
        order = list(range(seats - 1, -1, -1))
        for i in range(count):
            name = BOT_NAMES[i % len(BOT_NAMES)]
            task = asyncio.get_running_loop().create_task(
                self._run(table, code, name, order[i:] + order[:i], max_buy_in),
                name=f"bot:{table}:{i}")
            self._tasks.add(task)
            task.add_done_callback(self._done)

    async def _run(self, table: str, code: str, name: str, seats: list[int],
                   buy_in: int) -> None:
        if self.url is None:
            raise RuntimeError("the server is not listening yet")
        player_id, token = await self._token(name)
        bot = PracticeBot(self.url, name, table, token=token, code=code, seats=seats,
                          buy_in=buy_in, seed=secrets.randbits(32), think=self.think)
        self._bots.add(bot)
        try:
            await bot.play()
        finally:
            self._bots.discard(bot)
            if self._revoke is not None:  # its session ends with it (none pile up)
                with contextlib.suppress(Exception):
                    await self._revoke(player_id, None)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            log.warning("event=practice_bot_failed task=%s error=%r", task.get_name(), exc)

    @property
    def running(self) -> int:
        """Bots playing now."""
        return len(self._tasks)

    async def idle(self) -> None:
        """Wait until no bot plays any more (tests: after their tables closed)."""
        while self._tasks:
            await asyncio.wait(set(self._tasks))

    async def close(self) -> None:
        """The server stops: every bot closes its connection and its task ends."""
        for bot in list(self._bots):
            bot.done.set()
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=5.0)
        for task in list(self._tasks):
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
