// issue 24, practice tables against bots: the lobby's request and the bots' mark on seats.
import assert from "node:assert/strict";
import { test } from "node:test";

import { seatFrom } from "../js/table-events.js";
import { practiceRequest } from "../js/ui/lobby.js";

test("a practice table of each game: the default stakes, one seat per bot and one for me", () => {
  const { request, buyIn } = practiceRequest("holdem", "3");
  assert.deepEqual(request, { variant: "holdem", structure: "no_limit", stakes: { blinds: [50, 100] },
    seats: 4, practice: true, bots: 3 });
  assert.equal(buyIn, 10000);
  const stud = practiceRequest("stud7", 2).request;
  assert.equal(stud.structure, "fixed_limit");
  assert.equal(stud.seats, 3);
  assert.equal(stud.bots, 2);
});

test("the bot count stays within the game's seats; Caribbean Stud may have none", () => {
  assert.equal(practiceRequest("holdem", "0").request.bots, 1); // a pot game needs an opponent
  assert.equal(practiceRequest("holdem", "42").request.bots, 9);
  assert.equal(practiceRequest("stud7", "42").request.seats, 8);
  const alone = practiceRequest("caribbean", "0").request;
  assert.deepEqual([alone.bots, alone.seats, alone.structure], [0, 1, undefined]);
});

test("a bot's seat is marked; a person's is not", () => {
  assert.equal(seatFrom({ seat: 2, name: "Bot Ada", stack: 10, bot: true }).bot, true);
  assert.equal(seatFrom({ seat: 0, name: "Ann", stack: 10 }).bot, false);
});
