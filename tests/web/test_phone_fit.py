"""Every game fits a phone in portrait (issue 24): a full table of each variant played to its
showdown, seen by three seated players' pages 360, 390 and 430 px wide (and a fourth at
1280x800). At the end of the hand
(the most cards a seat ever holds: Seven Card Stud's seven), on every page:

* the page does not scroll sideways (`scrollWidth <= innerWidth`);
* every seat's plate, name, stack, cards and hand name lie inside the viewport;
* every face-up card shows its whole rank and suit (the point at the middle of each is the
  card itself, not a neighbour overlapping it);
* a losing hand mucked unseen says "mucked".

The players are protocol clients (the test's own); each page is one of them (the same
account, by its token), so the page shows that seat as its own at the bottom. Each client
checks or calls (brings in, stands pat, antes and plays) on its own turns. Fixed decks
(a seeded shuffle), test mode; nothing sleeps.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page, expect

from server.rules.cards import make_deck
from tests.net.conftest import Client, Live, start_live, test_config
from tests.web.conftest import DESKTOP, SCREENSHOTS, OpenPlayer, create, host

pytestmark = pytest.mark.browser

PHONES = [{"width": 360, "height": 740}, {"width": 390, "height": 844},
          {"width": 430, "height": 932}, DESKTOP]  # and a laptop
STUD = {"structure": "fixed_limit",
        "stakes": {"ante": 10, "bring_in": 25, "small_bet": 50, "big_bet": 100}}
BLINDS = {"structure": "no_limit", "stakes": {"blinds": [50, 100]}}
# variant -> (seats, table fields, lowest rank of its deck): a full table of each game
GAMES: dict[str, tuple[int, dict[str, Any], int]] = {
    "holdem": (6, BLINDS, 2),
    "holdem10": (10, BLINDS, 2),
    "manila": (10, BLINDS, 7),
    "manila3": (9, BLINDS, 6),
    "draw": (6, BLINDS, 2),
    "stud5": (10, STUD, 2),
    "stud7": (7, STUD, 2),
    "stud7-8": (8, STUD, 2),  # eight: the deck runs short, seventh street's card is the board's
    "caribbean": (7, {"stakes": {"min": 100, "max": 1000}}, 2),
}
SHOTS = {"stud7", "holdem", "caribbean"}  # the screenshots kept (client_web/screenshots)
NAMES = ["Alexandra", "Bartholomew", "Charlotte", "Dmitri", "Eleanor", "Francesca", "Gus",
         "Henrietta", "Ines", "Jonathan"]


@pytest.fixture
async def live(tmp_path: Path) -> AsyncIterator[Live]:
    """The server in test mode; this test's one address makes eleven guests at once."""
    server = await start_live(test_config(tmp_path, guests_per_ip_per_minute=60))
    yield server
    await server.close()


def choose(options: dict[str, Any]) -> dict[str, Any]:
    """The fields of a passive act: decline, bring in, stand pat, ante, play, check, call."""
    if options.get("decline"):
        return {"action": "decline"}
    if options.get("bring_in"):
        return {"action": "bring_in"}
    if options.get("draw") is not None and options.get("draw") is not False:
        return {"action": "draw", "discard": []}
    if options.get("ante"):
        return {"action": "ante", "amount": options["ante"]["min"]}
    if options.get("play"):
        return {"action": "play"}
    if options.get("check"):
        return {"action": "check"}
    return {"action": "call"}


async def play_seat(client: Client, table: str, seat: int, seats: int) -> None:
    """Act on this seat's turns, hand after hand, until a hand that dealt every seat in ends;
    in that hand, sit out after acting (so no hand follows it and its end stays on the felt)."""
    dealt: set[int] = set()
    sat_out = False
    while True:
        event = await client.event_any()
        if event.get("table") != table:
            continue
        kind = event["type"]
        if kind == "hand_started":
            dealt = set()
        elif kind in ("dealt", "posted"):
            dealt.add(event["seat"])
        elif kind == "hand_ended" and len(event["stacks"]) == seats:
            return
        elif kind == "turn" and event.get("seat") == seat and event.get("options"):
            fields = choose(event["options"])
            answer = await client.request("act", table=table, **fields)
            assert answer["type"] == "ok", answer
            if len(dealt) == seats and not sat_out and fields["action"] != "ante":
                sat_out = True
                assert (await client.request("sit_out", table=table))["type"] == "ok"


FIT = """() => {
    const w = innerWidth, out = [];
    const inside = (el, what) => {
        const r = el.getBoundingClientRect();
        const span = `${Math.round(r.left)}..${Math.round(r.right)}`;
        if (r.width && (r.left < -0.5 || r.right > w + 0.5)) out.push(`${what} outside: ${span}`);
    };
    for (const seat of document.querySelectorAll('#felt .seat:not(.empty-seat)')) {
        const who = seat.dataset.seat;
        for (const sel of ['.plate', '.name', '.stack', '.hand-name', '.card', '.state']) {
            for (const el of seat.querySelectorAll(sel)) inside(el, `seat ${who} ${sel}`);
        }
        const name = seat.querySelector('.name');
        if (name.scrollHeight > name.clientHeight + 1) out.push(`seat ${who} name cut`);
    }
    const board = document.querySelectorAll('.board .card, .dealer-hand .card');
    for (const el of board) inside(el, 'board card');
    return {scroll: document.documentElement.scrollWidth, w, out};
}"""

