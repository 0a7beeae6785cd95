// The last hands, to open and read: from the server's `history` when it answers, else from
// the events this browser saw (said so on the page).

import { cardsText, chips, VARIANT_NAMES } from "../format.js";
import { esc } from "./dom.js";

/** Hands this browser saw (`table.history`, newest first). */
export function localHistoryHTML(history) {
  if (!history.length) return `<p class="none">No finished hand yet.</p>`;
  return history.map((h) => {
    const summary = h.announcements[0] || "Hand over";
    const board = h.board.length ? `<p>Board: <span class="cards-text">${esc(cardsText(h.board))}</span></p>` : "";
    const dealer = h.dealer ? `<p>Dealer: ${esc(cardsText(h.dealer.cards))}${h.dealer.hand ? ` (${esc(h.dealer.hand)})` : ""}</p>` : "";
    const shown = h.shown.map((s) => `<li>${esc(s.name)}: ${esc(cardsText(s.cards))}, ${esc(s.hand)}</li>`).join("");
    const log = h.log.map((line) => `<li>${esc(line)}</li>`).join("");
    return `<details class="hand-record" data-hand="${esc(h.hand)}"><summary>` +
      `<span class="hand-id">${esc(VARIANT_NAMES[h.variant] || h.variant)} #${esc(String(h.number ?? String(h.hand).split(".").pop()))}</span> ` +
      `${esc(summary)}</summary>${board}${dealer}${shown ? `<ul class="shown">${shown}</ul>` : ""}` +
      `<ol class="log">${log}</ol></details>`;
  }).join("");
}

/** The player's hands from the server's `history` answer ({hand, table, variant, net, ...});
 * each opens to the server's text of the hand (`hand` request, filled in by the page), and
 * has its replay and downloads; the whole list downloads at once. */
export function serverHistoryHTML(hands) {
  if (!hands.length) return `<p class="none">No hand of yours at this table yet.</p>`;
  const all = `<div class="hand-tools all"><span class="muted">Download these hands:</span>` +
    `<button type="button" class="small" data-download="pokerstars">PokerStars text</button>` +
    `<button type="button" class="small" data-download="phh">PHH</button></div>`;
  return all + hands.map((h) => {
    const id = String(h.hand ?? "?");
    const n = esc(String(h.number ?? id.split(".").pop())); // issue 24: the table's own count
    const net = typeof h.net === "number" ? h.net : 0;
    const sign = net > 0 ? `+${chips(net)}` : net < 0 ? `\u2212${chips(-net)}` : "\u00b10";
    const tools = `<div class="hand-tools">` +
      `<button type="button" class="small" data-replay="${esc(id)}" data-number="${n}">Replay<span class="sr-only"> hand #${n}</span></button>` +
      `<button type="button" class="small" data-download="pokerstars" data-hand="${esc(id)}">.txt<span class="sr-only"> download hand #${n}, PokerStars text</span></button>` +
      `<button type="button" class="small" data-download="phh" data-hand="${esc(id)}">.phh<span class="sr-only"> download hand #${n}, PHH</span></button></div>`;
    return `<div class="hand-entry"><details class="hand-record server" data-server-hand="${esc(id)}"><summary>` +
      `<span class="hand-id">${esc(VARIANT_NAMES[h.variant] || h.variant || "")} #${n}</span> ` +
      `<span class="net ${net > 0 ? "up" : net < 0 ? "down" : ""}">${sign}</span></summary>` +
      `<pre class="hand-text">Loading\u2026</pre></details>${tools}</div>`;
  }).join("");
}
