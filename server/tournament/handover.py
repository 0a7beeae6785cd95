"""A tournament handed to another process between hands (issue 27: a drain).

Rule of this module: a draining process gives its tournaments away only between hands. The
director stops dealing (:attr:`Director.leaving`), every hand in play ends as usual (within the
drain's deadline), then, in the director's task, every player is taken off their table (their
chips back to their tournament chips, exactly as a move does) and the tables close, the
seating plan kept: the state saved then is the tournament between two hands, which the taker
restores (:func:`server.tournament.saved.restore`) with no hand to void. A hand still running
at the deadline keeps the tournament here: it is restored with its process, as after a crash.
"""

from __future__ import annotations

import asyncio
import functools
import logging

from server.table import tourney
from server.tournament.director import Director

__all__ = ["release"]

log = logging.getLogger("server.tournament")


async def release(d: Director, deadline: float, *, poll: float = 0.05) -> bool:
    """Make ``d`` ready to be handed over (see the module docstring); False when a hand
    still runs at ``deadline`` seconds (it deals again: it stays here)."""
    d.leaving = True
    loop = asyncio.get_running_loop()
    end = loop.time() + deadline
    while any(t.in_hand for t in d.tables.values()):
        if loop.time() >= end:
            d.leaving = False
            log.warning("event=tournament_handover_timeout tournament=%s", d.info.id)
            return False
        await asyncio.sleep(poll)  # (bounded: the drain's deadline)

    async def close_tables() -> None:
        d.clock.stop()
        for t in list(d.tables.values()):
            t.pending = False
            for player in list(t.players.values()):
                stack = await t.actor.ask(functools.partial(tourney.remove, t.actor, player))
                if stack is not None:
                    d.stacks[player] = int(stack)
            await t.actor.ask(functools.partial(t.actor.close_for_good, "tournament moved"))
    await d.ask(close_tables)
    return True
