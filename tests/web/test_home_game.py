"""A home game in the browser, from the first click to the CSV (issue 16, the host's half):
the host opens a private table from the lobby's form and copies the invite link; two friends
open it in their own browsers, ask to sit and are approved from the host's notifications; a
stranger without the code sees the private-game message and no cards; the host changes the
blinds and the next hand posts them; the host removes a player; the host closes the game and
downloads the session ledger as CSV, whose net column sums to zero. Screenshots of the host
panel at 1280x800 and 390x844 (no horizontal scroll, 44 px targets there).

Nothing sleeps: every wait is on the page (Playwright's `expect`) or on a protocol message of
an observer that watches the table with the invite code.
"""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from playwright.async_api import Page, ViewportSize, expect

from tests.net.conftest import TIMEOUT, Client, Live
from tests.web.conftest import SCREENSHOTS, OpenPlayer, Player, create, host

pytestmark = pytest.mark.browser

PHONE_390: ViewportSize = {"width": 390, "height": 844}


async def open_private_game(ann: Player) -> tuple[str, str]:
    """Ann opens a private Hold'em table from the lobby's form; (table id, invite link)."""
    page = ann.page
    await page.select_option("#create-variant", "holdem")
    await page.select_option("#create-structure", "no_limit")
    await page.check("#create-private")
    await expect(page.locator("#home-settings")).to_be_visible()
    await expect(page.locator("#home-settings [name='approve_seats']")).to_be_checked()
    await page.fill("#home-settings [name='action_clock']", "60")
    await page.click("#create-btn")
    await expect(page.locator("#host-panel")).to_be_visible()
    table = page.url.split("#/table/")[1].split("?")[0]
    await page.click("#host-copy")
    await expect(page.locator("#host-copied")).to_contain_text("Copied")
    link: str = await page.evaluate("() => navigator.clipboard.readText()")
    assert link == await page.locator("#host-link").input_value()
    assert f"#/table/{table}?code=" in link, link
    return table, link


async def friend_joins(ann: Player, friend: Player, link: str, name: str, seat: int,
                       observer: Client) -> None:
    """A friend opens the link, joins as a guest, asks for a seat; Ann approves it from the
    notification."""
    await friend.page.goto(link)
    await expect(friend.page.locator("body[data-ready='1']")).to_have_count(1)
    await expect(friend.page.locator("#home-status")).to_contain_text("hosted by Ann")
    await friend.page.fill("#table-hello-name", name)
    await friend.page.click("#table-hello button[type='submit']")
    await expect(friend.page.locator("#me .who")).to_have_text(name)
    await friend.page.click(f"[data-sit='{seat}']")
    await friend.page.fill("#buy-in", "4000")
    await friend.page.click("#sit-confirm")
    await expect(friend.page.locator("#home-note")).to_have_text(
        "Waiting for the host to let you in\u2026")
    request = ann.page.locator(".seat-request", has_text=name)
    await expect(request).to_contain_text(f"asks to sit at seat {seat + 1} with 4,000")
    if name == "Cat":  # the host panel with a seat request waiting, as the host sees it
        await expect(ann.page.locator("#host-ledger")).to_contain_text("Bob")
        await ann.shot("home-game-host-desktop")
    await request.get_by_role("button", name=f"Approve {name}").click()
    await expect(friend.page.locator(f".seat.me[data-seat='{seat}']")).to_have_count(1)
    await expect(friend.page.locator("#home-note")).to_be_empty()
    await expect(request).to_have_count(0)
    await observer.event("seated", seat=seat)


async def play_hand(pages: dict[int, Page], observer: Client) -> dict[int, int]:
    """Every seat plays the hand under way to its end (check when it may, else call once the
    blinds are posted, else fold); returns the blinds posted (seat -> chips)."""
    posted: dict[int, int] = {}
    while True:
        e = await observer.event_any()
        if e["type"] == "posted":
            posted[e["seat"]] = e["amount"]
        elif e["type"] == "turn" and e["seat"] in pages:
            page = pages[e["seat"]]
            check = page.locator("#actions [data-act='check']")
            fold = page.locator("#actions [data-act='fold']")
            await expect(check.or_(fold).first).to_be_enabled(timeout=TIMEOUT * 1000)
            await (check if await check.count() else fold).click()
        elif e["type"] == "hand_ended":
            return posted


