"""PokerStars-style hand history text (what hand tracking tools import), and its reader.

Seats are numbered from 1 (our seat + 1); the hand number is the hand id's number
(:func:`~server.ledger.export.common.hand_number`), the real id is the table line's ``hand``
note; a player's copy prints no ``Dealt to`` line for cards that player did not see.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from server.ledger.export.common import (
    GAMES,
    STRUCTURES,
    STUD,
    card_text,
    hand_number,
    player_name,
    seat_order,
    when,
)
from server.ledger.history import HandRecord

__all__ = ["read_pokerstars", "to_pokerstars"]


def _roman(n: int) -> str:
    """A tournament level as PokerStars writes it (Level I, II, ... XIV)."""
    out = ""
    for value, letters in ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"),
                           (90, "XC"), (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"),
                           (4, "IV"), (1, "I")):
        while n >= value:
            out, n = out + letters, n - value
    return out


def _stakes_text(record: HandRecord) -> str:
    st = record.stakes
    if record.variant in STUD or record.structure == "fixed_limit":
        lo = st.get("small_bet") or st.get("bring_in", 0)
        hi = st.get("big_bet") or lo
        return f"{lo}/{hi}"
    blinds = list(st.get("blinds", []))
    if len(blinds) >= 2:
        return f"{blinds[-2]}/{blinds[-1]}"
    return f"{blinds[-1] if blinds else 0}/{blinds[-1] if blinds else 0}"


def _street_name(record: HandRecord, board: list[Any], own_count: int) -> str:
    if record.variant in STUD:
        last = 5 if record.variant == "stud5" else 7
        return "RIVER" if own_count == last else f"{own_count}{_nth(own_count)} STREET"
    if record.variant == "holdem":
        return {3: "FLOP", 4: "TURN", 5: "RIVER"}.get(len(board), f"BOARD {len(board)}")
    return f"BOARD {len(board)}"


def _nth(n: int) -> str:
    return {1: "st", 2: "nd", 3: "rd"}.get(n, "th")


def to_pokerstars(record: HandRecord) -> str:
    """The hand as PokerStars-style text (see the module docstring)."""
    text = _StarsText(record)
    text.header()
    for event in record.events:
        text.event(event)
    text.summary()
    return "\n".join(text.lines) + "\n"


class _StarsText:
    """`to_pokerstars`' state while it walks the record's events: the lines so far, the bets
    of the street, the board, what each seat showed, mucked, folded and collected."""

    def __init__(self, record: HandRecord) -> None:
        self.record = record
        self.lines: list[str] = []
        self.bets: dict[int, int] = {}
        self.current = 0  # the street's highest bet
        self.board: list[Any] = []
        self.board2: list[Any] = []  # RIT-03: the second run's board (a house rule)
        self.own_count: dict[int, int] = {}  # cards dealt to each seat so far
        self.collected: dict[int, int] = {}
        self.shown: dict[int, list[str]] = {}
        self.mucked: set[int] = set()
        self.folded: set[int] = set()
        self.header_done = False  # the first deal's header is written
        self.dealt_round: set[int] = set()  # seats dealt in this round of deals
        self.drew = False
        self.total = 0
        self.rake = 0

    def header(self) -> None:
        record = self.record
        game = f"{GAMES[record.variant]} {STRUCTURES.get(record.structure or '', '')}".strip()
        t = record.settings or {}
        if t.get("tournament"):  # issue 27: PokerStars' tournament header form
            self.lines.append(
                f"PokerStars Hand #{hand_number(record.hand)}: Tournament #{t['tournament']}, "
                f"{t.get('buy_in', 0)}+{t.get('fee', 0)} {game} - Level "
                f"{_roman(int(t.get('level', 1)))} ({_stakes_text(record)}) - "
                f"{when(record.started)} UTC")
        else:
            self.lines.append(f"PokerStars Hand #{hand_number(record.hand)}: {game} "
                              f"({_stakes_text(record)}) - {when(record.started)} UTC")
        button = (f" Seat #{record.button + 1} is the button" if record.button is not None
                  else "")
        self.lines.append(f"Table '{record.table}' {record.num_seats}-max{button} "
                          f"(hand {record.hand})")
        for st in sorted(int(s) for s in record.players):
            self.lines.append(f"Seat {st + 1}: {player_name(record, st)} "
                              f"({record.players[str(st)]['stack']} in chips)")

    def event(self, e: dict[str, Any]) -> None:
        handler = _STARS_EVENTS.get(e["e"])
        if handler is not None:
            seat: Any = e.get("seat")
            handler(self, e, seat, player_name(self.record, seat) if isinstance(seat, int) else "")

    def posted(self, e: dict[str, Any], seat: int, who: str) -> None:
        self.total += e["amount"]
        if e["kind"] == "ante":
            self.lines.append(f"{who}: posts the ante {e['amount']}")
            return
        self.bets[seat] = self.bets.get(seat, 0) + e["amount"]
        self.current = max(self.current, self.bets[seat])
        if e["kind"] == "bring_in":
            self.lines.append(f"{who}: brings in for {e['amount']}")
        else:
            name = _blind_name(self.record, seat, e["kind"], e["amount"])
            self.lines.append(f"{who}: posts {name} {e['amount']}")

    def dealt(self, e: dict[str, Any], seat: int, who: str) -> None:
        if e.get("dead"):
            return
        stud = self.record.variant in STUD
        self.own_count[seat] = self.own_count.get(seat, 0) + len(e["cards"])
        new_round = not self.header_done or seat in self.dealt_round
        if new_round:
            self.dealt_round = set()
        self.dealt_round.add(seat)
        if new_round and (stud or not self.header_done):
            self.lines.append("*** HOLE CARDS ***" if not stud else
                              f"*** {_street_name(self.record, self.board, self.own_count[seat])}"
                              " ***")
        self.header_done = True
        known = [c for c in e["cards"] if c is not None]
        if known:
            self.lines.append(f"Dealt to {who} [{' '.join(known)}]")

    def board_dealt(self, e: dict[str, Any], seat: int, who: str) -> None:
        if e.get("run"):  # RIT-03: the second run, named as PokerStars names it
            before = list(self.board2) or list(e["board"])[:len(e["board"]) - len(e["cards"])]
            self.board2 = list(e["board"])
            name = _street_name(self.record, self.board2, 0)
            old = f" [{card_text(before)}]" if before else ""
            self.lines.append(f"*** SECOND {name} ***{old} [{card_text(e['cards'])}]")
            return
        before = list(self.board)
        self.board = list(e["board"])
        name = _street_name(self.record, self.board, 0)
        old = f" [{card_text(before)}]" if before else ""
        self.lines.append(f"*** {name} ***{old} [{card_text(e['cards'])}]")

    def street_ended(self, e: dict[str, Any], seat: int, who: str) -> None:
        self.bets, self.current = {}, 0

    def acted(self, e: dict[str, Any], seat: int, who: str) -> None:
        action, amount = e["action"], e["amount"]
        put = amount - self.bets.get(seat, 0)
        line = {
            "fold": f"{who}: folds",
            "check": f"{who}: checks",
            "call": f"{who}: calls {put}",
            "bet": f"{who}: bets {put}",
            "raise": f"{who}: raises {amount - self.current} to {amount}",
            "complete": f"{who}: completes it to {amount}",
            "bring_in": f"{who}: brings in for {amount}",
            "decline": f"{who}: declines the "
                       + ("over blind" if self.record.variant == "draw" else "straddle"),
            "run_twice": f"{who}: agrees to run it twice",
            "run_once": f"{who}: runs it once",
        }.get(action)
        if line is not None:
            self.lines.append(line)
        if action == "fold":
            self.folded.add(seat)
        if action not in ("fold", "check", "decline", "run_twice", "run_once"):
            self.total += put
            self.bets[seat] = amount
            self.current = max(self.current, amount)
            if e.get("all_in"):
                self.lines[-1] += " and is all-in"

    def drew_cards(self, e: dict[str, Any], seat: int, who: str) -> None:
        if not self.drew:
            self.lines.append("*** FIRST DRAW ***")
            self.drew = True
        n = len(e["discarded"])
        if n == 0:
            self.lines.append(f"{who}: stands pat")
            return
        known = [c for c in e["discarded"] if c is not None]
        shown_cards = f" [{' '.join(known)}]" if known else ""
        self.lines.append(f"{who}: discards {n} card{'s' if n > 1 else ''}{shown_cards}")
        got = [c for c in e["received"] if c is not None]
        if got:
            self.lines.append(f"Dealt to {who} [{' '.join(got)}]")

    def bet_returned(self, e: dict[str, Any], seat: int, who: str) -> None:
        self.total -= e["amount"]
        self.lines.append(f"Uncalled bet ({e['amount']}) returned to {who}")

    def showdown(self, e: dict[str, Any], seat: int, who: str) -> None:
        if not self.shown and not self.mucked:
            self.lines.append("*** SHOW DOWN ***")
        self.shown[seat] = list(e["cards"])
        self.lines.append(f"{who}: shows [{card_text(e['cards'])}] ({e['hand']})")

    def mucks(self, e: dict[str, Any], seat: int, who: str) -> None:
        if not self.shown and not self.mucked:
            self.lines.append("*** SHOW DOWN ***")
        self.mucked.add(seat)
        self.lines.append(f"{who}: mucks hand")

    def rake_taken(self, e: dict[str, Any], seat: int, who: str) -> None:
        self.rake += e["amount"]

    def pot_awarded(self, e: dict[str, Any], seat: int, who: str) -> None:
        pot = "pot" if e["pot"] == 0 else f"side pot-{e['pot']}"
        if e.get("run"):  # RIT-04: the second run's half
            pot += " (second run)"
        for s, amount in e["winners"].items():
            self.collected[int(s)] = self.collected.get(int(s), 0) + amount
            self.lines.append(f"{player_name(self.record, int(s))} collected {amount} from {pot}")

    def summary(self) -> None:
        record = self.record
        self.lines.append("*** SUMMARY ***")
        self.lines.append(f"Total pot {self.total} | Rake {self.rake}")
        if self.board and self.board2:  # RIT-03: both boards of a board run twice
            self.lines.append(f"FIRST Board [{card_text(self.board)}]")
            self.lines.append(f"SECOND Board [{card_text(self.board2)}]")
        elif self.board:
            self.lines.append(f"Board [{card_text(self.board)}]")
        for seat in sorted(int(s) for s in record.players):
            tag = " (button)" if seat == record.button else ""
            self.lines.append(f"Seat {seat + 1}: {player_name(record, seat)}{tag}"
                              + self._outcome(seat))

    def _outcome(self, seat: int) -> str:
        if seat in self.shown:
            won = (f" and won ({self.collected[seat]})" if seat in self.collected
                   else " and lost")
            return f" showed [{card_text(self.shown[seat])}]{won}"
        if seat in self.collected:
            return f" collected ({self.collected[seat]})"
        if seat in self.mucked:
            return " mucked"
        if seat in self.folded:
            return " folded"
        return ""


_STARS_EVENTS: dict[str, Callable[[_StarsText, dict[str, Any], Any, str], None]] = {
    "Posted": _StarsText.posted,
    "Dealt": _StarsText.dealt,
    "BoardDealt": _StarsText.board_dealt,
    "StreetEnded": _StarsText.street_ended,
    "Acted": _StarsText.acted,
    "Drew": _StarsText.drew_cards,
    "BetReturned": _StarsText.bet_returned,
    "Showdown": _StarsText.showdown,
    "Mucked": _StarsText.mucks,
    "RakeTaken": _StarsText.rake_taken,
    "PotAwarded": _StarsText.pot_awarded,
}


def _blind_name(record: HandRecord, seat: int, kind: str, amount: int) -> str:
    if kind == "over_blind":
        return "over blind"
    if kind == "straddle":  # STRAD-01, a home game's house rule
        return "straddle"
    blinds = list(record.stakes.get("blinds", []))
    # by amount first: with a dead small blind (GEN-05) the first seat posts the big blind,
    # and a player coming in at once posts a big blind out of position
    if blinds and amount >= blinds[-1]:
        return "big blind"
    if len(blinds) >= 2 and amount == blinds[-2]:
        return "small blind"
    order = seat_order(record)  # a short (all-in) blind: named by its position
    idx = order.index(seat) if seat in order else -1
    if len(blinds) >= 2 and idx == len(blinds) - 2:
        return "small blind"
    if idx == len(blinds) - 1:
        return "big blind"
    return "blind"


_PS_ACTION = re.compile(
    r"^(?P<who>.+?): (?P<verb>folds|checks|calls|bets|raises|posts the ante|posts [a-z ]+?|"
    r"brings in for|completes it to|stands pat|discards|shows|mucks hand)"
    r"(?P<rest>.*)$")


def read_pokerstars(text: str) -> dict[str, Any]:
    """Read a :func:`to_pokerstars` text back: ``number``, ``game``, ``table``, ``hand``,
    ``button`` (seat, 0-based), ``seats`` (seat -> (name, stack)), ``actions`` (name, verb,
    total amount or None), ``dealt`` (name -> cards), ``board``, ``shows`` (name -> cards),
    ``collected`` (name -> chips), ``returned`` (name -> chips), ``total``, ``rake``."""
    out: dict[str, Any] = {"seats": {}, "actions": [], "dealt": {}, "board": [], "shows": {},
                           "collected": {}, "returned": {}, "button": None}
    lines = text.splitlines()
    m = re.match(r"^PokerStars Hand #(\d+): (.+?) \(([\d/]+)\) - (.+) UTC$", lines[0])
    if m is None:
        raise ValueError("not a PokerStars hand")
    out["number"], out["game"] = int(m.group(1)), m.group(2)
    tm = re.match(r"^Tournament #(\S+), (\d+)\+(\d+) (.+) - Level ([IVXLCDM]+)$", m.group(2))
    if tm is not None:  # a tournament's hand (issue 27)
        out["tournament"], out["game"], out["level"] = tm.group(1), tm.group(4), tm.group(5)
    m = re.match(r"^Table '(.+?)' (\d+)-max(?: Seat #(\d+) is the button)? \(hand (.+)\)$",
                 lines[1])
    if m is None:
        raise ValueError("no table line")
    out["table"], out["hand"] = m.group(1), m.group(4)
    if m.group(3):
        out["button"] = int(m.group(3)) - 1
    summary = False
    for line in lines[2:]:
        if line == "*** SUMMARY ***":
            summary = True
            continue
        if summary:
            if (m := re.match(r"^Total pot (\d+) \| Rake (\d+)$", line)):
                out["total"], out["rake"] = int(m.group(1)), int(m.group(2))
            continue
        if (m := re.match(r"^Seat (\d+): (.+) \((\d+) in chips\)$", line)):
            out["seats"][int(m.group(1)) - 1] = (m.group(2), int(m.group(3)))
        elif (m := re.match(r"^Dealt to (.+?) \[(.+)\]$", line)):
            out["dealt"].setdefault(m.group(1), []).extend(m.group(2).split())
        elif (m := re.match(r"^\*\*\* .+? \*\*\*(?: \[.*?\])? \[(.+)\]$", line)):
            out["board"].extend(m.group(1).split())
        elif (m := re.match(r"^(.+) collected (\d+) from ", line)):
            out["collected"][m.group(1)] = out["collected"].get(m.group(1), 0) + int(m.group(2))
        elif (m := re.match(r"^Uncalled bet \((\d+)\) returned to (.+)$", line)):
            out["returned"][m.group(2)] = int(m.group(1))
        elif (m := _PS_ACTION.match(line)):
            who, verb, rest = m.group("who"), m.group("verb"), m.group("rest")
            if verb == "shows":
                out["shows"][who] = re.match(r"^ \[(.+?)\]", rest).group(1).split()  # type: ignore[union-attr]
                continue
            nums = [int(x) for x in re.findall(r"\d+", rest.split("[")[0])]
            amount = nums[-1] if nums else None
            out["actions"].append((who, verb.split()[0] if verb.startswith("posts") and
                                   verb != "posts the ante" else verb, amount))
    return out
