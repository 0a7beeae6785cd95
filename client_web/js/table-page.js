// The table page's controls: sitting down and adding chips (GEN-06: a `sit` at one's own seat
// is a rebuy, applied between hands), sending actions and pre-actions, leaving, sitting out,
// sharing, chat and muting.

import { actError, showBanner } from "./banner.js";
import { emit, RENDER } from "./bus.js";
import { plainError } from "./errors.js";
import { bigBet, chips } from "./format.js";
import { dispatch, page, store } from "./page.js";
import { maxBet } from "./state.js";
import { bindActions, bindShortcuts, streetKey } from "./ui/actions.js";
import { $, show } from "./ui/dom.js";
import { hello } from "./lobby-page.js";
import { codes, shareLink, tableWatchLink } from "./host-page.js";

/** The sit panel: a buy-in at a free seat, or chips added at one's own (`rebuy`). */
export function openSitPanel(seat, rebuy = false) {
  const t = store.state.table;
  if (!t) return;
  const bb = bigBet(t.variant, t.stakes);
  const lo = t.settings.min_buy_in ?? 20 * bb;
  const hi = t.settings.max_buy_in ?? 100 * bb;
  const balance = store.state.me ? Math.max(0, store.state.me.balance) : hi;
  const stack = rebuy && t.seats[seat] ? t.seats[seat].stack : 0;
  const fixed = !rebuy && t.settings.starting_stack ? t.settings.starting_stack : null; // a home game's
  const min = fixed ?? (rebuy ? 1 : lo);
  const max = fixed ?? (rebuy ? Math.max(0, hi - stack) : hi);
  const input = $("#buy-in");
  input.min = String(min);
  input.max = String(max);
  const wanted = rebuy ? Math.max(lo - stack, bb * 20) : 50 * bb;
  input.value = String(Math.max(min, Math.min(max, balance, wanted)));
  $("#buy-in-label").textContent = rebuy ? "Chips to add" : "Buy-in";
  $("#buy-in-hint").textContent = fixed ? `Everyone starts with ${chips(fixed)}; you have ${chips(balance)}.`
    : rebuy ? `Up to ${chips(max)} (the table allows ${chips(hi)} in front of you); you have ${chips(balance)}.`
    : `Between ${chips(lo)} and ${chips(hi)}; you have ${chips(balance)}.`;
  $("#sit-title").textContent = rebuy ? "Add chips" : `Sit at seat ${seat + 1}`;
  $("#sit-confirm").textContent = rebuy ? "Add the chips" : "Take the seat";
  $("#sit-panel").dataset.seat = String(seat);
  $("#sit-panel").dataset.rebuy = rebuy ? "1" : "";
  $("#sit-error").textContent = "";
  show($("#sit-panel"), true);
  input.focus();
}

async function submitSit(ev) {
  ev.preventDefault();
  const t = store.state.table;
  const panel = $("#sit-panel");
  const seat = Number(panel.dataset.seat);
  const rebuy = panel.dataset.rebuy === "1";
  const buyIn = Math.round(Number($("#buy-in").value));
  const code = codes.get(t.id);
  const fields = { table: t.id, seat, buy_in: buyIn };
  const answer = await page.socket.request("sit", code ? { ...fields, code } : fields);
  if (answer.type === "error") {
    $("#sit-error").textContent = plainError(answer);
    return;
  }
  show(panel, false);
  if (answer.pending && !rebuy) { // a home game: the host lets you in (or not)
    dispatch({ type: "local:home_note", table: t.id, note: null });
    dispatch({ type: "local:home_wait", table: t.id, seat });
    return;
  }
  dispatch({ type: "local:balance", delta: -buyIn });
  if (rebuy) {
    showBanner(answer.pending ? `${chips(buyIn)} will be added when this hand ends.`
      : `${chips(buyIn)} added to your stack.`, 3000);
  }
}

export async function sendAct(action, fields) {
  const t = store.state.table;
  if (!t) return;
  if (action === "draw") dispatch({ type: "local:discard", table: t.id, cards: fields.discard });
  const answer = await page.socket.request("act", { table: t.id, action, ...fields });
  if (answer.type === "error") {
    // offer the buttons again (the same HTML: force the redraw, the old one is disabled)
    page.actionsKey = "";
    $("#actions").__html = null;
    emit(RENDER);
    actError(plainError(answer));
  } else {
    actError("");
  }
}

