"""Two browsers play a Hold'em hand to showdown by clicking, a third watches.

The table is created by the test's protocol client in test mode with a fixed deck: seat 0
(Alice) As Ad, seat 1 (Bob) Kc Kd; flop Ah 7s 8d, turn 9h, river Jc: three aces win
5,300/4,700 (the same hand as tests/net/test_wire_variants.py). Bob's page is a 360 px phone.
The spectator's DOM is read after every action: before the showdown it never holds a hole
card face up (no `data-card`, no card name, no card text of a hole card anywhere).
"""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from server.rules.cards import make_deck
from tests.net.conftest import Live
from tests.web.conftest import OUT_NEXT_HAND, PHONE, OpenPlayer, Player, create, host

pytestmark = pytest.mark.browser

HOLE = {0: ["As", "Ad"], 1: ["Kc", "Kd"]}
FIRST = ["As", "Kc", "Ad", "Kd", "2c", "Ah", "7s", "8d", "3c", "9h", "4c", "Jc"]
DECK = [*FIRST, *(c for c in make_deck(lowest_rank=2) if c not in FIRST)]
NAMES = {"As": ("ace of spades", "A\u2660"), "Ad": ("ace of diamonds", "A\u2666"),
         "Kc": ("king of clubs", "K\u2663"), "Kd": ("king of diamonds", "K\u2666")}


async def assert_no_hole_card(spectator: Player) -> int:
    """The spectator's whole DOM holds no hole card in any form; returns the face-down cards
    it shows (two per player once dealt)."""
    html = await spectator.page.content()
    for cards in HOLE.values():
        for card in cards:
            name, text = NAMES[card]
            assert f'data-card="{card}"' not in html
            assert name not in html and text not in html, card
    return await spectator.page.locator(".seat .card.back").count()


