"""Rules for every game (docs/rules.md section 1): GEN-01..09, BLIND-03..05, as the engine has them.

GEN-04 (seat choice and the waiting list), GEN-05 (moving the button between hands) and the
ledgers of GEN-09 belong to the table/server layer; here is only what the hand engine offers.
"""

from __future__ import annotations

import ast
import pathlib
import secrets

import pytest

from server.rules import cards, errors
from server.rules.cards import check_deck, make_deck
from server.rules.draw import DRAW
from server.rules.events import (
    Acted,
    Dealt,
    HandEnded,
    HandStarted,
    Mucked,
    Posted,
    PotAwarded,
    RakeTaken,
    Showdown,
    TurnStarted,
)
from server.rules.hand import Hand
from server.rules.holdem import HOLDEM
from server.rules.structure import FIXED_LIMIT, NO_LIMIT, POT_LIMIT, SPREAD_LIMIT, Stakes
from server.rules.variant import TableRules
from server.table.shuffle import shuffled
from tests.rules.scripted import Script, fill_deck, like, run

NL = TableRules(structure=NO_LIMIT, stakes=Stakes(blinds=(5, 10)))
THREE = {1: 1000, 2: 1000, 3: 1000}


def _setup_refused(stacks: dict[int, int], *, rules: TableRules = NL, button: int = 0,
                   num_seats: int = 10) -> str:
    with pytest.raises(errors.IllegalAction) as exc:
        Hand(HOLDEM, rules, stacks, button=button, deck=list(HOLDEM.card_set),
             num_seats=num_seats)
    return exc.value.reason


def test_gen_01_one_standard_52_card_deck_without_jokers() -> None:
    """GEN-01: Hold'em uses exactly one 52-card deck; a joker or a second deck is refused."""
    assert len(HOLDEM.card_set) == 52 == len(set(HOLDEM.card_set))
    assert set(HOLDEM.card_set) == set(make_deck())
    with pytest.raises(cards.DeckError) as exc:
        check_deck([*HOLDEM.card_set, "Jk"], HOLDEM.card_set)
    assert exc.value.reason == "bad_card"
    with pytest.raises(cards.DeckError) as exc:
        check_deck([*HOLDEM.card_set, *HOLDEM.card_set], HOLDEM.card_set)
    assert exc.value.reason == "duplicate_card"


@pytest.mark.parametrize("bad", [
    ["As", *[c for c in HOLDEM.card_set if c != "Kd"]],       # As twice, Kd missing
    [c for c in HOLDEM.card_set if c != "2c"],                # 51 cards
    [*HOLDEM.card_set, "Xx"],                                 # not a card
    ["Ac", "Ac", "Ac"],                                       # nonsense
])
def test_gen_02_bad_deck_voids_the_hand_and_every_stack_is_unchanged(bad: list[str]) -> None:
    """GEN-02: the deck is checked before the hand; a failed check voids it: no blind is
    taken, no card dealt, every stack stays as it was."""
    stacks = {1: 100, 2: 7, 3: 1000}
    hand = Hand(HOLDEM, NL, stacks, button=3, deck=bad)
    events = hand.start()
    assert [type(e) for e in events] == [HandStarted, HandEnded]
    ended = events[-1]
    assert isinstance(ended, HandEnded) and ended.voided and ended.stacks == stacks
    assert hand.is_over and hand.voided and hand.stacks == stacks and hand.options(1) is None


def test_gen_02_void_mid_hand_returns_every_wager() -> None:
    """GEN-02 (Division 1 "void"): a fault voids the hand: everyone gets their starting stack."""
    result = run(Script(stacks=THREE, button=3,
                        actions=[(3, "raise", 300), (1, "call"), (2, "call"), (1, "bet", 50)]))
    hand = result.hand
    assert sum(hand.stacks.values()) < 3000
    events = hand.void("server fault")
    assert events == [HandEnded("h1", THREE, voided=True, reason="server fault")]
    assert hand.stacks == THREE and hand.is_over
    with pytest.raises(errors.IllegalAction):
        hand.act(2, "call")


