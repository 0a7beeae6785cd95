"""BLIND-04 in the browser: at a Draw table with the over blind on, the player left of the
big blind is asked before the deal, on a phone: two buttons, the one that posts it showing the
amount. Alice (the page, seat 2, the first button) posts it; the next hand Bob (a protocol
client) declines and Alice's page says so. Fixed decks, test mode; every wait is on the page
or on a frame.
"""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from server.rules.cards import make_deck
from tests.net.conftest import Client, Live, open_client
from tests.web.conftest import PHONE, OpenPlayer, create, host

pytestmark = pytest.mark.browser


async def guest(live: Live, name: str) -> Client:
    client = await open_client(live)
    await client.hello(name)
    return client


async def sit(client: Client, table: str, seat: int) -> None:
    answer = await client.request("sit", table=table, seat=seat, buy_in=5000)
    assert answer["type"] == "ok", answer


async def fold(client: Client, table: str, seat: int) -> None:
    await client.event("turn", table=table, seat=seat)
    answer = await client.request("act", table=table, action="fold")
    assert answer["type"] == "ok", answer


async def test_blind04_the_over_blind_in_the_page(live: Live, open_player: OpenPlayer) -> None:
    creator = await host(live)
    cards = make_deck()
    table = await create(creator, variant="draw", structure="pot_limit",
                         stakes={"blinds": [50, 100]}, seats=6, decks=[cards, cards[::-1]],
                         settings={"pause": 1.0, "over_blind": True, "over_blind_clock": 30})
    await creator.request("watch", table=table)
    alice = await open_player(viewport=PHONE)
    await alice.goto(live.url)
    await alice.hello("Alice")
    await alice.goto(live.url, f"#/table/{table}")
    bob, carol = await guest(live, "Bob"), await guest(live, "Carol")
    await sit(bob, table, 0)
    await sit(carol, table, 1)
    await alice.sit(2, 5000)

    # Hand 1: the button is seat 2 (Alice): blinds 50 (Bob) and 100 (Carol), then Alice is
    # asked, before any card is dealt
    post = alice.page.locator("#actions [data-act='over_blind']")
    await expect(post).to_have_text("Post over blind 200 O")
    await expect(alice.page.locator("#actions [data-act='decline']")).to_be_visible()
    await expect(alice.page.locator("#actions [data-act='fold']")).to_have_count(0)
    await expect(alice.page.locator(".seat[data-seat='2'] .card")).to_have_count(0)
    await alice.shot("draw-over-blind-phone")
    width = await alice.page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"], "the question fits the phone"
    await alice.act("over_blind")
    posted = await creator.event("posted", table=table, seat=2)
    assert (posted["kind"], posted["amount"]) == ("over_blind", 200)
    await expect(alice.page.locator(".seat[data-seat='2'] .card")).to_have_count(5)
    # the first round starts left of the over blind: Bob, facing 200; both fold
    await fold(bob, table, 0)
    await fold(carol, table, 1)
    ended = await creator.event("hand_ended", table=table)
    assert ended["stacks"] == {"0": 4950, "1": 4900, "2": 5150}
    await expect(alice.page.locator(".seat[data-seat='2'] .stack")).to_have_text("5,150")

    # Hand 2: the button moves to Bob (seat 0), the blinds are Carol and Alice: Bob is asked
    turn = await bob.event("turn", table=table, seat=0)
    assert turn["options"]["over_blind"] == 200
    answer = await bob.request("act", table=table, action="decline")
    assert answer["type"] == "ok", answer
    await expect(alice.page.locator("#hand-log")).to_contain_text("Bob declines the over blind")
    await fold(bob, table, 0)  # left of the big blind: Bob opens, facing 100
    await fold(carol, table, 1)
    ended = await creator.event("hand_ended", table=table)
    assert ended["stacks"] == {"0": 4950, "1": 4850, "2": 5200}
    await expect(alice.page.locator(".seat[data-seat='2'] .stack")).to_have_text("5,200")
