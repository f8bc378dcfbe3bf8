"""The base of every config model: unknown keys are errors, every number is bounded."""

# Annotations are objects here (no __future__ import): pydantic reads them when each model
# class is made, and strings it would first have to compile and evaluate.

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, field_validator

from tamis.policy.checks import bounded_number, check_hosts, check_patterns

# Lists every section checks the same way: bare host names; path patterns ('/x', '**/x').
Hosts = Annotated[list[str], AfterValidator(check_hosts)]
PathPatterns = Annotated[list[str], AfterValidator(check_patterns)]


class Strict(BaseModel):
    # defer_build: a model's schema is built when it first validates or dumps, not at import;
    # a CLI call whose validated config comes from a snapshot (tamis.policy.snapshot) never
    # builds most of them.
    model_config = ConfigDict(extra="forbid", defer_build=True)

    @field_validator("*", mode="after")
    @classmethod
    def _bounded(cls, value: Any) -> Any:
        return bounded_number(value)
