// "A poker room people enjoy": the reducer and helpers behind the fixes (node --test).
import assert from "node:assert/strict";
import { test } from "node:test";

import { plainError } from "../js/errors.js";
import { initialState, reduce } from "../js/state.js";
import { actionsHTML, sliderStep } from "../js/ui/actions.js";
import { feltHTML, seatPositionNarrow } from "../js/ui/table.js";

const T = "t1";
const seat = (i, name, extra = {}) => ({ seat: i, name, stack: 5000, bet: 0, state: "waiting", cards: [], up: [], ...extra });

function open(extra = {}, you = 0) {
  const s0 = { ...initialState(), opening: T, me: { name: "Alice", balance: 1000, token: "x" } };
  return reduce(s0, {
    type: "snapshot", table: T, seq: 1, variant: "holdem", structure: "no_limit",
    stakes: { blinds: [50, 100] }, board: [], pots: [], button: 0, turn: null, hand: null, you,
    seats: [seat(0, "Alice"), seat(1, "Bob"), seat(2, "Carol")], ...extra,
  });
}

function run(s, events) {
  let seq = s.table.seq;
  for (const e of events) s = reduce(s, { table: T, seq: ++seq, ...e });
  return s;
}

test("Caribbean: a turn per seat at once; each player keeps their own until they act", () => {
  for (const you of [0, 1, 2]) {
    let s = open({ variant: "caribbean", structure: null, stakes: { min: 100, max: 1000 } }, you);
    s = run(s, [
      { type: "hand_started", hand: "h1", button: null, commitment: "x" },
      ...[0, 1, 2].map((i) => ({ type: "turn", seat: i, deadline: 1e10,
        options: i === you ? { ante: { min: 100, max: 1000 }, sit_out: true } : undefined })),
    ]);
    assert.equal(s.table.turn.seat, you, "the viewer's own turn, not the last one sent");
    assert.ok(actionsHTML(s.table).includes('data-act="ante"'));
    const other = (you + 1) % 3;
    s = run(s, [{ type: "acted", seat: other, action: "fold", amount: 0, stack: 5000 }]);
    assert.ok(actionsHTML(s.table).includes('data-act="ante"'), "another seat acting keeps mine");
    assert.deepEqual(Object.keys(s.table.turns).map(Number).sort(), [0, 1, 2].filter((i) => i !== other));
  }
});

test("a snapshot without a deadline keeps the one seen in the same hand", () => {
  let s = open({ variant: "caribbean", structure: null, hand: "h1" });
  s = run(s, [{ type: "turn", seat: 0, deadline: 1234, options: { play: 200, fold: true } }]);
  s = reduce(s, { type: "snapshot", table: T, seq: 9, variant: "caribbean", structure: null, stakes: {},
    board: [], pots: [], button: null, hand: "h1", you: 0, seats: [seat(0, "Alice")],
    turn: { seat: 0, deadline: 0, options: { play: 200, fold: true } } });
  assert.equal(s.table.turn.deadline, 1234);
});

test("Caribbean snapshot (wave 3): every seat still to decide gets its clock from its seat's deadline", () => {
  for (const you of [0, 1, null]) {
    const s = reduce({ ...initialState(), opening: T }, {
      type: "snapshot", table: T, seq: 5, variant: "caribbean", structure: null, stakes: {},
      board: [], pots: [], button: null, hand: "h1", you,
      seats: [seat(0, "Alice", { deadline: 2000 }), seat(1, "Bob", { deadline: 2000 }), seat(2, "Carol")],
      turn: you === 0 ? { seat: 0, deadline: 2000, options: { play: 200, fold: true } } : null,
    });
    assert.deepEqual(Object.keys(s.table.turns).map(Number).sort(), [0, 1]);
    assert.equal(s.table.turns[0].deadline, 2000);
    assert.equal(s.table.turns[1].deadline, 2000);
    assert.equal(s.table.turns[1].options, null, "another seat's clock, never its buttons");
    assert.equal(!!s.table.turns[0].options, you === 0);
    const html = feltHTML(s.table, { now: 1990 });
    assert.equal((html.match(/class="clock"/g) || []).length, 2, "a clock on both undecided seats");
    assert.ok(html.includes(">10s<"));
  }
});

