"""The ``snapshot`` a viewer gets on joining (or when ``resume`` cannot reach back): the whole
table as that viewer may see it.

Rule of this module: it reads the table and its running engine and writes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from protocol import messages as m
from server.ledger.accounts import guest_tag
from server.rules.caribbean import CaribbeanRound
from server.rules.hand import Hand
from server.rules.pots import build_pots
from server.table.projection import Msg

if TYPE_CHECKING:
    from server.table.actor import TableActor

__all__ = ["snapshot_for"]


def snapshot_for(t: TableActor, player_id: str | None) -> Msg:
    """The ``snapshot`` as ``player_id`` (None: a spectator) may see it."""
    me = t.seats.seat_of(player_id)
    hand = t.engine if isinstance(t.engine, Hand) else None
    rnd = t.engine if isinstance(t.engine, CaribbeanRound) else None
    proj = t.dealer.projector
    seats: list[dict[str, Any] | None] = []
    for i, st in enumerate(t.seats):
        if st is None:
            seats.append(None)
            continue
        entry: dict[str, Any] = {"seat": i, "name": st.name, "stack": st.stack, "bet": 0,
                                 "state": "sitting_out" if st.sitting_out else "waiting",
                                 "cards": [], "up": []}
        tag = guest_tag(st.player_id)
        if tag is not None:  # a guest account: marked, and told apart by its tag
            entry["guest"], entry["tag"] = True, tag
        if t.in_hand and i in t.dealer.start_stacks and proj is not None:
            stack = t.dealer.live_stack(i)
            entry["stack"] = stack
            state = "active"
            if hand is not None:
                entry["bet"] = hand.bets.get(i, 0)
                if i in hand.folded:
                    state = "folded"
                elif stack == 0:
                    state = "all_in"
            hole = proj.hole(i) if t.dealer.hand_owner.get(i) == player_id else None
            count = len(proj.down.get(i, ()))
            entry["cards"] = hole if hole is not None else [None] * count
            entry["up"] = list(proj.up.get(i, []))
            entry["state"] = state
        seats.append(entry)
    turn: Msg | None = None
    if hand is not None and t.turns.seat is not None:
        turn = {"seat": t.turns.seat, "deadline": t.turns.wall}
        if me == t.turns.seat:
            opts = hand.options(t.turns.seat)
            if opts is not None:
                turn["options"] = opts.to_wire()
    elif rnd is not None and me is not None:
        ropts = rnd.options(me)
        if ropts is not None:
            turn = {"seat": me, "deadline": t.turns.wall, "options": ropts.to_wire()}
    board = list(hand.board) if hand is not None else []
    pots: list[Msg] = []
    if hand is not None:  # the rounds before this one: its bets are the seats' ``bet``
        bets = hand.bets
        before = {s: c - bets.get(s, 0) for s, c in hand.contrib.items()}
        pots = [{"amount": p.amount, "eligible": p.eligible}
                for p in build_pots(before, hand.live)]
    return m.snapshot(t.table_id, t.seq, variant=t.spec.variant_name,
                      structure=t.spec.structure, stakes=t.spec.stakes_wire,
                      seats=seats, board=board, pots=pots, button=t.dealer.button, turn=turn,
                      hand=t.dealer.hand_id if t.in_hand else None, name=t.spec.name,
                      settings=t.spec.settings_wire, you=me)
