"""Every variant over the wire: a scripted hand of each of the seven variants played by real
websocket clients (JSON and msgpack side by side, fixed decks in test mode), checking the
events, the final stacks and that every chip is accounted for; then a privacy audit of
random hands of each pot-game variant: no frame to a connection carries a card that its
receiver was not entitled to see.

Rule of these tests (as in conftest.py): nothing sleeps; every wait is on a message with a
timeout (`asyncio.wait_for`).
"""

from __future__ import annotations

import asyncio
import random
import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from websockets.asyncio.client import connect

from protocol import SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK
from server.rules.cards import make_deck
from tests.net.conftest import TIMEOUT, Client, Live

BUY_IN = 5000
ENCODINGS = [(SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK), (SUBPROTOCOL_MSGPACK, SUBPROTOCOL_JSON)]
CARD = re.compile(r"^[2-9TJQKA][cdhs]$")


# --- a recording client ------------------------------------------------------------------------
@dataclass
class Recorder(Client):
    """A `Client` that also keeps every message it ever received, in order."""

    log: list[dict[str, Any]] = field(default_factory=list)

    async def receive(self) -> dict[str, Any]:
        message = await super().receive()
        self.log.append(message)
        return message


async def open_recorder(server: Live, subprotocol: str) -> Recorder:
    ws = await asyncio.wait_for(connect(server.ws_url, subprotocols=[subprotocol],  # type: ignore[list-item]
                                        ping_interval=None), TIMEOUT)
    assert ws.subprotocol == subprotocol
    return Recorder(ws=ws, subprotocol=subprotocol)


async def ok(client: Client, kind: str, **fields: Any) -> dict[str, Any]:
    answer = await client.request(kind, **fields)
    assert answer["type"] == "ok", (kind, fields, answer)
    return answer


def fixed_deck(lowest_rank: int, *first: str) -> list[str]:
    assert len(set(first)) == len(first)
    deck = make_deck(lowest_rank=lowest_rank)
    assert set(first) <= set(deck)
    return [*first, *(c for c in deck if c not in first)]


async def seat_players(server: Live, encodings: list[str], create: dict[str, Any],
                       decks: list[list[str]] | None) -> tuple[str, list[Recorder]]:
    """Players P0.. in seats 0.. of a new table (each with its encoding)."""
    clients = [await open_recorder(server, enc) for enc in encodings]
    for i, client in enumerate(clients):
        await client.hello(f"P{i}")
    extra = {"decks": decks} if decks is not None else {}
    table = (await ok(clients[0], "create_table", **create, **extra))["table"]
    for i, client in enumerate(clients):
        await ok(client, "sit", table=table, seat=i, buy_in=BUY_IN)
    return table, clients


# --- the scripted hands -----------------------------------------------------------------------
Step = tuple[int, str, dict[str, Any]]  # seat, action, extra act fields


@dataclass(frozen=True)
class Case:
    create: dict[str, Any]
    deck: list[str]
    script: list[Step]
    stacks: dict[str, int]
    showdown: dict[int, str] = field(default_factory=dict)
    mucked: tuple[int, ...] = ()


def _pot(variant: str, structure: str = "no_limit", **settings: Any) -> dict[str, Any]:
    stakes: dict[str, Any]
    if variant.startswith("stud"):
        stakes = {"ante": 10, "bring_in": 25, "small_bet": 50, "big_bet": 100}
    else:
        stakes = {"blinds": [50, 100]}
    return {"variant": variant, "structure": structure, "stakes": stakes, "seats": 6,
            "settings": {"pause": 0, **settings}}


def _checks(rounds: int) -> list[Step]:
    both: list[Step] = [(0, "check", {}), (1, "check", {})]
    return both * rounds


