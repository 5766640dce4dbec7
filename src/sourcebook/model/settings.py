"""`sourcebook.toml`: the book a record belongs to and how its site is published."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from sourcebook.model.addresses import address_problem, path_problem, scheme
from sourcebook.model.today import today

MAX_FILE_BYTES = 50_000_000
"""The largest `max_file_bytes` a record may set: a file is read whole into memory."""
MAX_QUERY_SECONDS = 10.0
"""The longest `query_seconds` a record may set, whatever it says: CI runs every record."""


class Book(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: str = Field(description="The book's title, as in the page titles.")
    subtitle: str = Field(default="", description="The book's subtitle.")
    author: str = Field(default="", description="The author, as on the cover.")
    house: str = Field(description="The imprint's name as it ends each page title.")
    publisher: str = Field(default="", description="The publisher, in full, for the book's line.")
    series: str = Field(default="", description="The series the book belongs to.")
    volume: int = Field(default=1, ge=1, description="The book's volume in its series.")
    closes: date | None = Field(
        default=None,
        description="The day the record closes: nothing may be dated later. Unset while the "
        "book is written: the record is open, and nothing may be dated after today.",
    )
    licence: str = Field(
        default="",
        description="The licence of the record's data, an SPDX id such as CC-BY-4.0; "
        "release refuses to choose one for the author.",
    )

    def stands_at(self) -> date:
        """The day the record stands at: its close, or today while it is open."""
        return self.closes if self.closes is not None else today()

    def close_said(self) -> str:
        """How the record's close is said in a diagnostic: its day, or today while open."""
        if self.closes is not None:
            return f"the record closes ({self.closes.isoformat()})"
        return f"today ({today().isoformat()}), the record being open"


class Site(BaseModel):
    model_config = ConfigDict(extra="forbid")

    base_url: str = Field(default="", description="Scheme and host, such as https://example.com.")
    base_path: str = Field(default="", description="Where the volume lives, such as /vol1.")
    book_url: str = Field(
        default="",
        description="Where a reader buys the book, once it is on sale; the about page links "
        "it. Left out, nothing offers to sell it.",
    )
    notify_url: str = Field(
        default="",
        description="Where a reader asks to hear when it is out, where the site has no "
        "sign-up form of its own ([notify] url).",
    )
    series_corrections_url: str = Field(
        default="", description="The series-level 'Where its sources were wrong' page."
    )
    language: str = Field(
        default="en",
        pattern=r"^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$",
        description="The site's language (BCP 47).",
    )

    @field_validator("base_path")
    @classmethod
    def _url_path(cls, value: str) -> str:
        problem = path_problem(value)
        if problem:
            raise ValueError(f"not a URL path such as /vol1: {problem}")
        return value

    @field_validator("base_url", "book_url", "notify_url", "series_corrections_url")
    @classmethod
    def _address(cls, value: str, info: ValidationInfo) -> str:
        problem = address_problem(value) if value else None
        if not problem and value and info.field_name == "base_url":
            problem = None if scheme(value) in ("http", "https") else "is not http(s)"
        if problem:
            raise ValueError(f"not a web address: it {problem}")
        return value


class Limits(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_file_bytes: int = Field(
        default=5_000_000,
        gt=0,
        le=MAX_FILE_BYTES,
        description="A record file larger than this is refused unread (at most 50,000,000).",
    )
    query_seconds: float = Field(
        default=2.0,
        gt=0,
        le=MAX_QUERY_SECONDS,
        allow_inf_nan=False,
        description="Time limit of each of the record's queries, in seconds (at most 10).",
    )


class Notify(BaseModel):
    """The sign-up service ("Tell me when it is out"); secrets come from the environment."""

    model_config = ConfigDict(extra="forbid")

    url: str = Field(
        default="",
        description="The service's public URL, such as https://notify.example.com; "
        "where set, the site carries the sign-up form, posting there.",
    )
    sender: str = Field(default="", description="The From of every email: Name <address>.")
    smtp_host: str = Field(default="", description="The SMTP server that sends the emails.")
    smtp_port: int = Field(default=587, ge=1, le=65535, description="Its port.")
    smtp_security: Literal["starttls", "tls", "none"] = Field(
        default="starttls", description="STARTTLS, TLS from the start, or none (loopback only)."
    )
    smtp_user: str = Field(
        default="", description="The SMTP login; its password is SOURCEBOOK_SMTP_PASSWORD."
    )
    signups_per_client_hour: int = Field(
        default=20, ge=1, description="Sign-ups one client (network) may post in an hour."
    )
    emails_per_address_day: int = Field(
        default=3, ge=1, description="Emails a sign-up may cause to one address in a day."
    )
    lease_seconds: int = Field(
        default=60, ge=1, description="How long a sender holds a message it is sending."
    )
    retry_seconds: int = Field(
        default=30, ge=1, description="The first wait before a failed email is tried again."
    )
    max_attempts: int = Field(
        default=8, ge=1, description="Tries before an email is left dead, for the house to see."
    )

    @field_validator("url")
    @classmethod
    def _http_url(cls, url: str) -> str:
        if url and (address_problem(url) or scheme(url) not in ("http", "https")):
            raise ValueError("must be the service's http:// or https:// URL")
        return url

    @field_validator("sender")
    @classmethod
    def _one_address(cls, sender: str) -> str:
        if sender and ("@" not in sender or any(ch in sender for ch in "\r\n")):
            raise ValueError("must be one line with an address: Name <address@domain>")
        return sender


class Settings(BaseModel):
    """The whole of sourcebook.toml."""

    model_config = ConfigDict(extra="forbid")

    book: Book
    site: Site = Field(default_factory=Site)
    limits: Limits = Field(default_factory=Limits)
    notify: Notify = Field(default_factory=Notify)
