"""A block of a template shown once for each value it shows, and kept from save to save.

`{% kept a, b %}…{% endkept %}` renders its body once for each value of its key (the
template's name, the block's place in it and the values `a, b`) in a build, and the same HTML
is given wherever that key comes again: a list of thousands of rows that a build shows
again after an edit makes only the rows whose key is new. What the body reads through the
view (an entity's fields, a link, a citation) is recorded as it renders (`incremental.
Reads`), as for any page: `serve`'s next build takes again each block that read nothing
its save changed (`SiteView.carry`), and every page that shows a block reads what it read.

The key holds what the body shows that it does not read through the view: derive's values
(an `Edge`), an entity's key, a word. A body shows nothing else: not `loop.index`, not a
variable set outside it and not named in the key. A key that is no value to compare (a
list, an entity) is an error at the block.
"""

from __future__ import annotations

from typing import Any

from jinja2 import nodes
from jinja2.exceptions import TemplateRuntimeError
from jinja2.ext import Extension
from jinja2.parser import Parser
from markupsafe import Markup

from sourcebook.incremental import READS, SharedMemo


class KeptBlocks(Extension):
    """The `kept` tag: see the module. The blocks are kept in the environment's
    `kept_blocks` (the view's, `SiteView.blocks`), or made each time where it has none."""

    tags = {"kept"}  # noqa: RUF012 - as Jinja declares it

    def __init__(self, environment: Any) -> None:
        super().__init__(environment)
        environment.extend(kept_blocks=None)

    def parse(self, parser: Parser) -> nodes.Node:
        lineno = next(parser.stream).lineno
        values = [parser.parse_expression()]
        while parser.stream.skip_if("comma"):
            values.append(parser.parse_expression())
        body = parser.parse_statements(("name:endkept",), drop_needle=True)
        # the template, the block's line, and its place among the template's kept blocks
        place = getattr(parser, "kept_blocks", 0)
        parser.kept_blocks = place + 1  # type: ignore[attr-defined]
        where = [nodes.Const(parser.name or ""), nodes.Const(lineno), nodes.Const(place)]
        key = nodes.Tuple([*where, *values], "load")
        return nodes.CallBlock(self.call_method("_kept", [key]), [], [], body).set_lineno(lineno)

    def _kept(self, key: tuple[Any, ...], caller: Any) -> Markup:
        try:
            hash(key)
        except TypeError:
            raise TemplateRuntimeError(
                f"a kept block's key at line {key[1]} is no value to compare: give the "
                "values it shows, such as an entity's key"
            ) from None
        memo: SharedMemo | None = self.environment.kept_blocks  # type: ignore[attr-defined]
        if memo is None:
            return caller()  # type: ignore[no-any-return]
        return READS.lookup(memo, key, caller)  # type: ignore[no-any-return]
