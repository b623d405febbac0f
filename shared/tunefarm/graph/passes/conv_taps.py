"""Dead kernel taps: a conv tap that reads only padding, at every output position, adds zero.

DeepLabV3's ASPP runs 3x3 convs with dilation 12, 24 and 36 (padding the same) on a 14x14
map: with dilation 24 or 36 every tap but the centre reads rows and columns 24 or 36 away,
all of them padding, so the conv is a 1x1 conv done nine times over, the eight other taps
multiplying zeros (and, with a padded copy, over a map padded to 86x86). This pass cuts
each kernel axis to the taps that read at least one real input element and shifts the
padding to match, so the output, its shape and every value it holds stay the same. A
kernel left 1x1 drops its dilation. Exact: only products with zero padding are removed.

At rate 12 on the same map every tap reads some input, but only for a few output rows and
columns: the outer kernel rows reach the map from output rows 0-1 and 12-13 alone, so 82%
of the conv's products multiply padding. `split_bands` cuts such a conv (stride 1, live
products at most `BAND_SHARE` of all) into regions of output rows and columns that see the
same taps: each region a padding-free conv over a slice of the input with only its taps
(the centre region a 1x1 conv), the regions concatenated back. Same arithmetic per output
element, the products with padding left out.
"""

from __future__ import annotations

from tunefarm.graph.ir import Graph, Node, Value

BAND_SHARE = 0.5  # split a conv into bands when at most this share of its products is live


def live_taps(size: int, k: int, stride: int, pad0: int, dilation: int, out: int) -> range:
    """The taps of one kernel axis that read an in-bounds element for some output
    position: tap t reads o * stride + t * dilation - pad0 for o in [0, out)."""
    last = (out - 1) * stride
    alive = [t for t in range(k) if t * dilation - pad0 <= size - 1 and last + t * dilation >= pad0]
    return range(alive[0], alive[-1] + 1) if alive else range(0)


def _trim(g: Graph, node: Node) -> None:
    weight = g.params[node.inputs[1]]
    _, _, h, w = g.shape(node.inputs[0])
    _, _, oh, ow = g.shape(node.outputs[0])
    strides = list(node.attrs.get("strides", [1, 1]))
    pads = list(node.attrs.get("padding", [0, 0, 0, 0]))
    dilation = list(node.attrs.get("dilation", [1, 1]))
    keep, new_pads = [], list(pads)
    for axis, (size, out) in enumerate(((h, oh), (w, ow))):
        k = weight.shape[2 + axis]
        taps = live_taps(size, k, strides[axis], pads[axis], dilation[axis], out)
        if not taps:  # nothing reads the input: leave such a conv alone
            return
        begin = pads[axis] - taps.start * dilation[axis]
        span = (len(taps) - 1) * dilation[axis] + 1
        end = (out - 1) * strides[axis] + span - size - begin
        if begin < 0 or end < 0:
            return
        keep.append(taps)
        new_pads[axis], new_pads[axis + 2] = begin, end
    if all(len(t) == weight.shape[2 + a] for a, t in enumerate(keep)):
        return
    trimmed = weight[:, :, keep[0].start : keep[0].stop, keep[1].start : keep[1].stop]
    live = g.add_param(f"{node.name}.weight_live", trimmed.copy())
    node.inputs = [node.inputs[0], live, *node.inputs[2:]]
    node.attrs = {**node.attrs, "padding": new_pads}
    node.attrs["dilation"] = [d if len(t) > 1 else 1 for d, t in zip(dilation, keep, strict=True)]


def trim_dead_taps(graph: Graph) -> Graph:
    """Every conv2d with a constant weight and padding reads only the taps that can see
    its input (see the module doc)."""
    g = graph.copy()
    for node in g.nodes:
        if node.op == "conv2d" and len(node.inputs) >= 2 and g.is_param(node.inputs[1]):
            _trim(g, node)
    return g


