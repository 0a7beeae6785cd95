// Your hands: the server's `history` of this table, each hand's text, downloads of your
// histories (PokerStars text, PHH) as files, and the replayer (street by street, keyboard).

import { showBanner } from "./banner.js";
import { emit, RENDER } from "./bus.js";
import { plainError } from "./errors.js";
import { page, store } from "./page.js";
import { replayFrames, stepTo } from "./replay.js";
import { $, setHTML, show } from "./ui/dom.js";
import { REPLAY_KEYS, replayControlsHTML, replayFrameHTML } from "./ui/replayer.js";

const EXT = { pokerstars: "txt", phh: "phh" };
const replay = { frames: [], i: 0, opener: null };

export async function loadHistory(id, tries = 0) {
  if (!store.state.me || !id) return;
  const answer = await page.socket.request("history", { table: id, limit: 10 });
  page.serverHistory = answer.type === "ok" && Array.isArray(answer.hands) ? answer.hands : null;
  emit(RENDER);
  // The server stores a hand just after announcing its end: ask again for one we just played.
  const t = store.state.table;
  const last = t && t.id === id && t.history[0] ? t.history[0].hand : null;
  if (page.serverHistory && last && t.you != null && tries < 8 &&
      !page.serverHistory.some((h) => h.hand === last)) {
    setTimeout(() => loadHistory(id, tries + 1), 250);
  }
}

async function handText(hand, format) {
  const answer = await page.socket.request("hand", { hand, format });
  if (answer.type === "ok" && typeof answer.text === "string") return { text: answer.text };
  return { error: plainError(answer) };
}

async function loadHand(el) {
  const got = await handText(el.dataset.serverHand, "pokerstars");
  el.querySelector(".hand-text").textContent = got.text ?? got.error;
}

/** Save `text` as a file named `name` (the browser's download). */
function saveFile(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/plain;charset=utf-8" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** One hand (`hand` given) or every hand of mine listed at this table, in `format`. */
async function download(format, hand) {
  const t = store.state.table;
  const hands = hand ? [hand] : (page.serverHistory || []).map((h) => h.hand);
  if (!hands.length) return;
  const texts = [];
  for (const h of hands) {
    const got = await handText(h, format);
    if (got.error) {
      showBanner(`That history could not be downloaded: ${got.error}`, 4000);
      return;
    }
    texts.push(got.text.trimEnd());
  }
  const base = hand ? `hand-${hand}` : `hands-${t ? t.id : "table"}`;
  saveFile(`${base}.${EXT[format]}`.replace(/[^\w.-]+/g, "_"), `${texts.join("\n\n\n")}\n`);
}

function drawReplay() {
  const { felt, step } = replayFrameHTML(replay.frames, replay.i);
  const root = $("#replay-felt");
  setHTML(root, felt);
  root.classList.toggle("caribbean", replay.frames[0].table.variant === "caribbean");
  $("#replay-step").textContent = step;
  $("#replayer").dataset.step = String(replay.i);
  for (const b of document.querySelectorAll("#replay-controls [data-step]")) {
    const to = stepTo(replay.frames, replay.i, b.dataset.step);
    b.disabled = to === replay.i;
  }
}

async function openReplay(hand, opener) {
  const answer = await page.socket.request("hand", { hand, format: "json" });
  if (answer.type !== "ok" || !answer.record) {
    showBanner(`That hand cannot be replayed: ${plainError(answer)}`, 4000);
    return;
  }
  replay.frames = replayFrames(answer.record);
  replay.i = 0;
  replay.opener = opener;
  const number = opener && opener.dataset && opener.dataset.number; // issue 24: "#1" at its table
  $("#replayer-title").textContent = `Replay of hand #${number || String(hand).split(".").pop()}`;
  show($("#replayer"), true);
  drawReplay();
  $("#replay-controls [data-step='next']").focus();
}

function closeReplay() {
  show($("#replayer"), false);
  if (replay.opener && replay.opener.isConnected) replay.opener.focus();
}

function go(step) {
  const to = stepTo(replay.frames, replay.i, step);
  if (to === replay.i) return;
  replay.i = to;
  drawReplay();
}

function setupReplayer() {
  setHTML($("#replay-controls"), replayControlsHTML());
  $("#replay-controls").addEventListener("click", (ev) => {
    const b = ev.target.closest("[data-step]");
    if (b) go(b.dataset.step);
  });
  $("#replay-close").addEventListener("click", closeReplay);
  // on the document (capture): a step button that just became disabled drops the focus
  document.addEventListener("keydown", (ev) => {
    if ($("#replayer").hidden || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.key === "Escape") {
      ev.preventDefault();
      closeReplay();
      return;
    }
    const step = REPLAY_KEYS[ev.key];
    if (ev.key !== "Tab") ev.stopPropagation(); // no action shortcut of the table behind
    if (step) {
      ev.preventDefault();
      go(step);
    }
  }, true);
}

export function setupHistory() {
  setupReplayer();
  $("#history-panel").addEventListener("toggle", (ev) => {
    const el = ev.target;
    if (el.id === "history-panel" && el.open) loadHistory(store.state.table && store.state.table.id);
    if (el.dataset && el.dataset.serverHand && el.open) loadHand(el);
  }, true);
  $("#history-panel").addEventListener("click", (ev) => {
    const b = ev.target.closest && ev.target.closest("button[data-replay], button[data-download]");
    if (!b) return;
    if (b.dataset.replay) openReplay(b.dataset.replay, b);
    else download(b.dataset.download, b.dataset.hand || null);
  });
}
