"""Tournament bots: players that enter a tournament and follow the tables it seats them at,
and the host that creates it and follows its state (docs/protocol.md, "Tournaments").

Rule of this module (as of the whole ``server.loadtest`` package): it imports only
``protocol``, ``websockets`` and the standard library, never the server's internals.

A :class:`TournamentBot` is a :class:`~server.loadtest.bots.Bot` whose table is not its
own choice: ``hello`` as a guest, ``tournament_register``, then at every ``tournament_seat``
it ``watch``es the new table (whose ``snapshot`` may already offer it the turn) and
``unwatch``es the old one; it answers its turns exactly as a cash bot does (a random legal
action from its seeded ``random.Random`` after ``think`` seconds, act->acted latency
measured into the shared :class:`~server.loadtest.tracking.Stats`) and stops at its
``tournament_result`` (:attr:`TournamentBot.done`). Nothing else about its table is its
business: no rebuy, no leave (the director seats and unseats it, TOUR-13).

``shove`` is the one difference in policy: the chance that a bet or raise the bot chose goes
to the most the options allow. A cash bot's small bets never end a tournament whose levels
last minutes; a run that measures one needs players who go broke. (In a limit or pot-limit
game "the most allowed" is no all-in: such tournaments last far longer, above all heads-up;
a 12-entrant pot-limit draw took ~2,000 hands of which most were heads-up.)

A :class:`TournamentHost` says ``hello`` as a guest, creates the tournament (so it is its
host: it may cancel it) and follows it (``tournament`` with ``follow``): each pushed
``tournament`` message is kept (:attr:`TournamentHost.state`) and each new level (or break)
is stamped with the shared clock and the hands and actions counted so far
(:attr:`TournamentHost.levels`), which gives the wall time and the hands of every level.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from dataclasses import dataclass
from typing import Any

from websockets.exceptions import ConnectionClosed

from .bots import Bot, choose_action
from .follow import Client, moved_url
from .tracking import Stats, TableTrack

__all__ = ["LevelMark", "TournamentBot", "TournamentHost"]

Msg = dict[str, Any]

#: What a request naming a table answers when that table has closed (docs/protocol.md).
TABLE_GONE = frozenset({"unknown_table", "table_closed"})


class Tracks(dict[str, TableTrack]):
    """The run's table tracks by table id, made on first sight (bots share them, so each
    table's hands are counted once whoever sees them)."""

    def __init__(self, stats: Stats) -> None:
        super().__init__()
        self.stats = stats

    def __missing__(self, table: str) -> TableTrack:
        track = self[table] = TableTrack(table, self.stats)
        return track


