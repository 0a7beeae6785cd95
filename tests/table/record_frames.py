"""Byte-for-byte frame recordings of scripted table sessions (issue 25's safety net).

Each scenario below is a deterministic script played through the table layer's own test
harness (:mod:`tests.table.helpers`: a :class:`~server.table.FakeClock`, a seeded ``rng`` and
``shuffle``, fixed decks): players and spectators on sinks of both codecs (JSON and
msgpack), several hands of every variant, showdowns, folds, all-ins with side pots,
timeouts, chat, a sit-out, a leave, a resume (a player's connection replaced mid-hand), a
move between processes (one registry hands the table over to another) and the house rules.
Every frame every sink receives is written, in the order of delivery across all sinks, to
``tests/table/recordings/<scenario>.txt``, one line per frame: ``label<TAB>j<TAB>text`` for a
text frame, ``label<TAB>m<TAB>hex`` for a binary (msgpack) one; a frame whose bytes equal an
earlier line's (the same public event to many viewers) is ``label<TAB>J<TAB>n`` (``M`` for
msgpack), ``n`` that line's number, which keeps the files small and is still exact. The
script's own requests are lines too (``label<TAB>><TAB>json``, and ``#`` notes for the clock
and the move), so a diff shows where it stands.

The script reads only frames (who is asked to act and with which options comes from the
``turn`` frames a player receives), never the engine's or the actor's fields, so that it
drives the refactored table exactly as it drove the old one. The only calls below the wire
are in :func:`move_table` (the cluster's live move: ``hand_over`` and ``registry.adopt``),
the harness itself, and :func:`entropy` (the ``secrets`` calls of a private table's id and
code, made deterministic for the recording).

THE RECORDINGS ARE NEVER REGENERATED TO MAKE A REFACTOR PASS. They were made from the code at
commit 9d128fc (before issue 25's refactor) and hold the wire bytes that refactor must keep.
Regenerate them (``--write``) only for a deliberate change of the wire, with the reason in the
commit message. ``python -m tests.table.record_frames --check DIR`` compares without writing;
:mod:`tests.table.test_frames_recorded` is the test.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import itertools
import json
import random
import secrets
import sys
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from protocol import JSON_CODEC, MSGPACK_CODEC
from server.config import Config
from server.rules.cards import make_deck
from server.table import TableActor
from server.table.handoff import TableState, hand_over
from server.table.wake import in_actor
from tests.table.helpers import FakeSink, Harness

RECORDINGS = Path(__file__).parent / "recordings"

CFG = Config(test_mode=True, hand_pause=2.0, action_clock=10.0, time_bank=5.0,
             reconnect_grace=30.0, jackpot_wager=5)


@dataclass(eq=False)
class RecSink(FakeSink):
    """A :class:`FakeSink` that also appends each frame to its scenario's one log."""

    label: str = ""
    log: list[str] = field(default_factory=list)

    seen: dict[str | bytes, int] = field(default_factory=dict)

    def send(self, frame: str | bytes) -> None:
        super().send(frame)
        kind = "m" if isinstance(frame, bytes) else "j"
        first = self.seen.get(frame)
        if first is not None:  # the same bytes as an earlier line: its number
            self.log.append(f"{self.label}\t{kind.upper()}\t{first}")
            return
        self.seen[frame] = len(self.log) + 1
        text = frame.hex() if isinstance(frame, bytes) else frame
        self.log.append(f"{self.label}\t{kind}\t{text}")


@contextlib.contextmanager
def entropy(seed: str) -> Iterator[None]:
    """``secrets``' id and code functions from a seeded stream for the scenario's length
    (a private table's id suffix and invitation code are not the harness's ``rng``)."""
    rnd = random.Random(seed)
    saved = (secrets.token_urlsafe, secrets.token_hex, secrets.token_bytes)

    def token_bytes(nbytes: int | None = None) -> bytes:
        return rnd.randbytes(32 if nbytes is None else nbytes)

    def token_urlsafe(nbytes: int | None = None) -> str:
        import base64
        return base64.urlsafe_b64encode(token_bytes(nbytes)).rstrip(b"=").decode("ascii")

    def token_hex(nbytes: int | None = None) -> str:
        return token_bytes(nbytes).hex()

    secrets.token_bytes, secrets.token_urlsafe, secrets.token_hex = (
        token_bytes, token_urlsafe, token_hex)
    try:
        yield
    finally:
        secrets.token_urlsafe, secrets.token_hex, secrets.token_bytes = saved


