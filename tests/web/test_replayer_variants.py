"""The hand replayer on a Caribbean Stud hand and a Seven Card Stud hand: Alice (a browser page)
opens each from her history and steps through it to the end; in every frame the drawn table
shows her own cards, the dealer's once revealed (never before), and nobody else's face-down card.

Bob is the test's protocol client (he plays by requests); nothing sleeps.
"""

from __future__ import annotations

import re
from collections.abc import Set
from typing import Any

import pytest
from playwright.async_api import Page, expect

from tests.net.conftest import Client, Live
from tests.web.conftest import SCREENSHOTS, OpenPlayer, create, host
from tests.web.test_every_variant import forms, own_down_cards, play_turn
from tests.web.test_room import seated_player

pytestmark = pytest.mark.browser


async def open_replay(page: Page) -> int:
    """Open the last hand of the history in the replayer; the number of steps."""
    await page.click("#history-panel summary")
    replay = page.get_by_role("button", name=re.compile(r"^Replay hand #"))
    await expect(replay.first).to_be_visible(timeout=15_000)
    await replay.first.click()
    await expect(page.locator("#replayer")).to_be_visible()
    text = await page.locator("#replay-step").inner_text()
    match = re.search(r"step 1 of (\d+)", text)
    assert match, text
    return int(match.group(1))


def absent(html: str, cards: Set[str]) -> list[str]:
    """The cards of `cards` that `html` shows, in any spelling."""
    return [c for c in cards for f in forms(c) if f in html]


async def walk(page: Page, steps: int, hidden: Set[str], *,
               dealer_hidden: frozenset[str] = frozenset()) -> str:
    """Step from the first frame to the last; no frame shows a card of `hidden`, nor one of
    `dealer_hidden` before the dealer's hand is named. Returns the last frame's felt HTML."""
    felt = page.locator("#replay-felt")
    html = ""
    for i in range(1, steps + 1):
        if i > 1:
            await page.get_by_role("button", name="Step forward").click()
        await expect(page.locator("#replay-step")).to_contain_text(f"step {i} of {steps}")
        html = await felt.inner_html()
        assert not absent(html, hidden), (i, absent(html, hidden))
        if dealer_hidden and absent(html, dealer_hidden):
            label = await felt.locator(".dealer-hand .label").inner_text()
            assert label.startswith("Dealer: "), (i, label, absent(html, dealer_hidden),
                                                  "the dealer's cards before the reveal")
    await expect(page.get_by_role("button", name="Step forward")).to_be_disabled()
    return html


async def test_replay_a_caribbean_hand_to_the_end(live: Live, open_player: OpenPlayer) -> None:
    bob = await host(live, "Bob")
    table = await create(bob, variant="caribbean", stakes={"min": 100, "max": 1000}, seats=5,
                         name="Island", settings={"pause": 0.2})
    await bob.request("watch", table=table)
    alice = await seated_player(live, open_player, table, "Alice", 0)
    page = alice.page
    await page.click("#actions [data-act='fold']")  # the round she sat into was hers alone
    await bob.event("hand_ended", table=table)
    assert (await bob.request("sit", table=table, seat=1, buy_in=5000))["type"] == "ok"
    await expect(page.locator("#actions [data-act='ante']")).to_be_enabled(timeout=15_000)
    bob_cards: set[str] = set()
    dealer: list[str] = []
    dealer_up: set[str] = set()
    await page.click("#actions [data-act='ante']")
    await page.click("#sitout-btn")  # one round only
    assert (await bob.request("act", table=table, action="ante", amount=100))["type"] == "ok"
    await expect(page.locator("#actions [data-act='play']")).to_be_enabled()
    mine = await own_down_cards_any(page)
    await page.click("#actions [data-act='play']")
    played = False
    while True:
        e: dict[str, Any] = await bob.event_any()
        if e.get("table") != table:
            continue
        if e["type"] == "dealt" and e["seat"] == 1:
            bob_cards |= {c for c in e["cards"] + e["up"] if c}
        if e["type"] == "turn" and e["seat"] == 1 and not played and bob_cards:
            played = True
            assert (await bob.request("act", table=table, action="play"))["type"] == "ok"
        if e["type"] == "dealer" and not e.get("hand"):  # the up card, the others face down
            dealer_up = {c for c in e["cards"] if c}
        if e["type"] == "dealer" and e.get("hand"):
            dealer = list(e["cards"])
        if e["type"] == "hand_ended":
            break
    assert len(bob_cards) == 5 and len(dealer) == 5 and len(dealer_up) == 1, (bob_cards, dealer)
    steps = await open_replay(page)
    html = await walk(page, steps, bob_cards, dealer_hidden=frozenset(dealer) - dealer_up)
    felt = page.locator("#replay-felt")
    for card in mine:  # her own five, face up for her
        await expect(felt.locator(f".seat[data-seat='0'] [data-card='{card}']")).to_be_visible()
    for card in dealer:  # the dealer's five after the reveal
        await expect(felt.locator(f".dealer-hand [data-card='{card}']")).to_be_visible()
    await expect(felt.locator(".dealer-hand .label")).to_contain_text("Dealer: ")
    step = await page.locator("#replay-step").inner_text()
    assert "Alice: ante " in step and "jackpot 0" not in step, step  # no wager: no jackpot word
    assert "data-seat=\"1\"" in html
    await page.screenshot(path=str(SCREENSHOTS / "replayer-caribbean.png"), animations="disabled")


