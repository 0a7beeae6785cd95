"""Server-to-client messages: answers, session messages and table events.

The rule of this module: every message the server sends is built by one function here,
which returns a plain ``dict`` ready for :meth:`~protocol.codec.JsonCodec.encode` (lists,
never tuples, and string seat keys, so that a frame decodes to an equal ``dict`` in both
encodings).  :data:`MESSAGE_FIELDS` lists the required and optional fields of each type;
:func:`check_server_message` is the receiving side's check (bots, load tester, tests).

Answers (exactly one per request, carrying the request's ``rid``, ``null`` if it had none):
``ok`` (success, with result fields), ``error`` (``code`` + ``message``) and ``pong``
(success answer to ``ping``).

Table events carry ``table`` (the table id) and ``seq`` (that table's event counter from 1,
the same for every viewer; each viewer gets its own projection of the event).  Maps keyed by
seat (``winners``, ``stacks``, ``results``) have decimal string keys: ``{"3": 200}``.
Cards are strings like ``"As"``; a card this viewer may not see is ``null``.
The tournament messages are built in :mod:`protocol.tournaments` and re-exported here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .codec import seat_map
from .constants import EVENT_TYPES, TABLE_EVENT_TYPES
from .errors import ERROR_CODES, ProtocolError
from .tournaments import (
    TOURNAMENT_MESSAGE_FIELDS,
    tournament,
    tournament_result,
    tournament_seat,
    tournaments,
)

__all__ = [
    "MESSAGE_FIELDS",
    "acted",
    "balance",
    "board",
    "chat",
    "check_server_message",
    "dealer",
    "dealt",
    "drew",
    "error",
    "hand_ended",
    "hand_started",
    "jackpot",
    "ledger",
    "left",
    "mucked",
    "notice",
    "ok",
    "pong",
    "posted",
    "presence",
    "pot_awarded",
    "pots",
    "sat_in",
    "sat_out",
    "seat_refused",
    "seat_request",
    "seated",
    "seat_entry",
    "settled",
    "showdown",
    "snapshot",
    "table_closed",
    "table_updated",
    "tournament",
    "tournament_result",
    "tournament_seat",
    "tournaments",
    "turn",
    "welcome",
]

Rid = str | int | None
Msg = dict[str, Any]
HandId = str | int

_T = ("table", "seq")

#: For every server message type: (required fields, optional fields), besides ``type``.
MESSAGE_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "ok": (("rid",), ()),
    "error": (("rid", "code", "message"), ("retry_after", "url", "table")),
    "pong": (("rid", "time"), ("t",)),
    "welcome": (("player_id", "name", "token", "balance"), ("guest",)),
    "jackpot": (("pool",), ("minor", "major", "table")),
    "balance": (("balance",), ()),
    "notice": (("text",), ("table",)),
    "snapshot": ((*_T, "variant", "structure", "stakes", "seats", "board", "pots", "button",
                  "turn", "hand"), ("name", "settings", "you", "host", "number")),
    "seated": ((*_T, "seat", "name", "stack"), ("guest", "tag", "wait_for_bb", "bot", "topup")),
    "seat_request": ((*_T, "player", "name", "seat", "buy_in"), ("guest", "tag")),
    "seat_refused": ((*_T, "player", "seat"), ("reason",)),
    "table_updated": ((*_T, "host"), ()),
    "ledger": ((*_T, "rows", "text"), ()),
    "left": ((*_T, "seat", "name"), ("reason",)),
    "sat_out": ((*_T, "seat"), ()),
    "sat_in": ((*_T, "seat"), ("wait_for_bb",)),
    "presence": ((*_T, "seat", "online"), ()),
    "hand_started": ((*_T, "hand", "button", "commitment"), ("number",)),
    "posted": ((*_T, "seat", "kind", "amount"), ()),
    "dealt": ((*_T, "seat", "cards", "up"), ()),
    "drew": ((*_T, "seat", "count"), ("cards",)),
    "board": ((*_T, "cards"), ("run",)),
    "turn": ((*_T, "seat", "deadline"), ("options", "time_bank", "in_bank")),
    "acted": ((*_T, "seat", "action", "amount", "stack"), ()),
    "showdown": ((*_T, "seat", "cards", "hand", "value", "best"), ()),
    "mucked": ((*_T, "seat"), ()),
    "pot_awarded": ((*_T, "pot", "amount", "winners", "odd_chip"), ("run",)),
    "pots": ((*_T, "pots"), ()),
    "hand_ended": ((*_T, "hand", "stacks", "reveal"), ()),
    "chat": ((*_T, "text"), ("seat", "name", "guest", "tag")),
    "dealer": ((*_T, "cards"), ("hand", "qualifies", "best")),
    "settled": ((*_T, "results"), ()),
    "table_closed": ((*_T, "reason"), ()),
    **TOURNAMENT_MESSAGE_FIELDS,  # their builders are protocol.tournaments' (re-exported)
}


def check_server_message(obj: Mapping[str, Any]) -> str:
    """Check a decoded server message's type and required fields; return its type.

    Raises ``unknown_type`` or ``missing_field``.  Unknown extra fields are allowed.
    """
    kind = obj.get("type")
    spec = MESSAGE_FIELDS.get(kind) if isinstance(kind, str) else None
    if spec is None:
        raise ProtocolError("unknown_type", f"unknown server message type {str(kind)[:64]!r}")
    for name in spec[0]:
        if name not in obj:
            raise ProtocolError("missing_field", f"`{kind}` without `{name}`", field=name)
    return str(kind)


# --- Answers ---------------------------------------------------------------------------
def ok(rid: Rid, /, **result: Any) -> Msg:
    """``ok``: the request ``rid`` succeeded; ``result`` fields depend on the request
    (``tables`` for tables, ``table`` for create_table, ``hands``/``more`` for history …)."""
    return {"type": "ok", "rid": rid, **result}


def error(rid: Rid, code: str, message: str | None = None) -> Msg:
    """``error``: the request ``rid`` failed.  ``code`` is an ErrorCode (or its string; stable,
    for programs); ``message`` is for humans and defaults to the code's standard text."""
    if code not in ERROR_CODES:
        raise ValueError(f"unknown error code {code!r}")
    return {"type": "error", "rid": rid, "code": code,
            "message": ERROR_CODES[code] if message is None else message}


