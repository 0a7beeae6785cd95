"""The operator page (`client_web/operator/`, served only on the operator listener) in the
system Chromium: sign in with the token, see the tables and accounts, freeze a player, adjust
a balance, review a pair, close a table mid-hand; the audit log and live counters show."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, async_playwright, expect

from server.ledger.journal import player_account
from tests.operator.conftest import TOKEN, OperatorFactory, seat_two

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("POKER_CHROMIUM", "/usr/bin/chromium")
expect.set_options(timeout=10_000)


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    assert Path(CHROMIUM).exists(), f"no Chromium at {CHROMIUM} (set POKER_CHROMIUM)"
    async with async_playwright() as pw:
        chromium = await pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield chromium
        await chromium.close()


async def signed_in(browser: Browser, operator_url: str, errors: list[str]) -> Page:
    page = await browser.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    await page.goto(operator_url.rstrip("/") + "/operator/")
    await page.fill("#token", TOKEN)
    await page.fill("#operator", "olga")
    await page.click("#login button[type=submit]")
    await expect(page.locator("#who")).to_have_text("signed in as olga")
    return page


async def test_operator_page(operator_server: OperatorFactory, browser: Browser) -> None:
    server = await operator_server()
    table, alice, bob = await seat_two(server)
    errors: list[str] = []
    page = await signed_in(browser, server.app.operator_url or "", errors)

    row = page.locator(f"#tables tr[data-table='{table}']")
    await expect(row).to_contain_text("Alice")
    await expect(row).to_contain_text("Bob")
    await expect(page.locator("#counters")).to_contain_text("poker_tcp_connections")

    # freeze Bob (a reason is required: without it the refusal shows)
    bob_row = page.locator(f"#accounts tr[data-player='{bob.player_id}']")
    await bob_row.get_by_role("button", name="Freeze").click()
    await expect(page.locator("#status")).to_contain_text("bad_reason")
    await page.fill("#reason", "suspected chip dumping")
    await bob_row.get_by_role("button", name="Freeze").click()
    await expect(bob_row.locator(".flag")).to_have_text("frozen")
    assert (await bob.request("chat", table=table, text="hi"))["code"] == "account_frozen"

    # adjust Alice's balance from the house
    await page.fill("#adjust-player", str(alice.player_id))
    await page.fill("#adjust-amount", "250")
    await page.click("#adjust button[type=submit]")
    alice_row = page.locator(f"#accounts tr[data-player='{alice.player_id}']")
    await expect(alice_row).to_contain_text("5250")  # 10000 - 5000 at the table + 250
    await alice.event("balance", balance=5250)  # the push reached her connection

    # the collusion review of the pair
    await page.fill("#pair-a", str(alice.player_id))
    await page.fill("#pair-b", str(bob.player_id))
    await page.click("#collusion button[type=submit]")
    await expect(page.locator("#collusion-result")).to_contain_text("hands together")

    # close the table in the middle of its first hand: every chip back
    await expect(row).to_contain_text("in hand")  # (the page refreshes every 3 s)
    await row.get_by_role("button", name="Close table").click()
    await expect(page.locator(f"#tables tr[data-table='{table}']")).to_have_count(0)
    await alice.event("table_closed", table=table)
    ledger = server.app.wallet.ledger
    assert await ledger.balance(player_account(str(alice.player_id))) == 10250
    assert await ledger.balance(player_account(str(bob.player_id))) == 10000

    audit = page.locator("#audit tbody")
    await expect(audit.locator("tr")).to_have_count(3)
    await expect(audit).to_contain_text("close_table")
    await expect(audit).to_contain_text("olga")
    await expect(audit).to_contain_text("suspected chip dumping")
    assert not errors, errors
    await page.close()
    await alice.ws.close()
    await bob.ws.close()


async def test_a_wrong_token_is_refused_on_the_page(operator_server: OperatorFactory,
                                                    browser: Browser) -> None:
    server = await operator_server()
    page = await browser.new_page()
    await page.goto((server.app.operator_url or "").rstrip("/") + "/operator/")
    await page.fill("#token", "not-the-token-at-all")
    await page.click("#login button[type=submit]")
    await expect(page.locator("#login-error")).to_contain_text("bad_credential")
    await expect(page.locator("#console")).to_be_hidden()
    await page.close()
