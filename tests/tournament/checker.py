"""An independent referee of tournaments: replays a tournament log (docs/rules.md 5.1) and checks
every decision in it against the written rules of docs/rules.md section 5 and GEN-05.

Rule of this module: it is written from the rule text only and imports nothing from ``server/``,
so that it does not share the tournament director's reading (nor its blind spots). It tracks
every table's seats and stacks, the level and break, the hands in play, hand-for-hand rounds,
the players left and the places taken, and reports each departure as a ``Violation`` naming the
rule (``TOUR-06``) and the record number where it was seen (``LOG`` for the log's own shape).

Readings chosen where the text leaves a choice (a tournament director's reading):
- R1 The decisions after a ``hand_end`` (out, payout/finish, break, balance, hand-for-hand, in
  that order) form a block that lasts until that table's next ``hand_start``, the next
  ``hand_end`` of any table, or the log's end. Other records (another table's ``hand_start``,
  ``level``, ``enter``, ``chips`` ...) may come in between; each decision is judged when it is
  read, on the state at that moment.
- R2 "Players" of a table are its seated players with chips; "players left" are the entries
  not yet placed (a player who lost everything in a hand-for-hand round counts until the round
  ends and they are placed).
- R3 TOUR-08's break is due whenever a block reaches step (3) and ``left <= (tables-1)*seats``;
  the table to break is the one with the fewest players then (ties: the highest-numbered); if it
  is in a hand it is not broken now (its own hand end will judge again). Several breaks may
  follow one another in one block. A broken table's movers each go to a table with the fewest
  players at that moment; a free seat anywhere there is accepted (random draw).
- R4 TOUR-06's worst free seat: free seats taken clockwise from the seat after the target
  table's last big blind (the last seat of ``blinds`` of its latest ``hand_start``), the first
  one found; the last big blind's seat itself is never accepted. A table that never dealt: its
  lowest free seat. Stud (a table whose last hand had ``blinds == []``, or that never dealt while
  the level's game names stud): any mover from that table, any free seat. The mover (blinds) is
  the first player with chips clockwise after the seat that posted the last big blind.
- R5 TOUR-14: an ``enter`` is seated as a balance mover is (fewest players, ties the lowest
  table, worst free seat), with the starting stack; a table id one above the highest opens a new
  table, allowed only when every open table is full. A re-entry forgets the player's old place.
- R6 TOUR-09: the dead zone applies only at a table that has dealt before; with a dead small
  blind (``blinds[0]`` null) the big blind's seat bounds it; a button of null means no zone.
  At a table's first hand the button is its highest dealt seat (TOUR-04, GEN-05).
- R7 TOUR-10: hand-for-hand turns on in the block (step 5) that brings the players left to
  exactly ``paid + 1`` while more than one table is open. The hands in play when it turns on form
  its first round. It turns off in the block that ends a round with ``left <= paid``, or when a
  break leaves one table. A void takes the voided hand out of its round (the table deals again).
- R8 TOUR-11/12: all places come from the referee's own count (places ``left-k+1 .. left``,
  more start-of-hand chips the better place, equal stacks share the best). Payouts are judged
  with those places; a tie group shares the prizes of the places it covers, the remainder to
  ``tie_odd_chip`` (with several tie groups in one record, a group without it may give the odd
  chip to any member). The winner (last player with chips) is first. The last ``prizes``
  record is the table in force.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

Rec = Mapping[str, Any]
DECISIONS = frozenset({"out", "payout", "finish", "move", "close_table", "hand_for_hand"})
OTHER = frozenset({"start", "level", "break", "resume", "hand_start", "hand_end", "enter",
                   "chips", "prizes", "void", "cancel"})
OUT, FINISH, BREAK, BALANCE, HFH, DONE = range(6)


@dataclass(frozen=True)
class Violation:
    """One departure from the rules: ``rule`` ("TOUR-06" or "LOG"), record ``n``, a message."""

    rule: str
    n: int
    message: str


@dataclass
class _Table:
    name: str
    seats: dict[int, str] = field(default_factory=dict)
    hand: str | None = None
    start: dict[str, int] = field(default_factory=dict)
    last_bb: int | None = None
    has_dealt: bool = False
    no_blinds: bool = False
    newcomers: set[str] = field(default_factory=set)
    closed: bool = False


@dataclass
class _Block:
    table: str
    hand: str | None
    round_end: bool
    outs: list[str]
    stage: int = OUT
    breaking: str | None = None
    spread_before: int = 0


def _between(a: int, x: int, b: int, size: int) -> bool:
    """Is seat ``x`` clockwise strictly after ``a`` and strictly before ``b``?"""
    return 0 < (x - a) % size < (b - a) % size


class _Referee:
    def __init__(self) -> None:
        self.out: list[Violation] = []
        self.n = 0
        self.size = 0
        self.paid_places = 0
        self.start_stack = 0
        self.entries = 0
        self.bought = 0
        self.tables: dict[str, _Table] = {}
        self.stack: dict[str, int] = {}
        self.where: dict[str, tuple[str, int]] = {}
        self.hand_stack: dict[str, int] = {}
        self.placed: dict[str, int] = {}
        self.tie_odd: dict[int, str | None] = {}
        self.left = 0
        self.level = 0
        self.game = ""
        self.on_break = False
        self.hfh = False
        self.round_dealt: set[str] = set()
        self.round_live: set[str] = set()
        self.pool: int | None = None
        self.shares: dict[int, int] = {}
        self.paid_to: dict[str, int] = {}
        self.started = False
        self.finished = False
        self.block: _Block | None = None

    # -- helpers ------------------------------------------------------------------------------
    def v(self, rule: str, message: str) -> None:
        self.out.append(Violation(rule, self.n, message))

    def open_tables(self) -> list[_Table]:
        return sorted((t for t in self.tables.values() if not t.closed), key=lambda t: int(t.name))

    def pop(self, t: _Table) -> int:
        return sum(1 for p in t.seats.values() if self.stack.get(p, 0) > 0)

    def table(self, name: Any) -> _Table | None:
        t = self.tables.get(str(name))
        if t is None or t.closed:
            self.v("LOG", f"table {name!r} is not an open table")
            return None
        return t

    def conserve(self, what: str) -> None:
        want = self.start_stack * self.entries + self.bought
        have = sum(self.stack.values())
        if have != want:
            self.v("TOUR-02", f"after {what} the chips in play are {have}, not {want} "
                              f"(stack * entries + bought chips)")
        if any(c < 0 for c in self.stack.values()):
            self.v("TOUR-02", f"after {what} a stack is negative")

    def free_seats(self, t: _Table) -> list[int]:
        return [s for s in range(self.size) if s not in t.seats]

    def worst_seat(self, t: _Table) -> int | None:
        """TOUR-06's seat for a mover at ``t`` (None: any free seat, stud or no free seat)."""
        free = self.free_seats(t)
        if not free or t.no_blinds or (not t.has_dealt and "stud" in self.game.lower()):
            return None
        if not t.has_dealt or t.last_bb is None:
            return free[0]
        for k in range(1, self.size):
            s = (t.last_bb + k) % self.size
            if s not in t.seats:
                return s
        return None

    def due_bb(self, t: _Table) -> str | None:
        """GEN-05: the first player with chips clockwise after the seat of the last big blind."""
        if t.last_bb is None or t.no_blinds:
            return None
        for k in range(1, self.size + 1):
            p = t.seats.get((t.last_bb + k) % self.size)
            if p is not None and self.stack.get(p, 0) > 0:
                return p
        return None

    def seat_of(self, rec: Rec, key: str) -> tuple[str, int] | None:
        pair = rec.get(key)
        if not isinstance(pair, list | tuple) or len(pair) != 2 or not isinstance(pair[1], int):
            self.v("LOG", f"{key} must be [table, seat], got {pair!r}")
            return None
        return str(pair[0]), pair[1]

    def seat_player(self, p: str, t: _Table, seat: int, rule: str) -> None:
        if not 0 <= seat < self.size or seat in t.seats:
            self.v(rule, f"{p} seated at table {t.name} seat {seat}: not a free seat")
        t.seats[seat] = p
        t.newcomers.add(p)
        self.where[p] = (t.name, seat)

    def unseat(self, p: str) -> None:
        at = self.where.pop(p, None)
        if at is not None and self.tables[at[0]].seats.get(at[1]) == p:
            del self.tables[at[0]].seats[at[1]]

    # -- the replay -----------------------------------------------------------------------------
    def run(self, records: Sequence[Rec]) -> list[Violation]:
        for i, rec in enumerate(records, 1):
            self.n = i
            if rec.get("n") != i:
                self.v("LOG", f"record {i} is numbered {rec.get('n')!r}")
            kind = rec.get("kind")
            if kind not in DECISIONS and kind not in OTHER:
                self.v("LOG", f"unknown kind {kind!r}")
                continue
            if (kind == "start") == self.started:
                self.v("LOG", "the log must open with exactly one start record")
                if kind == "start":
                    continue
            if self.finished and kind not in ("close_table", "hand_for_hand", "payout"):
                self.v("LOG", f"{kind} after the tournament finished")
            if kind == "hand_end" or (kind == "hand_start" and self.block is not None
                                      and self.block.table == str(rec.get("table"))):
                self.close_block()
            if kind in DECISIONS and self.block is not None:
                self.feed(rec)
            elif kind in DECISIONS:
                self.stray(rec)
            else:
                getattr(self, "k_" + str(kind))(rec)
        self.n = len(records)
        self.close_block()
        return self.out

    def k_start(self, rec: Rec) -> None:
        self.started = True
        self.size, self.paid_places = int(rec["seats"]), int(rec["paid"])
        self.start_stack = int(rec["stack"])
        entries = [str(p) for p in rec["entries"]]
        draw: Mapping[str, Any] = rec["draw"]
        if len(set(entries)) != len(entries):
            self.v("TOUR-04", "an entry is listed twice")
        if set(map(str, draw)) != set(entries):
            self.v("TOUR-04", "the draw does not seat every entry exactly once")
        k = math.ceil(len(entries) / self.size)
        self.tables = {str(i): _Table(str(i)) for i in range(1, k + 1)}
        for p, (tname, seat) in draw.items():
            t = self.tables.get(str(tname))
            if t is None or not 0 <= seat < self.size or seat in t.seats:
                self.v("TOUR-04", f"{p} drawn to table {tname} seat {seat}: no such free seat")
                continue
            t.seats[seat] = str(p)
            self.where[str(p)] = (t.name, seat)
        sizes = [len(t.seats) for t in self.tables.values()]
        if sizes and (max(sizes) - min(sizes) > 1 or min(sizes) == 0):
            self.v("TOUR-04", f"the draw's table sizes {sizes} differ by more than one "
                              f"(ceil(n/seats) = {k} tables)")
        self.stack = {p: self.start_stack for p in entries}
        self.entries = self.left = len(entries)

    def k_level(self, rec: Rec) -> None:
        if rec.get("level") != self.level + 1:
            self.v("TOUR-05", f"level {rec.get('level')} follows level {self.level}")
        self.level = int(rec.get("level", self.level + 1))
        self.game = str(rec.get("game") or "")

    def k_break(self, rec: Rec) -> None:
        self.on_break = True

    def k_resume(self, rec: Rec) -> None:
        if not self.on_break:
            self.v("LOG", "resume without a break")
        self.on_break = False

    def k_prizes(self, rec: Rec) -> None:
        shares = rec.get("shares") or []
        items = (enumerate(shares, 1) if isinstance(shares, list)
                 else ((int(k), s) for k, s in dict(shares).items()))
        self.shares = {int(k): int(s) for k, s in items}
        self.pool = int(rec["pool"])
        if sum(self.shares.values()) != 10000:
            self.v("TOUR-12", f"prize shares sum to {sum(self.shares.values())}, not 10000")

    def k_cancel(self, rec: Rec) -> None:
        self.finished = True

    def k_hand_start(self, rec: Rec) -> None:
        t = self.table(rec.get("table"))
        if t is None:
            return
        if t.hand is not None:
            self.v("LOG", f"table {t.name} deals while hand {t.hand} is in play")
        if self.on_break:
            self.v("TOUR-05", f"table {t.name} deals during a break")
        if rec.get("level") != self.level:
            self.v("TOUR-05", f"hand at level {rec.get('level')}, the level is {self.level}")
        most = max(self.pop(o) for o in self.open_tables())
        if most - self.pop(t) >= 3:
            self.v("TOUR-07", f"table {t.name} deals {most - self.pop(t)} players short of "
                              f"the largest table: it is held until balanced")
        if self.hfh:
            if self.round_live and t.name in self.round_dealt:
                self.v("TOUR-10", f"table {t.name} deals again before the hand-for-hand round "
                                  f"ended (hands in play at {sorted(self.round_live)})")
            if not self.round_live:
                self.round_dealt = set()
            self.round_dealt.add(t.name)
            self.round_live.add(t.name)
        players = {str(p): s for p, s in dict(rec.get("players") or {}).items()}
        stacks = {str(p): c for p, c in dict(rec.get("stacks") or {}).items()}
        blinds = list(rec.get("blinds") or [])
        button = rec.get("button")
        bound = blinds[0] if blinds and blinds[0] is not None else (blinds[-1] if blinds else None)
        waiting = set()
        for seat, p in t.seats.items():
            if (t.has_dealt and p in t.newcomers and isinstance(button, int)
                    and isinstance(bound, int) and _between(button, seat, bound, self.size)):
                waiting.add(p)
        due = {p for p in t.seats.values() if self.stack.get(p, 0) > 0} - waiting
        for p in sorted(due - set(players)):
            self.v("TOUR-09", f"{p}, seated at table {t.name} with chips, is not dealt in")
        for p in sorted(set(players) - due):
            if p in waiting:
                self.v("TOUR-09", f"{p}, newly seated between the button and the small blind, "
                                  f"is dealt in: they wait until the button has passed")
            else:
                self.v("LOG", f"{p} dealt in at table {t.name} but not seated there with chips")
        for p, s in players.items():
            if self.where.get(p) not in (None, (t.name, s)):
                self.v("LOG", f"{p} dealt in at seat {s}, seated at {self.where.get(p)}")
            if p in stacks and stacks[p] != self.stack.get(p):
                self.v("TOUR-02", f"{p} starts hand with {stacks[p]}, has {self.stack.get(p)}")
        if not t.has_dealt and blinds and players and button != max(players.values()):
            self.v("TOUR-04", f"table {t.name}'s first button is seat {button}, not the highest "
                              f"occupied seat {max(players.values())}")
        t.hand = str(rec.get("hand"))
        t.start = {p: self.stack.get(p, 0) for p in players}
        self.hand_stack.update(t.start)
        t.has_dealt, t.no_blinds = True, not blinds
        t.last_bb = blinds[-1] if blinds and blinds[-1] is not None else t.last_bb
        t.newcomers.clear()

    def k_hand_end(self, rec: Rec) -> None:
        t = self.table(rec.get("table"))
        if t is None:
            return
        if t.hand is None or str(rec.get("hand")) != t.hand:
            self.v("LOG", f"hand_end of {rec.get('hand')} at table {t.name}, in play: {t.hand}")
        stacks = {str(p): int(c) for p, c in dict(rec.get("stacks") or {}).items()}
        seats = {str(p): s for p, s in dict(rec.get("seats") or {}).items()}
        if set(stacks) != set(t.seats.values()):
            self.v("LOG", f"hand_end stacks name {sorted(stacks)}, seated: "
                          f"{sorted(t.seats.values())}")
        for p, s in seats.items():
            if self.where.get(p) != (t.name, s):
                self.v("LOG", f"hand_end seats {p} at {s}, seated at {self.where.get(p)}")
        before, after = sum(t.start.values()), sum(stacks.get(p, 0) for p in t.start)
        if before != after:
            self.v("TOUR-02", f"hand {t.hand} at table {t.name} ends with {after} chips among "
                              f"its players, started with {before}")
        for p, c in stacks.items():
            if p not in t.start and c != self.stack.get(p):
                self.v("TOUR-02", f"{p}, not in hand {t.hand}, changed to {c}")
            if p in self.stack:
                self.stack[p] = c
        self.conserve(f"hand {t.hand}")
        hand, t.hand = t.hand, None
        round_end = False
        if self.hfh and t.name in self.round_live:
            self.round_live.discard(t.name)
            round_end = not self.round_live
        outs = []
        if not self.hfh or round_end:
            outs = sorted(p for p, c in self.stack.items() if c == 0 and p not in self.placed)
        self.block = _Block(t.name, hand, round_end, outs)

    def k_void(self, rec: Rec) -> None:
        t = self.table(rec.get("table"))
        if t is None:
            return
        if t.hand is None or str(rec.get("hand")) != t.hand:
            self.v("LOG", f"void of {rec.get('hand')} at table {t.name}, in play: {t.hand}")
        restored = {str(p): c for p, c in dict(rec.get("stacks") or {}).items()}
        wrong = {p for p in set(t.start) | set(restored) if restored.get(p) != t.start.get(p)}
        if wrong:
            self.v("TOUR-15", f"void of hand {t.hand} does not restore the stacks at its start "
                              f"for {sorted(wrong)}")
        self.stack.update(t.start)
        t.hand = None
        self.round_live.discard(t.name)
        self.round_dealt.discard(t.name)
        self.conserve("a void")

    def k_enter(self, rec: Rec) -> None:
        p, to = str(rec.get("player")), self.seat_of(rec, "to")
        if rec.get("why") == "re_entry":
            if p not in self.placed:
                self.v("TOUR-14", f"{p} re-enters but is not out")
            self.placed.pop(p, None)
        elif p in self.stack:
            self.v("TOUR-14", f"{p} enters late but has an entry already")
        if rec.get("stack") != self.start_stack:
            self.v("TOUR-02", f"{p} enters with {rec.get('stack')}, not the starting stack")
        self.entries += 1
        self.left += 1
        self.stack[p] = self.start_stack
        if to is None:
            return
        open_ = self.open_tables()
        if to[0] not in self.tables and int(to[0]) == max(map(int, self.tables)) + 1:
            if any(len(o.seats) < self.size for o in open_):
                self.v("TOUR-14", f"table {to[0]} opened for {p} while a table has a free seat")
            self.tables[to[0]] = _Table(to[0])
            open_ = self.open_tables()
        t = self.table(to[0])
        if t is None:
            return
        fewest = min(open_, key=lambda o: (self.pop(o), int(o.name)))
        if t is not fewest:
            self.v("TOUR-14", f"{p} entered at table {t.name}, the fewest players are at "
                              f"table {fewest.name}")
        self.check_seat(p, t, to[1], "TOUR-14")
        self.seat_player(p, t, to[1], "TOUR-14")
        self.conserve("an entry")

    def k_chips(self, rec: Rec) -> None:
        p, amount = str(rec.get("player")), int(rec.get("amount", 0))
        at = self.where.get(p)
        if at is None or p in self.placed or amount <= 0:
            self.v("TOUR-14", f"chips for {p}: not a seated player, or amount {amount}")
        elif self.tables[at[0]].hand is not None:
            self.v("TOUR-14", f"{p} buys chips during hand {self.tables[at[0]].hand}")
        if rec.get("why") == "rebuy" and self.stack.get(p, 0) > self.start_stack:
            self.v("TOUR-14", f"{p} rebuys with {self.stack.get(p)}, above the starting stack")
        self.bought += amount
        self.stack[p] = self.stack.get(p, 0) + amount
        self.conserve("chips bought")

    # -- decisions --------------------------------------------------------------------------
    def check_seat(self, p: str, t: _Table, seat: int, rule: str) -> None:
        worst = self.worst_seat(t)
        if seat == t.last_bb and t.has_dealt and not t.no_blinds and worst is not None:
            self.v(rule, f"{p} put in seat {seat}, which posted table {t.name}'s last big blind")
        elif worst is not None and seat != worst:
            self.v(rule, f"{p} put in seat {seat} at table {t.name}, worst free seat: {worst}")

    def move(self, rec: Rec, rule: str) -> tuple[str, _Table, _Table, int] | None:
        """Checks and applies a ``move``; returns (player, from table, to table, seat)."""
        p, fr, to = str(rec.get("player")), self.seat_of(rec, "from"), self.seat_of(rec, "to")
        if fr is None or to is None:
            return None
        src, dst = self.table(fr[0]), self.table(to[0])
        if src is None or dst is None:
            return None
        if self.where.get(p) != fr:
            self.v("LOG", f"{p} moves from {list(fr)} but is seated at {self.where.get(p)}")
        if src.hand is not None:
            self.v(rule, f"{p} moved from table {src.name} during hand {src.hand}")
        if self.stack.get(p, 0) <= 0 or p in self.placed:
            self.v(rule, f"{p} moved without chips")
        self.unseat(p)
        self.seat_player(p, dst, to[1], rule)
        self.conserve("a move")
        return p, src, dst, to[1]

    def feed(self, rec: Rec | None) -> None:
        """Judges ``rec`` (None: the block's end) against the block's next required step."""
        b = self.block
        assert b is not None
        kind = rec.get("kind") if rec is not None else None
        while True:
            if b.stage == OUT:
                b.stage = FINISH
                if b.outs:
                    if kind == "out" and rec is not None:
                        self.place(rec, b)
                        return
                    self.v("TOUR-11", f"players out {b.outs} are not placed")
                    self.place(None, b)
            elif b.stage == FINISH:
                if self.left == 1 and not self.finished:
                    for p in [p for p in self.stack if p not in self.placed]:
                        self.placed[p] = 1
                    if kind == "payout" and rec is not None:
                        self.payout(rec)
                        return
                    if kind == "finish" and rec is not None:
                        self.finish(rec)
                        b.stage = DONE
                        return
                    self.v("TOUR-12", "one player is left but the tournament does not finish")
                    self.finished = True
                    b.stage = DONE
                else:
                    b.stage = BREAK
            elif b.stage == BREAK:
                if b.breaking is None:
                    target = self.to_break()
                    if target is None or target.hand is not None:
                        b.stage = BALANCE
                        continue
                    b.breaking = target.name
                    rest = [self.pop(o) for o in self.open_tables() if o is not target]
                    b.spread_before = max(rest) - min(rest)
                brk = self.tables[b.breaking]
                if kind == "move" and rec is not None and rec.get("why") == "break" \
                        and str((rec.get("from") or [None])[0]) == brk.name:
                    self.break_move(rec, brk)
                    return
                if kind == "close_table" and rec is not None and str(rec.get("table")) == brk.name:
                    self.close(brk)
                    rest = [self.pop(o) for o in self.open_tables()]
                    if b.spread_before <= 1 and rest and max(rest) - min(rest) > 1:
                        self.v("TOUR-08", f"after breaking table {brk.name} sizes are {rest}")
                    b.breaking = None
                    return
                self.v("TOUR-08", f"table {brk.name} must be broken now: {self.pop(brk)} "
                                  f"players still to move, then close_table")
                b.breaking, b.stage = None, BALANCE
            elif b.stage == BALANCE:
                b.stage = HFH
                due = self.balance_due(self.tables[b.table])
                if kind == "move" and rec is not None and rec.get("why") == "balance" \
                        and str((rec.get("from") or [None])[0]) == b.table:
                    self.balance_move(rec, due)
                    return
                if due is not None:
                    self.v("TOUR-06", f"table {b.table} has {self.pop(self.tables[b.table])} "
                                      f"players, table {due[1].name} {self.pop(due[1])}: "
                                      f"a balance move is missing")
            elif b.stage == HFH:
                b.stage = DONE
                want = self.hfh_due(b)
                if kind == "hand_for_hand" and rec is not None:
                    if want is None or bool(rec.get("on")) != want:
                        self.v("TOUR-10", f"hand-for-hand {'on' if rec.get('on') else 'off'} "
                                          f"not due (players left {self.left}, paid "
                                          f"{self.paid_places}, tables {len(self.open_tables())})")
                    self.set_hfh(bool(rec.get("on")), b.table)
                    return
                if want is not None:
                    self.v("TOUR-10", f"hand-for-hand should turn {'on' if want else 'off'} "
                                      f"(players left {self.left}, paid {self.paid_places})")
                    self.set_hfh(want, b.table)
            else:
                if rec is not None:
                    self.stray(rec)
                return

    def close_block(self) -> None:
        if self.block is not None:
            self.feed(None)
            self.block = None

    def stray(self, rec: Rec) -> None:
        """A decision no rule requires here (still applied, so the replay goes on)."""
        kind = rec.get("kind")
        if kind == "move":
            rule = "TOUR-08" if rec.get("why") == "break" else "TOUR-06"
            self.v(rule, f"move of {rec.get('player')} ({rec.get('why')}) is not required here")
            self.move(rec, rule)
        elif kind == "out":
            self.v("TOUR-11", "out record where no players are due to be placed")
            for p, place in dict(rec.get("places") or {}).items():
                if self.stack.get(str(p)) == 0 and str(p) not in self.placed:
                    self.placed[str(p)] = int(place)
                    self.unseat(str(p))
                    self.left -= 1
        elif kind == "close_table":
            t = self.table(rec.get("table"))
            if t is not None and self.pop(t) > 0 and not self.finished:
                self.v("TOUR-08", f"table {t.name} closed with players and no break due")
            if t is not None:
                self.close(t)
        elif kind == "hand_for_hand":
            if not (self.finished and not rec.get("on")):
                self.v("TOUR-10", "hand_for_hand outside the decisions after a hand")
                self.set_hfh(bool(rec.get("on")), "")
        elif kind == "payout":
            if not self.finished:
                self.v("TOUR-12", "payout before the tournament's end")
            self.payout(rec)
        elif kind == "finish":
            self.v("TOUR-12", "finish with more than one player left")
            self.finish(rec)

    def place(self, rec: Rec | None, b: _Block) -> None:
        """TOUR-11: checks an ``out`` record against the referee's own places, applies those."""
        k, top = len(b.outs), self.left - len(b.outs) + 1
        s = {p: self.hand_stack.get(p, 0) for p in b.outs}
        want = {p: top + sum(1 for q in b.outs if s[q] > s[p]) for p in b.outs}
        groups: dict[int, list[str]] = {}
        for p, place in want.items():
            groups.setdefault(place, []).append(p)
        tied = {p for g in groups.values() if len(g) > 1 for p in g}
        odd = None
        if rec is not None:
            got = {str(p): pl for p, pl in dict(rec.get("places") or {}).items()}
            if set(got) != set(want):
                self.v("TOUR-11", f"out places {sorted(got)}, the players out are {b.outs}")
            elif got != want:
                self.v("TOUR-11", f"places {got}, by start-of-hand stacks they are {want}")
            odd = rec.get("tie_odd_chip")
            if (odd is None) != (not tied) or (odd is not None and str(odd) not in tied):
                self.v("TOUR-11", f"tie_odd_chip {odd!r}, tied players: {sorted(tied)}")
            if not self.hfh and not b.round_end and str(rec.get("hand")) != b.hand:
                self.v("LOG", f"out names hand {rec.get('hand')}, the hand was {b.hand}")
        for p, place in want.items():
            self.placed[p] = place
            self.unseat(p)
            if len(groups[place]) > 1:
                self.tie_odd[place] = str(odd) if odd in groups[place] else None
        self.left -= k

    def prize(self, place: int) -> int:
        pool = self.pool or 0
        floors = {q: pool * s // 10000 for q, s in self.shares.items()}
        return floors.get(place, 0) + (pool - sum(floors.values()) if place == 1 else 0)

    def due_amounts(self, p: str) -> set[int]:
        q = self.placed[p]
        group = [x for x, pl in self.placed.items() if pl == q]
        total = sum(self.prize(q + i) for i in range(len(group)))
        base, rem = divmod(total, len(group))
        odd = self.tie_odd.get(q)
        if rem == 0 or odd is not None:
            return {base + (rem if p == odd else 0)}
        return {base, base + rem}

    def payout(self, rec: Rec) -> None:
        p, amount = str(rec.get("player")), rec.get("amount")
        if self.pool is None:
            self.v("TOUR-12", "payout before any prizes record")
            return
        if p in self.paid_to:
            self.v("TOUR-12", f"{p} is paid twice")
            return
        self.paid_to[p] = int(amount or 0)
        if p not in self.placed:
            self.v("TOUR-12", f"{p} is paid but has no place")
            return
        if rec.get("place") != self.placed[p]:
            self.v("TOUR-12", f"{p} paid for place {rec.get('place')}, took {self.placed[p]}")
        want = self.due_amounts(p)
        if amount not in want:
            self.v("TOUR-12", f"{p} (place {self.placed[p]}) paid {amount}, due {sorted(want)}")

    def finish(self, rec: Rec) -> None:
        self.finished = True
        if rec.get("pool") != self.pool:
            self.v("TOUR-12", f"finish pool {rec.get('pool')}, the prizes pool is {self.pool}")
        paid = {str(p): a for p, a in dict(rec.get("paid") or {}).items()}
        if paid != self.paid_to:
            self.v("TOUR-12", f"finish.paid {paid} differs from the payouts {self.paid_to}")
        unpaid = sorted(p for p in self.placed if p not in self.paid_to
                        and max(self.due_amounts(p)) > 0)
        if unpaid:
            self.v("TOUR-12", f"places not paid: {unpaid}")
        if self.pool is not None and sum(self.paid_to.values()) != self.pool:
            self.v("TOUR-12", f"payouts sum to {sum(self.paid_to.values())}, pool {self.pool}")

    def to_break(self) -> _Table | None:
        open_ = self.open_tables()
        if len(open_) < 2 or self.left > (len(open_) - 1) * self.size:
            return None
        return min(open_, key=lambda o: (self.pop(o), -int(o.name)))

    def break_move(self, rec: Rec, brk: _Table) -> None:
        others = [o for o in self.open_tables() if o is not brk]
        fewest = min(self.pop(o) for o in others) if others else 0
        to = self.seat_of(rec, "to")
        if to is not None and to[0] in self.tables and self.tables[to[0]] in others \
                and self.pop(self.tables[to[0]]) != fewest:
            self.v("TOUR-08", f"{rec.get('player')} moved to table {to[0]} "
                              f"({self.pop(self.tables[to[0]])} players), the fewest is {fewest}")
        self.move(rec, "TOUR-08")

    def close(self, t: _Table) -> None:
        if self.pop(t) > 0 and not self.finished:
            self.v("TOUR-08", f"table {t.name} closed with {self.pop(t)} players seated")
        if t.hand is not None:
            self.v("TOUR-08", f"table {t.name} closed during hand {t.hand}")
        t.closed = True
        self.round_live.discard(t.name)

    def balance_due(self, t: _Table) -> tuple[str | None, _Table, int | None] | None:
        """TOUR-06: (mover or None for stud, target table, seat or None) when a move is due."""
        if t.closed:
            return None
        open_ = self.open_tables()
        target = min(open_, key=lambda o: (self.pop(o), int(o.name)))
        if self.pop(t) - self.pop(target) < 2:
            return None
        return self.due_bb(t), target, self.worst_seat(target)

    def balance_move(self, rec: Rec, due: tuple[str | None, _Table, int | None] | None) -> None:
        p = str(rec.get("player"))
        if due is None:
            self.v("TOUR-06", f"balance move of {p} from table {rec.get('from')} not required")
            self.move(rec, "TOUR-06")
            return
        mover, target, _ = due
        if mover is not None and p != mover:
            self.v("TOUR-06", f"{p} moved; the player due the big blind is {mover}")
        to = self.seat_of(rec, "to")
        if to is not None and to[0] != target.name:
            self.v("TOUR-06", f"{p} moved to table {to[0]}, the fewest players are at table "
                              f"{target.name}")
        elif to is not None:
            self.check_seat(p, target, to[1], "TOUR-06")
        self.move(rec, "TOUR-06")

    def hfh_due(self, b: _Block) -> bool | None:
        tables = len(self.open_tables())
        if not self.hfh:
            return True if self.left == self.paid_places + 1 and tables > 1 else None
        if (b.round_end and self.left <= self.paid_places) or tables <= 1:
            return False
        return None

    def set_hfh(self, on: bool, table: str) -> None:
        self.hfh = on
        live = {t.name for t in self.open_tables() if t.hand is not None}
        self.round_live = live if on else set()
        self.round_dealt = (live | {table}) - {""} if on else set()


def check_log(records: Sequence[Mapping[str, Any]]) -> list[Violation]:
    """Replays a tournament log and returns every departure from docs/rules.md section 5."""
    return _Referee().run(records)


def assert_log_ok(records: Sequence[Mapping[str, Any]]) -> None:
    """Raises AssertionError listing every violation (one per line) when the log breaks a rule."""
    found = check_log(records)
    if found:
        raise AssertionError("tournament log violations:\n" + "\n".join(
            f"  #{x.n} {x.rule}: {x.message}" for x in found))
