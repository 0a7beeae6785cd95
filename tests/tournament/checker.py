"""An independent referee of tournaments: replays a tournament log (docs/rules.md 5.1) and checks
every decision in it against the rules of docs/rules.md section 5 (TOUR-02..15) and GEN-05.

Rule of this module: written from the rule text only, it imports nothing from ``server/`` (a
referee sharing the director's reading would share its blind spots). It replays seats, stacks,
levels, hands, hand-for-hand rounds and places, and reports each departure as a ``Violation``
naming the rule and the record (``LOG`` for the log's own shape).

Readings where the text leaves a choice (a tournament director's):
- R1 The decisions after a ``hand_end`` (out; payouts and finish; break; balance; hand-for-hand)
  form a block that lasts until that table's next ``hand_start``, any ``hand_end``, or the log's
  end; other records may come in between. Each decision is judged on the state when it is read.
- R2 A table's players are its seated players with chips; the players left are the entries not
  yet placed (one who busted in a hand-for-hand round counts until the round ends), though
  their seat is free at once (TOUR-11: out at the hand's end).
- R3 TOUR-08: at step (3), while ``left <= (tables-1)*seats``, the table with the fewest players
  (ties: the highest) is broken if it is not in a hand (else its own hand's end judges again);
  each mover goes to a table then with the fewest, any free seat (random draw).
- R4 TOUR-06: the mover is the first player with chips clockwise after the seat of the table's
  last big blind (the last seat of ``blinds`` of its latest hand); the seat is the first free one
  clockwise after the target's last big blind, never that seat itself; at a table that has not
  dealt, its lowest free seat. Stud (last hand's ``blinds == []``, or never dealt and the level's
  game names stud): any mover from the table, any free seat.
- R5 TOUR-14: an ``enter`` is seated as a balance mover (the last big blind's seat is accepted
  only when it is the one free seat), with the starting stack; a new table opens only when every
  open table is full. A re-entry forgets the old place.
- R6 TOUR-09: no dead zone at a table's first hand (its button: the highest seat, TOUR-04) or
  with a null button; with a dead small blind (``blinds[0]`` null) the big blind bounds it.
- R7 TOUR-10: on in the block that brings the players left to exactly ``paid + 1`` with more than
  one table; the hands then in play are its first round. Off in the block that ends a round with
  ``left <= paid``, or when one table is left. A void takes its hand out of the round.
- R8 TOUR-11/12: places are the referee's own (``left-k+1 .. left``, more start-of-hand chips
  better, equal stacks share the best), and payouts are judged on them; a tie shares its places'
  prizes, the odd chip to ``tie_odd_chip`` (to any member for a second tie group in one record).
  The winner is first. The last ``prizes`` record is in force; its places with a share are the
  places paid (``start.paid`` until then).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

Rec = Mapping[str, Any]
DECISIONS = frozenset({"out", "payout", "finish", "move", "close_table", "hand_for_hand"})
OTHER = {k: k for k in ("start", "level", "break", "hand_start", "hand_end", "enter", "chips",
                        "prizes", "void")} | {"resume": "break", "cancel": "break"}
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
class _Block:   # the decisions after one hand_end (R1), judged step by step
    table: str
    hand: str | None
    round_end: bool
    outs: list[str]
    stage: int = OUT
    breaking: str | None = None
    spread_before: int = 0


def _pair(value: Any) -> tuple[str, int]:
    """``[table, seat]`` of a record (raises ValueError when it is not one)."""
    if not isinstance(value, list | tuple) or len(value) != 2 or not isinstance(value[1], int):
        raise ValueError(f"not a [table, seat]: {value!r}")
    return str(value[0]), value[1]


def _named(value: Any) -> dict[str, Any]:
    return {str(k): v for k, v in dict(value or {}).items()}


class _Referee:
    def __init__(self) -> None:
        self.out: list[Violation] = []
        self.n = self.size = self.paid_places = self.start_stack = self.entries = 0
        self.bought = self.left = self.level = 0
        self.tables: dict[str, _Table] = {}
        self.stack: dict[str, int] = {}
        self.where: dict[str, tuple[str, int]] = {}
        self.hand_stack: dict[str, int] = {}
        self.placed: dict[str, int] = {}
        self.tie_odd: dict[int, str | None] = {}
        self.game = ""
        self.on_break = self.hfh = self.started = self.finished = False
        self.round_dealt: set[str] = set()
        self.round_live: set[str] = set()
        self.pool: int | None = None
        self.shares: dict[int, int] = {}
        self.paid_to: dict[str, int] = {}
        self.block: _Block | None = None

    # -- helpers ------------------------------------------------------------------------------
    def v(self, rule: str, message: str) -> None:
        self.out.append(Violation(rule, self.n, message))

    def open_tables(self) -> list[_Table]:
        return sorted((t for t in self.tables.values() if not t.closed), key=lambda t: int(t.name))

    def pop(self, t: _Table) -> int:
        """A table's players: seated, with chips (R2)."""
        return sum(1 for p in t.seats.values() if self.stack.get(p, 0) > 0)

    def fewest(self, exclude: _Table | None = None) -> _Table:
        """TOUR-06: the open table with the fewest players, ties the lowest-numbered."""
        return min((o for o in self.open_tables() if o is not exclude),
                   key=lambda o: (self.pop(o), int(o.name)))

    def table(self, name: Any) -> _Table:
        t = self.tables.get(str(name))
        if t is None or t.closed:
            raise ValueError(f"table {name!r} is not an open table")
        return t

    def conserve(self, what: str) -> None:
        """TOUR-02: chips in play == starting stack * entries + bought chips, none negative."""
        want, have = self.start_stack * self.entries + self.bought, sum(self.stack.values())
        if have != want or min(self.stack.values(), default=0) < 0:
            self.v("TOUR-02", f"after {what} the chips in play are {have}, not {want} (or < 0)")

    def worst_seat(self, t: _Table) -> int | None:
        """TOUR-06's seat for a mover at ``t`` (R4; None: any free seat)."""
        free = [s for s in range(self.size) if not self.taken(t, s)]
        if not free or t.no_blinds or (not t.has_dealt and "stud" in self.game.lower()):
            return None
        if not t.has_dealt or t.last_bb is None:
            return free[0]
        return next((s for k in range(1, self.size)
                     if not self.taken(t, s := (t.last_bb + k) % self.size)), None)

    def taken(self, t: _Table, seat: int) -> bool:
        """A seat is taken by a player with chips: one out (no chips at a hand's end,
        TOUR-11) has left it, even before a hand-for-hand round's end places them (R2)."""
        p = t.seats.get(seat)
        return p is not None and self.stack.get(p, 0) > 0

    def due_bb(self, t: _Table) -> str | None:
        """GEN-05: the first player with chips clockwise after the seat of the last big blind."""
        if t.last_bb is None or t.no_blinds:
            return None
        seats = ((t.last_bb + k) % self.size for k in range(1, self.size + 1))
        return next((p for s in seats if (p := t.seats.get(s)) and self.stack.get(p, 0) > 0),
                    None)

    def seat(self, p: str, t: _Table | None, seat: int = 0, rule: str = "LOG") -> None:
        """Takes ``p`` from their seat and, unless ``t`` is None, seats them at ``t``."""
        at = self.where.pop(p, None)
        if at is not None and self.tables[at[0]].seats.get(at[1]) == p:
            del self.tables[at[0]].seats[at[1]]
        if t is not None:
            if not 0 <= seat < self.size or self.taken(t, seat):
                self.v(rule, f"{p} seated at table {t.name} seat {seat}: not a free seat")
            gone = t.seats.get(seat)
            if gone is not None and self.where.get(gone) == (t.name, seat):
                del self.where[gone]  # (out, their seat taken before the round placed them)
            t.seats[seat], self.where[p] = p, (t.name, seat)
            t.newcomers.add(p)

    # -- the replay -----------------------------------------------------------------------------
    def run(self, records: Sequence[Rec]) -> list[Violation]:
        for i, rec in enumerate(records, 1):
            self.n, kind = i, str(rec.get("kind"))
            if rec.get("n") != i:
                self.v("LOG", f"record {i} is numbered {rec.get('n')!r}")
            if kind not in DECISIONS and kind not in OTHER:
                self.v("LOG", f"unknown kind {kind!r}")
                continue
            if (kind == "start") == self.started:
                self.v("LOG", "the log must open with exactly one start record")
                continue
            if self.finished and kind not in ("close_table", "hand_for_hand"):
                self.v("LOG", f"{kind} after the tournament finished")
            if kind == "hand_end" or (kind == "hand_start" and self.block is not None
                                      and self.block.table == str(rec.get("table"))):
                self.close_block()
            try:
                if kind not in DECISIONS:
                    getattr(self, "k_" + OTHER[kind])(rec)
                elif self.block is not None:
                    self.feed(self.block, rec)
                else:
                    self.stray(rec)
            except (KeyError, TypeError, ValueError) as exc:
                self.v("LOG", f"malformed {kind} record: {exc}")
        self.n = len(records)
        self.close_block()
        return self.out

    def k_start(self, rec: Rec) -> None:
        """TOUR-04: the draw."""
        self.started, self.size, self.paid_places = True, int(rec["seats"]), int(rec["paid"])
        self.start_stack = int(rec["stack"])
        entries, draw = [str(p) for p in rec["entries"]], _named(rec["draw"])
        if len(set(entries)) != len(entries) or set(draw) != set(entries):
            self.v("TOUR-04", "the draw does not seat every entry exactly once")
        k = math.ceil(len(entries) / self.size)
        self.tables = {str(i): _Table(str(i)) for i in range(1, k + 1)}
        for p, (tname, seat) in ((p, _pair(at)) for p, at in draw.items()):
            t = self.tables.get(tname)
            if t is None or not 0 <= seat < self.size or seat in t.seats:
                self.v("TOUR-04", f"{p} drawn to table {tname} seat {seat}: no such free seat")
                continue
            t.seats[seat], self.where[p] = p, (tname, seat)
        sizes = [len(t.seats) for t in self.tables.values()]
        if sizes and (max(sizes) - min(sizes) > 1 or min(sizes) == 0):
            self.v("TOUR-04", f"the draw's {k} tables have sizes {sizes}: differ by more than one")
        self.stack = {p: self.start_stack for p in entries}
        self.entries = self.left = len(entries)

    def k_level(self, rec: Rec) -> None:
        if rec["level"] != self.level + 1:
            self.v("TOUR-05", f"level {rec['level']} follows level {self.level}")
        self.level, self.game = int(rec["level"]), str(rec.get("game") or "")

    def k_break(self, rec: Rec) -> None:
        """``break`` and ``resume`` (TOUR-05); ``cancel`` ends the log's checks."""
        if rec["kind"] == "resume" and not self.on_break:
            self.v("LOG", "resume without a break")
        self.on_break = rec["kind"] == "break"
        self.finished = self.finished or rec["kind"] == "cancel"

    def k_prizes(self, rec: Rec) -> None:
        shares = rec.get("shares") or []
        items = enumerate(shares, 1) if isinstance(shares, list) else dict(shares).items()
        self.shares, self.pool = {int(k): int(s) for k, s in items}, int(rec["pool"])
        self.paid_places = sum(1 for s in self.shares.values() if s > 0)
        if sum(self.shares.values()) != 10000:
            self.v("TOUR-12", f"prize shares sum to {sum(self.shares.values())}, not 10000")

    def k_hand_start(self, rec: Rec) -> None:
        t = self.table(rec["table"])
        if t.hand is not None:
            self.v("LOG", f"table {t.name} deals while hand {t.hand} is in play")
        if self.on_break:
            self.v("TOUR-05", f"table {t.name} deals during a break")
        if rec.get("level") != self.level:
            self.v("TOUR-05", f"hand at level {rec.get('level')}, the level is {self.level}")
        short = max(self.pop(o) for o in self.open_tables()) - self.pop(t)
        if short >= 3:
            self.v("TOUR-07", f"table {t.name} deals {short} players short of the largest table")
        if self.hfh and self.round_live and t.name in self.round_dealt:
            self.v("TOUR-10", f"table {t.name} deals again before the hand-for-hand round ended")
        if self.hfh:   # a new round starts when the last one's hands have all ended
            self.round_dealt = (self.round_dealt if self.round_live else set()) | {t.name}
            self.round_live.add(t.name)
        players, stacks = _named(rec["players"]), _named(rec.get("stacks"))
        blinds, button = list(rec.get("blinds") or []), rec.get("button")
        bound = blinds[0] if blinds and blinds[0] is not None else (blinds[-1] if blinds else None)
        waiting = {p for s, p in t.seats.items() if t.has_dealt and p in t.newcomers   # R6
                   and isinstance(button, int) and isinstance(bound, int)
                   and 0 < (s - button) % self.size < (bound - button) % self.size}
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
            self.v("TOUR-04", f"table {t.name}'s first button {button} is not its highest seat")
        t.hand, t.start = str(rec["hand"]), {p: self.stack.get(p, 0) for p in players}
        self.hand_stack.update(t.start)
        t.has_dealt, t.no_blinds = True, not blinds
        t.last_bb = blinds[-1] if blinds and blinds[-1] is not None else t.last_bb
        t.newcomers.clear()

    def k_hand_end(self, rec: Rec) -> None:
        t = self.table(rec["table"])
        if t.hand is None or str(rec["hand"]) != t.hand:
            self.v("LOG", f"hand_end of {rec['hand']} at table {t.name}, in play: {t.hand}")
        stacks, seats = _named(rec["stacks"]), _named(rec.get("seats"))
        if set(stacks) != set(t.seats.values()):
            self.v("LOG", f"hand_end stacks {sorted(stacks)}, seated {sorted(t.seats.values())}")
        for p, s in seats.items():
            if self.where.get(p) != (t.name, s):
                self.v("LOG", f"hand_end seats {p} at {s}, seated at {self.where.get(p)}")
        before, after = sum(t.start.values()), sum(stacks.get(p, 0) for p in t.start)
        if before != after:
            self.v("TOUR-02", f"hand {t.hand} at table {t.name} ends with {after}, began {before}")
        for p, c in stacks.items():
            if p not in t.start and c != self.stack.get(p):
                self.v("TOUR-02", f"{p}, not in hand {t.hand}, changed to {c}")
            if p in self.stack:
                self.stack[p] = int(c)
        self.conserve(f"hand {t.hand}")
        hand, t.hand, in_round = t.hand, None, self.hfh and t.name in self.round_live
        self.round_live.discard(t.name)
        round_end = in_round and not self.round_live
        outs = [] if self.hfh and not round_end else sorted(
            p for p, c in self.stack.items() if c == 0 and p not in self.placed)
        self.block = _Block(t.name, hand, round_end, outs)

    def k_void(self, rec: Rec) -> None:
        """TOUR-15: a voided hand's stacks go back to its start."""
        t, restored = self.table(rec["table"]), _named(rec["stacks"])
        if t.hand is None or str(rec["hand"]) != t.hand:
            self.v("LOG", f"void of {rec['hand']} at table {t.name}, in play: {t.hand}")
        wrong = sorted(p for p in set(t.start) | set(restored) if restored.get(p) != t.start.get(p))
        if wrong:
            self.v("TOUR-15", f"void of {t.hand} does not restore the start stacks of {wrong}")
        self.stack.update(t.start)
        t.hand = None
        self.round_live, self.round_dealt = self.round_live - {t.name}, self.round_dealt - {t.name}
        self.conserve("a void")

    def k_enter(self, rec: Rec) -> None:
        """TOUR-14 (R5): a late entry or a re-entry, seated as a balance mover."""
        p, to = str(rec["player"]), _pair(rec["to"])
        if rec.get("why") == "re_entry" and self.placed.pop(p, None) is None:
            self.v("TOUR-14", f"{p} re-enters but is not out")
        elif rec.get("why") != "re_entry" and p in self.stack:
            self.v("TOUR-14", f"{p} enters late but has an entry already")
        if rec.get("stack") != self.start_stack:
            self.v("TOUR-02", f"{p} enters with {rec.get('stack')}, not the starting stack")
        self.entries, self.left, self.stack[p] = self.entries + 1, self.left + 1, self.start_stack
        if to[0] not in self.tables and int(to[0]) == max(map(int, self.tables)) + 1:
            if any(len(o.seats) < self.size for o in self.open_tables()):
                self.v("TOUR-14", f"table {to[0]} opened for {p} while a table has a free seat")
            self.tables[to[0]] = _Table(to[0])
        t, fewest = self.table(to[0]), self.fewest()
        if t is not fewest:
            self.v("TOUR-14", f"{p} entered at table {t.name}, the fewest are at {fewest.name}")
        self.check_seat(p, t, to[1], "TOUR-14")
        self.seat(p, t, to[1], "TOUR-14")
        self.conserve("an entry")

    def k_chips(self, rec: Rec) -> None:
        """TOUR-14: a rebuy or add-on, between hands (GEN-06)."""
        p, amount = str(rec["player"]), int(rec["amount"])
        if (at := self.where.get(p)) is None or amount <= 0 or self.tables[at[0]].hand:
            self.v("TOUR-14", f"{p} buys {amount} chips unseated, or during a hand")
        if rec.get("why") == "rebuy" and self.stack.get(p, 0) > self.start_stack:
            self.v("TOUR-14", f"{p} rebuys with {self.stack.get(p)}, above the starting stack")
        self.bought, self.stack[p] = self.bought + amount, self.stack.get(p, 0) + amount
        self.conserve("chips bought")

    # -- decisions --------------------------------------------------------------------------
    def check_seat(self, p: str, t: _Table, seat: int, rule: str) -> None:
        worst = self.worst_seat(t)
        if worst is not None and seat == t.last_bb and t.has_dealt:
            self.v(rule, f"{p} put in seat {seat}, which posted table {t.name}'s last big blind")
        elif worst is not None and seat != worst:
            self.v(rule, f"{p} put in seat {seat} at table {t.name}, worst free seat: {worst}")

    def move(self, rec: Rec, rule: str) -> None:
        """Checks the mover can move, and moves them."""
        p, fr, to = str(rec["player"]), _pair(rec["from"]), _pair(rec["to"])
        src, dst = self.table(fr[0]), self.table(to[0])
        if self.where.get(p) != fr:
            self.v("LOG", f"{p} moves from {list(fr)} but is seated at {self.where.get(p)}")
        if src.hand is not None:
            self.v(rule, f"{p} moved from table {src.name} during hand {src.hand}")
        if self.stack.get(p, 0) <= 0 or p in self.placed:
            self.v(rule, f"{p} moved without chips")
        self.seat(p, dst, to[1], rule)
        self.conserve("a move")

    def feed(self, b: _Block, rec: Rec | None) -> None:
        """Judges ``rec`` (None: the block's end) against the block's next required step."""
        kind = rec["kind"] if rec is not None else None
        while b.stage != DONE:
            step = (self.step_out, self.step_finish, self.step_break, self.step_balance,
                    self.step_hfh)[b.stage]
            if step(b, rec, kind):
                return
        if rec is not None:
            self.stray(rec)

    def step_out(self, b: _Block, rec: Rec | None, kind: Any) -> bool:
        """(1) TOUR-11: the players out are placed."""
        b.stage = FINISH
        if b.outs and kind != "out":
            self.v("TOUR-11", f"players out {b.outs} are not placed")
        if b.outs:
            self.place(rec if kind == "out" else None, b)
        return bool(b.outs) and kind == "out"

    def step_finish(self, b: _Block, rec: Rec | None, kind: Any) -> bool:
        """(2) TOUR-12: with one player left, payouts then finish."""
        if self.left != 1 or self.finished:
            b.stage = BREAK
            return False
        self.placed.update({p: 1 for p in self.stack if p not in self.placed})   # the winner
        if rec is not None and kind in ("payout", "finish", "close_table"):
            if kind == "close_table":      # the table of the last hand
                self.table(rec["table"]).closed = True
            else:
                (self.payout if kind == "payout" else self.finish)(rec)
            b.stage = DONE if kind == "finish" else FINISH
            return True
        self.v("TOUR-12", "one player is left but the tournament does not finish")
        self.finished, b.stage = True, DONE
        return False

    def step_break(self, b: _Block, rec: Rec | None, kind: Any) -> bool:
        """(3) TOUR-08 (R3): a table to break that is not in a hand is broken now."""
        open_ = self.open_tables()
        if b.breaking is None:
            target = min(open_, key=lambda o: (self.pop(o), -int(o.name)), default=None)
            fits = self.left <= (len(open_) - 1) * self.size
            if target is None or len(open_) < 2 or not fits or target.hand:
                b.stage = BALANCE
                return False
            rest = [self.pop(o) for o in open_ if o is not target]
            b.breaking, b.spread_before = target.name, max(rest) - min(rest)
        brk = self.tables[b.breaking]
        if rec is not None and kind == "move" and rec.get("why") == "break" \
                and str(rec["from"][0]) == brk.name:
            to, fewest = self.table(_pair(rec["to"])[0]), self.pop(self.fewest(exclude=brk))
            if to is not brk and self.pop(to) != fewest:
                self.v("TOUR-08", f"{rec['player']} moved to table {to.name} ({self.pop(to)} "
                                  f"players), the fewest is {fewest}")
            self.move(rec, "TOUR-08")
            return True
        if rec is not None and kind == "close_table" and str(rec["table"]) == brk.name:
            self.close(brk)
            rest = [self.pop(o) for o in self.open_tables()]
            if b.spread_before <= 1 and rest and max(rest) - min(rest) > 1:
                self.v("TOUR-08", f"after breaking table {brk.name} sizes are {rest}")
            b.breaking = None
            return True
        self.v("TOUR-08", f"table {brk.name} must be broken now ({self.pop(brk)} players left)")
        b.breaking, b.stage = None, BALANCE
        return False

    def step_balance(self, b: _Block, rec: Rec | None, kind: Any) -> bool:
        """(4) TOUR-06: at most one move, from this table, when it is two above the fewest."""
        b.stage, t = HFH, self.tables[b.table]
        target = t if t.closed else self.fewest()
        due = None if t.closed or self.pop(t) - self.pop(target) < 2 else (
            self.due_bb(t), target, self.worst_seat(target))
        if rec is not None and kind == "move" and rec.get("why") == "balance" \
                and str(rec["from"][0]) == b.table:
            p, to = str(rec["player"]), _pair(rec["to"])
            if due is None:
                self.v("TOUR-06", f"balance move of {p} from table {t.name} not required")
            elif due[0] is not None and p != due[0]:
                self.v("TOUR-06", f"{p} moved; the player due the big blind is {due[0]}")
            if due is not None and to[0] != target.name:
                self.v("TOUR-06", f"{p} moved to table {to[0]}, the fewest are at {target.name}")
            elif due is not None:
                self.check_seat(p, target, to[1], "TOUR-06")
            self.move(rec, "TOUR-06")
            return True
        if due is not None:
            self.v("TOUR-06", f"table {t.name} ({self.pop(t)}): a balance move is missing")
        return False

    def step_hfh(self, b: _Block, rec: Rec | None, kind: Any) -> bool:
        """(5) TOUR-10 (R7): hand-for-hand turns on or off."""
        b.stage, tables = DONE, len(self.open_tables())
        if not self.hfh:
            want = True if self.left == self.paid_places + 1 and tables > 1 else None
        else:
            want = False if tables <= 1 or (b.round_end and self.left <= self.paid_places) else None
        state = f"{self.left} left, {self.paid_places} paid, {tables} tables"
        if rec is not None and kind == "hand_for_hand":
            if want is None or bool(rec["on"]) != want:
                self.v("TOUR-10", f"hand-for-hand on={rec['on']} not due ({state})")
            self.set_hfh(bool(rec["on"]), b.table)
            return True
        if want is not None:
            self.v("TOUR-10", f"hand-for-hand should turn {'on' if want else 'off'} ({state})")
            self.set_hfh(want, b.table)
        return False

    def close_block(self) -> None:
        if self.block is not None:
            self.feed(self.block, None)
        self.block = None

    def stray(self, rec: Rec) -> None:
        """A decision no rule requires here (still applied, so the replay goes on)."""
        kind = rec["kind"]
        if kind == "move":
            rule = "TOUR-08" if rec.get("why") == "break" else "TOUR-06"
            self.v(rule, f"move of {rec['player']} ({rec.get('why')}) is not required here")
            self.move(rec, rule)
        elif kind == "out":
            self.v("TOUR-11", "out record where no players are due to be placed")
            outs = [p for p in _named(rec["places"])
                    if self.stack.get(p) == 0 and p not in self.placed]
            self.place(rec, _Block("", None, True, sorted(outs)))
        elif kind == "close_table":
            self.close(self.table(rec["table"]))
        elif kind == "hand_for_hand" and not (self.finished and not rec["on"]):
            self.v("TOUR-10", "hand_for_hand outside the decisions after a hand")
            self.set_hfh(bool(rec["on"]), "")
        elif kind in ("payout", "finish"):
            if not self.finished or kind == "finish":
                self.v("TOUR-12", f"{kind} while more than one player is left")
            (self.payout if kind == "payout" else self.finish)(rec)

    def place(self, rec: Rec | None, b: _Block) -> None:
        """TOUR-11 (R8): checks an ``out`` record against the referee's own places."""
        top, s = self.left - len(b.outs) + 1, {p: self.hand_stack.get(p, 0) for p in b.outs}
        want = {p: top + sum(1 for q in b.outs if s[q] > s[p]) for p in b.outs}
        groups: dict[int, list[str]] = {}
        for p, place in want.items():
            groups.setdefault(place, []).append(p)
        tied, odd = {p for g in groups.values() if len(g) > 1 for p in g}, None
        if rec is not None:
            got = _named(rec["places"])
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
            self.seat(p, None)
            if len(groups[place]) > 1:
                self.tie_odd[place] = str(odd) if str(odd) in groups[place] else None
        self.left -= len(b.outs)

    def prize(self, place: int) -> int:
        pool = self.pool or 0
        floors = {q: pool * s // 10000 for q, s in self.shares.items()}
        return floors.get(place, 0) + (pool - sum(floors.values()) if place == 1 else 0)

    def due_amounts(self, p: str) -> set[int]:
        """TOUR-12: what ``p``'s place pays (a tie shares its places, odd chip as R8)."""
        q = self.placed[p]
        group = [x for x, pl in self.placed.items() if pl == q]
        base, rem = divmod(sum(self.prize(q + i) for i in range(len(group))), len(group))
        odd = self.tie_odd.get(q)
        return {base + (rem if p == odd else 0)} if rem == 0 or odd else {base, base + rem}

    def payout(self, rec: Rec) -> None:
        p, amount = str(rec["player"]), rec["amount"]
        if p in self.paid_to or p not in self.placed or self.pool is None:
            self.v("TOUR-12", f"{p} is paid twice" if p in self.paid_to else f"{p}: no place")
            self.paid_to.setdefault(p, int(amount))
            return
        self.paid_to[p] = int(amount)
        if rec.get("place") != self.placed[p]:
            self.v("TOUR-12", f"{p} paid for place {rec.get('place')}, took {self.placed[p]}")
        if amount not in (want := self.due_amounts(p)):
            self.v("TOUR-12", f"{p} (place {self.placed[p]}) paid {amount}, due {sorted(want)}")

    def finish(self, rec: Rec) -> None:
        self.finished = True
        if rec.get("pool") != self.pool:
            self.v("TOUR-12", f"finish pool {rec.get('pool')}, the prizes pool is {self.pool}")
        if (paid := _named(rec["paid"])) != self.paid_to:
            self.v("TOUR-12", f"finish.paid {paid} differs from the payouts {self.paid_to}")
        if unpaid := [p for p in sorted(self.placed)
                      if p not in self.paid_to and max(self.due_amounts(p)) > 0]:
            self.v("TOUR-12", f"places not paid: {unpaid}")
        if sum(self.paid_to.values()) != self.pool:
            self.v("TOUR-12", f"payouts sum to {sum(self.paid_to.values())}, pool {self.pool}")

    def close(self, t: _Table) -> None:
        if (self.pop(t) > 0 and not self.finished) or t.hand is not None:
            self.v("TOUR-08", f"table {t.name} closed with {self.pop(t)} players, hand {t.hand}")
        t.closed = True
        self.round_live.discard(t.name)

    def set_hfh(self, on: bool, table: str) -> None:
        self.hfh = on
        live = {t.name for t in self.open_tables() if t.hand is not None} if on else set()
        self.round_live, self.round_dealt = live, (live | {table}) - {""} if on else set()


def check_log(records: Sequence[Mapping[str, Any]]) -> list[Violation]:
    """Replays a tournament log and returns every departure from docs/rules.md section 5."""
    return _Referee().run(records)


def assert_log_ok(records: Sequence[Mapping[str, Any]]) -> None:
    """Raises AssertionError listing every violation (one per line) when the log breaks a rule."""
    found = check_log(records)
    if found:
        raise AssertionError("tournament log violations:\n" + "\n".join(
            f"  #{x.n} {x.rule}: {x.message}" for x in found))
