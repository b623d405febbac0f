// The job page, live: the job document (GET /api/v1/jobs/<id>) plus its event stream (SSE,
// GET /api/v1/jobs/<id>/events, replayed from the start so the charts show the whole run).
// `batch` events move the task table and the GFLOPS chart between rounds, `round` events
// bring the scheduler's table and a latency estimate, `state`/`error`/`end` refetch the
// document. If the stream cannot be held, the page polls instead.

import { LineChart, seriesStyle } from "./charts.js";
import {
  ApiError, DASH, TERMINAL, api, errorText, fill, fmt, fmtInt, fmtMs, h, localTime,
  networkLabel, poll, setBadge, show, throttleFrame, timeAgo,
} from "./common.js";

const main = document.getElementById("main");
const JOB_ID = main.dataset.jobId;
const CAN_SUBMIT = main.dataset.canSubmit === "true";
const BASE = `/jobs/${encodeURIComponent(JOB_ID)}`;
const POLL_MS = 4000;
const DOC_REFRESH_MS = 1500; // at most this often on a burst of events
const ERROR_EVENTS_SHOWN = 8;
const ARTIFACT_STATES = new Set(["evaluating", "done"]);

const $ = (id) => document.getElementById(id);

// -- what the page knows ------------------------------------------------------------------------
const view = {
  doc: null,
  tasks: new Map(), // id -> row of the task table
  gflops: new Map(), // task id -> [[trials, best GFLOPS], ...]
  latency: [], // [[seconds since submission, estimated ms], ...]
  errorEvents: [], // [{time, message}], newest last
  activeTask: null,
  highlighted: null,
  streamState: "connecting",
};

const gflopsChart = new LineChart($("gflops-chart"), {
  xLabel: "Trials (per task)",
  yLabel: "Best GFLOPS",
  yFromZero: true,
  step: true,
  emptyText: "Waiting for the first measurements",
  describe: (series) => {
    const best = Math.max(0, ...series.flatMap((s) => s.points.map((p) => p[1])));
    return `Best GFLOPS against trials for ${series.length} tasks; highest so far ${fmt(best)} GFLOPS`;
  },
  pointTitle: (s, [x, y]) => `${s.label}: ${fmt(y)} GFLOPS after ${fmtInt(x)} trials`,
});

const latencyChart = new LineChart($("latency-chart"), {
  xLabel: "Time since submission (s)",
  yLabel: "Estimated latency (ms)",
  emptyText: "Estimated after the first round of every task",
  describe: (series) => {
    const pts = series[0] ? series[0].points : [];
    const last = pts.length ? pts[pts.length - 1][1] : null;
    return `Estimated end-to-end latency over time; latest ${fmtMs(last)}`;
  },
  pointTitle: (_s, [x, y]) => `${fmtMs(y)} at ${fmtInt(x)} s`,
});

// -- merging what arrives -----------------------------------------------------------------------
/** Fold a task row in, keeping the best seen: replayed or late events never go backwards. */
function mergeTask(incoming) {
  const row = view.tasks.get(incoming.id) || { ...incoming };
  row.trials = Math.max(row.trials || 0, incoming.trials || 0);
  for (const key of ["workload_key", "task", "weight", "mflops", "store", "reused", "trials_saved"]) {
    row[key] = incoming[key] ?? row[key];
  }
  if (incoming.gflops && !(row.gflops >= incoming.gflops)) {
    row.gflops = incoming.gflops;
    row.latency_ms = incoming.latency_ms ?? (row.mflops ? row.mflops / incoming.gflops : null);
  }
  view.tasks.set(incoming.id, row);
}

function applyDoc(doc) {
  view.doc = doc;
  for (const row of doc.tasks || []) mergeTask(row);
}

function onBatch(data) {
  if (data.task < 0) return;
  const points = view.gflops.get(data.task) || [];
  points.push([data.trials, data.best_gflops || 0]);
  view.gflops.set(data.task, points);
  const row = view.tasks.get(data.task);
  if (row) {
    mergeTask({
      id: data.task,
      trials: data.trials,
      gflops: data.best_gflops || null,
      latency_ms: row.mflops && data.best_gflops ? row.mflops / data.best_gflops : null,
    });
  }
  view.activeTask = data.task;
  refreshDocSoon(); // trials done and error counts live in the document
  redraw();
}