CASES: dict[str, Case] = {
    # Seat 0 (first blind, heads-up as docs/rules.md BLIND-01 reads) As Ad, seat 1 Kc Kd; burn 2c,
    # flop Ah 7s 8d, burn 3c, turn 9h, burn 4c, river Jc: three aces beat a pair of kings.
    "holdem": Case(
        create=_pot("holdem"),
        deck=fixed_deck(2, "As", "Kc", "Ad", "Kd", "2c", "Ah", "7s", "8d", "3c", "9h", "4c",
                        "Jc"),
        script=[(0, "call", {}), (1, "check", {}),
                (0, "bet", {"amount": 200}), (1, "call", {}), *_checks(2)],
        stacks={"0": 5300, "1": 4700},
        showdown={0: "three of a kind, aces"}, mucked=(1,),
    ),
    # Manila (7..A): seat 0 Ac Ad, seat 1 Kc Qc; board 7c, (burn 8c) 9c, (burn 8h) Ah,
    # (burn 7h) 8d, (burn 7d) Tc: exactly two hole cards: a flush (Kc Qc + 7c 9c Tc) against
    # three aces.
    "manila": Case(
        create=_pot("manila"),
        deck=fixed_deck(7, "Ac", "Kc", "Ad", "Qc", "7c", "8c", "9c", "8h", "Ah", "7h", "8d",
                        "7d", "Tc"),
        script=[(0, "call", {}), (1, "check", {}),
                (0, "bet", {"amount": 100}), (1, "raise", {"amount": 300}), (0, "call", {}),
                *_checks(3)],
        stacks={"0": 4600, "1": 5400},
        showdown={0: "three of a kind, aces", 1: "flush, king high"},
    ),
    # Three Card Manila (6..A): seat 0 As Ah 6c, seat 1 Ks Kh 7c; board Ad, Kd, 9s, 8h, 6s
    # (burns 7d 7h 7s 8d between): three aces against three kings.
    "manila3": Case(
        create=_pot("manila3"),
        deck=fixed_deck(6, "As", "Ks", "Ah", "Kh", "6c", "7c", "Ad", "7d", "Kd", "7h", "9s",
                        "7s", "8h", "8d", "6s"),
        script=[(0, "call", {}), (1, "check", {}), *_checks(4)],
        stacks={"0": 5100, "1": 4900},
        showdown={0: "three of a kind, aces"}, mucked=(1,),
    ),
    # Draw: seat 0 Ah Ad Kc 7s 2d, seat 1 Qs Qh Qd 5c 3h; burn 4s; seat 0 throws 7s 2d and
    # gets Ac Kd (aces full of kings), seat 1 throws 3h and gets Jc (three queens).
    "draw": Case(
        create=_pot("draw", "pot_limit"),
        deck=fixed_deck(2, "Ah", "Qs", "Ad", "Qh", "Kc", "Qd", "7s", "5c", "2d", "3h", "4s",
                        "Ac", "Kd", "Jc"),
        script=[(0, "call", {}), (1, "check", {}),
                (0, "draw", {"discard": ["7s", "2d"]}), (1, "draw", {"discard": ["3h"]}),
                (0, "bet", {"amount": 200}), (1, "call", {})],
        stacks={"0": 5300, "1": 4700},
        showdown={0: "full house, aces full of kings"}, mucked=(1,),
    ),
    # Five Card Stud, fixed limit 50/100, ante 10, bring-in 25: seat 0 (As) Ah, seat 1 (Kd)
    # 3c: the 3c brings in; then 7d/3s, 9c/Kh, Jd/4h (burns 2c 2d 2h): kings and threes
    # beat a pair of aces.
    "stud5": Case(
        create=_pot("stud5", "fixed_limit"),
        deck=fixed_deck(2, "As", "Kd", "Ah", "3c", "2c", "7d", "3s", "2d", "9c", "Kh", "2h",
                        "Jd", "4h"),
        script=[(1, "bring_in", {}), (0, "call", {}),
                (1, "bet", {"amount": 50}), (0, "call", {}),
                (1, "check", {}), (0, "check", {}),
                (1, "bet", {"amount": 100}), (0, "call", {})],
        stacks={"0": 4815, "1": 5185},
        showdown={1: "two pair, kings and threes"}, mucked=(0,),
    ),
    # Seven Card Stud: seat 0 (Ah Kh) 2c, seat 1 (Qs Qd) 9s: the 2c brings in, seat 1
    # completes; 5h/9d, 7h/3c, Th/4d, (2d)/(Qc) with burns 6s 6c 6d 8s between:
    # queens full of nines beat the ace-high flush.
    "stud7": Case(
        create=_pot("stud7", "fixed_limit"),
        deck=fixed_deck(2, "Ah", "Qs", "Kh", "Qd", "2c", "9s", "6s", "5h", "9d", "6c", "7h",
                        "3c", "6d", "Th", "4d", "8s", "2d", "Qc"),
        script=[(0, "bring_in", {}), (1, "complete", {"amount": 50}), (0, "call", {}),
                (1, "bet", {"amount": 50}), (0, "call", {}),
                (1, "check", {}), (0, "check", {}),
                (1, "check", {}), (0, "bet", {"amount": 100}), (1, "call", {}),
                (1, "check", {}), (0, "bet", {"amount": 100}), (1, "raise", {"amount": 200}),
                (0, "call", {})],
        stacks={"0": 4590, "1": 5410},
        showdown={1: "full house, queens full of nines"}, mucked=(0,),
    ),
}

