"""The command line of `poker-server`: its options, and the one `Config` they build.

Rule of this module: every option maps onto one `Config` field (`server.config`); `--config
FILE` (TOML) and `--set FIELD=VALUE` (repeatable) set any field by the field's type
(`_coerce`); an option of its own (`_OPTIONS`) wins over both only when it was given on the
command line. The operator token comes from `--operator-token-file` or
`$POKER_OPERATOR_TOKEN`, never from a default. `server.main` parses `argv` with
`build_parser` and builds the `Config` with `config_from_args`.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from server.config import Config
from server.config_checks import sentinel_url

__all__ = ["OPERATOR_TOKEN_ENV", "build_parser", "config_from_args"]


def build_parser(ws_path: str = "/ws") -> argparse.ArgumentParser:
    """The command-line interface; every option maps onto one `Config` field. `ws_path`:
    the WebSocket's path, for the description (`server.main` passes the edge's)."""
    defaults = Config()
    parser = argparse.ArgumentParser(
        prog="poker-server",
        description="Real-time poker server: HTTP (static client, /healthz, /readyz) and a "
        f"WebSocket at {ws_path} on one port.",
    )
    _add_server_options(parser, defaults)
    _add_limit_options(parser, defaults)
    _add_store_options(parser, defaults)
    _add_config_options(parser)
    return parser


def _add_server_options(parser: argparse.ArgumentParser, defaults: Config) -> None:
    """Where to listen, test mode, the shared store, the shutdown deadline."""
    parser.add_argument(
        "--host", default=defaults.host, help=f"interface to bind (default {defaults.host}: "
        "this computer only; 0.0.0.0: every interface, for friends on your network)"
    )
    parser.add_argument(
        "--port",
        type=int,
        default=defaults.port,
        help=f"TCP port (default {defaults.port}; 0 picks a free port)",
    )
    parser.add_argument(
        "--public-address",
        metavar="URL",
        default=None,
        help="http(s)://HOST[:PORT] players open when it is not the listening address: "
        "the LAN address, or the TLS reverse proxy in front (invite links use it; README "
        "\"Play with friends\")",
    )
    parser.add_argument(
        "--test-mode",
        action="store_true",
        help="enable test-only features such as scripted decks (never for production)",
    )
    parser.add_argument(
        "--redis",
        metavar="URL",
        default=None,
        help="redis://host:port/db for the shared store, or redis-cluster://HOST:PORT[,...] "
        "for a Redis Cluster; default: the embedded store",
    )
    parser.add_argument(
        "--redis-sentinel",
        metavar="HOST:PORT[,HOST:PORT...]",
        default=None,
        help="find the shared store's Redis primary through these Redis Sentinels instead "
        "of --redis (with --redis-service), and follow a failover to the promoted replica "
        "(docs/operator.md \"Sentinel\")",
    )
    parser.add_argument(
        "--redis-service",
        metavar="NAME",
        default=None,
        help="with --redis-sentinel: the name the sentinels monitor the primary under",
    )
    parser.add_argument(
        "--shutdown-deadline",
        type=float,
        default=defaults.shutdown_deadline,
        metavar="SECONDS",
        help="seconds running hands may take to finish on SIGTERM before they are voided "
        f"and refunded (default {defaults.shutdown_deadline})",
    )


def _add_limit_options(parser: argparse.ArgumentParser, defaults: Config) -> None:
    """The per-connection request rate limit."""
    parser.add_argument(
        "--request-rate",
        type=float,
        default=defaults.request_rate,
        metavar="PER_SECOND",
        help="requests per second one connection may sustain (default "
        f"{defaults.request_rate}; load tests with zero-think bots raise it)",
    )
    parser.add_argument(
        "--request-burst",
        type=int,
        default=defaults.request_burst,
        metavar="N",
        help=f"requests one connection may send at once (default {defaults.request_burst})",
    )
    parser.add_argument(
        "--trusted-proxies",
        type=_networks,
        default=defaults.trusted_proxies,
        metavar="CIDR[,CIDR...]",
        help="networks of the reverse proxies in front of the server (Config.trusted_proxies): "
        "from them only, the client's address is read from X-Forwarded-For (default: none)",
    )


def _networks(text: str) -> tuple[str, ...]:
    """`--trusted-proxies`: comma-separated networks (checked by `Config`)."""
    return tuple(x.strip() for x in text.split(",") if x.strip())


def _add_store_options(parser: argparse.ArgumentParser, defaults: Config) -> None:
    """The ledger's node name and the embedded store."""
    parser.add_argument(
        "--node",
        default=defaults.node,
        help="this process's name in the ledger; unique per process sharing a Redis store "
        f"(default {defaults.node})",
    )
    parser.add_argument(
        "--public-url",
        metavar="URL",
        default=None,
        help="cluster mode (with --redis and a unique --node): ws://HOST:PORT/ws at which "
        "clients reach this process; it then lists every table of the room and sends "
        "players to the process owning a table (error `moved`)",
    )
    parser.add_argument(
        "--no-ledger-fsync",
        dest="ledger_fsync",
        action="store_false",
        help="embedded store: do not fsync every ledger commit (survives a killed process, "
        "not a power cut)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=defaults.data_dir,
        help=f"directory of the embedded store (default {defaults.data_dir})",
    )


