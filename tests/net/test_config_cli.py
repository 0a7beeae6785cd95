"""Every Config limit is reachable from the `poker-server` command line (`--set FIELD=VALUE`)
or a TOML file (`--config FILE`), validated the same way as in code."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from server.config import Config
from server.main import build_parser, config_from_args, main


def parse(*argv: str) -> Config:
    return config_from_args(build_parser().parse_args(list(argv)), list(argv))


def test_set_reaches_any_field_by_its_type() -> None:
    cfg = parse("--set", "action_clock=12.5", "--set", "compression=true",
                "--set", "outbox_size=99", "--set", "redis_url=none")
    assert (cfg.action_clock, cfg.compression, cfg.outbox_size, cfg.redis_url) == (
        12.5, True, 99, None)


def test_config_file_then_options_then_set(tmp_path: Path) -> None:
    path = tmp_path / "poker.toml"
    path.write_text('request_rate = 5\nchat_burst = 3\nnode = "n1"\n')
    cfg = parse("--config", str(path))
    assert (cfg.request_rate, cfg.chat_burst, cfg.node) == (5.0, 3, "n1")
    assert parse("--config", str(path), "--request-rate", "7").request_rate == 7.0
    assert parse("--config", str(path), "--set", "chat_burst=4").chat_burst == 4


def test_every_field_is_settable_from_the_command_line() -> None:
    """Each field of Config can be given back its own default through --set."""
    defaults = Config()
    for field in dataclasses.fields(Config):
        value = getattr(defaults, field.name)
        if isinstance(value, tuple):
            text = ",".join(str(v) for v in value)
        elif value is None:
            text = "none"
        else:
            text = str(value)
        cfg = parse("--set", f"{field.name}={text}")
        assert getattr(cfg, field.name) == value, field.name


@pytest.mark.parametrize("argv", [
    ["--set", "no_such_limit=1"],
    ["--set", "outbox_size=many"],
    ["--set", "outbox_size=0"],        # validated like Config(...) in code
    ["--set", "compression=maybe"],
    ["--set", "outbox_size"],
])
def test_bad_values_are_refused_with_a_usage_error(argv: list[str],
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "poker-server: error:" in capsys.readouterr().err
