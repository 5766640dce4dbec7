"""The service's schema: one list of migrations, plain SQL that SQLite and PostgreSQL accept.

Each migration is applied once, in order, in one transaction with the bump of the
schema's version in `meta`. `{id}` stands for the dialect's generated row id. A database
whose version is newer than this list is refused: an older sourcebook must not write to
a schema it does not know.
"""

from __future__ import annotations

import secrets

from sourcebook.notify.database import Database, DatabaseError, Transaction

MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE readers (
        id {id},
        address TEXT,
        address_hash TEXT NOT NULL UNIQUE,
        state TEXT NOT NULL CHECK (state IN ('pending', 'confirmed', 'unsubscribed')),
        link_key TEXT NOT NULL,
        confirm_nonce TEXT,
        created_at BIGINT NOT NULL,
        confirmed_at BIGINT,
        unsubscribed_at BIGINT
    );
    CREATE INDEX readers_state ON readers (state, created_at);
    CREATE TABLE consent_events (
        id {id},
        reader_id BIGINT NOT NULL REFERENCES readers (id) ON DELETE CASCADE,
        event TEXT NOT NULL,
        statement_version INTEGER NOT NULL,
        statement_sha256 TEXT NOT NULL,
        method TEXT NOT NULL,
        at BIGINT NOT NULL
    );
    CREATE INDEX consent_events_reader ON consent_events (reader_id);
    CREATE TABLE erasures (address_hash TEXT PRIMARY KEY, erased_at BIGINT NOT NULL);
    CREATE TABLE outbox (
        id {id},
        reader_id BIGINT NOT NULL REFERENCES readers (id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        campaign TEXT,
        state TEXT NOT NULL CHECK (state IN ('pending', 'sent', 'dead', 'cancelled')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at BIGINT NOT NULL,
        lease_until BIGINT,
        last_error TEXT,
        created_at BIGINT NOT NULL,
        sent_at BIGINT
    );
    CREATE INDEX outbox_due ON outbox (state, next_attempt_at);
    CREATE INDEX outbox_reader ON outbox (reader_id);
    CREATE TABLE announcements (
        reader_id BIGINT NOT NULL REFERENCES readers (id) ON DELETE CASCADE,
        campaign TEXT NOT NULL,
        enqueued_at BIGINT NOT NULL,
        PRIMARY KEY (reader_id, campaign)
    );
    CREATE TABLE rate_limits (
        bucket TEXT NOT NULL,
        window_start BIGINT NOT NULL,
        hits INTEGER NOT NULL,
        PRIMARY KEY (bucket, window_start)
    )
    """,
)
LATEST = len(MIGRATIONS)


class SchemaError(DatabaseError):
    """The database's schema is not one this sourcebook can use."""


def schema_version(tx: Transaction) -> int:
    """The version of the schema in the database: 0 for an empty one."""
    if not tx.value(tx.dialect.has_table, ("meta",)):
        return 0
    return int(tx.value("SELECT value FROM meta WHERE key = 'schema_version'") or 0)


def migrate(db: Database) -> int:
    """Bring the schema up to date; its version. Refuses a schema newer than this code's."""
    with db.transaction() as tx:
        if tx.dialect.migration_lock:  # two servers starting at once migrate in turn
            tx.execute(tx.dialect.migration_lock)
        version = schema_version(tx)
        check_version(version, db.shown)
        for number in range(version + 1, LATEST + 1):
            tx.script(MIGRATIONS[number - 1].replace("{id}", tx.dialect.identity))
        if version == 0:
            tx.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(LATEST),))
            tx.execute("INSERT INTO meta VALUES ('hash_key', ?)", (secrets.token_hex(32),))
        elif version < LATEST:
            tx.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(LATEST),))
    return LATEST


def check_version(version: int, shown: str) -> None:
    if version > LATEST:
        raise SchemaError(
            f"{shown}: the database's schema is version {version}, newer than this "
            f"sourcebook knows (version {LATEST}); upgrade sourcebook to use it"
        )


def require_current(db: Database) -> None:
    """Refuse a database that has not been migrated to exactly this code's schema."""
    with db.transaction() as tx:
        version = schema_version(tx)
    check_version(version, db.shown)
    if version < LATEST:
        raise SchemaError(
            f"{db.shown}: the database's schema is version {version}; "
            "run 'sourcebook notify migrate' first"
        )
