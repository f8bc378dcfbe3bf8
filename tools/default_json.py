"""Rewrite src/tamis/policy/default.json after an edit of default.yaml (a maintainer's tool,
not part of the installed package)::

    python tools/default_json.py

default.json is default.yaml parsed, with the hash of its text, so that a call without a
config file needs no YAML parser (``tamis.policy.files``); tests/policy/test_builtin_json.py
fails while it is stale.
"""

from tamis.policy.files import BUILTIN_JSON_FILE, builtin_json

if __name__ == "__main__":
    with open(BUILTIN_JSON_FILE, "w", encoding="utf-8") as file:
        file.write(builtin_json())
    print(f"wrote {BUILTIN_JSON_FILE}")
