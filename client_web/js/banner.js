// The page's notices: the banner (connection lost, reconnected, a passing message) and the
// action bar's refusal text (#act-error). Imported by the page modules that show one.

import { page, store } from "./page.js";
import { $, show } from "./ui/dom.js";

let bannerTimer = null;
let wasOffline = false;

export function showBanner(text, ms) {
  const banner = $("#banner");
  banner.textContent = text;
  banner.className = "banner info";
  show(banner, true);
  clearTimeout(bannerTimer);
  if (ms) bannerTimer = setTimeout(() => renderBanner(true), ms);
}

/** A refusal of the action bar: shown next to it until the table moves on. */
export function actError(text) {
  $("#act-error").textContent = text;
  page.shownError = text ? page.actionsKey : "";
}

export function renderBanner(force = false) {
  const status = store.state.status;
  const banner = $("#banner");
  if (status === "reconnecting" || status === "offline") {
    wasOffline = true;
    clearTimeout(bannerTimer);
    banner.textContent = "Connection lost \u2014 reconnecting\u2026";
    banner.className = "banner warn";
    banner.dataset.status = status;
    show(banner, true);
  } else if (wasOffline && status === "online") {
    wasOffline = false;
    banner.textContent = "Reconnected.";
    banner.className = "banner ok";
    banner.dataset.status = "online";
    show(banner, true);
    clearTimeout(bannerTimer);
    bannerTimer = setTimeout(() => renderBanner(true), 2000);
  } else if (force) {
    show(banner, false);
  }
}
