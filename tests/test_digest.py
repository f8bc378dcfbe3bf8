"""``tamis.digest`` (store keys, config hashes without importing hashlib) gives hashlib's
SHA-256, so every key already in a store is still found."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import pytest

from tamis.digest import sha256_hex

TEXTS = ["", "a", "proxmox thin pool", "é中文🙂", "\x00\n\t", "x" * 100_000,
         '{"query": "a b", "lines": [1, 2.5, null]}', "\ud7ff\ue000"]


@pytest.mark.parametrize("text", TEXTS)
def test_the_digest_is_hashlibs_sha256(text: str) -> None:
    assert sha256_hex(text) == hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_it_does_not_import_hashlib() -> None:
    code = "import sys, tamis.digest; print('hashlib' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "False"
