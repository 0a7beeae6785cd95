"""The finishing pass of issue 15, as a player would judge it: a Caribbean table's clocks after
a reload (every seat still to decide, on every page), the create form's hints, and a home game
whose host hands the role on while a friend's seat request waits.

Nothing sleeps: every wait is on the page (Playwright's `expect`) or on a protocol message.
"""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Page, expect

from tests.net.conftest import Live
from tests.web.conftest import OpenPlayer, create, host
from tests.web.test_home_game import friend_joins, open_private_game
from tests.web.test_room import seated_player

pytestmark = pytest.mark.browser


async def clocks(page: Page) -> dict[int, int]:
    """Seconds left on each seat's clock, as the page shows them."""
    shown: list[list[int]] = await page.evaluate("""() => [...document.querySelectorAll(
        '#felt .seat[data-seat]')].filter((s) => s.querySelector('.clock .secs'))
        .map((s) => [Number(s.dataset.seat),
                     parseInt(s.querySelector('.clock .secs').textContent, 10)])""")
    return {seat: secs for seat, secs in shown}


async def expect_clocks(page: Page, seats: list[int]) -> None:
    """Exactly these seats show a running clock (whole seconds, never 0s)."""
    await expect(page.locator("#felt .seat .clock")).to_have_count(len(seats))
    for seat in seats:
        await expect(page.locator(f"#felt .seat[data-seat='{seat}'] .clock .secs")).to_have_text(
            re.compile(r"^[1-9]\d*s$"))
    assert sorted(await clocks(page)) == seats


async def test_caribbean_clocks_after_a_reload_for_every_player(
        live: Live, open_player: OpenPlayer) -> None:
    creator = await host(live)
    table = await create(creator, variant="caribbean", stakes={"min": 100, "max": 1000}, seats=5,
                         name="Island", settings={"pause": 0.2, "ante_time": 120,
                                                  "action_clock": 120})
    await creator.request("watch", table=table)
    alice = await seated_player(live, open_player, table, "Alice", 0)
    bob = await seated_player(live, open_player, table, "Bob", 1)
    await alice.page.click("#actions [data-act='fold']")  # the round she sat into was hers alone
    await creator.event("hand_ended", table=table)
    for player in (alice, bob):
        await expect(player.page.locator("#actions [data-act='ante']")).to_be_enabled()
    # The ante phase: Bob reloads; both seats' clocks come back, not 0, on his page and hers.
    await bob.page.reload()
    await expect(bob.page.locator("body[data-ready='1']")).to_have_count(1)
    await expect(bob.page.locator("#actions [data-act='ante']")).to_be_enabled()
    await expect_clocks(bob.page, [0, 1])
    await expect_clocks(alice.page, [0, 1])
    # A spectator who arrives now sees both clocks too.
    watcher = await open_player()
    await watcher.goto(live.url, f"#/table/{table}/watch")
    await expect_clocks(watcher.page, [0, 1])
    # Alice antes: her clock stops everywhere; Bob's runs on.
    await alice.page.click("#actions [data-act='ante']")
    await expect_clocks(bob.page, [1])
    await bob.page.click("#actions [data-act='ante']")
    # The decision phase: Alice reloads; both clocks again, on every page.
    for player in (alice, bob):
        await expect(player.page.locator("#actions [data-act='play']")).to_be_enabled()
    await alice.page.reload()
    await expect(alice.page.locator("body[data-ready='1']")).to_have_count(1)
    await expect(alice.page.locator("#actions [data-act='play']")).to_be_enabled()
    for player in (alice, bob, watcher):
        await expect_clocks(player.page, [0, 1])
    await bob.page.click("#actions [data-act='play']")
    await expect_clocks(alice.page, [0])
    await alice.page.click("#actions [data-act='fold']")
    await creator.event("settled", table=table)


