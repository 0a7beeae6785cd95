"""Caribbean Stud's own hand history text (PokerStars and PHH have no form for a game against
the house), and its reader."""

from __future__ import annotations

import re
from typing import Any

from server.ledger.export.common import player_name, when
from server.ledger.history import HandRecord

__all__ = ["read_caribbean_text", "to_caribbean_text"]


def to_caribbean_text(record: HandRecord) -> str:
    """A Caribbean Stud round as plain text (PokerStars and PHH have no form for it)."""
    lines = [f"Caribbean Stud hand {record.hand} - table {record.table} - "
             f"{when(record.started)} UTC",
             f"Commitment: {record.commitment}"]
    for st in sorted(int(s) for s in record.players):
        lines.append(f"Seat {st + 1}: {player_name(record, st)} "
                     f"({record.players[str(st)]['stack']} in chips)")
    for e in record.events:
        kind = e["e"]
        seat: Any = e.get("seat")
        who = player_name(record, seat) if isinstance(seat, int) else ""
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
        lines.append(f"{player_name(record, int(s))}: jackpot payout {amount}")
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