LOWEST = {"manila": 7, "manila3": 6}  # the stripped decks' lowest rank


def decks(variant: str, seed: str, n: int) -> list[list[str]]:
    """``n`` fixed decks of ``variant``'s cards (seeded shuffles)."""
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        rest = list(make_deck(lowest_rank=LOWEST.get(variant, 2)))
        rnd.shuffle(rest)
        out.append(rest)
    return out


Policy = Callable[["Session", str, dict[str, Any]], dict[str, Any] | None]


class Session:
    """One scenario's script state: the harness(es), the sinks, the log, the policy's rng."""

    def __init__(self, name: str, *, config: Config = CFG, seed: int = 1) -> None:
        self.name = name
        self.log: list[str] = []
        self.seen: dict[str | bytes, int] = {}  # frame -> the line that first holds it
        self.h = Harness(config=config, seed=seed)
        self.rnd = random.Random(name)
        self.conn = itertools.count(1)
        self.players: dict[str, RecSink] = {}  # each player's current connection
        self.answered: dict[int, int] = {}  # sink conn -> index of the last turn answered
        self.timeouts: dict[str, int] = {}  # player -> how many clocks they let run out

    def sink(self, label: str, *, pid: str | None = None, msgpack: bool = False,
             balance: int = 100_000) -> RecSink:
        if pid is not None:
            self.h.wallet.ensure(pid, balance)
        s = RecSink(player_id=pid, name=pid.title() if pid else None,
                    codec=MSGPACK_CODEC if msgpack else JSON_CODEC, conn_id=next(self.conn),
                    label=label, log=self.log, seen=self.seen)
        if pid is not None:
            self.players[pid] = s
        return s

    def note(self, text: str) -> None:
        self.log.append(f"#\t-\t{text}")

    async def ask(self, t: TableActor, sink: RecSink, kind: str,
                  **fields: Any) -> dict[str, Any]:
        self.log.append(f"{sink.label}\t>\t{json.dumps({'type': kind, **fields}, sort_keys=True)}")
        return await self.h.send(t, sink, kind, **fields)

    async def wait(self, t: TableActor, seconds: float) -> None:
        self.note(f"clock +{seconds}")
        await self.h.advance(t, seconds)

    def pending(self) -> list[tuple[int, str, int, dict[str, Any]]]:
        """Players whose connection holds an unanswered ``turn`` with options: (seq, player,
        index in that sink, the turn), oldest first."""
        out = []
        for pid, s in self.players.items():
            msgs = s.decoded
            idx = next((i for i in range(len(msgs) - 1, -1, -1) if _asked(msgs[i])), None)
            if idx is None or idx <= self.answered.get(s.conn_id, -1):
                continue
            turn = msgs[idx]
            if turn["type"] == "snapshot":  # a resumed connection: the question in it
                turn = {**turn["turn"], "seq": turn["seq"]}
            stale = any(m["type"] == "hand_ended" or (
                m["type"] in ("acted", "posted", "sat_out") and m.get("seat") == turn["seat"])
                for m in msgs[idx + 1:])
            if not stale:
                out.append((turn["seq"], pid, idx, turn))
        return sorted(out, key=lambda row: row[0])

    def own_cards(self, pid: str) -> list[str]:
        """The player's cards in the running hand, from their connection's frames."""
        msgs = self.players[pid].decoded
        start = max((i for i, m in enumerate(msgs) if m["type"] in ("hand_started", "snapshot")),
                    default=0)
        cards: list[str] = []
        seat = None
        for m in msgs[start:]:
            if m["type"] == "snapshot" and m.get("you") is not None:
                seat = m["you"]
                row = m["seats"][seat]
                cards = [c for c in (row or {}).get("cards", []) if c]
            elif m["type"] == "dealt" and None not in m["cards"] and m["cards"]:
                seat = m["seat"]
                cards += m["cards"]
            elif m["type"] == "drew" and m.get("seat") == seat and m.get("cards"):
                gone = set(m.get("discard") or [])
                cards = [c for c in cards if c not in gone] + [c for c in m["cards"] if c]
        return cards

    async def play_some(self, t: TableActor, policy: Policy, n: int) -> None:
        """Answer at most ``n`` questions."""
        for _ in range(n):
            rows = self.pending()
            if not rows:
                return
            _, pid, idx, turn = rows[0]
            self.answered[self.players[pid].conn_id] = idx
            action = policy(self, pid, turn["options"])
            if action is None:
                action = {"action": "fold"}
            await self.ask(t, self.players[pid], "act", **action)

    async def play(self, t: TableActor, policy: Policy, *, limit: int = 300) -> int:
        """Answer every question put to the players until none is left; returns how many."""
        for step in range(limit):
            rows = self.pending()
            if not rows:
                return step
            _, pid, idx, turn = rows[0]
            sink = self.players[pid]
            if self.timeouts.get(pid):
                self.timeouts[pid] -= 1
                self.answered[sink.conn_id] = idx
                await self.wait(t, max(0.5, turn["deadline"] - self.h.clock.wall() + 0.5))
                continue
            action = policy(self, pid, turn["options"])
            self.answered[sink.conn_id] = idx
            if action is None:
                await self.wait(t, max(0.5, turn["deadline"] - self.h.clock.wall() + 0.5))
                continue
            await self.ask(t, sink, "act", **action)
        raise AssertionError(f"{self.name}: still acting after {limit} decisions")