async def phone_checks(page: Page) -> None:
    """At 390x844: no horizontal scroll, and every control of the host panel and of the seat
    requests is at least 44 px tall."""
    await page.set_viewport_size(PHONE_390)
    await expect(page.locator("#host-panel")).to_be_visible()
    wide = await page.evaluate("() => document.documentElement.scrollWidth - innerWidth")
    assert wide <= 0, f"the page scrolls sideways by {wide}px"
    small: list[Any] = await page.evaluate("""() => [...document.querySelectorAll(
        '#host-panel button, #host-panel input, #host-panel summary, .seat-request button')]
        .filter((el) => el.offsetParent !== null)
        .map((el) => el.type === "checkbox" ? el.closest("label") : el)
        .map((el) => [el.id || el.getAttribute("name") || el.textContent.trim(),
                      el.getBoundingClientRect().height])
        .filter(([, h]) => h < 44)""")
    assert small == [], small


async def test_a_home_game_from_the_first_click_to_the_csv(
        live: Live, open_player: OpenPlayer) -> None:
    ann = await open_player()
    await ann.context.grant_permissions(["clipboard-read", "clipboard-write"])
    await ann.goto(live.url)
    await ann.hello("Ann")
    table, link = await open_private_game(ann)
    code = link.split("code=")[1]
    # the table is not in the lobby list
    observer = await host(live, "Observer")
    listed = await observer.request("tables")
    assert table not in [t["table"] for t in listed["tables"]]
    assert (await observer.request("watch", table=table, code=code))["type"] == "ok"
    await observer.event("snapshot")
    # Ann sits and holds the game until her friends are in
    await ann.sit(0, 5000)
    await ann.page.click("#host-game [data-host='pause']")
    await expect(ann.page.locator("#host-game")).to_contain_text(
        "Paused: the next hand waits for the host")
    bob, cat = await open_player(), await open_player()
    await friend_joins(ann, bob, link, "Bob", 1, observer)
    await expect(bob.page.locator("#home-status")).to_contain_text("Paused by the host")
    await friend_joins(ann, cat, link, "Cat", 2, observer)
    # a stranger without the code: the private-game message, no table, no cards
    eve = await open_player()
    await eve.goto(live.url, f"#/table/{table}")
    await expect(eve.page.locator("#private-gate")).to_be_visible()
    await expect(eve.page.locator("#private-gate")).to_contain_text(
        "Ask the host for the invite link")
    await expect(eve.page.locator("#table-main")).to_be_hidden()
    assert await eve.page.locator(".card").count() == 0
    # the first hand at 50/100; meanwhile the host raises the blinds from the next hand
    await ann.page.click("#host-game [data-host='resume']")
    await observer.event("hand_started")
    await ann.page.click("#host-game [data-host='pause']")  # the running hand plays on
    await ann.page.fill("#host-change [name='sb']", "100")
    await ann.page.fill("#host-change [name='bb']", "200")
    await ann.page.click("#host-apply")
    await expect(ann.page.locator("#host-pending")).to_contain_text(
        "From the next hand: 100/200")
    pages = {0: ann.page, 1: bob.page, 2: cat.page}
    first = await play_hand(pages, observer)
    assert sorted(first.values()) == [50, 100], first
    # the ledger is refreshed after the hand; the phone layout of the panel
    await expect(ann.page.locator("#host-ledger")).to_contain_text("Cat")
    await expect(ann.page.locator("#host-ledger td.net.up")).to_have_count(1)  # the winner's +
    await phone_checks(ann.page)
    await ann.shot("home-game-host-phone")
    await ann.page.set_viewport_size({"width": 1280, "height": 800})
    # between hands the host removes Cat (after a confirmation)
    await ann.page.get_by_role("button", name="Remove Cat").click()
    await expect(ann.page.locator("#host-confirm")).to_contain_text("leave at the end of the hand")
    await ann.page.click("#host-confirm [data-confirm='yes']")
    await observer.event("left", seat=2)
    await expect(cat.page.locator("#home-note")).to_contain_text("The host removed you")
    await expect(cat.page.locator(".seat.me")).to_have_count(0)
    # the next hand posts the new blinds
    await ann.page.click("#host-game [data-host='resume']")
    second = await play_hand({0: ann.page, 1: bob.page}, observer)
    assert sorted(second.values()) == [100, 200], second
    await expect(ann.page.locator("#table-meta")).to_contain_text("100/200")
    # the host closes the game and downloads the evening's CSV
    await ann.page.click("#host-game [data-host='pause']")
    await ann.page.click("#host-close")
    await ann.page.click("#host-confirm [data-confirm='yes']")
    await expect(ann.page.locator("#gone-ledger")).to_be_visible()
    await expect(bob.page.locator("#gone")).to_contain_text("The host closed the game")
    async with ann.page.expect_download() as info:
        await ann.page.click("#gone-csv")
    download = await info.value
    assert download.suggested_filename.endswith(".csv"), download.suggested_filename
    path = await download.path()
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    assert sum(int(r["net"]) for r in rows) == 0, rows
    assert {r["name"] for r in rows} >= {"Ann", "Bob", "Cat"}
    assert all(int(r["at_table"]) == 0 for r in rows)
    # issue 24: every player of the game gets the same closing ledger and its CSV (Cat too,
    # removed before the end), each net equal to the change of that player's balance
    for friend in (bob, cat):
        await expect(friend.page.locator("#gone-ledger")).to_be_visible()
        await expect(friend.page.locator("#gone-text")).to_contain_text(
            "Here is the evening's ledger")
        async with friend.page.expect_download() as got:
            await friend.page.click("#gone-csv")
        theirs = await (await got.value).path()
        assert theirs.read_text(encoding="utf-8") == path.read_text(encoding="utf-8")
    start = live.app.config.starting_balance
    for r in rows:
        if r["player"] != "(house)":
            assert int(r["net"]) == live.app.wallet.balance(r["player"]) - start, r
    await observer.ws.close()
    assert (SCREENSHOTS / "home-game-host-desktop.png").exists()


