"""docs/ stands alone and stays true: generated tables are fresh, links and anchors resolve,
the generated tables say what the rules say (checked against hand-derived values), and a
table that moves in the code makes the generator fail instead of vanishing."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from npu_emu import _docgen

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE_REF = re.compile(r"docs/([A-Za-z0-9_-]+\.md)(?:#([A-Za-z0-9_-]+))?")


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lowercase, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    out, seen, fence = set(), {}, False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            fence = not fence
            continue
        if fence:
            continue
        m = re.match(r"#{1,6}\s+(.*)", line)
        if m:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else f"{s}-{n}")
        out.update(re.findall(r'<a id="([^"]+)"', line))
    return out


def table(text: str, title: str) -> dict[tuple[str, str], str]:
    """The cells of the markdown grid after heading `title`: (row, column) -> text."""
    start = text.index(title)
    lines = [ln for ln in text[start:].splitlines()[1:] if ln.strip()]
    rows = []
    for ln in lines:
        if not ln.startswith("|"):
            break
        rows.append([c.strip() for c in ln.strip("|").split("|")])
    head, body = rows[0], rows[2:]
    return {(r[0].strip("*"), h): c for r in body for h, c in zip(head[1:], r[1:])}


def test_generated_blocks_are_fresh():
    assert _docgen.stale() == [], "docs/ is stale: run python -m npu_emu._docgen"


def test_every_generator_has_a_block_and_every_block_a_generator():
    used = _docgen.used_blocks()
    assert set(_docgen.GENERATORS) <= set(used)
    for name in used:
        assert _docgen.generator_for(name)().strip(), name
    assert all(len(files) == 1 for files in used.values()), used


def test_a_block_per_rule_set():
    from npu_emu.dtypes import RULE_SETS
    name = next(iter(RULE_SETS))
    assert _docgen.generator_for(f"promotion-{name}")() in _docgen.GENERATORS["promotion"]()
    assert _docgen.generator_for(f"conversion-{name}")() in _docgen.GENERATORS["conversion"]()
    with pytest.raises(_docgen.DocgenError, match="rule set 'nope'"):
        _docgen.generator_for("promotion-nope")()


def test_check_mode_names_a_stale_block(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(DOCS, docs)
    page = docs / "socs.md"
    text = page.read_text()
    page.write_text(text.replace("| `Ascend950` |", "| `Ascend9999` |", 1))
    assert _docgen.stale(docs) == ["socs.md: socs"]
    r = subprocess.run([sys.executable, "-m", "npu_emu._docgen", "--check"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


def test_unknown_block_is_refused():
    with pytest.raises(_docgen.DocgenError, match="unknown generated block 'nope'"):
        _docgen.render("<!-- generated: nope -->\n<!-- end generated -->\n", "x.md")


@pytest.mark.parametrize("module, name, block", [
    ("npu_emu.ops.inplace_copy", "DTYPES", "op-dtypes"),
    ("npu_emu.arch", "SOCS", "socs"),
    ("npu_emu.dtypes", "RULE_SETS", "promotion"),
    ("npu_emu.ops.format_cast", "CONVERSIONS", "format-cast"),
    ("npu_emu.status", "TRANSLATE", "status-translate"),
    ("npu_emu.aclnn", "OPERATORS", "operators"),
])
def test_a_table_that_moved_fails_loudly(monkeypatch, module, name, block):
    import importlib
    monkeypatch.delattr(importlib.import_module(module), name)
    with pytest.raises(_docgen.DocgenError, match=re.escape(f"{module}.{name}")):
        _docgen.GENERATORS[block]()


def test_a_status_code_without_a_meaning_fails(monkeypatch):
    from npu_emu import status
    monkeypatch.setitem(status.STATUS_NAMES, 999999, "ACLNN_ERR_NEW")
    with pytest.raises(_docgen.DocgenError, match="ACLNN_ERR_NEW"):
        _docgen.GENERATORS["status"]()


def test_an_operator_without_a_dtype_source_fails(monkeypatch):
    from npu_emu import aclnn
    op = aclnn.OPERATORS["aclnnExpand"]
    import dataclasses
    monkeypatch.setitem(aclnn.OPERATORS, "aclnnNew", dataclasses.replace(op, name="New"))
    with pytest.raises(_docgen.DocgenError, match="aclnnNew"):
        _docgen.GENERATORS["op-dtypes"]()


def test_every_rule_set_has_its_tables():
    from npu_emu.dtypes import RULE_SETS
    text = (DOCS / "dtypes.md").read_text()
    for name in RULE_SETS:
        assert f"#### Promotion, rule set `{name}`" in text
        assert f"#### Result conversion, rule set `{name}`" in text


def test_promotion_tables_hold_the_documented_cells():
    text = (DOCS / "dtypes.md").read_text()
    doc = table(text, "#### Promotion, rule set `documented`")
    # The documents' examples and rules, by hand.
    assert doc["f16", "f32"] == doc["f32", "f16"] == "f32"
    assert doc["f32", "bool"] == doc["bool", "f32"] == "f32"
    assert doc["bf16", "f16"] == doc["f16", "bf16"] == "f32"
    assert doc["s8", "u8"] == "s16"
    assert doc["f64", "c32"] == "c64"
    assert doc["bool", "bool"] == "bool"
    assert ("u16", "s8") not in doc and ("s8", "u16") not in doc
    assert "u16, u32, u64" in text[text.index("rule set `documented`"):text.index("rule set `implementation`")]
    imp = table(text, "#### Promotion, rule set `implementation`")
    assert imp["f64", "c32"] == imp["c32", "f64"] == "c128"
    assert imp["bf16", "c32"] == "c64"
    assert imp["u16", "c64"] == "c64" and imp["c64", "u16"] == "·"
    assert imp["u64", "c64"] == "c128"


def test_conversion_tables_hold_the_documented_rules():
    text = (DOCS / "dtypes.md").read_text()
    doc = table(text, "#### Result conversion, rule set `documented`")
    assert doc["s32", "f16"] == "yes"          # integer to floating
    assert doc["f32", "s32"] == "·"            # floating never to integer
    assert doc["bool", "c64"] == "yes"         # bool to everything
    assert doc["s8", "bool"] == "·"            # nothing else to bool
    assert doc["c64", "f32"] == doc["f32", "c64"] == "·"
    imp = table(text, "#### Result conversion, rule set `implementation`")
    assert imp["f32", "c64"] == "yes" and imp["c64", "f32"] == "·"
    assert imp["hif8", "s8"] == "·" and imp["s8", "hif8"] == "yes"


def test_hifloat8_tables_hold_the_format():
    text = (DOCS / "conversions.md").read_text()
    rows = dict(re.findall(r"\| `0x([0-9A-F]{2})` \| `[01 ]+` \| ([^|]+) \|", text))
    assert rows["00"].strip() == "0" and rows["80"].strip() == "NaN"
    assert rows["6E"].strip() == "32768" and rows["6F"].strip() == "+Inf"
    assert rows["EF"].strip() == "-Inf" and rows["01"].strip() == "2^-22"
    assert rows["08"].strip() == "1" and rows["88"].strip() == "-1"
    enc = dict(re.findall(r"\| ([^|`]+?) \| `0x([0-9A-F]{2})` \|", text))
    assert enc["40959"] == "6E" and enc["40960"] == "6F"      # no saturation past 32768
    assert enc["1.0625"] == "09"                               # half away from zero: 1.125
    assert enc["2^-24"] == "00" and enc["2^-23"] == "01"


def test_status_table_lists_the_codes():
    text = (DOCS / "status-codes.md").read_text()
    found = {int(v) for v in re.findall(r"\| `ACL\w+` \| (\d+) \|", text)}
    assert {0, 161001, 161002, 361001, 561000, 561003, 561102, 100000, 100001, 107002, 200000,
            200002, 500000} <= found


def test_every_operator_has_a_section():
    from npu_emu.aclnn import OPERATORS
    have = anchors(DOCS / "operators.md")
    assert {name.lower() for name in OPERATORS} <= have


def _doc_links(path: Path) -> list[tuple[str, str]]:
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
    return [(path.name, target) for target in LINK.findall(text)]


def test_links_and_anchors_resolve():
    pages = sorted(DOCS.glob("*.md")) + [ROOT / "README.md", ROOT / "benchmarks" / "RESULTS.md"]
    bad = []
    for page in pages:
        for name, target in _doc_links(page):
            if re.match(r"[a-z]+://", target) or target.startswith("mailto:"):
                continue
            file, _, anchor = target.partition("#")
            dest = (page.parent / file).resolve() if file else page
            if not dest.exists():
                bad.append(f"{page.relative_to(ROOT)}: {target} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                bad.append(f"{page.relative_to(ROOT)}: {target} (no such anchor)")
    assert not bad, "\n".join(bad)


def test_code_references_into_docs_resolve():
    """What the code and its messages cite (a docs page and anchor) exists."""
    bad = []
    files = ([p for p in (ROOT / "npu_emu").rglob("*.py")] + list((ROOT / "kernels_cuda").iterdir())
             + list((ROOT / "examples").glob("*.py")) + list((ROOT / "tests").rglob("*.py"))
             + [ROOT / "README.md"])
    for path in files:
        for file, anchor in CODE_REF.findall(path.read_text(errors="replace")):
            dest = DOCS / file
            if not dest.exists():
                bad.append(f"{path.relative_to(ROOT)}: docs/{file}")
            elif anchor and anchor not in anchors(dest):
                bad.append(f"{path.relative_to(ROOT)}: docs/{file}#{anchor}")
    assert not bad, "\n".join(bad)


def test_docs_stand_alone():
    for page in DOCS.glob("*.md"):
        text = page.read_text()
        for internal in ("SPEC.md", "DESIGN.md", "SPEC §", "STYLE.md"):
            assert internal not in text, f"{page.name} sends the reader to {internal}"
