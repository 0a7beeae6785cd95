// Sounds, synthesized with WebAudio (no audio files): your turn, a check, a bet, a win, the
// last seconds of your clock. A mute switch remembered per browser (localStorage).
//
// Rule of this module: `play(name)` never throws and never blocks; every call is recorded in
// `played` (the test hook `window.__poker.sounds`), heard or not (muted, no WebAudio).

const MUTE_KEY = "poker.muted";

/** Each sound: notes of [frequency Hz, start s, length s, wave, gain]. */
export const SOUNDS = {
  turn: [[660, 0, 0.12, "sine", 0.25], [880, 0.13, 0.18, "sine", 0.25]],
  check: [[220, 0, 0.05, "square", 0.12], [220, 0.09, 0.05, "square", 0.12]],
  bet: [[1800, 0, 0.04, "triangle", 0.18], [2400, 0.05, 0.05, "triangle", 0.14],
    [2000, 0.11, 0.06, "triangle", 0.1]],
  win: [[523, 0, 0.12, "sine", 0.22], [659, 0.12, 0.12, "sine", 0.22],
    [784, 0.24, 0.12, "sine", 0.22], [1047, 0.36, 0.3, "sine", 0.22]],
  clock: [[1000, 0, 0.07, "square", 0.1]],
};

/** The sound an `acted` action makes (null: none). */
export function actionSound(action) {
  if (action === "check") return "check";
  if (["bet", "raise", "call", "complete", "bring_in", "ante", "play"].includes(action)) return "bet";
  return null;
}

function storage() {
  try { return globalThis.localStorage || null; } catch { return null; }
}

export class Sound {
  constructor(store = storage()) {
    this.store = store;
    this.ctx = null;
    this.played = [];
    this.muted = false;
    try { this.muted = !!store && store.getItem(MUTE_KEY) === "1"; } catch { /* private mode */ }
  }

  setMuted(muted) {
    this.muted = !!muted;
    try { if (this.store) this.store.setItem(MUTE_KEY, this.muted ? "1" : "0"); } catch { /* */ }
  }

  _context() {
    if (this.ctx) return this.ctx;
    const Ctx = globalThis.AudioContext || globalThis.webkitAudioContext;
    if (!Ctx) return null;
    try { this.ctx = new Ctx(); } catch { this.ctx = null; }
    return this.ctx;
  }

  /** Play `name` (see SOUNDS) unless muted; returns whether it was sent to the speakers. */
  play(name) {
    const notes = SOUNDS[name];
    if (!notes) return false;
    const heard = !this.muted && this._synth(notes);
    this.played.push({ name, heard });
    if (this.played.length > 200) this.played.splice(0, 100);
    return heard;
  }

  _synth(notes) {
    const ctx = this._context();
    if (!ctx) return false;
    try {
      if (ctx.state === "suspended") ctx.resume().catch(() => {});
      const t0 = ctx.currentTime + 0.01;
      for (const [freq, start, len, wave, gain] of notes) {
        const osc = ctx.createOscillator();
        const amp = ctx.createGain();
        osc.type = wave;
        osc.frequency.value = freq;
        amp.gain.setValueAtTime(0, t0 + start);
        amp.gain.linearRampToValueAtTime(gain, t0 + start + 0.01);
        amp.gain.exponentialRampToValueAtTime(0.0001, t0 + start + len);
        osc.connect(amp).connect(ctx.destination);
        osc.start(t0 + start);
        osc.stop(t0 + start + len + 0.02);
      }
      return true;
    } catch {
      return false;
    }
  }
}
