"""The project's own specifications live in `docs/`: every rule id that code or tests cite is
defined in `docs/rules.md`, every rule id marked for tests there is cited by a test, and no path
of a developer's machine stands anywhere in the tree."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULE_ID = re.compile(
    r"\b(GEN|BLIND|BET|ALLIN|POT|SHOW|HOLD|MAN|MAN3|DRAW|STUD|CSP|STRAD|RIT|SHOWWIN|TOUR)-(\d\d)\b")


def defined_ids() -> dict[str, bool]:
    """Rule id -> whether the rulebook marks it for a test (test column Y)."""
    out: dict[str, bool] = {}
    for line in (ROOT / "docs" / "rules.md").read_text(encoding="utf-8").splitlines():
        m = re.match(r"^\| ([A-Z0-9]+-\d\d) \|.*\| ([YN]) \|\s*$", line)
        if m:
            out[m.group(1)] = m.group(2) == "Y"
    return out


def tracked(*patterns: str) -> list[Path]:
    names = subprocess.run(["git", "ls-files", *patterns], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.split()
    return [ROOT / n for n in names if (ROOT / n).is_file()]


def cited(paths: list[Path]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for path in paths:
        for m in RULE_ID.finditer(path.read_text(encoding="utf-8", errors="replace")):
            out.setdefault(f"{m.group(1)}-{m.group(2)}", set()).add(str(path.relative_to(ROOT)))
    return out


def test_rulebook_defines_the_ids() -> None:
    ids = defined_ids()
    assert len(ids) > 60 and "GEN-05" in ids and "CSP-13" in ids


def test_every_cited_rule_id_is_defined_in_docs_rules() -> None:
    ids = defined_ids()
    uses = cited(tracked("server/*.py", "protocol/*.py", "tests/*.py", "client_web/*.js"))
    unknown = {rule: sorted(files)[:3] for rule, files in uses.items() if rule not in ids}
    assert not unknown, f"rule ids cited but not defined in docs/rules.md: {unknown}"


def test_every_rule_marked_for_tests_is_cited_by_a_test() -> None:
    uses = cited(tracked("tests/*.py"))
    missing = sorted(rule for rule, needs_test in defined_ids().items()
                     if needs_test and rule not in uses)
    assert not missing, f"rules with no test citing them: {missing}"


def test_no_machine_path_in_the_tree() -> None:
    roots = "|".join(["w" + "ork", "f" + "arm", "r" + "oot", "h" + "ome"])
    pattern = re.compile(rf"(^|[^A-Za-z0-9_.~-])/({roots})/")
    hits = []
    for path in tracked():
        if path.suffix in (".png", ".jpg", ".ico", ".woff2"):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for n, line in enumerate(text.splitlines(), 1):
            if pattern.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:80]}")
    assert not hits, "machine paths in the tree:\n" + "\n".join(hits[:10])
