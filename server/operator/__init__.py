"""The room's operator: the admin API on the operator listener (docs/operator.md).

- :mod:`server.operator.auth`: the operator credential (a token set at start-up, never a
  default) and short-lived operator sessions;
- :mod:`server.operator.audit`: the append-only audit log of every operator action, in the
  ledger's store (SQLite or Redis);
- :mod:`server.operator.service`: the actions (tables, accounts, notices, hands, balance
  adjustments, the jackpot, metrics) and the account flags the router checks (frozen, muted);
- :mod:`server.operator.collusion`: the review of a pair of accounts from hand histories;
- :mod:`server.operator.api`: the HTTP routes (JSON) with their bounds and error codes.

It imports the table, ledger and jackpot layers and ``protocol``; never ``server.net``
(``server.main`` wires the listener, `server.net.operator_http`, to :class:`AdminApi`).
"""

from server.operator.api import AdminApi
from server.operator.errors import ADMIN_ERRORS, AdminError

__all__ = ["ADMIN_ERRORS", "AdminApi", "AdminError"]
