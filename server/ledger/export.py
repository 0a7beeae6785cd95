"""Hand history exports: PokerStars-style text, the open PHH format, and their readers.

Rule of this module: an export is made from one :class:`~server.ledger.history.HandRecord`
as given, so a player's copy exports only what that player saw (others' hidden cards are
``None`` there and never appear: PokerStars prints no ``Dealt to`` line for them, PHH writes
``????``). Every format has a reader here, used by the tests to read an export back.

* **PokerStars** (:func:`to_pokerstars`): the text hand tracking tools import. Seats are
  numbered from 1 (our seat + 1); the hand number is the hand id's number (:func:`hand_number`:
  unique for ever, like the id), the real id is the table line's ``hand`` note. Games:
  Hold'em, Manila Hold'em, Manila 3-card Hold'em, 5 Card Draw, 5 Card Stud, 7 Card Stud; the
  structure is "No Limit", "Pot Limit", "Limit", "Spread Limit" or "Half Pot Limit".
* **PHH** (:func:`to_phh`, the poker hand history format of the PHH standard, TOML): the
  required fields of the variant (``variant``, ``antes``, ``blinds_or_straddles`` or
  ``bring_in``, ``min_bet`` or ``small_bet``/``big_bet``, ``starting_stacks``, ``actions``)
  and the optional ``hand``, ``table``, ``seats``, ``seat_count``, ``players``,
  ``finishing_stacks``, ``time``. Players are in dealing order (the first left of the
  button; the small blind first). Standard variant codes are used where the standard has
  one (``FT``, ``NT``, ``F7S``); the others are ours, built the same way (structure letter
  ``F`` fixed, ``S`` spread, ``P`` pot, ``H`` half pot, ``N`` no limit; then ``T`` hold'em,
  ``MN`` Manila, ``MN3`` Manila 3-card, ``5D`` five card draw, ``5S``/``7S`` stud); the user
  fields ``_variant``, ``_structure`` and ``_commitment`` give ours exactly. The over blind
  (BLIND-04) is written as a straddle; a blind that is not the small or big blind likewise.
* **Caribbean Stud** is played against the house, with no betting rounds and no showdown
  between players, so neither PokerStars nor PHH can express it: its export
  (:func:`to_caribbean_text`, also what both formats give for it) is a plain text form of its
  own, read back by :func:`read_caribbean_text`.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import tomllib
from collections.abc import Callable
from typing import Any

from server.ledger.history import HandRecord

__all__ = [
    "FORMATS", "export", "hand_number", "to_pokerstars", "read_pokerstars", "to_phh",
    "read_phh", "phh_variant_code", "to_caribbean_text", "read_caribbean_text",
]

FORMATS = ("json", "pokerstars", "phh")

_GAMES = {"holdem": "Hold'em", "manila": "Manila Hold'em", "manila3": "Manila 3-card Hold'em",
          "draw": "5 Card Draw", "stud5": "5 Card Stud", "stud7": "7 Card Stud"}
_STRUCTURES = {"no_limit": "No Limit", "pot_limit": "Pot Limit", "fixed_limit": "Limit",
               "spread_limit": "Spread Limit", "half_pot": "Half Pot Limit"}
_PHH_STRUCTURE = {"fixed_limit": "F", "spread_limit": "S", "pot_limit": "P",
                  "half_pot": "H", "no_limit": "N"}
_PHH_GAME = {"holdem": "T", "manila": "MN", "manila3": "MN3", "draw": "5D", "stud5": "5S",
             "stud7": "7S"}
_STUD = ("stud5", "stud7")


_NUMBERED = re.compile(r"^t\d+\.([1-9]\d{0,11})$")


def hand_number(hand: str) -> int:
    """The hand's number for trackers (they want digits): ``n`` of a hand id ``t<k>.<n>``,
    whose ``n`` comes from the store's durable hand counter and so is never given to another
    hand (:mod:`server.ledger.ids`); a stable 12-digit hash for an id of any other form."""
    m = _NUMBERED.match(hand)
    if m is not None:
        return int(m.group(1))
    return int.from_bytes(hashlib.sha256(hand.encode()).digest()[:8], "big") % 10**12


def _when(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y/%m/%d %H:%M:%S")


def _order(record: HandRecord) -> list[int]:
    seats = sorted(int(s) for s in record.players)
    if record.button is None:
        return seats
    n, b = record.num_seats, record.button
    return sorted(seats, key=lambda s: (s - b - 1) % n)


def _name(record: HandRecord, seat: int) -> str:
    return str(record.players[str(seat)]["name"] or record.players[str(seat)]["player"])


def _cards(cards: list[Any]) -> str:
    return " ".join(c for c in cards if c is not None)


def export(record: HandRecord, fmt: str) -> str:
    """``record`` as ``fmt`` text (``pokerstars`` or ``phh``; Caribbean: its own form)."""
    if record.variant == "caribbean":
        return to_caribbean_text(record)
    if fmt == "pokerstars":
        return to_pokerstars(record)
    if fmt == "phh":
        return to_phh(record)
    raise ValueError(f"unknown format {fmt!r}")


# --------------------------------------------------------------------------- PokerStars
def _stakes_text(record: HandRecord) -> str:
    st = record.stakes
    if record.variant in _STUD or record.structure == "fixed_limit":
        lo = st.get("small_bet") or st.get("bring_in", 0)
        hi = st.get("big_bet") or lo
        return f"{lo}/{hi}"
    blinds = list(st.get("blinds", []))
    if len(blinds) >= 2:
        return f"{blinds[-2]}/{blinds[-1]}"
    return f"{blinds[-1] if blinds else 0}/{blinds[-1] if blinds else 0}"


def _street_name(record: HandRecord, board: list[Any], own_count: int) -> str:
    if record.variant in _STUD:
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
        game = f"{_GAMES[record.variant]} {_STRUCTURES.get(record.structure or '', '')}".strip()
        self.lines.append(f"PokerStars Hand #{hand_number(record.hand)}: {game} "
                          f"({_stakes_text(record)}) - {_when(record.started)} UTC")
        button = (f" Seat #{record.button + 1} is the button" if record.button is not None
                  else "")
        self.lines.append(f"Table '{record.table}' {record.num_seats}-max{button} "
                          f"(hand {record.hand})")
        for st in sorted(int(s) for s in record.players):
            self.lines.append(f"Seat {st + 1}: {_name(record, st)} "
                              f"({record.players[str(st)]['stack']} in chips)")

    def event(self, e: dict[str, Any]) -> None:
        handler = _STARS_EVENTS.get(e["e"])
        if handler is not None:
            seat: Any = e.get("seat")
            handler(self, e, seat, _name(self.record, seat) if isinstance(seat, int) else "")

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
        stud = self.record.variant in _STUD
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
        before = list(self.board)
        self.board = list(e["board"])
        name = _street_name(self.record, self.board, 0)
        old = f" [{_cards(before)}]" if before else ""
        self.lines.append(f"*** {name} ***{old} [{_cards(e['cards'])}]")

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
        }.get(action)
        if line is not None:
            self.lines.append(line)
        if action == "fold":
            self.folded.add(seat)
        if action not in ("fold", "check"):
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
        self.lines.append(f"{who}: shows [{_cards(e['cards'])}] ({e['hand']})")

    def mucks(self, e: dict[str, Any], seat: int, who: str) -> None:
        if not self.shown and not self.mucked:
            self.lines.append("*** SHOW DOWN ***")
        self.mucked.add(seat)
        self.lines.append(f"{who}: mucks hand")

    def rake_taken(self, e: dict[str, Any], seat: int, who: str) -> None:
        self.rake += e["amount"]

    def pot_awarded(self, e: dict[str, Any], seat: int, who: str) -> None:
        pot = "pot" if e["pot"] == 0 else f"side pot-{e['pot']}"
        for s, amount in e["winners"].items():
            self.collected[int(s)] = self.collected.get(int(s), 0) + amount
            self.lines.append(f"{_name(self.record, int(s))} collected {amount} from {pot}")

    def summary(self) -> None:
        record = self.record
        self.lines.append("*** SUMMARY ***")
        self.lines.append(f"Total pot {self.total} | Rake {self.rake}")
        if self.board:
            self.lines.append(f"Board [{_cards(self.board)}]")
        for seat in sorted(int(s) for s in record.players):
            tag = " (button)" if seat == record.button else ""
            self.lines.append(f"Seat {seat + 1}: {_name(record, seat)}{tag}"
                              + self._outcome(seat))

    def _outcome(self, seat: int) -> str:
        if seat in self.shown:
            won = (f" and won ({self.collected[seat]})" if seat in self.collected
                   else " and lost")
            return f" showed [{_cards(self.shown[seat])}]{won}"
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
    blinds = list(record.stakes.get("blinds", []))
    # by amount first: with a dead small blind (GEN-05) the first seat posts the big blind,
    # and a player coming in at once posts a big blind out of position
    if blinds and amount >= blinds[-1]:
        return "big blind"
    if len(blinds) >= 2 and amount == blinds[-2]:
        return "small blind"
    order = _order(record)  # a short (all-in) blind: named by its position
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


# --------------------------------------------------------------------------- PHH
def phh_variant_code(variant: str, structure: str | None) -> str:
    """The PHH ``variant`` code (see the module docstring)."""
    return _PHH_STRUCTURE[structure or "fixed_limit"] + _PHH_GAME[variant]


def _toml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _toml_list(values: list[Any]) -> str:
    return "[" + ", ".join(_toml_str(v) if isinstance(v, str) else str(v)
                           for v in values) + "]"


def _phh_cards(cards: list[Any]) -> str:
    return "".join(c if c is not None else "??" for c in cards)


def to_phh(record: HandRecord) -> str:
    """The hand as a PHH file (TOML; see the module docstring)."""
    order = _order(record)
    antes = dict.fromkeys(order, 0)
    blinds = dict.fromkeys(order, 0)
    actions, bring_in = _phh_actions(record, order, antes, blinds)
    fields: list[str] = [
        f"# hand {record.hand} at table {record.table}; seats are 1-based",
        f"variant = {_toml_str(phh_variant_code(record.variant, record.structure))}",
        f"antes = {_toml_list([antes[s] for s in order])}",
        *_phh_stakes(record, order, blinds, bring_in),
    ]
    final = record.result.get("stacks", {})
    fields += [
        f"starting_stacks = {_toml_list([int(record.players[str(s)]['stack']) for s in order])}",
        "actions = [\n" + "".join(f"  {_toml_str(a)},\n" for a in actions) + "]",
        f"hand = {_toml_str(record.hand)}",
        f"table = {_toml_str(record.table)}",
        f"seats = {_toml_list([s + 1 for s in order])}",
        f"seat_count = {record.num_seats}",
        f"players = {_toml_list([_name(record, s) for s in order])}",
        f"finishing_stacks = {_toml_list([int(final.get(str(s), 0)) for s in order])}",
        f"time = {dt.datetime.fromtimestamp(record.started, dt.UTC).strftime('%H:%M:%S')}",
        f"time_zone = {_toml_str('UTC')}",
        f"_variant = {_toml_str(record.variant)}",
        f"_structure = {_toml_str(record.structure or '')}",
        f"_commitment = {_toml_str(record.commitment)}",
    ]
    return "\n".join(fields) + "\n"


def _phh_actions(record: HandRecord, order: list[int], antes: dict[int, int],
                 blinds: dict[int, int]) -> tuple[list[str], int]:
    """The PHH `actions` of the record's events, and the bring-in; adds the antes and blinds
    posted to `antes` and `blinds`."""
    p = {seat: f"p{i + 1}" for i, seat in enumerate(order)}
    actions: list[str] = []
    bring_in = 0
    for e in record.events:
        kind = e["e"]
        seat: Any = e.get("seat")
        if kind == "Posted":
            if e["kind"] == "ante":
                antes[seat] += e["amount"]
            elif e["kind"] == "bring_in":
                bring_in = e["amount"]
                actions.append(f"{p[seat]} pb")
            else:
                blinds[seat] += e["amount"]
        elif kind == "Dealt":
            if e.get("dead"):
                actions.append(f"# dead cards to {p[seat]}")
                continue
            ups = "".join(c for c, u in zip(e["cards"], e["up"], strict=True) if u and c)
            note = f" # up {ups}" if ups else ""
            actions.append(f"d dh {p[seat]} {_phh_cards(e['cards'])}{note}")
        elif kind == "BoardDealt":
            actions.append(f"d db {_phh_cards(e['cards'])}")
        elif kind == "Acted":
            if e["action"] == "bring_in":
                bring_in = e["amount"]
            actions.append(f"{p[seat]} {_phh_act(e)}")
        elif kind == "Drew":
            cards = _phh_cards(e["discarded"])
            actions.append(f"{p[seat]} sd {cards}".rstrip())
            if e["received"]:
                actions.append(f"d dh {p[seat]} {_phh_cards(e['received'])}")
        elif kind == "Showdown":
            actions.append(f"{p[seat]} sm {_phh_cards(e['cards'])}")
        elif kind == "Mucked":
            actions.append(f"{p[seat]} sm")
    return actions, bring_in


def _phh_act(e: dict[str, Any]) -> str:
    """A player's action in PHH: fold `f`, check or call `cc`, bring-in `pb`, else `cbr`."""
    act = e["action"]
    if act == "fold":
        return "f"
    if act in ("check", "call"):
        return "cc"
    if act == "bring_in":
        return "pb"
    return f"cbr {e['amount']}"


