// Rendering the page from `store.state`: the top bar (jackpot meter, who you are) and the
// table view (felt, action bar, pre-actions, chip controls, panels); the banner is js/banner.js.

import { actError } from "./banner.js";
import { chips, jackpotTermsText, sitOutLabel } from "./format.js";
import { dispatch, page, store } from "./page.js";
import { actionsHTML, preActionFor, preActionsHTML, preActionStands } from "./ui/actions.js";
import { chatHTML } from "./ui/chat.js";
import { $, esc, setHTML, show } from "./ui/dom.js";
import { localHistoryHTML, serverHistoryHTML } from "./ui/history.js";
import { meHTML } from "./ui/lobby.js";
import { feltHTML, titleText } from "./ui/table.js";
import { sendAct } from "./table-page.js";

let lastAnnounced = "";

export function renderTop(state) {
  const jp = state.jackpot;
  $("#jackpot-pool").textContent = jp ? chips(jp.pool) : "\u2014";
  show($("#jackpot"), !!jp); // unknown until a Caribbean table or the lobby tells
  $("#jackpot-split").textContent = jp && jp.major != null ? `major ${chips(jp.major)} · minor ${chips(jp.minor)}` : "";
  setHTML($("#me"), meHTML(state.me));
  const win = $("#jackpot-win");
  if (state.jackpotWin) {
    // the amount may come a moment later (the payout, from the pool's drop): redrawn then
    const w = state.jackpotWin;
    const what = `hits the jackpot${w.hand ? ` with ${esc(w.hand)}` : ""}${w.amount ? ` and wins ${chips(w.amount)}` : ""}`;
    setHTML(win, `<div class="burst"><p class="big">JACKPOT!</p><p>${esc(w.name)} ${what}</p></div>`);
  }
  if (state.jackpotWin && win.hidden && !win.dataset.shown) {
    win.dataset.shown = "1";
    show(win, true);
    setTimeout(() => {
      delete win.dataset.shown;
      show(win, false);
      dispatch({ type: "local:seen_jackpot_win" });
    }, 6000);
  }
}

function renderGone() {
  $("#table-title").textContent = "Table closed";
  $("#table-meta").textContent = "";
  for (const id of ["#leave-btn", "#sitout-btn", "#rebuy-btn", "#watch-badge", "#share-btn", "#busted"]) {
    show($(id), false);
  }
  setHTML($("#actions"), "");
}

/** The table's top row: title, badges, sit out, add chips, leave; the busted prompt. */
function renderTableTop(state, t) {
  const { title, meta } = titleText(t);
  $("#table-title").textContent = title;
  $("#table-meta").textContent = meta;
  const watch = page.route.watch;
  show($("#watch-badge"), watch || t.you == null);
  $("#watch-badge").textContent = watch ? "Watching" : "Not seated";
  show($("#leave-btn"), t.you != null);
  const mySeat = t.you != null ? t.seats[t.you] : null;
  show($("#sitout-btn"), !!mySeat);
  const playing = mySeat && !t.ended && !["waiting", "folded", "sitting_out"].includes(mySeat.state);
  if (mySeat) { // during a hand it takes effect at the hand's end: "Sit out next hand"
    $("#sitout-btn").textContent = sitOutLabel(mySeat, playing);
    $("#sitout-btn").setAttribute("aria-pressed", mySeat.sittingOut ? "true" : "false");
  }
  // GEN-05: waiting for the big blind, the player may post one to play at once where the
  // table allows it (post_to_enter, or a home game)
  const canPost = !!mySeat && mySeat.waitsForBigBlind && !mySeat.sittingOut &&
    (t.settings.post_to_enter === true || !!t.host);
  show($("#postbb-btn"), canPost);
  if (canPost) {
    $("#postbb-btn").disabled = !!mySeat.postsBigBlind;
    $("#postbb-btn").textContent = mySeat.postsBigBlind ? "Posting the big blind next hand"
      : "Post big blind now";
  }
  // GEN-06: chips are added between hands (asked during one, the server adds them after it)
  const hi = t.settings.max_buy_in;
  const room = mySeat && hi != null ? hi - mySeat.stack : 1;
  show($("#rebuy-btn"), !!mySeat);
  $("#rebuy-btn").disabled = !mySeat || room <= 0;
  $("#rebuy-btn").title = room <= 0 ? "You have the most this table allows" : "Add chips from your balance";
  const inHand = mySeat && !t.ended && !["waiting", "folded"].includes(mySeat.state);
  const busted = !!mySeat && mySeat.stack === 0 && !inHand;
  show($("#busted"), busted && $("#sit-panel").hidden);
  if (busted && state.me) $("#busted-balance").textContent = chips(Math.max(0, state.me.balance));
  $("#table-view").dataset.seats = String(t.seatCount);
  $("#table-view").dataset.variant = t.variant; // the phone layout of Seven Card Stud (style.css)
  show($("#table-hello"), !state.me && !watch);
  show($("#chat-hello"), !state.me);
  show($("#chat-form"), !!state.me);
}