# Caribbean Stud, three players (width 4: seat i gets deck positions i, 4+i, ...; the dealer
# 3, 7, 11, 15, 19, the last face up).  Seat 0 antes 100 with the jackpot wager and plays a
# straight (4 to 1, no jackpot hand); seat 1 antes 200 and plays a pair of tens (1 to 1);
# seat 2 antes 100 and folds.  The dealer's ace-king high qualifies.  The first round starts
# ``pause`` seconds after the first player sits (one player can play the house), so the pause
# leaves the other two sits (milliseconds apart) a wide margin on a loaded machine.
CSP_HANDS = {0: ["5c", "6d", "7h", "8s", "9c"], 1: ["Tc", "Td", "4s", "3c", "2d"],
             2: ["Jh", "8d", "4d", "3h", "2s"], 3: ["As", "Kh", "Qs", "7c", "3d"]}
CSP_DECK = fixed_deck(2, *(CSP_HANDS[i][r] for r in range(5) for i in range(4)))
CSP_CREATE: dict[str, Any] = {"variant": "caribbean", "structure": None,
                              "stakes": {"min": 100, "max": 1000},
                              "seats": 3, "settings": {"pause": 4.0}}


def frames(client: Recorder, type_: str, **match: Any) -> list[dict[str, Any]]:
    return [m for m in client.log if m["type"] == type_
            and all(m.get(k) == v for k, v in match.items())]


async def play_script(clients: list[Recorder], table: str, script: list[Step]) -> None:
    for seat, action, extra in script:
        turn = await clients[seat].event("turn", seat=seat, table=table)
        options = turn.get("options")
        assert options and options.get(action) not in (None, False), (action, turn)
        await ok(clients[seat], "act", table=table, action=action, **extra)


async def hand_end(clients: list[Recorder], table: str) -> dict[str, Any]:
    ends = [await client.event("hand_ended", table=table) for client in clients]
    assert len({e["seq"] for e in ends}) == 1 and len({e["hand"] for e in ends}) == 1
    assert all(e["stacks"] == ends[0]["stacks"] for e in ends)
    return ends[0]


def check_hidden(clients: list[Recorder]) -> None:
    """Each player sees its own down cards and only a count (None) of the others'."""
    for me, client in enumerate(clients):
        assert any(d["cards"] for d in frames(client, "dealt", seat=me))
        for d in frames(client, "dealt"):
            if d["seat"] == me:
                assert None not in d["cards"], d
            else:
                assert all(c is None for c in d["cards"]), d


