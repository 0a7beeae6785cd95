// The pre-actions read as the viewer's position: facing a bet "Fold", "Call N", "Call any";
// else "Check/Fold", "Check", "Call any" (node --test).
import assert from "node:assert/strict";
import { test } from "node:test";

import { initialState, reduce } from "../js/state.js";
import { owed, preActionChoices, preActionFor, preActionsHTML, preActionStands, streetKey }
  from "../js/ui/actions.js";

const T = "t1";
const seat = (i, name, extra = {}) => ({ seat: i, name, stack: 5000, bet: 0, state: "active",
  cards: ["??", "??"], up: [], ...extra });

function table(bets, you = 0, stacks = [5000, 5000, 5000]) {
  const s0 = { ...initialState(), opening: T, me: { name: "Alice", balance: 1000, token: "x" } };
  const s = reduce(s0, {
    type: "snapshot", table: T, seq: 1, variant: "holdem", structure: "no_limit",
    stakes: { blinds: [50, 100] }, board: [], pots: [], button: 0, turn: null, hand: "h1", you,
    seats: ["Alice", "Bob", "Carol"].map((n, i) => seat(i, n, { bet: bets[i], stack: stacks[i] })),
  });
  return s.table;
}

const keys = (t) => preActionChoices(t).map(([k]) => k);
const labels = (t) => preActionChoices(t).map(([, l]) => l);

test("with nothing to call: Check/Fold, Check, Call any", () => {
  const t = table([100, 100, 0]);
  assert.equal(owed(t), 0);
  assert.deepEqual(labels(t), ["Check/Fold", "Check", "Call any"]);
  assert.match(preActionsHTML(t, null), /data-pre="check"/);
});

test("facing a bet: Fold, Call with the amount owed, Call any (no Check a player cannot make)", () => {
  const t = table([50, 100, 0]); // Alice's small blind against the big blind
  assert.equal(owed(t), 50);
  assert.deepEqual(keys(t), ["check_fold", "call", "call_any"]);
  assert.deepEqual(labels(t), ["Fold", "Call 50", "Call any"]);
  const html = preActionsHTML(t, "call");
  assert.doesNotMatch(html, /data-pre="check"/);
  assert.match(html, /data-pre="call" aria-pressed="true">Call 50</);
});

test("a short stack is offered to call what it has", () => {
  const t = table([0, 400, 0], 0, [120, 5000, 5000]);
  assert.equal(owed(t), 120);
  assert.deepEqual(labels(t), ["Fold", "Call 120", "Call any"]);
});

test("Call N holds while the bet stays; a raise or a new street ends it; Call any holds", () => {
  const t = table([50, 100, 0]);
  const call = { choice: "call", street: streetKey(t), bet: 100 };
  const any = { choice: "call_any", street: streetKey(t), bet: 100 };
  assert.ok(preActionStands(call, t));
  const raised = table([50, 300, 0]);
  assert.ok(!preActionStands(call, raised), "a raise ends Call 50");
  assert.ok(preActionStands(any, raised), "Call any calls the raise too");
  const flop = { ...t, board: ["Ah", "Kd", "2c"] };
  assert.ok(!preActionStands(any, flop) && !preActionStands(call, flop));
});

test("what each choice becomes on the turn", () => {
  assert.equal(preActionFor("call", { call: 50, fold: true }), "call");
  assert.equal(preActionFor("call", { check: true }), "check");
  assert.equal(preActionFor("check_fold", { call: 50, fold: true }), "fold");
  assert.equal(preActionFor("check", { call: 50, fold: true }), null);
  assert.equal(preActionFor("call_any", { call: 300, fold: true }), "call");
});
