#!/usr/bin/env python3
"""Helper of eval-structure.sh: how much of a page's structure ll-parse
keeps in its Markdown (record "markdown", docs/parse.md "Structure").

usage: eval_structure.py EXTRACTION_DIR < parsed.ndjson

For each benchmark page, the structures of the source page that belong to
its main content (their text is in the benchmark's ground-truth body) are
counted: headings (h2-h6), list items, code blocks (<pre>), table cells
(of tables at least half of whose cells are in the body) and figures (a
<figure> with an <img> with alt text, when the paragraph after it is in
the body: the benchmark's body leaves captions out).
Each is looked for in the page's Markdown as that structure: a heading
line (#), a list item line (- or N.), a fenced code block, a table row
(| ... |), an image or its alt text in italics. Prints, per kind, the
share kept over all pages.
"""
import gzip
import json
import os
import re
import sys
from html.parser import HTMLParser

sys.path.insert(0, os.path.dirname(__file__))
from extraction_records import decode  # noqa: E402


def squash(s):
    """s without whitespace or the inline marks Markdown adds (emphasis,
    code), so a structure compares equal to its source text."""
    return re.sub(r"[\s*_`]+", "", s)


def inline_text(s):
    """A Markdown line's text: links and images as their text."""
    s = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", s)
    return re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", s)


class Source(HTMLParser):
    """Collects the text of headings, list items, pre, cells and figure
    alts of a page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []  # [(tag, [text parts])] of open elements we collect
        self.found = []  # (kind, text, table id)
        self.tables = 0
        self.table = []
        self.in_figure = 0
        self.alts = []  # the first alt text of each open <figure>
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "style", "noscript", "template"):
            self.skip += 1
        if tag == "table":
            self.tables += 1
            self.table.append(self.tables)
        if tag == "figure":
            self.in_figure += 1
            self.alts.append("")
        if tag == "img" and self.in_figure and a.get("alt", "").strip() and not self.alts[-1]:
            self.alts[-1] = a["alt"].strip()
        kind = {"h2": "heading", "h3": "heading", "h4": "heading", "h5": "heading", "h6": "heading",
                "li": "list item", "pre": "code block", "td": "table cell", "th": "table cell",
                "figure": "figure", "p": "paragraph"}.get(tag)
        if kind:
            self.stack.append((tag, kind, [], self.table[-1] if self.table else 0))

    def handle_endtag(self, tag):
        if tag in ("script", "style", "noscript", "template") and self.skip:
            self.skip -= 1
        if tag == "table" and self.table:
            self.table.pop()
        if tag == "figure" and self.in_figure:
            self.in_figure -= 1
            alt = self.alts.pop()
            # a figure of the main content: its caption is in the body
            for i in range(len(self.stack) - 1, -1, -1):
                if self.stack[i][0] == "figure":
                    _, _, parts, _ = self.stack.pop(i)
                    if alt:
                        self.found.append(("figure", alt, " ".join("".join(parts).split())))
                    break
            return
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                t, kind, parts, tid = self.stack.pop(i)
                text = " ".join("".join(parts).split()) if kind != "code block" else "".join(parts)
                self.found.append((kind, text, tid))
                # the text also belongs to enclosing collected elements
                if self.stack:
                    self.stack[-1][2].append(" " + "".join(parts) + " ")
                break

    def handle_data(self, data):
        if self.skip:
            return
        if self.stack:
            self.stack[-1][2].append(data)


def md_index(md):
    """The Markdown's structures, squashed, by kind."""
    out = {"heading": [], "list item": [], "code block": [], "table cell": [], "figure": []}
    in_code = False
    code = []
    for line in md.split("\n"):
        if line.strip().startswith("```"):
            if in_code:
                out["code block"].append(squash("\n".join(code)))
                code = []
            in_code = not in_code
            continue
        if in_code:
            code.append(line)
            continue
        s = line.strip()
        t = inline_text(s)
        if re.match(r"#{1,6} ", t):
            out["heading"].append(squash(t.lstrip("#")))
        m = re.match(r"(?:[-*+]|\d+[.)])\s+(.*)", t)
        if m:
            out["list item"].append(squash(m.group(1)))
        if t.startswith("|") and t.endswith("|"):
            for cell in t.strip("|").split("|"):
                out["table cell"].append(squash(cell.replace("\\|", "|")))
        for alt in re.findall(r"!\[([^\]]*)\]", s) + re.findall(r"^\*([^*]+)\*$", s):
            out["figure"].append(squash(alt))
    return out


def unescape_md(s):
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", s)


def main():
    directory = sys.argv[1]
    truth = json.load(open(os.path.join(directory, "ground-truth.json")))
    kinds = ["heading", "list item", "code block", "table cell", "figure"]
    total = {k: 0 for k in kinds}
    kept = {k: 0 for k in kinds}
    total_text = {k: 0 for k in kinds}
    kept_text = {k: 0 for k in kinds}
    pages = 0
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        rec = json.loads(line)
        pid = rec.get("bench_id")
        if not pid or pid not in truth:
            continue
        pages += 1
        body = squash(truth[pid].get("articleBody", ""))
        with gzip.open(os.path.join(directory, "html", pid + ".html.gz"), "rb") as f:
            src = Source()
            try:
                src.feed(decode(f.read()))
            except Exception:
                continue
        kept_txt = squash(rec.get("text", ""))
        md = md_index(unescape_md(rec.get("markdown", "")))
        mdsets = {k: set(v) for k, v in md.items()}
        # tables of the main content: at least half their cells in the body
        cells = {}
        for kind, text, tid in src.found:
            if kind == "table cell":
                cells.setdefault(tid, []).append(squash(text) in body if squash(text) else False)
        main_tables = {tid for tid, ins in cells.items() if ins and sum(ins) * 2 >= len(ins)}
        # a figure is the main content's when the paragraph after it is
        nextpara = {}
        pending = []
        for i, (kind, text, tid) in enumerate(src.found):
            if kind == "figure":
                pending.append(i)
            elif kind == "paragraph" and len(squash(text)) >= 40:
                for j in pending:
                    nextpara[j] = squash(text)
                pending = []
        for i, (kind, text, tid) in enumerate(src.found):
            t = squash(text)
            if kind == "paragraph":
                continue
            if kind == "table cell":
                if tid not in main_tables or not t:
                    continue
            elif kind == "figure":
                if len(t) < 4 or nextpara.get(i, "") not in body or not nextpara.get(i):
                    continue
            elif len(t) < 16 or t not in body:
                # a short heading or item ("Tennis") is as likely a menu
                # word the body happens to hold
                continue
            if kind == "code block":
                ok = any(t in c for c in md["code block"])
            elif kind == "figure":
                ok = t in mdsets["figure"]
            else:
                ok = t in mdsets[kind]
            total[kind] += 1
            kept[kind] += ok
            if t in kept_txt or (kind == "figure" and nextpara[i] in kept_txt):
                total_text[kind] += 1
                kept_text[kind] += ok
    print(f"structure kept on {pages} pages: of the main content's structures (their text in the benchmark's body),")
    print("the share present in the Markdown as that structure; then of those whose text ll-parse kept")
    for k in kinds:
        share = kept[k] / total[k] if total[k] else 0
        share_t = kept_text[k] / total_text[k] if total_text[k] else 0
        print(f"  {k + 's':12} {kept[k]:5} of {total[k]:5}  {share:.3f}    text kept: {kept_text[k]:5} of {total_text[k]:5}  {share_t:.3f}")


if __name__ == "__main__":
    main()
