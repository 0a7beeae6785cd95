"""The operator's actions, each audited; and the account flags the router checks.

Rule of this module: an action validates everything first (bounds from `Config`: reasons
`operator_reason_max`, notices `operator_message_max`, adjustments `operator_adjust_max`),
raising :class:`AdminError` with nothing changed; then it makes its change through the
layer that owns it (a table through the registry and the table's own task, chips through the
ledger, as a journal entry from ``house``, never an edit) and appends one audit record. Chips
are never lost: a closed table voids its running hand and cashes everyone out; a removed player
leaves through the table's leave path; a frozen player keeps every chip (at a table or not).
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from protocol import Chat, ProtocolError, Request, Sit, messages, parse_request
from protocol.tournaments import CreateTournament
from server.config import Config
from server.ledger.history import HistoryStore
from server.ledger.journal import (
    BANK,
    HOUSE,
    JACKPOT_HOUSE,
    JACKPOT_MINOR,
    JACKPOT_POOL,
    RAKE,
    player_account,
)
from server.ledger.wallet import LedgerWallet
from server.operator import collusion
from server.operator.audit import AuditLog
from server.operator.errors import AdminError
from server.table.registry import TableRegistry
from server.tournament.director import Director
from server.tournament.hall import Hall

__all__ = ["AccountFlags", "OperatorService"]


class AccountFlags:
    """Accounts the operator froze (can watch, not sit or chat) or muted (no chat), for the
    whole process; rebuilt from the audit log at start-up. :meth:`gate` is the router's
    check of each request from an identified connection."""

    def __init__(self) -> None:
        self.frozen: set[str] = set()
        self.muted: set[str] = set()

    def gate(self, player_id: str, request: Request) -> None:
        """Raise `ProtocolError` (`account_frozen`, `account_muted`) for a refused request."""
        if player_id in self.frozen and isinstance(request, Sit | Chat):
            raise ProtocolError("account_frozen", rid=request.rid)
        if player_id in self.muted and isinstance(request, Chat):
            raise ProtocolError("account_muted", rid=request.rid)


class OperatorService:
    """See the module docstring. `server.main` builds one per process and sets the hooks:
    ``broadcast`` (a message to every connection), ``names`` (player id -> name of the
    connected players), ``metrics`` (the `/metrics` text), ``jackpot_history``."""

    def __init__(self, *, config: Config, registry: TableRegistry, wallet: LedgerWallet,
                 history: HistoryStore, audit: AuditLog) -> None:
        self.config = config
        self.registry = registry
        self.wallet = wallet
        self.history = history
        self.audit = audit
        self.flags = AccountFlags()
        self.broadcast: Callable[[dict[str, Any]], None] = lambda message: None
        self.names: Callable[[], dict[str, str]] = dict
        self.metrics: Callable[[], str] = str
        self.jackpot_history: Callable[[int, int], Awaitable[dict[str, Any]]] | None = None
        self.shutdown: Callable[[], None] | None = None  # the process's stop (server.main)
        self.hall: Hall | None = None  # the process's tournaments (issue 27; server.main)
        self.flag_listener: Callable[[str, str, bool], Awaitable[None]] | None = None
        """Cluster mode (`server.net.roomwide`): told each flag set or lifted, so that every
        process of the room holds it."""
        self.end_sessions: Callable[[str], Awaitable[int]] | None = None
        """Ends every session of an account (its sockets everywhere closed with
        `bad_token`); `server.main` sets it. Used by a freeze with ``end_sessions``."""

    async def start(self) -> None:
        """Rebuild the account flags from the audit log (the store is open)."""
        flags = await self.audit.flags()
        self.flags.frozen, self.flags.muted = flags["frozen"], flags["muted"]

    # ------------------------------------------------------------------ checks
    def reason(self, value: Any) -> str:
        if not isinstance(value, str) or not value.strip() \
                or len(value) > self.config.operator_reason_max:
            raise AdminError("bad_reason", "a reason of 1.."
                             f"{self.config.operator_reason_max} characters is required")
        return value.strip()

    async def _account(self, player_id: Any) -> str:
        """``player_id`` when such an account exists in the ledger (`unknown_player`)."""
        if not isinstance(player_id, str) or not 0 < len(player_id) <= 64:
            raise AdminError("bad_field", "player must be an account id")
        account = player_account(player_id)
        if account not in await self.wallet.ledger.store.balances(prefix=account):
            raise AdminError("unknown_player", f"no account {player_id!r}")
        return player_id

    # ------------------------------------------------------------------ tables
    def tables(self) -> dict[str, Any]:
        return {"tables": self.registry.admin.operator_tables()}

    async def close_table(self, who: str, table: str, reason: Any) -> dict[str, Any]:
        why = self.reason(reason)
        if self.registry.get(table) is None:
            raise AdminError("unknown_table", f"no open table {table[:64]!r}")
        before = next((t for t in self.registry.admin.operator_tables() if t["table"] == table), {})
        if not await self.registry.admin.close_table(table, "operator"):
            raise AdminError("unknown_table", f"table {table[:64]!r} is already closing")
        players = [p["player_id"] for p in before.get("players", [])]
        entry = await self.audit.record(who, "close_table", target=table, reason=why,
                                        details={"players": players,
                                                 "in_hand": before.get("in_hand", False)})
        return {"closed": table, "cashed_out": players, "audit": entry["seq"]}

    # ---------------------------------------------------------------- tournaments (issue 27)
    def _hall(self) -> Hall:
        if self.hall is None:
            raise AdminError("unavailable", "this process runs no tournaments")
        return self.hall

    def _tournament(self, tid: str) -> Director:
        d = self._hall().directors.get(tid)
        if d is None:
            raise AdminError("unknown_tournament", f"no tournament {tid[:64]!r}")
        return d

    def tournaments(self) -> dict[str, Any]:
        """Every tournament of this process, private ones included."""
        hall = self._hall()
        return {"tournaments": [hall.summary(d) | {"invite": d.info.invite}
                                for d in hall.directors.values()]}

    async def create_tournament(self, who: str, body: dict[str, Any]) -> dict[str, Any]:
        """A tournament of the house (no host), from ``create_tournament``'s fields, checked
        by the protocol's validators first (``bad_field``), then the hall's."""
        hall = self._hall()
        why = self.reason(body.pop("reason", "operator tournament"))
        try:
            req = parse_request({"type": "create_tournament", **body})
        except ProtocolError as exc:
            raise AdminError("bad_field", exc.message) from None
        assert isinstance(req, CreateTournament)
        fields = {k: getattr(req, k) for k in (
            "name", "game", "structure", "kind", "buy_in", "fee", "capacity", "min_field",
            "starts_at", "private", "settings")}
        fields["levels"] = None if req.levels is None else [dict(x) for x in req.levels]
        try:  # (a cluster: numbered, routed and listed room-wide at once)
            d = await hall.open(fields, host=None)
        except ProtocolError as exc:
            code = exc.code if exc.code in ("bad_structure",) else "unavailable"
            raise AdminError(code, exc.message) from None
        entry = await self.audit.record(who, "create_tournament", target=d.info.id,
                                        reason=why, details=hall.summary(d))
        return {"tournament": d.info.id, "invite": d.info.invite, "audit": entry["seq"]}

    async def cancel_tournament(self, who: str, tid: str, reason: Any) -> dict[str, Any]:
        """TOUR-01: cancel it; every entry is refunded, buy-in and fee."""
        why = self.reason(reason)
        await self._elsewhere(tid)
        d = self._tournament(tid)
        code = await d.ask(lambda: d.cancel(f"cancelled by the operator: {why}"))
        if code is not None:
            raise AdminError(code)
        refunds = d.log[-1].get("refunds", {}) if d.log else {}
        entry = await self.audit.record(who, "cancel_tournament", target=tid, reason=why,
                                        details={"refunds": refunds})
        return {"cancelled": tid, "refunds": refunds, "audit": entry["seq"]}

    async def tournament_log(self, tid: str) -> dict[str, Any]:
        """The tournament's log (docs/rules.md 5.1); in a cluster, any tournament of the
        room's (as its owner saved it)."""
        hall = self._hall()
        d = hall.directors.get(tid)
        if d is None and hall.room is not None:
            saved = await hall.room.log_of(tid)
            if saved is not None:
                return {"tournament": tid, "log": saved}
        return {"tournament": tid, "log": list(self._tournament(tid).log)}

    async def _elsewhere(self, tid: str) -> None:
        """In a cluster, a tournament another process owns: refused with where it is."""
        hall = self._hall()
        if tid not in hall.directors and hall.room is not None:
            url = await hall.room.locate(tid)
            if url is not None:
                raise AdminError("unknown_tournament", f"tournament {tid[:64]!r} is run by "
                                 f"the process at {url}: ask that process's operator listener")

    async def drain(self, who: str, reason: Any) -> dict[str, Any]:
        """Stop this process gracefully, as ``SIGTERM`` does: in a cluster each table moves
        to another process at the end of its hand (players follow), the rest close."""
        why = self.reason(reason)
        if self.shutdown is None:
            raise AdminError("unavailable", "this process cannot be drained from here")
        entry = await self.audit.record(who, "drain", target=self.config.node, reason=why,
                                        details={"tables": len(self.registry.actors)})
        asyncio.get_running_loop().call_soon(self.shutdown)  # after this answer is sent
        return {"draining": self.config.node, "tables": len(self.registry.actors),
                "audit": entry["seq"]}

    async def remove_player(self, who: str, table: str, player: Any,
                            reason: Any) -> dict[str, Any]:
        why = self.reason(reason)
        if not isinstance(player, str) or not player:
            raise AdminError("bad_field", "player must be an account id")
        answer = await self.registry.admin.remove_player(table, player)
        if answer is None:
            raise AdminError("unknown_table", f"no open table {table[:64]!r}")
        if answer.get("type") != "ok":
            raise AdminError("not_seated")
        pending = bool(answer.get("pending"))
        entry = await self.audit.record(who, "remove_player", target=player, reason=why,
                                        details={"table": table, "pending": pending})
        return {"removed": player, "table": table, "pending": pending, "audit": entry["seq"]}

    # ------------------------------------------------------------------ accounts
    async def accounts(self) -> dict[str, Any]:
        """The accounts this process has served (balances as it last saw them), flagged."""
        names = self.names()
        seated: dict[str, list[str]] = {}
        for t in self.registry.admin.operator_tables():
            for p in t["players"]:
                seated.setdefault(p["player_id"], []).append(t["table"])
        ids = sorted(set(self.wallet.players()) | self.flags.frozen | self.flags.muted)
        return {"accounts": [{"player_id": pid, "name": names.get(pid),
                              "balance": self.wallet.balance(pid),
                              "frozen": pid in self.flags.frozen,
                              "muted": pid in self.flags.muted,
                              "tables": seated.get(pid, [])} for pid in ids]}

    async def account(self, player: Any) -> dict[str, Any]:
        pid = await self._account(player)
        balance = await self.wallet.ledger.balance(player_account(pid))
        return {"player_id": pid, "name": self.names().get(pid), "balance": balance,
                "frozen": pid in self.flags.frozen, "muted": pid in self.flags.muted}

    async def set_flag(self, who: str, player: Any, flag: str, on: bool,
                       reason: Any, end_sessions: Any = False) -> dict[str, Any]:
        """Freeze (``frozen``) or mute (``muted``) an account, or lift it; a freeze with
        ``end_sessions`` also ends every session of the account (a stolen token stops
        working: its sockets, on every process, are closed with `bad_token`)."""
        why = self.reason(reason)
        if not isinstance(end_sessions, bool) or (end_sessions and (flag, on) != ("frozen", True)):
            raise AdminError("bad_field", "end_sessions is a boolean, for a freeze only")
        pid = await self._account(player)
        marked = self.flags.frozen if flag == "frozen" else self.flags.muted
        action = {("frozen", True): "freeze", ("frozen", False): "unfreeze",
                  ("muted", True): "mute", ("muted", False): "unmute"}[(flag, on)]
        changed = (pid in marked) != on
        details: dict[str, Any] = {"changed": changed}
        if end_sessions:
            details["end_sessions"] = True
        entry = await self.audit.record(who, action, target=pid, reason=why, details=details)
        (marked.add if on else marked.discard)(pid)
        if self.flag_listener is not None:  # every process of the room
            await self.flag_listener(pid, flag, on)
        answer = {"player_id": pid, flag: on, "changed": changed, "audit": entry["seq"]}
        if end_sessions:
            if self.end_sessions is None:
                raise AdminError("unavailable", "sessions cannot be ended from here")
            answer["sessions_ended"] = await self.end_sessions(pid)
        return answer

    async def adjust(self, who: str, player: Any, amount: Any, reason: Any) -> dict[str, Any]:
        """Credit (``amount`` > 0) or debit a balance: one journal entry from or to
        ``house`` (reason ``operator_adjust:<ref>``, the ref in the audit record); the
        player's connections get the ``balance`` push."""
        why = self.reason(reason)
        bound = self.config.operator_adjust_max
        if isinstance(amount, bool) or not isinstance(amount, int) or amount == 0 \
                or abs(amount) > bound:
            raise AdminError("bad_amount", f"amount must be a non-zero integer within "
                             f"-{bound}..{bound}")
        pid = await self._account(player)
        account = player_account(pid)
        ledger = self.wallet.ledger
        if amount > 0 and await ledger.balance(account) + amount > self.config.max_balance:
            raise AdminError("balance_limit")
        ref = secrets.token_hex(8)
        src, dst = (HOUSE, account) if amount > 0 else (account, HOUSE)
        if not await ledger.transfer(src, dst, abs(amount), reason=f"operator_adjust:{ref}",
                                     key=f"adjust:{ref}"):
            raise AdminError("insufficient_balance")
        balance = await self.wallet.refresh(pid)  # the `balance` push
        entry = await self.audit.record(who, "adjust_balance", target=pid, reason=why,
                                        details={"amount": amount, "ref": ref,
                                                 "balance": balance})
        return {"player_id": pid, "amount": amount, "balance": balance, "ref": ref,
                "audit": entry["seq"]}

    # ------------------------------------------------------------------ messages, reads
    async def notice(self, who: str, text: Any, table: Any, reason: Any) -> dict[str, Any]:
        why = self.reason(reason)
        if not isinstance(text, str) or not text.strip() \
                or len(text) > self.config.operator_message_max:
            raise AdminError("bad_text", "text must be 1.."
                             f"{self.config.operator_message_max} characters")
        if table is not None and not isinstance(table, str):
            raise AdminError("bad_field", "table must be a table id")
        if table is None:
            self.broadcast(messages.notice(text=text))
            reached: int | None = None
        else:
            reached = self.registry.admin.notify_table(
                table, messages.notice(text=text, table=table))
            if reached is None:
                raise AdminError("unknown_table", f"no open table {table[:64]!r}")
        entry = await self.audit.record(who, "notice", target=table, reason=why,
                                        details={"text": text})
        return {"sent": True, "table": table, "connections": reached, "audit": entry["seq"]}

    async def hand(self, hand_id: str) -> dict[str, Any]:
        record = await self.history.get(hand_id)
        if record is None:
            raise AdminError("unknown_hand", f"no hand {hand_id[:64]!r}")
        return {"record": record.to_dict()}

    async def collusion(self, a: Any, b: Any) -> dict[str, Any]:
        """The review of the pair (:mod:`server.operator.collusion`) over the newest
        `Config.collusion_max_hands` hands of ``a``."""
        if not isinstance(a, str) or not isinstance(b, str) or not a or not b or a == b:
            raise AdminError("bad_field", "a and b must be two different account ids")
        budget = self.config.collusion_max_hands
        records: list[Any] = []
        before: str | None = None
        scanned, truncated = 0, False
        while True:
            page, more = await self.history.hands_of(a, limit=min(200, budget - scanned),
                                                     before=before)
            scanned += len(page)
            for summary in page:
                record = await self.history.get(summary.hand, player_id=a)
                if record is not None and record.seat_of(b) is not None:
                    records.append(record)
            if not more or not page:
                break
            if scanned >= budget:
                truncated = True
                break
            before = page[-1].hand
        result = collusion.review(reversed(records), a, b)
        result["truncated"] = truncated
        return result

    async def jackpot(self, start: int, count: int) -> dict[str, Any]:
        if self.jackpot_history is None:
            raise AdminError("unavailable", "no jackpot history here")
        return await self.jackpot_history(start, count)

    async def house(self) -> dict[str, Any]:
        """The room's own accounts, for reconciling (read from the ledger's store, the
        same on every process): ``house`` (rake and house games), ``rake``, ``bank`` (what
        new players' chips came from: negative), the jackpot's pools, and ``total``, the
        sum of every account of the journal (0: no chip created or destroyed)."""
        ledger = self.wallet.ledger
        accounts = {name: await ledger.balance(account) for name, account in (
            ("house", HOUSE), ("rake", RAKE), ("bank", BANK), ("jackpot_pool", JACKPOT_POOL),
            ("jackpot_minor", JACKPOT_MINOR), ("jackpot_house", JACKPOT_HOUSE))}
        return {"accounts": accounts, "total": await ledger.total()}

    def counters(self) -> dict[str, Any]:
        """`/metrics` as ``{series: value}`` (the page's live counters)."""
        out: dict[str, float] = {}
        for line in self.metrics().splitlines():
            if not line or line.startswith("#"):
                continue
            name, _, value = line.rpartition(" ")
            try:
                out[name] = float(value)
            except ValueError:
                continue
        return {"metrics": out}
