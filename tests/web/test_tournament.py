"""A sit-and-go in the browser (issue 27; docs/rules.md TOUR-01, 03, 04, 11, 12, 13): Ann
creates it in the lobby's Tournaments tab on a laptop, Bob (a laptop) and Cy (a 360 px phone)
register from the list; the third registration starts it (TOUR-03), each page goes to its
table by itself (TOUR-04: `tournament_seat`), the tournament table offers no sit, leave or
add-chips control (TOUR-13), and the three play through the page's buttons (all-in, call,
check) to the end. Every player then sees a banner with their place and prize (TOUR-11,
TOUR-12: three entries of 100, one place paid, 300), and the tournament page shows the
places and the payout.

Nothing sleeps: each wait is on the page (Playwright's `expect`) or on the page's own state
(the action bar's turn key, `window.__poker.app.actionsKey`).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import expect

from tests.net.conftest import Live, start_live, test_config
from tests.web.conftest import PHONE, OpenPlayer, Player, host
from tests.web.test_a11y import axe_violations

pytestmark = pytest.mark.browser

PLAY_WAIT_MS = 60_000
"""The longest a player waits for their next turn or their result: a hand's all-in run-out
is paced card by card for the eye (js/pacing.js), then the result stays up."""

ORDINAL = {1: "1st", 2: "2nd", 3: "3rd"}


@pytest.fixture
async def live(tmp_path: Path) -> AsyncIterator[Live]:
    """The server in test mode, with a short pause between hands."""
    server = await start_live(test_config(tmp_path, hand_pause=0.5))
    yield server
    await server.close()


async def tournaments_tab(p: Player, name: str) -> None:
    await p.hello(name)
    await p.page.get_by_role("link", name="Tournaments", exact=True).click()
    await expect(p.page.locator("#tournaments")).to_be_visible()


async def play_to_the_end(p: Player, seen: set[str] | None = None,
                          notices: dict[str, str] | None = None) -> int:
    """Act on each turn the page offers (all-in when the bar offers it, else call, else
    check) until the finishing banner shows; returns the turns played. `seen` collects the
    addresses of the tables the page was at on its turns; `notices`, by address, the move
    notice the tournament bar showed on a turn there."""
    page = p.page
    banner = page.locator("#tourney-result:not([hidden])")
    turn = page.locator("#actions [data-act]").first
    played = 0
    while True:
        either = page.locator("#tourney-result:not([hidden]), #actions [data-act]").first
        await expect(either).to_be_visible(timeout=PLAY_WAIT_MS)
        if await banner.count():
            return played
        if seen is not None:
            seen.add(page.url)
        notice = page.locator("#tourney-bar .moved")
        if notices is not None and await notice.count():
            notices[page.url] = await notice.inner_text()
        key = await page.evaluate("() => window.__poker.app.actionsKey")
        all_in = page.locator("#actions .quick", has_text="All-in")
        raise_ = page.locator("#actions [data-act='raise'], #actions [data-act='bet']")
        if await all_in.count():
            await all_in.click()
            await raise_.click()
        elif await raise_.count() and (await raise_.inner_text()).startswith("All-in"):
            await raise_.click()
        elif await page.locator("#actions [data-act='call']").count():
            await page.click("#actions [data-act='call']")
        elif await page.locator("#actions [data-act='check']").count():
            await page.click("#actions [data-act='check']")
        else:
            await turn.click()
        played += 1
        await page.wait_for_function("k => window.__poker.app.actionsKey !== k", arg=key,
                                     timeout=PLAY_WAIT_MS)


async def test_a_sit_and_go_created_entered_and_played_to_the_end_in_the_browser_tour_03_12(
        live: Live, open_player: OpenPlayer) -> None:
    base = live.url
    ann, bob, cy = await open_player(), await open_player(), await open_player(PHONE)

    # Ann creates a sit-and-go of three (TOUR-03) from the Tournaments tab, and plays in it.
    await ann.goto(base)
    await tournaments_tab(ann, "Ann")
    form = ann.page.locator("#tcreate-form")
    await form.locator("[name='name']").fill("Friday SNG")
    await form.locator("[name='game']").select_option("holdem")
    await form.locator("[name='structure']").select_option("no_limit")
    await form.locator("[name='buy_in']").fill("100")
    await form.locator("[name='fee']").fill("10")
    await form.locator("[name='capacity']").fill("3")
    await form.locator("[name='starting_stack']").fill("300")
    await form.locator("[name='preset']").select_option("hyper")
    await expect(form.locator("[name='play']")).to_be_checked()
    await ann.page.click("#tcreate-btn")
    row = ann.page.locator("#tourney-list tr", has_text="Friday SNG")
    await expect(row).to_contain_text("1/3")
    await expect(row).to_contain_text("100 + 10")
    await expect(row).to_contain_text("Registering")
    await expect(row.get_by_role("button", name=re.compile("^Unregister"))).to_be_visible()
    tid = await row.get_attribute("data-tournament")
    assert tid

    # Bob registers from the list; so does Cy on a phone, which starts it.
    await bob.goto(base)
    await tournaments_tab(bob, "Bob")
    bob_row = bob.page.locator(f"#tourney-list tr[data-tournament='{tid}']")
    await bob_row.get_by_role("button", name=re.compile("^Register")).click()
    await expect(bob_row).to_contain_text("2/3")
    await expect(bob_row.get_by_role("button", name=re.compile("^Unregister"))).to_be_visible()
    ann_row = ann.page.locator(f"#tourney-list tr[data-tournament='{tid}']")
    await expect(ann_row).to_contain_text("2/3")  # the list is polled
    await ann.shot("tournament-lobby")
    assert await axe_violations(ann.page) == []  # the Tournaments tab: no serious violation

    await cy.goto(base)
    await tournaments_tab(cy, "Cy")
    cy_row = cy.page.locator(f"#tourney-list tr[data-tournament='{tid}']")
    assert await cy.page.evaluate("() => document.documentElement.scrollWidth <= innerWidth")
    await cy_row.get_by_role("button", name=re.compile("^Register")).click()

    # TOUR-04: each page opens its table by itself, seated, with the tournament's bar;
    # TOUR-13: no sit, leave or add-chips control there.
    for p in (ann, bob, cy):
        await expect(p.page).to_have_url(re.compile(rf"#/table/{re.escape(tid)}\.\d+$"))
        await expect(p.page.locator(".seat.me")).to_have_count(1)
        bar = p.page.locator("#tourney-bar")
        await expect(bar).to_contain_text("Friday SNG")
        await expect(bar).to_contain_text("Level 1")
        await expect(bar).to_contain_text("3 of 3 left")
        for control in ("#leave-btn", "#rebuy-btn", "[data-sit]"):
            await expect(p.page.locator(control)).to_be_hidden()
        stack = await p.page.locator(".seat.me .stack").inner_text()
        assert 0 < int(re.sub(r"\D", "", stack)) <= 300, stack  # the starting stack
    await expect(cy.page.locator(".seat.me [data-card]")).to_have_count(2)  # dealt in
    assert await cy.page.evaluate("() => document.documentElement.scrollWidth <= innerWidth")
    await cy.shot("tournament-table-phone")

    # Someone who did not enter opens the tournament page by its address and signs in there:
    # the level, its clock counting down, the players left, the table, the payouts.
    rail = await open_player()
    await rail.goto(base, f"#/tournament/{tid}")
    await rail.page.fill("#tourney-hello-name", "Rail")
    await rail.page.click("#tourney-hello button[type='submit']")
    body = rail.page.locator("#tourney-body")
    await expect(body.locator("h1")).to_have_text("Friday SNG")
    await expect(body).to_contain_text("Running")
    await expect(body.locator(".stat", has_text="Players left")).to_contain_text("3 / 3")
    await expect(body.locator(".stat", has_text="Prize pool")).to_contain_text("300")
    await expect(body.locator("#tp-tables + table")).to_contain_text("Table 1")
    await expect(body.locator("#tp-pay + table tr")).to_have_text(["1st300"])
    clock = body.locator(".tourney-clock")
    first = await clock.inner_text()
    assert re.fullmatch(r"[0-4]:[0-5]\d", first), first  # hyper: 4-minute levels
    await expect(clock).not_to_have_text(first)  # it counts down
    await expect(body.locator(".stat", has_text="Level ends in")).to_be_visible()
    await rail.shot("tournament-page-running")
    assert await axe_violations(rail.page) == []

    turns = await asyncio.gather(*(play_to_the_end(p) for p in (ann, bob, cy)))
    assert sum(turns) >= 2, turns

    # The truth, from the server's own message (TOUR-11, TOUR-12).
    observer = await host(live, "Observer")
    assert (await observer.request("tournament", tournament=tid, follow=False))["type"] == "ok"
    final = await observer.event("tournament", id=tid)
    assert final["state"] == "finished" and final["pool"] == 300
    assert final["payouts"] == [[1, 300]]
    places = {name: (place, prize) for place, name, prize in final["places"]}
    assert set(places) == {"Ann", "Bob", "Cy"}
    assert sorted(p for p, _ in places.values()) in ([1, 2, 3], [1, 2, 2])
    winner = next(n for n, (p, _) in places.items() if p == 1)
    assert places[winner][1] == 300

    said: dict[str, str] = {}
    for name, p in (("Ann", ann), ("Bob", bob), ("Cy", cy)):
        place, prize = places[name]
        money = "300 chips" if prize else "no prize"
        said[name] = f"You finished {ORDINAL[place]} of 3: {money}"
        await expect(p.page.locator("#tourney-result .big")).to_have_text(said[name])
    assert await cy.page.evaluate("() => document.documentElement.scrollWidth <= innerWidth")
    await cy.shot("tournament-finished-phone")

    # The tournament page (from the banner's link): the places, the payout, the winner.
    await ann.page.locator("#tourney-result a", has_text="results").click()
    body = ann.page.locator("#tourney-body")
    await expect(body.locator("h1")).to_have_text("Friday SNG")
    await expect(body).to_contain_text("Finished")
    await expect(body).to_contain_text(f"Won by {winner}: 300 chips")
    await expect(body.locator(".tourney-you")).to_have_text(said["Ann"])
    await expect(ann.page.locator("#tourney-result")).to_be_hidden()  # the page says it
    await expect(body.locator("#tp-pay + table tr")).to_have_text(["1st300"])
    place_rows = body.locator("#tp-places + table tr")
    await expect(place_rows).to_have_count(3)
    await expect(place_rows.first).to_contain_text(winner)
    await expect(place_rows.first).to_contain_text("300")
    await expect(body.locator(".stat", has_text="Entrants")).to_contain_text("3")
    await ann.shot("tournament-page")


async def test_a_private_sit_and_go_by_its_invite_link_and_refusals_in_words_tour_01(
        live: Live, open_player: OpenPlayer) -> None:
    """A private sit-and-go shows its invite link; the link opens its page for someone who
    has not signed in yet, who signs in there and registers (TOUR-01: the buy-in and fee
    leave the balance). A refusal is said in words: a buy-in above the balance."""
    base = live.url
    ann, bob = await open_player(), await open_player(PHONE)
    await ann.goto(base, "#/tournaments")
    await ann.hello("Ann")
    form = ann.page.locator("#tcreate-form")
    await form.locator("[name='name']").fill("Home SNG")
    await form.locator("[name='capacity']").fill("4")
    await form.locator("[name='private']").check()
    await form.locator("[name='play']").uncheck()
    await ann.page.click("#tcreate-btn")
    link = ann.page.locator("#tcreate-invite")
    await expect(link).to_be_visible()
    url = await link.input_value()
    match = re.fullmatch(re.escape(base.rstrip("/")) + r"/\?tournament=([\w-]+)&invite=([\w-]+)",
                         url)
    assert match, url
    row = ann.page.locator(f"#tourney-list tr[data-tournament='{match[1]}']")
    await expect(row).to_contain_text("private")  # listed to its host
    await expect(row).to_contain_text("0/4")

    await bob.page.goto(url)
    await expect(bob.page.locator("body[data-ready='1']")).to_have_count(1)
    await bob.page.fill("#tourney-hello-name", "Bob")
    await bob.page.click("#tourney-hello button[type='submit']")
    body = bob.page.locator("#tourney-body")
    await expect(body.locator("h1")).to_have_text("Home SNG")
    await expect(body).to_contain_text("It starts as soon as 4 players have registered.")
    await expect(body.locator(".stat", has_text="Registered")).to_contain_text("0 / 4")
    await expect(bob.page.locator("#me .balance")).to_contain_text("10,000")
    await body.get_by_role("button", name=re.compile("^Register")).click()
    await expect(body.get_by_role("button", name=re.compile("^Unregister"))).to_be_visible()
    await expect(body.locator(".stat", has_text="Registered")).to_contain_text("1 / 4")
    await expect(bob.page.locator("#me .balance")).to_contain_text("9,890")  # 100 + 10
    assert await bob.page.evaluate("() => document.documentElement.scrollWidth <= innerWidth")
    await bob.shot("tournament-invite-phone")
    await ann.shot("tournament-private-created")

    # A buy-in above Bob's balance: the list says why, in words.
    await form.locator("[name='name']").fill("High roller")
    await form.locator("[name='private']").uncheck()
    await form.locator("[name='buy_in']").fill("50000")
    await ann.page.click("#tcreate-btn")
    await expect(ann.page.locator("#tourney-list tr", has_text="High roller")).to_be_visible()
    await bob.page.click(".tourney-back a")  # "← Tournaments"
    high = bob.page.locator("#tourney-list tr", has_text="High roller")
    await high.get_by_role("button", name=re.compile("^Register")).click()
    await expect(high.locator(".error")).to_have_text("Your balance is too low for that buy-in.")
    await expect(bob.page.locator("#me .balance")).to_contain_text("9,890")


async def test_a_broken_table_moves_its_player_and_the_page_follows_tour_08(
        live: Live, open_player: OpenPlayer) -> None:
    """TOUR-04/08: four entrants at tables of three are drawn 2 + 2; after the first player
    is out the three left fit at one table, so the other is broken and its player moved: their
    page opens the new table by itself, says why, forgets the old one, and plays on."""
    hostess = await host(live, "Hostess")
    rid = next(hostess.rids)
    await hostess.send({"type": "create_tournament", "rid": rid, "name": "Four SNG",
                        "game": "holdem", "structure": "no_limit", "kind": "sng", "buy_in": 10,
                        "fee": 0, "capacity": 4,
                        "settings": {"starting_stack": 300, "seats": 3, "preset": "hyper"}})
    created = await hostess.answer(rid)
    assert created["type"] == "ok", created
    tid = created["tournament"]
    players = {"Dee": await open_player(), "Eli": await open_player(PHONE),
               "Fay": await open_player(), "Gus": await open_player(PHONE)}
    for name, p in players.items():
        await p.goto(live.url, f"#/tournament/{tid}")
        await p.page.fill("#tourney-hello-name", name)
        await p.page.click("#tourney-hello button[type='submit']")
        body = p.page.locator("#tourney-body")
        await body.get_by_role("button", name=re.compile("^Register")).click()
        if name != "Gus":  # (Gus's registration starts it)
            await expect(body.get_by_role("button", name=re.compile("^Unregister"))).to_be_visible()
    first: dict[str, str] = {}
    for name, p in players.items():
        await expect(p.page).to_have_url(re.compile(rf"#/table/{re.escape(tid)}\.[12]$"))
        first[name] = p.page.url
    assert sorted(u[-1] for u in first.values()) == ["1", "1", "2", "2"]  # drawn 2 + 2

    seen: dict[str, set[str]] = {n: set() for n in players}
    notices: dict[str, dict[str, str]] = {n: {} for n in players}
    await asyncio.gather(*(play_to_the_end(p, seen[n], notices[n])
                           for n, p in players.items()))
    moved = [n for n, p in players.items() if p.page.url != first[n]]
    assert moved, (first, seen)
    for name in moved:
        page = players[name].page
        assert page.url in seen[name], (name, seen[name])  # it played at the new table...
        assert re.fullmatch(r"Moved to table [12](: your table was broken up| to balance the "
                            r"tables)\.", notices[name].get(page.url, "")), notices[name]
        await expect(page.locator("#tourney-bar")).to_contain_text("Finished: won by")
        await expect(page.locator("#tourney-bar .moved")).to_have_count(0)  # no news now
        old = first[name].rsplit("/", 1)[-1]
        await expect(page.locator(f"#my-tables-list [href$='{old}']")).to_have_count(0)
    observer = await host(live, "Observer")
    assert (await observer.request("tournament", tournament=tid, follow=False))["type"] == "ok"
    final = await observer.event("tournament", id=tid)
    assert final["state"] == "finished" and final["entrants"] == 4
    assert sorted(name for _, name, _ in final["places"]) == sorted(players)
    for place, name, prize in final["places"]:
        words = f"You finished {ORDINAL.get(place, f'{place}th')} of 4: " + (
            f"{prize:,} chips" if prize else "no prize")
        await expect(players[name].page.locator("#tourney-result .big")).to_have_text(words)
    await players[moved[0]].shot("tournament-moved")
