""""A poker room people enjoy": Caribbean Stud with several players, refusals and dropped
sockets that leave the action bar usable, phone layouts at 2, 6 and 10 seats, a second tab of
the same player, results that stay up, tables that no longer exist, and logging out.

Nothing sleeps: every wait is on the page (Playwright's `expect`) or on a protocol message;
"the result stays up 3 s" is measured by the page's own clock (a poll inside the page).
"""

from __future__ import annotations

import re

import pytest
from playwright.async_api import expect

from server.rules.cards import make_deck
from tests.net.conftest import Live
from tests.web.conftest import DESKTOP, OUT_NEXT_HAND, OpenPlayer, Player, create, host

pytestmark = pytest.mark.browser

PHONES = [{"width": 360, "height": 740}, {"width": 390, "height": 844}]


async def seated_player(live: Live, open_player: OpenPlayer, table: str, name: str, seat: int,
                        viewport: dict[str, int] | None = None, buy_in: int = 5000) -> Player:
    player = await open_player(viewport)
    await player.goto(live.url)
    await player.hello(name)
    await player.goto(live.url, f"#/table/{table}")
    await player.sit(seat, buy_in)
    return player


@pytest.mark.parametrize("count", [2, 3])
async def test_every_player_at_a_caribbean_table_antes_and_decides(
        live: Live, open_player: OpenPlayer, count: int) -> None:
    creator = await host(live)
    table = await create(creator, variant="caribbean", stakes={"min": 100, "max": 1000},
                         seats=5, name="Island", settings={"pause": 0.2})
    await creator.request("watch", table=table)
    names = ["Alice", "Bob", "Carol"][:count]
    players = [await seated_player(live, open_player, table, n, i) for i, n in enumerate(names)]
    # The round under way when Alice sat down was hers alone: she skips it; the next one
    # deals every seat in.
    await players[0].page.click("#actions [data-act='fold']")
    await creator.event("hand_ended", table=table)
    # The ante phase: every page has its own Ante button at once, the jackpot wager too.
    for player in players:
        await expect(player.page.locator("#actions [data-act='ante']")).to_be_enabled()
    await players[0].page.check("#jackpot-wager")
    for player in players:
        await player.page.click("#actions [data-act='ante']")
    # The decision phase: every page has Play and Fold, at once.
    for player in players:
        await expect(player.page.locator("#actions [data-act='play']")).to_be_enabled()
        await expect(player.page.locator("#actions [data-act='fold']")).to_be_enabled()
    await players[0].shot(f"caribbean-{count}-players")
    for player in players:
        await player.page.click("#sitout-btn")  # this round, no other
        await expect(player.page.locator("#sitout-btn")).to_have_text(OUT_NEXT_HAND)
    for i, player in enumerate(players):
        await player.page.click("#actions [data-act='play']" if i != 1 else
                                "#actions [data-act='fold']")
    settled = await creator.event("settled", table=table)
    results = settled["results"]
    assert sorted(results) == [str(i) for i in range(count)], results
    for i in range(count):
        if i == 1:
            assert results[str(i)]["play"] is None  # folded by choice
        else:
            assert results[str(i)]["play"] is not None, results  # nobody auto-folded
    assert results["0"]["jackpot"] is not None  # the jackpot wager was placed and settled
    for player in players:
        await expect(player.page.locator("#announcements")).to_contain_text("Alice: ante ")
    await players[0].shot(f"caribbean-{count}-players-settled")