def pong(rid: Rid, *, time: float, t: int | float | None = None) -> Msg:
    """``pong``: answer to ``ping``.  ``time``: server clock (Unix seconds); ``t``: the
    ping's ``t`` echoed, when it had one."""
    msg: Msg = {"type": "pong", "rid": rid, "time": time}
    if t is not None:
        msg["t"] = t
    return msg


# --- Session ---------------------------------------------------------------------------
def welcome(*, player_id: str, name: str, token: str, balance: int,
            guest: bool | None = None) -> Msg:
    """``welcome``: after hello/login/register.  ``player_id``; display ``name``; ``token``
    to resume the session with ``hello``; ``balance`` (chips off the tables); ``guest``
    whether the account is a guest account."""
    msg: Msg = {"type": "welcome", "player_id": player_id, "name": name, "token": token,
                "balance": balance}
    if guest is not None:
        msg["guest"] = guest
    return msg


def balance(*, balance: int) -> Msg:
    """``balance``: pushed to every connection of a player whenever their account balance
    changes (buy-in, cash-out, rebuy, jackpot credit); ``balance`` is the new figure (chips
    off the tables). No ``seq``."""
    return {"type": "balance", "balance": balance}


def notice(*, text: str, table: str | None = None) -> Msg:
    """``notice``: a message from the room's operator, to every connection or (with
    ``table``) to that table's viewers. No ``seq``: it is not a table event."""
    msg: Msg = {"type": "notice", "text": text}
    if table is not None:
        msg["table"] = table
    return msg


def jackpot(*, pool: int, minor: int | None = None, major: int | None = None,
            table: str | None = None) -> Msg:
    """``jackpot``: the Caribbean Stud progressive meter, sent to every connection
    (no ``seq``).  ``pool``: the whole pool; ``minor``/``major`` when the pool is split
    (CSP-11); ``table`` when the change came from a payout at that table."""
    msg: Msg = {"type": "jackpot", "pool": pool}
    if minor is not None:
        msg["minor"] = minor
    if major is not None:
        msg["major"] = major
    if table is not None:
        msg["table"] = table
    return msg


# --- Table events ----------------------------------------------------------------------
def _ev(kind: str, table: str, seq: int, fields: Msg) -> Msg:
    return {"type": kind, "table": table, "seq": seq, **fields}


