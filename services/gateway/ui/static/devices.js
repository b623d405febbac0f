// The devices page: the tracker's key / total / free / busy / pending table and every live
// agent with its last heartbeat, refreshed every few seconds (agents vanish within the
// heartbeat TTL when they stop).

import { api, badge, errorText, fill, fmtInt, h, poll, show, timeAgo } from "./common.js";

const REFRESH_MS = 3000;
const keysBody = document.querySelector("#keys-table tbody");
const agentsBody = document.querySelector("#agents-table tbody");
const summary = document.getElementById("devices-summary");
const problem = document.getElementById("devices-error");

async function refresh() {
  let data;
  try {
    data = await api("/devices");
  } catch (error) {
    problem.textContent = `Could not load devices: ${errorText(error)}`;
    show(problem);
    return;
  }
  show(problem, false);
  const { devices, agents } = data;
  fill(keysBody, devices.map(keyRow));
  fill(agentsBody, agents.map(agentRow));
  showTable("keys", devices.length);
  showTable("agents", agents.length);
  const pending = devices.reduce((sum, d) => sum + (d.pending || 0), 0);
  summary.textContent =
    `${devices.length} device key${devices.length === 1 ? "" : "s"}, ` +
    `${agents.length} agent${agents.length === 1 ? "" : "s"}, ${fmtInt(pending)} measurement${pending === 1 ? "" : "s"} pending`;
}

function showTable(name, count) {
  show(document.getElementById(`${name}-table`).closest(".table-scroll"), count > 0);
  show(document.getElementById(`${name}-empty`), count === 0);
}

function keyRow(d) {
  return h(
    "tr",
    { "data-key": d.key },
    h("th", { scope: "row", class: "mono" }, d.key),
    h("td", { class: "num" }, fmtInt(d.total)),
    h("td", { class: "num" }, fmtInt(d.free)),
    h("td", { class: "num" }, fmtInt(d.busy ?? d.total - d.free)),
    h("td", { class: "num" }, fmtInt(d.pending)),
  );
}

function agentRow(a) {
  return h(
    "tr",
    { "data-agent-id": a.agent_id },
    h("td", { class: "mono" }, a.key),
    h("td", {}, a.host ?? "—"),
    h("td", { class: "mono" }, a.target),
    h("td", {}, badge(a.state === "busy" ? "busy" : "free")),
    h("td", { class: "num" }, fmtInt(a.measured)),
    h("td", { class: "num" }, timeAgo(a.last_heartbeat)),
    h("td", { class: "num" }, timeAgo(a.started)),
    h("td", { class: "mono cell-sub" }, a.pid == null ? a.agent_id : `${a.agent_id} · pid ${a.pid}`),
  );
}

poll(refresh, REFRESH_MS);
