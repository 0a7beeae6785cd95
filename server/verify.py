"""``poker-verify``: check a hand history against the deck commitment published before the deal.

Usage: ``poker-verify HAND.json [--commitment HEX]``. The file is either a player's copy (the
``json`` answer of a ``hand`` request: its ``record``, or the record itself) or the operator's
audit record (it has ``audit``: the whole deck, every salt and the reshuffle seed).
``--commitment`` is the root the player saw in ``hand_started``; the record's own
``commitment`` must equal it. Exit code 0 when every check passes, 1 otherwise, with one line
per problem.

With a **player's copy**: every opening in ``reveal`` must verify against the root
(:func:`server.rules.commitment.verify_opening`); every card that player saw (their own cards,
up cards, the board, cards shown at showdown, the Caribbean dealer's cards) must be opened at
exactly the deck position the events say it was dealt from; and those positions must follow
the dealing order (:func:`check_dealing_order`: burns, rounds dealt one card at a time from the
button's left, the board and draws, each taking the next cards of the deck, none twice).
Cards from a mid-hand reshuffle (positions past the committed deck) cannot be opened and are
reported, not failed. The copy's chip flow is also checked: every stack its events announce
follows from the bets, and the final stacks are the result.

With the **audit record**: the deck and salts must rebuild the root; the deck must be the
variant's card set; every opening must match; and the hand is replayed through the pure engine
(the same deck, seed and actions) which must produce exactly the recorded events and result.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from server.ledger.history import HandRecord, event_to_dict
from server.rules.commitment import DeckCommitment, opening_from_wire, verify_opening

if TYPE_CHECKING:
    from server.rules.caribbean import CaribbeanSettings
    from server.table.settings import PotSpec

__all__ = ["Report", "verify_record", "check_dealing_order", "replay", "main"]


@dataclass(slots=True)
class Report:
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    checked_cards: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems

    def fail(self, text: str) -> None:
        self.problems.append(text)


# --------------------------------------------------------------------------- dealing order

_LABELS = frozenset({"practice", "tournament", "tournament_name", "level", "buy_in", "fee"})
"""Settings that label a hand (a practice table's, a tournament's id and level) and are not
rules of its play."""

def _deal_seats(record: HandRecord, seats: Sequence[int]) -> list[int]:
    if record.button is None:  # Caribbean: seat order, the dealer ("-1") last
        return sorted(seats)
    n, b = record.num_seats, record.button
    return sorted(seats, key=lambda s: (s - b - 1) % n)


def check_dealing_order(record: HandRecord, report: Report) -> dict[int, list[int]]:
    """Check that every position in the events is the next card of the deck in dealing order.
    Returns seat -> the positions dealt to it (the dealer is seat -1)."""
    cursor = 0
    dealt: dict[int, list[int]] = {}
    events = record.events
    i = 0
    while i < len(events):
        e = events[i]
        kind = e["e"]
        if kind == "Burned":
            if e["position"] != cursor:
                report.fail(f"burn at position {e['position']}, expected {cursor}")
            cursor = max(cursor, int(e["position"])) + 1
        elif kind in ("BoardDealt", "Drew"):
            got = [int(p) for p in e["positions"]]
            want = list(range(cursor, cursor + len(got)))
            if got != want:
                report.fail(f"{kind} positions {got}, expected {want}")
            if kind == "Drew":
                dealt.setdefault(int(e["seat"]), []).extend(got)
            cursor += len(got)
        elif kind in ("Dealt", "DealerDealt"):
            rnd: list[dict[str, Any]] = []  # one dealing round: each seat once
            while i < len(events) and events[i]["e"] in ("Dealt", "DealerDealt"):
                seat = int(events[i].get("seat", -1))
                if any(int(x.get("seat", -1)) == seat for x in rnd):
                    break
                rnd.append(events[i])
                i += 1
            i -= 1
            seats = [int(x.get("seat", -1)) for x in rnd]
            players = [s for s in seats if s != -1]
            order = _deal_seats(record, players) + ([-1] if -1 in seats else [])
            if seats != order:
                report.fail(f"a round dealt to seats {seats}, expected the order {order}")
            width = len(rnd)
            passes = len(rnd[0]["positions"])
            for k, x in enumerate(rnd):
                got = [int(p) for p in x["positions"]]
                want = [cursor + j * width + k for j in range(passes)]
                if got != want:
                    report.fail(f"seat {seats[k]} dealt positions {got}, expected {want}")
                dealt.setdefault(seats[k], []).extend(got)
            cursor += width * passes
        i += 1
    return dealt


# --------------------------------------------------------------------------- player's copy
def _seen_cards(record: HandRecord, dealt: dict[int, list[int]],
                report: Report) -> list[tuple[str, int | None, int]]:
    """(card, position or None when only the seat is known, seat) of every visible card."""
    seen: list[tuple[str, int | None, int]] = []
    for e in record.events:
        kind = e["e"]
        if kind in ("Dealt", "DealerDealt", "BoardDealt", "Drew"):
            cards = e["received"] if kind == "Drew" else e["cards"]
            seat = int(e.get("seat", -1))
            for c, p in zip(cards, e["positions"], strict=False):
                if c is not None:
                    seen.append((str(c), int(p), seat))
        elif kind in ("Showdown", "DealerRevealed"):
            seat = int(e.get("seat", -1))
            for c in e["cards"]:
                seen.append((str(c), None, seat))
    return seen


def verify_openings(record: HandRecord, openings: Sequence[dict[str, Any]],
                    report: Report) -> dict[int, str]:
    """Each opening against the root; returns position -> card of the committed ones."""
    by_pos: dict[int, str] = {}
    for raw in openings:
        if raw.get("salt") is None:
            pos = raw.get("position")
            if isinstance(pos, int) and pos >= record.deck_size:
                report.notes.append(f"{raw.get('card')} at {pos}: dealt after a reshuffle, "
                                    "not in the committed deck")
            else:
                report.fail(f"opening of {raw.get('card')} at {pos} has no salt")
            continue
        try:
            o = opening_from_wire(raw)
        except ValueError as exc:
            report.fail(str(exc))
            continue
        if not verify_opening(record.commitment, o.position, o.card, o.salt, o.proof):
            report.fail(f"{o.card} at position {o.position} does not match the commitment")
            continue
        if by_pos.get(o.position, o.card) != o.card:
            report.fail(f"two cards opened at position {o.position}")
        by_pos[o.position] = o.card
        report.checked_cards += 1
    if len(set(by_pos.values())) != len(by_pos):
        report.fail("one card opened at two positions")
    return by_pos


def _check_seen(record: HandRecord, opened: dict[int, str], dealt: dict[int, list[int]],
                report: Report) -> None:
    where = {c: p for p, c in opened.items()}
    for card, pos, seat in _seen_cards(record, dealt, report):
        if pos is not None:
            if pos >= record.deck_size:
                continue  # a reshuffled card (noted with the openings)
            if opened.get(pos) != card:
                report.fail(f"{card} was dealt from position {pos} but is not opened there")
        else:
            p = where.get(card)
            if p is None:
                if card not in {o["card"] for o in record.reveal if o.get("salt") is None}:
                    report.fail(f"{card} (shown by seat {seat}) has no opening")
            elif p not in dealt.get(seat, []):
                report.fail(f"{card} shown by seat {seat} sits at position {p}, "
                            "which was not dealt to that seat")


def check_chip_flow(record: HandRecord, report: Report) -> None:
    """Every stack the events announce follows from the bets; the end is the result."""
    stacks = {int(s): int(p["stack"]) for s, p in record.players.items()}
    bets = dict.fromkeys(stacks, 0)
    final: dict[str, Any] | None = None
    for e in record.events:
        kind = e["e"]
        if kind in ("StreetEnded",):
            bets = dict.fromkeys(stacks, 0)
        elif kind in ("Posted", "AnteAccepted", "JackpotWagered"):
            seat = int(e["seat"])
            stacks[seat] -= int(e["amount"])
            if kind == "Posted" and e["kind"] != "ante":
                bets[seat] += int(e["amount"])
            if stacks[seat] != int(e["stack"]):
                report.fail(f"seat {seat}: stack {e['stack']} after {kind}, expected "
                            f"{stacks[seat]}")
                stacks[seat] = int(e["stack"])
        elif kind == "Acted":
            seat = int(e["seat"])
            stacks[seat] -= int(e["amount"]) - bets[seat]
            bets[seat] = int(e["amount"])
            if stacks[seat] != int(e["stack"]):
                report.fail(f"seat {seat}: stack {e['stack']} after {e['action']} to "
                            f"{e['amount']}, expected {stacks[seat]}")
                stacks[seat] = int(e["stack"])
        elif kind == "BetReturned":
            seat = int(e["seat"])
            stacks[seat] += int(e["amount"])
            bets[seat] -= int(e["amount"])
        elif kind == "PotAwarded":
            for s, amount in e["winners"].items():
                stacks[int(s)] += int(amount)
        elif kind in ("HandEnded", "RoundEnded"):
            final = e
    if final is None:
        report.fail("the hand has no end")
        return
    if {str(k): v for k, v in final["stacks"].items()} != record.result.get("stacks"):
        report.fail("the result's stacks differ from the hand's last event")
    flow = {str(k): v for k, v in stacks.items()}
    if record.variant != "caribbean" and not final.get("voided") and flow != final["stacks"]:
        report.fail(f"the bets and pots give stacks {flow}, the hand says "
                    f"{final['stacks']}")


# --------------------------------------------------------------------------- audit record
def replay(record: HandRecord) -> list[dict[str, Any]]:
    """Replay the audit record through the pure engine; returns the events it produces
    (as plain data). Raises ValueError when the recorded actions cannot be replayed."""
    from protocol.requests import parse_request
    from server.config import Config
    from server.rules.errors import IllegalAction
    from server.table.settings import HOUSE_RULES, HouseSpec, build_spec

    assert record.audit is not None
    # a house rule in the settings: the hand was played at a home game (the only tables that
    # have them), so it is replayed as one
    home = any((record.settings or {}).get(k) for k in HOUSE_RULES)
    settings = {k: v for k, v in (record.settings or {}).items()  # (what the hand was, not
                if k not in _LABELS}  # how it was played: a tournament's id and level ...)
    req = parse_request({"type": "create_table", "variant": record.variant,
                         "structure": record.structure, "stakes": record.stakes,
                         "seats": record.num_seats, "settings": settings,
                         "private": home})
    spec = build_spec(req, Config(), name="verify")  # type: ignore[arg-type]
    try:
        if isinstance(spec, HouseSpec):
            return _replay_caribbean(record, spec.caribbean)
        return _replay_pot_game(record, spec)
    except IllegalAction as exc:
        raise ValueError(f"the engine refused a recorded action: {exc.message}") from None


def _norm(events: Sequence[Any]) -> list[dict[str, Any]]:
    """Engine events as plain data, as the record holds them."""
    return [json.loads(json.dumps(event_to_dict(e))) for e in events]


def _replay_caribbean(record: HandRecord,
                      settings: CaribbeanSettings) -> list[dict[str, Any]]:
    """`replay` of a Caribbean Stud round: each recorded action again, in order."""
    from server.rules.caribbean import CaribbeanRound

    assert record.audit is not None
    stacks = {int(s): int(p["stack"]) for s, p in record.players.items()}
    rnd = CaribbeanRound(settings, stacks, list(record.audit["deck"]), round_id=record.hand)
    rec = record.events
    out: list[dict[str, Any]] = []
    produced: Sequence[Any]
    i = 0
    while i < len(rec):
        e = rec[i]
        kind, seat = e["e"], e.get("seat", -1)
        if rnd.phase == "antes" and kind in ("Dealt", "DealerDealt", "RoundVoided",
                                             "RoundEnded"):
            produced = rnd.deal()
        elif kind == "AnteAccepted":
            jp = i + 1 < len(rec) and rec[i + 1]["e"] == "JackpotWagered"
            produced = rnd.ante(seat, e["amount"], jackpot=jp)
        elif kind == "SatOut":
            produced = rnd.timeout(seat) if e["timeout"] else rnd.sit_out(seat)
        elif kind == "PlayerDecided":
            produced = (rnd.timeout(seat) if e["timeout"] else
                        rnd.play(seat) if e["action"] == "play" else rnd.fold(seat))
        else:
            raise ValueError(f"event {i} ({kind}) is not an action")
        got = _norm(produced)
        out += got
        i += max(1, len(got))
    return out


def _replay_pot_game(record: HandRecord, spec: PotSpec) -> list[dict[str, Any]]:
    """`replay` of a pot game's hand: started with the recorded deck and seed, then each
    recorded action (and timeout) again, in order, until the hand is over."""
    from server.rules.hand import Hand

    assert record.audit is not None
    if record.button is None:
        raise ValueError("a pot game needs a button")
    stacks = {int(s): int(p["stack"]) for s, p in record.players.items()}
    hand = Hand(spec.variant, spec.rules, stacks, button=record.button,
                deck=list(record.audit["deck"]), num_seats=record.num_seats,
                hand_id=record.hand, seed=bytes.fromhex(record.audit["seed"]),
                ask_over_blind=spec.asks_over_blind)  # as the table (BLIND-04, STRAD-01)
    rec = record.events
    out = _norm(hand.start())
    moved: Sequence[Any]
    i = len(out)
    while i < len(rec) and not hand.is_over:
        e = rec[i]
        kind, seat = e["e"], e.get("seat", -1)
        if kind == "Acted" and e["timeout"]:
            moved = hand.timeout(seat)
        elif kind == "Acted":
            amount = e["amount"] if e["action"] in ("bet", "raise") else None
            moved = hand.act(seat, e["action"], amount)
        elif kind == "Drew":
            moved = hand.act(seat, "draw", discard=tuple(e["discarded"]))
        elif kind == "Posted" and e["kind"] in ("over_blind", "straddle"):  # BLIND-04, STRAD-01
            moved = hand.act(seat, "over_blind")
        else:
            raise ValueError(f"event {i} ({kind}) is not an action")
        got = _norm(moved)
        out += got
        i += max(1, len(got))
    return out


def verify_audit(record: HandRecord, report: Report) -> None:
    audit = record.audit
    assert audit is not None
    deck = list(audit["deck"])
    try:
        salts = [bytes.fromhex(s) for s in audit["salts"]]
        tree = DeckCommitment(deck, salts)
    except (ValueError, TypeError) as exc:
        report.fail(f"the audit deck cannot be committed: {exc}")
        return
    if tree.root_hex != record.commitment:
        report.fail("the deck and salts do not give the published commitment")
    if len(deck) != record.deck_size:
        report.fail("the deck size differs from the record's")
    for raw in [*record.reveal, *(o for os in record.own.values() for o in os)]:
        pos = raw.get("position")
        if isinstance(pos, int) and pos < len(deck) and deck[pos] != raw.get("card"):
            report.fail(f"opening of {raw.get('card')} at {pos}: the deck has {deck[pos]}")
    verify_openings(record, [*record.reveal, *(o for os in record.own.values() for o in os)],
                    report)
    check_dealing_order(record, report)
    check_public(record, report)
    try:
        produced = replay(record)
    except Exception as exc:  # a bad record must give a clear message, never a traceback
        report.fail(f"replay failed: {exc}")
        return
    if produced != record.events:
        n = next((k for k, (a, b) in enumerate(zip(produced, record.events, strict=False))
                  if a != b), min(len(produced), len(record.events)))
        a = produced[n] if n < len(produced) else None
        b = record.events[n] if n < len(record.events) else None
        report.fail(f"the replay differs at event {n}: engine {a}, record {b}")
    elif produced:
        last = produced[-1]
        if {str(k): v for k, v in last["stacks"].items()} != record.result.get("stacks"):
            report.fail("the result's stacks do not follow from the cards and actions")
        report.checked_cards = len(deck)


_CARD = re.compile(r'"([2-9TJQKA][cdhs])"')


def check_public(record: HandRecord, report: Report) -> None:
    """The audit record's public openings (``reveal``) are exactly the cards the one
    visibility rule (:func:`server.rules.visibility.seen`) showed a spectator: the public
    copy of the record (:func:`server.ledger.history.public_copy`) names the same cards."""
    from server.ledger.history import public_copy

    shown = set(_CARD.findall(json.dumps(public_copy(record).events)))
    opened = {str(o.get("card")) for o in record.reveal}
    if shown != opened:
        extra, missing = sorted(opened - shown), sorted(shown - opened)
        report.fail("the public openings differ from what the table showed: "
                    f"opened but never shown {extra}, shown but not opened {missing}")


def verify_record(record: HandRecord, *, commitment: str | None = None) -> Report:
    """Every check of the module docstring for ``record`` (a player's copy or the audit)."""
    report = Report()
    if commitment is not None and commitment.lower() != record.commitment.lower():
        report.fail("the record's commitment is not the one published in hand_started")
    if record.audit is not None:
        verify_audit(record, report)
        return report
    dealt = check_dealing_order(record, report)
    opened = verify_openings(record, record.reveal, report)
    _check_seen(record, opened, dealt, report)
    check_chip_flow(record, report)
    return report


def load(path: Path) -> HandRecord:
    obj = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(obj, dict) and "record" in obj and isinstance(obj["record"], dict):
        obj = obj["record"]  # the `ok` answer of a `hand` request
    return HandRecord.from_dict(obj)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="poker-verify", description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path, help="a hand history (JSON): player copy or audit")
    parser.add_argument("--commitment", help="the commitment published in hand_started")
    args = parser.parse_args(argv)
    try:
        record = load(args.file)
    except (OSError, ValueError, TypeError) as exc:
        print(f"poker-verify: cannot read {args.file}: {exc}", file=sys.stderr)
        return 1
    report = verify_record(record, commitment=args.commitment)
    kind = "audit record" if record.audit is not None else f"copy of seat {record.viewer}"
    for note in report.notes:
        print(f"note: {note}")
    if report.ok:
        print(f"OK: hand {record.hand} ({kind}): {report.checked_cards} cards checked "
              f"against commitment {record.commitment[:16]}…")
        return 0
    for problem in report.problems:
        print(f"FAIL: {problem}")
    print(f"FAILED: hand {record.hand} ({kind}): {len(report.problems)} problem(s)")
    return 1


if __name__ == "__main__":
    sys.exit(main())