def snapshot(table: str, seq: int, *, variant: str, structure: str | None,
             stakes: Mapping[str, Any], seats: Sequence[Mapping[str, Any] | None],
             board: Sequence[str], pots: Sequence[Mapping[str, Any]], button: int | None,
             turn: Mapping[str, Any] | None, hand: HandId | None, name: str | None = None,
             settings: Mapping[str, Any] | None = None, you: int | None = None,
             host: Mapping[str, Any] | None = None, number: int | None = None) -> Msg:
    """``snapshot``: the whole table as this viewer may see it; ``seq`` is the table's
    latest event number, so a client resumes from it.

    ``seats``: one entry per seat, ``null`` when empty, else a :func:`seat_entry`
    ``{seat, name, stack, bet, state, cards, up, sitting_out}`` (``cards``: own cards, or
    ``null`` per hidden card; ``up``: face-up cards; ``state`` e.g. ``active``, ``folded``,
    ``all_in``, ``sitting_out``; optional ``guest``/``tag`` and ``deadline``).  ``board``:
    community cards; ``pots``: the pots as in ``pots``
    (``{amount, eligible}``, main first) holding the chips of the rounds before the current
    one (antes included); the current round's bets are the seats' ``bet``, so the middle
    holds ``sum(pots) + sum(bet)``; empty between hands;
    ``button``: seat or null; ``turn``: null or ``{seat, deadline, options?}`` as in
    ``turn``; ``hand``: current hand id or null; ``you``: the viewer's seat, if seated;
    ``host``: a private table's host state as in ``table_updated``; ``number``: the
    current (or last) hand's number at this table, as in ``hand_started``.
    """
    msg = _ev("snapshot", table, seq, {
        "variant": variant, "structure": structure, "stakes": dict(stakes),
        "seats": [None if s is None else dict(s) for s in seats], "board": list(board),
        "pots": _pot_list(pots), "button": button, "turn": None if turn is None else dict(turn),
        "hand": hand,
    })
    if name is not None:
        msg["name"] = name
    if settings is not None:
        msg["settings"] = dict(settings)
    if you is not None:
        msg["you"] = you
    if host is not None:
        msg["host"] = dict(host)
    if number is not None:
        msg["number"] = number
    return msg


def seat_request(table: str, seq: int, *, player: str, name: str, seat: int, buy_in: int,
                 guest: str | None = None) -> Msg:
    """``seat_request`` (to the host only): ``player`` (``name``) asks to sit at ``seat``
    with ``buy_in`` chips; the host answers with ``host`` ``approve`` or ``refuse``."""
    msg = _ev("seat_request", table, seq, {"player": player, "name": name, "seat": seat,
                                           "buy_in": buy_in})
    if guest:
        msg["guest"] = True
        msg["tag"] = guest
    return msg


def seat_refused(table: str, seq: int, *, player: str, seat: int,
                 reason: str | None = None) -> Msg:
    """``seat_refused`` (to the asker only): the host refused the request to sit at ``seat``
    (or it could not be met: ``reason``, an error code such as ``seat_taken``)."""
    msg = _ev("seat_refused", table, seq, {"player": player, "seat": seat})
    if reason is not None:
        msg["reason"] = reason
    return msg


def ledger(table: str, seq: int, *, rows: Sequence[Mapping[str, Any]], text: str) -> Msg:
    """``ledger`` (to a private table's host, when the game closes): the session ledger,
    ``rows`` as in the ``host`` ``ledger`` answer and ``text`` (CSV), once everyone has been
    cashed out."""
    return _ev("ledger", table, seq, {"rows": [dict(r) for r in rows], "text": text})


def table_updated(table: str, seq: int, *, host: Mapping[str, Any]) -> Msg:
    """``table_updated``: a private table's host state changed: ``host`` is ``{seat, name,
    private, paused, approve_seats, rebuys, stakes, settings, next}`` (``stakes`` and
    ``settings``: the ones in use now; ``seat``/``name``: who hosts; ``next``:
    the stakes and settings the next hand will use when the host changed them, else null);
    the host's own copy also holds ``code`` (the invite code) and ``requests`` (the seat
    requests waiting: ``{player, name, seat, buy_in}``)."""
    return _ev("table_updated", table, seq, {"host": dict(host)})


