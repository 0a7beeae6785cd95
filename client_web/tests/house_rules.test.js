// The home games' house rules in the client (docs/rules.md section 4): the straddle's and the
// run-it-twice questions, the answers in the log, the second board and its halves, the
// "house rule" labels, the host's settings and the create form's fields.
import assert from "node:assert/strict";
import { test } from "node:test";

import { changeRequest, homeCreateFields, houseRulesText, nextText } from "../js/home.js";
import { initialState, reduce } from "../js/state.js";
import { actionsHTML } from "../js/ui/actions.js";
import { changeFieldsHTML, homeStatusHTML } from "../js/ui/host.js";
import { feltHTML } from "../js/ui/table.js";

const T = "t1";
const SETTINGS = { straddle: true, run_twice: true, approve_seats: false };

function snapshot(extra = {}) {
  return {
    type: "snapshot", table: T, seq: 3, variant: "holdem", structure: "no_limit",
    stakes: { blinds: [50, 100] }, name: "Home", board: [], pots: [], button: null, turn: null,
    hand: null, you: 0, settings: SETTINGS,
    seats: [
      { seat: 0, name: "Alice", stack: 1000, bet: 0, state: "waiting", cards: [], up: [] },
      { seat: 1, name: "Bob", stack: 1000, bet: 0, state: "waiting", cards: [], up: [] },
      { seat: 2, name: "Carol", stack: 1000, bet: 0, state: "waiting", cards: [], up: [] },
    ],
    ...extra,
  };
}

function run(events) {
  let s = reduce({ ...initialState(), opening: T }, snapshot());
  let seq = s.table.seq;
  for (const e of events) {
    seq += 1;
    s = reduce(s, { table: T, seq, ...e });
  }
  return s;
}

const ALL_IN = [
  { type: "hand_started", hand: "t1.1", button: 2, commitment: "x" },
  { type: "posted", seat: 0, kind: "blind", amount: 50 },
  { type: "posted", seat: 1, kind: "blind", amount: 100 },
  { type: "turn", seat: 2, deadline: 1e10 },
  { type: "posted", seat: 2, kind: "straddle", amount: 200 },
  { type: "dealt", seat: 0, cards: ["As", "Ad"], up: [] },
  { type: "dealt", seat: 1, cards: [null, null], up: [] },
  { type: "dealt", seat: 2, cards: [null, null], up: [] },
  { type: "acted", seat: 0, action: "raise", amount: 1000, stack: 0 },
  { type: "acted", seat: 1, action: "call", amount: 1000, stack: 0 },
  { type: "acted", seat: 2, action: "call", amount: 1000, stack: 0 },
  { type: "pots", pots: [{ amount: 3000, eligible: [0, 1, 2] }] },
  { type: "turn", seat: 0, deadline: 1e10, options: { fold: false, check: false, run_twice: true, run_once: true, stack: 0 } },
];

test("STRAD-01: the straddle's question is labelled a straddle and a house rule", () => {
  const t = { id: T, variant: "holdem", you: 2, ended: false, seats: [],
    turn: { seat: 2, options: { fold: false, check: false, over_blind: 200, decline: true, stack: 1000, straddle: true } } };
  const html = actionsHTML(t);
  assert.match(html, /house rule/);
  assert.match(html, /data-act="over_blind"[^>]*>Straddle 200/);
  assert.match(html, /data-act="decline"[^>]*>No straddle/);
  assert.doesNotMatch(html, /over blind/i);
});

test("RIT-02: the run-it-twice question offers exactly its two answers, to the asked player only", () => {
  const s = run(ALL_IN);
  const html = actionsHTML(s.table);
  assert.match(html, /data-act="run_twice"[^>]*>Run it twice/);
  assert.match(html, /data-act="run_once"[^>]*>Run it once/);
  assert.match(html, /house rule/);
  assert.doesNotMatch(html, /data-act="(fold|check|call|raise|bet)"/);
  assert.equal(actionsHTML({ ...s.table, you: 1 }), "");
});

