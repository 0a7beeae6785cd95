"""The invite link friends are sent (issue 24, "Getting friends in"): built from the address
players open (`--public-address`, written into the page by the server), not from the host's
own browser address; and a host whose link would only open on this computer is told so.

The host opens the page on the loopback (`http://127.0.0.1:PORT/`), as a host on their own
machine does; the server's public address is `http://poker.test:PORT`, a name Chromium maps
to 127.0.0.1 (`--host-resolver-rules`), so the friend's page really comes from that other
address and everything stays on the loopback. Nothing sleeps: every wait is on the page.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, async_playwright, expect

from tests.net.conftest import Live, start_live, test_config
from tests.redis_helpers import free_port
from tests.web.conftest import CHROMIUM, DESKTOP, WAIT_MS, OpenPlayer, Player
from tests.web.test_home_game import open_private_game

pytestmark = pytest.mark.browser

NAME = "poker.test"


@pytest.fixture
async def mapped_browser() -> AsyncIterator[Browser]:
    """The system Chromium, with `poker.test` resolving to the loopback."""
    assert Path(CHROMIUM).exists(), f"no Chromium at {CHROMIUM} (set POKER_CHROMIUM)"
    async with async_playwright() as pw:
        chromium = await pw.chromium.launch(
            executable_path=CHROMIUM, headless=True,
            args=[f"--host-resolver-rules=MAP {NAME} 127.0.0.1"])
        yield chromium
        await chromium.close()


async def new_player(browser: Browser) -> Player:
    context = await browser.new_context(viewport=DESKTOP)  # type: ignore[arg-type]
    context.set_default_timeout(WAIT_MS)
    page = await context.new_page()
    player = Player(context=context, page=page)
    page.on("pageerror", lambda exc: player.errors.append(str(exc)))
    return player


async def test_the_invite_link_uses_the_public_address(
        tmp_path: Path, mapped_browser: Browser) -> None:
    port = free_port()
    public = f"http://{NAME}:{port}"
    live = await start_live(test_config(tmp_path, port=port, public_address=public))
    players: list[Player] = []
    try:
        ann = await new_player(mapped_browser)
        players.append(ann)
        await ann.context.grant_permissions(["clipboard-read", "clipboard-write"])
        await ann.goto(f"http://127.0.0.1:{port}/")
        await ann.hello("Ann")
        table, link = await open_private_game(ann)
        assert link.startswith(f"{public}/#/table/{table}?code="), link
        await expect(ann.page.locator("#host-link-note")).to_be_hidden()
        await expect(ann.page.locator("#host-copied")).to_have_text(
            "Copied. Send it to your friends.")
        await ann.page.click("#share-btn")  # the top bar's copy: the same invite
        await expect(ann.page.locator("#banner")).to_contain_text(f"Copied: {link}")
        await ann.sit(0, 5000)

        bob = await new_player(mapped_browser)
        players.append(bob)
        await bob.page.goto(link)  # from the other address: the page and its WebSocket
        await expect(bob.page.locator("body[data-ready='1']")).to_have_count(1)
        assert bob.page.url.startswith(f"{public}/")
        await expect(bob.page.locator("#home-status")).to_contain_text("hosted by Ann")
        await bob.page.fill("#table-hello-name", "Bob")
        await bob.page.click("#table-hello button[type='submit']")
        await expect(bob.page.locator("#me .who")).to_have_text("Bob")
        await bob.page.click("[data-sit='1']")
        await bob.page.fill("#buy-in", "4000")
        await bob.page.click("#sit-confirm")
        request = ann.page.locator(".seat-request", has_text="Bob")
        await request.get_by_role("button", name="Approve Bob").click()
        await expect(bob.page.locator(".seat.me[data-seat='1']")).to_have_count(1)
    finally:
        errors = [e for p in players for e in p.errors]
        for p in players:
            await p.context.close()
        await live.close()
    assert not errors, errors


async def test_a_link_that_opens_on_this_computer_only_is_flagged(
        live: Live, open_player: OpenPlayer, tmp_path: Path) -> None:
    """The default server (127.0.0.1, no public address): the link is the loopback's, and
    the host panel says why friends could not open it and what to do."""
    ann = await open_player()
    await ann.context.grant_permissions(["clipboard-read", "clipboard-write"])
    await ann.goto(live.url)
    await ann.hello("Ann")
    _, link = await open_private_game(ann)
    assert link.startswith(live.url), link
    note = ann.page.locator("#host-link-note")
    await expect(note).to_be_visible()
    await expect(note).to_contain_text("opens on this computer only")
    await expect(note).to_contain_text("--host 0.0.0.0")
    await expect(note).to_contain_text("--public-address")
    await expect(ann.page.locator("#host-copied")).to_have_text(
        "Copied, but it opens on this computer only (see above).")
    await ann.shot("invite-this-computer-only")
    await ann.page.set_viewport_size({"width": 390, "height": 844})
    await expect(note).to_be_visible()
    wide = await ann.page.evaluate("() => document.documentElement.scrollWidth - innerWidth")
    assert wide <= 0, f"the page scrolls sideways by {wide}px"
    await note.screenshot(path=str(tmp_path / "note-phone.png"))
