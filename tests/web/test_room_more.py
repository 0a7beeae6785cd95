"""More of "a poker room people enjoy": sounds and the mute switch, the tab flashing on your
turn, several tables at once with the "my tables" strip, the hand replayer and history
downloads, adding chips and the prompt when busted.

Nothing sleeps: every wait is on the page (Playwright's `expect`, `wait_for_function`) or
on a protocol message; the clock's last seconds come from the page's own clock offset (the
socket's `clockOffsetMs`, a test hook), not from waiting them out.
"""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from server.rules.cards import make_deck
from tests.net.conftest import Live
from tests.web.conftest import OpenPlayer, create, host
from tests.web.test_room import alice_shot_path, seated_player

pytestmark = pytest.mark.browser

SOUNDS = "() => window.__poker.sounds.map((s) => s.name + (s.heard ? '' : ':muted'))"


async def test_sounds_the_mute_switch_and_the_tab_flashing_on_your_turn(
        live: Live, open_player: OpenPlayer) -> None:
    creator = await host(live, "Bob")
    table = await create(creator, variant="holdem", structure="no_limit",
                         stakes={"blinds": [50, 100]}, seats=2, settings={"pause": 0.2})
    await creator.request("watch", table=table)
    alice = await seated_player(live, open_player, table, "Alice", 0)
    page = alice.page
    title = await page.title()
    # Alice looks at another window when her turn comes: the title and the icon flash.
    await page.evaluate("() => window.dispatchEvent(new Event('blur'))")
    answer = await creator.request("sit", table=table, seat=1, buy_in=5000)
    assert answer["type"] == "ok", answer
    await expect(page.locator("#actions .your-turn")).to_be_visible()
    await page.wait_for_function("() => window.__poker.sounds.some((s) => s.name === 'turn')")
    await page.wait_for_function("() => document.title.startsWith('\u25b6 Your turn!')")
    icon = await page.locator("link[rel='icon']").get_attribute("href")
    assert icon and icon.startswith("data:image/svg+xml")
    # Back to the tab: the flashing stops.
    await page.evaluate("() => window.dispatchEvent(new Event('focus'))")
    await page.wait_for_function(f"() => document.title === {title!r}")
    # The last seconds of her clock tick aloud (the page's clock moved to 3 s before the end).
    await page.evaluate("""() => {
        const { socket, store } = window.__poker;
        const t = store.state.table;
        const turn = t.turns[t.you];
        socket.clockOffsetMs = (turn.deadline - 3) * 1000 - Date.now();
    }""")
    await page.wait_for_function("() => window.__poker.sounds.some((s) => s.name === 'clock')")
    await page.evaluate("() => { window.__poker.socket.clockOffsetMs = 0; }")
    await alice.act("call")
    await page.wait_for_function("() => window.__poker.sounds.some((s) => s.name === 'bet')")
    # The mute switch: remembered by this browser across a reload; sounds are then silent.
    # The switch says its state ("Sound: on"), pressed while the sound is on (issue 24).
    sound = page.locator("#sound-btn")
    await expect(sound).to_have_attribute("aria-pressed", "true")
    await expect(sound).to_have_text("\u266a Sound: on")
    await sound.click()
    await expect(sound).to_have_attribute("aria-pressed", "false")
    await expect(sound).to_have_text("\u266a Sound: off")
    await page.reload()
    await expect(page.locator("body[data-ready='1']")).to_have_count(1)
    await expect(page.locator("#sound-btn")).to_have_attribute("aria-pressed", "false")
    await creator.event("turn", table=table, seat=1)
    assert (await creator.request("act", table=table, action="check"))["type"] == "ok"
    await page.wait_for_function("() => window.__poker.sounds.some((s) => s.name === 'check')")
    played = await page.evaluate(SOUNDS)
    assert "check:muted" in played, played


async def test_two_tables_at_once_with_a_badge_for_your_turn_at_the_other(
        live: Live, open_player: OpenPlayer) -> None:
    creator = await host(live, "Bob")
    tables = [await create(creator, variant="holdem", structure="no_limit",
                           stakes={"blinds": [50, 100]}, seats=2, name=name,
                           settings={"pause": 0.2}) for name in ("North", "South")]
    watched = await create(creator, variant="stud7", structure="fixed_limit",
                           stakes={"ante": 10, "bring_in": 25, "small_bet": 50, "big_bet": 100},
                           seats=6, name="Stud hall")
    alice = await seated_player(live, open_player, tables[0], "Alice", 0)
    page = alice.page
    await alice.goto(live.url, f"#/table/{watched}/watch")
    await alice.goto(live.url, f"#/table/{tables[1]}")
    await alice.sit(0, 5000)
    strip = page.locator("#my-tables")
    await expect(strip.locator("[data-strip]")).to_have_count(3)
    await expect(strip).to_contain_text("North")
    current = strip.locator(f"[data-strip='{tables[1]}'] [aria-current='page']")
    await expect(current).to_have_count(1)
    # Bob sits at North: the hand starts there, Alice (the button) is first to act. She is
    # looking at South: the strip's North carries the badge.
    for table in tables:
        await creator.request("watch", table=table)
    answer = await creator.request("sit", table=tables[0], seat=1, buy_in=5000)
    assert answer["type"] == "ok", answer
    north = strip.locator(f"[data-strip='{tables[0]}']")
    await expect(north.locator(".turn-badge")).to_have_text("your turn")
    await expect(page.locator("#actions [data-act]")).to_have_count(0)  # none at South
    await alice.shot("my-tables-badge")
    # Switching there: North's action bar, its seats; the badge goes (the bar says it).
    await north.locator("a").click()
    await expect(page.locator("#table-title")).to_have_text("North")
    await alice.act("call")
    await expect(north.locator(".turn-badge")).to_have_count(0)
    # Bob sits at South too: her turn there badges South while she is at North.
    answer = await creator.request("sit", table=tables[1], seat=1, buy_in=5000)
    assert answer["type"] == "ok", answer
    south = strip.locator(f"[data-strip='{tables[1]}']")
    await expect(south.locator(".turn-badge")).to_have_text("your turn")
    # The watched table leaves the strip with its close button.
    await strip.get_by_role("button", name="Stop watching Stud hall").click()
    await expect(strip.locator("[data-strip]")).to_have_count(2)
    # A reload keeps the strip (this tab's tables), and South still wants her.
    await page.reload()
    await expect(page.locator("body[data-ready='1']")).to_have_count(1)
    await expect(strip.locator("[data-strip]")).to_have_count(2)
    await expect(south.locator(".turn-badge")).to_have_text("your turn")
    await south.locator("a").click()
    await expect(page.locator("#actions [data-act='call']")).to_be_enabled()


