"""The operator's audit log: one record per action, append-only, in the ledger's store.

Rule of this module: every admin change appends one record (who, when, what, on whom, why,
and what came of it) through `Store.audit_append`, before its answer goes out; records are
never changed or removed (SQLite refuses it with triggers, Redis only ever `RPUSH`es). The
account flags (frozen, muted) are rebuilt from the log at start-up (`AuditLog.flags`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from server.ledger.store import Store

__all__ = ["AuditLog"]

FLAG_ACTIONS = {"freeze": ("frozen", True), "unfreeze": ("frozen", False),
                "mute": ("muted", True), "unmute": ("muted", False)}
"""Actions that set an account flag: action -> (flag, value)."""


class AuditLog:
    """See the module docstring."""

    def __init__(self, store: Store, *, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self._clock = clock

    async def record(self, who: str, action: str, *, reason: str, target: str | None = None,
                     details: dict[str, Any] | None = None) -> dict[str, Any]:
        """Append one record; returns it with its ``seq``."""
        entry: dict[str, Any] = {"at": round(self._clock(), 3), "who": who, "action": action,
                                 "target": target, "reason": reason,
                                 "details": details or {}}
        entry["seq"] = await self.store.audit_append(json.dumps(entry, sort_keys=True))
        return entry

    async def page(self, since: int, limit: int) -> dict[str, Any]:
        """``entries`` after ``since`` (oldest first, at most ``limit``) and ``total``."""
        rows = await self.store.audit_list(since, limit)
        entries = [{**json.loads(text), "seq": seq} for seq, text in rows]
        return {"entries": entries, "total": await self.store.audit_count()}

    async def flags(self, batch: int = 1000) -> dict[str, set[str]]:
        """The accounts frozen and muted now, replayed from the whole log."""
        out: dict[str, set[str]] = {"frozen": set(), "muted": set()}
        since = 0
        while rows := await self.store.audit_list(since, batch):
            for seq, text in rows:
                since = seq
                entry = json.loads(text)
                flag = FLAG_ACTIONS.get(entry.get("action", ""))
                target = entry.get("target")
                if flag is not None and isinstance(target, str):
                    (out[flag[0]].add if flag[1] else out[flag[0]].discard)(target)
        return out
