"""Stage 1, read: record files in, typed entities out, each value with its file:line:col."""

from sourcebook.read.record import read_record
from sourcebook.read.settings import RecordError

__all__ = ["RecordError", "read_record"]