def test_gen_03_engine_takes_the_deck_as_input_server_shuffles_with_secrets(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """GEN-03: the engine never shuffles (a given deck order is dealt exactly); the server's
    shuffle (``server.table.shuffle``) draws from ``secrets``; no rules module imports
    ``random`` or ``secrets``: the rules package reads no entropy.  (That a fixed deck
    is accepted only in test mode is the server layer's check.)"""
    calls: list[int] = []
    real = secrets.token_bytes

    def spy(n: int) -> bytes:
        calls.append(n)
        return real(n)

    monkeypatch.setattr(secrets, "token_bytes", spy)
    deck = shuffled(HOLDEM.card_set)
    assert sorted(deck) == sorted(HOLDEM.card_set) and calls and sum(calls) >= 2 * 51
    rules_dir = pathlib.Path(cards.__file__).parent
    for path in rules_dir.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert "random" not in names, f"{path.name} imports random"
            assert "secrets" not in names, f"{path.name} imports secrets"
    fixed = fill_deck(["2c", "3c", "4c", "5c"], HOLDEM.card_set)
    hand = Hand(HOLDEM, NL, {1: 100, 2: 100}, button=2, deck=fixed)
    dealt = {e.seat: e.cards for e in hand.start() if isinstance(e, Dealt)}
    assert dealt == {1: ("2c", "4c"), 2: ("3c", "5c")}


def test_gen_03_shuffle_rejects_biased_words_and_is_uniform(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """GEN-03: each swap index is exactly uniform: a 16-bit word at or above the largest
    multiple of the span is thrown away (0xFFFF for span 3), and over a fixed random byte
    stream the six orders of a three-card deck come out equally often (chi-square)."""
    import random

    stream = iter([0xFF, 0xFF, 0x00, 0x05, 0x00, 0x01] + [0] * 64)
    monkeypatch.setattr(secrets, "token_bytes",
                        lambda n: bytes(next(stream) for _ in range(n)))
    # i=2, span 3: 0xFFFF rejected, then 5 % 3 = 2 (no swap); i=1, span 2: 1 % 2 = 1
    assert shuffled(["a", "b", "c"]) == ["a", "b", "c"]
    stream = iter([0x00, 0x04, 0x00, 0x00] + [0] * 64)
    # i=2: 4 % 3 = 1 (swap 2,1: a c b); i=1: 0 (swap 1,0: c a b)
    assert shuffled(["a", "b", "c"]) == ["c", "a", "b"]

    rnd = random.Random(20261129)
    monkeypatch.setattr(secrets, "token_bytes", rnd.randbytes)
    counts: dict[tuple[str, ...], int] = {}
    n = 60_000
    for _ in range(n):
        order = tuple(shuffled(["a", "b", "c"]))
        counts[order] = counts.get(order, 0) + 1
    assert len(counts) == 6
    expected = n / 6
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < 20.5  # 5 degrees of freedom: p = 0.001


def test_gen_04_players_sit_in_any_free_seat_of_the_table() -> None:
    """GEN-04 (engine part): a hand is dealt to whichever seats are taken, in clockwise
    order, gaps and all; a seat outside the table is refused.  Choosing seats, move
    requests and the waiting list are the table layer's."""
    run(Script(
        stacks={0: 100, 4: 100, 9: 100}, button=9,
        actions=[(9, "fold"), (0, "fold")],
        events=[Posted(0, "blind", 5, 95), Posted(4, "blind", 10, 90)],
        final={0: 95, 4: 105, 9: 100},
    ))
    assert _setup_refused({1: 100, 10: 100}) == errors.BAD_SETUP
    assert _setup_refused({1: 100, 2: 100}, button=12) == errors.BAD_SETUP


def test_gen_05_dead_button_on_an_empty_seat() -> None:
    """GEN-05 BLIND-01 (engine part): the button may sit on an empty seat (dead button); the
    blinds are still the two players to its left.  Moving the button one seat clockwise
    after each hand, and the first button, are the table layer's."""
    run(Script(
        stacks={1: 100, 2: 100, 4: 100, 5: 100}, button=3,
        actions=[(1, "fold"), (2, "fold"), (4, "fold")],
        events=[Posted(4, "blind", 5, 95), Posted(5, "blind", 10, 90), TurnStarted(1, 0),
                TurnStarted(2, 0), TurnStarted(4, 0)],
        final={1: 100, 2: 100, 4: 95, 5: 105},
    ))


def test_gen_06_table_stakes_only_the_starting_chips_play() -> None:
    """GEN-06: only the chips in front of a player when the hand starts can be wagered: a
    stack must be a positive int, nothing above it can be bet, and changing the caller's
    dict after the start adds nothing."""
    assert _setup_refused({1: 100, 2: 0}) == errors.BAD_SETUP
    assert _setup_refused({1: 100, 2: -5}) == errors.BAD_SETUP
    assert _setup_refused({1: 100, 2: 50.0}) == errors.BAD_SETUP  # type: ignore[dict-item]
    stacks = {1: 100, 2: 40}
    hand = Hand(HOLDEM, NL, stacks, button=2, deck=fill_deck([], HOLDEM.card_set))
    hand.start()
    stacks[1] += 1000  # a "rebuy" during the hand does not reach it
    hand.act(1, "call")
    opts = hand.options(2)
    assert opts is not None and opts.raise_ == (20, 40)
    with pytest.raises(errors.IllegalAction) as exc:
        hand.act(2, "raise", 50)
    assert exc.value.reason == errors.BAD_AMOUNT
    hand.act(2, "raise", 40)
    opts = hand.options(1)
    assert opts is not None and opts.raise_ is None and opts.call == 40  # nobody to raise


def test_gen_07_no_more_players_than_the_deck_serves() -> None:
    """GEN-07: a Hold'em hand deals to at most ten players (Draw to eight)."""
    assert HOLDEM.max_seats == 10 and DRAW.max_seats == 8
    assert _setup_refused({s: 100 for s in range(11)}, num_seats=11) == errors.BAD_SETUP
    Hand(HOLDEM, NL, {s: 100 for s in range(10)}, button=0, deck=list(HOLDEM.card_set))


def test_gen_08_cards_speak_the_server_reads_and_shows_the_winning_hand() -> None:
    """GEN-08 SHOW-01: the player who only checked and called holds a straight flush they
    never claimed; the server reads both hands, shows the winner after the called bettor,
    names it, and pays it."""
    run(Script(
        stacks=THREE, button=3,
        holes={1: "5h 6h", 2: "Ac Ad", 3: "Kd Qd"}, board="7h 8h 9h As 2c",
        actions=[(3, "fold"), (1, "call"), (2, "check"),
                 (1, "check"), (2, "bet", 50), (1, "call"),
                 (1, "timeout"), (2, "bet", 100), (1, "call"),
                 (1, "check"), (2, "bet", 200), (1, "call")],
        events=[like(Showdown, seat=2, hand="three of a kind, aces"),
                Showdown(1, ("5h", "6h"), "straight flush, nine high",
                         ("9h", "8h", "7h", "6h", "5h")),
                PotAwarded(0, 720, {1: 720}, None, "straight flush, nine high")],
        final={1: 1360, 2: 640, 3: 1000},
    ))


def test_gen_09_rake_with_a_cap_taken_from_the_pot() -> None:
    """GEN-09 (engine part): a rake in basis points with a cap comes off the pot before it is
    awarded and leaves the table; no chip is lost.  Keeping rake and jackpot money in
    separate ledgers, fees per hand and time charges are the server layer's."""
    result = run(Script(
        stacks=THREE, button=3, rake_bp=500, rake_cap=3,
        holes={1: "As Ad", 2: "Kc Qd", 3: "Jc Td"}, board="2h 7d 9c Jh 4s",
        actions=[(3, "call"), (1, "call"), (2, "check"), *[(s, "check") for _ in range(3)
                                                           for s in (1, 2, 3)]],
        events=[RakeTaken(0, 1), PotAwarded(0, 29, {1: 29}, None, "pair of aces")],
        final={1: 1019, 2: 990, 3: 990},
    ))
    ended = result.events[-1]
    assert isinstance(ended, HandEnded) and ended.rake == 1
    capped = run(Script(stacks=THREE, button=3, rake_bp=500, rake_cap=3,
                        holes={1: "As Ad", 2: "Kc Qd", 3: "Jc Td"}, board="2h 7d 9c Jh 4s",
                        actions=[(3, "raise", 100), (1, "call"), (2, "call"),
                                 *[(s, "check") for _ in range(3) for s in (1, 2, 3)]],
                        events=[RakeTaken(0, 3)]))
    assert capped.hand.stacks[1] == 1000 - 100 + 300 - 3
    assert NL.rake_on(1000, 1) == 0  # no rake unless the table sets one


@pytest.mark.parametrize(("structure", "stakes"), [
    (SPREAD_LIMIT, Stakes(blinds=(5, 10), min_bet=20, max_bet=40)),
    (FIXED_LIMIT, Stakes(blinds=(5, 5), small_bet=10, big_bet=20)),
    (NO_LIMIT, Stakes(blinds=(5, 10), min_bet=20)),
    (POT_LIMIT, Stakes(blinds=(5, 10), min_bet=20)),
])
def test_blind_03_last_blind_at_least_the_table_minimum(structure: str, stakes: Stakes) -> None:
    """BLIND-03: a table whose last blind is below its first-round minimum is refused."""
    rules = TableRules(structure=structure, stakes=stakes)
    assert _setup_refused({1: 100, 2: 100}, rules=rules) == errors.BAD_SETUP


def test_blind_04_over_blind_in_draw() -> None:
    """BLIND-04 BET-02: at a Draw table that allows it, the player left of the last blind
    posts an over blind of double the last blind; the first round starts left of it, and
    calling means matching the over blind (BET-03); the over blind has the option."""
    run(Script(
        variant=DRAW, stacks={1: 100, 2: 100, 3: 100, 4: 100}, button=4, over_blind=True,
        deck=[],
        actions=[(4, "call"), (1, "call"), (2, "call"), (3, "check")],
        events=[Posted(1, "blind", 5, 95), Posted(2, "blind", 10, 90),
                Posted(3, "over_blind", 20, 80), TurnStarted(4, 0), TurnStarted(1, 0),
                TurnStarted(2, 0), TurnStarted(3, 0), TurnStarted(1, 1)],
    ))
    no_choice = run(Script(variant=DRAW, stacks={1: 100, 2: 100, 3: 100}, button=3, deck=[],
                           events=[Posted(1, "blind", 5, 95), Posted(2, "blind", 10, 90)]))
    assert no_choice.hand.to_act == 3


def test_blind_05_antes_from_every_player_before_any_card() -> None:
    """BLIND-05: antes are taken from every player (a short stack antes all-in) before the
    blinds and before any card; they are dead money that counts in the pot."""
    result = run(Script(
        stacks={1: 100, 2: 100, 3: 1}, button=3, stakes=Stakes(blinds=(5, 10), ante=2),
        holes={1: "8c 3d", 2: "Kc Qd", 3: "As Ad"}, board="2h 7d 9c Jh 4s",
        actions=[(1, "call"), (2, "check"), *[(s, "check") for _ in range(3) for s in (1, 2)]],
        events=[Posted(1, "ante", 2, 98), Posted(2, "ante", 2, 98), Posted(3, "ante", 1, 0),
                Posted(1, "blind", 5, 93), Posted(2, "blind", 10, 88),
                PotAwarded(0, 3, {3: 3}, None, "pair of aces"),
                PotAwarded(1, 22, {2: 22}, None, "high card, king")],
    ))
    kinds = [type(e) for e in result.events]
    assert kinds.index(Dealt) > max(i for i, k in enumerate(kinds) if k is Posted)
    assert not any(isinstance(e, Acted) and e.seat == 3 for e in result.events)
    assert not any(isinstance(e, Mucked) and e.seat == 3 for e in result.events)
