// The records page: per target, every workload the store holds with its trials, best GFLOP/s
// and when that best was measured (GET /api/v1/records/stats), refreshed every few seconds.

import { api, errorText, fill, fmt, fmtInt, h, poll, show, timeAgo } from "./common.js";

const REFRESH_MS = 60000; // the stats of a million-record store take seconds to gather
const targets = document.getElementById("records-targets");
const summary = document.getElementById("records-summary");
const problem = document.getElementById("records-error");

async function refresh() {
  let data;
  try {
    data = await api("/records/stats");
  } catch (error) {
    problem.textContent = `Could not load the record store: ${errorText(error)}`;
    show(problem);
    return;
  }
  show(problem, false);
  const byTarget = new Map();
  for (const row of data.by_workload) {
    if (!byTarget.has(row.target)) byTarget.set(row.target, []);
    byTarget.get(row.target).push(row);
  }
  fill(targets, [...byTarget.entries()].map(([target, rows]) => targetCard(target, rows)));
  show(document.getElementById("records-empty"), byTarget.size === 0);
  summary.textContent =
    `${fmtInt(data.records)} record${data.records === 1 ? "" : "s"} of ` +
    `${fmtInt(data.workloads)} workload${data.workloads === 1 ? "" : "s"} on ` +
    `${fmtInt(data.targets)} target${data.targets === 1 ? "" : "s"}` +
    (data.fleet ? " (your tenant's and the fleet's)" : " (your tenant's)");
}

function targetCard(target, rows) {
  const id = `target-${target.replace(/[^A-Za-z0-9]+/g, "-")}`;
  return h(
    "section",
    { class: "card card--flush", "aria-labelledby": id, "data-target": target },
    h("h2", { class: "card__title mono", id }, target),
    h(
      "div",
      { class: "table-scroll", role: "region", "aria-labelledby": id, tabindex: "0" },
      h(
        "table",
        { class: "table records-table" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", { scope: "col" }, "Workload"),
            h("th", { scope: "col" }, "Op"),
            h("th", { scope: "col", class: "num" }, "Trials"),
            h("th", { scope: "col", class: "num" }, "Best GFLOP/s"),
            h("th", { scope: "col", class: "num" }, "Last improved"),
          ),
        ),
        h("tbody", {}, ...rows.map(workloadRow)),
      ),
    ),
  );
}

function workloadRow(r) {
  return h(
    "tr",
    { "data-workload": r.workload_key },
    h("th", { scope: "row", class: "mono" }, r.workload_key),
    h("td", {}, r.op),
    h("td", { class: "num" }, fmtInt(r.trials)),
    h("td", { class: "num" }, r.best_gflops ? fmt(r.best_gflops) : "–"),
    h("td", { class: "num" }, r.last_improved ? timeAgo(r.last_improved) : "–"),
  );
}

poll(refresh, REFRESH_MS);
