"""`house.toml`: a publishing house's series of volumes, published as one site."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

from sourcebook.model.addresses import address_problem, scheme

HOUSE_FILE = "house.toml"
HOUSE_SECTIONS = frozenset({"corrections", "static", "api", "404.html", "corrections.atom"})
"""First segments of the house's own URLs, which no volume's base path may take."""


class HouseInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="The house's name, as it ends each of its page titles.")
    series: str = Field(description="The series its volumes make, such as The Compute Economy.")
    publisher: str = Field(default="", description="The publisher in full, for the house's line.")
    base_url: str = Field(default="", description="Scheme and host, such as https://example.com.")
    language: str = Field(
        default="en",
        pattern=r"^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$",
        description="The language of the house's own pages (BCP 47).",
    )

    @field_validator("base_url")
    @classmethod
    def _http(cls, value: str) -> str:
        if value and (address_problem(value) or scheme(value) not in ("http", "https")):
            raise ValueError("not a web address: it must be http(s), such as https://example.com")
        return value


class VolumeEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(
        description="The volume's record folder, relative to the house file's folder and "
        "inside it; the volume's base path is its own `[site] base_path`."
    )


class HouseSettings(BaseModel):
    """The whole of house.toml."""

    model_config = ConfigDict(extra="forbid")

    house: HouseInfo
    volume: list[VolumeEntry] = Field(min_length=1, description="The volumes, in series order.")
