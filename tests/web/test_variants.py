"""A Draw hand with a discard, a Seven Card Stud hand with up cards and a Caribbean Stud round
with the jackpot wager, each played by clicking in the page (fixed decks, test mode).

The scripts are the hands of tests/net/test_wire_variants.py, so the final stacks are known.
Seat 0 is always the page's player (Alice); in the pot games seat 1 is a second page (Bob).
"""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from server.rules.cards import make_deck
from tests.net.conftest import Live, open_client
from tests.web.conftest import OUT_NEXT_HAND, PHONE, OpenPlayer, Player, create, host

pytestmark = pytest.mark.browser


def deck(*first: str) -> list[str]:
    return [*first, *(c for c in make_deck(lowest_rank=2) if c not in first)]


async def seat_two(live: Live, open_player: OpenPlayer, table: str) -> tuple[Player, Player]:
    players = []
    for seat, name in enumerate(("Alice", "Bob")):
        player = await open_player()
        await player.goto(live.url)
        await player.hello(name)
        await player.goto(live.url, f"#/table/{table}")
        await player.sit(seat, 5000)
        players.append(player)
    # Once the hand is on (Alice acts first in both games), Bob sits out: this hand is
    # played, no second one starts after it.
    await expect(players[0].page.locator("#actions .your-turn")).to_be_visible()
    await players[1].page.click("#sitout-btn")
    await expect(players[1].page.locator("#sitout-btn")).to_have_text(OUT_NEXT_HAND)
    return players[0], players[1]


async def test_a_draw_hand_with_a_discard(live: Live, open_player: OpenPlayer) -> None:
    creator = await host(live)
    table = await create(creator, variant="draw", structure="pot_limit",
                         stakes={"blinds": [50, 100]}, seats=6, settings={"pause": 0.2},
                         decks=[deck("Ah", "Qs", "Ad", "Qh", "Kc", "Qd", "7s", "5c", "2d", "3h",
                                     "4s", "Ac", "Kd", "Jc")])
    await creator.request("watch", table=table)
    alice, bob = await seat_two(live, open_player, table)
    await alice.act("call")
    await bob.act("check")

    # The draw: Alice picks 7s and 2d (the button counts them), Bob throws 3h.
    draw = alice.page.locator("#actions [data-act='draw']")
    await expect(draw).to_contain_text("Stand pat")
    await alice.page.click("[data-pick='7s']")
    await alice.page.click("[data-pick='2d']")
    await expect(draw).to_contain_text("Discard 2 and draw")
    await expect(alice.page.locator("[data-pick][aria-pressed='true']")).to_have_count(2)
    await draw.click()
    await expect(alice.page.locator(".seat[data-seat='0'] [data-card='Ac']")).to_be_visible()
    await expect(alice.page.locator(".seat[data-seat='0'] [data-card='Kd']")).to_be_visible()
    await expect(alice.page.locator(".seat[data-seat='0'] [data-card='7s']")).to_have_count(0)
    await expect(alice.page.locator(".seat[data-seat='0'] .card")).to_have_count(5)
    await bob.page.click("[data-pick='3h']")
    await bob.act("draw")
    await expect(bob.page.locator(".seat[data-seat='1'] [data-card='Jc']")).to_be_visible()
    await expect(alice.page.locator(".seat[data-seat='1'] .last-action")).to_have_text("draws 1")
    await expect(alice.page.locator(".seat[data-seat='1'] .card.back")).to_have_count(5)

    await alice.act("bet", 200)
    await bob.act("call")
    ended = await creator.event("hand_ended", table=table)
    assert ended["stacks"] == {"0": 5300, "1": 4700}
    for player in (alice, bob):
        await expect(player.page.locator(".seat[data-seat='0'] .stack")).to_have_text("5,300")
        await expect(player.page.locator(".seat[data-seat='1'] .stack")).to_have_text("4,700")
        await expect(player.page.locator("#announcements")).to_contain_text(
            "Alice wins 600 with full house, aces full of kings")


async def test_a_seven_card_stud_hand_with_up_cards(live: Live, open_player: OpenPlayer) -> None:
    creator = await host(live)
    table = await create(
        creator, variant="stud7", structure="fixed_limit",
        stakes={"ante": 10, "bring_in": 25, "small_bet": 50, "big_bet": 100}, seats=6,
        settings={"pause": 0.2},
        decks=[deck("Ah", "Qs", "Kh", "Qd", "2c", "9s", "6s", "5h", "9d", "6c", "7h", "3c",
                    "6d", "Th", "4d", "8s", "2d", "Qc")])
    await creator.request("watch", table=table)
    alice, bob = await seat_two(live, open_player, table)

    # Third street: each sees the other's up card face up, the down cards as backs.
    await expect(bob.page.locator(".seat[data-seat='0'] .upcard[data-card='2c']")).to_be_visible()
    await expect(bob.page.locator(".seat[data-seat='0'] .card.back")).to_have_count(2)
    await expect(alice.page.locator(".seat[data-seat='1'] .upcard[data-card='9s']")).to_be_visible()
    await expect(alice.page.locator("#actions [data-act='bring_in']")).to_contain_text("25")
    await alice.act("bring_in")
    await expect(bob.page.locator("#actions [data-act='complete']")).to_contain_text("50")
    await bob.act("complete")
    await alice.act("call")
    # Fourth to seventh street (fixed limit: one size, no slider).
    await expect(bob.page.locator("#actions [data-act='bet']")).to_be_enabled()
    await expect(bob.page.locator("#amount")).to_have_count(0)
    await bob.act("bet")
    await alice.act("call")
    await bob.act("check")
    await alice.act("check")
    await expect(alice.page.locator(".seat[data-seat='1'] .upcard")).to_have_count(4)
    await bob.act("check")
    await alice.act("bet")
    await bob.act("call")
    await bob.act("check")
    await alice.act("bet")
    await bob.act("raise")
    await alice.act("call")

    ended = await creator.event("hand_ended", table=table)
    assert ended["stacks"] == {"0": 4590, "1": 5410}
    for player in (alice, bob):
        await expect(player.page.locator(".seat[data-seat='0'] .stack")).to_have_text("4,590")
        await expect(player.page.locator(".seat[data-seat='1'] .stack")).to_have_text("5,410")
        await expect(player.page.locator("#announcements")).to_contain_text(
            "Bob wins 820 with full house, queens full of nines")


