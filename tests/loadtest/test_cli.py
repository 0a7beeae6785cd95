"""The command line of ``poker-loadtest`` (options to a `RunConfig`), its stakes defaults, and
the server options a spawned run relies on."""

from __future__ import annotations

import pytest

from server.loadtest.cli import build_parser, config_from_args
from server.loadtest.runner import SPAWN_ARGS, RunConfig, default_stakes
from server.main import build_parser as server_parser
from server.main import config_from_args as server_config


def parse(*argv: str) -> RunConfig:
    return config_from_args(build_parser().parse_args(list(argv)))


def test_defaults_and_options() -> None:
    cfg = parse("--spawn")
    assert (cfg.tables, cfg.bots, cfg.spectators, cfg.duration, cfg.think) == (10, 6, 0, 20.0, 0)
    assert cfg.table_stakes == {"blinds": [50, 100]}
    cfg = parse("--url", "ws://127.0.0.1:9/ws", "--tables", "3", "--bots", "4", "--hands",
                "50", "--variant", "stud7", "--structure", "fixed_limit", "--churn", "2.5",
                "--think", "0.2", "--seed", "9", "--encoding", "msgpack")
    assert cfg.duration is None and cfg.hands == 50
    assert (cfg.tables, cfg.bots, cfg.churn, cfg.think, cfg.seed) == (3, 4, 2.5, 0.2, 9)
    assert cfg.table_stakes == {"ante": 10, "bring_in": 25, "small_bet": 50, "big_bet": 100}
    assert parse("--spawn", "--variant", "caribbean").structure is None
    assert parse("--spawn", "--stakes", '{"blinds": [5, 10]}').table_stakes == {
        "blinds": [5, 10]}


def test_bad_options_are_refused() -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--tables", "2"])  # neither --url nor --spawn
    with pytest.raises(ValueError):
        RunConfig(spawn=True, tables=0)
    with pytest.raises(ValueError):
        RunConfig(spawn=True, duration=None, hands=None)
    with pytest.raises(ValueError):
        RunConfig(url="ws://x/ws", spawn=True)


def test_stakes_per_structure() -> None:
    assert default_stakes("holdem", "fixed_limit") == {"blinds": [50, 100], "small_bet": 100,
                                                       "big_bet": 200}
    assert default_stakes("draw", "spread_limit")["max_bet"] == 500
    assert default_stakes("caribbean", None) == {"min": 100, "max": 1000}


def test_the_spawned_server_takes_the_request_limit_options() -> None:
    args = server_parser().parse_args(["--port", "0", *SPAWN_ARGS])
    config = server_config(args)
    assert config.request_rate == 1_000_000 and config.request_burst == 1_000_000
    default = server_config(server_parser().parse_args([]))
    assert (default.request_rate, default.request_burst) == (20.0, 40)
