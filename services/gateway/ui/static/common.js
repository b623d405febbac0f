// What every page shares: calling the JSON API, building DOM safely, formatting numbers
// and times, state badges, and polling that pauses while the tab is hidden.

export const API = "/api/v1";
export const TERMINAL = new Set(["done", "failed", "cancelled"]);
const RUNNING = new Set(["converting", "extracting", "tuning", "compiling", "evaluating", "busy"]);

/** An API error with the HTTP status and the JSON body, so pages can show `fields`. */
export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.error) || `HTTP ${status}`);
    this.status = status;
    this.body = body || {};
  }
}

/** fetch() against the API; the cookie authenticates (same origin). A 401 means the token
 * went away (revoked, expired cookie): back to the login page rather than a broken page. */
export async function api(path, options = {}) {
  const response = await fetch(API + path, {
    credentials: "same-origin",
    ...options,
    headers: { Accept: "application/json", ...(options.headers || {}) },
  });
  if (response.status === 401) {
    const next = location.pathname + location.search;
    location.assign(`/login?next=${encodeURIComponent(next)}`);
    throw new ApiError(401, { error: "signed out" });
  }
  const type = response.headers.get("Content-Type") || "";
  const body = type.includes("json") ? await response.json() : null;
  if (!response.ok) throw new ApiError(response.status, body);
  return body;
}

/** h("td", {class: "num"}, "12") : an element with attributes and children; strings
 * become text nodes, so job data is never parsed as HTML. */
export function h(tag, attrs = {}, ...children) {
  const svg = ["svg", "g", "line", "path", "text", "circle", "rect", "title", "polyline"];
  const el = svg.includes(tag)
    ? document.createElementNS("http://www.w3.org/2000/svg", tag)
    : document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Replace an element's children. */
export function fill(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined));
}

export function show(el, visible = true) {
  el.hidden = !visible;
}

// -- formatting ------------------------------------------------------------------------------
export const DASH = "—";

export function fmt(value, digits = 2) {
  if (value === null || value === undefined || !Number.isFinite(value)) return DASH;
  return value.toLocaleString("en-US", {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

export function fmtInt(value) {
  if (value === null || value === undefined || !Number.isFinite(value)) return DASH;
  return Math.round(value).toLocaleString("en-US");
}

/** Milliseconds with 3 significant-ish digits: 0.412 ms, 9.61 ms, 123 ms. */
export function fmtMs(ms) {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return DASH;
  const digits = ms < 1 ? 3 : ms < 100 ? 2 : 0;
  return `${fmt(ms, digits)} ms`;
}

/** "12 s", "4 min", "3 h", "2 d": how long ago a Unix time (seconds) was. */
export function ago(unixSeconds, now = Date.now() / 1000) {
  if (!unixSeconds) return DASH;
  return `${duration(Math.max(0, now - unixSeconds))} ago`;
}

export function duration(seconds) {
  if (seconds < 60) return `${Math.floor(seconds)} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86400)} d`;
}

export function isoTime(unixSeconds) {
  return unixSeconds ? new Date(unixSeconds * 1000).toISOString() : "";
}

export function localTime(unixSeconds) {
  return unixSeconds ? new Date(unixSeconds * 1000).toLocaleString() : DASH;
}

/** A <time> reading "3 min ago" with the exact time as its tooltip. */
export function timeAgo(unixSeconds) {
  return h(
    "time",
    { datetime: isoTime(unixSeconds), title: localTime(unixSeconds) },
    ago(unixSeconds),
  );
}

/** The network a job tunes, as people say it: "squeezenet-1.1" or "uploaded model.onnx". */
export function networkLabel(model) {
  if (!model) return DASH;
  if (model.startsWith("zoo:")) return model.slice(4);
  if (model.startsWith("upload:")) return "uploaded ONNX";
  return model;
}

/** A job state as a coloured badge; running states carry a pulsing dot. */
export function badge(state) {
  const running = RUNNING.has(state);
  return h(
    "span",
    { class: `badge badge--${state || "unknown"}`, "data-state": state || "" },
    running ? h("span", { class: "badge__pulse", "aria-hidden": "true" }) : null,
    state || "unknown",
  );
}

export function setBadge(el, state) {
  const fresh = badge(state);
  el.className = fresh.className;
  el.dataset.state = state || "";
  el.replaceChildren(...fresh.childNodes);
}

/** "64 / 200" with a bar, as a table cell's content. */
export function progress(done, budget) {
  const ratio = budget > 0 ? Math.min(1, (done || 0) / budget) : done > 0 ? 1 : 0;
  const bar = h("span", { class: "progress__bar" });
  bar.style.width = `${(ratio * 100).toFixed(1)}%`;
  return h(
    "span",
    { class: "progress-cell" },
    h("span", { class: "progress", "aria-hidden": "true" }, bar),
    h("span", { class: "progress-cell__text" }, `${fmtInt(done || 0)} / ${fmtInt(budget)}`),
  );
}

export function errorText(error) {
  if (error instanceof ApiError) return `${error.message} (HTTP ${error.status})`;
  return `cannot reach the gateway: ${error.message}`;
}

// -- polling ---------------------------------------------------------------------------------
/** Call `task` now and every `ms` while the tab is visible (and at once when it comes back),
 * never two at a time. Returns a stop function. */
export function poll(task, ms) {
  let timer = null;
  let running = false;
  let stopped = false;
  const tick = async () => {
    clearTimeout(timer);
    if (stopped || running) return;
    if (document.visibilityState === "visible") {
      running = true;
      try {
        await task();
      } finally {
        running = false;
      }
    }
    if (!stopped) timer = setTimeout(tick, ms);
  };
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") tick();
  });
  tick();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** Run `fn` at most once per animation frame however often it is asked for. */
export function throttleFrame(fn) {
  let queued = false;
  return () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      fn();
    });
  };
}