/** A pre-action chosen before the turn: sent when the turn comes, if it still applies. */
function applyPreAction(t, key, turn) {
  const pre = page.preAction;
  if (pre && !preActionStands(pre, t)) {
    page.preAction = null;
  }
  if (key === "none" || key === page.actionsKey || !page.preAction || !turn.options) return false;
  const action = preActionFor(page.preAction.choice, turn.options);
  page.preAction = null;
  if (!action) return false;
  page.actionsKey = key;
  setHTML($("#actions"), "");
  $("#sr-turn").textContent = `Your turn: ${action} (chosen before).`;
  sendAct(action, {});
  setHTML($("#preactions"), "");
  return true;
}

/** The action bar, redrawn when the turn changes; the focus moves to it on a new turn. */
function renderActions(t, key) {
  setHTML($("#preactions"), preActionsHTML(t, page.preAction ? page.preAction.choice : null));
  if (key === page.actionsKey) return;
  const mine = key !== "none" && !page.actionsKey.startsWith(`${t.id}:${t.hand}:`);
  page.actionsKey = key;
  // a new turn gets fresh buttons even when they read the same (the last ones were disabled
  // by the click: the same player may act twice in a row, e.g. a stud street's opener)
  $("#actions").__html = null;
  setHTML($("#actions"), actionsHTML(t));
  $("#actions").classList.toggle("live", key !== "none");
  if (page.shownError) actError(""); // the table moved on: a refusal of before no longer applies
  if (mine || key !== "none") $("#sr-turn").textContent = key !== "none" ? "Your turn." : "";
  if (key !== "none") {
    focusActions();
    revealOwnSeat();
  }
}

function focusActions() {
  const active = document.activeElement;
  const typing = active && ((active.tagName === "INPUT" && !["range", "checkbox"].includes(active.type)) ||
    active.tagName === "TEXTAREA" || active.tagName === "SELECT") && !$("#actions").contains(active);
  if (typing || !$("#replayer").hidden) return; // never taken from the chat box or the replayer
  const btn = $("#actions [data-act='check']") || $("#actions [data-act='call']") ||
    $("#actions [data-act='ante']") || $("#actions [data-act='play']") || $("#actions [data-act]");
  if (btn) btn.focus({ preventScroll: true });
}

/** On a phone the live action bar sticks to the bottom of the screen: when it covers the
 * player's own seat (their cards), the page scrolls just enough to show the seat above it. */
function revealOwnSeat() {
  const seat = document.querySelector(".seat.me");
  const bar = $("#actions");
  if (!seat || !bar || getComputedStyle(bar).position !== "sticky") return;
  const overlap = seat.getBoundingClientRect().bottom - bar.getBoundingClientRect().top;
  if (overlap > 0) window.scrollBy({ top: overlap + 8, behavior: "instant" });
}

export function renderTable(state) {
  const t = state.table;
  const gone = state.gone && state.gone.table === page.route.id;
  show($("#gone"), gone);
  show($("#table-main"), !gone);
  if (gone) return renderGone();
  show($("#share-btn"), true);
  if (!t) {
    setHTML($("#felt"), `<p class="loading">Loading the table\u2026</p>`);
    setHTML($("#actions"), "");
    return undefined;
  }
  renderTableTop(state, t);
  const watch = page.route.watch;
  const canSit = !watch && !!state.me && t.you == null;
  const felt = $("#felt");
  // a phone, or a full table on a wider screen (seven seats or more, issue 24): the seats go
  // round a rounded rectangle, more of them along the long sides, fewer one above the other
  const narrow = window.matchMedia("(max-width: 600px)").matches || t.seatCount >= 7
    ? { w: felt.clientWidth || 284, h: felt.clientHeight || 540 } : null;
  setHTML(felt, feltHTML(t, { canSit, watch, now: page.socket.serverNow(), narrow,
    handStrength: !!(page.prefs && page.prefs.handStrength) }));
  felt.classList.toggle("caribbean", t.variant === "caribbean");
  const turn = t.you != null && t.turns ? t.turns[t.you] : null;
  const key = turn && !t.ended ? `${t.id}:${t.hand}:${turn.seq ?? "s"}:${turn.in_bank}` : "none";
  if (!applyPreAction(t, key, turn)) renderActions(t, key);
  $("#table-view").classList.toggle("my-turn", key !== "none");
  renderTableRest(state, t);
  return undefined;
}

function renderTableRest(state, t) {
  setHTML($("#paytable"), t.variant === "caribbean" && page.jackpotTerms
    ? `<strong>Jackpot paytable</strong> ${esc(jackpotTermsText(page.jackpotTerms))}` : "");
  setHTML($("#announcements"), t.announcements.map((a) => `<p>${esc(a)}</p>`).join(""));
  // screen readers hear each action and result as it happens (the hand log's latest line)
  const latest = `${t.id}:${t.log.length}:${t.log[t.log.length - 1] || ""}`;
  if (t.log.length && latest !== lastAnnounced) {
    lastAnnounced = latest;
    $("#sr-announce").textContent = t.log[t.log.length - 1];
  }
  setHTML($("#chat-lines"), chatHTML(t.chat, t.you ?? null, state.me ? state.me.name : null));
  const hands = page.serverHistory;
  show($("#server-history"), !!hands);
  if (hands) setHTML($("#server-history-list"), serverHistoryHTML(hands));
  $("#history-note").textContent = hands
    ? "Hands this browser saw at this table:"
    : "Hands this browser saw at this table (the server keeps no history of yours here):";
  setHTML($("#history-list"), localHistoryHTML(t.history));
  setHTML($("#hand-log"), t.log.map((l) => `<li>${esc(l)}</li>`).join(""));
}
