"""JavaScript regex literals (what uBlacklist and uBlock lists write) as Python/RE2 regexes."""

from __future__ import annotations

import re

JS_FLAGS = set("dgimsuvy")


def split_regex_literal(text: str) -> tuple[str, str, str] | None:
    """``/a\\/b[/]c/i # note`` -> (``a\\/b[/]c``, ``i``, ``# note``); None if unclosed.

    The literal ends at the first ``/`` that is neither escaped nor inside a ``[...]``."""
    if not text.startswith("/"):
        return None
    i, in_class = 1, False
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "/":
            break
        i += 1
    else:
        return None
    source = text[1:i]
    if not source:
        return None
    j = i + 1
    while j < len(text) and text[j].isalpha():
        j += 1
    flags = text[i + 1:j]
    if not set(flags) <= JS_FLAGS:
        return None
    return source, flags, text[j:].strip()


def js_regex(source: str, flags: str = "", *, ignore_case: bool = False
             ) -> tuple[str | None, str]:
    """A JS regex source as one Python-and-RE2 regex string with inline flags, or
    (None, why) when Python cannot compile it either."""
    body = source.replace("(?<", "(?P<").replace("(?P<=", "(?<=").replace("(?P<!", "(?<!")
    body = body.replace("[^]", r"[\s\S]")
    inline = ""
    if "i" in flags or ignore_case:
        inline += "i"
    if "s" in flags:
        inline += "s"
    regex = f"(?{inline}){body}" if inline else body
    try:
        re.compile(regex)
    except re.error as exc:
        return None, str(exc)
    except (OverflowError, RecursionError):
        return None, "too complex"
    return regex, ""
