// The submit form: device keys come from the live tracker; the form is posted to the API as
// multipart (the .onnx as `model`), and the API's own messages (the 400's `fields`) are shown
// next to their fields, so the UI never disagrees with the API about what is valid.

import { ApiError, api, errorText, fill, h, show } from "./common.js";

const form = document.getElementById("submit-form");
const button = document.getElementById("submit-button");
const status = document.getElementById("submit-status");
const summary = document.getElementById("form-summary");
const deviceSelect = document.getElementById("device_key");
const targetInput = document.getElementById("target");
const quantizeSelect = document.getElementById("quantize");
const targetOptions = document.getElementById("target-options");
// the packed (VTA) targets, always offered: they need quantize int8
const PRESET_TARGETS = (targetOptions.dataset.presets || "").split("|").filter(Boolean);
const PLAIN_FIELDS = ["name", "target", "device_key", "trials", "tuner", "policy", "early_stopping", "select_top", "batch", "input_shapes", "quantize"];
const FIELD_LABELS = {
  model: "Model", name: "Job name", target: "Target", device_key: "Device key", trials: "Trial budget",
  tuner: "Tuner", policy: "Search policy", early_stopping: "Early stopping", select_top: "In-network selection", batch: "Batch size",
  input_shapes: "Input shapes", quantize: "Quantization",
};

let targetsByKey = {};
let targetEdited = false;
let quantizeEdited = false;

// -- the model source: a zoo name or an upload -------------------------------------------------
function source() {
  return form.querySelector("input[name=source]:checked").value;
}

function showSource() {
  for (const el of form.querySelectorAll("[data-source]")) show(el, el.dataset.source === source());
}

/** The input that shows an API field's message (the model's depends on the source). */
function inputFor(field) {
  if (field === "model") return document.getElementById(source() === "upload" ? "model-file" : "model-zoo");
  return PLAIN_FIELDS.includes(field) ? document.getElementById(field) : null;
}

// -- device keys from the tracker --------------------------------------------------------------
async function loadDevices() {
  let data;
  try {
    data = await api("/devices");
  } catch (error) {
    fill(deviceSelect, h("option", { value: "" }, "Devices unavailable"));
    status.textContent = `Could not load devices: ${errorText(error)}`;
    return;
  }
  targetsByKey = {};
  for (const agent of data.agents) (targetsByKey[agent.key] ||= new Set()).add(agent.target);
  const options = data.devices.map((d) =>
    h("option", { value: d.key }, `${d.key} (${d.total} agent${d.total === 1 ? "" : "s"}, ${d.free} free)`),
  );
  if (!options.length) options.push(h("option", { value: "" }, "No live device agents"));
  fill(deviceSelect, options);
  const targets = new Set([...data.agents.map((a) => a.target), ...PRESET_TARGETS]);
  fill(targetOptions, [...targets].map((t) => h("option", { value: t })));
  suggestTarget();
}

/** Fill the target from the chosen key's agents until the user types their own. */
function suggestTarget() {
  const targets = targetsByKey[deviceSelect.value];
  if (!targetEdited && targets && targets.size === 1) targetInput.value = [...targets][0];
  suggestQuantize();
}

/** A vta target runs int8 only: choose it (and none for other targets) until the user picks. */
function suggestQuantize() {
  if (quantizeEdited) return;
  const packed = targetInput.value.trim().split(/\s+/)[0] === "vta";
  quantizeSelect.value = packed ? "int8" : "";
}

// -- errors next to fields ---------------------------------------------------------------------
function clearErrors() {
  for (const slot of form.querySelectorAll("[data-error-for]")) {
    const input = document.getElementById(slot.dataset.errorFor);
    slot.textContent = "";
    show(slot, false);
    input.removeAttribute("aria-invalid");
    input.closest(".field").classList.remove("field--invalid");
  }
  show(summary, false);
}

function showFieldError(input, message) {
  const slot = document.getElementById(`${input.id}-error`);
  slot.textContent = message;
  show(slot);
  input.setAttribute("aria-invalid", "true");
  const described = new Set((input.getAttribute("aria-describedby") || "").split(" ").filter(Boolean));
  described.add(slot.id);
  input.setAttribute("aria-describedby", [...described].join(" "));
  input.closest(".field").classList.add("field--invalid");
  const details = input.closest("details");
  if (details) details.open = true;
}

/** The API's field messages next to their inputs, and a summary linking to each. */
function showErrors(error) {
  const fields = (error instanceof ApiError && error.body.fields) || {};
  const items = [];
  for (const [field, message] of Object.entries(fields)) {
    const input = inputFor(field);
    if (input) showFieldError(input, message);
    const label = FIELD_LABELS[field] || field;
    items.push(h("li", {}, input ? h("a", { href: `#${input.id}` }, `${label}: ${message}`) : `${label}: ${message}`));
  }
  const count = items.length;
  document.getElementById("form-summary-text").textContent = count
    ? `The job was not submitted: ${count} field${count === 1 ? " needs" : "s need"} attention.`
    : `The job was not submitted: ${errorText(error)}`;
  fill(document.getElementById("form-summary-list"), items);
  show(summary);
  summary.focus();
}

// -- submitting ---------------------------------------------------------------------------------
function formData() {
  const data = new FormData();
  if (source() === "upload") {
    const file = document.getElementById("model-file").files[0];
    if (file) data.append("model", file, file.name);
  } else {
    data.append("model", document.getElementById("model-zoo").value);
  }
  for (const field of PLAIN_FIELDS) data.append(field, document.getElementById(field).value);
  return data;
}

async function submit(event) {
  event.preventDefault();
  clearErrors();
  button.disabled = true;
  status.textContent = "Submitting…";
  try {
    const job = await api("/jobs", { method: "POST", body: formData() });
    status.textContent = `Submitted ${job.id}; opening it…`;
    location.assign(`/jobs/${encodeURIComponent(job.id)}`);
  } catch (error) {
    status.textContent = "";
    showErrors(error);
    button.disabled = false;
  }
}

for (const radio of form.querySelectorAll("input[name=source]")) radio.addEventListener("change", showSource);
deviceSelect.addEventListener("change", suggestTarget);
targetInput.addEventListener("input", () => {
  targetEdited = true;
  suggestQuantize();
});
quantizeSelect.addEventListener("change", () => (quantizeEdited = true));
form.addEventListener("submit", submit);
showSource();
loadDevices();
