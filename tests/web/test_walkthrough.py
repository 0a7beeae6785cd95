"""The walk-through of issue 15: eight players and two spectators at one Hold'em table, three
players and a spectator in real pages (desktop 1280x800; one player on a phone, 390x844), the
five other players and the second spectator as protocol clients. A few hands are played to
showdown (everyone checks or calls); screenshots of the desktop, the phone and the spectator's
view; the layout is checked as a player would: no seat plates overlapping, every name readable,
the phone without horizontal scroll and its action bar on screen.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest
from playwright.async_api import Page, expect

from tests.net.conftest import Client, Live
from tests.web.conftest import DESKTOP, OpenPlayer, Player, create, host

pytestmark = pytest.mark.browser

PHONE_390 = {"width": 390, "height": 844}
PAGES = {0: ("Alexandra", DESKTOP), 4: ("Bartholomew", DESKTOP), 6: ("Cat", PHONE_390)}
BOTS = {1: "Dmitri", 2: "Eve", 3: "Francesca", 7: "Gus", 8: "Hiroko"}
HANDS = 3


async def bot(client: Client, table: str, seat: int) -> None:
    """A protocol player: checks when it may, else calls, on each of its turns."""
    while True:
        e = await client.event_any()
        if e.get("type") == "turn" and e.get("table") == table and e.get("seat") == seat:
            options = e.get("options") or {}
            action = "check" if options.get("check") else "call"
            await client.send({"type": "act", "rid": next(client.rids), "table": table,
                               "action": action})


async def page_turn(player: Player) -> None:
    bar = player.page.locator("#actions [data-act='check'], #actions [data-act='call']")
    await expect(bar.first).to_be_enabled()
    await bar.first.click()


async def layout_problems(page: Page) -> list[str]:
    """What a player would find wrong in the felt: plates overlapping, a name cut off, a seat
    outside the page, chips unreadably small."""
    found: list[str] = await page.evaluate("""() => {
        const out = [];
        const who = (p) => p.innerText.split('\\n')[0];
        const plates = [...document.querySelectorAll('#felt .seat:not(.empty-seat) .plate')];
        const rects = plates.map((p) => p.getBoundingClientRect());
        for (let i = 0; i < rects.length; i++) {
            for (let j = i + 1; j < rects.length; j++) {
                const a = rects[i], b = rects[j];
                const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
                const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
                if (w > 2 && h > 2) out.push(`overlap: ${who(plates[i])} / ${who(plates[j])}`);
            }
        }
        for (const p of plates) {
            const name = p.querySelector('.name');
            const cut = name && (name.scrollWidth > name.clientWidth + 1
                || name.scrollHeight > name.clientHeight + 1);
            if (cut) {
                out.push(`name cut: ${name.innerText}`);
            }
            const r = p.getBoundingClientRect();
            if (r.left < 0 || r.right > innerWidth + 1) out.push(`seat off screen: ${who(p)}`);
            const stack = p.querySelector('.stack');
            const px = stack ? parseFloat(getComputedStyle(stack).fontSize) : 99;
            if (px < 10) out.push(`tiny chips: ${stack.innerText}`);
        }
        return out;
    }""")
    return found


async def phone_checks(page: Page) -> None:
    wide = await page.evaluate("() => document.documentElement.scrollWidth - innerWidth")
    assert wide <= 0, f"the phone page scrolls sideways by {wide}px"
    bar = page.locator("#actions")
    box = await bar.bounding_box()
    assert box is not None
    assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE_390["height"] + 1, box
    # my own seat is not under the action bar
    mine = await page.locator(".seat.me .plate").bounding_box()
    assert mine is not None
    below = mine["y"] >= box["y"] + box["height"]
    assert mine["y"] + mine["height"] <= box["y"] + 1 or below, (mine, box)


async def test_eight_players_and_two_spectators_play_to_showdown(
        live: Live, open_player: OpenPlayer) -> None:
    creator = await host(live, "Watcher")
    table = await create(creator, variant="holdem", structure="no_limit",
                         stakes={"blinds": [50, 100]}, seats=10, name="Friday night",
                         settings={"pause": 0.5})
    assert (await creator.request("watch", table=table))["type"] == "ok"
    spectator = await open_player()
    await spectator.goto(live.url, f"#/table/{table}/watch")
    players: dict[int, Player] = {}
    for seat, (name, viewport) in PAGES.items():
        player = await open_player(viewport)
        await player.goto(live.url)
        await player.hello(name)
        await player.goto(live.url, f"#/table/{table}")
        await player.sit(seat, 5000)
        players[seat] = player
    tasks: list[asyncio.Task[None]] = []
    bots: list[Client] = []
    for seat, name in BOTS.items():
        client = await host(live, name)
        answer = await client.request("sit", table=table, seat=seat, buy_in=5000)
        assert answer["type"] == "ok", answer
        bots.append(client)
        tasks.append(asyncio.create_task(bot(client, table, seat)))
    desktop, phone = players[0], players[6]
    try:
        shot_turn = shot_phone = False
        showdowns = mucks = 0
        hands = 0
        while hands < HANDS:
            e: dict[str, Any] = await creator.event_any()
            if e.get("table") != table:
                continue
            if e["type"] == "showdown":
                showdowns += 1
            if e["type"] == "mucked":
                mucks += 1
            if e["type"] == "turn" and e["seat"] in players:
                player = players[e["seat"]]
                await expect(player.page.locator("#actions [data-act]").first).to_be_enabled()
                if e["seat"] == 0 and not shot_turn and hands >= 1:
                    shot_turn = True
                    await player.shot("walkthrough-desktop-turn")
                    assert await layout_problems(player.page) == []
                if e["seat"] == 6 and not shot_phone and hands >= 1:
                    shot_phone = True
                    await phone.shot("walkthrough-phone-turn")
                    await phone_checks(phone.page)
                    assert await layout_problems(phone.page) == []
                await page_turn(player)
            if e["type"] == "hand_ended":
                hands += 1
                for player in (*players.values(), spectator):
                    await expect(player.page.locator(".winner-banner")).to_be_visible()
                if hands == HANDS - 1:
                    await desktop.shot("walkthrough-desktop-result")
                    await spectator.shot("walkthrough-spectator")
                    assert await layout_problems(spectator.page) == []
        # checked down to a showdown every hand: the first to show shows (SHOW-01), each
        # other player shows or mucks (a losing hand may be given up unseen)
        assert showdowns >= HANDS and showdowns + mucks >= 2 * HANDS, (showdowns, mucks)
        wide = await phone.page.evaluate("() => document.documentElement.scrollWidth - innerWidth")
        assert wide <= 0, wide
        assert await layout_problems(phone.page) == []
    finally:
        for task in tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for client in bots:
            await client.ws.close()
