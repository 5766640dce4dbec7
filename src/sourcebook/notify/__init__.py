"""The sign-up service behind "Tell me when it is out": double opt-in, a consent log, and
an outbox that loses nothing, on SQLite or PostgreSQL.

`policy` says what is kept and for how long (the site's Consent page is rendered from it);
`migrations` makes exactly that schema; `readers` is what a reader can do; `outbox`,
`sender` and `mail` deliver; `announce` sends the one announcement; `app` and `server`
are the web service; `setup` opens it all from a record for the commands.
"""
