"""Every variant played to showdown by two browser players while a third page watches; in
every DOM snapshot (after each action, and at the end) no page holds a card it may not see:
another player's face-down card, in any form (`data-card`, its name, its rank and suit),
before that player's cards were shown at the showdown.

Event-driven: the test's protocol client watches the table and each `turn` it sees is
played by that seat's page (check or call, bring in, stand pat, ante and play); nothing
sleeps.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import expect

from tests.net.conftest import Client, Live
from tests.web.conftest import PHONE, OpenPlayer, Player, create, host

pytestmark = pytest.mark.browser

STUD = {"structure": "fixed_limit",
        "stakes": {"ante": 10, "bring_in": 25, "small_bet": 50, "big_bet": 100}}
BLINDS = {"structure": "pot_limit", "stakes": {"blinds": [50, 100]}}
GAMES: dict[str, dict[str, Any]] = {
    "holdem": BLINDS, "manila": BLINDS, "manila3": BLINDS, "draw": BLINDS,
    "stud5": STUD, "stud7": STUD, "caribbean": {"stakes": {"min": 100, "max": 1000}},
}
PREFERRED = ["check", "call", "bring_in", "draw", "ante", "play"]
RANKS = {"A": "ace", "K": "king", "Q": "queen", "J": "jack", "T": "10", "9": "9", "8": "8",
         "7": "7", "6": "6", "5": "5", "4": "4", "3": "3", "2": "2"}
SUITS = {"s": ("spades", "\u2660"), "h": ("hearts", "\u2665"), "d": ("diamonds", "\u2666"),
         "c": ("clubs", "\u2663")}


def forms(card: str) -> list[str]:
    """Every way the page could spell a card: its code, its name, rank and suit symbol."""
    rank, (suit, symbol) = card[0], SUITS[card[1]]
    short = "10" if rank == "T" else rank
    return [f'data-card="{card}"', f"{RANKS[rank]} of {suit}", f"{short}{symbol}"]


async def own_down_cards(player: Player) -> set[str]:
    found: list[str] = await player.page.evaluate("""() => [...document.querySelectorAll(
        ".seat.me .card.hole[data-card]")].map((c) => c.dataset.card)""")
    return set(found)


async def assert_nothing_hidden(pages: dict[str, Player], seats: dict[str, int],
                                down: dict[str, set[str]]) -> None:
    """Each page shows no other player's down card, unless that seat was shown (at the
    showdown) on that page."""
    for viewer, page in pages.items():
        html = await page.page.content()
        shown: list[bool] = await page.page.evaluate("""() => {
            const t = window.__poker.store.state.table;
            return t ? t.seats.map((s) => !!(s && s.shown)) : [];
        }""")
        for owner, cards in down.items():
            seat = seats[owner]
            if owner == viewer or (seat < len(shown) and shown[seat]):
                continue
            for card in cards:
                for form in forms(card):
                    assert form not in html, f"{viewer}'s page shows {owner}'s {card} ({form})"


async def play_turn(player: Player) -> str:
    bar = player.page.locator("#actions [data-act]")
    await expect(bar.first).to_be_enabled()
    offered = await bar.evaluate_all("(bs) => bs.map((b) => b.dataset.act)")
    action = next(a for a in PREFERRED if a in offered)
    await player.page.click(f"#actions [data-act='{action}']")
    if action == "ante":  # Caribbean Stud: dealt in; from the next round on, sitting out
        await player.page.click("#sitout-btn")
    return action


async def seat(live: Live, open_player: OpenPlayer, table: str, name: str, at: int) -> Player:
    player = await open_player(PHONE if at else None)
    await player.goto(live.url)
    await player.hello(name)
    await player.goto(live.url, f"#/table/{table}")
    await player.sit(at, 5000)
    return player


async def play_one_hand(creator: Client, table: str, players: list[Player],
                        pages: dict[str, Player], seats: dict[str, int]) -> set[int]:
    """Play the hand under way to its end; the seats shown at its showdown."""
    down: dict[str, set[str]] = {name: set() for name in seats}
    showdown: set[int] = set()
    while True:
        event = await creator.event_any()
        if event.get("table") != table:
            continue
        if event["type"] == "showdown":
            showdown.add(event["seat"])
        if event["type"] == "hand_ended":
            break
        if event["type"] != "turn":
            continue
        player = players[event["seat"]]
        for name, who in zip(seats, players, strict=True):
            down[name] |= await own_down_cards(who)
        await play_turn(player)
        await assert_nothing_hidden(pages, seats, down)
    for name, who in zip(seats, players, strict=True):
        await expect(who.page.locator("#announcements")).not_to_be_empty()
        down[name] |= await own_down_cards(who)
    await assert_nothing_hidden(pages, seats, down)
    return showdown


@pytest.mark.parametrize("variant", list(GAMES))
async def test_every_variant_to_showdown_with_a_spectator_seeing_no_hidden_card(
        live: Live, open_player: OpenPlayer, variant: str) -> None:
    creator = await host(live)
    table = await create(creator, variant=variant, seats=4, name=f"All {variant}",
                         settings={"pause": 0.2}, **GAMES[variant])
    await creator.request("watch", table=table)
    spectator = await open_player()
    await spectator.goto(live.url, f"#/table/{table}/watch")
    alice = await seat(live, open_player, table, "Alice", 0)
    if variant == "caribbean":  # the round under way when Alice sat down was hers alone
        await alice.page.click("#actions [data-act='fold']")
        await creator.event("hand_ended", table=table)
    bob = await seat(live, open_player, table, "Bob", 1)
    players = [alice, bob]
    pages = {"Alice": alice, "Bob": bob, "spectator": spectator}
    seats = {"Alice": 0, "Bob": 1}
    # One hand only: both sit out from the next one as soon as this one is dealt (Caribbean
    # Stud: once they placed their ante, see play_turn).
    for player in players if variant != "caribbean" else []:
        await expect(player.page.locator(".seat.me .card").first).to_be_visible()
        await player.page.click("#sitout-btn")
    showdown = await play_one_hand(creator, table, players, pages, seats)
    if variant != "caribbean":  # Caribbean Stud: each hand meets the dealer's, never shown
        # checked and called down: a showdown (a beaten hand may be mucked, and stays hidden)
        assert showdown and showdown <= {0, 1}, showdown
        shown = spectator.page.locator(".seat .card.shown")
        await expect(shown).not_to_have_count(0)
    await spectator.shot(f"every-variant-{variant}")
