"""Wave 3 of the protocol (docs/protocol.md): ``best`` on every ``showdown`` (and on the
Caribbean dealer's reveal), the snapshot's seat entries with ``sitting_out`` and, at a
Caribbean table, ``deadline``."""

from __future__ import annotations

from protocol import messages as m
from protocol.fields import SEAT_FIELDS


def test_showdown_always_carries_best() -> None:
    msg = m.showdown("t1", 3, seat=1, cards=["As", "Ad"], hand="t1.4", value="pair of aces",
                     best=["As", "Ad", "Kc", "9d", "4h"])
    assert msg["best"] == ["As", "Ad", "Kc", "9d", "4h"]
    assert m.check_server_message(msg) == "showdown"
    assert "best" in m.MESSAGE_FIELDS["showdown"][0]
    assert m.showdown("t1", 3, seat=1, cards=[], hand="t1.4", value="x")["best"] == []


def test_dealer_reveal_carries_best() -> None:
    turned = m.dealer("t1", 9, cards=["2c", "2d", "Ks", "9h", "4c"], hand="pair of twos",
                      qualifies=False, best=["2c", "2d", "Ks", "9h", "4c"])
    assert turned["best"] == ["2c", "2d", "Ks", "9h", "4c"]
    assert "best" not in m.dealer("t1", 8, cards=[None, None, None, None, "4c"])


def test_seat_entry_fields() -> None:
    entry = m.seat_entry(seat=2, name="Ann", stack=500, sitting_out=False)
    assert set(entry) == set(SEAT_FIELDS[0])
    assert entry["state"] == "waiting" and entry["cards"] == [] and entry["bet"] == 0
    full = m.seat_entry(seat=2, name="Ann", stack=500, sitting_out=True, bet=10,
                        state="active", cards=[None, None], up=["Kd"], tag="#a1b2",
                        deadline=1712345690.0, wait_for_bb=True, disconnected=True,
                        bot=True)
    assert set(full) == set(SEAT_FIELDS[0]) | set(SEAT_FIELDS[1])
    assert full["wait_for_bb"] is True and full["disconnected"] is True
    assert full["guest"] is True and full["tag"] == "#a1b2" and full["sitting_out"] is True
