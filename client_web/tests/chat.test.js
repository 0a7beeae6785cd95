import assert from "node:assert/strict";
import { test } from "node:test";

import { chatHTML } from "../js/ui/chat.js";

test("chat lines by others carry a mute button, mine do not", () => {
  const html = chatHTML([
    { name: "Alice", text: "hi", seated: true, seat: 0, from: null },
    { name: "Me", text: "yo", seated: true, seat: 2, from: null },
    { name: "<rail>", text: "nh", seated: false, seat: null, from: "<rail>" },
  ], 2, "Me");
  assert.match(html, /data-mute-seat="0"/);
  assert.doesNotMatch(html, /data-mute-seat="2"/);
  assert.match(html, /data-mute-name="&lt;rail&gt;"/);
  assert.equal(chatHTML([]).includes("No messages"), true);
});
