"""Every relative markdown link in README.md and docs/*.md points at a file that exists (and
a README-internal anchor at one of its headings), and every `benchmarks/results-*.json` or
`docs/*.md` path they name exists. Reads files only."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parents[2]
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
NAMED = re.compile(
    r"(?<![\w./-])((?:benchmarks/results-[A-Za-z0-9_.-]+?\.json)|(?:docs/[A-Za-z0-9_-]+\.md))"
)


def _slug(heading: str) -> str:
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    in_code = False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            in_code = not in_code
        if in_code or not line.startswith("#"):
            continue
        slug = _slug(line.lstrip("#"))
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def test_relative_links_resolve():
    bad = []
    for path in FILES:
        for target in LINK.findall(path.read_text()):
            if re.match(r"[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            dest = (path.parent / file) if file else path
            if not dest.exists():
                bad.append(f"{path.name}: {target}")
            elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
                bad.append(f"{path.name}: {target} (no such heading)")
    assert not bad, bad


def test_named_raw_data_and_docs_exist():
    bad = []
    for path in FILES:
        for name in set(NAMED.findall(path.read_text())):
            if not (ROOT / name).exists():
                bad.append(f"{path.name}: {name}")
    assert not bad, bad