class TournamentBot(Bot):
    """One entrant (see the module docstring)."""

    def __init__(self, url: str, name: str, tracks: Tracks, *, rng: random.Random,
                 think: float, encoding: str, stats: Stats, shove: float = 0.0) -> None:
        super().__init__(url, name, TableTrack("", stats), seat=0, buy_in=0, rng=rng, think=think,
                         encoding=encoding, stats=stats)
        self.tracks = tracks
        self.table = ""
        self.seat = None
        self.shove = shove
        self.tournament: str | None = None
        self.result: Msg | None = None
        self.done = asyncio.Event()
        self.seatings: list[Msg] = []  # every `tournament_seat` received, in order
        self.results = 0  # `tournament_result` messages received (one is right)
        self.recovered = False  # the result read from the tournament's state after a drop
        self._asked = False  # the next `tournament` message answers the bot's own request
        self.gone = 0  # a watch or unwatch answered: that table is gone (closed)
        self.first_seat_at: float | None = None  # the run's clock at the first seating
        self.closed_tables: set[str] = set()  # `table_closed` seen: nothing to unwatch
        self._watch_lock = asyncio.Lock()

    async def register(self, tournament: str, *, unfollow: bool = False) -> Msg:
        """``tournament_register``; returns the answer (``ok``, or the error counted).

        The server makes every entrant a follower of the tournament (a ``tournament``
        message at each change); with ``unfollow`` the bot stops that at once
        (``unfollow_tournament``), as a player whose tournament page is closed: its seats
        and its result are pushed to it all the same."""
        self.tournament = tournament  # (in a cluster: `moved` to its process, followed)
        answer = await self.follow({"type": "tournament_register", "tournament": tournament})
        if unfollow and answer["type"] == "ok":
            await self.request({"type": "unfollow_tournament", "tournament": tournament})
        return answer

    async def _arrived(self) -> None:
        """After a drop (its process lost, in a cluster): ``hello``, then ask the
        tournament's state (``moved``: followed after the resumes), which brings the place
        of a bot that was busted while it was away (:attr:`recovered`)."""
        await super()._arrived()
        if self.tournament is None or self.done.is_set() or self.token is None:
            return
        self._asked = True  # (its answer's `you` says where the director seats it now)
        answer = await self.request({"type": "tournament", "tournament": self.tournament})
        url = moved_url(answer)
        if url is not None:
            self._asked = False
            self._next_url = self._next_url or url

    async def _rejoin(self) -> str | None:
        """:meth:`Client._rejoin`, where a table that is gone (broken while the bot was
        away) is no refusal: the tournament's answer to :meth:`_arrived` seats it anew."""
        await self._arrived()
        moved: str | None = None
        for resume in self._resumes():
            answer = await self.request(resume, expected=TABLE_GONE,
                                        on_answer=self._resume_answer(resume["table"]))
            url = moved_url(answer)
            if url is not None:
                moved = moved or url
            elif answer.get("type") != "ok" and answer.get("code") not in TABLE_GONE:
                raise RuntimeError(f"resume refused: {answer}")
        return moved

    # --- events ---------------------------------------------------------------------
    def _on_event(self, msg: Msg, kind: Any, now: float) -> None:
        if kind == "tournament_seat":
            if msg.get("tournament") == self.tournament:
                self._moved_to(msg)
            return
        if kind == "tournament_result":
            if msg.get("tournament") == self.tournament:
                self.results += 1
                self.result = msg
                self._turn_no += 1
                self.done.set()
            return
        if kind == "tournament":
            you = msg.get("you") if msg.get("id") == self.tournament else None
            asked, self._asked = self._asked, False
            if not isinstance(you, dict) or self.done.is_set():
                return
            if you.get("place"):
                self.recovered = True  # its `tournament_result` went out while it was away
                self.result = {"place": you["place"], "prize": you.get("prize") or 0}
                self.done.set()
            elif asked and you.get("table") and you["table"] != self.table:
                # moved while it was away (its `tournament_seat` went out then)
                self._moved_to({"table": you["table"], "seat": you["seat"], "why": "away"})
            return
        if kind == "table_closed":
            self.closed_tables.add(str(msg.get("table")))
        if kind == "left" and msg.get("table") == self.table and msg.get("seat") == self.seat:
            self.seat = None  # busted (or moved): the director took the seat
            return
        super()._on_event(msg, kind, now)

    def _moved_to(self, msg: Msg) -> None:
        if self.first_seat_at is None:
            self.first_seat_at = self.stats.clock()
        old, new = self.table, str(msg["table"])
        self.seatings.append(msg)
        self._turn_no += 1  # a turn offered at the old table is over
        self.table, self.seat = new, int(msg["seat"])
        self.track = self.tracks[new]
        self.cards = []
        self.last_seq = 0
        # a table broken (`break`) closes by itself, which ends the watch: only a `balance`
        # move leaves a table open behind
        self.spawn(self._follow_table(old if msg.get("why") == "balance" else "", new))

    async def _follow_table(self, old: str, new: str) -> None:
        """Watch ``new`` (its snapshot shows this seat, maybe the turn), unwatch ``old``.
        A table broken and closed meanwhile answers ``unknown_table`` or ``table_closed``
        (docs/protocol.md: the table is gone): counted in :attr:`gone`, not an error."""
        async with self._watch_lock:  # two moves in a row: in order
            with contextlib.suppress(ConnectionError, ConnectionClosed, TimeoutError):
                answers = []
                if new == self.table:
                    answers.append(await self.follow({"type": "watch", "table": new},
                                                     expected=TABLE_GONE))
                if old and old != self.table and old not in self.closed_tables:
                    answers.append(await self.request({"type": "unwatch", "table": old},
                                                      expected=TABLE_GONE))
                self.gone += sum(1 for a in answers if a.get("code") in TABLE_GONE)

    def _on_snapshot(self, msg: Msg) -> None:
        if not isinstance(msg.get("you"), int):  # not seated there (moved while away: the
            self.seat = None  # tournament's answer seats it): another's turn is not its own
        super()._on_snapshot(msg)

    def _resumes(self) -> list[Msg]:
        if not self.table or self.done.is_set():
            return []
        return [{"type": "resume", "table": self.table, "since": self.last_seq}]

    async def _act(self, turn_no: int, options: Msg) -> None:
        await asyncio.sleep(self.think)  # 0: yield once, so every frame already read is seen
        if turn_no != self._turn_no or self.ws is None or self.dropping or self.done.is_set():
            return
        choice = choose_action(self.rng, options, self.cards)
        if choice is None:
            return
        action = choice["action"]
        if action in ("bet", "raise") and self.shove and self.rng.random() < self.shove:
            choice["amount"] = int(options[action]["max"])
        self._sent_at = self.stats.clock()
        self._act_options = options
        with contextlib.suppress(ConnectionClosed):
            self._act_rid = await self.fire({"type": "act", "table": self.table, **choice})

    async def _rebuy(self) -> None:
        """No rebuy at a tournament table: the director decides who plays on."""