function onRound(data) {
  for (const row of data.tasks || []) mergeTask(row);
  if (data.estimated_latency_ms !== null && data.estimated_latency_ms !== undefined) {
    const t0 = view.doc ? view.doc.created : data.time;
    view.latency.push([Math.max(0, data.time - t0), data.estimated_latency_ms]);
  }
  if (view.doc) {
    view.doc.estimated_latency_ms = data.estimated_latency_ms;
    view.doc.trials_done = Math.max(view.doc.trials_done || 0, data.trials_done || 0);
  }
  redraw();
}

function onError(data) {
  view.errorEvents.push(data);
  refreshDocSoon();
}

// -- the document -------------------------------------------------------------------------------
async function loadDoc() {
  try {
    applyDoc(await api(BASE));
    show($("job-message"), false);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return notice("This job no longer exists.");
    notice(`Could not load the job: ${errorText(error)}`);
    return;
  }
  redraw();
}

let docTimer = null;
function refreshDocSoon() {
  if (docTimer) return;
  docTimer = setTimeout(async () => {
    docTimer = null;
    await loadDoc();
  }, DOC_REFRESH_MS);
}

function notice(text) {
  const el = $("job-message");
  el.textContent = text;
  show(el);
}

// -- live updates -------------------------------------------------------------------------------
function openStream() {
  if (!("EventSource" in window)) return startPolling();
  const source = new EventSource(`/api/v1${BASE}/events`);
  const handle = (fn) => (event) => fn(JSON.parse(event.data));
  source.addEventListener("open", () => setStream("live"));
  source.addEventListener("batch", handle(onBatch));
  source.addEventListener("round", handle(onRound));
  source.addEventListener("error", (event) => {
    if (event.data) handle(onError)(event); // an `error` event of the job, not the connection
    else if (source.readyState === EventSource.CLOSED) onStreamClosed();
    else setStream("reconnecting");
  });
  source.addEventListener("state", handle(() => refreshDocSoon()));
  source.addEventListener("waiting", handle(() => refreshDocSoon()));
  source.addEventListener("restored", handle(() => refreshDocSoon()));
  source.addEventListener("end", () => {
    source.close();
    onStreamClosed();
  });
}

/** The server ended the stream (the job finished) or refused it: one last look at the job;
 * if it is still running after all, keep it fresh by polling. */
async function onStreamClosed() {
  await loadDoc();
  if (view.doc && TERMINAL.has(view.doc.state)) setStream("finished");
  else startPolling();
}

let stopPolling = null;
function startPolling() {
  if (stopPolling) return;
  setStream("polling");
  stopPolling = poll(async () => {
    await loadDoc();
    if (view.doc && TERMINAL.has(view.doc.state)) {
      stopPolling();
      setStream("finished");
    }
  }, POLL_MS);
}

function setStream(state) {
  view.streamState = state;
  const el = $("job-live");
  const labels = {
    connecting: "connecting…",
    live: "live",
    reconnecting: "reconnecting…",
    polling: "updating every few seconds",
    finished: "finished",
  };
  el.textContent = labels[state];
  el.dataset.state = state;
}

// -- drawing ------------------------------------------------------------------------------------
const redraw = throttleFrame(() => {
  const doc = view.doc;
  if (!doc) return;
  drawHeader(doc);
  drawStats(doc);
  drawResult(doc);
  drawPacked(doc);
  drawTasks(doc);
  drawCharts();
  drawErrors(doc);
  drawActions(doc);
});

function drawHeader(doc) {
  $("job-name").textContent = doc.name || doc.id;
  setBadge($("job-state"), doc.state);
  document.title = `${doc.name || doc.id} (${doc.state}) · tunefarm`;
  const failed = doc.state === "failed" && doc.error;
  $("job-error-text").textContent = failed ? doc.error : "";
  show($("job-error"), Boolean(failed));
  // work sent again after a dead worker or a Redis restart: say why the job is not moving
  const waiting = doc.waiting && doc.waiting.reason;
  $("job-waiting-text").textContent = waiting
    ? `${doc.waiting.reason} (since ${new Date(doc.waiting.since * 1000).toLocaleTimeString()})`
    : "";
  show($("job-waiting"), Boolean(waiting));
  // waiting for a search slot: the place in the fair queue and when it should start
  const queue = doc.queue;
  const start = queue && queue.estimated_start_s != null ? `, starts in about ${Math.round(queue.estimated_start_s)} s` : "";
  $("job-queue-text").textContent = queue
    ? `position ${queue.position} (${queue.ahead} ahead, ${queue.running} running)${start}`
    : "";
  show($("job-queue"), Boolean(queue));
}