async def test_operator_notices_and_a_frozen_or_muted_account_in_plain_words(
        live: Live, open_player: OpenPlayer) -> None:
    """A notice reaches every page as a banner that can be dismissed (a table's notice only
    its viewers); a frozen account's sit and a muted account's chat are refused in words."""
    creator = await host(live)
    table = await create(creator, variant="holdem", structure="no_limit",
                         stakes={"blinds": [50, 100]}, seats=6)
    alice = await open_player()
    await alice.goto(live.url)
    await alice.hello("Alice")
    lobby = await open_player()
    await lobby.goto(live.url)
    await alice.goto(live.url, f"#/table/{table}")
    await expect(alice.page.locator("[data-sit='0']")).to_be_visible()
    operator = live.app.operator
    assert operator is not None
    await operator.notice("test", "The room closes at midnight", None, "test")
    for player in (alice, lobby):
        await expect(player.page.locator("#notices .notice")).to_contain_text(
            "The room closes at midnight")
    await operator.notice("test", "This table closes soon", table, "test")
    await expect(alice.page.locator("#notices")).to_contain_text("This table closes soon")
    await expect(lobby.page.locator("#notices .notice")).to_have_count(1)
    await alice.page.get_by_role("button", name="Dismiss this notice").first.click()
    await expect(alice.page.locator("#notices .notice")).to_have_count(1)
    pid = await alice.page.evaluate("() => window.__poker.store.state.me.player_id")
    await operator.set_flag("test", pid, "muted", True, "test")
    await alice.page.fill("#chat-input", "hello")
    await alice.page.click("#chat-form button[type='submit']")
    await expect(alice.page.locator("#chat-error")).to_contain_text("muted your chat")
    await operator.set_flag("test", pid, "frozen", True, "test")
    await alice.page.click("[data-sit='0']")
    await alice.page.click("#sit-confirm")
    await expect(alice.page.locator("#sit-error")).to_contain_text("Your account is frozen")
    text = await alice.page.locator("#sit-error").inner_text()
    assert "_" not in text, text
