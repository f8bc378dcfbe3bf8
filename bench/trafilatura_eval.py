"""Score a page-text extractor on trafilatura's own evaluation set, beside trafilatura.

    python bench/trafilatura_eval.py DATA [--py tamis.extract:extract_text] [--jobs 2]
        [--json OUT] [--show N]

DATA (or ``$TRAFILATURA_EVAL``): a directory holding ``evaldata.json`` and the HTML files it
names under ``eval/`` or ``cache/``: the ``tests/`` folder of adbar/trafilatura (about 990
pages, mostly news and blog articles, in many languages), e.g. from
``git archive HEAD tests/evaldata.json tests/eval tests/cache | tar -x --strip-components=1``.
Nothing of it is in this repository: keep it outside the checkout.

Each page comes with segments that must appear in the main text ("with": the start, the end
and hard parts of the body) and segments that must not ("without": menus, bylines, related
links, comments, footers). The figure is the **accuracy**: the share of pages whose every
"with" segment is present and no "without" segment is. Beside it, counted over segments as
trafilatura's own ``tests/evaluate.py`` does: precision (present "with" / present "with" and
"without"), recall ("with" found / all "with") and F1.

Every extractor gets the same text: the file's bytes decoded by tamis's decoder (meta
charset, then UTF-8, then detection), and the page's URL. Both outputs are markdown; before
matching, markdown syntax is taken out of both alike (emphasis marks, backslash escapes,
line marks of headings, lists, quotes and tables, link targets) and whitespace is collapsed,
so a segment is not missed for a ``**`` inside it. Matching is then substring, on text as is
(trafilatura's matching, after whitespace normalisation).

Comparators, on the same pages: ``trafilatura`` is ``trafilatura.extract`` in markdown with the
options tamis gives it for the page's type (``html.TYPE_OPTIONS``: tables and formatting in,
links and images out, no deduplication; on articles comments out and recall favoured), and
``trafilatura-defaults`` is markdown with trafilatura's defaults (the WCXB tool's baseline).
Their outputs depend only on the page, trafilatura's version and the options: they are kept
in ``DATA/.baseline-<version>.json`` by page and options and computed once.

Pages are split in two halves by a hash of their file name (``half``: MD5's first byte
even -> A, odd -> B), so a rule tuned on one half can be checked on the other.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import re
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from tamis.extract.decode import decode
from tamis.extract.html import DEFAULT_OPTIONS, TYPE_OPTIONS, page_type, trafilatura_module

BASELINES = ("trafilatura", "trafilatura-defaults")

_EMPHASIS = re.compile(r"(\*\*|__|~~|(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*]))")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>~<])")
_LINE_MARK = re.compile(r"(?m)^\s{0,3}(?:#{1,6}\s+|>\s?|[-*+]\s+|\|)")
_TABLE_RULE = re.compile(r"(?m)^[\s|:-]+$")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_SPACE = re.compile(r"\s+")


def plain(text: str | None) -> str:
    """Markdown to whitespace-collapsed text, for substring matching (see the module)."""
    if not text:
        return ""
    text = _LINK.sub(r"\1", text)
    text = _TABLE_RULE.sub(" ", text)
    text = _LINE_MARK.sub("", text)
    text = text.replace(" | ", " ").replace("`", "")
    text = _EMPHASIS.sub("", text)
    text = _ESCAPE.sub(r"\1", text)
    return _SPACE.sub(" ", text).strip()


def segment(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


@dataclass
class Score:
    """One extractor's outcome on one page: segments found of each kind."""

    found_with: int
    total_with: int
    found_without: int
    total_without: int

    @property
    def correct(self) -> bool:
        return self.found_with == self.total_with and self.found_without == 0


def score(item: dict, text: str | None) -> Score:
    flat = plain(text)
    withs = [segment(s) for s in item["with"]]
    withouts = [segment(s) for s in item["without"]]
    return Score(sum(s in flat for s in withs), len(withs),
                 sum(s in flat for s in withouts), len(withouts))


def half(name: str) -> str:
    return "A" if hashlib.md5(name.encode()).digest()[0] % 2 == 0 else "B"


def load(data: Path) -> list[tuple[str, dict, Path]]:
    """(url, annotation, HTML path) for every page whose file is there."""
    items = json.loads((data / "evaldata.json").read_text(encoding="utf-8"))
    pages = []
    for url, item in sorted(items.items()):
        for sub in ("eval", "cache"):
            path = data / sub / item["file"]
            if path.is_file():
                pages.append((url, item, path))
                break
    return pages


def read(path: Path) -> str:
    return decode(path.read_bytes(), "text/html", html=True)


def load_callable(spec: str) -> Callable[[str, str], str | None]:
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


_FUNC: Callable[[str, str], str | None] | None = None


def _init(spec: str) -> None:
    global _FUNC
    _FUNC = load_callable(spec) if spec not in BASELINES else None


def _options(name: str, html: str, url: str) -> dict[str, bool]:
    """The options ``trafilatura.extract`` gets for this page (see the module)."""
    if name == "trafilatura-defaults":
        return {}
    return {"include_tables": True, "include_formatting": True, "include_links": False,
            "include_images": False, "deduplicate": False,
            **TYPE_OPTIONS.get(page_type(html, url), DEFAULT_OPTIONS)}


