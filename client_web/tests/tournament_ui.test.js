// Unit tests of js/ui/tournaments.js (issue 27): the HTML of the Tournaments list, the
// tournament page and the table's bar, from plain data. Run: node --test client_web/tests/.
import assert from "node:assert/strict";
import { test } from "node:test";

import { resultBannerHTML, tournamentListHTML, tournamentPageHTML, tourneyBarHTML } from "../js/ui/tournaments.js";

const ENTRY = { id: "T1-ab", name: "<b>Fri</b>", game: "holdem", structure: "no_limit", kind: "sng",
  state: "registering", buy_in: 100, fee: 10, entrants: 2, capacity: 3, starts_at: null, level: 0,
  players_left: 0, private: false };

test("the list: names escaped, Register or Unregister by entry, refusals in words", () => {
  const html = tournamentListHTML([ENTRY], new Set(), { "T1-ab": "This tournament is full." });
  assert.ok(html.includes("&lt;b&gt;Fri&lt;/b&gt;") && !html.includes("<b>Fri"));
  assert.match(html, /data-register="T1-ab"/);
  assert.match(html, /100 \+ 10/);
  assert.match(html, /2\/3/);
  assert.match(html, /role="alert">This tournament is full\./);
  assert.match(tournamentListHTML([ENTRY], new Set(["T1-ab"]), {}), /data-unregister="T1-ab"/);
  assert.doesNotMatch(tournamentListHTML([{ ...ENTRY, state: "running" }], new Set(), {}), /data-register/);
  assert.match(tournamentListHTML([], new Set(), {}), /No tournaments here yet/);
});

const FINISHED = { ...ENTRY, name: "Fri", state: "finished", starting_stack: 300, entrants: 3,
  players_left: 0, average_stack: 0, pool: 300, level: null, next_level: null, on_break: false,
  clock_left: null, late_until: null, payouts: [[1, 300]],
  places: [[1, "Bob", 300], [2, "Cy", 0], [2, "Ann", 0]], tables: [],
  you: { entered: true, stack: null, table: null, seat: null, place: 2, prize: 0 } };

test("TOUR-11/12: a finished tournament's page names the winner, the places and the payouts", () => {
  const html = tournamentPageHTML(FINISHED, { left: null, at: 0 }, 0, { registered: true, result: null, error: "", inviteUrl: "" });
  assert.match(html, /Won by <strong>Bob<\/strong>: 300 chips/);
  assert.match(html, /<th scope="row">1st<\/th><td>300<\/td>/);
  assert.equal((html.match(/<th scope="row">2nd<\/th>/g) || []).length, 2, "a tie shares the place");
  assert.match(html, /Your place<\/dt><dd>2nd of 3/);
  assert.doesNotMatch(html, /data-register|data-unregister/);
});

test("a running tournament's page: the level, its clock as read, the next level, the tables", () => {
  const running = { ...FINISHED, state: "running", players_left: 3, average_stack: 300, places: [],
    level: { number: 2, game: "holdem", structure: "no_limit", stakes: { blinds: [5, 10] }, minutes: 4, hands: null },
    next_level: { number: 3, game: "holdem", structure: "no_limit", stakes: { blinds: [10, 20] }, minutes: 4, hands: null },
    clock_left: 200, tables: [["T1-ab.1", 3]],
    you: { entered: true, stack: 280, table: "T1-ab.1", seat: 0, place: null, prize: null } };
  const html = tournamentPageHTML(running, { left: 200, at: 1000 }, 31000, { registered: true, result: null, error: "", inviteUrl: "" });
  assert.match(html, /Level 2 · blinds 5\/10 · 4 min/);
  assert.match(html, /data-left="200" data-at="1000">2:50</);
  assert.match(html, /Level 3 · blinds 10\/20/);
  assert.match(html, /href="#\/table\/T1-ab.1\/watch">Table 1</);
  assert.match(html, /280 <a href="#\/table\/T1-ab.1">table 1<\/a>/);
});

test("the table's bar and the finishing banner", () => {
  const bar = tourneyBarHTML("T1-ab", { ...FINISHED, state: "running", players_left: 2, level: { number: 1, game: "holdem", stakes: { blinds: [3, 6] }, minutes: 4 } },
    { left: 60, at: 0 }, 0, "Moved to table 2 to balance the tables.");
  assert.match(bar, /href="#\/tournament\/T1-ab">Fri: standings/);
  assert.match(bar, /Level 1 · blinds 3\/6 · 4 min · <strong class="tourney-clock"[^>]*>1:00<\/strong> · 2 of 3 left/);
  assert.match(bar, /class="moved" role="status">Moved to table 2/);
  const over = tourneyBarHTML("T1-ab", FINISHED, null, 0, "Moved to table 2 to balance the tables.");
  assert.match(over, /Finished: won by/);
  assert.doesNotMatch(over, /Moved to table 2/); // an old move is no news once it is over
  const banner = resultBannerHTML({ tournament: "T1-ab", place: 1, prize: 300, entrants: 3 }, "Fri");
  assert.match(banner, /You finished 1st of 3: 300 chips/);
  assert.match(banner, /href="#\/tournament\/T1-ab"/);
});
