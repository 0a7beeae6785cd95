// The table chat: the lines (escaped; players and spectators told apart) and the form.

import { esc } from "./dom.js";

/** The chat lines; each line not said by `mySeat` / `myName` has a mute button (the server
 * then stops sending that player's chat to every connection of mine). */
export function chatHTML(lines, mySeat = null, myName = null) {
  if (!lines.length) return `<li class="none">No messages yet.</li>`;
  return lines.map((l) => {
    const mine = (l.seat != null && l.seat === mySeat) || (l.seat == null && l.from != null && l.from === myName);
    const target = l.seat != null ? `data-mute-seat="${l.seat}"` : l.from != null ? `data-mute-name="${esc(l.from)}"` : "";
    const mute = !mine && target ? ` <button type="button" class="mute" ${target} title="Stop seeing this player's chat">mute</button>` : "";
    // a guest's tag tells two guests of one name apart
    const tag = l.tag ? ` <span class="badge guest" title="guest account #${esc(l.tag)}">#${esc(l.tag)}</span>` : "";
    return `<li class="${l.seated ? "player" : "spectator"}"><span class="from">${esc(l.name)}</span>${tag} ` +
      `<span class="text">${esc(l.text)}</span>${mute}</li>`;
  }).join("");
}
