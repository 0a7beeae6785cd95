// Unit tests of js/format.js (run: node --test client_web/tests/).
import assert from "node:assert/strict";
import { test } from "node:test";

import { actedText, bigBet, cardName, cardText, chips, stakesText, winText } from "../js/format.js";

test("chips are integers with thousands separators", () => {
  assert.equal(chips(1240), "1,240");
  assert.equal(chips(0), "0");
  assert.equal(chips(undefined), "0");
});

test("cards read with a suit symbol and a full name, never colour alone", () => {
  assert.equal(cardText("As"), "A\u2660");
  assert.equal(cardText("Th"), "10\u2665");
  assert.equal(cardName("Kd"), "king of diamonds");
  assert.equal(cardName("2c"), "two of clubs");
  assert.equal(cardText("bogus"), "?");
});

test("stakes labels per variant", () => {
  assert.equal(stakesText("holdem", { blinds: [50, 100] }), "50/100");
  assert.equal(stakesText("stud7", { ante: 10, bring_in: 25, small_bet: 50, big_bet: 100 }),
    "ante 10, bring-in 25, bets 50/100");
  assert.equal(stakesText("caribbean", { min: 100, max: 1000, jackpot_wager: 100 }),
    "ante 100\u20131,000, jackpot 100");
  assert.equal(bigBet("holdem", { blinds: [50, 100] }), 100);
  assert.equal(bigBet("stud7", { small_bet: 50, bring_in: 25 }), 50);
});

test("announcements", () => {
  assert.equal(winText("Alice", 1240, "flush, ace high", 0, 1), "Alice wins 1,240 with flush, ace high");
  assert.equal(winText("Bob", 300, null, 1, 2), "Bob wins 300 from side pot 1");
  assert.equal(actedText("Alice", "raise", 600), "Alice raises to 600");
  assert.equal(actedText("Bob", "fold", 0), "Bob folds");
});