async def test_two_players_play_a_holdem_hand_to_showdown_and_a_spectator_sees_no_hole_card(
        live: Live, open_player: OpenPlayer) -> None:
    creator = await host(live)
    table = await create(creator, variant="holdem", structure="no_limit",
                         stakes={"blinds": [50, 100]}, seats=6, name="Aces high",
                         settings={"pause": 0.2}, decks=[DECK])
    base = live.url
    alice = await open_player()
    bob = await open_player(PHONE)
    spectator = await open_player()

    await alice.goto(base)
    await alice.hello("Alice")
    row = alice.page.locator(f"tr[data-table='{table}']")  # the lobby lists it
    await expect(row).to_contain_text("Aces high")
    await row.get_by_role("link", name="Join").click()
    await alice.sit(0, 5000)

    await spectator.goto(base, f"#/table/{table}/watch")
    await expect(spectator.page.locator("#watch-badge")).to_have_text("Watching")
    await expect(spectator.page.locator(".seat[data-seat='0'] .name")).to_have_text("Alice")
    marker = await spectator.page.evaluate("() => (window.__marker = 'kept', location.href)")

    await bob.goto(base)
    await bob.hello("Bob")
    await bob.goto(base, f"#/table/{table}")
    await bob.sit(1, 5000)
    await creator.request("watch", table=table)

    # Each sees their own cards face up and the other's backs.
    for me, page in ((0, alice.page), (1, bob.page)):
        for card in HOLE[me]:
            mine = page.locator(f".seat[data-seat='{me}'] [data-card='{card}']")
            await expect(mine).to_be_visible()
        await expect(page.locator(f".seat[data-seat='{1 - me}'] .card.back")).to_have_count(2)
    await expect(spectator.page.locator(".seat .card.back")).to_have_count(4)
    assert await assert_no_hole_card(spectator) == 4

    await alice.act("call")
    assert await assert_no_hole_card(spectator) == 4
    await bob.act("check")
    await expect(alice.page.locator(".board [data-card]")).to_have_count(3)
    assert await assert_no_hole_card(spectator) == 4
    # The pot breakdown after the round (a `pots` event), the same for a spectator.
    await expect(spectator.page.locator(".pot-chip[data-pot-index='0']")).to_have_text(
        "Main pot 200")

    # Flop: Alice bets 200 with the number input (the slider follows), Bob calls.
    await expect(alice.page.locator("#actions [data-act='bet']")).to_be_enabled()
    await expect(alice.page.locator("#amount")).to_have_attribute("min", "100")
    await expect(alice.page.locator("#actions .quick")).not_to_have_count(0)
    await alice.shot("holdem-desktop")
    await alice.act("bet", 200)
    await expect(bob.page.locator("[data-bet-seat='0'] .amount")).to_have_text("200")
    assert await assert_no_hole_card(spectator) == 4
    await expect(bob.page.locator("#actions [data-act='call']")).to_contain_text("Call 200")
    await bob.shot("holdem-phone")
    await bob.page.click("#sitout-btn")  # no second hand: the table stays as this one ends
    await expect(bob.page.locator("#sitout-btn")).to_have_text(OUT_NEXT_HAND)
    await bob.act("call")
    assert await assert_no_hole_card(spectator) == 4
    # Turn and river: checked around, by keyboard on Alice's side.
    for _ in range(2):
        await expect(alice.page.locator("#actions [data-act='check']")).to_be_enabled()
        await alice.page.keyboard.press("c")
        await bob.act("check")
        board = await spectator.page.locator(".board [data-card]").count()
        if board < 5:
            assert await assert_no_hole_card(spectator) == 4

    ended = await creator.event("hand_ended", table=table)
    assert ended["stacks"] == {"0": 5300, "1": 4700}
    actor = live.app.registry.get(table)
    assert actor is not None
    server_stacks = {i: s.stack for i, s in enumerate(actor.seats) if s is not None}  # type: ignore[attr-defined]
    assert server_stacks == {0: 5300, 1: 4700}
    for player in (alice, bob, spectator):
        await expect(player.page.locator(".seat[data-seat='0'] .stack")).to_have_text("5,300")
        await expect(player.page.locator(".seat[data-seat='1'] .stack")).to_have_text("4,700")
        await expect(player.page.locator("#announcements")).to_contain_text(
            "Alice wins 600 with three of a kind, aces")
    # At the showdown the spectator sees Alice's aces (shown); Bob mucked: never his kings.
    await expect(spectator.page.locator(".seat[data-seat='0'] [data-card='As']")).to_be_visible()
    html = await spectator.page.content()
    assert 'data-card="Kc"' not in html and 'data-card="Kd"' not in html
    assert await spectator.page.evaluate("() => window.__marker") == "kept"
    assert spectator.page.url == marker
    # The spectator joins the chat with a name; the players read it.
    await spectator.page.fill("#chat-hello-name", "Carol")
    await spectator.page.click("#chat-hello button")
    await spectator.page.fill("#chat-input", "nice hand <b>Alice</b>")
    await spectator.page.press("#chat-input", "Enter")
    for player in (alice, bob):
        line = player.page.locator("#chat-lines li.spectator")
        await expect(line.locator(".text")).to_have_text("nice hand <b>Alice</b>")  # no markup
        await expect(line).to_contain_text("Carol")
        await expect(line.locator("button.mute")).to_be_visible()  # others' lines can be muted
    # The hand is in the histories, to open and read: the server's (Alice's own copy, as
    # text) and the one this browser saw.
    await alice.page.click("#history-panel summary")
    mine = alice.page.locator(".hand-record.server").first
    await mine.locator("summary").click()
    await expect(mine).to_contain_text("Dealt to Alice [As Ad]")
    await expect(mine.locator("summary")).to_contain_text("+300")
    seen = alice.page.locator("#history-list .hand-record").first
    await seen.locator("summary").click()
    await expect(seen).to_contain_text("Alice wins 600")
    await expect(seen).to_contain_text("Alice bets 200")