async def test_a_refused_action_and_a_dropped_socket_leave_the_bar_usable(
        live: Live, open_player: OpenPlayer) -> None:
    creator = await host(live, "Bob")
    table = await create(creator, variant="holdem", structure="no_limit",
                         stakes={"blinds": [50, 100]}, seats=2, settings={"pause": 0.2})
    alice = await seated_player(live, open_player, table, "Alice", 0)
    answer = await creator.request("sit", table=table, seat=1, buy_in=5000)
    assert answer["type"] == "ok", answer
    page = alice.page
    raise_btn = page.locator("#actions [data-act='raise']")
    await expect(raise_btn).to_be_enabled()
    # A raise under the minimum (the page's limits tampered with): the server refuses it.
    await page.evaluate("""() => {
        const b = document.querySelector("#actions [data-act='raise']");
        b.dataset.min = "1";
        const n = document.querySelector("#amount"); n.min = "1"; n.value = "101";
    }""")
    await raise_btn.click()
    error = page.locator("#act-error")
    await expect(error).not_to_be_empty()
    text = await error.inner_text()
    assert "_" not in text and "(" not in text, text  # plain words, no codes
    # The buttons are offered again at once (not when the clock runs out).
    await expect(page.locator("#actions [data-act='call']")).to_be_enabled()
    await expect(page.locator("#actions [data-act='fold']")).to_be_enabled()
    await page.locator("#actions").screenshot(path=str(
        alice_shot_path("refused-action")))
    # A dropped socket just as she clicks: the click fails, the bar comes back usable.
    await page.evaluate("""() => {
        window.__poker.socket.ws.close();
        document.querySelector("#actions [data-act='call']").click();
    }""")
    await expect(page.locator("#banner")).to_contain_text("Reconnected")
    call = page.locator("#actions [data-act='call']")
    await expect(call).to_be_enabled()
    await call.click()
    await expect(call).to_have_count(0)
    # The error of before is gone once the table moved on.
    await expect(error).to_be_empty()
    acted = await creator.event("acted", table=table, seat=0)
    assert acted["action"] == "call"


def alice_shot_path(name: str) -> object:
    from tests.web.conftest import SCREENSHOTS
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS / f"{name}.png"


@pytest.mark.parametrize("seats", [2, 6, 10])
@pytest.mark.parametrize("viewport", PHONES, ids=["360x740", "390x844"])
async def test_phone_layout_fits_and_the_action_bar_is_on_screen(
        live: Live, open_player: OpenPlayer, seats: int, viewport: dict[str, int]) -> None:
    creator = await host(live, "Bob")
    table = await create(creator, variant="holdem", structure="no_limit",
                         stakes={"blinds": [50, 100]}, seats=seats, settings={"pause": 0.2})
    # Fill the table with long names (protocol clients), the page's player at seat 0.
    for seat in range(2, seats):
        other = await host(live, f"Player{seat}xyz")
        answer = await other.request("sit", table=table, seat=seat, buy_in=5000)
        assert answer["type"] == "ok", answer
        await other.request("sit_out", table=table)
    alice = await seated_player(live, open_player, table, "Alexandrina", 0, viewport)
    page = alice.page
    await page.evaluate("() => window.scrollTo(0, 0)")  # (the sit click had scrolled)
    answer = await creator.request("sit", table=table, seat=1, buy_in=5000)
    assert answer["type"] == "ok", answer
    await expect(page.locator("#actions .your-turn")).to_be_visible()
    await expect(page.locator(f".seat[data-seat='{seats - 1}']")).to_be_visible()
    fits = await page.evaluate("""() => {
        const w = window.innerWidth, h = window.innerHeight;
        const bar = document.querySelector("#actions").getBoundingClientRect();
        const mine = document.querySelector(".seat.me").getBoundingClientRect();
        const seats = [...document.querySelectorAll(".seat")].map((s) => s.getBoundingClientRect());
        const targets = [...document.querySelectorAll("#actions button")]
            .map((b) => b.getBoundingClientRect());
        return {
            scroll: document.documentElement.scrollWidth, w, h,
            bar: [bar.top, bar.bottom],
            seatsIn: seats.every((r) => r.left >= 0 && r.right <= w),
            out: seats.filter((r) => r.left < 0 || r.right > w).map((r) => [r.left, r.right]),
            small: targets.filter((r) => r.height < 44 || r.width < 44).length,
            mine: [mine.top, mine.bottom],
        };
    }""")
    # the bar sticks to the bottom of the screen: the player's own seat (their cards) shows
    # above it, not under it
    assert fits["mine"][0] >= 0 and fits["mine"][1] <= fits["bar"][0], fits
    assert fits["scroll"] <= fits["w"], fits
    assert fits["seatsIn"], fits
    assert fits["bar"][0] >= 0 and fits["bar"][1] <= fits["h"], fits
    assert fits["small"] == 0, fits
    name = f"phone-{viewport['width']}-{seats}-seats"
    await page.screenshot(path=str(alice_shot_path(name)), animations="disabled")