test("RIT-03/RIT-04: the answers are logged, the second board is drawn below the first, its halves paid", () => {
  const s = run([...ALL_IN,
    { type: "acted", seat: 0, action: "run_twice", amount: 0, stack: 0 },
    { type: "acted", seat: 1, action: "run_twice", amount: 0, stack: 0 },
    { type: "acted", seat: 2, action: "run_twice", amount: 0, stack: 0, timeout: false },
    { type: "board", cards: ["2c", "7h", "9d"] },
    { type: "board", cards: ["2c", "7h", "9d", "Jc"] },
    { type: "board", cards: ["2c", "7h", "9d", "Jc", "3s"] },
    { type: "board", cards: ["Kc", "4h", "8d"], run: 2 },
    { type: "board", cards: ["Kc", "4h", "8d", "Tc", "5s"], run: 2 },
    { type: "pot_awarded", pot: 0, amount: 1500, winners: { 0: 1500 }, odd_chip: null },
    { type: "pot_awarded", pot: 0, amount: 1500, winners: { 2: 1500 }, odd_chip: null, run: 2 },
  ]);
  const t = s.table;
  assert.deepEqual(t.board, ["2c", "7h", "9d", "Jc", "3s"]);
  assert.deepEqual(t.board2, ["Kc", "4h", "8d", "Tc", "5s"]);
  assert.equal(t.seats[0].stack, 1500);
  assert.equal(t.seats[2].stack, 1500);
  const log = t.log.map((l) => l.text || l).join("\n");
  assert.match(log, /Alice agrees to run it twice \(house rule\)/);
  assert.match(log, /Second board: Carol 1,500 \(half of the pot\)/);
  assert.match(log, /First board: Alice wins 1,500/);
  assert.match(log, /Carol posts straddle 200/);
  const felt = feltHTML(t, {});
  assert.match(felt, /class="board second-run"[^>]*aria-label="second board/);
  assert.match(felt, /2nd board/);
  const fresh = run([...ALL_IN.slice(0, 1)]);
  assert.doesNotMatch(feltHTML(fresh.table, {}), /second-run/);
});

test("RIT-02: a no ends the question; no answer is logged as such", () => {
  const s = run([...ALL_IN, { type: "acted", seat: 0, action: "run_once", amount: 0, stack: 0, timeout: true }]);
  const log = s.table.log.map((l) => l.text || l).join("\n");
  assert.match(log, /Alice runs it once \(no answer\) \(house rule\)/);
  assert.equal(s.table.seats[0].action, "run once");
});

test("house rule labels: the home game's status line names the rules on", () => {
  assert.equal(houseRulesText(SETTINGS), "House rules: straddle, run it twice");
  assert.equal(houseRulesText({ straddle: false }), "");
  const html = homeStatusHTML({ host: { name: "Ann" }, settings: { run_twice: true } });
  assert.match(html, /badge house-rules">House rules: run it twice/);
});

test("the host's settings offer the house rules at Hold'em and Manila, and send only a change", () => {
  const t = { variant: "holdem", stakes: { blinds: [50, 100] }, settings: { straddle: true }, host: { rebuys: true, approveSeats: true } };
  const html = changeFieldsHTML(t);
  assert.match(html, /name="straddle" checked/);
  assert.match(html, /name="run_twice">/);
  assert.doesNotMatch(changeFieldsHTML({ ...t, variant: "stud7", stakes: { bring_in: 5 } }), /straddle/);
  assert.deepEqual(changeRequest(t, { straddle: true, run_twice: true }), { settings: { run_twice: true } });
  assert.deepEqual(changeRequest(t, { straddle: false }), { settings: { straddle: false } });
  assert.match(nextText({ settings: { run_twice: true } }, t), /run it twice on \(house rule\)/);
});

test("the create form sends a house rule only for a private Hold'em or Manila game", () => {
  assert.deepEqual(homeCreateFields({ private: "on", variant: "holdem", straddle: "on", rebuys: "on" }).settings,
    { approve_seats: false, rebuys: true, straddle: true });
  assert.equal(homeCreateFields({ private: "on", variant: "draw", straddle: "on" }).settings.straddle, undefined);
  assert.deepEqual(homeCreateFields({ variant: "holdem", straddle: "on" }), {});
});

test("sit out next hand: ticked during a hand, the player plays it out; the button says so", async () => {
  const { sitOutLabel } = await import("../js/format.js");
  assert.equal(sitOutLabel({ sittingOut: false }, true), "Sit out next hand");
  assert.equal(sitOutLabel({ sittingOut: true }, true), "Sitting out next hand \u2713 (undo)");
  assert.equal(sitOutLabel({ sittingOut: true }, false), "I'm back");
  assert.equal(sitOutLabel({ sittingOut: false }, false), "Sit out");
});

test("GEN-05: back after missing the big blind, the seat waits for it (sat_in wait_for_bb)", () => {
  let s = run([{ type: "sat_out", seat: 2 }]);
  assert.equal(s.table.seats[2].sittingOut, true);
  s = reduce(s, { table: T, seq: s.table.seq + 1, type: "sat_in", seat: 2, wait_for_bb: true });
  assert.equal(s.table.seats[2].sittingOut, false);
  assert.equal(s.table.seats[2].waitsForBigBlind, true);
  s = reduce({ ...s, table: { ...s.table, you: 2 } }, { type: "local:posts_bb", table: T });
  assert.equal(s.table.seats[2].postsBigBlind, true);
  s = reduce(s, { table: T, seq: s.table.seq + 1, type: "hand_started", hand: "t1.2", button: 0, commitment: "x" });
  s = reduce(s, { table: T, seq: s.table.seq + 1, type: "posted", seat: 2, kind: "blind", amount: 100 });
  assert.equal(s.table.seats[2].waitsForBigBlind, false);
  assert.equal(s.table.seats[2].postsBigBlind, false);
});

test("SHOWWIN-01: the uncontested winner is asked to show, labelled a house rule; the choice is logged", () => {
  const t = { id: T, variant: "draw", you: 1, ended: false, seats: [],
    turn: { seat: 1, options: { fold: false, check: false, show: true, muck: true, stack: 900 } } };
  const html = actionsHTML(t);
  assert.match(html, /data-act="show"[^>]*>Show cards/);
  assert.match(html, /data-act="muck"[^>]*>Don't show/);
  assert.match(html, /house rule/);
  assert.doesNotMatch(html, /data-act="(fold|check|call)"/);
  const s = run([{ type: "acted", seat: 1, action: "muck", amount: 0, stack: 1000, timeout: true }]);
  assert.match(s.table.log.map((l) => l.text || l).join("\n"), /Bob does not show \(no answer\)/);
  const form = changeFieldsHTML({ variant: "draw", stakes: { blinds: [5, 10] }, settings: {}, host: {} });
  assert.match(form, /name="show_uncontested"/);
  assert.doesNotMatch(form, /name="straddle"/);
  assert.deepEqual(homeCreateFields({ private: "on", variant: "stud7", show_uncontested: "on" }).settings,
    { approve_seats: false, rebuys: false, show_uncontested: true });
});

test("RIT-03 in the replayer: a recorded second run is the second board, not the first", async () => {
  const { replayFrames } = await import("../js/replay.js");
  const record = { hand: "t1.1", table: "t1", variant: "holdem", num_seats: 2, button: 1,
    stakes: { blinds: [5, 10] }, settings: { run_twice: true }, viewer: null,
    players: { 0: { name: "A", stack: 100 }, 1: { name: "B", stack: 100 } },
    events: [
      { e: "HandStarted", hand: "t1.1", button: 1 },
      { e: "BoardDealt", cards: ["2c", "7h", "9d", "Jc", "3s"], board: ["2c", "7h", "9d", "Jc", "3s"] },
      { e: "BoardDealt", cards: ["Kc", "4h", "8d", "Tc", "5s"], board: ["Kc", "4h", "8d", "Tc", "5s"], run: 1 },
      { e: "PotAwarded", pot: 0, amount: 100, winners: { 0: 100 } },
      { e: "PotAwarded", pot: 0, amount: 100, winners: { 1: 100 }, run: 1 },
      { e: "HandEnded", hand: "t1.1", stacks: { 0: 100, 1: 100 } },
    ] };
  const last = replayFrames(record).at(-1).table;
  assert.deepEqual(last.board, ["2c", "7h", "9d", "Jc", "3s"]);
  assert.deepEqual(last.board2, ["Kc", "4h", "8d", "Tc", "5s"]);
  assert.ok(last.announcements.some((a) => a.startsWith("Second board: B 100")));
});
