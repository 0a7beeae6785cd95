"""Issue 24 in the browser: what a person at the table sees when a friend's phone sleeps and
when a friend leaves in the middle of a hand.

* A page closes on its turn: within a second the others' page says "disconnected" on that
  seat, and the table moves on when the action clock (3 s here) runs out, not after the
  60 s time bank too.
* A player clicks "Leave table" while another is to act: their page never offers them an
  action again, their hand is folded the moment the action reaches them (no clock, no
  ``turn``), and when the hand ends their seat is free and their chips are back.

The server is real (test mode, fixed decks); the waits are on what the pages show or on a
protocol client's events, each bounded.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from playwright.async_api import expect

from server.rules.cards import make_deck
from server.table import TableActor
from tests.net.conftest import Client, Live
from tests.web.conftest import PHONE, OpenPlayer, Player, create, host
from tests.web.test_home_game import open_private_game

pytestmark = pytest.mark.browser

FIRST = ["As", "Kc", "Ad", "Kd", "2c", "Ah", "7s", "8d", "3c", "9h", "4c", "Jc"]
DECK = [*FIRST, *(c for c in make_deck(lowest_rank=2) if c not in FIRST)]
CLOCK = 3.0  # the table's action clock (the server's time bank stays 60 s)


async def until(client: Client, kind: str, seat: int, seen: list[dict[str, Any]],
                timeout: float = 15.0) -> dict[str, Any]:
    """The next `kind` event for `seat` on the protocol client; every event before it is
    kept in `seen`."""
    async def wait() -> dict[str, Any]:
        while True:
            message = await client.event_any()
            seen.append(message)
            if message["type"] == kind and message.get("seat") == seat:
                return message
    return await asyncio.wait_for(wait(), timeout)


async def bob_checks(bob: Player, watcher: Client, seen: list[dict[str, Any]]) -> None:
    """Bob clicks Check on his turn (the watcher sees it)."""
    button = bob.page.locator("#actions [data-act='check']")
    await expect(button).to_be_enabled()
    await button.click()
    acted = await until(watcher, "acted", 1, seen)
    assert acted["action"] == "check"


async def seat_at(player: Player, base: str, table: str, name: str, seat: int) -> None:
    await player.goto(base)
    await player.hello(name)
    await player.goto(base, f"#/table/{table}")
    await player.sit(seat, 5000)


async def test_a_closed_page_shows_disconnected_within_a_second_and_the_clock_moves_on(
        live: Live, open_player: OpenPlayer) -> None:
    watcher = await host(live)
    table = await create(watcher, variant="holdem", structure="no_limit",
                         stakes={"blinds": [50, 100]}, seats=6, name="Sleepy phone",
                         settings={"pause": 0.5, "action_clock": CLOCK}, decks=[DECK])
    assert (await watcher.request("watch", table=table))["type"] == "ok"
    alice, bob = await open_player(PHONE), await open_player()
    await seat_at(alice, live.url, table, "Alice", 0)
    await seat_at(bob, live.url, table, "Bob", 1)
    await expect(alice.page.locator("#actions [data-act='call']")).to_be_enabled()  # her turn
    seen: list[dict[str, Any]] = []
    turn = await until(watcher, "turn", 0, seen)
    assert turn["time_bank"] == pytest.approx(60.0)  # she has a whole bank she could use

    closed_at = time.monotonic()
    await alice.context.close()  # the phone sleeps
    badge = bob.page.locator(".seat[data-seat='0'] .badge.offline")
    await expect(badge).to_be_visible(timeout=1000)  # within a second
    assert time.monotonic() - closed_at < 1.0
    await expect(badge).to_have_text("disconnected")
    await expect(bob.page.locator(".seat[data-seat='0']")).to_have_attribute(
        "aria-label", "Seat 1: Alice, disconnected, to act")
    await bob.shot("disconnected-seat")

    folded = await until(watcher, "acted", 0, seen)  # the table moves on with the clock
    waited = time.monotonic() - closed_at
    assert folded["action"] == "fold" and folded["timeout"] is True
    assert waited < CLOCK + 1.5, waited  # not the 60 s bank on top
    assert not [m for m in seen if m["type"] == "turn" and m.get("in_bank")]
    assert [m["online"] for m in seen if m["type"] == "presence"] == [False]
    await expect(bob.page.locator(".seat[data-seat='1'] .stack")).to_have_text("5,050")
    actor = live.app.registry.get(table)
    assert isinstance(actor, TableActor)
    st = actor.seats[0]
    assert st is not None and st.bank == pytest.approx(60.0)  # her bank untouched


async def test_leave_mid_hand_folds_at_the_players_turn_without_a_clock(
        live: Live, open_player: OpenPlayer) -> None:
    watcher = await host(live)
    table = await create(watcher, variant="holdem", structure="no_limit",
                         stakes={"blinds": [50, 100]}, seats=3, name="Early night",
                         settings={"pause": 60, "action_clock": 60}, decks=[DECK])
    assert (await watcher.request("watch", table=table))["type"] == "ok"
    alice, bob = await open_player(), await open_player()
    await seat_at(alice, live.url, table, "Alice", 0)
    await seat_at(bob, live.url, table, "Bob", 1)
    carol = await host(live, "Carol")
    assert (await carol.request("sit", table=table, seat=2, buy_in=5000))["type"] == "ok"
    # the table's pause before a hand is a minute: deal this one now, all three seated
    actor = live.app.registry.get(table)
    assert isinstance(actor, TableActor)
    actor.call(actor.dealer.start)
    seen: list[dict[str, Any]] = []
    await until(watcher, "turn", 2, seen)  # Carol, on the button, acts first
    # Alice (the small blind, to act after Carol) leaves now, before her turn
    await alice.page.click("#leave-btn")
    await expect(alice.page.locator("#banner")).to_contain_text("Your hand is folded")
    started = time.monotonic()
    assert (await carol.request("act", table=table, action="call"))["type"] == "ok"
    folded = await until(watcher, "acted", 0, seen)  # at her turn, at once
    assert folded["action"] == "fold" and "timeout" not in folded
    assert time.monotonic() - started < 2.0  # nobody waited on a 60 s clock
    assert not [m for m in seen if m["type"] == "turn" and m["seat"] == 0]  # never asked
    await expect(alice.page.locator("#actions [data-act]")).to_have_count(0)
    await expect(bob.page.locator(".seat[data-seat='0']")).to_contain_text("Folded")
    await expect(bob.page.locator("#actions [data-act='check']")).to_be_enabled()
    await bob.shot("leave-mid-hand")
    # Bob and Carol play the hand out (checks); then Alice's seat is free, her chips back
    await bob_checks(bob, watcher, seen)
    for _ in range(3):  # flop, turn, river: Bob (the big blind) first, then Carol
        await until(watcher, "turn", 1, seen)
        await bob_checks(bob, watcher, seen)
        await until(watcher, "turn", 2, seen)
        assert (await carol.request("act", table=table, action="check"))["type"] == "ok"
    await until(watcher, "left", 0, seen)
    assert not [m for m in seen if m["type"] == "turn" and m["seat"] == 0]
    await expect(bob.page.locator(".seat.empty-seat[data-seat='0']")).to_have_count(1)
    await expect(alice.page.locator("#me .balance")).to_have_text("9,950")  # 10,000 - 50
    assert live.app.wallet.total() + actor.seats.chips() == 4 * 10_000


async def ask_for_seat(friend: Player, link: str, name: str, seat: int) -> None:
    """A friend opens the invite link, says hello and asks for ``seat``."""
    await friend.page.goto(link)
    await expect(friend.page.locator("body[data-ready='1']")).to_have_count(1)
    await friend.page.fill("#table-hello-name", name)
    await friend.page.click("#table-hello button[type='submit']")
    await expect(friend.page.locator("#me .who")).to_have_text(name)
    await friend.page.click(f"[data-sit='{seat}']")
    await friend.page.fill("#buy-in", "4000")
    await friend.page.click("#sit-confirm")
    await expect(friend.page.locator("#home-note")).to_have_text(
        "Waiting for the host to let you in\u2026")


async def test_two_friends_ask_for_one_seat_and_the_second_request_updates_itself(
        live: Live, open_player: OpenPlayer) -> None:
    """Bob and Cat both ask for seat 2. Ann approves Bob; Cat's request, still waiting, now
    says seat 2 was taken and where Approve seats her; Ann approves it and Cat sits there."""
    ann = await open_player()
    await ann.context.grant_permissions(["clipboard-read", "clipboard-write"])
    await ann.goto(live.url)
    await ann.hello("Ann")
    _, link = await open_private_game(ann)
    await ann.sit(0, 5000)
    await ann.page.click("#host-game [data-host='pause']")
    bob, cat = await open_player(), await open_player()
    await ask_for_seat(bob, link, "Bob", 1)
    await ask_for_seat(cat, link, "Cat", 1)
    bobs = ann.page.locator(".seat-request", has_text="Bob")
    cats = ann.page.locator(".seat-request", has_text="Cat")
    for request in (bobs, cats):
        await expect(request).to_contain_text("asks to sit at seat 2 with 4,000.")
    await bobs.get_by_role("button", name="Approve Bob").click()
    await expect(bob.page.locator(".seat.me[data-seat='1']")).to_have_count(1)
    await expect(bobs).to_have_count(0)
    await expect(cats).to_contain_text(
        "Seat 2 was taken meanwhile: Approve seats Cat at seat 3.")
    await ann.shot("seat-request-taken")
    await cats.get_by_role("button", name="Approve Cat").click()
    await expect(cat.page.locator(".seat.me[data-seat='2']")).to_have_count(1)
    await expect(cats).to_have_count(0)
    await expect(ann.page.locator("#banner")).to_be_hidden()  # no "Someone just took that seat"


async def test_same_names_are_told_apart_and_hands_count_from_one(
        live: Live, open_player: OpenPlayer) -> None:
    """Two tables named "Friday": the lobby shows "Friday" and "Friday (2)". A new table's
    first hand is #1 in the page's hand log, however many hands the room has played."""
    owner = await host(live)
    other = await create(owner, variant="holdem", structure="no_limit",
                         stakes={"blinds": [50, 100]}, seats=6, name="Friday",
                         settings={"pause": 0.5})
    second = await create(owner, variant="holdem", structure="no_limit",
                          stakes={"blinds": [50, 100]}, seats=6, name="Friday",
                          settings={"pause": 60}, decks=[DECK])
    for seat, name in ((0, "P0"), (1, "P1")):  # hands played elsewhere first
        client = await host(live, name)
        assert (await client.request("sit", table=other, seat=seat, buy_in=5000))["type"] == "ok"
    assert (await owner.request("watch", table=other))["type"] == "ok"
    await owner.event("hand_started", table=other)
    alice = await open_player()
    await alice.goto(live.url)
    await alice.hello("Alice")
    rows = alice.page.locator("#lobby tr[data-table]")
    await expect(alice.page.locator(f"tr[data-table='{other}']")).to_contain_text("Friday")
    await expect(alice.page.locator(f"tr[data-table='{second}']")).to_contain_text("Friday (2)")
    assert await rows.count() == 2
    await alice.page.locator(f"tr[data-table='{second}']").get_by_role("link", name="Join").click()
    await expect(alice.page.locator("#table-title")).to_have_text("Friday (2)")
    await alice.sit(0, 5000)
    bob = await host(live, "Bob")
    assert (await bob.request("sit", table=second, seat=1, buy_in=5000))["type"] == "ok"
    actor = live.app.registry.get(second)
    assert isinstance(actor, TableActor)
    actor.call(actor.dealer.start)  # (the table's pause is a minute)
    started = await bob.event("hand_started", table=second)
    assert started["number"] == 1 and started["hand"] != f"{second}.1"  # the id: the room's
    await alice.page.locator("summary", has_text="This hand").click()
    await expect(alice.page.locator("#hand-log")).to_contain_text("Hand #1 starts")