async def test_a_second_tab_is_the_same_player_and_log_out_signs_out(
        live: Live, open_player: OpenPlayer) -> None:
    creator = await host(live)
    table = await create(creator, variant="holdem", structure="no_limit",
                         stakes={"blinds": [50, 100]}, seats=6)
    alice = await seated_player(live, open_player, table, "Alice", 0)
    second = await alice.context.new_page()
    await second.goto(live.url + f"#/table/{table}")
    await expect(second.locator("body[data-ready='1']")).to_have_count(1)
    await expect(second.locator("#me .who")).to_have_text("Alice")
    await expect(second.locator(".seat.me[data-seat='0']")).to_have_count(1)
    # The first tab is still signed in too.
    await expect(alice.page.locator("#me .who")).to_have_text("Alice")
    # Two guests named Bob are told apart by their tags.
    bob1 = await host(live, "Bob")
    bob2 = await host(live, "Bob")
    for seat, bob in ((1, bob1), (2, bob2)):
        answer = await bob.request("sit", table=table, seat=seat, buy_in=2000)
        assert answer["type"] == "ok", answer
    tags = [await alice.page.locator(f".seat[data-seat='{s}'] .badge.guest").inner_text()
            for s in (1, 2)]
    assert tags[0] != tags[1], tags
    # Log out: the token is revoked, the page asks for a name again.
    await second.click("#logout-btn")
    await expect(second.locator("#table-hello-name")).to_be_visible()  # the table asks a name
    await expect(second.locator("#me .who")).to_have_count(0)
    assert await second.evaluate("() => localStorage.getItem('poker.token')") is None
    await second.close()


async def test_the_result_stays_up_three_seconds_and_a_split_pot_names_every_winner(
        live: Live, open_player: OpenPlayer) -> None:
    # Both players get aces and a board that plays: the pot is split. The next hand starts
    # 0.2 s later on the server; the page keeps the result up anyway.
    first = ["As", "Ah", "Ad", "Ac", "2c", "Kh", "Kd", "Qs", "3c", "Js", "4c", "Ts"]
    deck = [*first, *(c for c in make_deck(lowest_rank=2) if c not in first)]
    creator = await host(live, "Bob")
    table = await create(creator, variant="holdem", structure="no_limit",
                         stakes={"blinds": [50, 100]}, seats=2, settings={"pause": 0.2},
                         decks=[deck])
    await creator.request("watch", table=table)
    alice = await seated_player(live, open_player, table, "Alice", 0)
    answer = await creator.request("sit", table=table, seat=1, buy_in=5000)
    assert answer["type"] == "ok", answer
    await alice.page.evaluate("""() => {
        window.__bannerTimes = [null, null];
        new MutationObserver(() => {
            const up = !!document.querySelector(".winner-banner");
            const t = window.__bannerTimes;
            if (up && t[0] === null) t[0] = performance.now();
            if (!up && t[0] !== null && t[1] === null) t[1] = performance.now();
        }).observe(document.body, { childList: true, subtree: true });
    }""")
    # Alice goes all-in, Bob calls: the run-out is dealt card by card.
    await alice.act("raise", 5000)
    await expect(alice.page.locator("#actions [data-act]")).to_have_count(0)
    turn = await creator.event("turn", table=table, seat=1)
    assert turn["seat"] == 1
    answer = await creator.request("act", table=table, action="call")
    assert answer["type"] == "ok", answer
    # The board grows card by card: the page shows 3, then 4, then 5 board cards.
    board = alice.page.locator(".board .card")
    await expect(board).to_have_count(3)
    await expect(board).to_have_count(4)
    await expect(board).to_have_count(5)
    banner = alice.page.locator(".winner-banner")
    await expect(banner).to_be_visible()
    await expect(banner).to_contain_text(
        "The pot is split: Alice 5,000, Bob 5,000 with straight, ace high")
    await alice.shot("split-pot-result")
    # The page's own clock: from the banner's first frame to its last (the next hand starts
    # 0.2 s after this one on the server).
    await expect(banner).to_have_count(0, timeout=15_000)
    shown = await alice.page.evaluate("() => window.__bannerTimes")
    stayed = shown[1] - shown[0]
    assert stayed >= 3000, shown


