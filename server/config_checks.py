"""The validation of a `Config`: every field's bounds, by section, raised as a `ValueError`
that names the field.

Rule of this module: `Config.__post_init__` calls `check_config` and nothing else; a new field's
check goes in the function of its section (`server/config.py` lists the sections), so a
`Config` that exists is one the server can run with.
"""

from __future__ import annotations

import ipaddress
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from server.config import Config

__all__ = ["check_config"]

_HOST_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{0,62}(\.[A-Za-z0-9][A-Za-z0-9-]{0,62})*$")


def check_identity(cfg: Config) -> None:
    """The identity and login limits (section `identity and login (abuse)`)."""
    for name in ("login_fail_limit", "login_ip_fail_limit", "login_tracked",
                 "max_password_hashes", "password_hashes_per_ip",
                 "guests_per_ip_per_minute"):
        value = getattr(cfg, name)
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if (isinstance(cfg.password_hash_queue, bool)
            or not isinstance(cfg.password_hash_queue, int)
            or cfg.password_hash_queue < 0):
        raise ValueError("password_hash_queue must be a non-negative integer, got "
                         f"{cfg.password_hash_queue!r}")
    for name in ("login_fail_window", "login_lockout", "login_lockout_max",
                 "guest_idle_expiry", "guest_sweep_interval"):
        value = getattr(cfg, name)
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise ValueError(f"{name} must be positive, got {value!r}")
    if cfg.login_lockout > cfg.login_lockout_max:
        raise ValueError("login_lockout must not exceed login_lockout_max")
    recheck = cfg.session_recheck_interval
    if isinstance(recheck, bool) or not isinstance(recheck, int | float) or not recheck >= 0:
        raise ValueError(f"session_recheck_interval must be 0 or more, got {recheck!r}")
    if cfg.guest_sweep_interval > cfg.guest_idle_expiry:
        raise ValueError("guest_sweep_interval must not exceed guest_idle_expiry")
    if not isinstance(cfg.reserved_names, tuple):
        raise ValueError("reserved_names must be a tuple of names")
    for reserved in cfg.reserved_names:
        if not isinstance(reserved, str) or not 0 < len(reserved.strip()) <= 24:
            raise ValueError(f"reserved_names: {reserved!r} is not a 1..24 character name")


def check_config(cfg: Config) -> None:
    """Every section's checks (`Config.__post_init__`); raises `ValueError`."""
    check_basics(cfg)
    check_identity(cfg)
    check_house_policy(cfg)
    check_tables(cfg)
    check_connections(cfg)
    check_operator(cfg)


def check_operator(cfg: Config) -> None:
    """The admin API's bounds (section `the operator's admin API`)."""
    for name in ("operator_reason_max", "operator_message_max", "operator_adjust_max",
                 "operator_body_max", "collusion_max_hands"):
        value = getattr(cfg, name)
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    ttl = cfg.operator_session_ttl
    if isinstance(ttl, bool) or not isinstance(ttl, int | float) or not ttl > 0:
        raise ValueError(f"operator_session_ttl must be positive, got {ttl!r}")
    if cfg.operator_adjust_max > cfg.max_balance:
        raise ValueError("operator_adjust_max above max_balance")
    for name in ("operator_fail_limit", "operator_json_depth"):
        value = getattr(cfg, name)
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    for name in ("operator_fail_window", "operator_lockout", "operator_lockout_max"):
        value = getattr(cfg, name)
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise ValueError(f"{name} must be positive, got {value!r}")
    if cfg.operator_lockout > cfg.operator_lockout_max:
        raise ValueError("operator_lockout must not exceed operator_lockout_max")
    delay = cfg.operator_fail_delay
    if isinstance(delay, bool) or not isinstance(delay, int | float) or not 0 <= delay <= 10:
        raise ValueError(f"operator_fail_delay must be 0..10 seconds, got {delay!r}")
    for host in cfg.operator_host_names:
        if not isinstance(host, str) or not _HOST_NAME.match(host):
            raise ValueError(f"operator_host_names: {host!r} is not a host name")


