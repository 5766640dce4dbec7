"""What the site's pages need of the service: the form's target and the policy to show.

`sourcebook build` imports this module alone: it stays light (no web or database code).
"""

from __future__ import annotations

from dataclasses import dataclass

from sourcebook.model.settings import Settings
from sourcebook.notify import policy
from sourcebook.notify.config import origin


@dataclass(frozen=True)
class SignupForm:
    """The sign-up form of the front page, and the Consent page's account of the service."""

    action: str
    origin: str
    statement: policy.Statement
    tables: tuple[policy.Table, ...] = policy.STORED
    pending_days: int = policy.PENDING_DAYS
    confirm_days: int = policy.CONFIRM_DAYS
    mail_days: int = policy.MAIL_DAYS
    log_years: int = policy.LOG_DAYS // 365
    ipv4_prefix: int = policy.IPV4_PREFIX
    ipv6_prefix: int = policy.IPV6_PREFIX


def signup_form(settings: Settings, service_url: str | None = None) -> SignupForm | None:
    """The form, posting to `service_url` or `[notify] url`; None where neither is set."""
    url = (service_url or settings.notify.url).rstrip("/")
    if not url.startswith(("http://", "https://")):
        return None
    return SignupForm(
        action=f"{url}/signup",
        origin=origin(url),
        statement=policy.statement(settings.book.title, settings.book.house),
    )


def consent_document(form: SignupForm | None) -> dict[str, object]:
    """The Consent page's JSON twin: what the sign-up service stores and for how long, as
    the page says it; where the record has no service, that the site stores nothing."""
    if form is None:
        return {"signup": None, "stored": []}
    return {
        "signup": {
            "action": form.action,
            "statement": {
                "text": form.statement.text,
                "version": form.statement.version,
                "sha256": form.statement.sha256,
            },
            "unconfirmed_deleted_after_days": form.pending_days,
            "confirm_within_days": form.confirm_days,
            "sent_mail_deleted_after_days": form.mail_days,
            "unsubscribed_log_deleted_after_years": form.log_years,
            "network_hashed_by_prefix": {"ipv4": form.ipv4_prefix, "ipv6": form.ipv6_prefix},
        },
        "stored": [
            {
                "table": table.name,
                "purpose": table.purpose,
                "kept": table.kept,
                "columns": {column.name: column.meaning for column in table.columns},
            }
            for table in form.tables
        ],
    }