function drawStats(doc) {
  $("stat-model").textContent = networkLabel(doc.model);
  $("stat-batch").textContent = `batch ${doc.batch || 1}`;
  $("stat-target").textContent = doc.target ? doc.target + (doc.quantize ? ` · ${doc.quantize}` : "") : DASH;
  $("stat-device").textContent = doc.device_key ? `on ${doc.device_key}` : "";
  $("stat-trials").textContent = `${fmtInt(doc.trials_done || 0)} / ${fmtInt(doc.trials)}`;
  const ratio = doc.trials > 0 ? Math.min(1, (doc.trials_done || 0) / doc.trials) : 0;
  $("stat-progress").style.width = `${(ratio * 100).toFixed(1)}%`;
  const stopping = doc.early_stopping ? `, early stopping ${doc.early_stopping}` : "";
  const policy = doc.policy && doc.policy !== "template" ? `, ${doc.policy} policy` : "";
  $("stat-tuner").textContent = `${doc.tuner} tuner${policy}${stopping}`;
  $("stat-estimate").textContent = fmtMs(doc.estimated_latency_ms);
  fill($("stat-age"), timeAgo(doc.created));
  $("stat-updated").textContent = `updated ${localTime(doc.updated)}`;
}

function drawResult(doc) {
  const lat = doc.latency_ms;
  show($("result"), Boolean(lat && lat.tuned));
  if (!lat || !lat.tuned) return;
  const rows = [
    ["tuned", "Tuned (tunefarm)"],
    ["untuned", "Untuned (tunefarm)"],
    ["onnxruntime", "ONNX Runtime"],
  ].filter(([key]) => Number.isFinite(lat[key]));
  const longest = Math.max(...rows.map(([key]) => lat[key]));
  fill(
    $("result-bars"),
    rows.map(([key, label]) => {
      const bar = h("span", { class: `bar__fill bar__fill--${key}` });
      bar.style.width = `${((lat[key] / longest) * 100).toFixed(1)}%`;
      return h(
        "div",
        { class: "bar", "data-kind": key },
        h("dt", {}, label),
        h("dd", {}, h("span", { class: "bar__track" }, bar), h("span", { class: "bar__value" }, fmtMs(lat[key]))),
      );
    }),
  );
  const parts = [];
  if (lat.untuned) parts.push(speedup(lat.untuned / lat.tuned, "the untuned build"));
  if (lat.onnxruntime) parts.push(speedup(lat.onnxruntime / lat.tuned, "ONNX Runtime"));
  fill($("result-speedup"), parts.flatMap((p, i) => (i ? [" · ", p] : [p])));
  const match = Number.isFinite(doc.relative_error)
    ? `Outputs match ONNX Runtime to a relative error of ${doc.relative_error.toExponential(1)}.`
    : "";
  const delivered =
    doc.delivered === "untuned"
      ? " The compiled network handed back is the untuned build, which measured faster."
      : "";
  $("result-error").textContent = match + delivered + selectionText(doc.selection);
}

