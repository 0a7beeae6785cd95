"""The table's look (issue 24), as a person at the table checks it, in the page:

* no-limit Seven Card Stud whose bring-in equals the small bet offers "Bring in 25" alone (no
  "Complete to 25"), and the next player calls or raises it (STUD-02);
* the display preferences (off by default, kept by the browser): my hand's strength under my
  own cards, a four-colour deck (clubs green);
* "I'm back" clears "Sitting out" on my seat at once, in the same hand;
* chips added during a hand show "+N next hand" on my seat until the hand ends;
* my own seat is not in the winner's gold.

Fixed deck (test mode); every wait is on the page or on a protocol event.
"""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from server.rules.cards import make_deck
from tests.net.conftest import Live
from tests.web.conftest import PHONE, SCREENSHOTS, OpenPlayer, Player, create, host

pytestmark = pytest.mark.browser

# Stud deals one card a seat at a time from seat 0: Alice (seat 0) gets Ah Kh down and 2c up,
# Bob (seat 1) Qs Qd down and 9s up; Alice's 2c is the lowest up card: she brings in.
FIRST = ["Ah", "Qs", "Kh", "Qd", "2c", "9s"]
DECK = [*FIRST, *(c for c in make_deck(lowest_rank=2) if c not in FIRST)]
NO_LIMIT_STUD = {"structure": "no_limit",
                 "stakes": {"ante": 10, "bring_in": 25, "small_bet": 25, "big_bet": 50}}


async def seated(live: Live, open_player: OpenPlayer, table: str, name: str, seat: int,
                 viewport: dict[str, int] | None = None) -> Player:
    player = await open_player(viewport)
    await player.goto(live.url)
    await player.hello(name)
    await player.goto(live.url, f"#/table/{table}")
    await player.sit(seat, 2000)
    return player


async def test_one_bring_in_button_preferences_and_my_seat_labels(
        live: Live, open_player: OpenPlayer) -> None:
    creator = await host(live)
    table = await create(creator, variant="stud7", seats=6, name="No-limit stud",
                         settings={"pause": 0.2}, decks=[DECK], **NO_LIMIT_STUD)
    await creator.request("watch", table=table)
    alice = await seated(live, open_player, table, "Alice", 0, PHONE)
    bob = await seated(live, open_player, table, "Bob", 1)
    page = alice.page

    # STUD-02: the bring-in is the full bet here: one button, no completion to the same 25.
    bring = page.locator("#actions [data-act='bring_in']")
    await expect(bring).to_have_text("Bring in 25 B")
    await expect(page.locator("#actions [data-act='complete']")).to_have_count(0)
    await expect(page.locator("#actions [data-act]")).to_have_count(1)  # the one forced bet

    # Preferences: off by default; my hand's strength, then the four-colour deck (the 2c).
    await expect(page.locator(".seat.me [data-strength]")).to_have_count(0)
    club = page.locator(".seat.me .card[data-card='2c']")
    assert await club.evaluate("(c) => getComputedStyle(c).color") == "rgb(17, 17, 17)"
    await page.click("#prefs-panel summary")
    await page.check("[data-pref='handStrength']")
    await expect(page.locator(".seat.me [data-strength]")).to_have_text("high card, ace")
    await page.check("[data-pref='fourColor']")
    await expect(page.locator("body.four-color")).to_have_count(1)
    assert await club.evaluate("(c) => getComputedStyle(c).color") == "rgb(22, 122, 58)"
    # nobody else's hand is named, on my page or on Bob's
    await expect(page.locator("[data-strength]")).to_have_count(1)
    await expect(bob.page.locator("[data-strength]")).to_have_count(0)

    await alice.act("bring_in")
    call = bob.page.locator("#actions [data-act='call']")
    await expect(call).to_have_text("Call 25 C")
    await expect(bob.page.locator("#actions [data-act='complete']")).to_have_count(0)
    await expect(bob.page.locator("#actions [data-act='raise']")).to_contain_text("50")

    # My seat is blue, not the winner's gold.
    rim = await page.locator(".seat.me .plate").evaluate(
        "(p) => getComputedStyle(p).borderTopColor")
    assert rim == "rgb(108, 182, 255)", rim

    # Sit out, then "I'm back": the seat's label follows at once, in this same hand.
    hand = await page.evaluate("() => window.__poker.store.state.table.hand")
    await page.click("#sitout-btn")
    await expect(page.locator(".seat.me .state")).to_have_text("Sitting out")
    await page.click("#sitout-btn")
    await expect(page.locator("#sitout-btn")).to_have_attribute("aria-pressed", "false")
    await expect(page.locator(".seat.me .state")).to_have_count(0)
    assert await page.evaluate("() => window.__poker.store.state.table.hand") == hand

    # Chips added during the hand: "+500 next hand" on my seat until the hand is over.
    await page.click("#rebuy-btn")
    await page.fill("#buy-in", "500")
    await page.click("#sit-confirm")
    await expect(page.locator(".seat.me .topup")).to_have_text("+500 next hand")
    # everyone at the table sees it (the server's `seated` with `topup`), the stack unchanged
    await expect(bob.page.locator(".seat[data-seat='0'] .topup")).to_have_text("+500 next hand")
    await expect(bob.page.locator(".seat[data-seat='0'] .stack")).to_have_text("1,965")
    await alice.shot("look-phone-stud7")
    await bob.act("call")
    # 4th street: whoever opens bets, the other folds; the hand ends, the chips are added
    # (GEN-06) and the label goes.
    await creator.event("acted", table=table, seat=1)
    opens = await creator.event("turn", table=table)
    opener, other = (alice, bob) if opens["seat"] == 0 else (bob, alice)
    await opener.act("bet")
    await other.act("fold")
    ended = await creator.event("hand_ended", table=table)
    await expect(page.locator(".seat.me .topup")).to_have_count(0)
    await expect(bob.page.locator(".seat .topup")).to_have_count(0)
    await expect(page.locator(".seat.me .stack")).to_have_text(f"{ended['stacks']['0'] + 500:,}")
    # The preferences are this browser's: still on after a reload.
    await page.reload()
    await expect(page.locator("body.four-color")).to_have_count(1)
    await expect(page.locator("[data-pref='handStrength']")).to_be_checked()



async def test_the_host_ledger_reads_whole_words_at_1280(
        live: Live, open_player: OpenPlayer) -> None:
    """The session ledger in the side column at 1280 px: names and headings wrap between
    words, never letter by letter."""
    from tests.web.test_home_game import open_private_game

    ann = await open_player()
    await ann.context.grant_permissions(["clipboard-read", "clipboard-write"])
    await ann.goto(live.url)
    await ann.hello("Annabelle Maximiliane")
    await open_private_game(ann)
    page = ann.page
    await page.click("[data-sit='0']")
    await page.fill("#buy-in", "4000")
    await page.click("#sit-confirm")
    await expect(page.locator("#host-ledger th[scope=row]").first).to_contain_text("Annabelle")
    lines = await page.evaluate("""() => {
        const out = {};
        for (const cell of document.querySelectorAll('#host-ledger th')) {
            const range = document.createRange();
            range.selectNodeContents(cell);
            const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
            out[cell.innerText] = tops.size;
        }
        return out;
    }""")
    # "Annabelle Maximiliane" on two lines at most (a line per word), every heading on one or two
    assert all(n <= 2 for n in lines.values()), lines
    assert lines["Annabelle Maximiliane"] <= 2, lines
    await page.locator("#host-ledger").screenshot(path=str(SCREENSHOTS / "ledger-1280.png"))
