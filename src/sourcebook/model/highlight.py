"""A passage highlighted in a web annotation tool (Hypothesis), kept on its source."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Highlight(BaseModel):
    """One highlight of a source: its exact words (also quoted in the source's annotation,
    where check proves them) and the words either side that locate it in the copy."""

    model_config = ConfigDict(extra="forbid")

    exact: str = Field(description="The words highlighted, as the page has them.")
    prefix: str = Field(default="", description="The words just before them on the page.")
    suffix: str = Field(default="", description="The words just after them on the page.")
    hypothesis: str | None = Field(
        default=None, description="The annotation's id at Hypothesis: a re-import skips it."
    )
    created: str | None = Field(default=None, description="When it was highlighted (ISO 8601).")
    note: str = Field(default="", description="What the annotator wrote beside it.")
    tags: list[str] = Field(default_factory=list, description="The annotator's tags.")