def _asked(msg: dict[str, Any]) -> bool:
    """A question to this connection's player: a ``turn`` with options (or a snapshot's)."""
    if msg["type"] == "snapshot":
        return bool(msg.get("turn")) and "options" in msg["turn"]
    return msg["type"] == "turn" and "options" in msg


def mixed(fold: int = 1, check: int = 4, call: int = 4, bet: int = 2, raise_: int = 2,
          shove: float = 0.2, timeout: float = 0.0) -> Policy:
    """A seeded player: legal actions by weight (``shove``: the chance a bet or raise is the
    most allowed, all-ins), a timeout now and then; the questions answered yes (over blind,
    straddle, run twice, show); Caribbean: ante the minimum or more, play or fold."""
    weights = {"fold": fold, "check": check, "call": call, "bet": bet, "raise": raise_,
               "bring_in": 3, "complete": 1}

    def policy(s: Session, pid: str, opts: dict[str, Any]) -> dict[str, Any] | None:
        r = s.rnd
        if timeout and r.random() < timeout:
            return None
        if "ante" in opts:
            lo, hi = opts["ante"]["min"], opts["ante"]["max"]
            jp = "jackpot" in opts and r.random() < 0.4
            top = opts["jackpot"]["max_ante"] if jp else hi
            return {"action": "ante", "amount": r.randint(lo, min(top, lo * 3)), "jackpot": jp}
        if "play" in opts:
            return {"action": "play" if r.random() < 0.75 else "fold"}
        if "over_blind" in opts:
            return {"action": "over_blind" if r.random() < 0.6 else "decline"}
        if "run_twice" in opts:
            return {"action": "run_twice" if r.random() < 0.8 else "run_once"}
        if "show" in opts:
            return {"action": "show" if r.random() < 0.5 else "muck"}
        if "draw" in opts:
            own = s.own_cards(pid)
            k = r.randint(0, min(opts["draw"]["max"], len(own)))
            return {"action": "draw", "discard": sorted(r.sample(own, k))}
        kinds = [k for k in ("fold", "check", "call", "bet", "raise", "bring_in", "complete")
                 if opts.get(k)]
        kind = r.choices(kinds, [weights[k] for k in kinds])[0]
        if kind in ("bet", "raise"):
            lo, hi = opts[kind]["min"], opts[kind]["max"]
            pick = r.random()
            amount = hi if pick < shove else lo if pick < shove + 0.4 else r.randint(lo, hi)
            return {"action": kind, "amount": amount}
        if kind in ("call", "bring_in", "complete"):
            return {"action": kind, "amount": opts[kind]} if kind != "call" else {"action": kind}
        return {"action": kind}

    return policy