def seated(table: str, seq: int, *, seat: int, name: str, stack: int,
           guest: str | None = None, wait_for_bb: bool = False, bot: bool = False,
           topup: int = 0) -> Msg:
    """``seated``: player ``name`` took ``seat`` with ``stack`` chips. A guest account's
    (``guest``: its tag, e.g. ``"3fa2"``) also carries ``guest: true`` and ``tag``, which tells
    two guests of one name apart (absent for a named account). ``bot``: a practice table's
    bot (issue 24) carries ``bot: true``. ``topup``: chips its player added during a hand,
    waiting for its end (GEN-06; ``stack`` is then the seat's stack when the hand began;
    issue 24)."""
    msg = _ev("seated", table, seq, {"seat": seat, "name": name, "stack": stack})
    if topup:
        msg["topup"] = topup
    if bot:
        msg["bot"] = True
    if wait_for_bb:  # GEN-05: dealt in when the big blind reaches this seat
        msg["wait_for_bb"] = True
    if guest:
        msg["guest"] = True
        msg["tag"] = guest
    return msg


def left(table: str, seq: int, *, seat: int, name: str, reason: str | None = None) -> Msg:
    """``left``: the player at ``seat`` left the table; ``reason`` ``"removed"`` when a
    private table's host removed them."""
    fields: Msg = {"seat": seat, "name": name}
    if reason is not None:
        fields["reason"] = reason
    return _ev("left", table, seq, fields)


def sat_out(table: str, seq: int, *, seat: int) -> Msg:
    """``sat_out``: the player at ``seat`` sits out (keeps the seat, skips hands)."""
    return _ev("sat_out", table, seq, {"seat": seat})


def sat_in(table: str, seq: int, *, seat: int, wait_for_bb: bool = False) -> Msg:
    """``sat_in``: the player at ``seat`` plays again from the next hand; ``wait_for_bb``
    (true, else absent): only once the big blind reaches them (GEN-05), unless they post one
    (``sit_in`` with ``post_bb``)."""
    fields: Msg = {"seat": seat}
    if wait_for_bb:
        fields["wait_for_bb"] = True
    return _ev("sat_in", table, seq, fields)


def presence(table: str, seq: int, *, seat: int, online: bool) -> Msg:
    """``presence``: the connection of the player at ``seat`` dropped (``online: false``,
    sent at once) or came back (``online: true``). A disconnected player keeps the seat;
    their turn times out at the action clock (their time bank waits unless the table's
    ``bank_when_disconnected``), and after ``reconnect_grace`` they are sat out."""
    return _ev("presence", table, seq, {"seat": seat, "online": online})


def hand_started(table: str, seq: int, *, hand: HandId, button: int | None,
                 commitment: str, number: int | None = None) -> Msg:
    """``hand_started``: hand id ``hand`` (unique for ever, for the history and audits);
    ``number``: the hand's number at this table (1 for its first hand; what people see,
    "#1"); ``button`` seat; ``commitment``: the root (hex)
    of the Merkle tree over the deck, one leaf per position, its card and a fresh random
    salt (byte layout: :mod:`server.rules.commitment`), published before any card and
    opened card by card by ``hand_ended.reveal``."""
    fields: Msg = {"hand": hand, "button": button, "commitment": commitment}
    if number is not None:
        fields["number"] = number
    return _ev("hand_started", table, seq, fields)


def posted(table: str, seq: int, *, seat: int, kind: str, amount: int) -> Msg:
    """``posted``: a forced bet: ``kind`` one of POST_KINDS (blind, ante, bring_in,
    over_blind), ``amount`` chips."""
    return _ev("posted", table, seq, {"seat": seat, "kind": kind, "amount": amount})


def seat_entry(*, seat: int, name: str, stack: int, sitting_out: bool, bet: int = 0,
               state: str = "waiting", cards: Sequence[str | None] = (),
               up: Sequence[str] = (), tag: str | None = None,
               deadline: float | None = None, wait_for_bb: bool = False,
               disconnected: bool = False, bot: bool = False) -> Msg:
    """One seat of a ``snapshot`` (fields: :data:`protocol.fields.SEAT_FIELDS`).
    ``bot``: a practice table's bot (issue 24; the entry carries ``bot: true``).
    ``sitting_out`` (wave 3): the player sits out (also while a hand they are in runs on);
    ``tag``: a guest account's tag (the entry then carries ``guest: true`` and ``tag``);
    ``deadline`` (wave 3, Caribbean Stud): Unix seconds, the phase's deadline, for a seat
    that still has to decide in the current phase; ``wait_for_bb``: a newcomer (or one back
    after the big blind passed them) who waits for the big blind to be dealt in (GEN-05);
    ``disconnected``: the player's connection is gone (see ``presence``)."""
    entry: Msg = {"seat": seat, "name": name, "stack": stack, "bet": bet, "state": state,
                  "cards": list(cards), "up": list(up), "sitting_out": sitting_out}
    if tag is not None:
        entry["guest"], entry["tag"] = True, tag
    if deadline is not None:
        entry["deadline"] = deadline
    if wait_for_bb:
        entry["wait_for_bb"] = True
    if disconnected:
        entry["disconnected"] = True
    if bot:
        entry["bot"] = True
    return entry


