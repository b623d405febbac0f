// The jobs page: every job (newest first) with its progress, refreshed every few seconds;
// the state filter is a set of real links (?state=...), each showing how many jobs it holds.

import {
  api, badge, errorText, fill, fmtMs, h, networkLabel, poll, progress, show, timeAgo,
} from "./common.js";

const REFRESH_MS = 5000;
const LIMIT = 1000; // the API's maximum: enough for the counts of an internal service

const table = document.getElementById("jobs-table");
const body = table.querySelector("tbody");
const empty = document.getElementById("jobs-empty");
const summary = document.getElementById("jobs-summary");
const problem = document.getElementById("jobs-error");
const filter = table.dataset.state;

async function refresh() {
  let jobs;
  try {
    ({ jobs } = await api(`/jobs?limit=${LIMIT}`));
  } catch (error) {
    problem.textContent = `Could not load jobs: ${errorText(error)}`;
    show(problem);
    return;
  }
  show(problem, false);
  const shown = filter ? jobs.filter((job) => job.state === filter) : jobs;
  fill(body, shown.map(row));
  show(empty, shown.length === 0);
  show(table.closest(".table-scroll"), shown.length > 0);
  updateCounts(jobs);
  const running = jobs.filter((j) => !["done", "failed", "cancelled"].includes(j.state)).length;
  summary.textContent = `${jobs.length} job${jobs.length === 1 ? "" : "s"}, ${running} in progress`;
}

function row(job) {
  const link = h("a", { href: `/jobs/${encodeURIComponent(job.id)}`, class: "job-link" }, job.name || job.id);
  const estimate = job.latency_ms && job.latency_ms.tuned ? job.latency_ms.tuned : job.estimated_latency_ms;
  const measured = Boolean(job.latency_ms && job.latency_ms.tuned);
  return h(
    "tr",
    { "data-job-id": job.id, "data-state": job.state },
    h("td", {}, h("div", { class: "cell-main" }, link), h("div", { class: "cell-sub mono" }, job.id)),
    h("td", {}, networkLabel(job.model), job.batch > 1 ? h("span", { class: "cell-sub" }, ` ×${job.batch}`) : null),
    h("td", { class: "mono" }, job.target),
    h("td", { class: "mono" }, job.device_key),
    h("td", {}, badge(job.state)),
    h("td", {}, progress(job.trials_done, job.trials)),
    h(
      "td",
      { class: "num", title: measured ? "measured (tuned)" : "estimated from the task table" },
      fmtMs(estimate),
      measured ? h("span", { class: "cell-sub" }, " measured") : null,
    ),
    h("td", { class: "num" }, timeAgo(job.created)),
  );
}

function updateCounts(jobs) {
  const counts = { "": jobs.length };
  for (const job of jobs) counts[job.state] = (counts[job.state] || 0) + 1;
  for (const el of document.querySelectorAll("[data-count]")) {
    el.textContent = String(counts[el.dataset.count] || 0);
  }
}

poll(refresh, REFRESH_MS);
