"""The home games' house rules in the browser (docs/rules.md section 4): at a private Hold'em
table with the straddle and run it twice on, Alice (the page, seat 2, the first button) is
asked to straddle (the button says so, with a "house rule" label) and straddles; Bob (a
protocol client) moves all-in, Carol and Alice call; each is asked to run it twice and all
agree (Alice in the page); the page then shows both boards, the second labelled, and the
"House rules" badge. Fixed deck, test mode; every wait is on the page or on a frame.
"""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from server.rules.cards import make_deck
from tests.net.conftest import Client, Live, open_client
from tests.web.conftest import DESKTOP, OpenPlayer, host

pytestmark = pytest.mark.browser


async def friend(live: Live, name: str, table: str, code: str, seat: int) -> Client:
    client = await open_client(live)
    await client.hello(name)
    answer = await client.request("sit", table=table, seat=seat, buy_in=2000, code=code)
    assert answer["type"] == "ok", answer
    return client


async def act(client: Client, table: str, seat: int, action: str, **fields: object) -> None:
    await client.event("turn", table=table, seat=seat)
    answer = await client.request("act", table=table, action=action, **fields)
    assert answer["type"] == "ok", answer


async def test_straddle_and_run_it_twice_in_the_page(live: Live,
                                                     open_player: OpenPlayer) -> None:
    creator = await host(live)
    created = await creator.request(
        "create_table", variant="holdem", structure="no_limit", stakes={"blinds": [50, 100]},
        seats=6, private=True, decks=[make_deck()],
        settings={"pause": 1.5, "approve_seats": False, "straddle": True, "run_twice": True,
                  "over_blind_clock": 30})
    assert created["type"] == "ok", created
    table, code = created["table"], created["code"]
    await creator.request("watch", table=table, code=code)
    held = await creator.request("host", table=table, action="pause")  # until all three sit
    assert held["type"] == "ok", held
    alice = await open_player(viewport=DESKTOP)
    await alice.goto(live.url)
    await alice.hello("Alice")
    await alice.goto(live.url, f"#/table/{table}?code={code}")
    bob = await friend(live, "Bob", table, code, 0)
    carol = await friend(live, "Carol", table, code, 1)
    await alice.sit(2, 2000)
    resumed = await creator.request("host", table=table, action="resume")
    assert resumed["type"] == "ok", resumed
    page = alice.page
    # STRAD-01: Alice (left of the big blind, three-handed) is asked before the deal
    straddle = page.locator("#actions [data-act='over_blind']")
    await expect(straddle).to_have_text("Straddle 200 O")
    await expect(page.locator("#actions [data-act='decline']")).to_have_text("No straddle N")
    await expect(page.locator("#actions .badge.house-rule")).to_have_text("house rule")
    await alice.shot("house-rules-straddle-desktop")
    await alice.act("over_blind")
    posted = await creator.event("posted", table=table, seat=2)
    assert (posted["kind"], posted["amount"]) == ("straddle", 200)
    await act(bob, table, 0, "raise", amount=2000)
    await act(carol, table, 1, "call")
    await alice.act("call")
    # RIT-02: Bob, Carol, then Alice are asked
    await act(bob, table, 0, "run_twice")
    await act(carol, table, 1, "run_twice")
    await expect(page.locator("#actions [data-act='run_twice']")).to_have_text("Run it twice Y")
    await expect(page.locator("#actions [data-act='run_once']")).to_have_text("Run it once N")
    await expect(page.locator("#actions")).to_contain_text("No more betting: run the rest")
    await alice.shot("house-rules-run-twice-question-desktop")
    held = await creator.request("host", table=table, action="pause")  # keep the result up
    assert held["type"] == "ok", held
    await alice.act("run_twice")
    # RIT-03: both boards on the felt, the second labelled; the log names the second board
    await expect(page.locator(".board.second-run .card")).to_have_count(5)
    await expect(page.locator(".board.second-run .run-label")).to_have_text("2nd board")
    await expect(page.locator("#hand-log")).to_contain_text("Second board:")
    await expect(page.locator(".board.first-run .run-label")).to_have_text("1st board")
    await expect(page.locator("#main")).to_contain_text("First board:")
    badge = page.locator(".badge.house-rules")
    await expect(badge).to_have_text("House rules: straddle, run it twice")
    ended = await creator.event("hand_ended", table=table)
    assert sum(ended["stacks"].values()) == 6000
    await alice.shot("house-rules-two-boards-desktop")


async def test_show_after_everyone_folds_and_sit_out_next_hand_in_the_page(
        live: Live, open_player: OpenPlayer) -> None:
    """SHOWWIN-01 and "sit out next hand" in the page: during the hand Alice's sit-out
    button reads "Sit out next hand"; everyone folds to her raise; she is asked whether to
    show (labelled a house rule) and shows: the spectator gets her two cards."""
    creator = await host(live)
    created = await creator.request(
        "create_table", variant="holdem", structure="no_limit", stakes={"blinds": [50, 100]},
        seats=6, private=True, decks=[make_deck()],
        settings={"pause": 1.5, "approve_seats": False, "show_uncontested": True,
                  "over_blind_clock": 30})
    assert created["type"] == "ok", created
    table, code = created["table"], created["code"]
    await creator.request("watch", table=table, code=code)
    held = await creator.request("host", table=table, action="pause")
    assert held["type"] == "ok", held
    alice = await open_player(viewport=DESKTOP)
    await alice.goto(live.url)
    await alice.hello("Alice")
    await alice.goto(live.url, f"#/table/{table}?code={code}")
    bob = await friend(live, "Bob", table, code, 0)
    carol = await friend(live, "Carol", table, code, 1)
    await alice.sit(2, 2000)
    assert (await creator.request("host", table=table, action="resume"))["type"] == "ok"
    page = alice.page
    await expect(page.locator("#actions [data-act='raise']")).to_be_visible()
    await expect(page.locator("#sitout-btn")).to_have_text("Sit out next hand")
    await alice.act("raise", 300)
    await act(bob, table, 0, "fold")
    await act(carol, table, 1, "fold")
    show = page.locator("#actions [data-act='show']")
    await expect(show).to_have_text("Show cards S")
    await expect(page.locator("#actions [data-act='muck']")).to_have_text("Don't show N")
    await expect(page.locator("#actions")).to_contain_text("Nobody sees them unless you do")
    held = await creator.request("host", table=table, action="pause")  # keep the result up
    assert held["type"] == "ok", held
    await alice.shot("house-rules-show-after-fold-desktop")
    await alice.act("show")
    shown = await creator.event("showdown", table=table, seat=2)
    assert len(shown["cards"]) == 2 and None not in shown["cards"]
    await creator.event("hand_ended", table=table)
