// Hand-written SVG line charts: axes with "nice" ticks, units in the axis titles, one line per
// series, native tooltips on points. Charts are drawn at the container's pixel width (and
// redrawn when it changes), so text stays readable on a narrow window instead of shrinking
// with a scaled viewBox.

import { h } from "./common.js";

export const PALETTE = [
  "#2563eb", "#ea580c", "#16a34a", "#dc2626", "#9333ea",
  "#0891b2", "#ca8a04", "#db2777", "#475569", "#65a30d",
];
const DASHES = [null, "7 4", "2 3"];
const MARGIN = { top: 14, right: 18, bottom: 50, left: 62 };
const MAX_MARKERS = 400; // beyond this many points, lines only (markers would be a blur)

/** Colour and dash of the i-th series: 10 colours, then the same colours dashed. */
export function seriesStyle(i) {
  return { color: PALETTE[i % PALETTE.length], dash: DASHES[Math.floor(i / PALETTE.length) % 3] };
}

/** Ticks at 1, 2 or 5 x 10^k covering [lo, hi], about `count` of them; the domain grows to
 * the outer ticks so lines never leave the plot. */
export function niceTicks(lo, hi, count) {
  if (!(hi > lo)) hi = lo + (lo === 0 ? 1 : Math.abs(lo) * 0.1);
  const raw = (hi - lo) / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw) || 10 * power;
  const start = Math.floor(lo / step) * step;
  const end = Math.ceil(hi / step) * step;
  const ticks = [];
  for (let v = start; v <= end + step / 2; v += step) ticks.push(Number(v.toPrecision(12)));
  return { ticks, lo: start, hi: end, step };
}

function tickFormatter(step) {
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  return (v) => v.toLocaleString("en-US", { maximumFractionDigits: Math.min(decimals + 1, 4) });
}

export class LineChart {
  /**
   * options: xLabel, yLabel (axis titles with units), yFromZero, step (draw as a
   * best-so-far staircase), emptyText, describe(series) -> text for screen readers,
   * pointTitle(series, [x, y]) -> tooltip text.
   */
  constructor(container, options) {
    this.container = container;
    this.options = options;
    this.series = [];
    this.highlighted = null;
    this.width = 0;
    new ResizeObserver(() => {
      if (Math.abs(container.clientWidth - this.width) > 1) this.render();
    }).observe(container);
  }

  /** series: [{key, label, color, dash, points: [[x, y], ...]}] */
  set(series) {
    this.series = series;
    this.render();
  }

  highlight(key) {
    this.highlighted = key;
    this.render();
  }

  render() {
    const { container, options } = this;
    this.width = container.clientWidth;
    const width = Math.max(260, this.width || 600);
    const height = Math.round(Math.min(340, Math.max(230, width * 0.5)));
    const points = this.series.flatMap((s) => s.points);
    const svg = h("svg", {
      class: "chart__svg",
      width,
      height,
      viewBox: `0 0 ${width} ${height}`,
      role: "img",
      "aria-label": options.describe ? options.describe(this.series) : options.yLabel,
    });
    const plot = {
      x0: MARGIN.left,
      x1: width - MARGIN.right,
      y0: height - MARGIN.bottom,
      y1: MARGIN.top,
    };
    const scale = this.scales(points, plot, width, height);
    svg.append(this.axes(scale, plot, width, height, points.length > 0));
    if (!points.length) {
      svg.append(
        h(
          "text",
          { class: "chart__empty", x: (plot.x0 + plot.x1) / 2, y: (plot.y0 + plot.y1) / 2 },
          options.emptyText || "No data yet",
        ),
      );
    }
    const markers = points.length <= MAX_MARKERS;
    const ordered = [...this.series].sort(
      (a, b) => (a.key === this.highlighted) - (b.key === this.highlighted),
    );
    for (const s of ordered) svg.append(this.line(s, scale, markers));
    container.replaceChildren(svg);
  }

