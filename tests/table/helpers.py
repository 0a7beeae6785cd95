"""Test helpers: recording sinks, a registry on a fake clock, request shortcuts."""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from typing import Any

from protocol import JSON_CODEC, MSGPACK_CODEC, parse_request
from server.config import Config
from server.ledger.wallet import MemoryWallet
from server.rules.caribbean import CaribbeanRound
from server.rules.hand import Hand
from server.table import Envelope, FakeClock, TableActor, TableRegistry
from server.table.games import PotGame

_conn_ids = itertools.count(1)


def hand_of(t: TableActor) -> Hand:
    """The pot-game hand ``t`` is playing (the test knows which game its table holds)."""
    assert isinstance(t.engine, Hand), t.engine
    return t.engine


def round_of(t: TableActor) -> CaribbeanRound:
    """The Caribbean round ``t`` is playing."""
    assert isinstance(t.engine, CaribbeanRound), t.engine
    return t.engine


@dataclass(eq=False)
class FakeSink:
    """Records every frame; ``messages`` decodes them with the sink's codec."""

    player_id: str | None = None
    name: str | None = None
    codec: Any = JSON_CODEC
    conn_id: int = field(default_factory=lambda: next(_conn_ids))
    frames: list[str | bytes] = field(default_factory=list)
    fail: bool = False
    decoded: list[dict[str, Any]] = field(default_factory=list)

    def send(self, frame: str | bytes) -> None:
        if self.fail:
            raise ConnectionError("closed")
        assert isinstance(frame, bytes if self.codec.binary else str)
        self.frames.append(frame)
        self.decoded.append(self.codec.decode(frame))

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.decoded

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [msg for msg in self.messages if msg["type"] == kind]

    def answers(self) -> list[dict[str, Any]]:
        return [msg for msg in self.messages if msg["type"] in ("ok", "error")]

    def last_answer(self) -> dict[str, Any]:
        return self.answers()[-1]


class Harness:
    def __init__(self, *, config: Config | None = None, seed: int = 1) -> None:
        self.config = config or Config(test_mode=True, hand_pause=2.0, action_clock=10.0,
                                       time_bank=5.0)
        self.clock = FakeClock()
        self.wallet = MemoryWallet()
        self.rnd = random.Random(seed)
        self.registry = TableRegistry(
            self.config, self.wallet, clock=self.clock,
            rng=lambda n: self.rnd.randbytes(n),
            shuffle=lambda cards: self.rnd.sample(list(cards), len(cards)))
        self._rid = itertools.count(1)

    def create(self, **fields: Any) -> TableActor:
        req = parse_request({"type": "create_table", **fields})
        table_id = self.registry.create(req, owner="owner")  # type: ignore[arg-type]
        actor = self.registry.get(table_id)
        assert actor is not None
        return actor

    def player(self, pid: str, *, balance: int = 100_000, msgpack: bool = False) -> FakeSink:
        self.wallet.ensure(pid, balance)
        return FakeSink(player_id=pid, name=pid.title(),
                        codec=MSGPACK_CODEC if msgpack else JSON_CODEC)

    async def send(self, actor: TableActor, sink: FakeSink, kind: str,
                   **fields: Any) -> dict[str, Any]:
        rid = next(self._rid)
        req = parse_request({"type": kind, "rid": rid, "table": actor.table_id, **fields})
        await actor.submit(Envelope(req, sink))
        await actor.idle()
        answers = [a for a in sink.answers() if a["rid"] == rid]
        assert len(answers) == 1, (kind, answers)
        return answers[0]

    async def advance(self, actor: TableActor, seconds: float) -> None:
        """Advance the fake clock in small steps, letting the actor handle each wakeup."""
        step = 0.5
        left = seconds
        while left > 1e-9:
            d = min(step, left)
            self.clock.advance(d)
            left -= d
            await actor.idle()


def pot_game(t: TableActor) -> PotGame:
    """The pot-game behaviour of ``t`` (its button and blinds)."""
    assert isinstance(t.game, PotGame), t.game
    return t.game