async def move_table(src: Session, t: TableActor, dst: Harness) -> TableActor:
    """The cluster's live move between hands: ``t`` handed over from ``src``'s registry to
    ``dst``'s (the state through its JSON, adopted with the stacks it says); every connection
    following ``t`` gets ``moved``. Returns the copy."""
    copies: list[TableActor] = []

    async def send(state: TableState) -> str | None:
        copies.append(dst.registry.adopt(TableState.from_json(state.to_json()),
                                           state.stacks()))
        return "ws://second.example/ws"

    src.note("move")
    url = await in_actor(t, functools.partial(hand_over, t, send))
    await t.idle()
    assert url is not None and copies, "the table was not handed over"
    await copies[0].idle()
    return copies[0]


# ------------------------------------------------------------------------------ scenarios

POT = {"blinds": [50, 100]}
ALL_IN = mixed(fold=0, check=1, call=6, raise_=4, shove=0.9)  # all-ins, side pots
STUD = {"ante": 25, "bring_in": 50, "small_bet": 100, "big_bet": 200}
LIMIT = {**POT, "small_bet": 100, "big_bet": 200}


async def pot_session(s: Session, create: dict[str, Any], *, hands: int, policy: Policy,
                      buy_ins: tuple[int, ...] = (2000, 5000, 3500),
                      watcher_msgpack: bool = False) -> None:
    """Three players (p1 on msgpack) and a spectator, ``hands`` hands: chat, a timeout, a
    sit-out and back, a mid-hand resume on a new connection (the snapshot), a resume from
    the seq last seen (the events since, replayed), a leave during a hand (pending), the
    busted buying back in."""
    t = s.h.create(**create)
    w = s.sink("w", pid="rail", msgpack=watcher_msgpack)  # a signed-in spectator
    await s.ask(t, w, "watch")
    names = ["p0", "p1", "p2"]
    for seat, pid in enumerate(names):
        sink = s.sink(pid, pid=pid, msgpack=seat == 1)
        await s.ask(t, sink, "sit", seat=seat, buy_in=buy_ins[seat])
    await s.ask(t, s.players["p0"], "chat", text="good luck")
    await s.ask(t, w, "chat", text="hi from the rail")
    for n in range(hands):
        await s.wait(t, CFG.hand_pause + 0.5)
        if n == 0:
            s.timeouts["p2"] = 2  # the action clock, then the time bank
        if n == 1:  # a resume mid-hand: p1's connection replaced, a fresh snapshot
            await s.play_some(t, policy, 2)
            await s.ask(t, s.sink("p1b", pid="p1", msgpack=True), "resume", since=10_000)
        if n == 2:  # p0 resumes from the seq they saw: the events since, replayed
            old = s.players["p0"]
            seq = max((m["seq"] for m in old.decoded if "seq" in m), default=0)
            await s.play_some(t, policy, 2)
            await s.ask(t, s.sink("p0b", pid="p0"), "resume", since=seq)
            await s.ask(t, s.players["p0"], "leave")
        await s.play(t, policy)
        if n == 0:
            await s.ask(t, s.players["p2"], "sit_out")
            await s.ask(t, s.players["p1"], "chat", text="nh")
        if n == 1:
            await s.ask(t, s.players["p2"], "sit_in")
        for seat, pid in enumerate(names):  # the busted buy back in
            if n < 2 and await _stack(s, pid) == 0:
                await s.ask(t, s.players[pid], "sit", seat=seat, buy_in=buy_ins[seat])


async def _stack(s: Session, pid: str) -> int | None:
    """The player's stack after the last ``hand_ended`` their connection saw (None: no seat)."""
    msgs = s.players[pid].decoded
    seat = next((m["seat"] for m in reversed(msgs) if m["type"] == "ok" and "seat" in m), None)
    ended = [m for m in msgs if m["type"] == "hand_ended"]
    if seat is None or not ended:
        return None
    stack: int | None = ended[-1]["stacks"].get(str(seat))
    return stack




