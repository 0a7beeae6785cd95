#!/usr/bin/env python3
"""The developer's entry point: `python3 dev.py serve` and `python3 dev.py test`.

Standard library only, so it runs on a fresh machine with nothing but Python 3.11+ and apt.

    python3 dev.py serve [server args]   run the server (default http://127.0.0.1:8080/;
                                         --host 0.0.0.0 for friends on your network)
    python3 dev.py test [--fast] [pytest args]
                                         ruff, mypy, lint-imports (the import contracts),
                                         then pytest with the coverage gate of server.rules
                                         and protocol; --fast skips slow tests
    python3 dev.py bench                 run every tests/benchmarks/bench_*.py in turn

Each command first makes sure `.venv` exists in the repo root and that the project is installed
in it with what that command needs: `serve` the runtime dependencies only (`pip install -e .`),
`test` the `[test]` extra too (pytest, Playwright, mypy, ruff, pokerkit, hypothesis, ...),
`bench` the `[test,bench]` extras. Each install leaves its own stamp in `.venv`
(`.nzpoker-install-<extras>.json`, with a hash of pyproject.toml); an install is redone only
when no stamp of the same pyproject.toml covers the extras asked for, so `serve` after `test`
installs nothing, and switching back and forth reinstalls nothing. `test` also installs the
system packages the tests need (redis-server, nginx, chromium) with apt-get when they are
missing, but starts no service.

`serve` runs `poker-server`, which prints the address players open (`Players open ...`) under
its two URLs, and refuses plainly to start a second server on the same data directory
(`server/instance.py`: give a second one its own `--port` and `--data-dir`).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
VENV_BIN = VENV / "bin"
VENV_PYTHON = VENV_BIN / "python"
STAMP_GLOB = ".nzpoker-install*.json"
"""The install stamps in .venv: one per set of extras (`stamp_path`); the older single
`.nzpoker-install.json` is read as one too."""
PYPROJECT = ROOT / "pyproject.toml"
CHROMIUM = Path("/usr/bin/chromium")

USAGE = """usage: python3 dev.py COMMAND [args]

commands:
  serve [args]                 run the server (installs the runtime dependencies only); args
                               go to poker-server (see serve --help): --host 0.0.0.0 lets
                               friends on your network in, --public-address URL names the
                               address they open (README "Play with friends")
  test [--fast] [pytest args]  ruff check, mypy, lint-imports, then pytest (+ coverage gate);
                               --fast skips slow tests
  bench                        run each tests/benchmarks/bench_*.py in turn
"""


def say(message: str) -> None:
    print(f"==> {message}", flush=True)


def fail(message: str, code: int = 1) -> int:
    print(f"dev.py: {message}", file=sys.stderr, flush=True)
    return code


# ------------------------------------------------------------------------------------------
# System packages (apt)
# ------------------------------------------------------------------------------------------

_apt_updated = False


def _privileged(cmd: list[str]) -> list[str]:
    if os.geteuid() == 0:
        return cmd
    if shutil.which("sudo") is None:
        raise SystemExit(
            fail(f"need root or sudo to run: {' '.join(cmd)}; install the package by hand")
        )
    return ["sudo", *cmd]


def apt_install(*packages: str) -> None:
    """`apt-get update` (once per run) then `apt-get install -y PACKAGES`; exits on failure."""
    global _apt_updated
    if shutil.which("apt-get") is None:
        raise SystemExit(fail(f"apt-get not found; install {' '.join(packages)} by hand"))
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    if not _apt_updated:
        say("apt-get update")
        subprocess.run(_privileged(["apt-get", "update"]), check=True, env=env)
        _apt_updated = True
    say(f"apt-get install -y {' '.join(packages)}")
    subprocess.run(
        _privileged(["apt-get", "install", "-y", *packages]),
        check=True,
        env=env,
    )


def find_redis_server() -> str | None:
    found = shutil.which("redis-server")
    if found:
        return found
    for candidate in ("/usr/bin/redis-server", "/usr/sbin/redis-server"):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def ensure_redis_server() -> str:
    """Make sure a redis-server binary exists (installing it if needed); never start it."""
    found = find_redis_server()
    if found is None:
        apt_install("redis-server")
        found = find_redis_server()
        if found is None:
            raise SystemExit(fail("redis-server still missing after apt-get install"))
    return found


def ensure_nginx() -> str:
    """Make sure Debian's nginx exists (the cluster test runs it in front of three servers;
    tests/cluster/test_nginx.py); never start it (apt's own start is refused in containers)."""
    found = shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/bin/nginx") if os.access(p, os.X_OK)), None)
    if found is None:
        apt_install("nginx")
        found = shutil.which("nginx") or "/usr/sbin/nginx"
        if not os.access(found, os.X_OK):
            raise SystemExit(fail("nginx still missing after apt-get install nginx"))
    return found


def ensure_chromium() -> str:
    """Make sure Debian's Chromium is at /usr/bin/chromium (installing it if needed)."""
    if not CHROMIUM.exists():
        apt_install("chromium")
        if not CHROMIUM.exists():
            raise SystemExit(fail(f"{CHROMIUM} still missing after apt-get install chromium"))
    return str(CHROMIUM)


def ensure_node() -> str:
    """Make sure `node` exists (the browser client's unit tests run under `node --test`)."""
    found = shutil.which("node")
    if found is None:
        apt_install("nodejs")
        found = shutil.which("node")
        if found is None:
            raise SystemExit(fail("node still missing after apt-get install nodejs"))
    return found


def ensure_client_modules() -> None:
    """The browser tests' npm packages (`client_web/package.json` devDependencies: axe-core,
    the accessibility scan): `npm ci` from the committed lock file when
    `client_web/node_modules/axe-core` is missing (npm comes with Debian's `npm` package)."""
    client = ROOT / "client_web"
    if (client / "node_modules" / "axe-core" / "axe.min.js").exists():
        return
    if shutil.which("npm") is None:
        apt_install("npm")
        if shutil.which("npm") is None:
            raise SystemExit(fail("npm still missing after apt-get install npm"))
    say("npm ci (client_web: axe-core for the accessibility scan)")
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=client, check=True)