async def test_a_link_to_a_table_that_no_longer_exists(
        live: Live, open_player: OpenPlayer) -> None:
    player = await open_player(DESKTOP)
    await player.goto(live.url)
    await player.hello("Alice")
    await player.goto(live.url, "#/table/t999999")
    await expect(player.page.locator("#gone")).to_contain_text("This table no longer exists")
    await expect(player.page.locator("[data-sit]")).to_have_count(0)
    await player.shot("table-gone")


async def test_a_reload_mid_hand_keeps_chat_log_and_sitting_out(
        live: Live, open_player: OpenPlayer) -> None:
    creator = await host(live, "Bob")
    table = await create(creator, variant="holdem", structure="no_limit",
                         stakes={"blinds": [50, 100]}, seats=2, settings={"pause": 0.2})
    alice = await seated_player(live, open_player, table, "Alice", 0)
    answer = await creator.request("sit", table=table, seat=1, buy_in=5000)
    assert answer["type"] == "ok", answer
    await creator.request("chat", table=table, text="good luck")
    page = alice.page
    await expect(page.locator("#chat-lines")).to_contain_text("good luck")
    await expect(page.locator("#actions .your-turn")).to_be_visible()
    await page.click("#sitout-btn")
    await expect(page.locator("#sitout-btn")).to_have_text(OUT_NEXT_HAND)
    await expect(page.locator("#hand-log")).to_contain_text("posts blind")
    await page.reload()
    await expect(page.locator("body[data-ready='1']")).to_have_count(1)
    await expect(page.locator("#me .who")).to_have_text("Alice")
    await expect(page.locator(".seat.me[data-seat='0']")).to_have_count(1)
    await expect(page.locator("#chat-lines")).to_contain_text("good luck")
    await expect(page.locator("#hand-log")).to_contain_text("posts blind")
    await expect(page.locator("#sitout-btn")).to_have_text(OUT_NEXT_HAND)
    await expect(page.locator(".seat[data-seat='0'] .clock .bank")).not_to_be_empty()
    # Her turn is hers again after the reload: the keys work with the slider focused.
    await page.focus("#amount-range")
    await page.keyboard.press("c")
    await expect(page.locator("#actions [data-act]")).to_have_count(0)
    acted = await creator.event("acted", table=table, seat=0)
    assert acted["action"] == "call"


async def test_the_meter_on_a_linked_caribbean_table_and_a_fresh_balance_after_leaving(
        live: Live, open_player: OpenPlayer) -> None:
    jackpot = live.app.registry.jackpot  # type: ignore[attr-defined]
    jackpot.pool = 250_000
    creator = await host(live)
    table = await create(creator, variant="caribbean", stakes={"min": 100, "max": 1000},
                         seats=5, name="Island", settings={"pause": 0.2})
    player = await open_player()
    # Straight to the table by its link, never the lobby: the meter and the paytable show.
    await player.goto(live.url, f"#/table/{table}")
    await expect(player.page.locator("#jackpot-pool")).to_have_text("250,000")
    await expect(player.page.locator("#paytable")).to_contain_text("royal")
    # CSP-09: the royal flush minimum is shown with the terms, as its own term
    await expect(player.page.locator("#paytable")).to_contain_text(
        "royal 100% (at least 1,000,000)")
    await player.page.fill("#table-hello-name", "Alice")
    await player.page.click("#table-hello button[type='submit']")
    await expect(player.page.locator("#me .balance")).to_have_text("10,000")
    await player.sit(0, 3000)
    await expect(player.page.locator("#me .balance")).to_have_text("7,000")
    await player.page.click("#actions [data-act='fold']")  # skip the round
    await player.page.click("#leave-btn")
    await expect(player.page.locator(".seat.me")).to_have_count(0)
    await expect(player.page.locator("#me .balance")).to_have_text("10,000")
    # The sit panel offers what she has now.
    await player.page.click("[data-sit='1']")
    await expect(player.page.locator("#buy-in-hint")).to_contain_text("you have 10,000")
    await player.shot("caribbean-linked")


