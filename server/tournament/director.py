"""One tournament's director: the one owner of a tournament (issue 27).

Rule of this module: a :class:`Director` owns everything of its tournament (entries, levels
and the clock, the table plan, stacks, places, the log) and changes it only in its own task,
one inbox item at a time (a table's report, a clock wake-up, a player's or the operator's
request). Its tables are ordinary table actors built by the registry with a
:class:`~server.table.tourney.TourneyDesk`: the director never writes them; it sends them
messages (``TableActor.ask``/``call``: seat, remove, deal the next hand) and hears from them
through the desk's hooks, which only enqueue. The decisions are the pure functions of
:mod:`server.tournament.plan` and :mod:`server.tournament.prizes` (docs/rules.md section 5);
each one is written to the tournament's log (docs/rules.md 5.1), which
``tests/tournament/checker.py`` referees. Money: entries, fees, refunds and prizes are booked
by :class:`~server.ledger.tournaments.TournamentBook`; the tournament's chips live in its own
accounts (:class:`~server.ledger.tournaments.TournamentWallet`, TOUR-02).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from protocol import tournaments as pt
from server.config import Config
from server.ledger.tournaments import TournamentBook
from server.ledger.wallet import Wallet
from server.table import tourney
from server.table.tourney import HandDealt, HandOver, TourneyDesk
from server.tournament import plan
from server.tournament import prizes as pz
from server.tournament.clock import TournamentClock
from server.tournament.model import (
    Registrar,
    Reports,
    TableRecord,
    TournamentInfo,
    buy_refusal,
    table_spec,
    views,
)
from server.tournament.plan import Move, TableView
from server.tournament.prizes import Out
from server.tournament.purse import Purse
from server.tournament.structure import Level

__all__ = ["Director"]

log = logging.getLogger("server.tournament")

Pick = Callable[[int], int]


class Director:
    """One tournament (see the module docstring)."""

    def __init__(self, info: TournamentInfo, *, config: Config, registrar: Registrar,
                 wallet: Wallet, book: TournamentBook | None,
                 now: Callable[[], float], call_later: Callable[[float, Callable[[], None]],
                                                                Any], pick: Pick,
                 on_change: Callable[[Director], Awaitable[None] | None] | None = None,
                 tell: Callable[[str, dict[str, Any]], None] | None = None,
                 fields: dict[str, Any] | None = None) -> None:
        self.info = info
        self.fields = fields or {}  # the request it was created from (saved, for a restore)
        self.config = config
        self.registrar = registrar
        self.purse = Purse(info.id, wallet, book, buy_in=info.buy_in, fee=info.fee)
        self.wallet = self.purse.chips  # the tables' wallet: the tournament's chips
        self.call_later = call_later
        self.pick = pick
        self.on_change = on_change
        self.tell = tell  # (player, message) pushed to a player's connections
        self.state = "registering"
        self.names: dict[str, str] = {}  # player -> name
        self.entries: list[str] = []  # one per entry (a player twice after a re-entry)
        self.entry_no: dict[str, int] = {}
        self.stacks: dict[str, int] = {}  # every player still in (chips, at the last report)
        self.seat_of: dict[str, tuple[int, int]] = {}
        self.places: dict[str, int] = {}
        self.prizes: dict[str, int] = {}
        self.high: dict[str, tuple[int, int]] = {}  # POT-01 key of each player out (TOUR-11)
        self.tables: dict[int, TableRecord] = {}
        self.log: list[dict[str, Any]] = []
        self.level = 0
        self.on_break = False
        self.clock = TournamentClock(info.structure, now=now, call_later=call_later,
                                     wake=lambda: self.inbox.put_nowait(self._tick))
        self.level_hands: dict[int, int] = {}  # hands dealt at the current level, per table
        self.hfh = False
        self.round_outs: list[Out] = []
        self.start_stacks: dict[str, dict[str, int]] = {}  # table id -> the hand's start
        self.shares: tuple[int, ...] = ()
        self.pool = 0
        self.bought = 0  # chips of rebuys and add-ons
        self.buys: dict[str, int] = {}  # player -> rebuys and add-ons bought
        self.add_ons: set[tuple[str, int]] = set()  # (player, entry) that took the add-on
        self.inbox: asyncio.Queue[Callable[[], Awaitable[None] | None]] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self.finished = asyncio.Event()
        self.leaving = False  # handed to another process: no new hand (a drain)

    # ================================================================ the task
    def start_task(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name=self.info.id)

    def stop_task(self) -> None:  # (handed to another process at a drain)
        if self._task is not None:
            self._task.cancel()

    async def _run(self) -> None:
        while True:
            fn = await self.inbox.get()
            try:
                result = fn()
                if result is not None:
                    await result
            except Exception:  # a bug in one decision: logged; the tournament goes on
                log.exception("event=tournament_error tournament=%s", self.info.id)
            finally:
                self.inbox.task_done()
            if self.on_change is not None and (saving := self.on_change(self)) is not None:
                await saving  # (in a cluster: saved in Redis before the next item)
            if self.state in ("finished", "cancelled") and self.inbox.empty():
                self.finished.set()
                return

    async def ask(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn()`` (sync or async) in the director's task and return its result."""
        if self._task is None or self._task.done():  # ended: nothing else writes it now
            result = fn()
            return await result if asyncio.iscoroutine(result) else result
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

        async def run() -> None:
            try:
                result = fn()
                if asyncio.iscoroutine(result):
                    result = await result
                fut.set_result(result)
            except Exception as exc:
                fut.set_exception(exc)
        self.inbox.put_nowait(run)
        return await fut

    def write(self, kind: str, **fields: Any) -> None:
        """One record of the tournament's log (docs/rules.md 5.1)."""
        self.log.append({"n": len(self.log) + 1, "kind": kind, **fields})

    # ================================================================ registration
    async def register(self, player: str, name: str) -> str | None:
        """TOUR-01/03/14: enter ``player``; an error code, or None when entered."""
        info = self.info
        late = self.state == "running" and self.level <= info.structure.late_until
        if self.state != "registering" and not late:
            return "registration_closed"
        if player in self.stacks or (player in self.entry_no and self.state == "registering"):
            return "already_registered"
        if player in self.entry_no and self.entry_no[player] > info.structure.re_entries:
            return "not_allowed"
        if len(self.entries) >= info.capacity:
            return "tournament_full"
        n = self.entry_no.get(player, 0) + 1
        if not await self.purse.enter(player, n):
            return "insufficient_funds"
        self.entry_no[player] = n
        self.entries.append(player)
        self.names[player] = name
        self.pool += info.buy_in
        if self.state == "running":  # a late entry or a re-entry: seated at once
            await self._enter_late(player, "late" if n == 1 else "re_entry")
        elif info.kind == "sng" and len(self.entries) >= info.capacity:
            await self._start()
        return None

    async def unregister(self, player: str) -> str | None:
        if player not in self.entry_no:
            return "not_registered"
        if self.state != "registering":
            return "registration_closed"
        n = self.entry_no.pop(player)
        self.entries.remove(player)
        self.pool -= self.info.buy_in
        await self.purse.refund(player, n, "unregister")
        return None

    async def cancel(self, why: str = "cancelled") -> str | None:
        """TOUR-01: every entry refunded, buy-in and fee; the tables closed."""
        if self.state in ("finished", "cancelled"):
            return "not_allowed"
        refunds: dict[str, int] = {}
        seen: dict[str, int] = {}
        for player in self.entries:
            seen[player] = seen.get(player, 0) + 1
            await self.purse.refund(player, seen[player], why)
            refunds[player] = refunds.get(player, 0) + self.info.buy_in + self.info.fee
        for t in list(self.tables.values()):
            await self._close_table(t, why)
        await self._retire_all("cancel")
        self.state = "cancelled"
        self.write("cancel", refunds=refunds)
        self.clock.stop()
        return None

    # ================================================================ the start
    async def _start(self) -> None:
        info = self.info
        if len(self.entries) < max(2, info.min_field):
            await self.cancel("too few entries")
            return
        s = info.structure
        self.state = "running"
        players = list(dict.fromkeys(self.entries))
        draw = plan.draw_seats(players, s.seats, self.pick)
        paid = len(info.shares or pz.default_shares(len(self.entries)))
        self.write("start", seats=s.seats, paid=paid, entries=players,
                   draw={p: list(v) for p, v in draw.items()}, stack=s.starting_stack)
        if self._buying_until() == 0:  # (else once no entry or chip can be bought: TOUR-12)
            self._close_registration()
        self._new_level(1)
        for number in sorted({t for t, _ in draw.values()}):
            self.open_table(number)
        for player, (number, seat) in draw.items():
            await self._issue(player, s.starting_stack, f"start:{player}")
            await self.seat(player, number, seat, s.starting_stack, "start")
        self.clock.start()
        for t in list(self.tables.values()):
            await self._go(t)

    async def _retire_all(self, why: str) -> None:
        await self.purse.retire_all(list(dict.fromkeys(self.entries)), why)
        self.stacks.clear()

    async def _issue(self, player: str, amount: int, key: str) -> None:
        await self.purse.issue(player, amount, key)
        self.stacks[player] = self.stacks.get(player, 0) + amount

    def open_table(self, number: int) -> TableRecord:
        table_id = f"{self.info.id}.{number}"
        desk = TourneyDesk(self.info.id, Reports(self.inbox, self.over))
        spec = table_spec(self.info, self.config, self.level, number)
        actor = self.registrar.open_tournament_table(table_id, spec, self.wallet, desk)
        t = TableRecord(number, table_id, actor, level=self.level)
        self.tables[number] = t
        return t

    async def seat(self, player: str, number: int, seat: int, stack: int,
                    why: str) -> bool:
        t = self.tables[number]
        name = self.names.get(player, player)
        ok = bool(await t.actor.ask(lambda: tourney.place(  # (a restored seat is not new)
            t.actor, player, name, seat, stack, fresh=why != "restore")))
        if ok:
            t.players[seat] = player
            self.seat_of[player] = (number, seat)
            if self.tell is not None:
                self.tell(player, pt.tournament_seat(tournament=self.info.id,
                                                     table=t.table_id, seat=seat, why=why))
        else:
            log.error("event=tournament_seat_failed tournament=%s player=%s table=%s seat=%d",
                      self.info.id, player, t.table_id, seat)
        return ok

    async def _unseat(self, player: str) -> int:
        number, seat = self.seat_of.pop(player)
        t = self.tables[number]
        stack = await t.actor.ask(lambda: tourney.remove(t.actor, player))
        t.players.pop(seat, None)
        return int(stack or 0)

    # ================================================================ the clock
    async def resume_play(self) -> None:
        """After a restore (TOUR-15): the clock runs on from where it stopped; tables deal."""
        if self.state != "running":  # (the hand settled before the crash ended it)
            return None
        self.clock.start()
        for t in list(self.tables.values()):
            await self._go(t)

    def clock_state(self) -> float | None:
        """Seconds left in the level (or the break) now; None before the start, after the
        end, or for a level counted in hands."""
        if self.state != "running":
            return None
        return self.clock.left()

    async def start_scheduled(self) -> None:
        """TOUR-03: a scheduled tournament's time has come."""
        if self.state == "registering":
            await self._start()

    async def _tick(self) -> None:
        if self.state != "running":
            return
        st = self.clock.at()
        if st.on_break and not self.on_break:
            self.on_break = True
            self.write("break", level=self.level)
        elif not st.on_break and self.on_break:
            self.on_break = False
            self.write("resume", level=st.level)
        if st.level != self.level and not st.on_break:
            self._new_level(st.level)
        if not self.on_break:
            for t in list(self.tables.values()):
                if not t.in_hand:
                    await self._go(t)
        self.clock.arm()

    def _new_level(self, number: int) -> None:
        self.level = number
        self.level_hands = {}
        lv: Level = self.info.structure.level(number)
        self.write("level", level=number, game=lv.game,
                    stakes=dataclasses.asdict(lv.stakes) | {"blinds": list(lv.stakes.blinds)})
        if not self.shares and number > self._buying_until() > 0:
            self._close_registration()

    def _buying_until(self) -> int:
        """The last level at which an entry, a rebuy or an add-on can still add to the pool
        (TOUR-14); the table of prizes is fixed after it (TOUR-12)."""
        s = self.info.structure
        return max(s.late_until, s.rebuy_until, s.add_on_break() or 0)

    def _close_registration(self) -> None:
        self.shares = self.info.shares or pz.default_shares(len(self.entries))
        self.write("prizes", pool=self.pool, shares=list(self.shares))

    # ================================================================ the tables' reports
    def dealt(self, r: HandDealt) -> None:
        t = self._table(r.table)
        if t is None:
            return
        t.in_hand, t.dealt, t.hand = True, True, r.hand
        t.hands += 1
        self.level_hands[t.number] = self.level_hands.get(t.number, 0) + 1
        lv = self.info.structure.level(self.level)
        if (lv.hands and self.level not in self.clock.ended
                and max(self.level_hands.values()) >= lv.hands):
            self.clock.end_level(self.level)  # TOUR-05: counted where most are dealt
            self.inbox.put_nowait(self._tick)
        if r.blinds:
            t.last_big_blind = r.blinds[-1]
        self.start_stacks[r.table] = dict(r.stacks)
        self.write("hand_start", table=str(t.number), hand=r.hand, level=t.level,
                    players=dict(r.players), stacks=dict(r.stacks), button=r.button,
                    blinds=list(r.blinds))

    async def over(self, r: HandOver) -> None:
        t = self._table(r.table)
        if t is None:
            return
        t.in_hand = False
        # The director owns the seating plan: the report may predate a player it seated or
        # moved since (its item was queued meanwhile), so only the stacks of the players the
        # plan still seats there are taken from it.
        here = set(t.players.values())
        for p, stack in r.stacks.items():
            if p in here:
                self.stacks[p] = stack
        stacks = {p: self.stacks[p] for p in t.players.values()}
        seats = {p: seat for seat, p in t.players.items()}
        if r.voided:
            self.write("void", table=str(t.number), hand=r.hand, stacks=stacks)
        else:
            self.write("hand_end", table=str(t.number), hand=r.hand, stacks=stacks,
                        seats=seats)
        start = self.start_stacks.pop(r.table, {})
        outs = [Out(p, start.get(p, 0), r.high_cards.get(p, (0, 0)))
                for p, s in stacks.items() if s == 0]
        for o in outs:
            await self._unseat(o.player)
            self.stacks.pop(o.player, None)
        self.round_outs.extend(outs)
        round_end = True
        if self.hfh:  # TOUR-10: the round ends when every table dealt in it (or held) is done
            t.round_done = True
            round_end = not any(x.in_hand or not (x.round_done or self._held(x))
                                for x in self.tables.values() if x.players)
        if round_end:  # (players out during a round are placed together at its end)
            self.place_outs(r.hand)
            if len(self.stacks) <= 1:
                await self._finish()
                return
        await self._decide(t, round_end)

    def place_outs(self, hand: str | None) -> None:
        outs, self.round_outs = self.round_outs, []
        if not outs:
            return
        groups = pz.place_outs(outs, len(self.stacks) + len(outs))
        table = pz.prizes(self.pool, self.shares) if self.shares else []
        _, odd = pz.share_prizes(groups, table, outs)
        places: dict[str, int] = {}
        for place_no, players in groups:
            for p in players:
                places[p] = place_no
                self.places[p] = place_no
        self.high.update({o.player: o.high_card for o in outs})
        self.write("out", places=places, hand=hand, tie_odd_chip=odd)  # (POT-01's player)
        for p, place_no in places.items():
            if self.tell is not None:
                self.tell(p, pt.tournament_result(tournament=self.info.id, place=place_no,
                                                  prize=self._prize_of(place_no),
                                                  entrants=len(self.entries)))

    def _prize_of(self, place_no: int) -> int | None:
        """The prize of a place, once the table of places is fixed (a tie shares it; the
        payouts at the end are the booked figures)."""
        if not self.shares:
            return None
        table = pz.prizes(self.pool, self.shares)
        return table[place_no - 1] if place_no <= len(table) else 0

    async def _decide(self, ended: TableRecord, round_end: bool) -> None:
        """docs/rules.md 5.1's order after a hand: break, balance, hand-for-hand, deal.
        During hand-for-hand the players out in the round still count as left until its end,
        and the next deals wait for it (TOUR-10)."""
        left = len(self.stacks) + len(self.round_outs)
        broken = plan.table_to_break(self._views(), left=left)
        if broken is not None and not self.tables[broken].in_hand:
            await self._break(broken)
        if ended.number in self.tables and ended.players:
            mv = plan.balance_move(self._views(), ended.number, self.pick)
            if mv is not None:
                await self._move(mv)
        for t in [t for t in self.tables.values() if not t.players]:
            await self._close_table(t, "empty")
        playing = sum(1 for t in self.tables.values() if t.players)
        on = plan.hand_for_hand(left, len(self.shares) or 1, playing, self.hfh)
        if self.hfh and not round_end and playing > 1:
            on = True  # (it ends only as a round ends)
        if on != self.hfh:
            self.hfh = on
            self.write("hand_for_hand", on=on)
            for x in self.tables.values():  # this round: the hands running now
                x.round_done = not x.in_hand
        if self.hfh and round_end and not any(x.in_hand for x in self.tables.values()):
            for x in self.tables.values():  # a new round: every table deals once
                x.round_done = False
        for x in list(self.tables.values()):
            if not x.in_hand:
                await self._go(x)  # (during hand-for-hand: a table not yet dealt this round)

    def _held(self, t: TableRecord) -> bool:
        return plan.held(self._views(), t.number)

    async def _break(self, number: int) -> None:
        for mv in plan.break_moves(self._views(), number, self.pick):
            await self._move(mv)
        await self._close_table(self.tables[number], "broken")

    async def _move(self, mv: Move) -> None:
        assert mv.src is not None
        player = mv.player
        stack = await self._unseat(player)
        self.write("move", player=player, **{"from": [str(mv.src[0]), mv.src[1]]},
                    to=[str(mv.dst[0]), mv.dst[1]], why=mv.why)
        await self.seat(player, mv.dst[0], mv.dst[1], stack, mv.why)

    async def _close_table(self, t: TableRecord, why: str) -> None:
        t.pending = False
        for p in list(t.players.values()):
            self.stacks[p] = await self._unseat(p)
        self.tables.pop(t.number, None)
        self.write("close_table", table=str(t.number))
        await t.actor.ask(lambda: t.actor.close_for_good(f"tournament {why}"))

    async def _go(self, t: TableRecord) -> None:
        """Deal ``t``'s next hand after the pause, when the rules allow it (TOUR-05..10)."""
        if t.pending or not self._may_deal(t):
            return
        t.pending = True
        pause = t.actor.spec.pause  # (the first too: the players reach their table)
        self.call_later(pause, lambda: self.inbox.put_nowait(lambda: self._deal(t)))

    def _may_deal(self, t: TableRecord) -> bool:
        if (self.state != "running" or self.on_break or t.in_hand or len(t.players) < 2
                or t.number not in self.tables or self.leaving):
            return False
        if plan.held(self._views(), t.number):
            return False  # TOUR-07
        return not (self.hfh and t.round_done)

    async def _deal(self, t: TableRecord) -> None:
        """The pause is over: deal now at the current level (or give the turn back when
        things changed meanwhile: a break, a hold, the table closed)."""
        if not t.pending:
            return  # cancelled meanwhile (the table was broken or closed)
        t.pending = False
        if not self._may_deal(t):
            return
        new_level = t.level != self.level
        t.level = self.level
        spec = table_spec(self.info, self.config, self.level, t.number) if new_level else None
        refill = self.info.structure.time_bank_refill if new_level else 0.0
        if refill:
            await t.actor.ask(lambda: tourney.refill_banks(t.actor, refill, self.config.time_bank))
        t.in_hand = True
        try:
            report = await t.actor.ask(lambda: tourney.deal(t.actor, spec))
        except Exception:
            t.in_hand = False
            raise
        if report is None:
            t.in_hand = False
            log.error("event=tournament_deal_failed tournament=%s table=%s", self.info.id,
                      t.table_id)
            return
        self.dealt(report)

    def _views(self) -> dict[int, TableView]:
        return views(self.info, self.level, self.tables)

    def _table(self, table_id: str) -> TableRecord | None:
        return next((t for t in self.tables.values() if t.table_id == table_id), None)

    # ================================================================ rebuys and add-ons
    def may_buy(self, player: str, why: str) -> bool:
        """Whether ``player`` may take a rebuy or the add-on now (TOUR-14; their table's
        hand aside: one is bought between hands)."""
        return self._refusal(player, why) is None

    def _refusal(self, player: str, why: str) -> str | None:
        return buy_refusal(self.info.structure, player, why, running=self.state == "running",
                           stack=self.stacks.get(player), seated=player in self.seat_of,
                           level=self.level, on_break=self.on_break,
                           add_on_taken=(player, self.entry_no.get(player, 1)) in self.add_ons)

    async def buy_chips(self, player: str, why: str) -> str | None:
        """TOUR-14: a rebuy (a player with at most the starting stack, until the end of
        level ``rebuy_until``) or an add-on (once per entry, on the first break after the
        rebuys), between the player's hands; an error code, or None when bought."""
        s, info = self.info.structure, self.info
        refused = self._refusal(player, why)
        if refused is not None:
            return refused
        amount = s.starting_stack if why == "rebuy" else s.add_on
        t = self.tables[self.seat_of[player][0]]
        if t.in_hand:
            return "not_allowed"  # between hands only (the table's next deal waits on us)
        n = self.buys.get(player, 0) + 1
        if not await self.purse.buy(player, n, why):
            return "insufficient_funds"
        self.buys[player] = n
        if why == "add_on":
            self.add_ons.add((player, self.entry_no.get(player, 1)))
        self.pool += info.buy_in
        self.bought += amount
        await self.wallet.issue(player, amount, key=f"{info.id}:{why}:{player}:{n}")
        if not await t.actor.ask(lambda: tourney.add_chips(t.actor, player, amount)):
            log.error("event=tournament_chips_failed tournament=%s player=%s", info.id, player)
        self.stacks[player] += amount
        self.write("chips", player=player, amount=amount, why=why)
        return None

    # ================================================================ late entries, the end
    async def _enter_late(self, player: str, why: str) -> None:
        mv = plan.entry_seat(self._views(), player, why, self.pick)
        stack = self.info.structure.starting_stack
        await self._issue(player, stack, f"enter:{player}:{self.entry_no[player]}")
        if mv is None:  # every table full: a new one
            t = self.open_table(max(self.tables, default=0) + 1)
            mv = Move(player, None, (t.number, 0), why)
        self.write("enter", player=player, to=[str(mv.dst[0]), mv.dst[1]], stack=stack, why=why)
        await self.seat(player, mv.dst[0], mv.dst[1], stack, mv.why)
        await self._go(self.tables[mv.dst[0]])

    async def _finish(self) -> None:
        winner = next(iter(self.stacks), None)
        if winner is not None:
            self.places[winner] = 1  # (no `out` record: the last player with chips is first)
        if not self.shares:
            self._close_registration()
        paid: dict[str, int] = {}
        amounts = pz.final_prizes(self.places, self.pool, self.shares, self.high)
        for p, amount in sorted(amounts.items(), key=lambda x: self.places[x[0]]):
            if amount <= 0:
                continue
            await self.purse.pay(p, amount, self.places[p])
            paid[p] = amount
            self.prizes[p] = amount
            self.write("payout", player=p, place=self.places[p], amount=amount)
        self.write("finish", pool=self.pool, paid=paid)
        for t in list(self.tables.values()):
            await self._close_table(t, "finished")
        await self._retire_all("finish")
        self.state = "finished"
        self.clock.stop()
        if winner is not None and self.tell is not None:
            self.tell(winner, pt.tournament_result(
                tournament=self.info.id, place=1, prize=paid.get(winner, 0),
                entrants=len(self.entries)))

