"""A tournament survives its process: its state saved after each decision, and restored (TOUR-15).

Rule of this module: :class:`SavedTournaments` keeps, per tournament, one JSON file of its
state (rewritten atomically after each item its director handles that changed it) and its log
as JSON lines (appended, never rewritten), in the data directory's ``tournaments/``. Chips are
never saved here: the ledger holds them (``tchips:<tid>:<player>``, and a crash's clean-up,
``Ledger.recover``, returns every tournament table's chips there, the running hand voided).
:func:`restore` rebuilds a director from its file and the ledger: the level, the clock's
running time, every seat, place and payout come back; each table's hand that was running is
logged ``void`` with the stacks it started with (which is what the ledger holds), its table
reopens, and play goes on.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from server.table import tourney
from server.table.tourney import HandOver
from server.tournament.director import Director
from server.tournament.model import TableRecord
from server.tournament.prizes import Out

__all__ = ["SavedTournaments", "restore", "snapshot"]

log = logging.getLogger("server.tournament")


def snapshot(d: Director) -> dict[str, Any]:
    """What of ``d`` a restore needs (its log apart; no chips)."""
    return {
        "fields": d.fields, "id": d.info.id, "host": d.info.host, "invite": d.info.invite,
        "state": d.state, "names": d.names, "entries": d.entries, "entry_no": d.entry_no,
        "seat_of": {p: list(v) for p, v in d.seat_of.items()},
        "places": d.places, "prizes": d.prizes,
        "round_outs": [[o.player, o.start_stack, list(o.high_card)] for o in d.round_outs],
        "high": {p: list(v) for p, v in d.high.items()},
        "level": d.level, "on_break": d.on_break, "running": d.clock.running(),
        "ended": {str(k): v for k, v in d.clock.ended.items()}, "hfh": d.hfh,
        "shares": list(d.shares), "pool": d.pool, "bought": d.bought, "buys": d.buys,
        "add_ons": [list(x) for x in d.add_ons],
        "tables": [{"number": t.number, "players": {str(s): p for s, p in t.players.items()},
                    "last_big_blind": t.last_big_blind, "dealt": t.dealt,
                    "level": t.level, "hands": t.hands,
                    "running": t.hand if t.in_hand else None}
                   for t in d.tables.values()],
    }


def _lost_hand(d: Director, saved: dict[str, Any], records: list[dict[str, Any]]
               ) -> HandOver | None:
    """A hand a table was playing when its process was lost: voided by the crash's clean-up
    (the ledger's stacks are its start stacks: logged ``void``, None), or settled in the
    ledger before its report reached the director: that report (the ledger's stacks), which
    the director then takes as any other (TOUR-11: who it put out is out)."""
    hand = saved["running"]
    stacks = {p: d.stacks.get(p, 0) for p in saved["players"].values()}
    start: dict[str, int] = next(
        (r.get("stacks") or {} for r in reversed(records)
         if r.get("kind") == "hand_start" and r.get("hand") == hand), {})
    if all(stacks[p] == start.get(p, stacks[p]) for p in stacks):  # (the hand's players:
        dealt = {p: c for p, c in stacks.items() if p in start} if start else stacks
        d.write("void", table=str(saved["number"]), hand=hand, stacks=dealt)  # not a waiter)
        return None
    table_id = f"{d.info.id}.{saved['number']}"
    d.start_stacks[table_id] = {p: int(c) for p, c in start.items()}
    return HandOver(table=table_id, hand=hand, voided=False, stacks=stacks,
                    seats={p: int(s) for s, p in saved["players"].items()})


class SavedTournaments:
    """The files of every tournament of a data directory (see the module docstring)."""

    def __init__(self, root: Path, *, fsync: bool = True) -> None:
        self.root = root
        self.fsync = fsync  # (the ledger's policy, Config.ledger_fsync: False survives a
        # killed process, not a power cut)
        self._logged: dict[str, int] = {}  # tournament -> records already appended

    def _state(self, tid: str) -> Path:
        return self.root / f"{tid}.json"

    def _log(self, tid: str) -> Path:
        return self.root / f"{tid}.log.jsonl"

    def save(self, d: Director) -> None:
        """After an item of ``d``: its new log records appended, its state rewritten."""
        self.root.mkdir(parents=True, exist_ok=True)
        tid = d.info.id
        done = self._logged.get(tid, 0)
        if len(d.log) > done:
            with self._log(tid).open("a", encoding="utf-8") as f:
                for rec in d.log[done:]:
                    f.write(json.dumps(rec, separators=(",", ":")) + "\n")
                f.flush()
                if self.fsync:
                    os.fsync(f.fileno())
            self._logged[tid] = len(d.log)
        tmp = self._state(tid).with_suffix(".tmp")
        tmp.write_text(json.dumps(snapshot(d), separators=(",", ":")), encoding="utf-8")
        os.replace(tmp, self._state(tid))

    def load(self) -> Iterator[tuple[dict[str, Any], list[dict[str, Any]]]]:
        """Every saved tournament: its state and its log."""
        if not self.root.is_dir():
            return
        for path in sorted(self.root.glob("*.json")):
            try:
                state = json.loads(path.read_text(encoding="utf-8"))
                lines = self._log(state["id"]).read_text(encoding="utf-8").splitlines() \
                    if self._log(state["id"]).exists() else []
                records = [json.loads(x) for x in lines if x.strip()]
            except (OSError, ValueError, KeyError):
                log.exception("event=tournament_file_unreadable path=%s", path)
                continue
            self._logged[state["id"]] = len(records)
            yield state, records


async def restore(d: Director, state: dict[str, Any], records: list[dict[str, Any]]) -> None:
    """Put ``state`` back into the fresh director ``d`` (built from ``state["fields"]``) and,
    when it was running, reopen its tables from the ledger's chips (TOUR-15). Runs before
    the director's task starts."""
    d.log = records
    d.state = state["state"]
    d.names, d.entries, d.entry_no = state["names"], state["entries"], state["entry_no"]
    d.places, d.prizes = state["places"], state["prizes"]
    d.high = {p: (v[0], v[1]) for p, v in state["high"].items()}
    d.level, d.on_break, d.hfh = state["level"], state["on_break"], state["hfh"]
    d.clock.elapsed = float(state["running"])
    d.clock.ended = {int(k): v for k, v in state["ended"].items()}
    d.shares, d.pool, d.bought = tuple(state["shares"]), state["pool"], state["bought"]
    d.buys = state["buys"]
    d.add_ons = {(p, n) for p, n in state["add_ons"]}
    if d.state != "running":
        return
    placed = set(d.places)
    d.round_outs = [Out(p, int(st), (int(h[0]), int(h[1])))
                    for p, st, h in state.get("round_outs", [])]
    for player in dict.fromkeys(d.entries):
        if player not in placed:
            d.stacks[player] = await d.wallet.refresh(player)
    lost = {saved["number"]: _lost_hand(d, saved, records) for saved in state["tables"]
            if saved["running"] is not None}
    seq = time.time_ns() // 100_000  # (past every seq of before: see tourney.restart_seq)
    for saved in state["tables"]:
        t: TableRecord = d.open_table(saved["number"])
        await t.actor.ask(functools.partial(tourney.restart_seq, t.actor, seq))
        t.last_big_blind, t.dealt = saved["last_big_blind"], saved["dealt"]
        t.level, t.hands = saved["level"], saved["hands"]
        for seat_s, player in saved["players"].items():
            if d.stacks.get(player, 0) > 0:
                await d.seat(player, t.number, int(seat_s), d.stacks[player], "restore")
            elif lost.get(t.number) is not None:  # out in that hand: in the plan until its
                t.players[int(seat_s)] = player  # report takes them off
                d.seat_of[player] = (t.number, int(seat_s))
    for player in [p for p, chips in d.stacks.items() if chips <= 0 and p not in d.seat_of]:
        d.stacks.pop(player)  # (out in a round the crash ended: placed below)
    if d.round_outs and not any(lost.values()):
        d.place_outs(None)
    reports = {number: r for number, r in lost.items() if r is not None}
    for number in reports:  # (all in hand first: one's decisions never break another)
        d.tables[number].in_hand = True
    for report in reports.values():
        await d.over(report)
    log.info("event=tournament_restored tournament=%s level=%d tables=%d players=%d",
             d.info.id, d.level, len(d.tables), len(d.stacks))