def dealt(table: str, seq: int, *, seat: int, cards: Sequence[str | None],
          up: Sequence[str]) -> Msg:
    """``dealt``: cards to ``seat``.  ``cards``: the face-down cards, their values only in
    their owner's projection (``null`` per hidden card for others); ``up``: face-up cards,
    the same for everyone."""
    return _ev("dealt", table, seq, {"seat": seat, "cards": list(cards), "up": list(up)})


def drew(table: str, seq: int, *, seat: int, count: int,
         cards: Sequence[str] | None = None) -> Msg:
    """``drew``: ``seat`` discarded ``count`` cards and received as many (Draw,
    DRAW-03).  ``cards``: the new cards, only in the drawing player's projection."""
    fields: Msg = {"seat": seat, "count": count}
    if cards is not None:
        fields["cards"] = list(cards)
    return _ev("drew", table, seq, fields)


def board(table: str, seq: int, *, cards: Sequence[str], run: int = 1) -> Msg:
    """``board``: all community cards so far.  ``run``: 2 for the second board of a board
    run twice (RIT-03, a home game's house rule: the cards both runs share, then the second
    run's); absent for the board (or its first run)."""
    fields: Msg = {"cards": list(cards)}
    if run != 1:
        fields["run"] = run
    return _ev("board", table, seq, fields)


def turn(table: str, seq: int, *, seat: int, deadline: float,
         options: Mapping[str, Any] | None = None, time_bank: float | None = None,
         in_bank: bool = False) -> Msg:
    """``turn``: ``seat`` is to act by ``deadline`` (Unix seconds).  ``options`` only in
    that player's projection, e.g. ``{"fold": true, "check": false, "call": 200,
    "raise": {"min": 400, "max": 5000}}`` (keys are ACTIONS; ``false``/absent means not
    allowed; a number is the amount; ``{min, max}`` a range of "raise to" totals).
    ``time_bank``: seconds left in the seat's time bank, which runs after ``deadline``.
    When the action clock runs out and the bank starts, the same turn is announced again
    with ``in_bank: true`` and ``deadline`` moved to the end of the bank."""
    fields: Msg = {"seat": seat, "deadline": deadline}
    if options is not None:
        fields["options"] = dict(options)
    if time_bank is not None:
        fields["time_bank"] = time_bank
    if in_bank:
        fields["in_bank"] = True
    return _ev("turn", table, seq, fields)


def acted(table: str, seq: int, *, seat: int, action: str, amount: int, stack: int) -> Msg:
    """``acted``: ``seat`` did ``action``; ``amount``: its bet in this round after the
    action (0 for fold/check); ``stack``: chips left behind."""
    return _ev("acted", table, seq,
               {"seat": seat, "action": action, "amount": amount, "stack": stack})


def showdown(table: str, seq: int, *, seat: int, cards: Sequence[str], hand: HandId,
             value: str, best: Sequence[str] = ()) -> Msg:
    """``showdown``: ``seat`` shows ``cards`` in hand ``hand`` (the hand id, as in
    ``hand_started``); ``value`` names the hand shown ("two pair, kings and sevens");
    ``best``: the five cards that make that value, best first (own cards and board cards
    alike, so a client can highlight them; wave 3).  Also sent for hands revealed by
    ``show_hands`` (SHOW-02), marked with the id of the hand they were in."""
    return _ev("showdown", table, seq, {"seat": seat, "cards": list(cards), "hand": hand,
                                        "value": value, "best": list(best)})


def mucked(table: str, seq: int, *, seat: int) -> Msg:
    """``mucked``: ``seat`` gave up its hand unseen at showdown."""
    return _ev("mucked", table, seq, {"seat": seat})