# Caribbean Stud, one player and the dealer (width 2: the player gets deck positions 0, 2, 4,
# 6, 8; the dealer 1, 3, 5, 7, 9, the last face up). Alice holds a flush (a jackpot hand);
# the dealer's ace-king high qualifies.
CSP_PLAYER = ["2h", "5h", "7h", "9h", "Jh"]
CSP_DEALER = ["As", "Kd", "Qs", "7c", "3d"]
CSP_DECK = deck(*(card for pair in zip(CSP_PLAYER, CSP_DEALER, strict=True) for card in pair))


async def test_a_caribbean_stud_round_with_the_jackpot_wager(
        live: Live, open_player: OpenPlayer) -> None:
    jackpot = live.app.registry.jackpot  # type: ignore[attr-defined]
    jackpot.pool = 250_000  # the embedded pool starts empty; a flush pays 5,000 from it
    creator = await host(live)
    meter_client = await open_client(live)  # every connection gets the meter
    table = await create(creator, variant="caribbean", stakes={"min": 100, "max": 1000},
                         seats=5, name="Island", settings={"pause": 0.2}, decks=[CSP_DECK])
    await creator.request("watch", table=table)
    alice = await open_player()
    await alice.goto(live.url)
    await expect(alice.page.locator("#jackpot-pool")).to_have_text("250,000")  # from the lobby
    await alice.hello("Alice")
    await alice.goto(live.url, f"#/table/{table}")
    watcher = await open_player(PHONE)
    await watcher.goto(live.url, f"#/table/{table}/watch")
    await alice.sit(0, 5000)

    # The ante phase: the amount and the jackpot wager.
    ante = alice.page.locator("#actions [data-act='ante']")
    await expect(ante).to_be_enabled()
    await alice.page.fill("#ante-amount", "100")
    await alice.page.check("#jackpot-wager")
    await ante.click()
    # Decision: the dealer's up card is shown, Alice's five cards face up to her only.
    await expect(alice.page.locator(".dealer-hand [data-card='3d']")).to_be_visible()
    await expect(alice.page.locator(".dealer-hand .card.back")).to_have_count(4)
    for card in CSP_PLAYER:
        own = alice.page.locator(f".seat[data-seat='0'] [data-card='{card}']")
        await expect(own).to_be_visible()
    await expect(watcher.page.locator(".seat[data-seat='0'] .card.back")).to_have_count(5)
    await expect(watcher.page.locator(".seat[data-seat='0'] .jp-chip")).to_contain_text("100")
    await expect(alice.page.locator("#actions [data-act='play']")).to_contain_text("200")
    await alice.shot("caribbean-desktop")
    await alice.page.click("#sitout-btn")  # after this round, no other
    await expect(alice.page.locator("#sitout-btn")).to_have_text(OUT_NEXT_HAND)
    await alice.act("play")

    settled = await creator.event("settled", table=table)
    ended = await creator.event("hand_ended", table=table)
    result = settled["results"]["0"]
    assert (result["ante"], result["play"]) == (100, 1000)  # the flush pays 5 to 1
    # CSP-14: the creator watches: Alice's hand is named to her only (her page says flush)
    # nor is her qualifying jackpot hand: the watcher's copy carries no name of it at all
    assert "hand" not in result and not result["jackpot"], result
    final = result["stack"]
    assert ended["stacks"] == {"0": final}
    shown = f"{final:,}"
    await expect(alice.page.locator(".seat[data-seat='0'] .stack")).to_have_text(shown)
    await expect(watcher.page.locator(".seat[data-seat='0'] .stack")).to_have_text(shown)
    # The settlement per seat, the dealer's hand, and the jackpot moment.
    await expect(alice.page.locator("#announcements")).to_contain_text(
        "Alice: ante +100, play +1,000, jackpot ")
    await expect(alice.page.locator("#announcements")).to_contain_text("JACKPOT! Alice hits flush")
    await expect(alice.page.locator(".dealer-hand .label")).to_contain_text("Dealer: ")
    await expect(alice.page.locator("#jackpot-win")).to_contain_text("JACKPOT!")
    # CSP-14: the watcher sees her result, never her hand's name (her cards stay face down)
    await expect(watcher.page.locator("#announcements")).to_contain_text(
        "Alice: ante +100, play +1,000")
    await expect(watcher.page.locator("#announcements")).not_to_contain_text("flush")
    await watcher.shot("caribbean-phone")
    # The meter, in the top bar of every page, follows the server's `jackpot` messages.
    meter = await meter_client.event("jackpot")
    for player in (alice, watcher):
        await expect(player.page.locator("#jackpot-pool")).to_have_text(f"{meter['pool']:,}")
