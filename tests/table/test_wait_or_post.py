"""GEN-05, the player's side (issue 24, "what friends expect from a home game"): a player
who sat out while the big blind passed comes back waiting for it (``sat_in`` says
``wait_for_bb``), or, where the table's ``post_to_enter`` is on (or at a home game), chooses to
post a big blind and play at once (``sit_in`` with ``post_bb``); elsewhere that choice is
refused ``post_bb_off``. Sitting out during a hand takes effect from the next hand: the
player plays the hand they are in to its end."""

from __future__ import annotations

from tests.table.helpers import Harness, hand_of
from tests.table.test_blind_rotation import CFG, Table


async def missed_big_blind(post_to_enter: bool) -> Table:
    """Seats 0, 3, 6; seat 6 sits out during the first hand (blinds 0 and 3) and so misses
    the big blind of the second (which passes it to seat 0)."""
    table = Table(Harness(config=CFG), 10, settings={"post_to_enter": post_to_enter})
    for s in (0, 3, 6):
        await table.sit(s)
    await table.watch()
    await table.h.advance(table.t, 2.0)
    hand = hand_of(table.t)
    assert hand is not None and set(hand.stacks) == {0, 3, 6}
    # sit out next hand, ticked during this one: seat 6 still plays this hand out
    assert (await table.h.send(table.t, table.sinks[6], "sit_out"))["type"] == "ok"
    assert table.t.engine is hand and 6 in hand.stacks and 6 not in hand.folded
    table.hands.append({})  # (the first hand is running: play_hand must not watch again)
    while table.t.engine is not None:
        seat = hand.to_act
        assert seat is not None
        opts = hand.options(seat)
        assert opts is not None
        action = "check" if opts.check else "fold"
        assert (await table.h.send(table.t, table.sinks[seat], "act",
                                   action=action))["type"] == "ok"
    second = await table.play_hand()
    assert 6 not in second["players"] and second["blind_seats"][-1] == 0
    return table


async def test_gen05_back_after_missing_the_big_blind_waits_for_it() -> None:
    """GEN-05: back without posting, the player waits until the big blind reaches them; the
    table refuses ``post_bb`` where ``post_to_enter`` is off (``post_bb_off``)."""
    table = await missed_big_blind(post_to_enter=False)
    refused = await table.h.send(table.t, table.sinks[6], "sit_in", post_bb=True)
    assert refused["code"] == "post_bb_off", refused
    assert (await table.h.send(table.t, table.sinks[6], "sit_in"))["type"] == "ok"
    back = table.watcher.of("sat_in")[-1]
    assert back["seat"] == 6 and back["wait_for_bb"] is True
    rec = await table.play_hand()  # big blind on 3: seat 6 still waits
    assert 6 not in rec["players"]
    rec = await table.play_hand()  # the big blind reaches seat 6
    assert 6 in rec["players"] and rec["blind_seats"][-1] == 6


async def test_gen05_back_posting_a_big_blind_plays_at_once() -> None:
    """GEN-05: with ``post_to_enter`` the returning player may post a big blind and play
    the next hand (out of position), told to everyone as back without waiting."""
    table = await missed_big_blind(post_to_enter=True)
    assert (await table.h.send(table.t, table.sinks[6], "sit_in", post_bb=True))["type"] == "ok"
    assert "wait_for_bb" not in table.watcher.of("sat_in")[-1]
    rec = await table.play_hand()  # big blind on 3; seat 6 posts its own to come in
    assert 6 in rec["players"] and rec["blind_seats"][-1] == 3
    assert (6, 100) in rec["blinds"]