def check_basics(cfg: Config) -> None:
    """Where to listen, the wire, the rate limits, timing, the ledger's node."""
    if not isinstance(cfg.fast_send, bool):
        raise ValueError(f"fast_send must be true or false, got {cfg.fast_send!r}")
    if not 0 <= cfg.port <= 65535:
        raise ValueError(f"port must be 0..65535, got {cfg.port}")
    positive_ints = {
        "max_frame_bytes": cfg.max_frame_bytes,
        "outbox_size": cfg.outbox_size,
        "inbox_size": cfg.inbox_size,
        "request_burst": cfg.request_burst,
        "chat_burst": cfg.chat_burst,
        "consecutive_timeouts_to_sit_out": cfg.consecutive_timeouts_to_sit_out,
        "send_buffer_bytes": cfg.send_buffer_bytes,
        "read_chunk_bytes": cfg.read_chunk_bytes,
        "inbound_high_water": cfg.inbound_high_water,
        "max_fragments": cfg.max_fragments,
        "flood_limit": cfg.flood_limit,
        "frame_burst": cfg.frame_burst,
    }
    for name, value in positive_ints.items():
        if value <= 0:
            raise ValueError(f"{name} must be positive, got {value}")
    positive_floats = {
        "request_rate": cfg.request_rate,
        "chat_rate": cfg.chat_rate,
        "action_clock": cfg.action_clock,
        "over_blind_clock": cfg.over_blind_clock,
        "shutdown_deadline": cfg.shutdown_deadline,
        "jackpot_lease": cfg.jackpot_lease,
        "node_lease": cfg.node_lease,
        "slow_close_timeout": cfg.slow_close_timeout,
        "close_flush_timeout": cfg.close_flush_timeout,
        "flood_window": cfg.flood_window,
        "frame_rate": cfg.frame_rate,
        "write_stall_timeout": cfg.write_stall_timeout,
        "token_ttl": cfg.token_ttl,
    }
    for name, fvalue in positive_floats.items():
        if fvalue <= 0:
            raise ValueError(f"{name} must be positive, got {fvalue}")
    non_negative = {
        "time_bank": cfg.time_bank,
        "reconnect_grace": cfg.reconnect_grace,
        "spectator_delay": cfg.spectator_delay,
        "ping_interval": cfg.ping_interval,
        "ping_timeout": cfg.ping_timeout,
        "jackpot_meter_interval": cfg.jackpot_meter_interval,
    }
    for name, fvalue in non_negative.items():
        if fvalue < 0:
            raise ValueError(f"{name} must not be negative, got {fvalue}")
    if isinstance(cfg.max_write_buffer, bool) or not isinstance(cfg.max_write_buffer, int) \
            or cfg.max_write_buffer < 65536:
        raise ValueError("max_write_buffer must be an integer of at least 65536 (bytes), "
                         f"got {cfg.max_write_buffer!r}")
    if not cfg.node or ":" in cfg.node or len(cfg.node) > 64:
        raise ValueError(f"node must be 1..64 characters without ':', got {cfg.node!r}")
    check_cluster(cfg)


def check_cluster(cfg: Config) -> None:
    """Cluster mode: a public URL needs the shared Redis and is a WebSocket URL."""
    if cfg.public_url is not None:
        if cfg.redis_url is None:
            raise ValueError("public_url (cluster mode) needs redis_url (--redis URL)")
        if not cfg.public_url.startswith(("ws://", "wss://")) or len(cfg.public_url) > 512:
            raise ValueError(f"public_url must be a ws:// or wss:// URL, got {cfg.public_url!r}")
    check_public_address(cfg.public_address)
    check_redis(cfg)
    refresh = cfg.cluster_lobby_refresh_ms
    if isinstance(refresh, bool) or not isinstance(refresh, int) or not 10 <= refresh <= 60_000:
        raise ValueError("cluster_lobby_refresh_ms must be an integer from 10 to 60000, got "
                         f"{refresh!r}")
    if cfg.starting_balance < 0:
        raise ValueError(f"starting_balance must not be negative, got {cfg.starting_balance}")


def check_redis(cfg: Config) -> None:
    """The shared Redis: a `redis-sentinel://` URL must parse (sentinels and a service), a
    `redis-cluster://` one too (its nodes); the settling writes' WAIT bounds."""
    if cfg.redis_url is not None and cfg.redis_url.startswith(("redis-sentinel:",
                                                               "redis-cluster:")):
        from server.redisio import RedisURL  # only for a Sentinel or Cluster URL
        RedisURL.parse(cfg.redis_url)  # ValueError names the part that is wrong
    replicas = cfg.redis_wait_replicas
    if isinstance(replicas, bool) or not isinstance(replicas, int) or not 0 <= replicas <= 64:
        raise ValueError(f"redis_wait_replicas must be 0..64, got {replicas!r}")
    wait = cfg.redis_wait_timeout_ms
    if isinstance(wait, bool) or not isinstance(wait, int) or not 1 <= wait <= 60_000:
        raise ValueError(f"redis_wait_timeout_ms must be 1..60000, got {wait!r}")
    give_up = cfg.redis_wait_give_up_ms
    if isinstance(give_up, bool) or not isinstance(give_up, int) \
            or not 0 <= give_up <= 3_600_000:
        raise ValueError(f"redis_wait_give_up_ms must be 0..3600000, got {give_up!r}")