test("Caribbean: a seat's ante (posted) stops its clock on every page; the others run on", () => {
  let s = open({ variant: "caribbean", structure: null, stakes: { min: 100, max: 1000 } }, 1);
  s = run(s, [
    { type: "hand_started", hand: "h1", button: null, commitment: "x" },
    ...[0, 1].map((i) => ({ type: "turn", seat: i, deadline: 1e10,
      options: i === 1 ? { ante: { min: 100, max: 1000 }, sit_out: true } : undefined })),
    { type: "posted", seat: 0, kind: "ante", amount: 100 },
  ]);
  assert.deepEqual(Object.keys(s.table.turns).map(Number), [1]);
  assert.equal(s.table.turn.seat, 1);
  assert.equal(s.table.seats[0].bet, 100);
});

test("last-action labels end with their street; all-in reads all-in; a fold only 'Folded'", () => {
  let s = open();
  s = run(s, [
    { type: "hand_started", hand: "h1", button: 0, commitment: "x" },
    ...[0, 1, 2].map((i) => ({ type: "dealt", seat: i, cards: [null, null], up: [] })),
    { type: "acted", seat: 0, action: "raise", amount: 5000, stack: 0 },
    { type: "acted", seat: 1, action: "call", amount: 5000, stack: 0 },
    { type: "acted", seat: 2, action: "fold", amount: 0, stack: 5000 },
  ]);
  assert.equal(s.table.seats[0].action, "all-in");
  assert.equal(s.table.seats[2].action, null);
  assert.equal(s.table.seats[2].state, "folded");
  s = run(s, [{ type: "pots", pots: [{ amount: 10000, eligible: [0, 1] }] }, { type: "board", cards: ["As", "Kd", "2c"] }]);
  assert.equal(s.table.seats[0].action, null, "a new street: no label of the last one");
});

test("leaving a table gives its chips back to the balance; a jackpot payout counts too", () => {
  let s = open();
  s = run(s, [{ type: "left", seat: 0, name: "Alice" }]);
  assert.equal(s.me.balance, 6000);
  s = reduce(s, { type: "balance", balance: 4321 });
  assert.equal(s.me.balance, 4321);
  let c = open({ variant: "caribbean", structure: null });
  c = reduce(c, { type: "jackpot", pool: 2_000_000 });
  c = run(c, [{ type: "settled", results: { 0: { ante: 100, play: 200, jackpot: 0, hand: "royal flush", stack: 5300 } } }]);
  assert.ok(c.table.announcements[0].includes("jackpot paid to the balance"));
  assert.ok(!c.table.announcements[0].includes("jackpot 0"));
  c = reduce(c, { type: "jackpot", pool: 1_000_000, table: T });
  assert.equal(c.jackpotWin.amount, 1_000_000);
  assert.equal(c.me.balance, 1_001_000);
  assert.ok(c.table.announcements.some((a) => a.includes("wins 1,000,000")));
});

test("a table that no longer exists is shown as gone, not as a ghost", () => {
  let s = open();
  s = reduce(s, { type: "local:gone", table: T });
  assert.equal(s.table, null);
  assert.deepEqual(s.gone, { table: T });
  s = reduce(s, { type: "local:open_table", table: "t2" });
  assert.equal(s.gone, null);
});

test("refusals read as plain words, never as codes or rule ids", () => {
  assert.ok(!plainError({ code: "bad_stakes", message: "need 0 < ante_min <= ante_max" }).includes("ante_min"));
  assert.ok(!plainError({ code: "bad_action", message: "the last blind (BLIND-03)" }).includes("BLIND"));
  assert.equal(plainError({ code: "unknown_table" }), "This table no longer exists.");
  assert.equal(plainError({ code: "something_new", message: "nice words" }), "Nice words.");
});