def _pot(variant: str, structure: str, stakes: dict[str, Any], hands: int, *,
         settings: dict[str, Any] | None = None, seats: int = 6,
         policy: Policy | None = None,
         watcher_msgpack: bool = False) -> Callable[[Session], Awaitable[None]]:
    create: dict[str, Any] = {"variant": variant, "structure": structure, "stakes": stakes,
                              "seats": seats,
                              "decks": decks(variant, f"{variant}-{structure}", hands)}
    if settings:
        create["settings"] = settings

    async def run(s: Session) -> None:
        await pot_session(s, create, hands=hands, policy=policy or mixed(),
                          watcher_msgpack=watcher_msgpack)
    return run


async def caribbean(s: Session) -> None:
    """Three players (p1 on msgpack) and a msgpack spectator, four rounds (the jackpot
    wager offered: the pool emptied first): a timeout, a mid-round resume, chat, a leave."""
    h = s.h
    h.registry.jackpot.pool = 0  # type: ignore[attr-defined]  # (as test_privacy)
    t = h.create(variant="caribbean", stakes={"min": 10, "max": 100}, seats=5,
                 decks=decks("caribbean", "caribbean", 3))
    w = s.sink("w", msgpack=True)
    await s.ask(t, w, "watch")
    for seat, pid in enumerate(("p0", "p1", "p2")):
        await s.ask(t, s.sink(pid, pid=pid, msgpack=seat == 1), "sit", seat=seat, buy_in=1000)
    policy = mixed()
    for n in range(3):
        await s.wait(t, CFG.hand_pause + 0.5)
        if n == 0:
            s.timeouts["p2"] = 2  # the action clock, then the time bank
        if n == 2:
            await s.play_some(t, policy, 2)
            await s.ask(t, s.sink("p1b", pid="p1", msgpack=True), "resume", since=10_000)
            await s.ask(t, s.players["p0"], "chat", text="come on")
        await s.play(t, policy)
        if n == 2:
            await s.ask(t, s.players["p2"], "leave")


def invitation_code(t: TableActor) -> str:
    """A private table's code (what its creator's ``create_table`` answer would carry)."""
    code = t.host.code
    assert code is not None
    return code


async def home_game(s: Session) -> None:
    """A private Hold'em table with the house rules on (straddle, run it twice, show when
    uncontested): the host and three invited players (one on msgpack), an invited msgpack
    spectator, aggressive play (all-ins: run-twice questions) over four hands."""
    t = s.h.create(variant="holdem", structure="no_limit", stakes={"blinds": [5, 10]}, seats=6,
                   private=True, decks=decks("holdem", "home", 4),
                   settings={"straddle": True, "run_twice": True, "show_uncontested": True})
    code = invitation_code(t)
    w = s.sink("w", pid="rail", msgpack=True)
    await s.ask(t, w, "watch", code=code)
    host = s.sink("owner", pid="owner")
    await s.ask(t, host, "sit", seat=0, buy_in=500)
    for seat, pid in ((1, "p1"), (2, "p2"), (4, "p4")):
        await s.ask(t, s.sink(pid, pid=pid, msgpack=seat == 2), "sit", seat=seat, buy_in=300 +
                    100 * seat, code=code)
        await s.ask(t, host, "host", action="approve", player=pid)  # (seats need approval)
    policy = mixed(fold=2, call=5, raise_=3, shove=0.6)
    for n in range(4):
        await s.wait(t, CFG.hand_pause + 0.5)
        if n == 1:
            s.timeouts["p4"] = 1
        await s.play(t, policy)
        for seat, pid in ((0, "owner"), (1, "p1"), (2, "p2"), (4, "p4")):
            if await _stack(s, pid) == 0:
                await s.ask(t, s.players[pid], "sit", seat=seat, buy_in=500, code=code)


