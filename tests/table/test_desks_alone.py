"""Each desk of a table built alone, with a fake port (issue 25): no TableActor, no registry.

:class:`FakeTable` implements every port of :mod:`server.table.ports` with real small parts
(a :class:`~server.table.seatmap.SeatMap`, a :class:`~server.table.turn_clock.TurnClock` on a
:class:`~server.table.clock.FakeClock`, a :class:`~server.ledger.wallet.MemoryWallet`) and
records every call that the actor would mediate to another desk (``calls``) and every frame
(``fanout``). mypy checks it against each port where a desk is built with it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from protocol.requests import CreateTable, Sit, parse_request
from server.config import Config
from server.ledger.history import MemoryHistory
from server.ledger.wallet import MemoryWallet
from server.ratelimit import TokenBucket
from server.rules.engine import Engine
from server.rules.hand import Hand
from server.table.api import Envelope, Sink
from server.table.clock import FakeClock
from server.table.dealer import Dealer
from server.table.games import PotGame, TimedOut, game_for
from server.table.host import HostDesk
from server.table.jackpot import JackpotService
from server.table.ports import HandView, LastHand, MuteBook
from server.table.practice import has_person
from server.table.projection import Draft, HandProjector, Msg
from server.table.recording import HandLog
from server.table.seating import SeatDesk
from server.table.seatmap import SeatMap, SeatRequest, SeatState
from server.table.settings import PotSpec, TableSpec, build_spec
from server.table.snapshot import snapshot_for
from server.table.turn_clock import TurnClock
from server.table.viewers import ViewerDesk
from server.table.wake import Wake
from tests.table.helpers import FakeSink
from tests.table.test_hand_flow import DECK

CONFIG = Config(test_mode=True, hand_pause=2.0, action_clock=10.0, time_bank=5.0)


def spec(**fields: Any) -> TableSpec:
    req = CreateTable(**{"variant": "holdem", "structure": "no_limit",
                         "stakes": {"blinds": [50, 100]}, "seats": 6, **fields})
    return build_spec(req, CONFIG, name="Alone")


class Outbox:
    """Records what a desk sends (the :class:`~server.table.ports.Outbox` port)."""

    def __init__(self) -> None:
        self.answers: list[Msg] = []
        self.drafts: list[Draft] = []
        self.sent: list[tuple[Sink, str | bytes]] = []
        self.snapshots: list[Sink] = []
        self.replays: list[tuple[Sink, int]] = []

    def answer(self, env: Envelope, msg: Msg) -> None:
        self.answers.append(msg)

    def send(self, sink: Sink, frame: str | bytes) -> None:
        self.sent.append((sink, frame))

    def publish(self, draft: Draft, skip: frozenset[str] | None = None,
                sender: str | None = None) -> None:
        self.drafts.append(draft)

    def send_snapshot(self, sink: Sink) -> None:
        self.snapshots.append(sink)

    def replay(self, sink: Sink, since: int) -> None:
        self.replays.append((sink, since))

    def resume_from(self, seq: int) -> None:
        self.seq = seq

    def events(self, viewer: str | None = None) -> list[Msg]:
        """Every published event as ``viewer`` (None: a spectator) gets it."""
        out = []
        for seq, d in enumerate(self.drafts, 1):
            public, private = d.render("t1", seq)
            msg = private.get(viewer, public) if viewer is not None else public
            if msg is not None:
                out.append(msg)
        return out

    def kinds(self, viewer: str | None = None) -> list[str]:
        return [str(e["type"]) for e in self.events(viewer)]


@dataclass
class NoHand:
    """The :class:`~server.table.ports.HandView` of a table with no hand running."""

    hand_id: str | None = None
    button: int | None = None
    number: int = 0
    start_stacks: dict[int, int] = field(default_factory=dict)
    hand_owner: dict[int, str] = field(default_factory=dict)
    projector: HandProjector | None = None


class FakeTable:
    """Every port of :mod:`server.table.ports`, recording the calls the actor mediates."""

    def __init__(self, table_spec: TableSpec) -> None:
        self.table_id = "t1"
        self.spec = table_spec
        self.config = CONFIG
        self.clock = FakeClock()
        self.wakes: list[Wake] = []
        self.wallet = MemoryWallet()
        self.seats = SeatMap(table_spec.seats)
        self.sinks: dict[int, Sink] = {}
        self.fanout = Outbox()
        self.turns = TurnClock(self.clock, self.wakes.append)
        self.closing = False
        self.paused = False
        self.practice = False
        self.frozen: Callable[[str], bool] = lambda player_id: False
        self.chat_bucket = TokenBucket(rate=1.0, burst=5, clock=self.clock.now)
        self.mutes: MuteBook | None = None
        self.jackpot: JackpotService | None = None
        self.seq = 0
        rnd = random.Random(7)
        self.rng: Callable[[int], bytes] = rnd.randbytes
        self.shuffle: Callable[[Sequence[str]], list[str]] = (
            lambda cards: rnd.sample(list(cards), len(cards)))
        self.calls: list[tuple[str, Any]] = []
        self.dealt: set[int] = set()  # seats in the (pretended) running hand
        self.approval = False
        self.removed: set[str] = set()
        self.seat_answer: str | None = None
        self.dealer: Dealer | None = None  # the dealer test plugs one in

    # what every desk reads
    @property
    def private(self) -> bool:
        return self.spec.private

    @property
    def in_hand(self) -> bool:
        return bool(self.dealt) or (self.dealer is not None and self.dealer.in_hand)

    @property
    def engine(self) -> Engine | None:
        return self.dealer.engine if self.dealer is not None else None

    @property
    def hand_view(self) -> HandView:
        return self.dealer if self.dealer is not None else NoHand()

    # the neighbours (recorded)
    def dealt_in(self, seat: int) -> bool:
        return seat in self.dealt

    async def fold_leaver(self, seat: int) -> None:
        self.calls.append(("fold_leaver", seat))

    def needs_approval(self, player_id: str) -> bool:
        return self.approval

    def is_removed(self, player_id: str) -> bool:
        return player_id in self.removed

    def request_seat(self, env: Envelope, req: Sit) -> None:
        self.calls.append(("request_seat", (env.sink.player_id, req.seat)))

    def seats_changed(self) -> None:
        self.calls.append(("seats_changed", None))

    def game_seated(self, st: SeatState) -> None:
        self.calls.append(("game_seated", st.player_id))

    def use_spec(self, new: TableSpec) -> None:
        self.spec = new

    async def close_for_good(self, reason: str, *, after_hand: bool = False) -> None:
        self.calls.append(("close_for_good", reason))

    async def seat_requested(self, asked: SeatRequest) -> str | None:
        self.calls.append(("seat_requested", (asked.player_id, asked.seat, asked.buy_in)))
        return self.seat_answer

    async def take_off(self, seat: int) -> bool:
        self.calls.append(("take_off", seat))
        return False

    def hand_starts(self) -> None:
        self.calls.append(("hand_starts", None))

    def note_timeout(self, seat: int) -> None:
        self.calls.append(("note_timeout", seat))

    def hand_ended(self) -> None:
        self.calls.append(("hand_ended", None))

    def hand_dealt(self) -> None:
        self.calls.append(("hand_dealt", None))

    async def after_hand(self) -> None:
        self.calls.append(("after_hand", None))
        if self.dealer is not None:  # (as the actor does: nothing runs)
            self.dealer.clear()

    def last_hand(self) -> LastHand:
        return LastHand(None, None, None)

    def host_state(self, player_id: str | None) -> Msg | None:
        return None


def env(sink: FakeSink, kind: str, **fields: Any) -> Envelope:
    return Envelope(parse_request({"type": kind, "rid": 1, "table": "t1", **fields}), sink)


def player(t: FakeTable, pid: str, balance: int = 10_000) -> FakeSink:
    t.wallet.ensure(pid, balance)
    return FakeSink(player_id=pid, name=pid.title())


# ==================================================================== SeatDesk
async def test_seat_desk_seats_a_player_and_refuses_a_taken_seat() -> None:
    t = FakeTable(spec())
    desk = SeatDesk(t)
    alice, bob = player(t, "alice"), player(t, "bob")
    await desk.sit(env(alice, "sit", seat=2, buy_in=5000))
    assert t.fanout.answers[-1]["type"] == "ok" and t.fanout.answers[-1]["seat"] == 2
    st = t.seats[2]
    assert st is not None and (st.player_id, st.stack) == ("alice", 5000)
    assert t.wallet.balance("alice") == 5000
    assert t.sinks[alice.conn_id] is alice and t.fanout.snapshots == [alice]
    assert t.fanout.kinds() == ["seated"]
    # the game and the host heard of it through the port (the actor mediates)
    assert ("game_seated", "alice") in t.calls and ("seats_changed", None) in t.calls
    await desk.sit(env(bob, "sit", seat=2, buy_in=5000))
    assert t.fanout.answers[-1]["code"] == "seat_taken"
    assert t.seats.seat_of("bob") is None and t.wallet.balance("bob") == 10_000
    await desk.sit(env(bob, "sit", seat=3, buy_in=1))
    assert t.fanout.answers[-1]["code"] == "bad_buy_in"
    t.closing = True
    await desk.sit(env(bob, "sit", seat=3, buy_in=5000))
    assert t.fanout.answers[-1]["code"] == "table_closed"


async def test_seat_desk_a_leaver_in_the_hand_is_folded_through_the_port() -> None:
    t = FakeTable(spec())
    desk = SeatDesk(t)
    alice = player(t, "alice")
    await desk.sit(env(alice, "sit", seat=0, buy_in=5000))
    t.dealt = {0}
    await desk.leave(env(alice, "leave"))
    assert t.fanout.answers[-1] == {"type": "ok", "rid": 1, "pending": True}
    assert ("fold_leaver", 0) in t.calls
    st = t.seats[0]
    assert st is not None and st.leaving  # cashed out when the hand ends, not now
    assert t.wallet.balance("alice") == 5000
    t.dealt = set()
    await desk.remove(0)
    assert t.seats[0] is None and t.wallet.balance("alice") == 10_000
    assert t.fanout.kinds()[-1] == "left"


async def test_seat_desk_hands_a_seat_to_the_host_when_it_needs_approval() -> None:
    t = FakeTable(spec())
    desk = SeatDesk(t)
    t.approval = True
    bob = player(t, "bob")
    await desk.sit(env(bob, "sit", seat=1, buy_in=5000))
    assert ("request_seat", ("bob", 1)) in t.calls
    assert t.seats[1] is None and t.wallet.balance("bob") == 10_000
    t.removed.add("bob")
    await desk.sit(env(bob, "sit", seat=1, buy_in=5000))
    assert t.fanout.answers[-1]["code"] == "removed"


# ==================================================================== HostDesk
async def test_host_desk_approves_a_request_through_the_port() -> None:
    t = FakeTable(spec(private=True))
    host = HostDesk(t, "owner")
    owner, bob = player(t, "owner"), player(t, "bob")
    assert not host.admits(bob, None) and host.admits(owner, None)
    assert host.code is not None and host.admits(bob, host.code)  # remembered from now on
    req = env(bob, "sit", seat=2, buy_in=500, code=host.code)
    assert isinstance(req.request, Sit)
    host.request_seat(req, req.request)
    assert t.fanout.answers[-1]["pending"] is True
    assert "seat_request" in t.fanout.kinds("owner")
    await host.handle(env(bob, "host", action="approve", player="bob"))
    assert t.fanout.answers[-1]["code"] == "not_host"
    await host.handle(env(owner, "host", action="approve", player="bob"))
    assert ("seat_requested", ("bob", 2, 500)) in t.calls  # the seat desk, via the actor
    assert t.fanout.answers[-1] == {"type": "ok", "rid": 1, "seat": 2}
    assert host.requests == {}
    await host.handle(env(owner, "host", action="pause"))
    assert host.paused


async def test_host_desk_an_approval_the_seat_desk_refuses_is_told_to_the_asker() -> None:
    t = FakeTable(spec(private=True))
    host = HostDesk(t, "owner")
    owner, bob = player(t, "owner"), player(t, "bob")
    req = env(bob, "sit", seat=2, buy_in=500, code=host.code)
    assert isinstance(req.request, Sit)
    host.request_seat(req, req.request)
    t.seat_answer = "insufficient_funds"
    await host.handle(env(owner, "host", action="approve", player="bob"))
    assert t.fanout.answers[-1]["code"] == "insufficient_funds"
    assert "seat_refused" in t.fanout.kinds("bob")


# ==================================================================== ViewerDesk
async def test_viewer_desk_watch_and_chat() -> None:
    t = FakeTable(spec())
    desk = ViewerDesk(t)
    carol = FakeSink(player_id="carol", name="Carol")
    await desk.watch(env(carol, "watch"))
    assert t.sinks[carol.conn_id] is carol and t.fanout.snapshots == [carol]
    await desk.chat(env(carol, "chat", text="hello"))
    assert t.fanout.events()[-1]["text"] == "hello" and t.fanout.events()[-1]["name"] == "Carol"
    await desk.show_hands(env(carol, "show_hands", hand="t1.1"))
    assert t.fanout.answers[-1]["code"] == "not_seated"
    await desk.unwatch(env(carol, "unwatch"))
    assert carol.conn_id not in t.sinks


# ==================================================================== Dealer, Game, HandLog
async def test_dealer_deals_a_hand_and_records_it() -> None:
    table_spec = spec(decks=[DECK])
    assert isinstance(table_spec, PotSpec)
    t = FakeTable(table_spec)
    history = MemoryHistory()
    game = game_for(t, table_spec)
    assert isinstance(game, PotGame)
    dealer = Dealer(t, HandLog("t1", history=history, clock=t.clock, rng=t.rng),
                    table_spec.decks, game)
    t.dealer = dealer
    alice, bob = player(t, "alice"), player(t, "bob")
    for seat, who in ((0, alice), (1, bob)):
        assert who.player_id is not None and who.name is not None
        t.seats.place(seat, SeatState(who.player_id, who.name, 5000, 5.0, sink=who))
    await dealer.start()
    assert ("hand_starts", None) in t.calls  # the host's changes, through the actor
    assert dealer.hand_id == "t1.1" and dealer.button == 1 and dealer.number == 1
    kinds = t.fanout.kinds()
    assert kinds[0] == "hand_started" and kinds.count("posted") == 2 and kinds[-1] == "turn"
    started = t.fanout.events()[0]
    assert started["number"] == 1 and len(started["commitment"]) == 64
    assert t.turns.seat == 0  # the game started alice's clock
    turn = t.fanout.events("alice")[-1]
    assert turn["seat"] == 0 and turn["options"]["call"] == 100
    await dealer.act(env(alice, "act", action="fold"))
    assert len(t.fanout.sent) == 1  # the ok, encoded once
    assert "hand_ended" in t.fanout.kinds()
    assert not dealer.in_hand
    st0, st1 = t.seats[0], t.seats[1]
    assert st0 is not None and st1 is not None and (st0.stack, st1.stack) == (4950, 5050)
    assert ("hand_ended", None) in t.calls and ("after_hand", None) in t.calls
    record = history.records[-1]  # HandLog recorded the hand
    assert record.hand == "t1.1" and record.result is not None
    assert record.result["stacks"] == {"0": 4950, "1": 5050}
    assert record.audit is not None and record.audit["deck"] == list(DECK)
    assert record.commitment == started["commitment"]
    assert dealer.last_hand_id == "t1.1" and isinstance(dealer.last_hand, Hand)  # SHOW-02
    snap = snapshot_for(t, "alice")  # (a SnapshotSource too)
    assert snap["you"] == 0 and snap["button"] == 1 and snap["hand"] is None


async def test_a_timeout_is_the_game_s_outcome_the_dealer_plays_and_counts() -> None:
    table_spec = spec(decks=[DECK])
    assert isinstance(table_spec, PotSpec)
    t = FakeTable(table_spec)
    game = game_for(t, table_spec)
    dealer = Dealer(t, HandLog("t1", history=MemoryHistory(), clock=t.clock, rng=t.rng),
                    table_spec.decks, game)
    t.dealer = dealer
    for seat, pid in ((0, "alice"), (1, "bob")):
        t.seats.place(seat, SeatState(pid, pid.title(), 5000, 0.0))
    await dealer.start()
    t.clock.advance(10.0)  # alice's action clock (no bank): the wake-up goes to the game
    assert len(t.wakes) == 1
    assert game.on_wake(t.wakes[0]) == TimedOut(0)  # a decision, nothing done yet
    assert "hand_ended" not in t.fanout.kinds()
    await dealer.on_wake(t.wakes[0])
    assert ("note_timeout", 0) in t.calls  # counted, through the port (the seat desk's)
    assert "hand_ended" in t.fanout.kinds()  # her timeout folded her: bob wins the blinds


def test_has_person_reads_the_seats_alone() -> None:
    t = FakeTable(spec())
    t.seats.place(0, SeatState("b_1", "Bot Ada", 100, 0.0))
    assert not has_person(t)
    t.seats.place(1, SeatState("alice", "Alice", 100, 0.0, sitting_out=True))
    assert has_person(t) and not has_person(t, playing=True)
