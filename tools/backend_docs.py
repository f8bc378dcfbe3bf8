"""The backend tables of README.md and docs/configuration.md, made from the adapters' own
declarations (``tamis.backends.base``), so that a new adapter file is in the docs with no
other edit. A maintainer's tool, not part of the installed package::

    python tools/backend_docs.py            # rewrite the tables of this checkout
    python tools/backend_docs.py --check    # exit 1, naming the file, when one is stale
    python tools/backend_docs.py --root DIR # the checkout is elsewhere

Each table sits between ``<!-- backends:NAME -->`` and ``<!-- /backends:NAME -->``; the text
around them is never touched. ``zero-config`` is the environment table (README.md and
docs/configuration.md), ``types`` the table of every adapter type (docs/configuration.md).
The test suite runs the check (tests/tools/test_backend_docs.py).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

from tamis.backends.base import AUTH_HEADERS, Adapter
from tamis.backends.listing import endpoint, summary
from tamis.backends.registry import adapter_classes, zero_config_classes

FILES: dict[str, tuple[str, ...]] = {
    "README.md": ("zero-config",),
    "docs/configuration.md": ("zero-config", "types"),
}
COMMAND = "python tools/backend_docs.py"
CHECKOUT = Path(__file__).resolve().parents[1]


def zero_config_table() -> str:
    rows = ["| variable set | line |", "|---|---|"]
    fallback = []
    for cls in zero_config_classes():
        rule = cls.zero_config
        assert rule is not None
        line = f"`{cls.type}`" + (f": {rule.note}" if rule.note else "")
        if rule.fallback:
            fallback.append(f"| none of them | {line} |")
        else:
            rows.append(f"| {' or '.join(f'`{v}`' for v in rule.variables())} | {line} |")
    return "\n".join(rows + fallback)


def key(cls: type[Adapter]) -> str:
    if cls.supports.key == "none":
        return "none"
    if cls.default_key_env:
        return f"`{cls.default_key_env}`" + (" (optional)" if cls.supports.key == "optional"
                                            else "")
    return "only if the line names one" if cls.supports.key == "optional" else "required"


def sent(cls: type[Adapter]) -> str:
    if cls.supports.key == "none" or not cls.auth_style:
        return "—"
    header, value = AUTH_HEADERS[cls.auth_style]
    return f"`{header}: {value.format(key='<key>')}`"


def types_table() -> str:
    rows = ["| type | what | endpoint (default) | key | sent as | supports | line keys |",
            "|---|---|---|---|---|---|---|"]
    for cls in adapter_classes():
        name = f"`{cls.type}`" + "".join(f" (also `{a}`)" for a in cls.aliases)
        supports = ", ".join(w for w in cls.supports.labels() if not w.startswith("key:"))
        options = ", ".join(f"`{o}`" for o in cls.options) or "—"
        rows.append(f"| {name} | {summary(cls)} | {endpoint(cls)} | {key(cls)} | {sent(cls)}"
                    f" | {supports or 'the query only'} | {options} |")
    return "\n".join(rows)


TABLES: dict[str, Callable[[], str]] = {"zero-config": zero_config_table, "types": types_table}


def regenerate(text: str, names: tuple[str, ...]) -> str:
    """``text`` with each named table replaced by its generated version.

    Raises LookupError when a table's markers are missing."""
    for name in names:
        pattern = re.compile(rf"(<!-- backends:{name} -->\n).*?(<!-- /backends:{name} -->)",
                             re.S)
        if not pattern.search(text):
            raise LookupError(f"no <!-- backends:{name} --> ... <!-- /backends:{name} -->"
                              " markers")
        table = TABLES[name]()
        text = pattern.sub(lambda m, t=table: m.group(1) + t + "\n" + m.group(2), text)
    return text


def stale_files(root: Path, *, write: bool) -> list[str]:
    """The files whose tables are not what the declarations give (written when ``write``)."""
    stale = []
    for relative, names in FILES.items():
        path = root / relative
        text = path.read_text("utf-8")
        try:
            fresh = regenerate(text, names)
        except LookupError as exc:
            raise LookupError(f"{relative}: {exc}") from None
        if fresh != text:
            stale.append(relative)
            if write:
                path.write_text(fresh, "utf-8")
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether a table is"
                        " stale (exit 1)")
    parser.add_argument("--root", default=str(CHECKOUT),
                        help="the checkout (default: the one holding this script)")
    args = parser.parse_args(argv)
    try:
        stale = stale_files(Path(args.root), write=not args.check)
    except (OSError, LookupError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for relative in stale:
        if args.check:
            print(f"error: {relative}: the backend tables are stale; run {COMMAND}",
                  file=sys.stderr)
        else:
            print(f"rewrote the backend tables of {relative}")
    return 1 if stale and args.check else 0


if __name__ == "__main__":  # pragma: no cover - the command line
    sys.exit(main())