async def moved(s: Session) -> None:
    """A Hold'em table moved between processes between hands: two hands in the first
    registry, the live hand-over (every connection gets ``moved``), the players and the
    spectator follow to the second registry (its own clock, wallet and rng: another
    process's), resume there and play two more hands; one resumes mid-hand."""
    t = s.h.create(variant="holdem", structure="no_limit", stakes=POT, seats=6,
                   decks=decks("holdem", "moved", 2))
    w = s.sink("w", pid="rail")
    await s.ask(t, w, "watch")
    for seat, pid in ((0, "p0"), (2, "p2"), (3, "p3")):
        await s.ask(t, s.sink(pid, pid=pid, msgpack=seat == 2), "sit", seat=seat,
                    buy_in=2000 * (seat + 1))
    policy = mixed()
    for _ in range(2):
        await s.wait(t, CFG.hand_pause + 0.5)
        await s.play(t, policy)
    seen = {pid: max(m["seq"] for m in sink.decoded if "seq" in m)
            for pid, sink in s.players.items()}
    dst = Harness(config=CFG, seed=2)
    for pid in s.players:
        dst.wallet.ensure(pid, 100_000)
    copy = await move_table(s, t, dst)
    s.h = dst
    for pid in ("p0", "p3", "p2"):
        await s.ask(copy, s.sink(f"{pid}b", pid=pid, msgpack=pid == "p2"), "resume",
                    since=seen[pid])
    w2 = s.sink("w2", pid="rail")
    await s.ask(copy, w2, "watch")
    for n in range(2):
        await s.wait(copy, CFG.hand_pause + 0.5)
        if n == 1:
            await s.play_some(copy, policy, 2)
            await s.ask(copy, s.sink("p0c", pid="p0", msgpack=True), "resume", since=10_000)
        await s.play(copy, policy)


# --------------------------------------------------------------------------- the registry

SCENARIOS: dict[str, Callable[[Session], Awaitable[None]]] = {
    "holdem_no_limit": _pot("holdem", "no_limit", POT, 3, policy=ALL_IN),
    "holdem_fixed_limit": _pot("holdem", "fixed_limit", LIMIT, 3, watcher_msgpack=True),
    "manila_pot_limit": _pot("manila", "pot_limit", POT, 3),
    "manila3_no_limit": _pot("manila3", "no_limit", POT, 3, watcher_msgpack=True,
                             policy=ALL_IN),
    "draw_fixed_limit_over_blind": _pot("draw", "fixed_limit", LIMIT, 3,
                                        settings={"over_blind": True}),
    "stud5_fixed_limit": _pot("stud5", "fixed_limit", STUD, 3, watcher_msgpack=True),
    "stud7_pot_limit": _pot("stud7", "pot_limit", {"ante": 25, "bring_in": 50,
                                                   "small_bet": 100}, 3),
    "caribbean": caribbean,
    "home_game_house_rules": home_game,
    "moved_between_processes": moved,
}


def record(name: str) -> list[str]:
    """Play scenario ``name`` with the code as it is; its recording's lines."""
    s = Session(name)

    async def main() -> None:
        with entropy(name):
            await SCENARIOS[name](s)
    asyncio.run(main())
    return s.log


def text_of(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def first_difference(expected: str, got: str) -> str | None:
    """None when equal; else the first differing line, both versions, readable."""
    if expected == got:
        return None
    a, b = expected.splitlines(), got.splitlines()
    for i, (x, y) in enumerate(itertools.zip_longest(a, b), start=1):
        if x != y:
            return (f"line {i} differs (recorded {len(a)} lines, now {len(b)}):\n"
                    f"  recorded: {_show(x)}\n  now:      {_show(y)}")
    return "the files differ in their line endings"


def _show(line: str | None) -> str:
    if line is None:
        return "<no line>"
    parts = line.split("\t", 2)
    if len(parts) == 3 and parts[1] == "m":
        with contextlib.suppress(Exception):
            decoded = MSGPACK_CODEC.decode(bytes.fromhex(parts[2]))
            return f"{line[:400]}\n            (decoded: {json.dumps(decoded)[:600]})"
    return line[:1000]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", type=Path, metavar="DIR")
    mode.add_argument("--check", type=Path, metavar="DIR")
    parser.add_argument("scenarios", nargs="*", help="default: all")
    args = parser.parse_args(argv)
    names = args.scenarios or sorted(SCENARIOS)
    bad = 0
    for name in names:
        text = text_of(record(name))
        if args.write:
            args.write.mkdir(parents=True, exist_ok=True)
            (args.write / f"{name}.txt").write_text(text, encoding="utf-8")
            print(f"{name}: {text.count(chr(10))} lines, {len(text)} bytes")
        else:
            diff = first_difference((args.check / f"{name}.txt").read_text(encoding="utf-8"),
                                    text)
            print(f"{name}: {'same' if diff is None else diff}")
            bad += diff is not None
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