  scales(points, plot, width, height) {
    const xs = points.map((p) => p[0]);
    const ys = points.map((p) => p[1]);
    const xMax = xs.length ? Math.max(...xs) * 1.08 : 1; // room so end points sit inside
    let yLo = ys.length ? Math.min(...ys) : 0;
    let yHi = ys.length ? Math.max(...ys) : 1;
    if (this.options.yFromZero) yLo = 0;
    else {
      const pad = (yHi - yLo) * 0.08 || Math.abs(yHi) * 0.05 || 1;
      yLo = Math.max(0, yLo - pad);
      yHi += pad;
    }
    const xt = niceTicks(0, xMax, Math.max(2, Math.floor(width / 90)));
    const yt = niceTicks(yLo, yHi, Math.max(2, Math.floor(height / 55)));
    const x = (v) => plot.x0 + ((v - xt.lo) / (xt.hi - xt.lo)) * (plot.x1 - plot.x0);
    const y = (v) => plot.y0 - ((v - yt.lo) / (yt.hi - yt.lo)) * (plot.y0 - plot.y1);
    return { x, y, xt, yt };
  }

  /** Grid, axes and their titles; tick labels only once there is data to read them by. */
  axes(scale, plot, width, height, labelled) {
    const { x, y, xt, yt } = scale;
    const g = h("g", { class: "chart__axes" });
    const fx = labelled ? tickFormatter(xt.step) : () => "";
    const fy = labelled ? tickFormatter(yt.step) : () => "";
    for (const v of yt.ticks) {
      g.append(h("line", { class: "chart__grid", x1: plot.x0, x2: plot.x1, y1: y(v), y2: y(v) }));
      g.append(h("text", { class: "chart__tick chart__tick--y", x: plot.x0 - 8, y: y(v) }, fy(v)));
    }
    for (const v of xt.ticks) {
      g.append(h("line", { class: "chart__tickmark", x1: x(v), x2: x(v), y1: plot.y0, y2: plot.y0 + 5 }));
      g.append(h("text", { class: "chart__tick chart__tick--x", x: x(v), y: plot.y0 + 18 }, fx(v)));
    }
    g.append(h("line", { class: "chart__axis", x1: plot.x0, x2: plot.x1, y1: plot.y0, y2: plot.y0 }));
    g.append(h("line", { class: "chart__axis", x1: plot.x0, x2: plot.x0, y1: plot.y0, y2: plot.y1 }));
    const midX = (plot.x0 + plot.x1) / 2;
    const midY = (plot.y0 + plot.y1) / 2;
    g.append(h("text", { class: "chart__title chart__title--x", x: midX, y: height - 10 }, this.options.xLabel));
    g.append(
      h(
        "text",
        { class: "chart__title chart__title--y", transform: `translate(16 ${midY}) rotate(-90)` },
        this.options.yLabel,
      ),
    );
    return g;
  }

  line(series, scale, markers) {
    const { x, y } = scale;
    const pts = [...series.points].sort((a, b) => a[0] - b[0]);
    const faded = this.highlighted !== null && this.highlighted !== series.key;
    const g = h("g", {
      class: `chart__series${faded ? " chart__series--faded" : ""}${
        this.highlighted === series.key ? " chart__series--focus" : ""
      }`,
    });
    if (!pts.length) return g;
    let d = `M${x(pts[0][0]).toFixed(1)},${y(pts[0][1]).toFixed(1)}`;
    for (const [px, py] of pts.slice(1)) {
      d += this.options.step
        ? `H${x(px).toFixed(1)}V${y(py).toFixed(1)}`
        : `L${x(px).toFixed(1)},${y(py).toFixed(1)}`;
    }
    g.append(
      h("path", {
        class: "chart__line",
        d,
        stroke: series.color,
        "stroke-dasharray": series.dash,
      }),
    );
    if (markers) {
      for (const p of pts) {
        const title = this.options.pointTitle ? this.options.pointTitle(series, p) : `${p[0]}, ${p[1]}`;
        g.append(
          h(
            "circle",
            { class: "chart__point", cx: x(p[0]), cy: y(p[1]), r: 3, fill: series.color },
            h("title", {}, title),
          ),
        );
      }
    }
    return g;
  }
}