/** A packed (VTA) job's results: the bit-exact check, top-1, the time split, busy shares. */
function drawPacked(doc) {
  const packed = doc.packed;
  show($("packed"), Boolean(packed));
  if (!packed) return;
  const check = packed.bit_exact
    ? h("span", { class: "good" }, h("strong", {}, "Bit-exact:"), " the output equals the int8 CPU network bit for bit.")
    : h("span", { class: "bad" }, h("strong", {}, "Not bit-exact:"), " the output differs from the int8 CPU network.");
  const top1 = ` Top-1 class ${packed.top1} (float network: ${packed.float_top1}).`;
  fill($("packed-check"), check, top1);
  const rows = [["tuned", "Tuned"], ["untuned", "Untuned (default configs)"]].map(([key, label]) => {
    const t = packed[key];
    return h(
      "tr",
      { "data-build": key },
      h("th", { scope: "row" }, label + (doc.delivered === key ? " (delivered)" : "")),
      h("td", { class: "num" }, fmt(t.accel_ms, 3)),
      h("td", { class: "num" }, fmt(t.cpu_ms, 3)),
      h("td", { class: "num" }, fmt(t.total_ms, 3)),
    );
  });
  fill($("packed-times").querySelector("tbody"), rows);
  const numpy = packed.tuned.cpu_ms - packed.cpu_compiled_ms;
  $("packed-cpu").textContent = `CPU part: ${fmtMs(packed.cpu_compiled_ms)} compiled stem and head, ${fmtMs(numpy)} quantize, layout and residual adds. ${packed.kernels.length} packed convs, ${packed.kernels.filter((k) => k.source === "record").length} with a tuned config.`;
  const device = packed.device;
  $("packed-cycles").textContent = device ? `${fmtInt(device.cycles)} cycles over the packed convs of the tuned build.` : "The device reported no cycle counts.";
  const shares = device ? Object.entries(device.busy_share) : [];
  fill(
    $("packed-busy"),
    shares.map(([module, share]) => {
      const bar = h("span", { class: "bar__fill bar__fill--tuned" });
      bar.style.width = `${(share * 100).toFixed(1)}%`;
      return h(
        "div",
        { class: "bar", "data-module": module },
        h("dt", {}, module),
        h("dd", {}, h("span", { class: "bar__track" }, bar), h("span", { class: "bar__value" }, `${(share * 100).toFixed(0)}%`)),
      );
    }),
  );
}

/** One sentence on in-network selection ("" when it did not run or changed nothing). */
function selectionText(selection) {
  if (!selection || !selection.changed || selection.changed.length === 0) return "";
  const n = selection.changed.length;
  const tasks = n === 1 ? "1 task" : `${n} tasks`;
  return ` Timed inside the network on the device, ${tasks} of ${selection.tasks} switched config, saving ${fmtMs(selection.saved_ms)} per run.`;
}

function speedup(ratio, what) {
  const faster = ratio >= 1;
  return h(
    "span",
    { class: faster ? "good" : "bad" },
    h("strong", {}, `${fmt(faster ? ratio : 1 / ratio)}×`),
    ` ${faster ? "faster" : "slower"} than ${what}`,
  );
}

/** What the record store gave a task: a badge when it was reused (with the trials it saved),
 * else its "N trials in store, best X GFLOP/s" as a note under the workload. */
function storeBadge(t) {
  if (!t.store) return null;
  if (t.reused) {
    return h("span", { class: "tag tag--store", title: t.store, "data-reused": "true" },
      `from store: ${fmtInt(t.trials_saved || 0)} trials saved`);
  }
  return h("span", { class: "cell-sub store-note" }, t.store);
}

function drawTasks(doc) {
  const rows = [...view.tasks.values()].sort((a, b) => a.id - b.id);
  const running = !TERMINAL.has(doc.state);
  fill(
    $("tasks-table").querySelector("tbody"),
    rows.map((t) =>
      h(
        "tr",
        {
          "data-task": t.id,
          class: running && t.id === view.activeTask ? "is-active" : null,
          "aria-current": running && t.id === view.activeTask ? "true" : null,
        },
        h("td", { class: "num" }, t.id),
        h(
          "td",
          { class: "workload", title: t.workload_key || "" },
          h("span", { class: "mono" }, t.task || t.workload_key),
          storeBadge(t),
        ),
        h("td", { class: "num" }, fmtInt(t.weight)),
        h("td", { class: "num" }, t.latency_ms ? fmt(t.latency_ms, 3) : DASH),
        h("td", { class: "num" }, t.gflops ? fmt(t.gflops) : DASH),
        h("td", { class: "num" }, fmtInt(t.trials || 0)),
      ),
    ),
  );
  show($("tasks-table").closest(".table-scroll"), rows.length > 0);
  show($("tasks-empty"), rows.length === 0);
  const tuned = rows.filter((t) => t.gflops).length;
  $("tasks-count").textContent = rows.length ? `${rows.length} tasks, ${tuned} with a measurement` : "";
}

