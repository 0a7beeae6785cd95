"""Issue 24 in the browser: a player alone opens a practice table from the lobby ("Practice
against bots", the game and the number of bots), is seated at once, sees the bots' seats
marked "bot" and the table marked "Practice · play money", plays a hand through the action
buttons against the server's bots, and leaves: the table closes and the balance shown never
moved. Screenshots: practice-bots-desktop and -phone (my turn among the bots).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import expect

from server.table.actor import TableActor
from tests.net.conftest import Live, start_live, test_config
from tests.web.conftest import PHONE, OpenPlayer

pytestmark = pytest.mark.browser


@pytest.fixture
async def live(tmp_path: Path) -> AsyncIterator[Live]:
    """The server with quick bots (a person still sees each action: 0.3 s)."""
    server = await start_live(test_config(tmp_path, practice_think=0.3))
    yield server
    await server.close()


async def test_practice_against_bots_from_the_lobby(live: Live,
                                                    open_player: OpenPlayer) -> None:
    ann = await open_player()
    page = ann.page
    await ann.goto(live.url)
    await ann.hello("Ann")
    balance = await page.locator("#me .balance").inner_text()
    await page.select_option("#practice-variant", "holdem")
    await page.fill("#practice-bots", "3")
    await page.click("#practice-btn")

    await expect(page.locator(".seat.me[data-seat='0']")).to_have_count(1)
    bots = page.locator(".seat .badge.bot")
    await expect(bots).to_have_count(3)
    await expect(page.locator(".seat.me .badge.bot")).to_have_count(0)
    await expect(page.locator(".seat[data-seat='3'] .name")).to_have_text("Bot Ada")
    await expect(page.locator("#home-status")).to_have_text("Practice \u00b7 play money")
    await expect(page.locator("#host-panel")).to_be_hidden()
    await expect(page.locator("#share-btn")).to_be_hidden()
    table = page.url.rsplit("/", 1)[-1]
    actor = live.app.registry.get(table)
    assert isinstance(actor, TableActor) and actor.practice

    # a hand through the buttons: check when free, else call (the bots do the rest)
    shot = False
    clicks = 0
    while actor.dealer.hands_played < 1 or clicks == 0:
        button = page.locator("#actions [data-act='check'], #actions [data-act='call']")
        await expect(button.first).to_be_enabled()
        if not shot:
            await ann.shot("practice-bots-desktop")
            shot = True
        await button.first.click()
        clicks += 1
    assert actor.dealer.hands_played >= 1
    # the same table on a phone, at my next turn
    await page.set_viewport_size({"width": PHONE["width"], "height": PHONE["height"]})
    await expect(page.locator("#actions [data-act='fold']").first).to_be_enabled()
    await expect(page.locator(".seat .badge.bot")).to_have_count(3)
    await ann.shot("practice-bots-phone")

    await page.click("#leave-btn")
    await expect(page.locator("#gone-text")).to_contain_text("practice table")
    await expect(page.locator("#me .balance")).to_have_text(balance)
    assert actor.closing  # closed (and soon forgotten) once its person left
