"""Every limit of the server, as a number, in one frozen value.

Rule of this module: a limit any part of the server enforces is a field here (a default, a
docstring), nowhere else. Code reads limits from the `Config` it is handed; tests build one
(`Config(...)`, `dataclasses.replace`). Only `server.main` reads the environment or argv.

Times are in seconds (floats), sizes in bytes or items (ints), chips in integer chips.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from server.config_checks import check_config

#: The static browser client shipped beside the `server` package (repo layout).
DEFAULT_STATIC_DIR = Path(__file__).resolve().parent.parent / "client_web"


@dataclass(frozen=True, slots=True, kw_only=True)
class Config:
    """Server settings and limits. Immutable: derive variants with `dataclasses.replace`."""

    # --- where to listen ---------------------------------------------------------------
    host: str = "127.0.0.1"
    """Interface to bind. `0.0.0.0` listens on every IPv4 interface."""

    port: int = 8080
    """TCP port for HTTP and the WebSocket at `/ws`. 0 lets the OS pick a free port; the
    bound port is printed in the `poker-server listening on ...` line."""

    public_address: str | None = None
    """The address players open, `http(s)://HOST[:PORT]` (no path), when it is not the
    listening address: a LAN address, or a TLS reverse proxy (deploy/nginx-tls.conf). The
    invite and watch links are built from it (`server.net.http` writes it in index.html), a
    WebSocket whose `Origin` is it is the server's own, and `Players open ...` names it. Not
    the cluster's `public_url` (one process's `ws://.../ws`, for `moved`): the room's one
    front door. None: with `--host 0.0.0.0`, the machine's LAN address (`socket`) for a page
    opened on the loopback; else the address the page was loaded from."""

    test_mode: bool = False
    """Enables test-only features (scripted decks in `create_table`, docs/protocol.md). Never on by
    default; must be asked for explicitly with `--test-mode`."""

    # --- storage -------------------------------------------------------------------------
    redis_url: str | None = None
    """Redis for the ledger and the jackpot (many processes, machines): `redis://host:port/db`,
    `redis-sentinel://HOST:PORT[,...]/SERVICE` (`--redis-sentinel`, `--redis-service`) or
    `redis-cluster://HOST:PORT[,...]` (server/redisio.py); None: the store in `data_dir`."""

    redis_wait_replicas: int = 0
    """Replicas `WAIT` must confirm for a settling write (`Redis.settle`); 0: no `WAIT`."""

    redis_wait_timeout_ms: int = 500
    """Milliseconds a settling write's `WAIT` waits for them (1..60000), a round."""

    redis_wait_give_up_ms: int = 0
    """Milliseconds a write they have not confirmed waits before it stands; 0: for ever."""

    data_dir: Path = Path(".data")
    """The embedded store's directory (its SQLite `ledger.db`; no `redis_url`); made at start."""

    node: str = "local"
    """This server process's name in the ledger: its tables' chip accounts carry it, and on
    start it voids the unfinished hands and cashes out the table chips of this name only.
    Every process sharing one Redis store needs its own (stable across its restarts)."""

    node_lease: float = 5.0
    """Seconds this process's claim on `node` in a shared (Redis) store lasts unless renewed
    (every third of it). A restart after a crash waits until the dead process's claim runs
    out; a second live process with the same `node` refuses to start."""

    public_url: str | None = None
    """Cluster mode (issue 17): the `ws://HOST:PORT/ws` (or `wss://`) address at which clients
    reach this very process, sent to them in `moved` errors. With `redis_url` it joins the
    cluster: it registers itself and its tables in the directory in Redis
    (`server.cluster`), lists every table of the room and sends players to the process that
    owns a table. None (the default): a standalone process, as before."""

    cluster_lobby_refresh_ms: int = 250
    """Cluster mode: the shortest time in milliseconds between two reads of the directory
    into this process's cached copy (the lobby, `moved` and placement read the copy, never
    Redis per request), and between two write passes of this process's tables. A read follows
    another process's announced write; without one, one read every quarter of a lease."""

    ledger_fsync: bool = True
    """Embedded store: fsync every ledger commit (SQLite `synchronous=FULL`), so a committed
    hand survives even a power cut. False (`synchronous=NORMAL` in WAL mode) still survives a
    killed server process, but a power cut may lose the last commits; commits are then several
    times faster on disks with slow fsync."""

    static_dir: Path = DEFAULT_STATIC_DIR
    """Directory of the browser client served over plain HTTP (`GET /` is its index.html)."""

    # --- wire limits ---------------------------------------------------------------------
    max_frame_bytes: int = 65536
    """Largest WebSocket message accepted from a client, in bytes. A larger one gets an
    error (docs/protocol.md) rather than a crash."""

    outbox_size: int = 256
    """Frames queued for one connection. A connection whose outbox is full is cut (the table
    never waits for a slow consumer); the client resumes from a snapshot."""

    inbox_size: int = 1024
    """Commands queued for one table actor. A full inbox answers the request with an error."""

    compression: bool = False
    """permessage-deflate on WebSockets. Off by default: it halves fan-out throughput."""

    ping_interval: float = 20.0
    """Seconds between WebSocket keepalive pings to each client."""

    ping_timeout: float = 20.0
    """Seconds to wait for a pong before the connection is considered dead."""

    # --- connections (the edge) ------------------------------------------------------------
    send_buffer_bytes: int = 128 * 1024
    """SO_SNDBUF asked for each accepted socket (Linux doubles it). Without a cap the kernel
    grows a stalled client's send buffer to `net.ipv4.tcp_wmem` max (4 MiB by default): memory
    per idle socket, and a slow consumer hidden for megabytes before its outbox fills. 128 KiB
    still carries ~1 MB/s per connection at 100 ms RTT, far above a table's event rate."""

    read_chunk_bytes: int = 16 * 1024
    """Bytes asked of each `recv()` on an accepted socket. asyncio's selector transport asks
    for 256 KiB, and CPython allocates the whole buffer for every call before shrinking it to
    what came (about 12 us a read, against 2.5 us for 16 KiB, on the development machine).
    Client frames are small; a larger message just takes more reads."""

    inbound_high_water: int = 32
    """Messages a connection may have waiting behind a request that is being finished
    (`hello`, `history`, ...: `server.net.edge`) before its socket stops being read (TCP then
    pushes back on the client); reading resumes once they are handled."""

    max_fragments: int = 16
    """Fragments one client message may come in (its total size is capped by
    `max_frame_bytes`); more closes the connection with 1009. The browser never fragments;
    16 is generous for any other client. Both send paths (`fast_send`) apply it."""

    max_write_buffer: int = 1024 * 1024
    """Bytes one connection may have waiting to be written: the transport's write buffer (our
    frames, websockets' pongs and close frames) plus the frames on its outbox (their length
    in characters or bytes). A connection over it does not read what it is sent (a client
    that sends pings and never reads piles up pongs): its TCP connection is aborted at once
    and counted in `poker_write_budget_disconnects_total{reason="buffer"}`. At least 64 KiB
    (websockets pauses writes at 32 KiB)."""

    write_stall_timeout: float = 10.0
    """Seconds a connection's writes may stay paused (its transport's buffer above
    websockets' high-water mark, the client not draining it) before its TCP connection is
    aborted (`poker_write_budget_disconnects_total{reason="stall"}`)."""

    slow_close_timeout: float = 1.0
    """Seconds a slow consumer's closing handshake may take before its TCP connection is
    aborted (a client that does not read never sees the close frame); likewise for a
    connection closed for a bad frame (flooding 1008, too many fragments 1009, bad UTF-8
    1007), which is not read any more meanwhile."""

    close_flush_timeout: float = 2.0
    """Seconds a shutdown waits for each connection's queued frames to drain before closing
    it with 1001."""

    # --- rate limits (token buckets, per connection) ---------------------------------------
    request_rate: float = 20.0
    """Requests per second a connection may sustain (token refill rate)."""

    request_burst: int = 40
    """Requests a connection may send at once before `request_rate` applies (bucket size)."""

    chat_rate: float = 1.0
    """Chat messages per second a connection may sustain."""

    chat_burst: int = 5
    """Chat messages a connection may send at once before `chat_rate` applies."""

    flood_limit: int = 50
    """Refused (`rate_limited`) requests tolerated within `flood_window` seconds; one more
    closes the connection with 1008 (policy violation)."""

    flood_window: float = 5.0
    """Seconds over which `flood_limit` refusals are counted."""

    frame_rate: float = 60.0
    """WebSocket frames per second a connection may sustain: every frame it sends counts
    (data, continuation, ping, pong, close), before any message is joined or answered. A
    frame over the limit counts a `flood_limit` strike (too many close with 1008). A message
    is one frame from the browser; three times `request_rate` leaves room for keepalive
    pongs and a few fragmented messages. The edge uses `request_rate` instead when that is
    larger (a server that lets bots send more requests lets them send their frames)."""

    frame_burst: int = 120
    """WebSocket frames a connection may send at once before `frame_rate` applies (or
    `request_burst`, when larger)."""

    # --- table timing ----------------------------------------------------------------------
    action_clock: float = 30.0
    """Seconds a player has to act on their turn before the time bank is used."""

    time_bank: float = 60.0
    """Extra seconds per player, spent only after `action_clock` runs out."""

    over_blind_clock: float = 5.0
    """Seconds the player asked about the Draw over blind (BLIND-04) has to answer before the
    deal; no answer is "no". The time bank is not used. A table may set its own
    (`over_blind_clock` setting, 1..60)."""

    reconnect_grace: float = 60.0
    """Seconds a disconnected player keeps their seat (folded/checked at a turn), then sits out."""

    consecutive_timeouts_to_sit_out: int = 2
    """Turns in a row a player may time out before being sat out automatically."""

    hand_pause: float = 3.0
    """Seconds between two hands at a table whose creator chose no `pause` setting (the
    last hand's result stays on screen meanwhile)."""

    min_hand_pause: float = 0.0
    """The shortest `pause` a table's creator may choose (`bad_settings` below it)."""

    spectator_delay: float = 0.0
    """Seconds by which spectators see table events later than players. 0 = no delay."""

    shutdown_deadline: float = 10.0
    """Seconds a graceful shutdown (SIGTERM/SIGINT) may take before remaining work is
    cancelled and connections are closed."""

    # --- jackpot ---------------------------------------------------------------------------
    jackpot_lease: float = 3.0
    """Seconds a registered Caribbean hand holds its place in the jackpot order without its
    table renewing it (every third of this). A table that died blocks later claims on every
    process no longer than this (CSP-10)."""

    jackpot_meter_interval: float = 0.25
    """Seconds over which the jackpot meter folds pool changes into one `jackpot` message per
    connection (the first change after a quiet interval goes out at once)."""

    # --- sessions --------------------------------------------------------------------------
    token_ttl: float = 30 * 86400.0
    """Seconds a session token (`welcome.token`) stays valid after it was issued. Each `hello`
    with a valid token gets a fresh one, so only a token left unused this long expires."""

    # --- money -----------------------------------------------------------------------------
    starting_balance: int = 10000
    """Chips credited to a new guest account (docs/protocol.md `welcome`)."""

    # --- house policy (operator) ---------------------------------------------------------
    # GEN-09/GEN-10/CSP-13: house revenue and the jackpot terms are the operator's, the same
    # for every table; a table's creator picks only what these bounds allow.
    jackpot_wager: int = 100
    """Chips of the Caribbean Stud jackpot wager (CSP-01), the same at every linked table
    (CSP-13). A creator cannot choose it (`house_policy`)."""

    jackpot_paytable: tuple[int, ...] = (10_000, 1_000, 50_000, 10_000, 5_000)
    """The jackpot paytable (CSP-07), every Caribbean table: royal flush and straight flush in
    basis points of the pool, then four of a kind, full house and flush in chips (defaults
    100%, 10%, $500, $100, $50). A 0 entry does not qualify."""

    jackpot_reset: int = 1_000_000
    """The pool's reset amount in chips (CSP-08, default $10,000; the major pool's when split):
    what a new pool opens at and the reseed level. Not the royal flush minimum
    (`jackpot_royal_minimum`)."""

    jackpot_royal_minimum: int = 1_000_000
    """The least a royal flush is paid, in chips (CSP-09, Gazette r12.2(c): default $10,000):
    each royal gets the larger of this and its equal share of what remains of the pool; when
    the pool holds less, the house pays the rest (a `shortfall`, booked). Its own term,
    independent of `jackpot_reset`. At most 9 * 10**11 (the Redis scripts' arithmetic is exact
    below that)."""

    jackpot_pool_share_bp: int = 7_000
    """Share of every collected jackpot wager that goes to the pool, in basis points (CSP-08,
    default 70%); the rest is house jackpot revenue (GEN-09)."""

    jackpot_split: bool = False
    """CSP-11: split the pool into a minor pool (four of a kind, full house, flush) and a
    major pool (straight and royal flushes), each with its own share and reset amount."""

    jackpot_minor_share_bp: int = 2_000
    """With `jackpot_split`: share of a wager to the minor pool (basis points)."""

    jackpot_major_share_bp: int = 5_000
    """With `jackpot_split`: share of a wager to the major pool (basis points); minor + major
    at most 10,000."""

    jackpot_minor_reset: int = 100_000
    """With `jackpot_split`: the minor pool's reset amount in chips (default $1,000)."""

    rake_bp: int = 0
    """GEN-09: the rake of every pot table, in basis points of the pot, unless its creator
    picks another within `max_rake_bp`. 0: no rake (the default: the house takes nothing
    unless the operator says so)."""

    rake_cap: int = 0
    """GEN-09: the rake's maximum per pot in chips (the "cap") of every pot table unless its
    creator picks another within `max_rake_cap`. 0: no cap (allowed only while
    `max_rake_cap` is 0)."""

    max_rake_bp: int = 0
    """The highest rake (basis points) a table's creator may choose; a higher `rake_bp` in
    `create_table` is refused (`house_policy`). 0 (default): creators cannot add a rake.
    At least `rake_bp`; at most 10,000."""

    max_rake_cap: int = 0
    """The highest rake cap (chips) a table's creator may choose; when > 0 every raked table
    has a cap of 1..this (a creator's "no cap", 0, is refused). 0: caps are not bounded."""

    max_pool: int = 100_000_000_000
    """Ceiling of the jackpot pool in chips (each pool when split). A contribution that would
    take a pool past it goes to the house jackpot ledger instead ("overflow" in the pool
    history), and a jackpot wager is refused (`limit_exceeded`) while the pool is at it. At
    most 9 * 10**11 (the Redis scripts' arithmetic is exact below that) and never below a
    reset amount."""

    max_stake: int = 1_000_000_000
    """Ceiling of every stakes amount a table may have (blinds, antes, bring-in, bets,
    Caribbean ante limits), in chips; a higher one is refused (`limit_exceeded`)."""

    max_buy_in: int = 10_000_000_000
    """Ceiling of a table's buy-in limits and of a stack a buy-in or rebuy may make, in chips
    (`limit_exceeded` / `bad_buy_in`). A table's default maximum buy-in is clamped to it."""

    max_balance: int = 1_000_000_000_000_000
    """Ceiling of an account balance in chips, at least `starting_balance`. Chips are
    conserved and the pool is capped (`max_pool`), so balances stay far below it; it is not
    checked on a cash-out or a jackpot credit (a player's chips always go back). Every
    ceiling is at most 2**53 - 1, what JSON and MessagePack carry."""

    # --- tables, lobby and chat (abuse) ---
    max_tables_per_account: int = 8
    """Open tables one account may have created at once; one more `create_table` is refused
    with `too_many_tables`. A table stops counting when it closes (idle, `idle_table_close`).
    In a cluster: in the whole room (`server.roomlimits`), like `max_tables_per_ip`."""

    max_tables_per_ip: int = 32
    """Open tables created from one client address at once (every account, guests included,
    from that IP); one more is refused with `too_many_tables`. Guests are free to make, so this
    is the cap that holds against a script. A room behind one NAT may need more."""

    max_tables: int = 2000
    """Open tables in this process at once (every creator); one more is refused with
    `too_many_tables` until one closes."""

    idle_table_close: float = 300.0
    """Seconds a table lives with nobody seated and no hand running; then it is closed: its
    spectators get a `table_closed` event and it leaves the lobby (a newly created table
    nobody sits at included). Any sit in the meantime restarts the count."""

    practice_tables_per_account: int = 1
    """Practice tables against bots (issue 24, `create_table` with `practice`) one player may
    have open at once; one more is refused with `too_many_practice_tables`. A practice table
    also counts as an open table (`max_tables_per_account`, `max_tables_per_ip`,
    `max_tables`)."""

    max_practice_bots: int = 48
    """Bots playing at the practice tables of this process at once; a practice table that
    would pass it is refused with `server_busy`. Each bot is one WebSocket connection from
    the loopback address, counted against `max_connections_per_ip` like any connection from
    there: the registry counts at most that many (whichever is lower), and the default stays
    below it so that people on this machine can still connect."""

    practice_think: float = 1.0
    """Seconds a practice bot waits before it acts (so a person sees each action)."""

    lobby_page_size: int = 50
    """Lobby entries in a `tables` answer when the request gives no `limit`."""

    lobby_max_page: int = 200
    """Most lobby entries one `tables` answer carries (a larger `limit` is cut to it), so an
    answer's size is bounded whatever the number of tables; the rest is paged (`next`)."""

    chat_rate_per_account: float = 1.0
    """Chat messages per second one account may sustain across all its connections (token
    bucket per player id; the per-connection `chat_rate` applies too)."""

    chat_burst_per_account: int = 6
    """Chat messages one account may send at once, across its connections."""

    chat_rate_per_table: float = 4.0
    """Chat messages per second one table carries from everyone together; more are refused
    with `chat_limited` (not counted as a flood strike: it may be others' chat)."""

    chat_burst_per_table: int = 20
    """Chat messages one table carries at once before `chat_rate_per_table` applies."""

    mute_limit: int = 100
    """Players one account may mute (`mute`) at once; one more is refused with
    `not_allowed`."""

    # --- connection limits (abuse) ---
    max_connections_per_ip: int = 64
    """TCP connections (WebSocket or plain HTTP) one client address may hold open at once on
    the public listener; one more is answered `503` and closed at once, before any handshake
    (counted in `poker_connections_refused_total{reason="per_ip"}`, not logged one by one).
    IPv6 addresses count per /64 (one host's usual allocation). Behind a reverse proxy listed
    in `trusted_proxies` each forwarded client counts (once its handshake is read), not the
    proxy; behind one that is not listed every client has the proxy's address."""

    max_connections: int = 10000
    """TCP connections the public listener holds open at once (every address together); one
    more is answered `503` and closed (`reason="total"`). At start-up it is clamped to the
    process's file-descriptor limit (`RLIMIT_NOFILE`, raised towards its hard limit when
    needed) minus `fd_reserve`, and the applied value is logged (`event=connection_limits`)."""

    fd_reserve: int = 128
    """File descriptors kept free of connections for everything else: the ledger's SQLite or
    Redis sockets, log files, the operator listener, the listening sockets."""

    hello_deadline: float = 30.0
    """Seconds from a socket's TCP accept until it must have identified (`hello`, `login`,
    `register` answered `ok`) or be watching a table (`watch` of a live table); else it is
    closed with 1008 (policy violation) and the reason `hello deadline` (counted in
    `poker_hello_deadline_closes_total`). The WebSocket handshake must finish within it too.
    An anonymous `tables` request (a lobby page, which asks every few seconds) starts the
    count again, so an open lobby lives while a socket that does nothing is closed."""

    accept_error_log_interval: float = 10.0
    """Seconds between the aggregated log lines of the edge's refusals: failed `accept()`
    calls (EMFILE, ENFILE, ENOBUFS, ENOMEM), connections refused over a cap, sockets closed
    at the hello deadline, handshakes refused for their Origin: at most one line per interval
    for each, with the count since the last one (never one line per event)."""

    log_lines_per_interval: int = 200
    """Per-connection and per-request log lines (`event=http`, `event=ws_open`,
    `event=ws_closed`) written per `accept_error_log_interval`, for each kind; the rest are
    counted and the count is logged with the next line that goes out (`suppressed=N`)."""

    allowed_origins: tuple[str, ...] = ()
    """`Origin` values a WebSocket handshake may carry (`scheme://host[:port]`, e.g.
    `https://poker.example.com`); another Origin is refused with 403. Empty (the default):
    only the server's own origin, the same host and port as the request's `Host` header. A
    handshake without an Origin header (bots, load testers, not browsers) is allowed: only a
    browser sends one, and the attack is a hostile page in a visitor's browser."""

    trusted_proxies: tuple[str, ...] = ()
    """Networks of the reverse proxies in front of the server (CIDR, e.g. `10.0.0.0/8` or
    `127.0.0.1/32`; comma-separated with `--set`, or `--trusted-proxies`). Only for a
    connection from one of them is the client's address read from `X-Forwarded-For`: the
    right-most entry that is not itself a trusted proxy (`server.net.forwarded`); from any
    other peer the header is ignored. That address is the one every per-address limit, log
    line and audit record uses (lockouts, guests, hash slots, per-IP tables and connections).
    A trusted proxy's own TCP connections are not counted against `max_connections_per_ip`
    at accept; their forwarded client's WebSocket is, once its handshake is read. Empty (the
    default): no proxy is trusted, the TCP peer is the client."""

    operator_host: str = "127.0.0.1"
    """Interface of the operator listener (`/metrics`, `/jackpot/history`, `/healthz`,
    `/readyz`); loopback by default. These endpoints are not served on the public port."""

    operator_port: int = 0
    """TCP port of the operator listener; 0 lets the OS pick a free one. The bound URL is the
    second stdout line, `poker-server operator on http://H:P/`. Set a fixed port for a
    scraper."""

    operator_token: str | None = None
    """Bearer token the operator listener's endpoints (`/metrics`, `/jackpot/history`) require
    (`Authorization: Bearer <token>`, compared in constant time); None (the default): no token,
    the operator listener's address is the only protection. Give it with
    `--operator-token-file PATH` or the environment variable `POKER_OPERATOR_TOKEN` rather than
    `--set` (the command line is visible to every local user). At least 16 characters."""

    operator_host_names: tuple[str, ...] = ()
    """Host names (besides `localhost`, IP literals and `operator_host`) the operator listener
    answers to: a request whose `Host` header names anything else is refused with 421 before
    anything is read or checked, so a DNS-rebinding page (a hostile name that resolves to the
    listener's address) cannot read `/metrics`, the jackpot history or the operator page.
    E.g. the name a scraper or a Kubernetes service reaches it by."""

    operator_fail_limit: int = 10
    """Failed operator credentials (a wrong token or session) from one address within
    `operator_fail_window` seconds before that address is locked: every call from it is
    refused `operator_locked` (429, `Retry-After`), the right token too, for
    `operator_lockout` seconds, doubled by each further failure up to
    `operator_lockout_max`. Failures are counted in `/metrics`
    (`poker_operator_auth_failures_total`) and each lockout is an audit record
    (`operator_locked`)."""

    operator_fail_window: float = 900.0
    """Seconds over which failed operator credentials are counted (see
    `operator_fail_limit`)."""

    operator_lockout: float = 60.0
    """Seconds of an address's first operator lockout (see `operator_fail_limit`)."""

    operator_lockout_max: float = 3600.0
    """Longest operator lockout, in seconds."""

    operator_fail_delay: float = 1.0
    """Seconds a refused operator credential waits before its answer goes out (the
    connection held, nothing else held): guesses are slowed even before a lockout."""

    operator_json_depth: int = 16
    """Nesting depth (arrays and objects) of an admin API body; deeper is refused `bad_json`
    (400) before it is parsed."""

    # --- the operator's admin API (bounds of its calls) ------------------------------------
    operator_session_ttl: float = 3600.0
    """Seconds an operator session (`POST /admin/session`, docs/operator.md) stays valid; a
    later call with it is refused `credential_expired`. The token itself does not expire."""

    operator_reason_max: int = 200
    """Characters of the reason every admin change must give (1..this; else `bad_reason`)."""

    operator_message_max: int = 500
    """Characters of an operator notice (`POST /admin/notice`; else `bad_text`)."""

    operator_adjust_max: int = 100_000_000
    """Chips one balance adjustment may move either way (else `bad_amount`)."""

    operator_body_max: int = 16384
    """Bytes of one request body on the operator listener (more: 413)."""

    collusion_max_hands: int = 2000
    """Hands of the first account read for one collusion review (newest first); the answer
    says when more were left out (`truncated`)."""

    # --- identity and login (abuse) ------------------------------------------------------
    login_fail_limit: int = 5
    """Failed password checks (`login`, `change_password`) for one account name within
    `login_fail_window` seconds before the name is locked: refused with `login_locked` and
    `retry_after` for `login_lockout` seconds, the right password too. Each further failure
    after that doubles the lockout (exponential backoff) up to `login_lockout_max`. In a
    cluster the lockouts count in the whole room (`server.roomlimits`). Names are
    compared by their confusables skeleton, so "AIice" counts against "Alice"."""

    login_ip_fail_limit: int = 20
    """The same per client address (many names guessed from one place): its failures lock
    every login from that address. Higher than `login_fail_limit` because players share
    addresses (NAT, a club's wifi)."""

    login_fail_window: float = 900.0
    """Seconds over which login failures are counted; a name or address with no failure for
    this long starts again from zero (a success also clears the name's count)."""

    login_lockout: float = 30.0
    """Seconds of the first lockout (see `login_fail_limit`)."""

    login_lockout_max: float = 3600.0
    """Longest lockout, in seconds, however many failures came before."""

    login_tracked: int = 65536
    """Names and addresses whose login failures are remembered at once; past it the oldest
    records are forgotten (memory stays bounded under a flood of made-up names)."""

    max_password_hashes: int = 4
    """Password hashes (scrypt, 16 MiB and tens of milliseconds each, in worker threads) that
    run at once, for the whole process. Others wait their turn (`password_hash_queue`), so a
    flood of guesses costs a bounded number of CPU cores and memory and other players'
    requests are still served."""

    password_hash_queue: int = 32
    """Password checks that may wait for a free hashing slot; one more is refused at once
    with `server_busy` (`retry_after`) rather than queued without bound."""

    password_hashes_per_ip: int = 2
    """Password checks (running or waiting) one client address may have at a time; one more is
    refused with `rate_limited`, so one attacker cannot fill the queue that everybody's login
    waits in."""

    guests_per_ip_per_minute: int = 10
    """Guest accounts (`hello` with `guest`) one client address may create in any 60 seconds;
    one more is refused with `too_many_guests` (`retry_after`). Each guest gets
    `starting_balance` chips, so this also bounds how fast chips can be farmed. In a cluster:
    in the whole room (`server.roomlimits`)."""

    guest_idle_expiry: float = 86400.0
    """Seconds a guest account may stay idle (no connection, no chips at a table) before it is
    expired: its chips go back to `bank` (a journal entry `guest_expired`) and its tokens are
    revoked; the guest starts again as a new one."""

    guest_sweep_interval: float = 60.0
    """Seconds between two sweeps for idle guests (and expired session records). At most
    `guest_idle_expiry`."""

    session_recheck_interval: float = 30.0
    """Cluster mode: seconds between two checks of every live socket's session against the
    store (a socket whose session ended is closed with `bad_token`), the safety net under the
    room's revocation messages (`server.net.roomwide`, lost while Redis is unreachable; a
    check also runs at once when the subscription comes back). 0: only after a reconnection.
    One store read per distinct session per check."""

    reserved_names: tuple[str, ...] = ("admin", "administrator", "operator", "moderator",
                                       "dealer", "house", "system", "support", "staff",
                                       "root", "server", "bank", "casino", "official")
    """Display names nobody may register or take as a guest (`name_reserved`), compared by
    their confusables skeleton ("Admin", "adrnin" and "АDMIN" with a Cyrillic А are all
    refused). Comma-separated with `--set`."""

    # --- edge send path ---------------------------------------------------------------------
    fast_send: bool = True
    """Write frames straight to the socket (several per system call, no task switch per frame)
    and take each client message as websockets parses it: `server.net.fastpath`, the one
    module that relies on websockets' internals. False: websockets' public path only (every
    frame through `await ws.send()`, every message through `async for`), e.g. on a websockets
    release the fast path has not been checked against. The same on the wire, except that
    `max_fragments` is the fast path's: websockets' own joins any number of fragments (within
    `max_frame_bytes`)."""

    def __post_init__(self) -> None:
        """Every field's bounds (`server.config_checks`): a `ValueError` naming the field."""
        check_config(self)
