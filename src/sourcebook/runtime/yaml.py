"""PyYAML's tag resolution, with what the record's loader never has left out."""

from __future__ import annotations

import yaml


class FastResolve:
    """A loader's `resolve` without the path and wildcard resolvers, which a record's loader
    never has: it runs for every node of every file."""

    def resolve(self, kind: type, value: str, implicit: tuple[bool, bool]) -> str:
        if kind is yaml.ScalarNode:
            if implicit[0]:
                for tag, regexp in self.yaml_implicit_resolvers.get(value[:1], ()):  # type: ignore[attr-defined]
                    if regexp.match(value):
                        return tag  # type: ignore[no-any-return]
            return self.DEFAULT_SCALAR_TAG  # type: ignore[attr-defined,no-any-return]
        return super().resolve(kind, value, implicit)  # type: ignore[misc,no-any-return]
