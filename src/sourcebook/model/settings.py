"""`sourcebook.toml`: the book a record belongs to and how its site is published."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


class Book(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: str = Field(description="The book's title, as in the page titles.")
    subtitle: str = Field(default="", description="The book's subtitle.")
    author: str = Field(default="", description="The author, as on the cover.")
    house: str = Field(description="The imprint's name as it ends each page title.")
    publisher: str = Field(default="", description="The publisher, in full, for the book's line.")
    series: str = Field(default="", description="The series the book belongs to.")
    volume: int = Field(default=1, ge=1, description="The book's volume in its series.")
    closes: date = Field(description="The day the record closes: nothing may be dated later.")
    licence: str = Field(default="CC-BY-4.0", description="The licence of the record's data.")


class Site(BaseModel):
    model_config = ConfigDict(extra="forbid")

    base_url: str = Field(default="", description="Scheme and host, such as https://example.com.")
    base_path: str = Field(default="", description="Where the volume lives, such as /vol1.")
    book_url: str = Field(default="", description="Where a reader buys the book.")
    notify_url: str = Field(default="", description="Where a reader asks to hear when it is out.")
    series_corrections_url: str = Field(
        default="", description="The series-level 'Where its sources were wrong' page."
    )
    language: str = Field(default="en", description="The site's language (BCP 47).")


class Limits(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_file_bytes: int = Field(
        default=5_000_000, description="A record file larger than this is refused unread."
    )
    query_seconds: float = Field(default=2.0, description="Time limit of each derived query.")


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
        if url and not url.startswith(("http://", "https://")):
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
