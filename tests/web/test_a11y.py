"""An axe-core scan (the npm package `axe-core`, `client_web/node_modules`, installed by
`python3 dev.py test`) of the lobby and of a live table, run inside the page: no serious or
critical violation. Also the focus: after signing in it moves to the table list, on your
turn to the action bar; every Join link names its table."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Page, expect

from tests.net.conftest import Live
from tests.web.conftest import DESKTOP, PHONE, ROOT, OpenPlayer, create, host

pytestmark = pytest.mark.browser

AXE = ROOT / "client_web" / "node_modules" / "axe-core" / "axe.min.js"


async def axe_violations(page: Page) -> list[dict[str, Any]]:
    """The serious and critical violations of axe-core's WCAG 2 A/AA rules on the page."""
    assert AXE.exists(), f"{AXE} missing: run `python3 dev.py test` (npm ci in client_web)"
    if not await page.evaluate("() => !!window.axe"):
        await page.evaluate(AXE.read_text(encoding="utf-8"))
    result: dict[str, Any] = await page.evaluate("""async () => {
        // the page as it rests: a card still sliding in is half transparent for 0.2 s
        await Promise.all(document.getAnimations()
            .filter((a) => a.effect && a.effect.getComputedTiming().endTime !== Infinity)
            .map((a) => a.finished.catch(() => null)));
        const r = await window.axe.run(document, {
            runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
            resultTypes: ["violations"],
        });
        return { violations: r.violations.map((v) => ({ id: v.id, impact: v.impact,
            help: v.help, nodes: v.nodes.slice(0, 5).map((n) => [n.target.join(" "),
                n.failureSummary]) })) };
    }""")
    return [v for v in result["violations"] if v["impact"] in ("serious", "critical")]


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
async def test_axe_finds_no_serious_violation_in_the_lobby(
        live: Live, open_player: OpenPlayer, viewport: dict[str, int]) -> None:
    creator = await host(live)
    await create(creator, variant="holdem", structure="no_limit", stakes={"blinds": [50, 100]},
                 seats=6, name="Aces high")
    await create(creator, variant="caribbean", stakes={"min": 100, "max": 1000}, seats=5,
                 name="Island")
    player = await open_player(viewport)
    await player.goto(live.url)
    await expect(player.page.locator("#table-list tr[data-table]")).to_have_count(2)
    assert await axe_violations(player.page) == []
    await player.hello("Alice")
    # Signed in: the focus goes on to the tables to join.
    focused = await player.page.evaluate("() => document.activeElement?.id")
    assert focused == "tables-title", focused
    join = player.page.get_by_role("link", name="Join Aces high")
    await expect(join).to_have_count(1)
    await expect(player.page.get_by_role("link", name="Watch Island")).to_have_count(1)
    assert await axe_violations(player.page) == []


async def test_axe_finds_no_serious_violation_at_a_live_table(
        live: Live, open_player: OpenPlayer) -> None:
    creator = await host(live, "Bob")
    table = await create(creator, variant="holdem", structure="no_limit",
                         stakes={"blinds": [50, 100]}, seats=6, name="Aces high",
                         settings={"pause": 0.2})
    alice = await open_player()
    await alice.goto(live.url)
    await alice.hello("Alice")
    await alice.goto(live.url, f"#/table/{table}")
    assert await axe_violations(alice.page) == []  # the empty table with "Sit here"
    await alice.sit(0, 5000)
    answer = await creator.request("sit", table=table, seat=1, buy_in=5000)
    assert answer["type"] == "ok", answer
    await expect(alice.page.locator("#actions .your-turn")).to_be_visible()
    # Her turn: the focus is in the action bar.
    await expect(alice.page.locator("#actions :focus")).to_have_count(1)
    assert await axe_violations(alice.page) == []
    watcher = await open_player(PHONE)
    await watcher.goto(live.url, f"#/table/{table}/watch")
    await expect(watcher.page.locator(".seat[data-seat='1'] .name")).to_have_text("Bob")
    assert await axe_violations(watcher.page) == []


@pytest.mark.parametrize("viewport", [DESKTOP, {"width": 390, "height": 844}],
                         ids=["desktop", "phone"])
async def test_axe_finds_no_serious_violation_with_the_host_panel_open(
        live: Live, open_player: OpenPlayer, viewport: dict[str, int]) -> None:
    """A home game's host: the host panel open, a seat request waiting, the ledger shown."""
    ann = await open_player(viewport)
    await ann.goto(live.url)
    await ann.hello("Ann")
    await ann.page.check("#create-private")
    assert await axe_violations(ann.page) == []  # the create form's home-game settings
    await ann.page.click("#create-btn")
    await expect(ann.page.locator("#host-panel")).to_be_visible()
    table = ann.page.url.split("#/table/")[1]
    await ann.sit(0, 5000)
    code = await ann.page.locator("#host-link").input_value()
    bob = await host(live, "Bob")
    answer = await bob.request("sit", table=table, seat=1, buy_in=4000,
                               code=code.split("code=")[1])
    assert answer.get("pending") is True, answer
    await expect(ann.page.locator(".seat-request")).to_contain_text("Bob")
    await expect(ann.page.locator("#host-ledger table")).to_have_count(1)
    assert await ann.page.evaluate("() => document.querySelector('#host-panel').open")
    assert await axe_violations(ann.page) == []
