// "My tables": the tables this tab sits at or watches, to switch between; a badge marks a
// table where it is your turn (at the one shown, the action bar says so already).

import { esc } from "./dom.js";

/** The strip's HTML from `myTables(state)`; empty with fewer than one table. */
export function stripHTML(tables) {
  if (!tables.length) return "";
  return tables.map((t) => {
    const id = encodeURIComponent(t.id);
    const href = `#/table/${id}${t.seated || !t.watch ? "" : "/watch"}`;
    const badge = t.turn && !t.open ? `<span class="turn-badge">your turn</span>` : "";
    const role = t.seated ? "playing" : "watching";
    const close = t.seated ? "" : `<button type="button" class="strip-close small" data-forget="${esc(t.id)}" ` +
      `aria-label="Stop watching ${esc(t.name)}">\u00d7</button>`;
    return `<li class="strip-item${t.open ? " open" : ""}${t.turn && !t.open ? " turn" : ""}" data-strip="${esc(t.id)}">` +
      `<a href="${href}"${t.open ? ' aria-current="page"' : ""}>${esc(t.name)}` +
      `<span class="sr-only"> (${role}${t.turn ? ", your turn" : ""})</span></a>${badge}${close}</li>`;
  }).join("");
}
