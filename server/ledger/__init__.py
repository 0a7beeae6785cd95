"""Money and records that survive anything: accounts, the double-entry chip ledger, its stores.

The ledger's rules (each enforced in one place, named in brackets):

1. **Double entry.** Every chip movement is a transfer of a positive integer amount from one
   account to another, recorded as a journal row; a change is a batch of transfers applied
   atomically, all or nothing [:meth:`store.Store.apply`]. Chips are created only as a debt of
   the ``bank`` (which funds starting balances), so the sum over all accounts is exactly zero,
   always [:meth:`journal.Ledger.total`].
2. **No overdraft.** ``player:*`` and ``table:*`` accounts never go negative: the check and the
   change happen in the same transaction (SQLite) or Lua script (Redis), so concurrent buy-ins
   cannot overdraw [:data:`store.NO_OVERDRAFT`]. System accounts (``bank``, ``house``,
   ``rake``, ``jackpot:*``) may.
3. **Exactly once.** A batch may carry an idempotency key; a key already applied changes
   nothing (``Outcome.DUPLICATE``), so retries after a lost reply are safe: starting balances
   (``open:<player>``), hand results (``hand:<node>:<run>:<hand>``), jackpot payouts (the
   coordinator's ``jackpot:<claim>``).
4. **Hand boundaries.** A table marks a hand as running before its first card (with every
   player's stack) and applies the hand's entries together with its end; chips at a table
   stay in the players' table accounts in between [:class:`journal.Ledger`].
5. **Restart.** Tables are not restored across restarts. At start-up a server process voids
   each of its hands still marked running (a ``void`` journal record; nothing of the hand was
   applied, so every player has exactly the chips from before it) and cashes every one of its
   table accounts out to the player [:meth:`journal.Ledger.recover`]. Only one live process
   may be a node: it holds the node's lease, with a fencing token every batch carries and the
   store checks (:mod:`lease`; issue 26), so a second process with the same ``--node``
   cannot clean up the first one's tables, and a process whose node was taken over writes
   nothing more [:meth:`journal.Ledger.claim_node`].
6. **Two stores, one contract.** :class:`sqlite_store.SqliteStore` (embedded default, WAL,
   fsync on commit, one writer thread off the event loop, one process per file) and
   :class:`redis_store.RedisStore` (many processes; through :mod:`server.redisio` only) pass
   the same tests (``tests/ledger``).
7. **Accounts.** Guests and named accounts; passwords only as salted scrypt digests; session
   tokens HMAC-signed with a secret kept in the store [:mod:`accounts`].

Tables see the ledger through :class:`wallet.LedgerWallet` (the :class:`wallet.Wallet`
protocol: ``buy_in``, ``cash_out``, ``hand_started``, ``hand_result``, ``hand_voided``).
"""
