// Private games on the page: the host panel's controls (the `host` request), the seat
// requests' Approve / Refuse, the invite link and its copy, the session ledger and its CSV,
// the private-game gate, what the players see (waiting, refused, removed, paused), and the
// operator's notices.
//
// Rule of this module: `renderHome(state)` runs after the table is rendered (js/app.js) and
// reads `store.state` and `page.route` only; `homeMessage(msg)` is told of every server
// message after the reducer applied it (to ask for the ledger after a hand, remember codes).

import { showBanner } from "./banner.js";
import { emit, RENDER } from "./bus.js";
import { plainError } from "./errors.js";
import {
  changeRequest, codeStore, csvFilename, inviteLink, linkBase, thisComputerOnly, watchLink,
} from "./home.js";
import { dispatch, page, store } from "./page.js";
import { $, esc, setHTML, show } from "./ui/dom.js";
import {
  changeFieldsHTML, confirmHTML, gameHTML, homeNoteText, homeStatusHTML, ledgerHTML, pendingHTML,
  playersHTML, practiceStatusHTML, requestsHTML,
} from "./ui/host.js";

export const codes = codeStore(globalThis.localStorage);
const closedReasons = {}; // table id -> the reason of its `table_closed`
let confirmAsk = null; // {text, yes, run}: the confirmation shown in the host panel
let ledgerAsked = ""; // "table:hand" the ledger was last asked for
const hosted = new Set(); // tables this page hosted (the closing ledger's wording)

/** The base of the links friends are sent: the address players open, which the server
 * writes into the page (`--public-address`, or its LAN address), else this page's own. */
const pageBase = () => linkBase(
  document.querySelector('meta[name="poker-public-address"]')?.getAttribute("content"), location);

/** A table's watch link (the top bar's share button at a table that is not your private one). */
export const tableWatchLink = (id) => watchLink(pageBase(), id);

function openTable() {
  const t = store.state.table;
  return t && t.id === page.route.id ? t : null;
}

function hostError(text) {
  $("#host-error").textContent = text;
}

/** Send a `host` request for the open table; a refusal is shown in the panel. */
export async function hostRequest(action, fields = {}) {
  const t = openTable();
  if (!t) return null;
  const answer = await page.socket.request("host", { table: t.id, action, ...fields });
  if (answer.type === "error") hostError(plainError(answer));
  else hostError("");
  return answer;
}

async function refreshLedger() {
  const t = openTable();
  if (!t || !t.host || !t.host.you) return;
  const answer = await page.socket.request("host", { table: t.id, action: "ledger" });
  if (answer.type === "ok") dispatch({ type: "local:home_ledger", table: t.id, rows: answer.ledger });
}

/** Called by js/app.js for every message, after the reducer. */
export function homeMessage(msg) {
  const t = openTable();
  if (msg.type === "table_closed" && msg.table) closedReasons[msg.table] = msg.reason || "";
  if (!t || msg.table !== t.id || !t.host) return;
  if (t.host.you && t.host.code) codes.set(t.id, t.host.code);
  const key = `${t.id}:${t.hand}`;
  if (t.host.you && (msg.type === "hand_ended" || (msg.type === "snapshot" && ledgerAsked !== key) ||
      (msg.type === "seated" || msg.type === "left"))) {
    ledgerAsked = key;
    refreshLedger();
  }
}