def sentinel_url(sentinels: str | None, service: str | None, redis: str | None) -> str | None:
    """`--redis-sentinel HOST:PORT,...` and `--redis-service NAME` as the one `redis_url`
    (`redis-sentinel://HOSTS/NAME`): both or neither, and not with `--redis`; None when
    neither is given. Raises `ValueError`."""
    if sentinels is None and service is None:
        return None
    if sentinels is None or service is None:
        raise ValueError("--redis-sentinel and --redis-service go together")
    if redis is not None:
        raise ValueError("--redis-sentinel/--redis-service replace --redis: give one or "
                         "the other")
    hosts = ",".join(h.strip() for h in sentinels.split(",") if h.strip())
    if not hosts or not re.fullmatch(r"[A-Za-z0-9_.-]+", service.strip()):
        raise ValueError(f"--redis-sentinel needs HOST:PORT[,HOST:PORT...] and "
                         f"--redis-service a name, got {sentinels!r} and {service!r}")
    return f"redis-sentinel://{hosts}/{service.strip()}"


_PUBLIC_ADDRESS = re.compile(
    r"^https?://(?:[A-Za-z0-9][A-Za-z0-9.-]{0,252}|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?/?$")


def check_public_address(address: str | None) -> None:
    """`public_address`: `http(s)://HOST[:PORT]` with an optional trailing `/` and nothing
    else (no path, query, user or space): the page builds links by appending to it."""
    if address is None:
        return
    found = isinstance(address, str) and _PUBLIC_ADDRESS.match(address)
    port = address.rstrip("/").rpartition("]")[2].rpartition(":")[2] if found else ""
    if not found or (port.isdigit() and not 1 <= int(port) <= 65535):
        raise ValueError(f"public_address must be http(s)://HOST[:PORT] with no path "
                         f"(e.g. https://poker.example.com or http://192.168.1.20:8080), "
                         f"got {address!r}")


def check_connections(cfg: Config) -> None:
    """The connection limits (section `connection limits (abuse)`)."""
    for name in ("max_connections_per_ip", "max_connections", "log_lines_per_interval"):
        value = getattr(cfg, name)
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if isinstance(cfg.fd_reserve, bool) or not isinstance(cfg.fd_reserve, int) \
            or cfg.fd_reserve < 16:
        raise ValueError(f"fd_reserve must be an integer of at least 16, "
                         f"got {cfg.fd_reserve!r}")
    for name in ("hello_deadline", "accept_error_log_interval"):
        value = getattr(cfg, name)
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise ValueError(f"{name} must be positive, got {value!r}")
    for origin in cfg.allowed_origins:
        scheme, sep, rest = origin.partition("://")
        if (scheme not in ("http", "https") or not sep or not rest or "/" in rest
                or any(ch.isspace() for ch in origin)):
            raise ValueError(f"allowed_origins: {origin!r} is not scheme://host[:port] "
                             "(http or https, no path)")
    for network in cfg.trusted_proxies:
        try:
            ipaddress.ip_network(network, strict=False)
        except (TypeError, ValueError):
            raise ValueError(f"trusted_proxies: {network!r} is not an IP network "
                             "(e.g. 10.0.0.0/8 or 127.0.0.1)") from None
    if not cfg.operator_host:
        raise ValueError("operator_host must not be empty")
    if not 0 <= cfg.operator_port <= 65535:
        raise ValueError(f"operator_port must be 0..65535, got {cfg.operator_port}")
    if cfg.operator_port and cfg.operator_port == cfg.port \
            and cfg.operator_host == cfg.host:
        raise ValueError("operator_port must differ from port on the same host")
    token = cfg.operator_token
    if token is not None and (len(token) < 16 or any(ch.isspace() or not ch.isprintable()
                                                     for ch in token)):
        raise ValueError("operator_token must be at least 16 printable characters "
                         "without spaces")


