// Unit tests of the DOM-free parts of the ui/ family: legal sizes, the create form's request,
// the card markup (a hidden card carries no value), escaping.
import assert from "node:assert/strict";
import { test } from "node:test";

import { actionsHTML, clamp, quickSizes } from "../js/ui/actions.js";
import { cardHTML } from "../js/ui/cards.js";
import { esc } from "../js/ui/dom.js";
import { createRequest, houseText, stakeFieldsFor, tableListHTML } from "../js/ui/lobby.js";

function table(extra = {}) {
  return {
    id: "t1", variant: "holdem", you: 0, ended: false, collected: 300,
    seats: [{ seat: 0, name: "A", stack: 4800, bet: 0 }, { seat: 1, name: "B", stack: 4700, bet: 200 }],
    turn: { seat: 0, seq: 9, options: { fold: true, call: 200, to_call: 200, raise: { min: 400, max: 4800 } } },
    ...extra,
  };
}

test("amounts are clamped to the legal range", () => {
  assert.equal(clamp(50, 100, 400), 100);
  assert.equal(clamp(9999, 100, 400), 400);
  assert.equal(clamp("abc", 100, 400), 100);
  assert.equal(clamp(250.6, 100, 400), 251);
});

test("quick sizes stay within [min, max]: min, half pot, pot, all-in", () => {
  const t = table();
  const sizes = quickSizes(t, t.turn.options, "raise");
  // pot 500, to call 200: half pot raise to 200 + 350 = 550, pot raise to 200 + 700 = 900
  assert.deepEqual(sizes.map((q) => [q.label, q.amount]),
    [["Min", 400], ["½ pot", 550], ["Pot", 900], ["All-in", 4800]]);
  const small = table({ turn: { seat: 0, options: { raise: { min: 400, max: 500 } } } });
  assert.deepEqual(quickSizes(small, small.turn.options, "raise").map((q) => q.amount), [400, 500]);
});

test("the action bar offers exactly the options, only on one's own turn", () => {
  const html = actionsHTML(table());
  assert.match(html, /data-act="fold"/);
  assert.match(html, /Call 200/);
  assert.match(html, /data-act="raise"/);
  assert.doesNotMatch(html, /data-act="check"/);
  assert.match(html, /min="400" max="4800"/);
  assert.equal(actionsHTML(table({ you: 1 })), "");
  const draw = actionsHTML(table({ seats: [{ seat: 0, cards: ["As", "Kd"], up: [] }], turn: { seat: 0, options: { draw: { max: 3 } } } }));
  assert.match(draw, /data-pick="As"/);
  const csp = actionsHTML(table({ variant: "caribbean", turn: { seat: 0, options: { sit_out: true, ante: { min: 100, max: 1000 }, jackpot: { wager: 100 } } } }));
  assert.match(csp, /id="jackpot-wager"/);
  assert.match(csp, /data-act="fold"[^>]*>Skip this round/, "skipping a round is the ante-phase fold");
  const short = actionsHTML(table({ variant: "caribbean", turn: { seat: 0, options: { sit_out: true } } }));
  assert.match(short, /data-act="fold"/);
  assert.doesNotMatch(short, /data-act="ante"/);
  const decide = actionsHTML(table({ variant: "caribbean", turn: { seat: 0, options: { fold: true, play: 200 } } }));
  assert.match(decide, /Play 200/);
});

test("the create form's request for every kind of table", () => {
  assert.deepEqual(stakeFieldsFor("holdem", "fixed_limit"), ["sb", "bb", "small_bet", "big_bet"]);
  assert.deepEqual(stakeFieldsFor("caribbean", "no_limit"), ["min", "max"]);  // CSP-13: no jackpot wager
  assert.deepEqual(createRequest({ variant: "holdem", structure: "no_limit", sb: "50", bb: "100", seats: "6", name: " Main " }),
    { variant: "holdem", structure: "no_limit", stakes: { blinds: [50, 100] }, seats: 6, name: "Main" });
  assert.deepEqual(createRequest({ variant: "caribbean", structure: "no_limit", min: "100", max: "1000", jackpot_wager: "100", seats: "5" }),
    { variant: "caribbean", stakes: { min: 100, max: 1000 }, seats: 5 });
  assert.deepEqual(createRequest({ variant: "stud7", structure: "fixed_limit", ante: "10", bring_in: "25", small_bet: "50", big_bet: "100", seats: "8" }).stakes,
    { ante: 10, bring_in: 25, small_bet: 50, big_bet: 100 });
});

