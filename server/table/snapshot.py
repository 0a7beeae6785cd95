"""The ``snapshot`` a viewer gets on joining (or when ``resume`` cannot reach back): the whole
table as that viewer may see it.

Rule of this module: it reads the table and its running engine through a
:class:`~server.table.ports.SnapshotSource` (the actor) and writes nothing.
"""

from __future__ import annotations

from typing import Any

from protocol import messages as m
from server.ledger.accounts import guest_tag, is_bot_id
from server.table.ports import SnapshotSource
from server.table.projection import Msg, seat_fields

__all__ = ["snapshot_for"]


def snapshot_for(t: SnapshotSource, player_id: str | None) -> Msg:
    """The ``snapshot`` as ``player_id`` (None: a spectator) may see it; the hand's part is
    the engine's view for that viewer (:meth:`server.rules.engine.Engine.view`)."""
    me = t.seats.seat_of(player_id)
    engine = t.engine
    view = engine.view(me) if engine is not None and t.in_hand else None
    seats: list[dict[str, Any] | None] = []
    for i, st in enumerate(t.seats):
        if st is None:
            seats.append(None)
            continue
        entry = m.seat_entry(seat=i, name=st.name, stack=st.stack, sitting_out=st.sitting_out,
                             state="sitting_out" if st.sitting_out else "waiting",
                             tag=guest_tag(st.player_id),
                             wait_for_bb=(st.wait_for_bb and not st.post_bb
                                          and i not in t.hand_view.start_stacks),
                             disconnected=st.sink is None, bot=is_bot_id(st.player_id))
        sv = view.seats.get(i) if view is not None and i in t.hand_view.start_stacks else None
        if sv is not None and view is not None:
            entry.update(seat_fields(sv))
            if view.together and sv.deciding:  # every seat decides at once (Caribbean)
                entry["deadline"] = t.turns.wall
        seats.append(entry)
    turn: Msg | None = None
    if view is not None and not view.together and t.turns.seat is not None:
        turn = {"seat": t.turns.seat, "deadline": t.turns.wall}
    if view is not None and view.options is not None and me is not None:
        turn = {"seat": me, "deadline": t.turns.wall, "options": view.options.to_wire()}
    board = list(view.board) if view is not None else []
    pots = [{"amount": a, "eligible": el} for a, el in view.pots] if view is not None else []
    return m.snapshot(t.table_id, t.seq, variant=t.spec.variant_name,
                      structure=t.spec.structure, stakes=t.spec.stakes_wire,
                      seats=seats, board=board, pots=pots, button=t.hand_view.button, turn=turn,
                      hand=t.hand_view.hand_id if t.in_hand else None, name=t.spec.name,
                      settings=t.spec.settings_wire, you=me,
                      host=t.host_state(player_id), number=t.hand_view.number or None)