def _phh_stakes(record: HandRecord, order: list[int], blinds: dict[int, int],
                bring_in: int) -> list[str]:
    """The PHH fields of the forced bets and bet sizes (after `antes`)."""
    st = record.stakes
    fields: list[str] = []
    if record.variant in _STUD:
        fields.append(f"bring_in = {bring_in or st.get('bring_in', 0)}")
    else:
        fields.append(f"blinds_or_straddles = {_toml_list([blinds[s] for s in order])}")
    if record.structure in ("fixed_limit", "spread_limit") or record.variant in _STUD:
        small = st.get("small_bet") or st.get("min_bet") or st.get("bring_in", 0)
        fields.append(f"small_bet = {small}")
        fields.append(f"big_bet = {st.get('big_bet') or small}")
    else:
        blind = list(st.get("blinds", [0]))[-1]
        fields.append(f"min_bet = {st.get('min_bet') or blind}")
    return fields


def read_phh(text: str) -> dict[str, Any]:
    """Parse a PHH file (TOML) and check the fields its variant requires; returns the
    fields with ``actions`` split into words (commentary dropped)."""
    data = tomllib.loads(text)
    code = data.get("variant")
    if not isinstance(code, str):
        raise ValueError("PHH: no variant")
    need = ["antes", "starting_stacks", "actions"]
    need += ["bring_in"] if code.endswith("S") else ["blinds_or_straddles"]
    need += ["small_bet", "big_bet"] if code[0] in "FS" or code.endswith("S") else ["min_bet"]
    missing = [k for k in need if k not in data]
    if missing:
        raise ValueError(f"PHH: missing {missing}")
    n = len(data["starting_stacks"])
    for key in ("antes", "blinds_or_straddles", "players", "seats", "finishing_stacks"):
        if key in data and len(data[key]) != n:
            raise ValueError(f"PHH: {key} has {len(data[key])} entries for {n} players")
    parsed = []
    for a in data["actions"]:
        words = a.split("#", 1)[0].split()
        if not words:
            continue
        actor = words[0]
        if actor != "d" and not (actor[0] == "p" and 1 <= int(actor[1:]) <= n):
            raise ValueError(f"PHH: bad actor in {a!r}")
        parsed.append(words)
    data["parsed_actions"] = parsed
    return data