# ------------------------------------------------------------------------------------------
# The virtual environment
# ------------------------------------------------------------------------------------------


def _venv_works() -> bool:
    if not VENV_PYTHON.exists():
        return False
    probe = subprocess.run(
        [str(VENV_PYTHON), "-c", "import sys, pip; print(sys.version_info >= (3, 11))"],
        capture_output=True,
        text=True,
    )
    return probe.returncode == 0 and probe.stdout.strip() == "True"


def _create_venv() -> None:
    say(f"creating {VENV.relative_to(ROOT)} with {sys.executable}")
    cmd = [sys.executable, "-m", "venv", "--clear", str(VENV)]
    if subprocess.run(cmd).returncode == 0 and _venv_works():
        return
    # Debian's own python3 ships venv/ensurepip separately.
    minor = f"python3.{sys.version_info.minor}-venv"
    say(f"venv failed; installing {minor}")
    try:
        apt_install(minor)
    except subprocess.CalledProcessError:
        apt_install("python3-venv")
    subprocess.run(cmd, check=True)
    if not _venv_works():
        raise SystemExit(fail(f"could not create a working virtual environment in {VENV}"))


def stamp_path(extras: tuple[str, ...]) -> Path:
    """The stamp of an install with `extras` (`()`: the runtime dependencies only)."""
    name = "+".join(sorted(set(extras))) or "runtime"
    return VENV / f".nzpoker-install-{name}.json"


def _read_stamp(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def installed_covers(extras: tuple[str, ...], digest: str) -> bool:
    """Does an install of this pyproject.toml (`digest`) with at least `extras` exist?"""
    for path in VENV.glob(STAMP_GLOB):
        stamp = _read_stamp(path)
        have = stamp.get("extras")
        if (stamp.get("pyproject_sha256") == digest and isinstance(have, list)
                and set(extras) <= set(have)):
            return True
    return False


def ensure_icu_build_deps() -> None:
    """PyICU (the UTS #39 confusables skeleton for display names) builds against the system's
    ICU: make sure its headers, pkg-config and a C++ compiler are there (apt when missing)."""
    have_icu = shutil.which("pkg-config") is not None and subprocess.run(
        ["pkg-config", "--exists", "icu-uc", "icu-i18n"]).returncode == 0
    missing = [] if have_icu else ["libicu-dev", "pkg-config"]
    if shutil.which("g++") is None and shutil.which("c++") is None:
        missing.append("g++")
    if missing:
        apt_install(*missing)


def ensure_venv(extras: tuple[str, ...] = ("test",)) -> None:
    """Create/reuse .venv and `pip install -e '.[extras]'` (`-e .` for no extras) unless an
    install of this pyproject.toml with at least these extras is stamped already."""
    if not _venv_works():
        _create_venv()
    digest = hashlib.sha256(PYPROJECT.read_bytes()).hexdigest()
    if installed_covers(extras, digest) and (VENV_BIN / "poker-server").exists():
        return
    wanted = sorted(set(extras))
    spec = f".[{','.join(wanted)}]" if wanted else "."
    stamp = stamp_path(extras)
    ensure_icu_build_deps()
    say(f"pip install -e '{spec}' (pyproject.toml changed or first install)")
    pip = [str(VENV_PYTHON), "-m", "pip", "--disable-pip-version-check"]
    result = subprocess.run([*pip, "install", "-e", spec], cwd=ROOT)
    if result.returncode != 0:
        stamp.unlink(missing_ok=True)
        raise SystemExit(fail("pip install failed", result.returncode))
    stamp.write_text(json.dumps({"pyproject_sha256": digest, "extras": wanted}) + "\n")


def venv_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONHOME", None)
    env["VIRTUAL_ENV"] = str(VENV)
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra or {})
    return env


