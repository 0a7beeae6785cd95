"""The open PHH format (the poker hand history standard, TOML), and its reader.

Players are in dealing order; a card the record's viewer did not see is written ``??``
(see :mod:`server.ledger.export` for the fields and the variant codes).
"""

from __future__ import annotations

import datetime as dt
import tomllib
from typing import Any

from server.ledger.export.common import PHH_GAME, PHH_STRUCTURE, STUD, player_name, seat_order
from server.ledger.history import HandRecord

__all__ = ["phh_variant_code", "read_phh", "to_phh"]


def phh_variant_code(variant: str, structure: str | None) -> str:
    """The PHH ``variant`` code (see the module docstring)."""
    return PHH_STRUCTURE[structure or "fixed_limit"] + PHH_GAME[variant]


def _toml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _toml_list(values: list[Any]) -> str:
    return "[" + ", ".join(_toml_str(v) if isinstance(v, str) else str(v)
                           for v in values) + "]"


def _phh_cards(cards: list[Any]) -> str:
    return "".join(c if c is not None else "??" for c in cards)


def to_phh(record: HandRecord) -> str:
    """The hand as a PHH file (TOML; see the module docstring)."""
    order = seat_order(record)
    antes = dict.fromkeys(order, 0)
    blinds = dict.fromkeys(order, 0)
    actions, bring_in = _phh_actions(record, order, antes, blinds)
    tour = record.settings or {}  # a tournament's hand: its id and level (issue 27)
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
        f"players = {_toml_list([player_name(record, s) for s in order])}",
        f"finishing_stacks = {_toml_list([int(final.get(str(s), 0)) for s in order])}",
        f"time = {dt.datetime.fromtimestamp(record.started, dt.UTC).strftime('%H:%M:%S')}",
        f"time_zone = {_toml_str('UTC')}",
        f"_variant = {_toml_str(record.variant)}",
        f"_structure = {_toml_str(record.structure or '')}",
        f"_commitment = {_toml_str(record.commitment)}",
        *([f"_tournament = {_toml_str(str(tour['tournament']))}",
           f"_level = {int(tour.get('level', 1))}"] if tour.get("tournament") else []),
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
            run = " # second run (RIT-03, a house rule)" if e.get("run") else ""
            actions.append(f"d db {_phh_cards(e['cards'])}{run}")
        elif kind == "Acted":
            if e["action"] == "decline":  # BLIND-04: no over blind (not a PHH action)
                actions.append(f"# {p[seat]} declines the over blind")
                continue
            if e["action"] in ("run_twice", "run_once"):  # RIT-02: an answer, no chips
                actions.append(f"# {p[seat]} {e['action'].replace('_', ' ')}")
                continue
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
    if record.variant in STUD:
        fields.append(f"bring_in = {bring_in or st.get('bring_in', 0)}")
    else:
        fields.append(f"blinds_or_straddles = {_toml_list([blinds[s] for s in order])}")
    if record.structure in ("fixed_limit", "spread_limit") or record.variant in STUD:
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