# --------------------------------------------------------------------------- Caribbean
def to_caribbean_text(record: HandRecord) -> str:
    """A Caribbean Stud round as plain text (PokerStars and PHH have no form for it)."""
    lines = [f"Caribbean Stud hand {record.hand} - table {record.table} - "
             f"{_when(record.started)} UTC",
             f"Commitment: {record.commitment}"]
    for st in sorted(int(s) for s in record.players):
        lines.append(f"Seat {st + 1}: {_name(record, st)} "
                     f"({record.players[str(st)]['stack']} in chips)")
    for e in record.events:
        kind = e["e"]
        seat: Any = e.get("seat")
        who = _name(record, seat) if isinstance(seat, int) else ""
        if kind == "AnteAccepted":
            lines.append(f"{who}: antes {e['amount']}")
        elif kind == "JackpotWagered":
            lines.append(f"{who}: jackpot wager {e['amount']}")
        elif kind == "SatOut":
            lines.append(f"{who}: sits out")
        elif kind == "Dealt":
            known = [c for c in e["cards"] if c is not None]
            if known:
                lines.append(f"Dealt to {who} [{' '.join(known)}]")
        elif kind == "DealerDealt":
            lines.append(f"Dealer shows [{e['cards'][-1]}]")
        elif kind == "PlayerDecided":
            lines.append(f"{who}: plays {e['amount']}" if e["action"] == "play"
                         else f"{who}: folds")
        elif kind == "DealerRevealed":
            q = "qualifies" if e["qualifies"] else "does not qualify"
            lines.append(f"Dealer has [{' '.join(e['cards'])}] ({e['hand']}) - {q}")
        elif kind == "Settled":
            named = f" ({e['hand']})" if e.get("hand") else ""  # None: folded, not ours
            lines.append(f"{who}: ante {e['ante']:+d}, play {e['play']:+d}, "
                         f"jackpot {e['jackpot']:+d}{named}")
    paid = record.result.get("jackpot_paid", {})
    for s, amount in sorted(paid.items()):
        lines.append(f"{_name(record, int(s))}: jackpot payout {amount}")
    final = record.result.get("stacks", {})
    lines.append("Final stacks: " + ", ".join(
        f"Seat {int(s) + 1} {v}" for s, v in sorted(final.items(), key=lambda x: int(x[0]))))
    return "\n".join(lines) + "\n"