# ------------------------------------------------------------------------------------------
# Commands
# ------------------------------------------------------------------------------------------


SERVE_EXTRAS: tuple[str, ...] = ()
"""`serve` needs the runtime dependencies only; the test toolchain is `test`'s."""


def cmd_serve(args: list[str]) -> int:
    ensure_venv(SERVE_EXTRAS)
    exe = VENV_BIN / "poker-server"
    say(f"poker-server {' '.join(args)}".rstrip())
    os.chdir(ROOT)
    os.execve(str(exe), [str(exe), *args], venv_env())
    return 0  # not reached


def _step(name: str, cmd: list[str], env: dict[str, str]) -> int:
    say(f"{name}: {' '.join(cmd)}")
    code = subprocess.run(cmd, cwd=ROOT, env=env).returncode
    if code == 5 and name == "pytest":
        print("dev.py: pytest collected no tests; that counts as a failure", flush=True)
    print(f"==> {name}: {'ok' if code == 0 else f'FAILED (exit {code})'}", flush=True)
    return code


COVERAGE_ARGS = ["--cov=server.rules", "--cov=protocol", "--cov-report=term-missing"]


def coverage_args(pytest_args: list[str]) -> list[str]:
    """The coverage gate (100% of the lines of server.rules and protocol; the threshold and the
    sources are `[tool.coverage.*]` in pyproject.toml) on a whole run. A run narrowed to some
    paths (`tests/rules`, `file.py::test`), a `-k` expression or a `-m` marker (`--fast`) would
    miss lines, so it goes without the gate."""
    narrowed = any(
        a in ("-k", "-m") or a.startswith(("-k=", "-m=")) or "::" in a or (ROOT / a).exists()
        for a in pytest_args
    )
    return [] if narrowed else COVERAGE_ARGS


def cmd_test(args: list[str]) -> int:
    fast = "--fast" in args
    pytest_args = [a for a in args if a != "--fast"]
    if fast:
        pytest_args = ["-m", "not slow", *pytest_args]
    ensure_venv()
    redis = ensure_redis_server()
    ensure_nginx()
    chromium = ensure_chromium()
    ensure_node()
    ensure_client_modules()
    env = venv_env(
        {
            "POKER_CHROMIUM": chromium,
            "POKER_REDIS_SERVER": redis,
            "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
    )
    steps = [
        ("ruff", [str(VENV_BIN / "ruff"), "check", "."]),
        ("mypy", [str(VENV_BIN / "mypy")]),
        ("lint-imports", [str(VENV_BIN / "lint-imports")]),
        ("pytest", [str(VENV_BIN / "pytest"), *coverage_args(pytest_args), *pytest_args]),
    ]
    failed = [name for name, cmd in steps if _step(name, cmd, env) != 0]
    if failed:
        print(f"==> FAILED: {', '.join(failed)}", flush=True)
        return 1
    print("==> all checks passed", flush=True)
    return 0


def cmd_bench(args: list[str]) -> int:
    ensure_venv(("test", "bench"))
    benches = sorted((ROOT / "tests" / "benchmarks").glob("bench_*.py"))
    if not benches:
        say("no benchmarks yet (tests/benchmarks/bench_*.py)")
        return 0
    env = venv_env({"POKER_CHROMIUM": str(CHROMIUM), "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1"})
    failed = []
    for bench in benches:
        module = f"tests.benchmarks.{bench.stem}"
        if _step(module, [str(VENV_PYTHON), "-m", module, *args], env) != 0:
            failed.append(module)
    if failed:
        print(f"==> FAILED: {', '.join(failed)}", flush=True)
        return 1
    return 0


COMMANDS = {"serve": cmd_serve, "test": cmd_test, "bench": cmd_bench}


def main(argv: list[str]) -> int:
    if sys.version_info < (3, 11):  # noqa: UP036 (dev.py may be run by any python3)
        return fail(f"Python 3.11+ is required, this is {sys.version.split()[0]}")
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE, end="")
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command not in COMMANDS:
        print(USAGE, end="", file=sys.stderr)
        return fail(f"unknown command {command!r}", 2)
    try:
        return COMMANDS[command](rest)
    except subprocess.CalledProcessError as error:
        return fail(f"command failed (exit {error.returncode}): {error.cmd}")
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