@pytest.mark.parametrize(("enc_a", "enc_b"), ENCODINGS)
@pytest.mark.parametrize("variant", list(CASES))
async def test_a_full_hand_of_each_pot_variant(live: Live, variant: str, enc_a: str,
                                               enc_b: str) -> None:
    case = CASES[variant]
    table, clients = await seat_players(live, [enc_a, enc_b], case.create, [case.deck])
    await play_script(clients, table, case.script)
    ended = await hand_end(clients, table)

    for client in clients:
        shown = {m["seat"]: m["value"] for m in frames(client, "showdown", table=table)}
        mucked = tuple(m["seat"] for m in frames(client, "mucked", table=table))
        assert (shown, mucked, ended["stacks"]) == (case.showdown, case.mucked, case.stacks)
    assert sum(ended["stacks"].values()) == BUY_IN * len(clients)  # every chip accounted for
    for client in clients:
        awarded = frames(client, "pot_awarded", table=table)
        assert sum(a["amount"] for a in awarded) == sum(
            sum(a["winners"].values()) for a in awarded)
        posted = sum(p["amount"] for p in frames(client, "posted", table=table))
        gains = {s: v - BUY_IN for s, v in ended["stacks"].items()}
        winners = [s for s, g in gains.items() if g > 0]
        assert [s for a in awarded for s in a["winners"]] == winners
        assert sum(a["amount"] for a in awarded) > posted
    check_hidden(clients)

    if variant.startswith("stud"):  # the bring-in was made, by the seat with the lowest card
        brought = case.script[0][0]
        log = clients[0].log
        assert any(m["type"] in ("posted", "acted") and m.get("seat") == brought
                   and (m.get("kind") == "bring_in" or m.get("action") == "bring_in")
                   and m.get("amount") == 25 for m in log)
        antes = frames(clients[0], "posted", kind="ante")
        assert sorted(p["seat"] for p in antes) == [0, 1] and all(
            p["amount"] == 10 for p in antes)
    if variant == "draw":
        for me, client in enumerate(clients):
            drew = {m["seat"]: m for m in frames(client, "drew", table=table)}
            assert drew[0]["count"] == 2 and drew[1]["count"] == 1
            assert drew[me]["cards"] == (["Ac", "Kd"] if me == 0 else ["Jc"])
            assert "cards" not in drew[1 - me] or drew[1 - me]["cards"] is None
    if variant in ("holdem", "manila", "manila3"):
        board = frames(clients[1], "board", table=table)[-1]["cards"]
        expected = {"holdem": ["Ah", "7s", "8d", "9h", "Jc"],
                    "manila": ["7c", "9c", "Ah", "8d", "Tc"],
                    "manila3": ["Ad", "Kd", "9s", "8h", "6s"]}[variant]
        assert board == expected


@pytest.mark.parametrize(("enc_a", "enc_b"), ENCODINGS)
async def test_a_full_caribbean_round(live: Live, enc_a: str, enc_b: str) -> None:
    table, clients = await seat_players(live, [enc_a, enc_b, enc_a], CSP_CREATE, [CSP_DECK])
    antes = {0: {"amount": 100, "jackpot": True}, 1: {"amount": 200}, 2: {"amount": 100}}
    for seat, extra in antes.items():
        turn = await clients[seat].event("turn", seat=seat, table=table)
        assert turn["options"]["ante"]["min"] == 100
        assert turn["options"]["jackpot"]["wager"] == 100
        await ok(clients[seat], "act", table=table, action="ante", **extra)
    for seat, action in ((0, "play"), (1, "play"), (2, "fold")):
        turn = await clients[seat].event("turn", seat=seat, table=table)
        assert turn["options"].get(action), turn
        if action == "play":
            assert turn["options"]["play"] == 2 * antes[seat]["amount"]
        await ok(clients[seat], "act", table=table, action=action)
    ended = await hand_end(clients, table)

    assert ended["stacks"] == {"0": 5800, "1": 5600, "2": 4900}
    for me, client in enumerate(clients):
        mine = frames(client, "dealt", seat=me)
        assert [d["cards"] for d in mine] == [CSP_HANDS[me]]
        for d in frames(client, "dealt"):
            if d["seat"] != me:
                assert d["cards"] == [None] * 5
        dealer = frames(client, "dealer", table=table)
        assert dealer[0]["cards"] == [None, None, None, None, "3d"]
        assert dealer[-1]["cards"] == CSP_HANDS[3] and dealer[-1]["qualifies"] is True
        (settled,) = frames(client, "settled", table=table)
        results = settled["results"]
        # CSP-14: the hands stay face down, so each is named to its player only (the
        # dealer's, turned for all, to everyone)
        assert {s for s, r in results.items() if "hand" in r} == {str(me)}
        assert not names_in(settled) - {results[str(me)]["hand"]}
        assert dealer[-1]["hand"]
        assert {s: (r["ante"], r["play"], r["jackpot"]) for s, r in results.items()} == {
            "0": (100, 800, -100), "1": (200, 400, None), "2": (-100, None, None)}
        assert {s: r["stack"] for s, r in results.items()} == ended["stacks"]
        # every chip accounted for: the players' net, the house's and the jackpot wagers
        net = {s: (r["ante"] + (r["play"] or 0) + (r["jackpot"] or 0))
               for s, r in results.items()}
        assert {s: BUY_IN + n for s, n in net.items()} == ended["stacks"]
        house = -sum(r["ante"] + (r["play"] or 0) for r in results.values())
        collected = -sum(r["jackpot"] or 0 for r in results.values())
        assert (house, collected) == (-1400, 100)
        assert sum(net.values()) + house + collected == 0
        assert sum(ended["stacks"].values()) == 3 * BUY_IN - house - collected
    assert [p["seat"] for p in frames(clients[0], "posted", kind="ante")] == [0, 1, 2]
    assert any(m.get("jackpot") is True and m["seat"] == 0
               for m in frames(clients[1], "acted", action="ante"))