def _add_config_options(parser: argparse.ArgumentParser) -> None:
    """The operator token, a TOML file of Config fields, and --set for any field."""
    parser.add_argument(
        "--operator-token-file",
        type=Path,
        default=None,
        metavar="PATH",
        help="file holding the operator token (Config.operator_token) that /metrics and "
        f"/jackpot/history on the operator listener require; or set ${OPERATOR_TOKEN_ENV}",
    )
    parser.add_argument(
        "--config",
        type=Path,
        default=None,
        metavar="FILE",
        help="a TOML file of Config fields (`field = value`, every limit of server/config.py); "
        "the options above and --set override it",
    )
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="set any Config field (e.g. --set max_connections_per_ip=64); repeatable; "
        "lists are comma-separated",
    )


_OPTIONS = {"--host": ("host", "host"), "--port": ("port", "port"),
            "--public-address": ("public_address", "public_address"),
            "--test-mode": ("test_mode", "test_mode"), "--redis": ("redis", "redis_url"),
            "--data-dir": ("data_dir", "data_dir"), "--node": ("node", "node"),
            "--public-url": ("public_url", "public_url"),
            "--no-ledger-fsync": ("ledger_fsync", "ledger_fsync"),
            "--shutdown-deadline": ("shutdown_deadline", "shutdown_deadline"),
            "--request-rate": ("request_rate", "request_rate"),
            "--request-burst": ("request_burst", "request_burst"),
            "--trusted-proxies": ("trusted_proxies", "trusted_proxies")}
"""The options above that set a Config field: option -> (argparse dest, Config field). Such
an option wins over --config/--set only when it was given on the command line."""


def _coerce(name: str, raw: Any) -> Any:
    """A Config field's value from TOML or from a `--set` string, by the field's type."""
    fields = {f.name: f for f in dataclasses.fields(Config)}
    if name not in fields:
        raise ValueError(f"unknown Config field {name!r}")
    kind = str(fields[name].type)
    if not isinstance(raw, str):  # from TOML: already typed
        if kind.startswith("tuple") and isinstance(raw, list):
            return tuple(raw)
        if kind == "Path":
            raise ValueError(f"{name} must be a path string")
        if kind == "float" and isinstance(raw, int) and not isinstance(raw, bool):
            return float(raw)
        return raw
    text = raw.strip()
    optional = "None" in kind
    if optional and text.lower() in ("", "none", "null"):
        return None
    base = kind.replace("| None", "").replace("None |", "").strip()
    try:
        if base == "bool":
            if text.lower() not in ("true", "false", "1", "0", "yes", "no", "on", "off"):
                raise ValueError(text)
            return text.lower() in ("true", "1", "yes", "on")
        if base == "int":
            return int(text)
        if base == "float":
            return float(text)
        if base == "Path":
            return Path(text)
        if base.startswith("tuple"):
            items = [x.strip() for x in text.split(",") if x.strip()]
            return tuple(int(x) for x in items) if "int" in base else tuple(items)
    except ValueError:
        raise ValueError(f"{name}: cannot read {text!r} as {base}") from None
    return text


def config_from_args(args: argparse.Namespace, argv: Sequence[str] | None = None) -> Config:
    """Turn parsed arguments (and `--config FILE`, `--set FIELD=VALUE`) into the one
    immutable `Config`; raises ValueError for an unknown field or a bad value."""
    values: dict[str, Any] = {}
    if getattr(args, "config", None) is not None:
        with open(args.config, "rb") as fh:
            table = tomllib.load(fh)
        for key, raw in table.items():
            values[key] = _coerce(key, raw)
    for item in getattr(args, "overrides", []) or []:
        key, sep, raw = item.partition("=")
        if not sep:
            raise ValueError(f"--set needs FIELD=VALUE, got {item!r}")
        values[key.strip()] = _coerce(key.strip(), raw)
    given = _given_options(argv)
    for dest, key in _OPTIONS.values():
        if key not in values or key in given:
            values[key] = getattr(args, dest)
    url = sentinel_url(getattr(args, "redis_sentinel", None),
                       getattr(args, "redis_service", None), getattr(args, "redis", None))
    if url is not None:
        values["redis_url"] = url
    token = _operator_token(getattr(args, "operator_token_file", None))
    if token is not None:
        values["operator_token"] = token
    return Config(**values)


OPERATOR_TOKEN_ENV = "POKER_OPERATOR_TOKEN"
"""Environment variable holding the operator token (`--operator-token-file` wins over it)."""


def _operator_token(path: Path | None) -> str | None:
    """The operator token from `--operator-token-file` (surrounding whitespace stripped) or
    `$POKER_OPERATOR_TOKEN`; None when neither is given (then `--set`/`--config` may)."""
    if path is not None:
        token = path.read_text(encoding="utf-8").strip()
        if not token:
            raise ValueError(f"--operator-token-file {path} is empty")
        return token
    token = os.environ.get(OPERATOR_TOKEN_ENV, "").strip()
    return token or None


def _given_options(argv: Sequence[str] | None) -> set[str]:
    """The Config fields whose own option appears in `argv` (so it beats the config file)."""
    words = list(sys.argv[1:] if argv is None else argv)
    out = set()
    for w in words:
        opt = w.split("=", 1)[0]
        if opt in _OPTIONS:
            out.add(_OPTIONS[opt][1])
    return out
