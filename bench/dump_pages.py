"""Dump tamis's page text for fixed pages, to prove a refactor of extraction changes no byte.

    python bench/dump_pages.py OUT.jsonl [--heldout DIR]
    cmp before.jsonl after.jsonl

One JSON line per WCXB dev page (``$HELDOUT`` or ``../shared/fixtures/extract-dev``): its key,
and the title, markdown, method and page type ``extract_page`` gives, with the counts of hidden
elements it cut. Run it on two checkouts and ``cmp`` the files.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from tamis.extract.html import extract_page


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--heldout", type=Path, default=Path(os.environ.get(
        "HELDOUT", Path(__file__).resolve().parents[2] / "shared" / "fixtures" /
        "extract-dev")))
    args = parser.parse_args()
    root = args.heldout / "extract" / "wcxb"
    if not (root / "truth.json").exists():
        sys.exit(f"error: no WCXB pages under {root}")
    truth = json.loads((root / "truth.json").read_text())
    with args.out.open("w", encoding="utf-8") as out:
        for key in sorted(truth):
            html = (root / "html" / truth[key]["html"]).read_bytes().decode("utf-8", "replace")
            page = extract_page(html, truth[key].get("url") or None)
            out.write(json.dumps({"key": key, "title": page.title, "markdown": page.markdown,
                                  "method": page.method, "type": page.page_type,
                                  "hidden": dict(sorted(page.hidden.items()))},
                                 ensure_ascii=False) + "\n")
    print(f"wrote {len(truth)} pages to {args.out}")


if __name__ == "__main__":
    main()