# --- privacy over the wire ----------------------------------------------------------------------
def cards_in(obj: Any) -> set[str]:
    """Every 2-character card string anywhere in a decoded message (keys included)."""
    if isinstance(obj, str):
        return {obj} if CARD.match(obj) else set()
    if isinstance(obj, dict):
        found: set[str] = set()
        for k, v in obj.items():
            found |= cards_in(k) | cards_in(v)
        return found
    if isinstance(obj, list | tuple):
        return set().union(*(cards_in(v) for v in obj)) if obj else set()
    return set()


HAND_NAME = re.compile(r"(high card|pair|two pair|three of a kind|straight|flush|full house"
                       r"|four of a kind|straight flush|royal flush)\b")


def names_in(obj: Any) -> set[str]:
    """Every hand name ("pair of aces, king kicker") anywhere in a decoded message."""
    if isinstance(obj, str):
        return {obj} if HAND_NAME.match(obj) else set()
    if isinstance(obj, dict):
        return set().union(*(names_in(v) for v in obj.values())) if obj else set()
    if isinstance(obj, list | tuple):
        return set().union(*(names_in(v) for v in obj)) if obj else set()
    return set()


def named(message: dict[str, Any], seat: int | None) -> set[str]:
    """Hand names a receiver may read because of this frame: a shown hand's, the dealer's,
    and in a ``settled`` only their own hand's (SHOW-03, CSP-14)."""
    kind = message["type"]
    if kind == "showdown":
        return {message["value"]}
    if kind == "dealer" and message.get("hand"):
        return {message["hand"]}
    if kind == "settled" and seat is not None:
        mine = message["results"].get(str(seat)) or {}
        return {mine["hand"]} if mine.get("hand") else set()
    return set()


def entitled(message: dict[str, Any], seat: int | None) -> set[str]:
    """Cards a receiver (seat, or None for a spectator) may see because of this frame."""
    kind = message["type"]
    out: set[str] = set()
    if kind == "dealt":
        out |= set(message.get("up") or [])
        if seat is not None and message["seat"] == seat:
            out |= {c for c in message["cards"] if c is not None}
    elif kind in ("board", "showdown"):
        out |= set(message["cards"])
    elif kind == "drew" and seat is not None and message["seat"] == seat:
        out |= set(message.get("cards") or [])
    elif kind == "snapshot":  # joining mid-hand: the board, up cards, one's own cards
        out |= set(message["board"])
        for entry in message["seats"]:
            if entry is not None:
                out |= set(entry.get("up") or [])
                if seat is not None and entry["seat"] == seat:
                    out |= {c for c in entry.get("cards") or [] if c is not None}
    return out


def audit(log: list[dict[str, Any]], seat: int | None) -> int:
    """Assert that every frame's cards (and hand names) were entitled when it arrived;
    returns the number of cards seen."""
    allowed: set[str] = set()
    names: set[str] = set()
    seen = 0
    for message in log:
        if message["type"] == "hand_started":
            allowed, names = set(), set()
        allowed |= entitled(message, seat)
        names |= named(message, seat)
        found = cards_in(message)
        seen += len(found)
        who = 'spectator' if seat is None else f'seat {seat}'
        assert found <= allowed, f"{who} got {sorted(found - allowed)} in {message}"
        told = names_in(message) - names  # a hand's name only with its cards
        assert not told, f"{who} was told {sorted(told)} in {message}"
    return seen