SEVEN = ["As", "Kd", "Qh", "Jc", "Ts", "9d", "8h"]


async def test_desktop_seven_card_hands_stay_off_the_chat_and_the_lobby_fits(
        live: Live, open_player: OpenPlayer) -> None:
    creator = await host(live)
    for i in range(3):
        await create(creator, variant="caribbean", stakes={"min": 100, "max": 1000}, seats=5,
                     name=f"A long Caribbean table name {i}")
    table = await create(creator, variant="stud7", structure="fixed_limit",
                         stakes={"ante": 10, "bring_in": 25, "small_bet": 50, "big_bet": 100},
                         seats=8, name="Stud hall")
    player = await open_player(DESKTOP)
    await player.goto(live.url)
    await player.hello("Alice")
    go = player.page.locator("#table-list .go-btns").first
    await expect(go).to_be_visible()
    clipped = await player.page.evaluate("""() => {
        const box = document.querySelector(".table-scroll").getBoundingClientRect();
        return [...document.querySelectorAll("#table-list .go-btns .btn")].some(
            (b) => b.getBoundingClientRect().right > box.right + 0.5);
    }""")
    assert not clipped
    await player.goto(live.url, f"#/table/{table}/watch")
    await expect(player.page.locator("[data-seat='7']")).to_have_count(1)
    # Seven cards at every seat, as a seventh street shows them (the page's own state).
    await player.page.evaluate("""(cards) => {
        const { store, dispatch } = window.__poker;
        const t = store.state.table;
        const seats = Array.from({ length: 8 }, (_, i) => ({ seat: i, name: `Player ${i + 1}`,
            stack: 1000, bet: 0, state: "active", cards: [null, null, null],
            up: cards.slice(0, 4) }));
        dispatch({ type: "snapshot", table: t.id, seq: t.seq, variant: "stud7",
            structure: "fixed_limit", stakes: t.stakes, seats, board: [], pots: [],
            button: 0, turn: null, hand: "x.1", name: t.name });
    }""", SEVEN)
    await expect(player.page.locator(".seat .card")).to_have_count(56)
    await expect(player.page.locator(".dealer-button")).to_have_count(0)  # no button in stud
    overlap = await player.page.evaluate("""() => {
        const side = document.querySelector(".side").getBoundingClientRect();
        return [...document.querySelectorAll(".seat .card")].filter(
            (c) => c.getBoundingClientRect().right > side.left).length;
    }""")
    assert overlap == 0
    await player.shot("stud7-desktop")


async def test_pre_actions_apply_on_the_turn_and_check_ends_when_the_bet_changes(
        live: Live, open_player: OpenPlayer) -> None:
    creator = await host(live, "Bob")
    table = await create(creator, variant="holdem", structure="no_limit",
                         stakes={"blinds": [50, 100]}, seats=2, settings={"pause": 0.2})
    await creator.request("watch", table=table)
    alice = await seated_player(live, open_player, table, "Alice", 0)
    answer = await creator.request("sit", table=table, seat=1, buy_in=5000)
    assert answer["type"] == "ok", answer
    page = alice.page
    await alice.act("call")  # heads-up: Alice (the button) acts first before the flop
    await creator.event("turn", table=table, seat=1)
    assert (await creator.request("act", table=table, action="check"))["type"] == "ok"
    # The flop: Alice checks; while Bob thinks she chooses "call any"; Bob bets; she calls
    # by itself.
    await alice.act("check")
    call_any = page.locator("#preactions [data-pre='call_any']")
    await expect(call_any).to_be_visible()
    await call_any.click()
    await expect(call_any).to_have_attribute("aria-pressed", "true")
    await alice.shot("pre-actions")
    await creator.event("turn", table=table, seat=1)
    assert (await creator.request("act", table=table, action="bet", amount=200))["type"] == "ok"
    acted = await creator.event("acted", table=table, seat=0)
    assert acted["action"] == "call"
    # The turn card: Alice checks and chooses "check"; Bob bets: her choice is cleared, the
    # bar offers her the decision.
    await alice.act("check")
    check = page.locator("#preactions [data-pre='check']")
    await expect(check).to_be_visible()
    await check.click()
    await expect(check).to_have_attribute("aria-pressed", "true")
    await creator.event("turn", table=table, seat=1)
    assert (await creator.request("act", table=table, action="bet", amount=200))["type"] == "ok"
    await expect(page.locator("#actions [data-act='call']")).to_be_enabled()
    await expect(page.locator("#preactions [data-pre]")).to_have_count(0)
    await alice.act("fold")