def _pot_list(pots: Iterable[Mapping[str, Any]]) -> list[Msg]:
    return [{"amount": int(p["amount"]), "eligible": [int(s) for s in p["eligible"]]}
            for p in pots]


def pots(table: str, seq: int, *, pots: Sequence[Mapping[str, Any]]) -> Msg:
    """``pots``: a betting round closed; ``pots`` is the main pot (first) and each side
    pot so far, each ``{amount, eligible}`` (``eligible``: the seats that can still win
    it, ascending). The current round's bets are in them; an uncalled bet has gone back."""
    return _ev("pots", table, seq, {"pots": _pot_list(pots)})


def pot_awarded(table: str, seq: int, *, pot: int, amount: int, winners: Mapping[int, int],
                odd_chip: int | None, run: int = 1) -> Msg:
    """``pot_awarded``: pot number ``pot`` (0 = main) of ``amount`` chips went to
    ``winners`` (seat -> chips, string keys); ``odd_chip``: the seat that got the odd chip
    (POT-01), or null.  ``run``: 2 for the second run's half of a pot whose board was run
    twice (RIT-04); absent otherwise (the first run's halves are played on the board)."""
    fields: Msg = {"pot": pot, "amount": amount, "winners": seat_map(winners),
                   "odd_chip": odd_chip}
    if run != 1:
        fields["run"] = run
    return _ev("pot_awarded", table, seq, fields)


def hand_ended(table: str, seq: int, *, hand: HandId, stacks: Mapping[int, int],
               reveal: Sequence[Mapping[str, Any]]) -> Msg:
    """``hand_ended``: ``hand`` is over; ``stacks``: seat -> chips (string keys);
    ``reveal``: openings ``{card, position, salt, proof}`` of every card that became public,
    plus, in each player's copy, their own hole cards; never a card its receiver did not
    see."""
    return _ev("hand_ended", table, seq, {"hand": hand, "stacks": seat_map(stacks),
                                          "reveal": [dict(r) for r in reveal]})


def chat(table: str, seq: int, *, text: str, seat: int | None = None,
         name: str | None = None, guest: str | None = None) -> Msg:
    """``chat``: ``text`` said by the player at ``seat`` or by ``name`` (spectator); a
    spectator guest's (``guest``: its tag) also carries ``guest: true`` and ``tag``."""
    fields: Msg = {"text": text}
    if guest:
        fields["guest"] = True
        fields["tag"] = guest
    if seat is not None:
        fields["seat"] = seat
    if name is not None:
        fields["name"] = name
    return _ev("chat", table, seq, fields)


def dealer(table: str, seq: int, *, cards: Sequence[str | None], hand: str | None = None,
           qualifies: bool | None = None, best: Sequence[str] | None = None) -> Msg:
    """``dealer`` (Caribbean Stud): the dealer's cards: first the up card (others
    ``null``), later all five with ``hand`` (its name), ``qualifies`` (CSP-04) and ``best``
    (the five in the order that makes the value; wave 3)."""
    fields: Msg = {"cards": list(cards)}
    if hand is not None:
        fields["hand"] = hand
    if qualifies is not None:
        fields["qualifies"] = qualifies
    if best is not None:
        fields["best"] = list(best)
    return _ev("dealer", table, seq, fields)


def settled(table: str, seq: int, *, results: Mapping[int, Mapping[str, Any]]) -> Msg:
    """``settled`` (Caribbean Stud): ``results``: seat (string key) ->
    ``{ante, play, jackpot}``, each the net chips won (+) or lost (-) on that wager
    (``play``/``jackpot`` null when not placed), plus optional ``hand`` (name; a folded hand
    only in its owner's copy, SHOW-03), ``stack`` and ``best`` (the player's five cards in
    the order that makes the value, only in that player's own copy; wave 3)."""
    return _ev("settled", table, seq,
               {"results": {k: dict(v) for k, v in seat_map(results).items()}})


def table_closed(table: str, seq: int, *, reason: str) -> Msg:
    """``table_closed``: the table is gone (``reason``: ``"idle"``, nobody sat at it for
    ``idle_table_close`` seconds); its viewers get nothing more from it and it has left the
    lobby; a later request naming it answers ``unknown_table``."""
    return _ev("table_closed", table, seq, {"reason": reason})


assert set(MESSAGE_FIELDS) == {"ok", "error", "pong", *EVENT_TYPES}
assert all("seq" in MESSAGE_FIELDS[k][0] for k in TABLE_EVENT_TYPES)
