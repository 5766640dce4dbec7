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