test("a face-down card carries no value; names are escaped", () => {
  assert.doesNotMatch(cardHTML(null), /data-card/);
  assert.match(cardHTML("Qh", "up"), /data-card="Qh".*queen of hearts/);
  assert.equal(esc('<img src=x onerror="a">'), "&lt;img src=x onerror=&quot;a&quot;&gt;");
});

test("the middle shows the main pot and each side pot, with who can win it", async () => {
  const { feltHTML } = await import("../js/ui/table.js");
  const { initialState, reduce } = await import("../js/state.js");
  const seats = ["Alice", "Bob", "<Carol>"].map((name, seat) =>
    ({ seat, name, stack: 1000, bet: 0, state: "active", cards: [], up: [] }));
  const s = reduce({ ...initialState(), opening: "t1" }, {
    type: "snapshot", table: "t1", seq: 5, variant: "holdem", structure: "no_limit",
    stakes: { blinds: [50, 100] }, board: ["2c", "7h", "Td"], button: 0, turn: null,
    hand: "t1.1", seats,
    pots: [{ amount: 1200, eligible: [0, 1, 2] }, { amount: 800, eligible: [1, 2] }],
  });
  const html = feltHTML(s.table, {});
  assert.match(html, /data-pot="2000"/);
  assert.match(html, /data-pot-index="0"[^>]*>Main pot 1,200</);
  assert.match(html, /data-pot-index="1"[^>]*data-eligible="1,2"[^>]*title="Can be won by Bob, &lt;Carol&gt;">Side pot 1: 800</);
});

test("GEN-10/CSP-13/CSP-09: the lobby shows each table's rake and the Caribbean jackpot terms (with the royal minimum)", () => {
  assert.equal(houseText({ variant: "holdem", rake: { bp: 500, cap: 300 } }), "rake 5% (cap 300)");
  assert.equal(houseText({ variant: "holdem", rake: { bp: 0, cap: 0 } }), "no rake");
  const terms = { wager: 100, reset: 1000000, paytable: { royal_flush_bp: 10000, straight_flush_bp: 1000,
    four_of_a_kind: 50000, full_house: 10000, flush: 5000 } };
  assert.equal(houseText({ variant: "caribbean", rake: { bp: 0, cap: 0 }, jackpot_terms: terms }),
    "jackpot wager 100 \u00b7 royal 100%, straight flush 10%, four 50,000, full house 10,000, flush 5,000 \u00b7 reset 1,000,000");
  // CSP-09: the royal flush minimum is shown as its own term, beside a reset that differs
  assert.equal(houseText({ variant: "caribbean", jackpot_terms: { ...terms, reset: 500000, royal_min: 1000000 } }),
    "jackpot wager 100 \u00b7 royal 100% (at least 1,000,000), straight flush 10%, four 50,000, full house 10,000, flush 5,000 \u00b7 reset 500,000");
  const row = tableListHTML([{ table: "t1", name: "<b>", variant: "holdem", structure: "no_limit",
    stakes: { blinds: [5, 10] }, seats: 6, players: 0, spectators: 0, rake: { bp: 250, cap: 0 } }], null);
  assert.match(row, /rake 2\.5%/);
});

test("only what the latest event brought in is animated (dealt cards, the board's new cards, chips in, chips won)", async () => {
  const { freshOf } = await import("../js/table-events.js");
  const t = { board: ["As", "Kd", "7h"] };
  assert.deepEqual(freshOf(t, { type: "dealt", seat: 2, cards: [null, null], up: ["Qs"] }), { seat: 2, cards: 3 });
  assert.deepEqual(freshOf(t, { type: "board", cards: ["As", "Kd", "7h", "2c"] }), { board: 1 });
  assert.deepEqual(freshOf(t, { type: "acted", seat: 1, action: "raise" }), { bet: 1 });
  assert.equal(freshOf(t, { type: "acted", seat: 1, action: "fold" }), null);
  assert.deepEqual(freshOf(t, { type: "pot_awarded", winners: { 3: 200 } }), { won: [3] });
  assert.equal(freshOf(t, { type: "chat", text: "hi" }), null);
});

test("BLIND-04: the over blind's question offers exactly two buttons, the amount on the one that posts it", () => {
  const html = actionsHTML(table({ variant: "draw", turn: { seat: 0, options: { fold: false, check: false, over_blind: 200, decline: true, stack: 5000 } } }));
  assert.match(html, /data-act="over_blind"[^>]*>Post over blind 200/);
  assert.match(html, /data-act="decline"[^>]*>No over blind/);
  assert.doesNotMatch(html, /data-act="(fold|check|call|raise|bet|draw)"/);
  assert.equal(actionsHTML(table({ variant: "draw", you: 1, turn: { seat: 0, options: { over_blind: 200, decline: true } } })), "");
});
