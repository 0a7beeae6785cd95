"""Issue 24's proof: an evening of a home game, played in Chromium, for every pot game.

Ann hosts on her laptop (1280x800). Bob plays on his phone (360, 390 or 430 px wide, by
game). Cat and Dan, on laptops, both ask for seat 3: Ann approves Cat there, Dan's request
updates itself ("Seat 3 was taken meanwhile: Approve seats Dan at seat 4.") and Ann's
approval seats him at seat 4; no request is left behind. Someone watches through the invite
link without sitting (a spectator page). Then two hands:

1. Cat's laptop sleeps (her page is closed) when her turn comes: within a second Ann's,
   Bob's and the spectator's pages say "disconnected" on her seat, and the table moves on
   when the action clock (3 s) runs out, not after her 60 s time bank too. She opens the
   invite link again and is back in her seat, playing on.
2. Cat clicks "Leave table" at the hand's first turn: her hand is folded the moment the
   action reaches her (no clock, no ``turn``), and when the hand ends her seat is free.

Ann paused the game during the second hand; when it ends she closes the game. Every player's
page (Cat's too) shows the evening's ledger, and each player's net equals the change of their
balance, in the page's header and in the wallet; the nets (with the house's row) sum to zero
and no chip was created or destroyed. Bob's phone never scrolls sideways.

What a person does is done on the pages (clicks); the test's protocol client is Ann's own
account watching the table, used only to see the events (whose turn, the clock's deadline).
Fixed decks (a seeded shuffle), test mode; nothing sleeps: every wait is on a page or an
event, each bounded.

Caribbean Stud, house-banked, is its own short evening: the sleeper's ante question times out
at the ante phase's clock (sat out of that round), the leaver's is answered at once (folded
before the round is dealt); the ledger's house row carries the house's net.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

import pytest
from playwright.async_api import Page, ViewportSize, expect

from server.rules.cards import make_deck
from tests.net.conftest import Client, Live
from tests.web.conftest import DESKTOP, OpenPlayer, Player, host

pytestmark = pytest.mark.browser

CLOCK = 3.0  # the table's action clock (the server's time bank stays 60 s)
BUY_IN = 4000
STUD = {"structure": "fixed_limit",
        "stakes": {"ante": 10, "bring_in": 25, "small_bet": 50, "big_bet": 100}}
BLINDS = {"structure": "no_limit", "stakes": {"blinds": [50, 100]}}
PHONES: dict[int, ViewportSize] = {360: {"width": 360, "height": 740},
                                   390: {"width": 390, "height": 844},
                                   430: {"width": 430, "height": 932}}
# game -> (table fields, lowest rank of its deck, Bob's phone width)
GAMES: dict[str, tuple[dict[str, Any], int, int]] = {
    "holdem": (BLINDS, 2, 360),
    "manila": (BLINDS, 7, 390),
    "manila3": (BLINDS, 6, 430),
    "draw": (BLINDS, 2, 360),
    "stud5": (STUD, 2, 390),
    "stud7": (STUD, 2, 430),
    "caribbean": ({"stakes": {"min": 100, "max": 1000}}, 2, 360),  # against the house
}
PASSIVE = ["check", "call", "bring_in", "draw", "ante", "play"]  # the first one offered
# Caribbean Stud: every seat decides at once on one phase clock (no bank), and a page holds
# a round's result 4 s (js/pacing.js) before it shows the next round's ante question, so the
# pause between rounds covers that hold and the phases are 6 s
HOUSE_CLOCK, HOUSE_PAUSE = 6.0, 4.0
ANN, BOB, CAT, DAN = 0, 1, 2, 3
NAMES = {ANN: "Ann", BOB: "Bob", CAT: "Cat", DAN: "Dan"}


async def no_sideways_scroll(page: Page, when: str) -> None:
    wide = await page.evaluate("() => document.documentElement.scrollWidth - innerWidth")
    assert wide <= 0, f"{when}: the page scrolls sideways by {wide}px"


async def ask_for_seat(friend: Player, link: str, name: str, seat: int) -> None:
    """A friend opens the invite link, says hello and asks for ``seat``."""
    await friend.page.goto(link)
    await expect(friend.page.locator("body[data-ready='1']")).to_have_count(1)
    await expect(friend.page.locator("#home-status")).to_contain_text("hosted by Ann")
    await friend.page.fill("#table-hello-name", name)
    await friend.page.click("#table-hello button[type='submit']")
    await expect(friend.page.locator("#me .who")).to_have_text(name)
    await friend.page.click(f"[data-sit='{seat}']")
    await friend.page.fill("#buy-in", str(BUY_IN))
    await friend.page.click("#sit-confirm")
    await expect(friend.page.locator("#home-note")).to_have_text(
        "Waiting for the host to let you in\u2026")


def chips_text(n: int) -> str:
    return f"{n:,}"


def signed_number(text: str) -> int:
    return int(text.strip().replace("\u2212", "-").replace("+", "").replace(",", ""))


class Evening:
    """The pages of one evening and the eye on its events (Ann's protocol client)."""

    def __init__(self, live: Live, table: str, link: str, eye: Client,
                 players: dict[int, Player], spectator: Player, phone: int,
                 clock: float) -> None:
        self.live, self.table, self.link, self.eye = live, table, link, eye
        self.players, self.spectator, self.phone = players, spectator, phone
        self.seen: list[dict[str, Any]] = []  # this hand's events so far
        self.clock = clock

    async def next(self, timeout: float = 20.0) -> dict[str, Any]:
        """The table's next event (bounded wait); kept in ``seen``."""
        async def wait() -> dict[str, Any]:
            while True:
                event = await self.eye.event_any()
                if event.get("table") == self.table:
                    return event
        event = await asyncio.wait_for(wait(), timeout)
        self.seen.append(event)
        return event

    async def until(self, kind: str, **match: Any) -> dict[str, Any]:
        while True:
            event = await self.next()
            if event["type"] == kind and all(event.get(k) == v for k, v in match.items()):
                return event

    async def play(self, seat: int) -> str:
        """The seat's page clicks its first passive action (check, call, bring in, stand
        pat)."""
        page = self.players[seat].page
        bar = page.locator("#actions [data-act]")
        await expect(bar.first).to_be_enabled()
        offered = await bar.evaluate_all("(bs) => bs.map((b) => b.dataset.act)")
        action = next(a for a in PASSIVE if a in offered)
        await page.click(f"#actions [data-act='{action}']")
        return action

    def others(self) -> list[Page]:
        """The pages that watch Cat's seat: Ann's, Bob's and the spectator's."""
        return [self.players[ANN].page, self.players[BOB].page, self.spectator.page]

    async def cat_sleeps(self, turn: dict[str, Any], game: str) -> None:
        """Cat's page closes on her turn: 'disconnected' on her seat everywhere within a
        second (the events meanwhile stay queued for the loop)."""
        cat = self.players[CAT]
        if game != "caribbean":  # (a house round's phase has one deadline and no bank)
            assert turn.get("time_bank") == pytest.approx(60.0)  # a bank she could have used
        await cat.page.close()  # the laptop's lid
        badges = [p.locator(f".seat[data-seat='{CAT}'] .badge.offline") for p in self.others()]
        await asyncio.gather(*(expect(b).to_be_visible(timeout=1000) for b in badges))
        for badge in badges:
            await expect(badge).to_have_text("disconnected")

    async def seen_disconnected(self, game: str) -> None:
        """What the others' pages look like meanwhile (checked once her turn is over, so
        nobody else's clock runs while the screenshots are taken)."""
        bob = self.players[BOB].page
        await no_sideways_scroll(bob, f"{game}: a seat disconnected")
        inside = await bob.evaluate(f"""() => {{
            const seat = document.querySelector('.seat[data-seat="{CAT}"]');
            const b = seat.querySelector('.badge.offline').getBoundingClientRect();
            const p = seat.querySelector('.plate').getBoundingClientRect();
            return [b.left - p.left, p.right - b.right]; }}""")
        assert min(inside) >= 0, f"{game}: the label runs out of the seat's plate: {inside}"
        await self.players[BOB].shot(f"evening-{game}-phone")
        # the host's laptop: no sideways scroll, the four players' ledger whole in its column
        await no_sideways_scroll(self.players[ANN].page, f"{game}: the host's page")
        ledger = await self.players[ANN].page.evaluate("""() => {
            const box = document.querySelector('#host-ledger .ledger-scroll');
            return box ? box.scrollWidth - box.clientWidth : null; }""")
        assert ledger is not None and ledger <= 0, f"{game}: the ledger scrolls by {ledger}px"
        if game == "holdem":
            await self.players[ANN].shot(f"evening-{game}-host")

    def moved_on(self, turn: dict[str, Any], acted: dict[str, Any]) -> None:
        """Her turn ended when the action clock ran out (the server's clock: the turn's
        deadline is its start plus the clock), not after her 60 s bank too."""
        waited = time.time() - (turn["deadline"] - self.clock)
        assert acted.get("timeout") is True, acted
        assert self.clock - 0.3 <= waited < self.clock + 2.0, f"the table waited {waited:.2f}s"
        assert not [e for e in self.seen if e["type"] == "turn" and e.get("in_bank")]

    async def cat_comes_back(self) -> None:
        """Cat opens the invite link again (her browser kept her sign-in): her seat, and
        the label gone from the others' pages."""
        cat = self.players[CAT]
        page = await cat.context.new_page()
        page.on("pageerror", lambda exc: cat.errors.append(str(exc)))
        cat.page = page
        await page.goto(self.link)
        await expect(page.locator(f".seat.me[data-seat='{CAT}']")).to_have_count(1)
        for other in self.others():
            await expect(other.locator(f".seat[data-seat='{CAT}'] .badge.offline")).to_have_count(0)

    async def first_hand(self, game: str) -> None:
        """Everyone plays passively; Cat's first turn is where her laptop sleeps."""
        self.seen = []
        slept: dict[str, Any] | None = None  # the turn she slept on
        back: asyncio.Task[None] | None = None
        while True:
            event = await self.next()
            if event["type"] == "hand_ended":
                break
            if event["type"] == "acted" and event["seat"] == CAT and back is None:
                assert slept is not None
                self.moved_on(slept, event)
                await self.seen_disconnected(game)
                back = asyncio.create_task(self.cat_comes_back())  # the table plays on
            if event["type"] != "turn" or event.get("in_bank"):
                continue
            if event["seat"] == CAT and slept is None:
                slept = event
                await self.cat_sleeps(event, game)
            elif event["seat"] == CAT:
                assert back is not None
                await back
                await self.play(CAT)
            else:
                await self.play(event["seat"])
        assert back is not None, "Cat had a turn"
        await back
        presence = [e["online"] for e in self.seen if e["type"] == "presence"]
        # (online again within the hand, or after it: the pages showed it, cat_comes_back)
        assert presence in ([False], [False, True]), presence

    async def second_hand(self) -> None:
        """Cat leaves at the hand's first turn; she is folded when the action reaches her,
        without a clock or a turn. Ann pauses the game meanwhile (no hand after this)."""
        self.seen = []
        cat, ann = self.players[CAT].page, self.players[ANN].page
        left_at: float | None = None
        first: dict[str, Any] | None = None  # the hand's first turn
        last_act = 0.0
        while True:
            event = await self.next()
            kind = event["type"]
            if kind == "hand_ended":
                break
            if kind == "acted":
                if event["seat"] == CAT:
                    assert left_at is not None
                    assert event["action"] == "fold" and "timeout" not in event, event
                    if self.clock == CLOCK:  # (a house round's turns come all at once)
                        waited = time.monotonic() - max(left_at, last_act)
                        assert waited < 1.5, f"the leaver's fold took {waited:.2f}s"
                    # Caribbean Stud: folded in the ante phase, before its clock deals
                    assert not [e for e in self.seen if e["type"] == "dealer"], self.seen
                last_act = time.monotonic()
                continue
            if kind != "turn" or event.get("in_bank"):
                continue
            if first and event["seat"] == CAT and event["deadline"] == first["deadline"]:
                continue  # Caribbean Stud: her ante question, announced with everyone's
            if left_at is None:  # the hand's first turn: Cat leaves
                first = event
                await ann.click("#host-game [data-host='pause']")
                await cat.click("#leave-btn")
                await expect(cat.locator("#banner")).to_contain_text("Your hand is folded")
                await expect(cat.locator("#actions [data-act]")).to_have_count(0)
                left_at = time.monotonic()
                if event["seat"] == CAT:
                    continue  # folded at once, on her own turn
            assert event["seat"] != CAT, "the leaver was asked to act"
            await self.play(event["seat"])
        folds = [e for e in self.seen if e["type"] == "acted" and e["seat"] == CAT]
        assert len(folds) == 1, folds
        await self.until("left", seat=CAT)
        await expect(cat.locator(".seat.me")).to_have_count(0)
        await expect(ann.locator(f".seat.empty-seat[data-seat='{CAT}']")).to_have_count(1)

    async def close(self, game: str) -> None:
        """Ann closes the game: every player's page shows the evening's ledger, each net
        equal to the player's balance change; the spectator is told, without the ledger."""
        ann = self.players[ANN].page
        await expect(ann.locator("#host-game")).to_contain_text(
            "Paused: the next hand waits for the host")
        await ann.click("#host-close")
        await ann.click("#host-confirm [data-confirm='yes']")
        start = self.live.app.config.starting_balance
        nets: dict[str, int] = {}
        for seat, player in self.players.items():
            page = player.page
            await expect(page.locator("#gone-ledger")).to_be_visible()
            rows: list[list[str]] = await page.evaluate("""() => [...document.querySelectorAll(
                '#gone-ledger-table tbody tr')].map((tr) => [tr.className,
                tr.querySelector('th').textContent, tr.querySelector('td.net').textContent])""")
            theirs = {name: signed_number(net) for cls, name, net in rows if cls != "house"}
            house = [signed_number(net) for cls, _, net in rows if cls == "house"]
            house_net = sum(house)
            assert sum(theirs.values()) + sum(house) == 0, rows
            assert set(theirs) == set(NAMES.values()), rows
            if nets:
                assert theirs == nets, (NAMES[seat], theirs, nets)
            nets = theirs
            net = theirs[NAMES[seat]]
            await expect(page.locator("#me .balance")).to_have_text(chips_text(start + net))
            pid = await page.evaluate("() => window.__poker.store.state.me.player_id")
            assert self.live.app.wallet.balance(pid) == start + net
        await expect(self.spectator.page.locator("#gone")).to_contain_text(
            "The host closed the game")
        await expect(self.spectator.page.locator("#gone-ledger")).to_be_hidden()
        bob = self.players[BOB]
        await no_sideways_scroll(bob.page, f"{game}: the closing ledger")
        if game in ("holdem", "stud7"):
            await bob.shot(f"evening-{game}-ledger-phone")
        wallet = self.live.app.wallet  # no chip created or destroyed: the house's net too
        assert wallet.total() + house_net == start * len(wallet.players())


@pytest.mark.parametrize("game", list(GAMES))
async def test_an_evening_of_a_home_game(live: Live, open_player: OpenPlayer,
                                         game: str) -> None:
    fields, lowest, width = GAMES[game]
    clock, pause = (HOUSE_CLOCK, HOUSE_PAUSE) if game == "caribbean" else (CLOCK, 0.5)
    decks = []
    for hand in range(3):
        deck = list(make_deck(lowest_rank=lowest))
        random.Random(f"{game}{hand}").shuffle(deck)
        decks.append(deck)
    eye = await host(live, "Ann")
    answer = await eye.request("create_table", variant=game, seats=6, name=f"Evening {game}",
                               private=True, decks=decks,
                               settings={"pause": pause, "action_clock": clock,
                                         "ante_time": clock}, **fields)
    assert answer["type"] == "ok", answer
    table, code = answer["table"], answer["code"]
    assert (await eye.request("watch", table=table))["type"] == "ok"
    link = f"{live.url}#/table/{table}?code={code}"

    # Ann, on her laptop, is the host (the same account as the eye): she sits and holds the
    # game until her friends are in
    ann = await open_player(DESKTOP)
    await ann.context.add_init_script(
        f"localStorage.setItem('poker.token', {json.dumps(eye.token)})")
    await ann.goto(live.url, f"#/table/{table}")
    await expect(ann.page.locator("#host-panel")).to_be_visible()
    assert (await ann.page.locator("#host-link").input_value()).endswith(
        f"#/table/{table}?code={code}")
    await ann.page.click("#host-game [data-host='pause']")
    await ann.sit(ANN, BUY_IN)

    # Bob on his phone; then Cat and Dan both ask for seat 3
    bob = await open_player(PHONES[width])
    await ask_for_seat(bob, link, "Bob", BOB)
    await ann.page.get_by_role("button", name="Approve Bob").click()
    await expect(bob.page.locator(f".seat.me[data-seat='{BOB}']")).to_have_count(1)
    cat, dan = await open_player(DESKTOP), await open_player(DESKTOP)
    await ask_for_seat(cat, link, "Cat", CAT)
    await ask_for_seat(dan, link, "Dan", CAT)
    cats = ann.page.locator(".seat-request", has_text="Cat")
    dans = ann.page.locator(".seat-request", has_text="Dan")
    await cats.get_by_role("button", name="Approve Cat").click()
    await expect(cat.page.locator(f".seat.me[data-seat='{CAT}']")).to_have_count(1)
    await expect(dans).to_contain_text(
        f"Seat {CAT + 1} was taken meanwhile: Approve seats Dan at seat {DAN + 1}.")
    await dans.get_by_role("button", name="Approve Dan").click()
    await expect(dan.page.locator(f".seat.me[data-seat='{DAN}']")).to_have_count(1)
    await expect(ann.page.locator(".seat-request")).to_have_count(0)  # no stale request
    await expect(ann.page.locator("#banner")).to_be_hidden()
    await expect(dan.page.locator("#home-note")).to_be_empty()

    # someone watches through the invite link, without sitting
    spectator = await open_player(DESKTOP)
    await spectator.page.goto(link)
    await expect(spectator.page.locator("body[data-ready='1']")).to_have_count(1)
    await expect(spectator.page.locator(f".seat[data-seat='{DAN}']")).to_contain_text("Dan")

    evening = Evening(live, table, link, eye, {ANN: ann, BOB: bob, CAT: cat, DAN: dan},
                      spectator, width, clock)
    await ann.page.click("#host-game [data-host='resume']")
    await evening.until("hand_started")
    if game != "caribbean":  # (a house round deals once the antes are in)
        await expect(bob.page.locator(".seat.me .card").first).to_be_visible()
    await no_sideways_scroll(bob.page, f"{game}: the first hand dealt")
    await evening.first_hand(game)
    await evening.until("hand_started")
    await evening.second_hand()
    await evening.close(game)
