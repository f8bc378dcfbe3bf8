"""SHA-256 of text as hex (store keys, config hashes), without importing ``hashlib``.

``hashlib`` loads OpenSSL's hashes and tries every algorithm it names at import, about 1.5%
of a CLI search's CPU; CPython's own SHA-256 (``_sha256``, ``_sha2`` from Python 3.12: the
module ``hashlib`` falls back to) gives the same digest for a few hundredths of that. Where
neither exists, ``hashlib``'s. A test compares the two.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `from typing import ...`: a CLI repeat never imports typing
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

sha256: Callable[[bytes], Any]
try:
    from _sha256 import sha256
except ImportError:  # pragma: no cover - Python 3.12+, or a build without it
    try:
        from _sha2 import sha256  # type: ignore[no-redef]
    except ImportError:
        from hashlib import sha256  # type: ignore[no-redef]


def sha256_hex(text: str) -> str:
    """The SHA-256 of ``text`` (UTF-8) as 64 hex digits."""
    return sha256(text.encode("utf-8")).hexdigest()  # type: ignore[no-any-return]
