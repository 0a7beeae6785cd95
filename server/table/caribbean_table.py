"""Caribbean Stud rounds at a table: the ante and decision phases (one deadline for every
player), acts mapped onto the :class:`~server.rules.caribbean.CaribbeanRound`, and the
jackpot paid at the end of a round."""

from __future__ import annotations

from typing import Any

from protocol import messages as m
from protocol.requests import Act
from server.rules import errors as rerr
from server.rules.errors import IllegalAction
from server.table.projection import Draft
from server.table.state import TableState, _builder, log


class CaribbeanMixin(TableState):
    """Caribbean Stud behaviour of :class:`~server.table.actor.TableActor`."""

    def _caribbean_phase_turns(self, seconds: float, kind: str) -> None:
        assert self.round is not None and self.projector is not None
        self._cancel_timers()
        wall = self.clock.wall() + seconds
        for s in self.start_stacks:
            opts = self.round.options(s)
            if not opts:
                continue
            pid = self.hand_owner[s]
            self._publish(Draft(_builder(m.turn, seat=s, deadline=wall),
                                {pid: _builder(m.turn, seat=s, deadline=wall, options=opts)}))
        self._schedule(kind, seconds, self._token)

    def _caribbean_act(self, seat: int, req: Act) -> list[Any]:
        rnd = self.round
        assert rnd is not None
        if rnd.phase == "antes":
            if req.action == "ante":
                assert req.amount is not None
                return list(rnd.ante(seat, req.amount, jackpot=req.jackpot))
            if req.action == "fold":
                return list(rnd.sit_out(seat))
        elif rnd.phase == "decisions":
            if req.action == "play":
                return list(rnd.play(seat))
            if req.action == "fold":
                return list(rnd.fold(seat))
        raise IllegalAction(rerr.BAD_ACTION, f"{req.action} is not possible now")

    def _pay_jackpot(self, stacks: dict[int, int]) -> dict[int, int]:
        rnd = self.round
        if rnd is None or self.jackpot is None or self.spec.caribbean is None:
            return stacks
        paid = self.jackpot.settle(rnd.contributions(), rnd.jackpot_claims(),
                                   self.spec.caribbean)
        for seat, amount in paid.items():
            stacks[seat] = stacks.get(seat, 0) + amount
        if self.on_jackpot is not None:
            msg = self.jackpot.message(table=self.table_id if paid else None)
            try:
                self.on_jackpot(msg)
            except Exception:  # the listener is the edge's; never stop the table for it
                log.exception("event=jackpot_listener_failed table=%s", self.table_id)
        return stacks
