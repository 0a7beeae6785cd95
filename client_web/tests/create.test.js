// The create-table form's rules (js/create-rules.js): only combinations the server takes,
// each problem in plain words next to its field.
import assert from "node:assert/strict";
import { test } from "node:test";

import { createProblems, defaultBuyIns, MAX_SEATS, tableSettings } from "../js/create-rules.js";
import { createRequest } from "../js/ui/lobby.js";

const holdem = (extra = {}) => ({ variant: "holdem", structure: "no_limit", sb: "50", bb: "100", seats: "6",
  pause: "3", min_buy_in: "", max_buy_in: "", ...extra });

test("a good table has no problems; the default pause is the server's (not sent)", () => {
  assert.deepEqual(createProblems(holdem()), {});
  assert.deepEqual(createRequest(holdem()).settings, undefined);
  assert.deepEqual(createRequest(holdem({ pause: "5" })).settings, { pause: 5 });
  assert.deepEqual(tableSettings(holdem({ pause: "0", min_buy_in: "1000", max_buy_in: "2000" })),
    { pause: 0, min_buy_in: 1000, max_buy_in: 2000 });
});

test("blinds: the big blind at least the small blind, and at least 1", () => {
  assert.match(createProblems(holdem({ sb: "200", bb: "100" })).bb, /big blind must be at least the small blind/);
  assert.match(createProblems(holdem({ bb: "0", sb: "0" })).bb, /at least 1/);
  assert.match(createProblems(holdem({ sb: "2.5" })).sb, /whole number/);
  assert.match(createProblems(holdem({ bb: "" })).bb, /Enter the big blind/);
});

test("limits: fixed and spread need their bets, in order, and the blind covers them (BLIND-03)", () => {
  const fixed = holdem({ structure: "fixed_limit", small_bet: "100", big_bet: "50" });
  assert.match(createProblems(fixed).big_bet, /big bet must be at least the small bet/);
  assert.match(createProblems(holdem({ structure: "fixed_limit", small_bet: "200", big_bet: "400" })).bb,
    /big blind must be at least the small bet/);
  assert.match(createProblems(holdem({ structure: "spread_limit", min_bet: "100", max_bet: "50" })).max_bet,
    /max bet must be at least the min bet/);
  const stud = { variant: "stud7", structure: "fixed_limit", ante: "10", bring_in: "25", small_bet: "50",
    big_bet: "100", seats: "8" };
  assert.deepEqual(createProblems(stud), {});
  assert.match(createProblems({ ...stud, bring_in: "0" }).bring_in, /at least 1/);
  assert.match(createProblems({ ...stud, bring_in: "80" }).bring_in, /not be more than the small bet/);
});

test("seats within each game's maximum (GEN-07), Caribbean Stud from one player", () => {
  assert.equal(MAX_SEATS.caribbean, 9);
  assert.match(createProblems(holdem({ seats: "11" })).seats, /seats 2 to 10 players/);
  assert.match(createProblems({ ...holdem(), variant: "draw", seats: "9" }).seats, /2 to 8/);
  assert.match(createProblems({ ...holdem(), variant: "manila3", seats: "10" }).seats, /2 to 9/);
  assert.match(createProblems({ variant: "stud7", structure: "fixed_limit", ante: "1", bring_in: "2",
    small_bet: "4", big_bet: "8", seats: "9" }).seats, /2 to 8/);
  const csp = { variant: "caribbean", min: "100", max: "1000", seats: "1" };
  assert.deepEqual(createProblems(csp), {});
  assert.match(createProblems({ ...csp, seats: "10" }).seats, /1 to 9/);
  assert.match(createProblems({ ...csp, min: "1000", max: "100" }).max, /max ante must be at least the min ante/);
});

test("buy-ins: the minimum never above the maximum, the server's defaults counted in", () => {
  assert.deepEqual(defaultBuyIns(holdem()), { min: 2000, max: 10000 });
  assert.match(createProblems(holdem({ min_buy_in: "5000", max_buy_in: "4000" })).max_buy_in,
    /minimum buy-in \(5,000\) must not be more than the maximum \(4,000\)/);
  assert.match(createProblems(holdem({ min_buy_in: "20000" })).min_buy_in, /maximum \(10,000\)/);
  assert.deepEqual(createProblems(holdem({ max_buy_in: "3000" })), {});
  assert.match(createProblems(holdem({ max_buy_in: "1000" })).max_buy_in, /minimum buy-in \(2,000\)/);
  // a home game's starting stack is every buy-in: the limits are not sent
  const home = holdem({ private: "on", starting_stack: "3000", min_buy_in: "9000", max_buy_in: "1" });
  assert.deepEqual(createProblems(home), {});
  assert.deepEqual(createRequest(home).settings, { approve_seats: false, rebuys: false, starting_stack: 3000 });
});

test("the pause is 0 to 3600 seconds; a home game's clock at least 1", () => {
  assert.match(createProblems(holdem({ pause: "-1" })).pause, /0 to 3600 seconds/);
  assert.match(createProblems(holdem({ pause: "4000" })).pause, /0 to 3600/);
  assert.match(createProblems(holdem({ private: "on", action_clock: "0" })).action_clock, /1 to 3600/);
});
