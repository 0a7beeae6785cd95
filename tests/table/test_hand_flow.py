"""A full Hold'em hand through the actor with a fixed deck (test mode)."""

from __future__ import annotations

from server.rules.cards import make_deck
from tests.table.helpers import FakeSink, Harness

HOLDEM = {"variant": "holdem", "structure": "no_limit", "stakes": {"blinds": [50, 100]},
          "seats": 6}


def fixed_deck(*first: str) -> list[str]:
    rest = [c for c in make_deck() if c not in first]
    return [*first, *rest]


# seat 0: As Ad (positions 0, 2); seat 1: Kc Kd (1, 3); burn 2c; flop Ah 7s 8d; burn 3c;
# turn 9h; burn 4c; river Jc
DECK = fixed_deck("As", "Kc", "Ad", "Kd", "2c", "Ah", "7s", "8d", "3c", "9h", "4c", "Jc")


async def test_full_holdem_hand_events_and_stacks() -> None:
    h = Harness()
    t = h.create(**HOLDEM, decks=[DECK])
    alice, bob = h.player("alice"), h.player("bob")
    watcher = FakeSink()
    assert (await h.send(t, watcher, "watch"))["type"] == "ok"
    assert (await h.send(t, alice, "sit", seat=0, buy_in=5000))["type"] == "ok"
    assert (await h.send(t, bob, "sit", seat=1, buy_in=5000))["type"] == "ok"
    assert h.wallet.balance("alice") == 95_000
    await h.advance(t, 2.0)  # the pause between hands
    assert t.engine is not None
    assert t.dealer.button == 1  # GEN-05: highest-numbered occupied seat
    turn = alice.of("turn")[-1]
    assert turn["seat"] == 0 and turn["options"]["call"] == 100
    assert "options" not in bob.of("turn")[-1]
    assert (await h.send(t, alice, "act", action="call"))["type"] == "ok"
    assert (await h.send(t, bob, "act", action="check"))["type"] == "ok"
    for _ in range(3):  # flop, turn, river: seat 0 acts first after the button
        assert (await h.send(t, alice, "act", action="check"))["type"] == "ok"
        assert (await h.send(t, bob, "act", action="check"))["type"] == "ok"
    assert t.engine is None
    ended = alice.of("hand_ended")[-1]
    assert ended["stacks"] == {"0": 5100, "1": 4900}
    kinds = [m["type"] for m in watcher.messages if "seq" in m and m["type"] != "snapshot"]
    assert kinds == [
        "seated", "seated", "hand_started", "posted", "posted",
        "dealt", "dealt", "turn", "acted", "turn", "acted", "pots",
        "board", "turn", "acted", "turn", "acted", "pots",
        "board", "turn", "acted", "turn", "acted", "pots",
        "board", "turn", "acted", "turn", "acted", "pots",
        "showdown", "mucked", "pot_awarded", "hand_ended",
    ]
    # the pot breakdown after each round, the same for every viewer (pot 0 = main)
    assert [m["pots"] for m in watcher.of("pots")] == [[{"amount": 200, "eligible": [0, 1]}]] * 4
    assert [m["pots"] for m in alice.of("pots")] == [m["pots"] for m in watcher.of("pots")]
    seqs = [m["seq"] for m in watcher.messages if "seq" in m and m["type"] != "snapshot"]
    assert seqs == list(range(1, len(seqs) + 1))
    # same seq for every viewer
    assert [m["seq"] for m in alice.of("hand_ended")] == [m["seq"] for m in
                                                         watcher.of("hand_ended")]
    own = [m["cards"] for m in alice.of("dealt") if m["seat"] == 0]
    assert own == [["As", "Ad"]]
    assert all(m["cards"] == [None, None] for m in watcher.of("dealt"))
    assert watcher.of("board")[-1]["cards"] == ["Ah", "7s", "8d", "9h", "Jc"]
    award = watcher.of("pot_awarded")[0]
    assert award["winners"] == {"0": 200}
    # leave between hands: chips back to the balance
    assert (await h.send(t, alice, "leave"))["type"] == "ok"
    assert h.wallet.balance("alice") == 100_100
    assert t.seats[0] is None


async def test_snapshot_pots_are_the_running_breakdown() -> None:
    """A snapshot's ``pots`` are ``{amount, eligible}`` objects (main first) of the rounds
    already closed; the current round's bets are the seats' ``bet`` (never a one-seat "side
    pot" of an unmatched bet); none between hands."""
    h = Harness()
    t = h.create(**HOLDEM, decks=[DECK])
    alice, bob = h.player("alice"), h.player("bob")
    early = FakeSink()
    assert (await h.send(t, early, "watch"))["type"] == "ok"
    assert early.of("snapshot")[-1]["pots"] == []
    assert (await h.send(t, alice, "sit", seat=0, buy_in=5000))["type"] == "ok"
    assert (await h.send(t, bob, "sit", seat=1, buy_in=5000))["type"] == "ok"
    await h.advance(t, 2.0)
    assert (await h.send(t, alice, "act", action="raise", amount=300))["type"] == "ok"
    pre = FakeSink()
    assert (await h.send(t, pre, "watch"))["type"] == "ok"
    snap = pre.of("snapshot")[-1]
    assert snap["pots"] == [] and [s["bet"] for s in snap["seats"][:2]] == [300, 100]
    assert (await h.send(t, bob, "act", action="call"))["type"] == "ok"
    assert (await h.send(t, alice, "act", action="bet", amount=500))["type"] == "ok"
    late = FakeSink()
    assert (await h.send(t, late, "watch"))["type"] == "ok"
    snap = late.of("snapshot")[-1]
    assert snap["pots"] == [{"amount": 600, "eligible": [0, 1]}]
    assert [s["bet"] for s in snap["seats"][:2]] == [500, 0]
    assert (await h.send(t, bob, "act", action="fold"))["type"] == "ok"
    gone = FakeSink()
    assert (await h.send(t, gone, "watch"))["type"] == "ok"
    assert gone.of("snapshot")[-1]["pots"] == []