function drawCharts() {
  const ids = [...view.gflops.keys()].sort((a, b) => a - b);
  const series = ids.map((id) => ({
    key: id,
    label: `Task ${id}`,
    ...seriesStyle(id),
    points: view.gflops.get(id),
  }));
  gflopsChart.highlighted = view.highlighted;
  gflopsChart.set(series);
  drawLegend(series);
  const latency = { key: "latency", label: "Estimated latency", ...seriesStyle(0), points: view.latency };
  latencyChart.set(view.latency.length ? [latency] : []);
}

/** Legend entries are toggle buttons: pressing one brings its task's line to the front. */
function drawLegend(series) {
  fill(
    $("gflops-legend"),
    series.map((s) => {
      const best = Math.max(...s.points.map((p) => p[1]));
      const swatch = h("span", { class: "legend__swatch", "aria-hidden": "true" });
      swatch.style.background = s.color;
      if (s.dash) swatch.classList.add("legend__swatch--dashed");
      return h(
        "li",
        {},
        h(
          "button",
          {
            type: "button",
            class: "legend__item",
            "aria-pressed": view.highlighted === s.key ? "true" : "false",
            onclick: () => {
              view.highlighted = view.highlighted === s.key ? null : s.key;
              redraw();
            },
          },
          swatch,
          `${s.label} `,
          h("span", { class: "muted" }, `${fmt(best)} GFLOPS`),
        ),
      );
    }),
  );
}

function drawErrors(doc) {
  const kinds = Object.entries(doc.errors || {}).sort((a, b) => b[1] - a[1]);
  fill(
    $("errors-table").querySelector("tbody"),
    kinds.map(([kind, n]) => h("tr", {}, h("td", { class: "mono" }, kind), h("td", { class: "num" }, fmtInt(n)))),
  );
  show($("errors-wrap"), kinds.length > 0);
  const total = kinds.reduce((sum, [, n]) => sum + n, 0);
  $("errors-empty").textContent = kinds.length
    ? `${fmtInt(total)} candidate${total === 1 ? "" : "s"} failed to build or run; failures cost trials but not correctness.`
    : TERMINAL.has(doc.state) ? "No measurement errors." : "No measurement errors so far.";
  const latest = view.errorEvents.slice(-ERROR_EVENTS_SHOWN).reverse();
  fill(
    $("error-events"),
    latest.map((e) => h("li", {}, timeAgo(e.time), " ", h("span", { class: "mono" }, e.message))),
  );
  show($("events-title"), latest.length > 0);
}

function drawActions(doc) {
  const finished = TERMINAL.has(doc.state);
  const cancel = $("cancel-button");
  cancel.disabled = finished || !CAN_SUBMIT || doc.cancel_requested;
  cancel.textContent = doc.cancel_requested && !finished ? "Cancelling…" : "Cancel job";
  if (finished) show($("cancel-confirm"), false);
  const artifact = $("download-artifact");
  if (ARTIFACT_STATES.has(doc.state) || (doc.latency_ms && doc.latency_ms.tuned)) {
    artifact.href = artifact.dataset.href;
    artifact.removeAttribute("aria-disabled");
    artifact.removeAttribute("role");
    artifact.title = "The compiled network (.tfa)";
  }
}

// -- cancel -------------------------------------------------------------------------------------
function askCancel() {
  show($("cancel-confirm"));
  $("cancel-yes").focus();
}

function keepRunning() {
  show($("cancel-confirm"), false);
  $("cancel-button").focus();
}

async function cancel() {
  show($("cancel-confirm"), false);
  $("cancel-button").disabled = true;
  try {
    applyDoc(await api(`${BASE}/cancel`, { method: "POST" }));
    notice("Cancel requested: the job stops after its current batch.");
  } catch (error) {
    notice(`Could not cancel: ${errorText(error)}`);
    await loadDoc();
  }
  redraw();
}

$("cancel-button").addEventListener("click", askCancel);
$("cancel-yes").addEventListener("click", cancel);
$("cancel-no").addEventListener("click", keepRunning);
$("cancel-confirm").addEventListener("keydown", (event) => event.key === "Escape" && keepRunning());
setInterval(() => view.doc && fill($("stat-age"), timeAgo(view.doc.created)), 10_000);

await loadDoc();
if (view.doc) openStream();