HIDDEN = """() => {
    // a face card's rank and suit: the points at the left, middle and right of each one's own
    // glyphs (a text range, not the box around it) must be that card, not a neighbour on it
    const out = [];
    for (const card of document.querySelectorAll('#felt .card.face')) {
        for (const part of card.querySelectorAll('.rank, .suit')) {
            part.scrollIntoView({block: 'center', inline: 'center'});
            const range = document.createRange();
            range.selectNodeContents(part);
            const r = range.getBoundingClientRect();
            const y = r.top + r.height / 2;
            for (const x of [r.left + 1, r.left + r.width / 2, r.right - 1]) {
                const hit = document.elementFromPoint(x, y);
                if (!hit || !card.contains(hit)) {
                    const at = `${Math.round(x - r.left)}/${Math.round(r.width)}px`;
                    const over = hit ? hit.className : 'nothing';
                    out.push(`${card.dataset.card} ${part.className} at ${at} under ${over}`);
                    break;
                }
            }
        }
    }
    // every seat's name, stack and hand name: the middle of each is its own, not covered
    const labels = '#felt .seat .name, #felt .seat .stack, #felt .seat .hand-name';
    for (const el of document.querySelectorAll(labels)) {
        el.scrollIntoView({block: 'center', inline: 'center'});
        const r = el.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        if (!hit || !(el.contains(hit) || hit.contains(el))) {
            out.push(`${el.className} "${el.innerText}" under ${hit ? hit.className : 'nothing'}`);
        }
    }
    window.scrollTo(0, 0);
    return out;
}"""


async def check_fit(page: Page, label: str) -> None:
    fit = await page.evaluate(FIT)
    assert fit["scroll"] <= fit["w"], f"{label}: the page scrolls sideways: {fit}"
    assert not fit["out"], f"{label}: {fit['out']}"
    hidden = await page.evaluate(HIDDEN)
    assert not hidden, f"{label}: a rank or suit is covered: {hidden}"


@pytest.mark.parametrize("game", list(GAMES))
async def test_every_game_fits_phones_at_showdown(live: Live, open_player: OpenPlayer,
                                                  game: str) -> None:
    seats, fields, lowest = GAMES[game]
    variant = {"holdem10": "holdem", "stud7-8": "stud7"}.get(game, game)
    deck = list(make_deck(lowest_rank=lowest))
    random.Random(24).shuffle(deck)
    creator = await host(live, "Rail")
    table = await create(creator, variant=variant, seats=seats, name=f"Full {game}",
                         settings={"pause": 0.5, "action_clock": 120}, decks=[deck], **fields)
    assert (await creator.request("watch", table=table))["type"] == "ok"
    clients = []
    for seat in range(seats):
        client = await host(live, NAMES[seat])
        clients.append(client)
    for seat, client in enumerate(clients):
        answer = await client.request("sit", table=table, seat=seat, buy_in=5000)
        assert answer["type"] == "ok", answer
    pages = []  # opened once seated (the page's seat is its own); nobody acts before
    for seat, viewport in enumerate(PHONES):
        player = await open_player(viewport)
        await player.context.add_init_script(
            f"localStorage.setItem('poker.token', {json.dumps(clients[seat].token)})")
        await player.goto(live.url, f"#/table/{table}")
        await expect(player.page.locator("#me .who")).to_have_text(NAMES[seat])
        await expect(player.page.locator(f".seat.me[data-seat='{seat}']")).to_have_count(1)
        pages.append(player)
    players = [asyncio.create_task(play_seat(c, table, s, seats)) for s, c in enumerate(clients)]
    await asyncio.wait_for(asyncio.gather(*players), 60)
    for seat, player in enumerate(pages):
        page = player.page
        await expect(page.locator("#announcements")).not_to_be_empty()
        await expect(page.locator(f".seat.me[data-seat='{seat}']")).to_have_count(1)
        # the hand is over on this page too (its last event drawn)
        await page.wait_for_function("() => window.__poker.store.state.table.ended")
        width = PHONES[seat]["width"]
        if game in SHOTS:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            await page.screenshot(path=str(SCREENSHOTS / f"fit-{game}-{width}.png"),
                                  animations="disabled", full_page=True)
        await check_fit(page, f"{game} at {width}px")
        # each hand lost unseen at the showdown says "mucked"; no other does
        mucked = await page.evaluate("""() => window.__poker.store.state.table.seats
            .filter((s) => s && s.mucked && !s.shown && s.state !== 'folded').map((s) => s.seat)""")
        labelled = await page.locator(".seat .hand-name.mucked").evaluate_all(
            "(ls) => ls.map((l) => Number(l.closest('.seat').dataset.seat))")
        assert sorted(labelled) == sorted(mucked), (labelled, mucked)
        if game == "stud7":
            assert mucked, "a seven-player stud showdown mucks some hands unseen"
            for s in range(seats):
                await expect(page.locator(f".seat[data-seat='{s}'] .cards .card")).to_have_count(7)
