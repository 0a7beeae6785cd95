"""``poker-verify`` on real hands played through the TableActor (every variant): the audit record
and every player's copy pass; a tampered one (a changed card, a changed salt, swapped
positions, a changed action or result) fails with a clear message and exit code 1."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from server.ledger.history import HandRecord, player_copy
from server.verify import main, verify_record
from tests.ledger.play import VARIANTS, Played, play


async def _played(variant: str) -> Played:
    p = await play(variant, hands=5, seed=3)
    assert len(p.records) >= 4, (variant, len(p.records))
    return p


def _copies(record: HandRecord) -> list[HandRecord]:
    out = []
    for info in record.players.values():
        c = player_copy(record, str(info["player"]))
        assert c is not None
        out.append(c)
    return out


@pytest.mark.parametrize("variant", VARIANTS)
async def test_verify_passes_on_real_hands_audit_and_every_player_copy(variant: str) -> None:
    p = await _played(variant)
    started = [m["commitment"] for m in p.spectator.of("hand_started")]
    for record in p.records:
        assert record.commitment in started  # the root published before the deal
        report = verify_record(record, commitment=record.commitment)
        assert report.ok, (record.hand, report.problems)
        assert report.checked_cards == record.deck_size  # the whole deck, every salt
        for c in _copies(record):
            report = verify_record(c, commitment=record.commitment)
            assert report.ok, (record.hand, c.viewer, report.problems)
            own = sum(len(e["cards"]) for e in c.events
                      if e["e"] == "Dealt" and e["seat"] == c.viewer and not e.get("dead"))
            assert report.checked_cards >= own  # at least every card dealt to me


def _write(tmp_path: Path, record: HandRecord, name: str) -> Path:
    path = tmp_path / name
    path.write_text(record.to_json(), encoding="utf-8")
    return path


async def test_command_exit_codes_and_messages(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    p = await _played("holdem")
    record = p.records[-1]
    audit = _write(tmp_path, record, "audit.json")
    mine = player_copy(record, "p0")
    assert mine is not None
    # the `ok` answer of a `hand` request is accepted as it is
    answer = {"type": "ok", "rid": 1, "hand": mine.hand, "format": "json",
              "record": mine.to_dict()}
    wire = tmp_path / "answer.json"
    wire.write_text(json.dumps(answer), encoding="utf-8")
    assert main([str(audit), "--commitment", record.commitment]) == 0
    assert "OK: hand" in capsys.readouterr().out
    assert main([str(wire)]) == 0
    assert "copy of seat" in capsys.readouterr().out
    assert main([str(wire), "--commitment", "00" * 32]) == 1
    out = capsys.readouterr().out
    assert "FAIL: the record's commitment is not the one published" in out
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert main([str(bad)]) == 1
    assert "cannot read" in capsys.readouterr().err


# ------------------------------------------------------------------------- tampering
def _first(record: HandRecord, kind: str, **match: Any) -> dict[str, Any]:
    for e in record.events:
        if e["e"] == kind and all(e.get(k) == v for k, v in match.items()):
            return e
    raise AssertionError(f"no {kind} {match}")


def _other_card(record: HandRecord, card: str) -> str:
    assert record.audit is not None
    deck: list[str] = record.audit["deck"]
    return next(c for c in deck if c != card)


def _showdown_hand(p: Played) -> HandRecord:
    for r in p.records:
        if any(e["e"] == "Showdown" for e in r.events) and any(
                e["e"] == "Acted" and e["action"] in ("bet", "raise", "call") for e in r.events):
            return r
    raise AssertionError("no hand went to a showdown with a bet")


def _fails(record: HandRecord, needle: str) -> None:
    report = verify_record(record)
    assert not report.ok
    assert any(needle in p for p in report.problems), report.problems


@pytest.mark.parametrize("variant", ["holdem", "stud7", "draw", "caribbean"])
async def test_a_tampered_audit_record_fails(variant: str) -> None:
    p = await _played(variant)
    record = p.records[-1]
    assert verify_record(record).ok
    assert record.audit is not None

    t = copy.deepcopy(record)  # a changed card in the deck
    assert t.audit is not None
    t.audit["deck"][0], t.audit["deck"][1] = t.audit["deck"][1], t.audit["deck"][0]
    _fails(t, "do not give the published commitment")

    t = copy.deepcopy(record)  # a changed salt
    assert t.audit is not None
    salt = bytearray.fromhex(t.audit["salts"][5])
    salt[0] ^= 1
    t.audit["salts"][5] = salt.hex()
    _fails(t, "do not give the published commitment")

    t = copy.deepcopy(record)  # a changed card in the events
    dealt = _first(t, "Dealt")
    dealt["cards"][0] = _other_card(t, dealt["cards"][0])
    _fails(t, "the replay differs")

    t = copy.deepcopy(record)  # swapped positions
    dealt = _first(t, "Dealt")
    other = [e for e in t.events if e["e"] == "Dealt" and e["seat"] != dealt["seat"]][0]
    dealt["positions"][0], other["positions"][0] = other["positions"][0], dealt["positions"][0]
    _fails(t, "dealt positions")

    t = copy.deepcopy(record)  # a changed result
    seat = next(iter(t.result["stacks"]))
    t.result["stacks"][seat] += 10
    _fails(t, "do not follow from the cards and actions")


@pytest.mark.parametrize("variant", ["holdem", "stud5", "manila"])
async def test_a_changed_action_fails_the_audit_replay(variant: str) -> None:
    p = await _played(variant)
    record = _showdown_hand(p)
    t = copy.deepcopy(record)
    acted = next(e for e in t.events if e["e"] == "Acted"
                 and e["action"] in ("bet", "raise", "call"))
    acted["amount"] += 1
    report = verify_record(t)
    assert not report.ok
    assert any("replay" in x for x in report.problems), report.problems
    t = copy.deepcopy(record)  # a fold turned into a check (or the reverse) changes the hand
    acted = next(e for e in t.events if e["e"] == "Acted" and e["action"] in ("fold", "check"))
    acted["action"] = "check" if acted["action"] == "fold" else "fold"
    assert not verify_record(t).ok


@pytest.mark.parametrize("variant", ["holdem", "stud7", "draw", "caribbean"])
async def test_a_tampered_player_copy_fails(variant: str) -> None:
    p = await _played(variant)
    record = _showdown_hand(p) if variant != "caribbean" else p.records[-1]
    seat = next(int(e["seat"]) for e in record.events if e["e"] == "Dealt")
    mine = player_copy(record, str(record.players[str(seat)]["player"]))
    assert mine is not None and verify_record(mine).ok

    t = copy.deepcopy(mine)  # a changed card: my own first card
    dealt = _first(t, "Dealt", seat=seat)
    old = dealt["cards"][0]
    dealt["cards"][0] = _other_card(record, old)
    _fails(t, "is not opened there")

    t = copy.deepcopy(mine)  # the card changed in the events and in its opening alike
    dealt = _first(t, "Dealt", seat=seat)
    dealt["cards"][0] = _other_card(record, old)
    for o in t.reveal:
        if o["card"] == old:
            o["card"] = dealt["cards"][0]
    _fails(t, "does not match the commitment")

    t = copy.deepcopy(mine)  # a changed salt
    salt = bytearray.fromhex(t.reveal[0]["salt"])
    salt[-1] ^= 0x80
    t.reveal[0]["salt"] = salt.hex()
    _fails(t, "does not match the commitment")

    t = copy.deepcopy(mine)  # swapped positions of two openings
    a, b = t.reveal[0], t.reveal[1]
    a["position"], b["position"] = b["position"], a["position"]
    _fails(t, "does not match the commitment")

    t = copy.deepcopy(mine)  # swapped positions in the dealing
    dealt = _first(t, "Dealt", seat=seat)
    if len(dealt["positions"]) > 1:
        dealt["positions"][0], dealt["positions"][1] = dealt["positions"][1], dealt["positions"][0]
    else:
        dealt["positions"][0] += 1
    _fails(t, "positions")

    t = copy.deepcopy(mine)  # a changed result
    s = next(iter(t.result["stacks"]))
    t.result["stacks"][s] += 5
    _fails(t, "result's stacks differ")

    if variant != "caribbean":  # a changed action breaks the chip flow
        t = copy.deepcopy(mine)
        acted = next(e for e in t.events if e["e"] == "Acted"
                     and e["action"] in ("bet", "raise", "call"))
        acted["amount"] += 2
        _fails(t, "expected")


async def test_poker_verify_console_script(tmp_path: Path) -> None:
    """The `poker-verify` entry point (pyproject [project.scripts]) runs as a process."""
    import subprocess
    import sys
    import tomllib

    root = Path(__file__).resolve().parents[2]
    scripts = tomllib.loads((root / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["poker-verify"] == "server.verify:main"
    p = await _played("stud7")
    record = p.records[-1]
    good = _write(tmp_path, record, "audit.json")
    t = copy.deepcopy(record)
    assert t.audit is not None
    t.audit["salts"][0] = "00" * 16
    bad = _write(tmp_path, t, "tampered.json")
    run = [sys.executable, "-c", "import sys; from server.verify import main; "
           "sys.exit(main(sys.argv[1:]))"]
    ok = subprocess.run([*run, str(good)], cwd=root, capture_output=True, text=True,
                        timeout=60)
    assert ok.returncode == 0 and ok.stdout.startswith("OK: hand"), ok.stdout + ok.stderr
    no = subprocess.run([*run, str(bad)], cwd=root, capture_output=True, text=True, timeout=60)
    assert no.returncode == 1 and "FAILED: hand" in no.stdout, no.stdout + no.stderr


async def test_an_audit_record_opening_a_card_the_table_never_showed_fails() -> None:
    """The audit's public openings are checked against the one visibility rule: a hole card
    nobody was shown, opened in ``reveal`` (to everyone), fails; so does a public card whose
    opening is missing."""
    p = await _played("holdem")
    record, opening = next(
        (r, o) for r in p.records for os in r.own.values() for o in os
        if o["card"] not in {x["card"] for x in r.reveal})
    t = copy.deepcopy(record)
    t.reveal.append(copy.deepcopy(opening))
    _fails(t, "opened but never shown ['" + opening["card"] + "']")
    board = next(r for r in p.records if any(e["e"] == "BoardDealt" for e in r.events))
    t = copy.deepcopy(board)
    gone = t.reveal.pop()
    _fails(t, "shown but not opened ['" + gone["card"] + "']")
