"""Thresholds and schema hints for duplicate detection, from the `dupes:` section of a YAML file.

Every field has a default, so no config is needed. Unknown keys and bad values are refused with one
line naming the file and the key (`DupesError`), never silently ignored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from tamis import yamlsafe
from tamis.errors import DupesError


class DupesConfig(BaseModel):
    """Settings for `tamis dupes`; see docs/dupes.md for what each one changes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Bodies.
    body_columns: list[str] = Field(
        default_factory=lambda: ["notes", "content", "body"],
        description="Candidate body columns (SQLite) or keys (JSONL), first present wins.",
    )
    min_body_chars: int = Field(
        40, ge=1, description="Shorter bodies (whitespace-normalised) are stubs: never compared."
    )
    shingle_size: int = Field(3, ge=1, le=8, description="Words per shingle for body similarity.")
    body_threshold: float = Field(
        0.4, gt=0.0, le=1.0,
        description="HUMAN-DECISION: minimum body shingle Jaccard when the titles agree.",
    )
    body_threshold_any_title: float = Field(
        0.6, gt=0.0, le=1.0,
        description="HUMAN-DECISION: minimum body shingle Jaccard whatever the titles say.",
    )
    title_threshold: float = Field(
        0.3, ge=0.0, le=1.0,
        description="Titles agree at this trigram Dice, once version markers are dropped.",
    )
    generic_titles: list[str] = Field(
        default_factory=lambda: ["untitled", "new note", "untitled note", "no title", "scratch"],
        description="Titles that name no subject: a stub under one is not reported.",
    )

    # Writers and run families.
    writer_keys: list[str] = Field(
        default_factory=lambda: ["agent", "created_by", "writer"],
        description="Dotted key paths into the node metadata JSON naming the writer.",
    )
    writer_dimension_prefixes: list[str] = Field(
        default_factory=lambda: ["agent:", "writer:"],
        description="A dimension named '<prefix><writer>' names the writer.",
    )
    human_writers: list[str] = Field(
        default_factory=lambda: [
            "user", "human", "manual", "me", "ui", "app", "web", "desktop", "mobile", "editor",
        ],
        description="Writers that are people or the UI, never reported as a WRITER-DEFECT.",
    )
    family_min_nodes: int = Field(3, ge=2, description="Nodes needed to call a run family.")
    min_period_hours: float = Field(
        1.0, gt=0.0, description="A schedule's period is at least this: faster is a burst."
    )
    schedule_periods_hours: list[float] = Field(
        default_factory=lambda: [1, 2, 3, 4, 6, 8, 12, 24, 48, 168],
        description="Periods a schedule may have (the median gap is tried too, 6+ runs).",
    )
    schedule_tolerance: float = Field(
        0.2, gt=0.0, lt=0.5, description="A gap is on schedule within this fraction of a period."
    )
    schedule_max_jitter_minutes: float = Field(
        20.0, gt=0.0, description="...and within this many minutes, whatever the period."
    )
    schedule_max_multiple: int = Field(
        7, ge=1, description="Gaps of up to this many periods count (weekends, missed runs)."
    )
    schedule_regularity: float = Field(
        0.9, gt=0.0, le=1.0, description="Share of gaps that must be on schedule."
    )
    schedule_min_consecutive: float = Field(
        0.5, ge=0.0, le=1.0,
        description="Share of gaps that must be exactly one period (the rest: missed runs).",
    )
    schedule_max_chance: float = Field(
        0.001, gt=0.0, le=1.0,
        description="Largest chance that irregular arrivals fit the period as closely as the "
        "gaps do: (2 x the largest deviation / period) ^ gaps on it.",
    )
    window_minutes: float = Field(
        60.0, ge=0.0, description="Runs on distinct days starting within this window of one "
        "time of day are a schedule too (0: off).",
    )
    window_min_nodes: int = Field(5, ge=3, description="Runs needed for the time-of-day test.")

    # Archived nodes.
    include_archived: bool = False
    archived_dimensions: list[str] = Field(default_factory=lambda: ["archived", "archive"])
    archived_keys: list[str] = Field(
        default_factory=lambda: ["archived", "is_archived"],
        description="Node columns or metadata keys whose truthy value marks a node archived.",
    )

    # Scaling.
    minhash_size: int = Field(64, ge=4, le=256, description="MinHash signature length.")
    lsh_rows: int = Field(2, ge=1, description="Rows per LSH band (bands = size / rows).")
    lsh_min_estimate: float = Field(
        0.2, ge=0.0, le=1.0,
        description="LSH pairs whose MinHash estimate is below this are dropped unread.",
    )
    stop_shingle_share: float = Field(
        0.002, gt=0.0, le=1.0,
        description="Shingles in more than this share of bodies are left out of the sketches.",
    )
    max_bucket: int = Field(
        200, ge=2, description="An LSH bucket larger than this is chained, not paired out."
    )

    @model_validator(mode="after")
    def _bands_fit(self) -> DupesConfig:
        if self.minhash_size % self.lsh_rows:
            raise ValueError("minhash_size must be a multiple of lsh_rows")
        if any(p <= 0 for p in self.schedule_periods_hours):
            raise ValueError("schedule_periods_hours must all be positive")
        return self


def load_config(path: str | Path | None) -> DupesConfig:
    """The `dupes:` section of YAML file `path`, or the defaults when `path` is None."""
    if path is None:
        return DupesConfig()
    p = Path(path)
    if p.exists() and not p.is_file():  # a device (/dev/zero) would be read forever
        raise DupesError(f"cannot read config file {p}: not a regular file")
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DupesError(f"config file not found: {p}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DupesError(f"cannot read config file {p}: {exc}") from None
    try:
        data: Any = yamlsafe.load(text)
    except yamlsafe.AliasRefused as exc:
        raise DupesError(f"{p}:{exc.line}: {exc.reason}") from None
    except yaml.YAMLError as exc:
        line, problem = yamlsafe.problem_of(exc)
        where = f":{line}" if line is not None else ""
        raise DupesError(f"{p}{where}: not valid YAML ({problem or 'invalid YAML'})") from None
    if data is None:
        return DupesConfig()
    if not isinstance(data, dict):
        raise DupesError(f"{p}: expected a mapping with a 'dupes:' section")
    section = data.get("dupes")
    if section is None:
        return DupesConfig()
    if not isinstance(section, dict):
        raise DupesError(f"{p}: dupes: expected a mapping of settings")
    try:
        return DupesConfig.model_validate(section)
    except ValidationError as exc:
        raise DupesError(_first_error(p, exc)) from None


def _first_error(path: Path, exc: ValidationError) -> str:
    err = exc.errors()[0]
    loc = ".".join(str(part) for part in ("dupes", *err["loc"]))
    if err["type"] == "extra_forbidden":
        msg = "unknown setting"
    else:
        msg = err["msg"].removeprefix("Value error, ")
        if err["loc"] and "input" in err and err["type"] != "missing":
            msg += f" (got {err['input']!r})"
    more = exc.error_count() - 1
    suffix = f" (and {more} more)" if more else ""
    return f"{path}: {loc}: {msg}{suffix}"