@dataclass(frozen=True, slots=True)
class LevelMark:
    """The moment the host first saw a level (or a break: ``on_break``) begin, on the run's
    clock, with the hands and actions counted by then."""

    level: int
    on_break: bool
    t: float
    hands: int
    actions: int


class TournamentHost(Client):
    """Creates the tournament and follows it (see the module docstring)."""

    def __init__(self, url: str, *, encoding: str, stats: Stats,
                 name: str = "loadtest-host") -> None:
        super().__init__(url, encoding=encoding, stats=stats)
        self.name = name
        self.balance = 0
        self.tournament: str | None = None
        self.state: Msg | None = None  # the last `tournament` message
        self.levels: list[LevelMark] = []
        self.updates = 0  # `tournament` messages received
        self.ended = asyncio.Event()  # state finished or cancelled
        self.updated = asyncio.Event()  # set at each `tournament` message (a waiter clears it)

    async def hello(self) -> Msg:
        welcome = await self.say_hello(self.name)
        self.balance = int(welcome["balance"])
        return welcome

    async def create(self, fields: Msg) -> str:
        """``create_tournament`` with ``fields``; returns its id (RuntimeError if refused)."""
        answer = await self.request({"type": "create_tournament", **fields})
        if answer["type"] != "ok":
            raise RuntimeError(f"create_tournament refused: {answer}")
        self.tournament = str(answer["tournament"])
        return self.tournament

    async def watch(self) -> str | None:
        """Follow the tournament: a ``tournament`` message now and on every change; the
        ``url`` when it is answered ``moved`` (on another process of a cluster)."""
        answer = await self.request({"type": "tournament", "tournament": self.tournament,
                                     "follow": True})
        url = moved_url(answer)
        if url is None and answer["type"] != "ok":
            raise RuntimeError(f"tournament refused: {answer}")
        return url

    async def _arrived(self) -> None:
        if self.token is not None:
            await self.hello()
            if self.tournament is not None and not self.ended.is_set():
                url = await self.watch()  # (its process lost: the new owner's, followed)
                if url is not None:
                    self._next_url = self._next_url or url

    def _on_event(self, msg: Msg, kind: Any, now: float) -> None:
        if kind == "welcome":
            if self._welcome is not None and not self._welcome.done():
                self._welcome.set_result(msg)
            return
        if kind != "tournament" or msg.get("id") != self.tournament:
            return
        self.updates += 1
        self.state = msg
        self.updated.set()
        level = msg.get("level")
        number = int(level["number"]) if isinstance(level, dict) else 0
        on_break = bool(msg.get("on_break"))
        last = self.levels[-1] if self.levels else None
        if number and (last is None or (last.level, last.on_break) != (number, on_break)):
            self.levels.append(LevelMark(number, on_break, now, self.stats.hands,
                                         self.stats.actions))
        if msg.get("state") in ("finished", "cancelled"):
            self.ended.set()
