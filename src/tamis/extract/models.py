"""Data of the extraction stage: what a provider hands back (``Page``) and what ``read`` answers.

``Page`` is internal: the full extracted text of one URL (or why there is none). It is what
the cache holds, so that a change of budget never needs a new fetch. ``ReadResponse`` is the
stable JSON of ``tamis read``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from pydantic import BaseModel, Field

from tamis.errors import ExtractError as ExtractError  # re-exported: the stage's failure
from tamis.models import SCHEMA_VERSION, TextWarning

OK = "ok"
TRUNCATED = "truncated"
SKIPPED = "skipped"
EXHAUSTED = "skipped_budget_exhausted"
EMPTY = "empty"
BLOCKED = "blocked"
UNSUPPORTED = "unsupported_type"
DUPLICATE = "duplicate"


def failed(kind: str) -> str:
    """The status of a failure of one kind, e.g. ``failed:Timeout``."""
    return f"failed:{kind}"


@dataclass
class Page:
    """The outcome of fetching and extracting one URL, before any budget is applied."""

    url: str
    status: str = OK  # ok | empty | blocked | unsupported_type | failed:<Type>
    text: str = ""
    title: str = ""
    final_url: str = ""
    detail: str | None = None
    cached: bool = False
    page_type: str = ""  # forum | documentation | article | ... | pdf (see pagetype)
    warnings: list[dict[str, object]] = field(default_factory=list)  # TextWarning fields

    @property
    def usable(self) -> bool:
        return self.status == OK and bool(self.text.strip())

    def to_json(self) -> bytes:
        data = asdict(self)
        data.pop("cached")
        return json.dumps(data, ensure_ascii=False).encode("utf-8")

    @classmethod
    def from_json(cls, raw: bytes) -> Page:
        data = json.loads(raw.decode("utf-8"))
        data.pop("warnings", None)  # found again on every read, under the current policy
        return cls(**data, cached=True)


class ReadResponse(BaseModel):
    """One page under a budget: the answer of ``tamis read`` and of ``read_url``."""

    url: str = Field(description="The URL asked for")
    final_url: str = Field(description="Where the redirects (each hop checked) ended")
    title: str = ""
    status: str = Field(
        description="ok | truncated | empty | blocked | unsupported_type | failed:<Type>"
    )
    detail: str | None = Field(default=None, description="Why, when the status is not ok")
    content: str = Field(default="", description="The text from `start`, cut at a boundary")
    chars: int = Field(default=0, description="Characters in content")
    total_chars: int = Field(default=0, description="Characters in the whole extracted page")
    start: int = Field(default=0, description="Offset of content in the whole page text")
    next_start: int | None = Field(
        default=None, description="Pass as --start to read on; null when the page is done"
    )
    truncated: bool = False
    page_type: str = Field(default="", description="forum | documentation | article | service"
                           " | product | collection | listing | pdf")
    warnings: list[TextWarning] = Field(
        default_factory=list, description="Sentences addressed to an AI (instructions_to_ai),"
        " with offsets in the whole page text")
    seconds: float = 0.0
    schema_version: str = SCHEMA_VERSION

    @property
    def exit_code(self) -> int:
        """0 ok or truncated, 1 empty / blocked / unsupported, 2 failed."""
        if self.status in (OK, TRUNCATED):
            return 0
        if self.status.startswith("failed:"):
            return 2
        return 1
