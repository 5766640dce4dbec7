"""The record's typed model: one class per kind of entity, with its fields documented."""

from sourcebook.model.base import Entity, Kind
from sourcebook.model.kinds import KINDS, kind_by_folder, kind_by_name

__all__ = ["Entity", "Kind", "KINDS", "kind_by_folder", "kind_by_name"]
