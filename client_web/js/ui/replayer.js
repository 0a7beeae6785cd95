// The hand replayer's view: a drawn table for one frame of `replay.js`, the step's words,
// and the controls (first, street back, step back, step forward, street forward, last).

import { feltHTML } from "./table.js";
import { esc } from "./dom.js";

export const REPLAY_KEYS = { ArrowRight: "next", ArrowLeft: "prev", ArrowUp: "prev_street",
  ArrowDown: "next_street", PageUp: "prev_street", PageDown: "next_street", Home: "first", End: "last" };

/** The felt of frame `i` and its caption. */
export function replayFrameHTML(frames, i) {
  const f = frames[i];
  const felt = feltHTML(f.table, { canSit: false, watch: true, now: 0, narrow: null });
  return { felt, step: `${f.streetLabel} \u00b7 step ${i + 1} of ${frames.length}: ${f.label}` };
}

export function replayControlsHTML() {
  const btn = (step, text, label, key) => `<button type="button" data-step="${step}" aria-label="${esc(label)}"` +
    ` aria-keyshortcuts="${key}">${text}</button>`;
  return btn("first", "First", "First step", "Home") +
    btn("prev_street", "\u00ab Street", "Previous street", "ArrowUp") +
    btn("prev", "\u2039 Back", "Step back", "ArrowLeft") +
    btn("next", "Next \u203a", "Step forward", "ArrowRight") +
    btn("next_street", "Street \u00bb", "Next street", "ArrowDown") +
    btn("last", "Last", "Last step", "End");
}