function setupSeatButtons() {
  $("#leave-btn").addEventListener("click", async () => {
    const t = store.state.table;
    if (!t) return;
    dispatch({ type: "local:home_leave", table: t.id }); // not a host's removal
    const answer = await page.socket.request("leave", { table: t.id });
    const inHand = answer.pending === true; // in this hand: folded now, out at its end
    const practice = !!(t.settings && t.settings.practice); // issue 24: play money
    showBanner(answer.type !== "ok" ? plainError(answer) : practice
      ? "You leave the practice table: it closes (at the end of this hand) and the bots go home. Your balance never moved."
      : inHand
      ? "Your hand is folded (no need to wait for your turn); you leave when this hand ends and your chips go back to your balance."
      : "You left the table; your chips are back in your balance.", 3000);
  });
  $("#sitout-btn").addEventListener("click", async () => {
    const t = store.state.table;
    if (!t || t.you == null) return;
    const out = t.seats[t.you] && t.seats[t.you].sittingOut;
    const answer = await page.socket.request(out ? "sit_in" : "sit_out", { table: t.id });
    if (answer.type === "error") actError(plainError(answer));
  });
  $("#postbb-btn").addEventListener("click", async () => { // GEN-05: post rather than wait
    const t = store.state.table;
    if (!t || t.you == null) return;
    const answer = await page.socket.request("sit_in", { table: t.id, post_bb: true });
    if (answer.type === "error") actError(plainError(answer));
    else dispatch({ type: "local:posts_bb", table: t.id });
  });
  for (const id of ["#rebuy-btn", "#busted-rebuy"]) {
    $(id).addEventListener("click", () => {
      const t = store.state.table;
      if (t && t.you != null) openSitPanel(t.you, true);
    });
  }
  $("#busted-leave").addEventListener("click", () => $("#leave-btn").click());
  $("#share-btn").addEventListener("click", async () => {
    const t = store.state.table;
    if (!t) return;
    const link = shareLink(t) || tableWatchLink(t.id);
    try {
      await navigator.clipboard.writeText(link);
      showBanner(`Copied: ${link}`, 3000);
    } catch {
      showBanner(`Share this link: ${link}`, 8000);
    }
  });
}

function setupChat() {
  for (const [form, input] of [["#table-hello", "#table-hello-name"], ["#chat-hello", "#chat-hello-name"]]) {
    $(form).addEventListener("submit", (ev) => {
      ev.preventDefault();
      const name = $(input).value.trim();
      if (name) hello({ guest: name }, $("#act-error"));
    });
  }
  $("#chat-lines").addEventListener("click", async (ev) => {
    const btn = ev.target.closest && ev.target.closest("button.mute");
    const t = store.state.table;
    if (!btn || !t) return;
    const fields = { table: t.id, on: true };
    if (btn.dataset.muteSeat != null) fields.seat = Number(btn.dataset.muteSeat);
    else fields.name = btn.dataset.muteName;
    const answer = await page.socket.request("mute", fields);
    if (answer.type === "error") actError(plainError(answer));
    else showBanner("Muted: you will not see their chat any more.", 3000);
  });
  $("#chat-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const input = $("#chat-input");
    const text = input.value.trim();
    const t = store.state.table;
    if (!text || !t) return;
    const answer = await page.socket.request("chat", { table: t.id, text });
    $("#chat-error").textContent = answer.type === "error" ? plainError(answer) : "";
    if (answer.type !== "error") input.value = "";
  });
}

export function setupTable() {
  $("#felt").addEventListener("click", (ev) => {
    const sit = ev.target.closest("[data-sit]");
    if (sit) openSitPanel(Number(sit.dataset.sit));
  });
  $("#sit-panel").addEventListener("submit", submitSit);
  $("#sit-cancel").addEventListener("click", () => show($("#sit-panel"), false));
  setupSeatButtons();
  setupChat();
  bindActions($("#actions"), sendAct);
  bindShortcuts($("#actions"));
  $("#preactions").addEventListener("click", (ev) => {
    const btn = ev.target.closest("[data-pre]");
    const t = store.state.table;
    if (!btn || !t) return;
    const choice = btn.dataset.pre;
    page.preAction = page.preAction && page.preAction.choice === choice ? null
      : { choice, street: streetKey(t), bet: maxBet(t) };
    emit(RENDER);
  });
}