function download(text, name) {
  const blob = new Blob([text], { type: "text/csv;charset=utf-8" });
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.hidden = true;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

async function copyLink() {
  const input = $("#host-link");
  const link = input.value;
  if (!link) return;
  try {
    await navigator.clipboard.writeText(link);
    $("#host-copied").textContent = thisComputerOnly(link)
      ? "Copied, but it opens on this computer only (see above)."
      : "Copied. Send it to your friends.";
  } catch {
    input.focus();
    input.select();
    $("#host-copied").textContent = "The link is selected: copy it (Ctrl+C, or long-press on a phone).";
  }
}

function ask(text, yes, run) {
  confirmAsk = { text, yes, run };
  emit(RENDER);
  requestAnimationFrame(() => {
    const btn = $("#host-confirm [data-confirm='yes']");
    if (btn) btn.focus();
  });
}

async function submitChange(ev) {
  ev.preventDefault();
  const t = openTable();
  if (!t) return;
  const form = $("#host-change");
  const values = Object.fromEntries(new FormData(form).entries());
  values.rebuys = form.elements.rebuys.checked;
  values.approve_seats = form.elements.approve_seats.checked;
  for (const key of ["straddle", "run_twice", "show_uncontested"]) { // house rules, where offered
    if (form.elements[key]) values[key] = form.elements[key].checked;
  }
  const change = changeRequest(t, values);
  if (!change) {
    hostError("Nothing to change: edit a value first.");
    return;
  }
  const answer = await hostRequest("change", change);
  if (answer && answer.type === "ok") {
    if (!answer.pending) { // applied at once (between hands): the table's own values now
      dispatch({ type: "local:home_applied", table: t.id, ...change });
    }
    showBanner(answer.pending ? "Saved: the new values apply from the next hand."
      : "Saved: the next hand uses the new values.", 3000);
  }
}

function setupPanel() {
  $("#host-copy").addEventListener("click", copyLink);
  $("#host-rotate").addEventListener("click", async () => {
    const answer = await hostRequest("rotate_code");
    if (answer && answer.type === "ok") {
      $("#host-copied").textContent = "New link made: the old one no longer lets anyone in.";
    }
  });
  $("#host-game").addEventListener("click", (ev) => {
    const b = ev.target.closest("[data-host]");
    if (b) hostRequest(b.dataset.host);
  });
  $("#host-players").addEventListener("click", (ev) => {
    const remove = ev.target.closest("[data-host-remove]");
    const transfer = ev.target.closest("[data-host-transfer]");
    if (remove) {
      const seat = Number(remove.dataset.hostRemove);
      ask(`Remove ${remove.dataset.name}? They leave at the end of the hand; their chips go back to their balance.`,
        "Yes, remove", async () => {
          const answer = await hostRequest("remove", { seat });
          if (answer && answer.type === "ok") {
            showBanner(answer.pending ? `${remove.dataset.name} leaves at the end of the hand.`
              : `${remove.dataset.name} has left the table.`, 3000);
          }
        });
    } else if (transfer) {
      const seat = Number(transfer.dataset.hostTransfer);
      ask(`Hand the host role to ${transfer.dataset.name}? You will no longer have these controls.`,
        "Yes, hand it on", () => hostRequest("transfer", { seat }));
    }
  });
  $("#host-confirm").addEventListener("click", async (ev) => {
    const b = ev.target.closest("[data-confirm]");
    if (!b || !confirmAsk) return;
    const run = b.dataset.confirm === "yes" ? confirmAsk.run : null;
    confirmAsk = null;
    emit(RENDER);
    if (run) await run();
  });
  $("#host-change").addEventListener("submit", submitChange);
  $("#host-change").addEventListener("input", () => hostError(""));
  $("#host-csv").addEventListener("click", async () => {
    const t = openTable();
    const answer = await hostRequest("ledger", { format: "csv" });
    if (t && answer && answer.type === "ok") {
      dispatch({ type: "local:home_ledger", table: t.id, rows: answer.ledger });
      download(answer.text || "", csvFilename(t.name));
    }
  });
  $("#host-close").addEventListener("click", () => {
    ask("Close the game? The hand being played ends first, then everyone is cashed out.",
      "Yes, close the game", () => hostRequest("close"));
  });
}

export function setupHost() {
  setupPanel();
  $("#seat-requests").addEventListener("click", async (ev) => {
    const approve = ev.target.closest("[data-approve]");
    const refuse = ev.target.closest("[data-refuse]");
    if (!approve && !refuse) return;
    const player = (approve || refuse).dataset[approve ? "approve" : "refuse"];
    const answer = await hostRequest(approve ? "approve" : "refuse", { player });
    if (answer && answer.type === "error") showBanner(plainError(answer), 4000);
  });
  $("#gone-csv").addEventListener("click", () => {
    const ledger = (store.state.finalLedgers || {})[page.route.id];
    if (ledger) download(ledger.text, csvFilename(page.route.id));
  });
  $("#notices").addEventListener("click", (ev) => {
    const b = ev.target.closest("[data-dismiss]");
    if (b) dispatch({ type: "local:dismiss_notice", id: Number(b.dataset.dismiss) });
  });
}

function renderNotices(state) {
  const here = page.route.view === "table" ? page.route.id : null;
  const list = (state.notices || []).filter((n) => !n.table || n.table === here ||
    (state.background && state.background[n.table]));
  setHTML($("#notices"), list.map((n) => `<div class="notice" role="status">` +
    `<p><strong>From the room:</strong> ${esc(n.text)}</p>` +
    `<button type="button" class="small" data-dismiss="${n.id}">Dismiss<span class="sr-only"> this notice</span></button></div>`).join(""));
}

function renderGoneHome(state) {
  const id = page.route.id;
  const ledger = (state.finalLedgers || {})[id];
  show($("#gone-ledger"), !!ledger);
  if (ledger) setHTML($("#gone-ledger-table"), ledgerHTML(ledger.rows, "The evening's ledger"));
  const reason = closedReasons[id];
  // issue 24: every player of the game gets the closing ledger, not only the host
  $("#gone-text").textContent = ledger
    ? (hosted.has(id) ? "You closed the game; everyone was cashed out. Here is the evening's ledger."
      : "The host closed the game; everyone was cashed out and your chips are back in your balance. Here is the evening's ledger.")
    : reason === "host" ? "The host closed the game. Your chips went back to your balance."
      : reason === "practice" ? "You left the practice table: it closed and its bots went home. It was play money: your balance never moved."
      : /^p\d+-/.test(String(id)) ? "The practice table closed (nobody was playing at it). It was play money: your balance never moved."
      : "It was closed (or the server restarted). Your chips at it went back to your balance.";
}

function renderPanel(t) {
  const host = t.host;
  const link = host.code ? inviteLink(pageBase(), t.id, host.code) : "";
  const input = $("#host-link");
  if (input.value !== link) input.value = link;
  show($("#host-link-note"), !!link && thisComputerOnly(link)); // friends could not open it
  setHTML($("#host-game"), gameHTML(t));
  setHTML($("#host-players"), playersHTML(t));
  setHTML($("#host-change-fields"), changeFieldsHTML(t));
  setHTML($("#host-pending"), pendingHTML(t));
  setHTML($("#host-ledger"), ledgerHTML(t.ledger));
  setHTML($("#host-confirm"), confirmHTML(confirmAsk));
}

/** Everything of private games on the page (after `renderTable`). */
export function renderHome(state) {
  renderNotices(state);
  if (page.route.view !== "table") return;
  const gate = state.privateTable === page.route.id;
  show($("#private-gate"), gate);
  if (gate) {
    show($("#table-main"), false);
    show($("#gone"), false);
    $("#table-title").textContent = "Private game";
    $("#table-meta").textContent = "";
    for (const id of ["#share-btn", "#leave-btn", "#sitout-btn", "#rebuy-btn", "#watch-badge"]) show($(id), false);
  }
  if (state.gone && state.gone.table === page.route.id) renderGoneHome(state);
  const t = openTable();
  const host = t && !gate ? t.host : null;
  const practice = !!(t && t.settings && t.settings.practice); // issue 24: nobody to invite
  setHTML($("#home-status"), practice ? practiceStatusHTML() : host ? homeStatusHTML(t) : "");
  $("#home-note").textContent = t && !gate ? homeNoteText(t, plainError) : "";
  const mine = !!(host && host.you) && !practice;
  if (mine) hosted.add(t.id);
  setHTML($("#seat-requests"), mine ? requestsHTML(t) : "");
  show($("#host-panel"), mine);
  if (host) {
    show($("#share-btn"), mine); // only the host hands out the invite link
    setHTML($("#share-btn"), `Copy<span class="wide-only"> ${mine ? "invite" : "watch"}</span> link`);
    if (!host.rebuys) {
      show($("#rebuy-btn"), false);
      show($("#busted-rebuy"), false);
    } else {
      show($("#busted-rebuy"), true);
    }
  }
  if (mine) renderPanel(t);
  else if (confirmAsk) confirmAsk = null;
}

/** The link the top bar's share button copies at a private table (the host's invite). */
export function shareLink(t) {
  if (t && t.host && t.host.you && t.host.code) return inviteLink(pageBase(), t.id, t.host.code);
  return null;
}
