"""Caribbean Stud rounds at a table: the ante and decision phases (one deadline for every
player), acts mapped onto the :class:`~server.rules.caribbean.CaribbeanRound`, and the
round handed to the jackpot service when it is dealt and when it ends."""

from __future__ import annotations

import dataclasses
import secrets

from protocol import messages as m
from server.jackpot.base import Claim
from server.rules import errors as rerr
from server.rules.caribbean import JackpotWagered
from server.rules.errors import IllegalAction
from server.table.projection import Draft
from server.table.state import TableState, _builder, log

# Hand ids (``t1.7``) start again in every server process and after every restart, but the
# jackpot's keys (its global order, the contributions, the payouts' ledger idempotency keys)
# live in Redis and in the ledger across processes and restarts; so they carry a scope unique
# to this process run (CSP-12: each wager added once, each payout made once, and never one
# round's key mistaken for another's).
RUN_SCOPE = secrets.token_hex(6)


def jackpot_round(hand_id: str, node: str) -> str:
    """The globally unique jackpot id of the round ``hand_id`` of this process run."""
    return f"{hand_id}@{node}.{RUN_SCOPE}"


class CaribbeanMixin(TableState):
    """Caribbean Stud behaviour of :class:`~server.table.actor.TableActor`."""

    def _caribbean_phase_turns(self, seconds: float, kind: str) -> None:
        assert self.round is not None and self.projector is not None
        if kind == "decide_deadline":
            self._jackpot_eligible()
        self._cancel_timers()
        wall = self.clock.wall() + seconds
        for s in self.start_stacks:
            opts = self.round.options(s)
            if opts is None:
                continue
            pid = self.hand_owner[s]
            self.fanout.publish(Draft(_builder(m.turn, seat=s, deadline=wall),
                                {pid: _builder(m.turn, seat=s, deadline=wall,
                                               options=opts.to_wire())}))
        self._schedule(kind, seconds, self._token)

    def _phase_changed(self) -> None:
        """After a round's events were sent: a round just dealt opens its decision phase
        (one deadline for every player)."""
        rnd = self.round
        if rnd is not None and rnd.phase != self._round_phase:
            self._round_phase = rnd.phase
            if rnd.phase == "decisions":
                self._caribbean_phase_turns(self.config.action_clock, "decide_deadline")

    def _check_pool_ceiling(self) -> None:
        """GEN-10: a jackpot wager whose pool share would take a pool past the operator's
        ``max_pool`` is refused (``limit_exceeded``) before anything changes."""
        terms = self.spec.caribbean
        if terms is None or self.jackpot is None or terms.max_pool <= 0:
            return
        state = self.jackpot.meter.state
        minor, major, _ = terms.split_wager(terms.jackpot_wager)
        if state.minor + minor > terms.max_pool or state.major + major > terms.max_pool:
            raise IllegalAction(rerr.LIMIT_EXCEEDED,
                                f"the jackpot is at the house's limit of {terms.max_pool}; "
                                "ante without the jackpot wager")

    def _pay_jackpot(self, stacks: dict[int, int]) -> dict[int, int]:
        """The round is over: hand its contributions and qualifying hands to the jackpot
        service (CSP-08..CSP-12).  Payouts come later, to the players' accounts, once every
        hand placed before this one has settled (CSP-10); the stacks are unchanged."""
        rnd = self.round
        if rnd is None or self.jackpot is None or self.spec.caribbean is None:
            return stacks
        scoped = jackpot_round(rnd.round_id, self.config.node)
        claims = [Claim(scoped, c.seat, self.hand_owner[c.seat], c.hand, c.eligible_at)
                  for c in rnd.jackpot_claims()]
        contributions = [dataclasses.replace(c, round_id=scoped) for c in rnd.contributions()]
        try:
            self.jackpot.hand_settled(scoped, table=self.table_id,
                                      settings=self.spec.caribbean,
                                      contributions=contributions, claims=claims,
                                      ledger_hand=rnd.round_id)
        except Exception:  # the jackpot must never stop the table
            log.exception("event=jackpot_report_failed table=%s hand=%s", self.table_id,
                          rnd.round_id)
        return stacks

    def _jackpot_eligible(self) -> None:
        """CSP-10: the round has just been dealt (first and last cards leave together here):
        a round with a jackpot wager takes its place in the global order."""
        rnd = self.round
        if rnd is None or self.jackpot is None or not any(
                isinstance(e, JackpotWagered) for e in rnd.events):
            return
        try:
            self.jackpot.hand_eligible(jackpot_round(rnd.round_id, self.config.node),
                                       max_seconds=self.config.action_clock
                                       + self.config.jackpot_lease)
        except Exception:
            log.exception("event=jackpot_register_failed table=%s hand=%s", self.table_id,
                          rnd.round_id)