def random_act(rng: random.Random, options: dict[str, Any], hand: list[str]) -> dict[str, Any]:
    if options.get("draw"):
        n = rng.randint(0, min(options["draw"]["max"], len(hand)))
        return {"action": "draw", "discard": rng.sample(hand, n)}
    weights = {"check": 4, "call": 4, "fold": 1, "bet": 2, "raise": 1, "bring_in": 3,
               "complete": 1}
    legal = [a for a in weights if options.get(a) not in (None, False)]
    action = rng.choices(legal, [weights[a] for a in legal])[0]
    if action in ("bet", "raise"):
        lo, hi = options[action]["min"], options[action]["max"]
        amount = lo if rng.random() < 0.7 else rng.randint(lo, min(hi, 3 * lo))
        return {"action": action, "amount": amount}
    if action == "complete":
        return {"action": action, "amount": options["complete"]}
    return {"action": action}


async def run_player(client: Recorder, table: str, seat: int | None, hands: int,
                     rng: random.Random) -> None:
    """Play (seat) or watch (None) until hand number `hands` of the table has ended."""
    last = f"{table}.{hands}"
    hand: list[str] = []
    while True:
        message = await client.event_any()
        kind = message["type"]
        if kind == "hand_started":
            hand = []
        elif kind == "dealt" and message["seat"] == seat:
            hand += [c for c in message["cards"] if c is not None] + list(message["up"])
        elif kind == "drew" and message["seat"] == seat:
            hand += message.get("cards") or []  # the discards went when the draw was sent
        elif kind == "turn" and message["seat"] == seat and message.get("options"):
            act = random_act(rng, message["options"], hand)
            if act["action"] == "draw":
                hand = [c for c in hand if c not in act["discard"]]
            answer = await client.request("act", table=table, **act)
            assert answer["type"] == "ok", (act, message, answer)
        elif kind == "hand_ended" and message["hand"] == last:
            return


PRIVACY_VARIANTS = ["holdem", "manila", "manila3", "draw", "stud5", "stud7"]
PRIVACY_HANDS = 8


@pytest.mark.parametrize("variant", PRIVACY_VARIANTS)
async def test_no_frame_carries_a_card_its_receiver_may_not_see(live: Live, variant: str) -> None:
    rng = random.Random(f"wire-privacy-{variant}")
    create = {**CASES[variant].create, "seats": 3}
    card_set = make_deck(lowest_rank={"manila": 7, "manila3": 6}.get(variant, 2))
    decks = [rng.sample(card_set, len(card_set)) for _ in range(PRIVACY_HANDS)]
    encodings = [SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK, SUBPROTOCOL_JSON]
    table, players = await seat_players(live, encodings, create, decks)
    spectator = await open_recorder(live, SUBPROTOCOL_MSGPACK)
    await ok(spectator, "watch", table=table)
    runs = [run_player(p, table, seat, PRIVACY_HANDS, random.Random(rng.random()))
            for seat, p in enumerate(players)]
    runs.append(run_player(spectator, table, None, PRIVACY_HANDS, rng))
    await asyncio.wait_for(asyncio.gather(*runs), 60)

    for seat, player in enumerate(players):
        assert audit(player.log, seat) > 0
        assert any(m["type"] == "dealt" and m["seat"] == seat and m["cards"]
                   for m in player.log)
    audit(spectator.log, None)
    hidden = [m for m in spectator.log if m["type"] == "dealt" and m["cards"]]
    assert hidden and all(c is None for m in hidden for c in m["cards"])
    assert any(m["type"] == "showdown" for m in spectator.log)  # cards were shown, too
    ends = [m for m in spectator.log if m["type"] == "hand_ended"]
    assert len(ends) == PRIVACY_HANDS
    stacks = {str(m["seat"]): m["stack"] for m in spectator.log if m["type"] == "seated"}
    stacks |= {str(i): BUY_IN for i in range(3)}
    for end in ends:  # every chip accounted for, hand after hand
        stacks |= end["stacks"]
        assert sum(stacks.values()) == 3 * BUY_IN, (end, stacks)
