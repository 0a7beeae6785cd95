// Unit tests of js/tournament-format.js (issue 27; docs/rules.md TOUR-11/12 places and prizes,
// TOUR-04/06/08/14 the seat notices). Run: node --test client_web/tests/.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  buyInText, clockLeft, clockText, inviteLink, levelText, ordinal, resultText, seatNotice,
  sitAndGoRequest, tableNumber, tournamentOfTable, tournamentRoute,
} from "../js/tournament-format.js";

test("places read as ordinals, the teens included", () => {
  assert.deepEqual([1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111].map(ordinal),
    ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st", "111th"]);
});

test("TOUR-11/12: the finishing line names the place, the field and the prize", () => {
  assert.equal(resultText({ place: 7, entrants: 27, prize: 1200 }), "You finished 7th of 27: 1,200 chips");
  assert.equal(resultText({ place: 3, entrants: 3, prize: 0 }), "You finished 3rd of 3: no prize");
  assert.match(resultText({ place: 5, entrants: 40, prize: null }), /^You finished 5th of 40: your prize is known/);
});

test("the level clock counts down in m:ss, h:mm:ss past the hour, nothing without a clock", () => {
  assert.equal(clockText(605), "10:05");
  assert.equal(clockText(0.2), "0:01");
  assert.equal(clockText(-3), "0:00");
  assert.equal(clockText(3725), "1:02:05");
  assert.equal(clockText(null), "");
  assert.equal(clockText(Infinity), "");
  assert.equal(clockLeft(240, 1000, 31000), 210);
  assert.equal(clockLeft(10, 0, 60000), 0);
  assert.equal(clockLeft(null, 0, 5), null);
});

test("a level in words: stakes and length", () => {
  const level = { number: 3, game: "holdem", structure: "no_limit", stakes: { blinds: [50, 100], ante: 10 }, minutes: 4, hands: null };
  assert.equal(levelText(level, "holdem"), "Level 3 \u00b7 blinds 50/100, ante 10 \u00b7 4 min");
  assert.equal(levelText({ ...level, game: "stud7", stakes: { ante: 5, bring_in: 10, small_bet: 20, big_bet: 40 }, minutes: null, hands: 12 }, "holdem"),
    "Level 3 \u00b7 Seven Card Stud \u00b7 ante 5, bring-in 10, bets 20/40 \u00b7 12 hands");
  assert.equal(levelText(null), "");
});

test("tournament tables: their number and their tournament from the id", () => {
  assert.equal(tableNumber("T1-abcd1234.2"), 2);
  assert.equal(tableNumber("t12"), null);
  assert.equal(tournamentOfTable("T1-abcd1234.2"), "T1-abcd1234");
  assert.equal(tournamentOfTable("t3-xyz"), null);
});

test("TOUR-04/06/08/14: each seat says why", () => {
  assert.equal(seatNotice({ table: "T1-a.2", why: "balance" }), "Moved to table 2 to balance the tables.");
  assert.equal(seatNotice({ table: "T1-a.3", why: "break" }), "Moved to table 3: your table was broken up.");
  assert.match(seatNotice({ table: "T1-a.1", why: "start" }), /started: you are at table 1/);
  assert.match(seatNotice({ table: "T1-a.1", why: "re_entry" }), /back in/);
  assert.match(seatNotice({ table: "T1-a.4", why: "restore" }), /restored .* table 4/);
  assert.match(seatNotice({ table: "T1-a.5", why: "away" }), /away .* now at table 5/);
});

test("routes: the page, the tab and a private tournament's invite link", () => {
  assert.deepEqual(tournamentRoute("#/tournament/T1-ab", ""), { view: "tournament", id: "T1-ab", invite: null });
  assert.deepEqual(tournamentRoute("#/tournament/T1-ab?invite=xy9", ""), { view: "tournament", id: "T1-ab", invite: "xy9" });
  assert.deepEqual(tournamentRoute("#/tournaments", ""), { view: "lobby", tab: "tournaments" });
  assert.deepEqual(tournamentRoute("", "?tournament=T2-cd&invite=k3"), { view: "tournament", id: "T2-cd", invite: "k3" });
  assert.equal(tournamentRoute("#/", "?tournament=T2-cd&invite=k3"), null, "a later click on the lobby wins");
  assert.equal(tournamentRoute("#/table/t1", ""), null);
  assert.equal(tournamentRoute("#/tournament/bad id!", ""), null);
  const link = inviteLink("http://10.0.0.5:8000/", "T2-cd", "k3");
  assert.equal(link, "http://10.0.0.5:8000/?tournament=T2-cd&invite=k3");
  assert.deepEqual(tournamentRoute("", new URL(link).search), { view: "tournament", id: "T2-cd", invite: "k3" });
});

test("the sit-and-go form: its request, and the problems said before it goes", () => {
  const { request, problems } = sitAndGoRequest({ name: " Friday ", game: "holdem", structure: "no_limit",
    buy_in: "100", fee: "10", capacity: "3", starting_stack: "300", preset: "hyper", private: "on" });
  assert.deepEqual(problems, {});
  assert.deepEqual(request, { name: "Friday", game: "holdem", structure: "no_limit", kind: "sng",
    buy_in: 100, fee: 10, capacity: 3, private: true,
    settings: { starting_stack: 300, seats: 3, preset: "hyper" } });
  const bad = sitAndGoRequest({ name: "", buy_in: "-1", fee: "", capacity: "11", starting_stack: "0" });
  assert.deepEqual(Object.keys(bad.problems).sort(), ["buy_in", "capacity", "fee", "name", "starting_stack"]);
  assert.equal(bad.request.settings.preset, "regular");
  assert.equal(buyInText({ buy_in: 1000, fee: 100 }), "1,000 + 100");
  assert.equal(buyInText({ buy_in: 0, fee: 0 }), "Free");
});