async def test_facing_a_bet_the_pre_actions_read_fold_and_call_the_amount_owed(
        live: Live, open_player: OpenPlayer) -> None:
    """Three-handed, the two protocol players raise once a betting round and otherwise call
    or check; the first time Alice faces a bet while another player decides, her pre-actions
    read "Fold", "Call N" (N what she owes: what her stack then loses to the call the server
    makes for her) and "Call any", with no "Check" she could not make."""
    bob = await host(live, "Bob")
    table = await create(bob, variant="holdem", structure="no_limit",
                         stakes={"blinds": [50, 100]}, seats=3, settings={"pause": 0.2})
    await bob.request("watch", table=table)
    carol = await host(live, "Carol")
    await carol.request("watch", table=table)
    alice = await seated_player(live, open_player, table, "Alice", 0)
    for client, seat in ((bob, 1), (carol, 2)):
        answer = await client.request("sit", table=table, seat=seat, buy_in=5000)
        assert answer["type"] == "ok", answer
    page, bar = alice.page, alice.page.locator("#preactions")
    raised, armed_at = False, None
    for _ in range(400):  # events of a few hands at most
        event = await bob.event_any()
        kind = event.get("type")
        if kind in ("board", "hand_started"):
            raised = False
        if kind != "turn" or event.get("table") != table:
            continue
        seat = event["seat"]
        if seat == 0:
            if armed_at is not None:
                acted = await bob.event("acted", table=table, seat=0)
                assert acted["action"] == "call", acted  # the pre-action, sent by itself
                assert armed_at[0] == armed_at[1] - acted["stack"], (armed_at, acted)
                return
            check = page.locator("#actions [data-act='check']")
            await expect(page.locator("#actions [data-act='fold']")).to_be_enabled()
            await alice.act("check" if await check.count() else "call")
            continue
        options = (event if seat == 1 else
                   await carol.event("turn", table=table, seat=2)).get("options") or {}
        for_bet = options.get("raise") or options.get("bet")
        if not raised and for_bet:
            action = "raise" if options.get("raise") else "bet"
            fields = {"action": action, "amount": for_bet["min"]}
            raised = True
        else:
            fields = {"action": "call" if options.get("call") else "check"}
        client = bob if seat == 1 else carol
        answer = await client.request("act", table=table, **fields)
        assert answer["type"] == "ok", answer
        if fields["action"] in ("raise", "bet") and armed_at is None:
            nxt = await bob.event("turn", table=table)
            bob.events.insert(0, nxt)  # (read again by the loop)
            if nxt["seat"] != 0 and await page.locator(".seat.me [data-card]").count():
                # the other player decides next: Alice faces this bet while it is not her turn
                await expect(bar.locator("[data-pre='check']")).to_have_count(0)
                await expect(bar.locator("[data-pre='check_fold']")).to_have_text("Fold")
                await expect(bar.locator("[data-pre='call_any']")).to_have_text("Call any")
                call = bar.locator("[data-pre='call']")
                await expect(call).to_have_text(re.compile(r"^Call [\d,]+$"))
                owed = int(re.sub(r"\D", "", await call.inner_text()))
                stack = int(re.sub(r"\D", "", await alice.stack(0)))
                await call.click()
                await expect(call).to_have_attribute("aria-pressed", "true")
                await alice.shot("pre-actions-facing-a-bet")
                armed_at = (owed, stack)
    raise AssertionError("Alice never faced a bet while another player decided")