def bands(size: int, k: int, pad0: int, dilation: int, out: int) -> list[tuple[int, int, range]]:
    """Runs (first output, end output, live taps) of stride-1 output positions along one
    axis that see the same taps: tap t reads o + t * dilation - pad0."""
    runs: list[tuple[int, int, range]] = []
    for o in range(out):
        lo = max(0, -((o - pad0) // dilation))  # ceil((pad0 - o) / dilation)
        hi = min(k - 1, (size - 1 + pad0 - o) // dilation)
        taps = range(lo, hi + 1) if lo <= hi else range(0)
        if runs and runs[-1][2] == taps:
            runs[-1] = (runs[-1][0], o + 1, taps)
        else:
            runs.append((o, o + 1, taps))
    return runs


def _band_plan(g: Graph, node: Node) -> tuple[list, list] | None:
    """The row and column bands of a conv worth splitting, or None."""
    a = node.attrs
    epilogue = [str(e).split(":")[0] for e in a.get("epilogue", [])]
    if list(a.get("strides", [1, 1])) != [1, 1] or "residual" in epilogue:
        return None
    o = g.shape(node.outputs[0])[1]
    if any(not g.is_param(v) or g.shape(v) != (o,) for v in node.inputs[2:]):
        return None  # only per-channel epilogue inputs (a bias) apply to a region as a whole
    weight = g.params[node.inputs[1]]
    _, _, h, w = g.shape(node.inputs[0])
    _, _, oh, ow = g.shape(node.outputs[0])
    pads, dil = list(a.get("padding", [0, 0, 0, 0])), list(a.get("dilation", [1, 1]))
    rows = bands(h, weight.shape[2], pads[0], dil[0], oh)
    cols = bands(w, weight.shape[3], pads[1], dil[1], ow)
    if len(rows) * len(cols) == 1 or any(not t for *_, t in rows + cols):
        return None
    live = sum((e - b) * len(t) for b, e, t in rows) * sum((e - b) * len(t) for b, e, t in cols)
    if live > BAND_SHARE * oh * ow * weight.shape[2] * weight.shape[3]:
        return None
    return rows, cols


def _value(g: Graph, base: str, shape: tuple[int, ...], dtype: str) -> str:
    name = g.unique_name(base)
    g.values[name] = Value(name, tuple(shape), dtype)
    return name


def _sliced(g: Graph, node: Node, src: str, axis: int, begin: int, end: int, out: list) -> str:
    """`src` cut to [begin, end) along `axis` (a slice node appended to `out`), or `src`
    when that is all of it."""
    shape = list(g.shape(src))
    if begin == 0 and end == shape[axis]:
        return src
    shape[axis] = end - begin
    dst = _value(g, f"{node.name}.in{axis}_{begin}", tuple(shape), g.value(src).dtype)
    attrs = {"axis": axis, "begin": begin, "end": end}
    out.append(Node(g.unique_name(f"{node.name}.slice"), "slice", [src], [dst], attrs))
    return dst


def _concat(g: Graph, node: Node, parts: list[str], axis: int, dst: str | None, out: list) -> str:
    if len(parts) == 1 and dst is None:
        return parts[0]
    shape = list(g.shape(parts[0]))
    shape[axis] = sum(g.shape(p)[axis] for p in parts)
    dtype = g.value(parts[0]).dtype
    dst = dst or _value(g, f"{node.name}.rows", tuple(shape), dtype)
    out.append(Node(g.unique_name(f"{node.name}.concat"), "concat", parts, [dst], {"axis": axis}))
    return dst


def _split(g: Graph, node: Node, rows: list, cols: list) -> list[Node]:
    """The nodes computing `node`'s output region by region (see the module doc)."""
    weight = g.params[node.inputs[1]]
    pads, dil = (
        list(node.attrs.get("padding", [0, 0, 0, 0])),
        list(node.attrs.get("dilation", [1, 1])),
    )
    n, o = g.shape(node.outputs[0])[:2]
    dtype = g.value(node.outputs[0]).dtype
    out: list[Node] = []
    weights: dict[tuple[range, range], str] = {}
    row_parts = []
    for rb, re, rt in rows:
        top = _sliced(g, node, node.inputs[0], 2, rb + rt.start * dil[0] - pads[0],
                      re - 1 + (rt.stop - 1) * dil[0] - pads[0] + 1, out)  # fmt: skip
        parts = []
        for cb, ce, ct in cols:
            src = _sliced(g, node, top, 3, cb + ct.start * dil[1] - pads[1],
                          ce - 1 + (ct.stop - 1) * dil[1] - pads[1] + 1, out)  # fmt: skip
            if (rt, ct) not in weights:
                part = weight[:, :, rt.start : rt.stop, ct.start : ct.stop]
                weights[(rt, ct)] = g.add_param(f"{node.name}.weight_band", part.copy())
            attrs = {
                **node.attrs,
                "padding": [0, 0, 0, 0],
                "dilation": [dil[0] if len(rt) > 1 else 1, dil[1] if len(ct) > 1 else 1],
            }
            dst = _value(g, f"{node.name}.band", (n, o, re - rb, ce - cb), dtype)
            inputs = [src, weights[(rt, ct)], *node.inputs[2:]]
            out.append(Node(g.unique_name(f"{node.name}.band"), "conv2d", inputs, [dst], attrs))
            parts.append(dst)
        row_parts.append(
            _concat(g, node, parts, 3, None if len(rows) > 1 else node.outputs[0], out)
        )
    if len(rows) > 1:
        _concat(g, node, row_parts, 2, node.outputs[0], out)
    return out


def split_bands(graph: Graph) -> Graph:
    """Every stride-1 conv2d most of whose products read padding computed region by region,
    each region with only the taps it sees (see the module doc)."""
    g = graph.copy()
    nodes: list[Node] = []
    for node in g.nodes:
        plan = None
        if node.op == "conv2d" and len(node.inputs) >= 2 and g.is_param(node.inputs[1]):
            plan = _band_plan(g, node)
        nodes += [node] if plan is None else _split(g, node, *plan)
    g.nodes = nodes
    return g