async def own_down_cards_any(page: Page) -> set[str]:
    """My cards as my page shows them (Caribbean Stud: all five face down, mine to see)."""
    found: list[str] = await page.evaluate("""() => [...document.querySelectorAll(
        ".seat.me .card[data-card]")].map((c) => c.dataset.card)""")
    return set(found)


async def play_stud_hand(bob: Client, table: str,
                         alice: Any) -> tuple[set[str], set[str], set[str]]:
    """Bob (seat 1) calls along and folds on fifth street; Alice plays from her page.
    Returns (Alice's down cards, Bob's down cards, Bob's up cards)."""
    bob_down: set[str] = set()
    bob_up: set[str] = set()
    mine: set[str] = set()
    while True:
        e = await bob.event_any()
        if e.get("table") != table:
            continue
        if e["type"] == "dealt" and e["seat"] == 1:
            bob_down |= {c for c in e["cards"] if c}
            bob_up |= set(e["up"])
        if e["type"] == "turn" and e["seat"] == 0:
            mine |= await own_down_cards(alice)
            await play_turn(alice)
        if e["type"] == "turn" and e["seat"] == 1:
            options = e.get("options") or {}
            if len(bob_up) >= 3 and options.get("fold"):
                action: dict[str, Any] = {"action": "fold"}
            elif options.get("check"):
                action = {"action": "check"}
            elif options.get("bring_in"):
                action = {"action": "bring_in"}
            else:
                action = {"action": "call"}
            assert (await bob.request("act", table=table, **action))["type"] == "ok", (options, e)
        if e["type"] == "hand_ended":
            return mine, bob_down, bob_up


async def test_replay_a_stud_hand_to_the_end(live: Live, open_player: OpenPlayer) -> None:
    bob = await host(live, "Bob")
    table = await create(bob, variant="stud7", structure="fixed_limit", seats=4, name="Stud hall",
                         stakes={"ante": 10, "bring_in": 25, "small_bet": 50, "big_bet": 100},
                         settings={"pause": 0.2})
    await bob.request("watch", table=table)
    alice = await seated_player(live, open_player, table, "Alice", 0)
    page = alice.page
    assert (await bob.request("sit", table=table, seat=1, buy_in=5000))["type"] == "ok"
    await expect(page.locator(".seat.me .card").first).to_be_visible(timeout=15_000)
    await page.click("#sitout-btn")  # one hand only
    mine, bob_down, bob_up = await play_stud_hand(bob, table, alice)
    assert len(bob_down) == 2 and len(bob_up) >= 3, (bob_down, bob_up)
    assert len(mine) >= 2, mine
    steps = await open_replay(page)
    await walk(page, steps, bob_down)
    felt = page.locator("#replay-felt")
    for card in mine:  # her own face-down cards, hers to see
        await expect(felt.locator(f".seat[data-seat='0'] [data-card='{card}']")).to_be_visible()
    for card in bob_up:  # Bob's face-up cards, everyone's to see
        await expect(felt.locator(f".seat[data-seat='1'] [data-card='{card}']")).to_be_visible()
    await page.screenshot(path=str(SCREENSHOTS / "replayer-stud7.png"), animations="disabled")