async def test_the_create_form_offers_only_valid_tables(
        live: Live, open_player: OpenPlayer) -> None:
    player = await open_player()
    await player.goto(live.url)
    await player.hello("Dora")
    page = player.page
    form = page.locator("#create-form")
    # Seats follow the game's maximum (GEN-07): Five Card Draw seats 8, Caribbean Stud 9.
    await page.fill("#create-form [name='seats']", "10")
    await page.select_option("#create-variant", "draw")
    assert await form.locator("[name='seats']").input_value() == "8"
    assert await form.locator("[name='seats']").get_attribute("max") == "8"
    await page.select_option("#create-variant", "caribbean")
    assert await form.locator("[name='seats']").get_attribute("max") == "9"
    await page.fill("#create-form [name='seats']", "12")
    await expect(page.locator("#problem-seats")).to_have_text("This game seats 1 to 9 players.")
    await expect(page.locator("#create-btn")).to_be_disabled()
    await page.fill("#create-form [name='seats']", "6")
    await page.fill("#create-form [name='max']", "50")
    await expect(page.locator("#problem-max")).to_have_text(
        "The max ante must be at least the min ante.")
    await page.fill("#create-form [name='max']", "1000")
    await expect(page.locator("#create-btn")).to_be_enabled()
    # Hold'em: the buy-in limits show the server's defaults and are checked against each other.
    await page.select_option("#create-variant", "holdem")
    await page.select_option("#create-structure", "no_limit")
    await expect(form.locator("[name='min_buy_in']")).to_have_attribute("placeholder", "2,000")
    await expect(form.locator("[name='max_buy_in']")).to_have_attribute("placeholder", "10,000")
    await page.fill("#create-form [name='min_buy_in']", "12000")
    await expect(page.locator("#problem-min_buy_in")).to_contain_text(
        "must not be more than the maximum (10,000)")
    await expect(page.locator("#create-btn")).to_be_disabled()
    await page.fill("#create-form [name='max_buy_in']", "20000")
    await expect(page.locator("#problem-min_buy_in")).to_be_hidden()
    # The pause between hands is offered (the server's 3 s by default) and reaches the table.
    assert await form.locator("[name='pause']").input_value() == "3"
    await page.fill("#create-form [name='pause']", "6")
    await page.fill("#create-form [name='name']", "Slow and steady")
    await page.click("#create-btn")
    await expect(page.locator("[data-sit='0']")).to_be_visible()
    watcher = await host(live, "Watcher")
    listed = (await watcher.request("tables"))["tables"]
    mine = next(t for t in listed if t["name"] == "Slow and steady")
    assert (await watcher.request("watch", table=mine["table"]))["type"] == "ok"
    snap = await watcher.event("snapshot")
    assert snap["settings"] == {"pause": 6, "min_buy_in": 12000, "max_buy_in": 20000}, snap


async def test_a_host_hands_the_role_on_while_a_request_waits(
        live: Live, open_player: OpenPlayer) -> None:
    ann = await open_player()
    await ann.context.grant_permissions(["clipboard-read", "clipboard-write"])
    await ann.goto(live.url)
    await ann.hello("Ann")
    table, link = await open_private_game(ann)
    code = link.split("code=")[1]
    observer = await host(live, "Observer")
    assert (await observer.request("watch", table=table, code=code))["type"] == "ok"
    await observer.event("snapshot")
    await ann.sit(0, 5000)
    await ann.page.click("#host-game [data-host='pause']")
    bob = await open_player()
    await friend_joins(ann, bob, link, "Bob", 1, observer)
    # Everyone sees who hosts, and the host's seat is marked on the felt.
    for page in (ann.page, bob.page):
        await expect(page.locator(".seat[data-seat='0'] .host-badge")).to_have_text("Host")
    await expect(bob.page.locator("#home-status")).to_contain_text("hosted by Ann")
    # Cat asks for seat 3: her felt says "Requested" there while the host decides.
    cat = await open_player()
    await cat.page.goto(link)
    await expect(cat.page.locator("body[data-ready='1']")).to_have_count(1)
    await cat.page.fill("#table-hello-name", "Cat")
    await cat.page.click("#table-hello button[type='submit']")
    await expect(cat.page.locator("#me .who")).to_have_text("Cat")
    await cat.page.click("[data-sit='2']")
    await cat.page.fill("#buy-in", "4000")
    await cat.page.click("#sit-confirm")
    requested = cat.page.locator(".seat[data-seat='2'] .requested-label")
    await expect(requested).to_have_text("Requested")
    await expect(cat.page.locator("[data-sit='2']")).to_have_count(0)
    await expect(cat.page.locator("[data-sit='3']")).to_be_visible()
    await expect(ann.page.locator(".seat-request", has_text="Cat")).to_be_visible()
    # Nobody else's felt says Requested.
    for page in (ann.page, bob.page):
        await expect(page.locator(".requested-label")).to_have_count(0)
    # Ann hands the host role to Bob.
    await ann.page.get_by_role("button", name="Make host Bob").click()
    await ann.page.click("#host-confirm [data-confirm='yes']")
    await expect(bob.page.locator("#home-note")).to_have_text(
        "You are now the host. Your host controls are open.")
    await expect(bob.page.locator("#host-panel")).to_be_visible()
    await expect(bob.page.locator("#home-status")).to_contain_text("you are the host")
    await expect(ann.page.locator("#home-note")).to_have_text("Bob is now the host.")
    await expect(ann.page.locator("#host-panel")).to_be_hidden()
    await expect(ann.page.locator("#home-status")).to_contain_text("hosted by Bob")
    await expect(cat.page.locator("#home-status")).to_contain_text("hosted by Bob")
    for page in (ann.page, bob.page, cat.page):
        await expect(page.locator(".seat[data-seat='1'] .host-badge")).to_have_text("Host")
        await expect(page.locator(".host-badge")).to_have_count(1)
    await bob.shot("home-game-new-host")
    await observer.ws.close()
