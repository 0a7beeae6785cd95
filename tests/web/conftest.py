"""Browser tests: the real server in-process (test mode, port 0) and the system Chromium
driven by Playwright for Python (async API, same event loop as the server).

Rule of these helpers: nothing sleeps; every wait is on something the page shows (Playwright's
auto-waiting `expect`/locators with a timeout) or on a protocol message (`Client.event`).
A page that throws a JavaScript error fails its test (`Player.errors` is checked at teardown).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, BrowserContext, Page, async_playwright, expect

from tests.net.conftest import Client, Live, open_client, start_live, test_config

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "client_web" / "screenshots"
CHROMIUM = os.environ.get("POKER_CHROMIUM", "/usr/bin/chromium")
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 360, "height": 740}
#: The sit-out button after a click during a hand: the player plays it out (issue 24).
OUT_NEXT_HAND = "Sitting out next hand \u2713 (undo)"
WAIT_MS = 10_000
"""Milliseconds any single wait on the page may take."""

expect.set_options(timeout=WAIT_MS)


@pytest.fixture
async def live(tmp_path: Path) -> AsyncIterator[Live]:
    """The server, in this event loop, in test mode (tables may take fixed decks); the host
    account of these tests opens a table of every variant, more than a player's cap of 8."""
    server = await start_live(test_config(tmp_path, max_tables_per_account=32))
    yield server
    await server.close()


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    """The system Chromium, headless."""
    assert Path(CHROMIUM).exists(), f"no Chromium at {CHROMIUM} (set POKER_CHROMIUM)"
    async with async_playwright() as pw:
        chromium = await pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield chromium
        await chromium.close()


@dataclass
class Player:
    """One browser context with one page on the poker client."""

    context: BrowserContext
    page: Page
    errors: list[str] = field(default_factory=list)

    async def goto(self, base: str, route: str = "#/") -> None:
        await self.page.goto(base + route)
        await expect(self.page.locator("body[data-ready='1']")).to_have_count(1)

    async def hello(self, name: str) -> None:
        """Say hello as a guest from the lobby."""
        await self.page.fill("#hello-name", name)
        await self.page.click("#guest-btn")
        await expect(self.page.locator("#me .who")).to_have_text(name)

    async def sit(self, seat: int, buy_in: int) -> None:
        await self.page.click(f"[data-sit='{seat}']")
        await self.page.fill("#buy-in", str(buy_in))
        await self.page.click("#sit-confirm")
        await expect(self.page.locator(f".seat.me[data-seat='{seat}']")).to_have_count(1)

    async def act(self, action: str, amount: int | None = None) -> None:
        """Click the action's button once it is offered (typing the amount first)."""
        button = self.page.locator(f"#actions [data-act='{action}']")
        await expect(button).to_be_enabled()
        if amount is not None:
            await self.page.fill("#amount", str(amount))
            await self.page.locator("#amount").dispatch_event("change")
        await button.click()
        await expect(button).to_have_count(0)

    async def stack(self, seat: int) -> str:
        return await self.page.locator(f".seat[data-seat='{seat}'] .stack").inner_text()

    async def shot(self, name: str) -> None:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        await self.page.evaluate("() => window.scrollTo(0, 0)")
        phone = (self.page.viewport_size or DESKTOP)["width"] < 600
        if phone:  # a phone's live action bar sticks to the screen's bottom: in a picture of
            # the whole page it would float over the felt, where no screen shows it
            await self.page.evaluate(STATIC_BAR, True)
        try:
            await self.page.screenshot(path=str(SCREENSHOTS / f"{name}.png"),
                                       animations="disabled", full_page=phone)
        finally:
            if phone:
                await self.page.evaluate(STATIC_BAR, False)


STATIC_BAR = """(on) => {
    document.getElementById("shot-static-bar")?.remove();
    if (!on) return;
    const style = document.createElement("style");
    style.id = "shot-static-bar";
    style.textContent = ".actions.live { position: static !important; }";
    document.head.append(style);
}"""
"""Page script: the sticky action bar laid out in place (true) or as before (false)."""

OpenPlayer = Callable[..., Awaitable[Player]]
"""The `open_player` fixture: `await open_player(viewport=DESKTOP)`."""


