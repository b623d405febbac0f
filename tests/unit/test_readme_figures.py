"""The README's figures have their raw data under benchmarks/ and the command that made it,
and its network tables say what that data says (issue 25: a claim sat beside a row that
contradicted it). Reads files only: no benchmark runs here."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).parents[2]
README = (ROOT / "README.md").read_text()
RAW = re.compile(r"benchmarks/(results-[A-Za-z0-9_.-]+?\.json)")
NETWORK_HEADER = "| network | ORT ms | untuned ms | tuned ms |"


def test_every_raw_file_the_readme_names_exists_and_is_json():
    names = set(RAW.findall(README))
    assert names, "the README names no raw data"
    for name in sorted(names):
        path = ROOT / "benchmarks" / name
        assert path.is_file(), f"README names benchmarks/{name}, which does not exist"
        json.loads(path.read_text())


def _tables() -> list[tuple[str, list[list[str]]]]:
    """(the text before it, rows) of every network table."""
    out = []
    for part in README.split(NETWORK_HEADER)[1:]:
        rows = []
        for line in part.splitlines()[2:]:  # skip the rest of the header and the rule
            if not line.startswith("|"):
                break
            rows.append([c.strip() for c in line.strip("|").split("|")])
        out.append((part, rows))
    return out


def test_network_tables_match_their_raw_data_and_name_their_command():
    before = README.split(NETWORK_HEADER)
    assert len(before) > 1
    for index, (_, rows) in enumerate(_tables()):
        context = before[index][-1500:]
        names = RAW.findall(context)
        assert names, f"network table {index + 1} names no raw data before it"
        assert "benchmarks/networks.py" in context, f"table {index + 1}: no command"
        raw = json.loads((ROOT / "benchmarks" / names[-1]).read_text())["rows"]
        by_network = {r["network"]: r for r in raw}
        for cells in rows:
            network, ort, untuned, tuned = cells[0], *map(float, cells[1:4])
            data = by_network[network]
            for shown, key in ((ort, "onnxruntime"), (untuned, "untuned"), (tuned, "tuned")):
                assert abs(shown - data[key]) < 0.0051, (network, key, shown, data[key])


def test_claims_of_beating_onnx_runtime_hold_for_every_row_they_cover():
    """'at or below ONNX Runtime on all three' follows the three-network table: each of its
    rows must show tuned <= ORT (as printed), and no BERT row may be counted in it."""
    part, rows = _tables()[0]
    text = part[: part.find(NETWORK_HEADER)] if NETWORK_HEADER in part else part
    if "at or below ONNX Runtime on all three" in text:
        assert len(rows) == 3 and not any("bert" in cells[0] for cells in rows)
        for cells in rows:
            assert float(cells[3]) <= float(cells[1]), cells
