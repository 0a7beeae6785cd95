"""Bots and spectators that talk to a server only through the wire protocol.

Rule of this module (and of the whole ``server.loadtest`` package): it imports only
``protocol``, ``websockets`` and the standard library, never the server's internals, so it
measures the server exactly as any outside client sees it.

A :class:`Bot` is one player on one WebSocket: ``hello`` as a guest, ``sit`` at its table,
then it answers every ``turn`` that offers it options with a random legal choice
(:func:`choose_action`, from the bot's own seeded ``random.Random``) after ``think`` seconds.
It rebuys when it has lost its stack, and on :meth:`Bot.leave` it leaves the table (at the
end of the running hand) and waits for its own ``left`` event. :meth:`Bot.churn` drops the
socket and comes back as a real client would: a new connection, ``hello`` with its token,
``resume`` with the last ``seq`` it saw; a connection that drops by itself comes back the
same way (to the home URL when the current one fails twice in a row). In a cluster, every
request for a table (and ``create_table``) follows ``moved`` (:meth:`Client.follow`): a new
connection to its ``url``, ``hello`` with the same token, the request again; a pushed
``moved`` (its table changes process) and a ``resume`` answered ``moved`` are followed too,
and a seated bot plays on at the new process. :mod:`server.loadtest.follow` has the
connection and these rules; moves are counted in ``Stats.moves``, not as errors.

What is measured goes to one shared :class:`Stats`:

* action-to-broadcast latency: from just before a bot's ``act`` frame is sent to that bot's
  receipt of the ``acted`` event of its own seat;
* spectator delivery lag: per (table, seq), a spectator's receipt time minus the first
  receipt of the same event by any player of that table (negative when the spectator was
  first); every client runs in this one process, so both times come from one clock;
* hands (each ``hand_ended`` seq counted once per table), actions, frames both ways,
  error answers by code, disconnects and reconnects.

A deferred act: the decision for a turn is taken in a task that runs only after the reader
has handled every frame already received, and is dropped when a later event (the seat's
``acted``, a new ``turn``, ``hand_ended``) has made the turn stale; so a burst of replayed
events after a ``resume`` never makes a bot act on a turn that is already over.

A turn held across a reconnection: a bot whose connection goes while a turn is offered to it
(by a ``turn`` or a ``snapshot``; its act not sent, or sent into the dying socket) acts on
nothing more there, and keeps the turn. Its ``resume`` from the last ``seq`` it saw replays
only what came after, never that turn again; so when the ``resume`` is answered ``ok`` the
bot takes the held turn up (a deferred act, as above), and the replay that follows, where
the turn may have ended meanwhile (its act arrived, the clock ran out), makes that act stale.
Without it the seat waited for its action clock (a tournament's restored tables: 30 s).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from typing import Any

from websockets.exceptions import ConnectionClosed

from .follow import MAX_MOVES, REQUEST_TIMEOUT, Client, open_connection
from .tracking import Stats, TableTrack

__all__ = ["MAX_MOVES", "REQUEST_TIMEOUT", "Bot", "Spectator", "Stats", "TableTrack",
           "choose_action", "open_connection"]

Msg = dict[str, Any]

#: Seconds a bot waits before trying a rate-limited act again.
RATE_LIMIT_RETRY = 0.1


# ------------------------------------------------------------------------------ policy
#: Relative weights of the actions a bot picks among (those offered). Facing a bet it folds,
#: calls or raises 4 : 4 : 1; otherwise it checks or bets 5 : 2. That is roughly how often
#: players fold at a 6-handed table (most hands end before or at the flop), so a hand runs
#: about a dozen actions rather than the twenty-odd of a table that never folds.
_WEIGHTS = {"check": 5.0, "call": 4.0, "fold": 4.0, "bet": 2.0, "raise": 1.0,
            "bring_in": 3.0, "complete": 1.0}


def choose_action(rng: random.Random, options: Msg, cards: list[str]) -> Msg | None:
    """A random legal action (the ``act`` fields without ``type``/``table``/``rid``) for the
    ``options`` of a ``turn``; ``None`` when the options offer nothing a bot can send.

    Pot games: weighted among the offered actions (folding only when facing a bet); bets and
    raises go to the minimum most of the time, otherwise up to three times the minimum (never
    past the maximum). Draw: discard a random subset of ``cards`` (at most the offered
    maximum); the over blind (and a home game's straddle), posted one time in four; a home
    game's run-it-twice question, yes three times in four; its uncontested winner shows one
    time in four. Caribbean Stud: ante the minimum; then play four times in five.
    """
    if "ante" in options or "sit_out" in options:
        ante = options.get("ante")
        if isinstance(ante, dict):
            return {"action": "ante", "amount": int(ante["min"])}
        return None
    if "play" in options:
        return {"action": "play" if rng.random() < 0.8 else "fold"}
    if options.get("over_blind"):  # Draw's over blind question (BLIND-04): now and then
        return {"action": "over_blind" if rng.random() < 0.25 else "decline"}
    if options.get("run_twice"):  # a home game's run-it-twice question (RIT-02): mostly yes
        return {"action": "run_twice" if rng.random() < 0.75 else "run_once"}
    if options.get("show"):  # a home game's uncontested winner (SHOWWIN-01): now and then
        return {"action": "show" if rng.random() < 0.25 else "muck"}
    draw = options.get("draw")
    if isinstance(draw, dict):
        k = rng.randint(0, min(int(draw.get("max", 0)), len(cards)))
        return {"action": "draw", "discard": rng.sample(cards, k)}
    legal: list[str] = []
    weights: list[float] = []
    for action, weight in _WEIGHTS.items():
        offered = options.get(action)
        if offered is None or offered is False:
            continue
        if action == "fold" and options.get("check"):
            continue  # folding when checking is free is legal but no player does it
        legal.append(action)
        weights.append(weight)
    if not legal:
        return {"action": "fold"} if options.get("fold") else None
    action = rng.choices(legal, weights)[0]
    offered = options[action]
    if action in ("bet", "raise"):
        lo, hi = int(offered["min"]), int(offered["max"])
        amount = lo if rng.random() < 0.7 else rng.randint(lo, max(lo, min(hi, 3 * lo)))
        return {"action": action, "amount": amount}
    if action == "complete" and isinstance(offered, int) and not isinstance(offered, bool):
        return {"action": action, "amount": offered}
    return {"action": action}


# ------------------------------------------------------------------------------ clients
class Spectator(Client):
    """Watches one table; its receipts of table events give the spectator lag. It follows
    its table (``resume`` from the last seq seen) when the table changes process."""

    def __init__(self, url: str, track: TableTrack, *, encoding: str, stats: Stats) -> None:
        super().__init__(url, encoding=encoding, stats=stats)
        self.track = track
        self.watching = False
        self.last_seq = 0

    async def watch(self) -> None:
        answer = await self.follow({"type": "watch", "table": self.track.table_id})
        if answer["type"] != "ok":
            raise RuntimeError(f"watch refused: {answer}")
        self.watching = True

    def _resumes(self) -> list[Msg]:
        if not self.watching:
            return []
        return [{"type": "resume", "table": self.track.table_id, "since": self.last_seq}]

    def _on_event(self, msg: Msg, kind: Any, now: float) -> None:
        seq = msg.get("seq")
        if not isinstance(seq, int) or msg.get("table") != self.track.table_id:
            return
        if kind == "snapshot" or seq > self.last_seq:
            self.last_seq = seq
        if kind != "snapshot":
            self.track.spectator_saw(seq, now)


class Bot(Client):
    """One seated player (see the module docstring)."""

    def __init__(self, url: str, name: str, track: TableTrack, *, seat: int, buy_in: int,
                 rng: random.Random, think: float, encoding: str, stats: Stats) -> None:
        super().__init__(url, encoding=encoding, stats=stats)
        self.name = name
        self.track = track
        self.table = track.table_id
        self.want_seat = seat
        self.buy_in = buy_in
        self.rng = rng
        self.think = think
        self.start_balance: int | None = None
        self.balance = 0
        self.seat: int | None = None
        self.stack = 0
        self.last_seq = 0
        self.cards: list[str] = []
        self.leaving = False
        self.left = asyncio.Event()
        self.rebuys = 0
        self.churning = False
        self._turn_no = 0
        self._offer: tuple[int, Msg] | None = None  # the turn offered to it: (turn_no, options)
        self._acting: tuple[object, int] | None = None  # (connection, turn_no) of its last act
        self._sent_at: float | None = None
        self._act_rid: int | None = None
        self._act_options: Msg | None = None

    # --- session --------------------------------------------------------------------
    async def hello(self) -> Msg:
        """``hello`` (guest the first time, the token afterwards); returns ``welcome``."""
        welcome = await self.say_hello(self.name)
        if self.start_balance is None:
            self.start_balance = int(welcome["balance"])
        self.balance = int(welcome["balance"])
        return welcome

    async def sit(self) -> None:
        amount = min(self.buy_in, self.balance)
        answer = await self.follow({"type": "sit", "table": self.table,
                                    "seat": self.want_seat, "buy_in": amount})
        if answer["type"] != "ok":
            raise RuntimeError(f"sit refused: {answer}")
        self.seat = self.want_seat
        self.balance -= amount
        self.stack = amount

    async def leave(self, timeout: float) -> bool:
        """Leave the table (the table folds this seat's hand at its next turn and seats it
        out at the hand's end; the bot acts no more) and wait for this seat's ``left``
        event; True when it came within ``timeout`` seconds."""
        self.leaving = True
        if self.seat is None:
            return True
        try:
            await self.request({"type": "leave", "table": self.table}, timeout)
            await asyncio.wait_for(self.left.wait(), timeout)
        except (TimeoutError, ConnectionError):
            return False
        return True

    async def churn(self) -> None:
        """Drop the socket (abort, as a lost network would) and come back: new connection,
        ``hello`` with the token, ``resume`` with the last seq seen (following ``moved``)."""
        if self.ws is None or self.leaving or self.churning or self.recovering:
            return
        self.churning = True
        try:
            self.dropping = True
            self._lost()
            self.ws.transport.abort()
            await self.closed.wait()
            self.stats.disconnects += 1
            await self.recover(None, dropped=True)
        finally:
            self.churning = False

    def _resumes(self) -> list[Msg]:
        if self.seat is None:
            return []
        return [{"type": "resume", "table": self.table, "since": self.last_seq}]

    async def _arrived(self) -> None:
        if self.token is not None:  # tokens are valid on every process of a cluster
            await self.hello()

    def _lost(self) -> None:
        self._sent_at = None  # no latency sample across a drop
        offer = self._offer
        held = offer is not None and offer[0] == self._turn_no
        self._turn_no += 1  # a turn seen on the old connection is not acted on there...
        # ...but held, and taken up once resumed (`_resumed`) unless an event ends it first
        self._offer = (self._turn_no, offer[1]) if held and offer is not None else None

    def _resumed(self, table: str) -> None:
        """Its table resumed (the answer read, the replay not yet): the turn it held when
        its connection went is acted on (see the module docstring)."""
        offer = self._offer
        if (table != self.table or offer is None or offer[0] != self._turn_no
                or self._acting == (self.ws, self._turn_no)):
            return  # (no turn held, or one acted on from this connection already)
        self._take_turn(offer[1])

    def _take_turn(self, options: Msg) -> None:
        """A turn is offered to this seat now (``_turn_no`` is its number): act on it, and
        hold it until an event ends it."""
        self._offer = (self._turn_no, options)
        self._acting = (self.ws, self._turn_no)
        self.spawn(self._act(self._turn_no, options))

    # --- events ---------------------------------------------------------------------
    def _on_event(self, msg: Msg, kind: Any, now: float) -> None:
        if kind == "welcome":
            if self._welcome is not None and not self._welcome.done():
                self._welcome.set_result(msg)
            return
        if msg.get("table") != self.table:
            return
        seq = msg.get("seq")
        if kind == "snapshot":
            self._on_snapshot(msg)
            return
        if isinstance(seq, int):
            if seq > self.last_seq:
                self.last_seq = seq
            self.track.player_saw(seq, now)
        seat = msg.get("seat")
        if kind == "turn":
            self._turn_no += 1
            if seat == self.seat and "options" in msg:
                self._take_turn(msg["options"])
        elif kind == "acted":
            if seat == self.seat:
                self._turn_no += 1
                self.stack = int(msg.get("stack", self.stack))
                sent, self._sent_at = self._sent_at, None
                if sent is not None and self.stats.measuring:
                    self.stats.latency(now - sent, now)
        elif kind == "dealt" or kind == "drew":
            if seat == self.seat:
                cards = [c for c in msg.get("cards") or () if isinstance(c, str)]
                if kind == "dealt":
                    self.cards.extend(cards)
                elif cards:
                    self.cards = cards
        elif kind == "hand_started":
            self.cards = []
        elif kind == "hand_ended":
            self._turn_no += 1
            self.track.hand_ended(msg["seq"], now)
            stacks = msg.get("stacks") or {}
            if self.seat is not None and str(self.seat) in stacks:
                self.stack = int(stacks[str(self.seat)])
                if self.stack == 0 and not self.leaving:
                    self.spawn(self._rebuy())
        elif kind == "seated":
            if seat == self.seat:
                self.stack = int(msg.get("stack", self.stack))
        elif kind == "left" and seat == self.seat and self.seat is not None:
            self.seat = None
            self.left.set()

    def _on_snapshot(self, msg: Msg) -> None:
        seq = msg.get("seq")
        seen = isinstance(seq, int) and 0 < seq <= self.last_seq  # (the same state again:
        # a `watch` and a `resume` of one table; its turn, if any, is being acted on already)
        if isinstance(seq, int) and seq > self.last_seq:
            self.last_seq = seq
        you = msg.get("you")
        if isinstance(you, int):
            self.seat = you
            entry = (msg.get("seats") or [None] * (you + 1))[you]
            if isinstance(entry, dict):
                self.stack = int(entry.get("stack", self.stack))
                self.cards = [c for c in entry.get("cards") or () if isinstance(c, str)]
        if seen:
            return
        self._turn_no += 1
        turn = msg.get("turn")
        if isinstance(turn, dict) and turn.get("seat") == self.seat and "options" in turn:
            self._take_turn(turn["options"])

    async def _act(self, turn_no: int, options: Msg) -> None:
        await asyncio.sleep(self.think)  # 0: yield once, so every frame already read is seen
        if turn_no != self._turn_no or self.ws is None or self.dropping or self.leaving:
            return  # (a leaver's hand is folded by the table: it does not act again)
        choice = choose_action(self.rng, options, self.cards)
        if choice is None:
            return
        self._sent_at = self.stats.clock()
        self._act_options = options
        with contextlib.suppress(ConnectionClosed):
            self._act_rid = await self.fire({"type": "act", "table": self.table, **choice})

    def _on_error(self, msg: Msg) -> None:
        # A rate-limited act is tried again shortly (a server with a human's request rate
        # would otherwise leave the turn to its action clock); the error stays counted.
        if (msg.get("rid") == self._act_rid and msg.get("code") == "rate_limited"
                and self._act_options is not None):
            self._act_rid = None
            self.spawn(self._retry(self._turn_no, self._act_options))

    async def _retry(self, turn_no: int, options: Msg) -> None:
        await asyncio.sleep(RATE_LIMIT_RETRY)
        await self._act(turn_no, options)

    async def _rebuy(self) -> None:
        amount = min(self.buy_in, self.balance)
        if amount <= 0 or self.seat is None or self.leaving:
            return
        with contextlib.suppress(ConnectionError, ConnectionClosed, TimeoutError):
            answer = await self.request({"type": "sit", "table": self.table,
                                         "seat": self.seat, "buy_in": amount})
            if answer["type"] == "ok":
                self.balance -= amount
                self.rebuys += 1


async def fetch_balance(url: str, token: str, *, encoding: str, stats: Stats) -> int:
    """A player's balance off the tables, from the ``welcome`` of a fresh ``hello`` with
    their token (the honest way for an outside client to read it)."""
    probe = Bot(url, "probe", TableTrack("", stats), seat=0, buy_in=0, rng=random.Random(0),
                think=0.0, encoding=encoding, stats=stats)
    probe.token = token
    await probe.open()
    try:
        welcome = await probe.hello()
    finally:
        await probe.close()
    return int(welcome["balance"])