@pytest.fixture
async def open_player(browser: Browser) -> AsyncIterator[OpenPlayer]:
    """`await open_player(viewport=DESKTOP)`: a new context and page; each page's uncaught
    JavaScript errors fail the test."""
    players: list[Player] = []

    async def factory(viewport: dict[str, int] | None = None) -> Player:
        context = await browser.new_context(viewport=viewport or DESKTOP)  # type: ignore[arg-type]
        context.set_default_timeout(WAIT_MS)
        page = await context.new_page()
        player = Player(context=context, page=page)
        page.on("pageerror", lambda exc: player.errors.append(str(exc)))
        players.append(player)
        return player

    yield factory
    errors = [e for p in players for e in p.errors]
    for p in players:
        await p.context.close()
    assert not errors, errors


async def host(live: Live, name: str = "Host") -> Client:
    """A protocol client (the test's own) that said hello: it creates tables and watches."""
    client = await open_client(live)
    await client.hello(name)
    return client


async def create(client: Client, **fields: Any) -> str:
    answer = await client.request("create_table", **fields)
    assert answer["type"] == "ok", answer
    table: str = answer["table"]
    return table


# The README's screenshot table (rows: caption, desktop shot, phone shot), rewritten after a
# run of the browser tests from the screenshots that exist (between its two markers).
README_SHOTS: list[tuple[str, str, str]] = [
    ("lobby", "lobby-desktop", "lobby-phone"),
    ("Hold'em, mid-hand", "holdem-desktop", "holdem-phone"),
    ("Caribbean Stud", "caribbean-desktop", "caribbean-phone"),
    ("Caribbean Stud, three players deciding / ten seats on a phone", "caribbean-3-players",
     "phone-360-10-seats"),
    ("a split pot's result / Seven Card Stud", "split-pot-result", "stud7-desktop"),
    ("my tables: your turn at another table / six seats at 390 px", "my-tables-badge",
     "phone-390-6-seats"),
    ("the hand replayer / busted: add chips", "replayer", "busted-prompt"),
    ("Manila to showdown, as a spectator sees it / Five Card Draw", "every-variant-manila",
     "every-variant-draw"),
    ("a home game: the host panel with a seat request / the host panel at 390 px",
     "home-game-host-desktop", "home-game-host-phone"),
    ("eight players at Hold'em: a showdown / a player's turn at 390 px",
     "walkthrough-desktop-result", "walkthrough-phone-turn"),
    ("the same table, your turn / as a spectator sees it", "walkthrough-desktop-turn",
     "walkthrough-spectator"),
    ("the replayer: Caribbean Stud after the reveal / Seven Card Stud", "replayer-caribbean",
     "replayer-stud7"),
    ("seven players of Seven Card Stud at the showdown, at 360 / 390 px", "fit-stud7-360",
     "fit-stud7-390"),
    ("Caribbean Stud, seven seats at 430 px / no-limit stud: one bring-in, your hand's "
     "strength, four colours", "fit-caribbean-430", "look-phone-stud7"),
    ("practice against bots (issue 24): my turn among three bots, on a laptop / a phone",
     "practice-bots-desktop", "practice-bots-phone"),
    ("an evening (test_evening.py): Cat's laptop slept on her turn, the host's page / the "
     "same moment on Bob's 360 px phone", "evening-holdem-host", "evening-holdem-phone"),
    ("the evening's closing ledger on Bob's phone: Hold'em at 360 px / Seven Card Stud at "
     "430 px", "evening-holdem-ledger-phone", "evening-stud7-ledger-phone"),
    ("a sit-and-go (issue 27): the Tournaments tab / its table on a phone", "tournament-lobby",
     "tournament-table-phone"),
    ("the tournament page / the finishing banner on a phone", "tournament-page",
     "tournament-finished-phone"),
]
README = ROOT / "README.md"
_BEGIN = "<!-- screenshots: written by tests/web/conftest.py (README_SHOTS) after a browser run -->"
_END = "<!-- /screenshots -->"


def readme_table() -> str:
    rows = ["| | desktop (1280×800) | phone / more |", "|---|---|---|"]
    for caption, *shots in README_SHOTS:
        cells = [f"![{caption}](client_web/screenshots/{shot}.png)"
                 if (SCREENSHOTS / f"{shot}.png").exists() else "" for shot in shots]
        if any(cells):
            rows.append(f"| {caption} | {' | '.join(cells)} |")
    return "\n".join(rows)


def refresh_readme() -> None:
    """Rewrite the README's screenshot table (only when it changed)."""
    text = README.read_text(encoding="utf-8")
    if _BEGIN not in text or _END not in text:
        return
    head, rest = text.split(_BEGIN, 1)
    _, tail = rest.split(_END, 1)
    new = f"{head}{_BEGIN}\n{readme_table()}\n{_END}{tail}"
    if new != text:
        README.write_text(new, encoding="utf-8")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if any(item.get_closest_marker("browser") for item in session.items):
        refresh_readme()