test("no dealer button in stud; slider steps of the small unit; only all-in reads All-in", () => {
  let s = open({ variant: "stud7", structure: "fixed_limit", button: 0 });
  assert.ok(!feltHTML(s.table, {}).includes("dealer-button"));
  s = open({ button: 0, hand: "h1" });
  assert.ok(feltHTML(s.table, {}).includes("dealer-button"));
  assert.equal(sliderStep(s.table, { min: 200, max: 5000 }), 50);
  s = run(s, [{ type: "turn", seat: 0, deadline: 1e10, options: { fold: true, call: 100, raise: { min: 5000, max: 5000 } } }]);
  const html = actionsHTML(s.table);
  assert.ok(html.includes("All-in") && !html.includes("Raise to"), html);
});

test("ten seats on a phone felt stay inside it, apart", () => {
  const w = 284, h = 540;
  const ps = Array.from({ length: 10 }, (_, i) => seatPositionNarrow(i, 10, 0, w, h));
  for (const p of ps) assert.ok(p.x >= 0 && p.x <= 100 && p.y >= 0 && p.y <= 100);
  for (let i = 0; i < ps.length; i++) {
    for (let j = i + 1; j < ps.length; j++) {
      const dx = Math.abs(ps[i].x - ps[j].x) * w / 100, dy = Math.abs(ps[i].y - ps[j].y) * h / 100;
      assert.ok(dx >= 76 || dy >= 90, `${i} and ${j} overlap`);
    }
  }
});

test("the winner's best five cards are highlighted on the board and at the seat", async () => {
  const { best5 } = await import("../js/hands.js");
  assert.deepEqual(best5(["As", "Ad", "Ah", "Kd", "Qs", "Kc"]).sort(), ["Ad", "Ah", "As", "Kc", "Kd"]);
  assert.deepEqual(best5(["2h", "3d", "4s", "5c", "Ah", "Kd", "9s"]).sort(), ["2h", "3d", "4s", "5c", "Ah"].sort());
  let s = open({ hand: "h1" });
  s = run(s, [
    { type: "board", cards: ["Ah", "7s", "8d", "9h", "Jc"] },
    { type: "showdown", seat: 0, cards: ["As", "Ad"], hand: "h1", value: "three of a kind, aces" },
    { type: "pot_awarded", pot: 0, amount: 400, winners: { 0: 400 }, odd_chip: null },
    { type: "hand_ended", hand: "h1", stacks: { 0: 5200 }, reveal: [] },
  ]);
  const html = feltHTML(s.table, {});
  for (const c of ["As", "Ad", "Ah", "Jc", "9h"]) assert.match(html, new RegExp(`best" data-card="${c}"`));
  assert.doesNotMatch(html, /best" data-card="7s"/);
});

test("two guests of one name are told apart in the chat by their tags", async () => {
  const { chatHTML } = await import("../js/ui/chat.js");
  let s = open();
  s = run(s, [
    { type: "seated", seat: 1, name: "Bob", stack: 1000, guest: true, tag: "aa11" },
    { type: "seated", seat: 2, name: "Bob", stack: 1000, guest: true, tag: "bb22" },
    { type: "chat", seat: 1, text: "hi" },
    { type: "chat", seat: 2, text: "hello" },
    { type: "chat", name: "Bob", guest: true, tag: "cc33", text: "watching" },
  ]);
  const html = chatHTML(s.table.chat, 0, "Alice");
  for (const tag of ["aa11", "bb22", "cc33"]) assert.ok(html.includes(`#${tag}`), tag);
});

test("once the server pushes balances, local guesses stop (no double count after a sit)", () => {
  let s = { ...initialState(), me: { name: "Alice", balance: 10000, token: "x" } };
  s = reduce(s, { type: "balance", balance: 7000 }); // the server's push after the buy-in
  s = reduce(s, { type: "local:balance", delta: -3000 }); // the sit's ok arrives after it
  assert.equal(s.me.balance, 7000);
});