def _baseline(name: str, html: str, url: str, stored: dict[str, str]) -> tuple[str, str]:
    """(the options' key, trafilatura's output): from ``stored`` (outputs by options' key)
    when it holds the key, else run."""
    module = trafilatura_module()
    if module is None:
        raise SystemExit("error: trafilatura cannot be imported")
    options = _options(name, html, url)
    key = json.dumps(options, sort_keys=True)
    if key in stored:
        return key, stored[key]
    return key, module.extract(html, url=url, output_format="markdown", **options) or ""


def _run(job: tuple[str, str, str, dict[str, str]]) -> tuple[str, str, str]:
    """(url, output, options' key) of the extractor set by ``_init``, or of a baseline
    (outputs stored by options' key in the job)."""
    spec, url, path, stored = job
    html = read(Path(path))
    key = ""
    try:
        if spec in BASELINES:
            key, out = _baseline(spec, html, url, stored)
        else:
            assert _FUNC is not None
            out = _FUNC(html, url) or ""
    except Exception as exc:  # a crash scores as an empty output, named on stderr
        print(f"{spec}: {url}: {type(exc).__name__}: {exc}", file=sys.stderr)
        out = ""
    return url, out, key


def outputs(spec: str, pages: list[tuple[str, dict, Path]], jobs: int,
            stored: dict[str, dict[str, str]] | None = None) -> list[tuple[str, str, str]]:
    """(url, output, options' key) per page; ``stored``: a baseline's kept outputs."""
    work = [(spec, url, str(path), (stored or {}).get(url, {})) for url, _item, path in pages]
    if jobs <= 1:
        _init(spec)
        return list(map(_run, work))
    with ProcessPoolExecutor(jobs, initializer=_init, initargs=(spec,)) as pool:
        return list(pool.map(_run, work, chunksize=8))


def baseline_outputs(name: str, data: Path, pages: list[tuple[str, dict, Path]],
                     jobs: int) -> dict[str, str]:
    """A baseline's output per page, kept in ``DATA/.baseline-<version>.json`` by page and
    options (the page's type decides them: a change of tamis's types or options reruns
    trafilatura on the pages concerned only)."""
    module = trafilatura_module()
    version = getattr(module, "__version__", "unknown")
    cache = data / f".baseline-{version}.json"
    kept = json.loads(cache.read_text()) if cache.exists() else {}
    stored = kept.setdefault(name, {})
    found = {}
    for url, out, key in outputs(name, pages, jobs, stored):
        stored.setdefault(url, {})[key] = out
        found[url] = out
    cache.write_text(json.dumps(kept))
    return found


def summary(pages: list[tuple[str, dict, Path]], scores: dict[str, Score], which: str = ""
            ) -> str:
    chosen = [scores[url] for url, _item, path in pages if not which or half(path.name) == which]
    if not chosen:
        return "no pages"
    tp = sum(s.found_with for s in chosen)
    fp = sum(s.found_without for s in chosen)
    fn = sum(s.total_with - s.found_with for s in chosen)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    accuracy = sum(s.correct for s in chosen) / len(chosen)
    return (f"accuracy {accuracy:.4f} ({sum(s.correct for s in chosen)}/{len(chosen)})"
            f"  segments P {precision:.3f} R {recall:.3f} F1 {f1:.4f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", type=Path,
                        default=os.environ.get("TRAFILATURA_EVAL"),
                        help="the evaluation set's directory (or $TRAFILATURA_EVAL)")
    parser.add_argument("--py", default="tamis.extract:extract_text",
                        help="MODULE:FUNC, a callable (html, url) -> text")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--json", type=Path,
                        help="write per-page outcomes (and the extractor's text) here")
    parser.add_argument("--show", type=int, default=0,
                        help="list this many pages where the extractor and trafilatura differ")
    args = parser.parse_args()
    if args.data is None or not (args.data / "evaldata.json").is_file():
        parser.exit(2, "error: give the evaluation set's directory (holding evaldata.json)"
                       " as DATA or $TRAFILATURA_EVAL\n")
    pages = load(args.data)
    items = {url: item for url, item, _path in pages}
    runs = {name: baseline_outputs(name, args.data, pages, args.jobs) for name in BASELINES}
    runs[args.py] = {url: out for url, out, _key in outputs(args.py, pages, args.jobs)}
    scores = {name: {url: score(items[url], out) for url, out in found.items()}
              for name, found in runs.items()}
    print(f"trafilatura evaluation set: {len(pages)} pages ({args.data})")
    for name in (args.py, *BASELINES):
        for which in ("", "A", "B"):
            label = f"{name} {'half ' + which if which else 'all'}"
            print(f"{label:<42} {summary(pages, scores[name], which)}")
    mine, theirs = scores[args.py], scores["trafilatura"]
    won = [url for url in mine if mine[url].correct and not theirs[url].correct]
    lost = [url for url in mine if theirs[url].correct and not mine[url].correct]
    print(f"pages right for {args.py} only: {len(won)}; for trafilatura only: {len(lost)}")
    for url in lost[:args.show]:
        s = mine[url]
        print(f"  lost {url}  with {s.found_with}/{s.total_with}"
              f" without {s.found_without}/{s.total_without}")
    if args.json:
        args.json.write_text(json.dumps({
            url: {"file": items[url]["file"], "half": half(Path(items[url]["file"]).name),
                  **{name: vars(scores[name][url]) | {"correct": scores[name][url].correct}
                     for name in runs}, "text": runs[args.py][url]} for url in items},
            indent=1))


if __name__ == "__main__":
    main()