def read_caribbean_text(text: str) -> dict[str, Any]:
    """Read :func:`to_caribbean_text` back: ``hand``, ``commitment``, ``seats``, ``antes``,
    ``decisions``, ``dealt``, ``dealer``, ``settled`` (name -> (ante, play, jackpot)),
    ``final`` (seat -> chips)."""
    lines = text.splitlines()
    m = re.match(r"^Caribbean Stud hand (\S+) - table (\S+) - ", lines[0])
    if m is None:
        raise ValueError("not a Caribbean Stud hand")
    out: dict[str, Any] = {"hand": m.group(1), "table": m.group(2), "seats": {}, "antes": {},
                           "decisions": {}, "dealt": {}, "dealer": None, "settled": {},
                           "final": {}, "commitment": lines[1].split(": ", 1)[1]}
    for line in lines[2:]:
        if (m := re.match(r"^Seat (\d+): (.+) \((\d+) in chips\)$", line)):
            out["seats"][int(m.group(1)) - 1] = (m.group(2), int(m.group(3)))
        elif (m := re.match(r"^(.+): antes (\d+)$", line)):
            out["antes"][m.group(1)] = int(m.group(2))
        elif (m := re.match(r"^(.+): (plays|folds)", line)):
            out["decisions"][m.group(1)] = m.group(2)
        elif (m := re.match(r"^Dealt to (.+?) \[(.+)\]$", line)):
            out["dealt"][m.group(1)] = m.group(2).split()
        elif (m := re.match(r"^Dealer has \[(.+?)\]", line)):
            out["dealer"] = m.group(1).split()
        elif (m := re.match(r"^(.+): ante ([+-]\d+), play ([+-]\d+), jackpot ([+-]\d+)", line)):
            out["settled"][m.group(1)] = (int(m.group(2)), int(m.group(3)), int(m.group(4)))
        elif line.startswith("Final stacks: "):
            for part in line[len("Final stacks: "):].split(", "):
                if part:
                    _, seat, chips = part.split()
                    out["final"][int(seat) - 1] = int(chips)
    return out