def check_tables(cfg: Config) -> None:
    """The tables, lobby and chat limits (section `tables, lobby and chat`)."""
    for name in ("max_tables_per_account", "max_tables_per_ip", "max_tables",
                 "lobby_page_size", "lobby_max_page", "chat_burst_per_account",
                 "chat_burst_per_table", "mute_limit", "practice_tables_per_account",
                 "max_practice_bots"):
        value = getattr(cfg, name)
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    for name in ("idle_table_close", "chat_rate_per_account", "chat_rate_per_table"):
        value = getattr(cfg, name)
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise ValueError(f"{name} must be positive, got {value!r}")
    if isinstance(cfg.practice_think, bool) or not isinstance(cfg.practice_think, int | float) \
            or not 0 <= cfg.practice_think <= 30:
        raise ValueError(f"practice_think must be 0..30 seconds, got {cfg.practice_think!r}")
    if cfg.lobby_page_size > cfg.lobby_max_page:
        raise ValueError(f"lobby_page_size ({cfg.lobby_page_size}) must not exceed "
                         f"lobby_max_page ({cfg.lobby_max_page})")
    if cfg.lobby_max_page > 1000:
        raise ValueError(f"lobby_max_page must be at most 1000 (the protocol's bound), "
                         f"got {cfg.lobby_max_page}")


def check_house_policy(cfg: Config) -> None:
    """GEN-09/GEN-10/CSP-13: the operator's house policy must be coherent and every
    amount fit 2**53 - 1 (JSON and MessagePack carry it exactly)."""
    safe = 2**53 - 1
    amounts = {
        "jackpot_wager": cfg.jackpot_wager, "jackpot_reset": cfg.jackpot_reset,
        "jackpot_royal_minimum": cfg.jackpot_royal_minimum,
        "jackpot_minor_reset": cfg.jackpot_minor_reset, "rake_cap": cfg.rake_cap,
        "max_rake_cap": cfg.max_rake_cap, "max_pool": cfg.max_pool,
        "max_stake": cfg.max_stake, "max_buy_in": cfg.max_buy_in,
        "max_balance": cfg.max_balance, "starting_balance": cfg.starting_balance,
    }
    for name, value in amounts.items():
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= safe:
            raise ValueError(f"{name} must be an integer 0..2**53-1, got {value!r}")
    if cfg.jackpot_wager <= 0:
        raise ValueError("jackpot_wager must be positive")
    for name, ceiling in (("max_pool", cfg.max_pool), ("max_stake", cfg.max_stake),
                          ("max_buy_in", cfg.max_buy_in),
                          ("max_balance", cfg.max_balance)):
        if ceiling <= 0:
            raise ValueError(f"{name} must be positive")
    if cfg.max_pool > 900_000_000_000:
        raise ValueError("max_pool must be at most 9 * 10**11 (exact pool arithmetic)")
    pays = cfg.jackpot_paytable
    if len(pays) != 5 or any(isinstance(v, bool) or not isinstance(v, int) or not
                             0 <= v <= safe for v in pays):
        raise ValueError("jackpot_paytable must be 5 non-negative integers: royal flush "
                         "bp, straight flush bp, four of a kind, full house, flush")
    if pays[0] > 10_000 or pays[1] > 10_000:
        raise ValueError("jackpot_paytable: pool shares are at most 10,000 bp")
    for name, bp in (("jackpot_pool_share_bp", cfg.jackpot_pool_share_bp),
                     ("jackpot_minor_share_bp", cfg.jackpot_minor_share_bp),
                     ("jackpot_major_share_bp", cfg.jackpot_major_share_bp),
                     ("rake_bp", cfg.rake_bp), ("max_rake_bp", cfg.max_rake_bp)):
        if isinstance(bp, bool) or not isinstance(bp, int) or not 0 <= bp <= 10_000:
            raise ValueError(f"{name} must be 0..10000 basis points, got {bp!r}")
    if cfg.jackpot_minor_share_bp + cfg.jackpot_major_share_bp > 10_000:
        raise ValueError("jackpot_minor_share_bp + jackpot_major_share_bp above 10000")
    if cfg.jackpot_reset > cfg.max_pool or (cfg.jackpot_split and
                                              cfg.jackpot_minor_reset > cfg.max_pool):
        raise ValueError("a jackpot reset amount above max_pool")
    if cfg.jackpot_royal_minimum > 900_000_000_000:  # CSP-09: exact in the Lua arithmetic
        raise ValueError("jackpot_royal_minimum must be at most 9 * 10**11 (exact pool "
                         "arithmetic)")
    if cfg.rake_bp > cfg.max_rake_bp:
        raise ValueError("rake_bp above max_rake_bp")
    if cfg.max_rake_cap and cfg.rake_bp and not 0 < cfg.rake_cap <= cfg.max_rake_cap:
        raise ValueError("rake_cap must be 1..max_rake_cap while max_rake_cap is set")
    if cfg.starting_balance > cfg.max_balance:
        raise ValueError("starting_balance above max_balance")
    if cfg.jackpot_wager > cfg.max_stake:
        raise ValueError("jackpot_wager above max_stake")
