// The table chat: the lines (escaped; players and spectators told apart) and the form.

import { esc } from "./dom.js";

export function chatHTML(lines) {
  if (!lines.length) return `<li class="none">No messages yet.</li>`;
  return lines.map((l) =>
    `<li class="${l.seated ? "player" : "spectator"}"><span class="from">${esc(l.name)}</span> ` +
    `<span class="text">${esc(l.text)}</span></li>`).join("");
}