# Alice (seat 0, the button) holds 7c 2d, Bob Ah Ad; Bob's aces hold on a dry board.
BUST = ["7c", "Ah", "2d", "Ad", "3s", "Ks", "9h", "4d", "5s", "Jc", "6s", "Qd"]


async def test_busted_add_chips_then_replay_the_hand_and_download_the_histories(
        live: Live, open_player: OpenPlayer) -> None:
    deck = [*BUST, *(c for c in make_deck(lowest_rank=2) if c not in BUST)]
    creator = await host(live, "Bob")
    table = await create(creator, variant="holdem", structure="no_limit",
                         stakes={"blinds": [50, 100]}, seats=2, name="Showdown",
                         settings={"pause": 0.2}, decks=[deck])
    await creator.request("watch", table=table)
    alice = await seated_player(live, open_player, table, "Alice", 0, buy_in=2000)
    page = alice.page
    answer = await creator.request("sit", table=table, seat=1, buy_in=5000)
    assert answer["type"] == "ok", answer
    await alice.act("raise", 2000)
    await creator.event("turn", table=table, seat=1)
    assert (await creator.request("act", table=table, action="call"))["type"] == "ok"
    await creator.event("hand_ended", table=table)
    # Busted: the prompt offers chips from her balance, or leaving.
    busted = page.locator("#busted")
    await expect(busted).to_be_visible(timeout=15_000)
    await expect(busted).to_contain_text("You are out of chips")
    await alice.shot("busted-prompt")
    await page.click("#busted-rebuy")
    await expect(page.locator("#sit-title")).to_have_text("Add chips")
    await page.fill("#buy-in", "1500")
    await page.click("#sit-confirm")
    await expect(page.locator(".seat[data-seat='0'] .stack")).to_have_text("1,500")
    await expect(busted).to_be_hidden()
    await expect(page.locator("#rebuy-btn")).to_be_visible()
    # The hand she lost, replayed from her history, street by street.
    await page.click("#history-panel summary")
    replay = page.get_by_role("button", name="Replay hand #1")
    await expect(replay).to_be_visible()
    await replay.click()
    dialog = page.locator("#replayer")
    await expect(dialog).to_be_visible()
    felt = page.locator("#replay-felt")
    await expect(felt.locator(".seat[data-seat='0'] [data-card='7c']")).to_have_count(0)
    await page.keyboard.press("ArrowRight")  # a step: the small blind
    await expect(page.locator("#replay-step")).to_contain_text("Pre-flop")
    await expect(page.locator("#replay-step")).to_contain_text("Alice posts blind 50")
    await page.keyboard.press("ArrowDown")  # the next street: the flop
    await expect(felt.locator(".seat[data-seat='0'] [data-card='7c']")).to_be_visible()
    await expect(felt.locator(".board .card")).to_have_count(3)
    await expect(page.locator("#replay-step")).to_contain_text("Flop")
    await page.keyboard.press("ArrowDown")
    await expect(felt.locator(".board .card")).to_have_count(4)
    await page.keyboard.press("End")
    await expect(felt.locator(".board .card")).to_have_count(5)
    await expect(page.locator("#replay-step")).to_contain_text("Bob wins")
    await expect(felt.locator(".seat[data-seat='1'] [data-card='Ah']")).to_be_visible()
    await page.screenshot(path=str(alice_shot_path("replayer")), animations="disabled")
    await page.keyboard.press("ArrowLeft")
    await expect(page.locator("#replay-step")).not_to_contain_text("Bob wins")
    await page.get_by_role("button", name="First step").click()
    await expect(felt.locator(".seat .card")).to_have_count(0)
    await expect(page.get_by_role("button", name="Step back")).to_be_disabled()
    await page.keyboard.press("Escape")
    await expect(dialog).to_be_hidden()
    await expect(replay).to_be_focused()
    # Downloads: one hand as PokerStars text, the list as PHH.
    async with page.expect_download() as info:
        await page.get_by_role("button", name="download hand #1, PokerStars text").click()
    download = await info.value
    text = (await download.path()).read_text(encoding="utf-8")
    assert download.suggested_filename.endswith(".txt"), download.suggested_filename
    assert "PokerStars" in text and "Alice" in text, text[:300]
    async with page.expect_download() as info:
        await page.locator(".hand-tools.all [data-download='phh']").click()
    download = await info.value
    text = (await download.path()).read_text(encoding="utf-8")
    assert download.suggested_filename.endswith(".phh")
    assert "variant = " in text and "7c2d" in text, text[:300]
