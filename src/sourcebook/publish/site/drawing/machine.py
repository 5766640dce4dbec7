"""The machine drawn in layers, as inline SVG: money → builders → campuses → chips and power.

Graphviz's `dot` lays it out (a Sugiyama layout: nodes in ranks, the order within each
rank chosen to cross as few edges as it can, edges drawn as splines around the nodes).
What a supplier supplies is a node of its own between the campus and the supplier, so
that dot keeps it clear of every other label and node as it keeps nodes apart. dot is
given no text from the record: each node is a name (`n12`) and a size that sourcebook
measures, and sourcebook writes the labels, escaped, where dot put the nodes. The same
record gives the same drawing. A drawing a reader can follow has a few dozen nodes: past
MAX_NODES it shows the campuses with the most parties and the parties of those, and
says so; the table beside it lists every role.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

from sourcebook.derive.machine import Edge, Machine, Node

MAX_NODES = 80
"""The most nodes drawn; the table lists them all."""
ROLE_ORDER = (
    "owner",
    "operator",
    "developer",
    "builder",
    "tenant",
    "supplier",
    "utility",
    "financier",
    "government",
)
"""An edge of several roles is coloured by the first of them in this order."""
LAYERS = ("Money", "Builders", "Campuses", "", "Chips and power")
"""The drawing's columns, left to right; the fourth holds what suppliers supply."""
BUILDING = {"owner", "operator", "developer", "builder", "tenant"}
SUPPLYING = {"supplier", "utility"}
FONT = 12.0
"""The labels' size in the drawing's pixels."""
PAD_X, HEIGHT = 10.0, 22.0
DOT_SECONDS = 30


class LayoutError(Exception):
    """Graphviz is missing or failed: the page shows the table alone, and says why."""


@dataclass(frozen=True, slots=True)
class Drawing:
    svg: Markup
    nodes: int
    """How many nodes are drawn."""
    edges: int
    capped: bool
    """Whether the record has more nodes than are drawn."""
    missing: str = ""
    """Why there is no drawing, where there is none though the record has campuses."""


def chosen(machine: Machine, most: int = MAX_NODES) -> tuple[list[Node], list[Edge]]:
    """The nodes and edges drawn: all of them where they fit, else the campuses with the
    most parties, each with all its parties, as many as fit within `most` nodes."""
    if len(machine.nodes) <= most:
        return list(machine.nodes), list(machine.edges)
    by_campus: dict[str, list[Edge]] = {}
    for edge in machine.edges:
        by_campus.setdefault(edge.campus, []).append(edge)
    campuses = sorted(
        (n for n in machine.nodes if n.kind == "campus"), key=lambda n: (-n.degree, n.id)
    )
    keys: set[tuple[str, str]] = set()
    edges: list[Edge] = []
    for campus in campuses:
        mine = by_campus.get(campus.id, [])
        new = {("campus", campus.id)} | {("party", e.party) for e in mine}
        if len(keys | new) > most:
            continue
        keys |= new
        edges += mine
    return [n for n in machine.nodes if (n.kind, n.id) in keys], edges


def party_layers(edges: Iterable[Edge]) -> dict[str, int]:
    """The column of every party with a role among `edges`, in one pass over them: a party
    stands where what it mostly does puts it (each of its roles counted by its first in
    ROLE_ORDER), building before supplying before paying where it does as much of each;
    a campus stands in column 2 (`_column`)."""
    counts: dict[str, dict[int, int]] = {}
    for edge in edges:
        role = primary_role(edge.roles)
        rank = 1 if role in BUILDING else 4 if role in SUPPLYING else 0
        mine = counts.setdefault(edge.party, dict.fromkeys(_RANKS, 0))
        mine[rank] += 1
    return {party: _most(mine) for party, mine in counts.items()}


_RANKS = (1, 4, 0)
"""The party columns, building first: where a party does as much of two, the first wins."""


def _most(counts: dict[int, int]) -> int:
    return max(counts, key=counts.__getitem__)


def _column(node: Node, parties: dict[str, int]) -> int:
    """A node's column, given every party's (`party_layers`): a party with no role among
    them counts none of each."""
    if node.kind == "campus":
        return 2
    return parties.get(node.id, _most(dict.fromkeys(_RANKS, 0)))


def text_width(text: str, size: float = FONT) -> float:
    """A generous width of `text` in a sans-serif face at `size`: wide enough for DejaVu
    Sans and Verdana, the widest faces a reader's `sans-serif` may be."""
    em = 0.0
    for ch in text:
        if ch in "iljI.,:;'|!() ":
            em += 0.36
        elif ch in "mwMW@%":
            em += 0.95
        elif ch.isupper() or ch.isdigit():
            em += 0.74
        else:
            em += 0.63
    return em * size


@dataclass(frozen=True, slots=True)
class _Box:
    name: str
    """dot's name for it: n0, n1, …"""
    node: Node | None
    """The campus or party; None for what a supplier supplies."""
    text: str
    layer: int
    width: float


@dataclass(frozen=True, slots=True)
class _Line:
    tail: str
    head: str
    edge: Edge


def _graph(nodes: Sequence[Node], edges: Sequence[Edge]) -> tuple[list[_Box], list[_Line]]:
    """The boxes and lines dot lays out, in a fixed order: a supplier's line runs from
    the campus through a box naming what it supplies."""
    ordered = sorted(nodes, key=lambda n: (n.kind, n.id))
    parties = party_layers(edges)
    boxes = {
        (n.kind, n.id): _Box(f"n{i}", n, n.title, _column(n, parties), 0.0)
        for i, n in enumerate(ordered)
    }
    found = [
        _Box(b.name, b.node, b.text, b.layer, text_width(b.text) + 2 * PAD_X)
        for b in boxes.values()
    ]
    lines: list[_Line] = []
    for i, edge in enumerate(sorted(edges, key=lambda e: (e.campus, e.party, e.roles))):
        campus, party = boxes["campus", edge.campus], boxes["party", edge.party]
        if party.layer < 2:
            lines.append(_Line(party.name, campus.name, edge))
        elif edge.supplies:
            label = _Box(f"s{i}", None, edge.supplies, 3, text_width(edge.supplies, FONT - 1))
            found.append(label)
            lines += [_Line(campus.name, label.name, edge), _Line(label.name, party.name, edge)]
        else:
            lines.append(_Line(campus.name, party.name, edge))
    return found, lines


def _dot_source(boxes: Sequence[_Box], lines: Sequence[_Line]) -> str:
    """The graph in dot's language: names and sizes only, nothing of the record's text."""
    out = [
        "digraph machine {",
        "rankdir=LR; newrank=true; nodesep=0.12; ranksep=0.45; splines=true;",
        'node [shape=box, fixedsize=true, label=""]; edge [arrowhead=none];',
    ]
    for rank in range(len(LAYERS)):
        names = [b.name for b in boxes if b.layer == rank]
        out.append(f"h{rank} [width=0.01, height=0.01, style=invis];")
        out.append("{rank=same; " + " ".join([f"h{rank}", *names]) + ";}")
    out += [f"h{r} -> h{r + 1} [style=invis];" for r in range(len(LAYERS) - 1)]
    for box in boxes:
        out.append(f"{box.name} [width={box.width / 72:.3f}, height={HEIGHT / 72:.3f}];")
    out += [f"{line.tail} -> {line.head};" for line in lines]
    out.append("}")
    return "\n".join(out) + "\n"


def _run_dot(source: str) -> str:
    dot = shutil.which("dot")
    if dot is None:
        raise LayoutError("Graphviz's dot is not installed, which draws it")
    try:
        done = subprocess.run(
            [dot, "-Tplain"],
            input=source,
            capture_output=True,
            text=True,
            timeout=DOT_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise LayoutError(f"Graphviz took longer than {DOT_SECONDS} seconds") from None
    if done.returncode != 0:
        raise LayoutError(f"Graphviz failed: {done.stderr.strip()[:200]}")
    return done.stdout


@dataclass(frozen=True, slots=True)
class _Layout:
    width: float
    height: float
    places: dict[str, tuple[float, float]]
    """Each node's middle, in pixels from the top left."""
    splines: dict[tuple[str, str], list[tuple[float, float]]]


def _parsed(plain: str) -> _Layout:
    """dot's `plain` output, in pixels with y downwards (dot's inches have it upwards)."""
    places: dict[str, tuple[float, float]] = {}
    splines: dict[tuple[str, str], list[tuple[float, float]]] = {}
    width = height = 0.0
    for line in plain.splitlines():
        words = line.split()
        if not words:
            continue
        if words[0] == "graph":
            width, height = float(words[2]) * 72, float(words[3]) * 72
        elif words[0] == "node":
            places[words[1]] = (float(words[2]) * 72, height - float(words[3]) * 72)
        elif words[0] == "edge":
            count = int(words[3])
            xy = [float(w) * 72 for w in words[4 : 4 + 2 * count]]
            points = [(xy[i], height - xy[i + 1]) for i in range(0, len(xy), 2)]
            splines[words[1], words[2]] = points
    return _Layout(width, height, places, splines)


def draw(
    machine: Machine,
    url: Callable[[str, str], str],
    *,
    title: str,
    description: str,
    most: int = MAX_NODES,
) -> Drawing:
    """The machine as SVG; `url(kind, id)` is a node's page ('' for none). Every string
    from the record is escaped."""
    nodes, edges = chosen(machine, most)
    capped = len(nodes) < len(machine.nodes)
    if not nodes:
        return Drawing(Markup(""), 0, 0, False)
    boxes, lines = _graph(nodes, edges)
    try:
        laid = _parsed(_run_dot(_dot_source(boxes, lines)))
    except LayoutError as exc:
        return Drawing(Markup(""), 0, 0, capped, missing=str(exc))
    margin, head = 8.0, 30.0
    width, height = laid.width + 2 * margin, laid.height + head + margin

    def at(name: str) -> tuple[float, float]:
        x, y = laid.places[name]
        return x + margin, y + head

    parts = [
        f'<svg class="machine" viewBox="0 0 {width:.0f} {height:.0f}" width="{width:.0f}"'
        f' height="{height:.0f}" aria-labelledby="machine-t machine-d"'
        ' xmlns="http://www.w3.org/2000/svg">',
        f'<title id="machine-t">{escape(title)}</title>'
        f'<desc id="machine-d">{escape(description)}</desc>',
        _headings(boxes, at),
        '<g class="edges">',
    ]
    titles = {(n.kind, n.id): n.title for n in nodes}
    for line in lines:
        points = [(x + margin, y + head) for x, y in laid.splines.get((line.tail, line.head), [])]
        parts.append(_edge(line.edge, points, titles))
    parts.append('</g><g class="nodes">')
    for box in boxes:
        place = at(box.name)
        if box.node is None:
            parts.append(_supplied(box, place))
        else:
            parts.append(_node(box, place, url(box.node.kind, box.node.id)))
    parts.append("</g></svg>")
    return Drawing(Markup("".join(parts)), len(nodes), len(edges), capped)


def _headings(boxes: Sequence[_Box], at: Callable[[str], tuple[float, float]]) -> str:
    """Each column's name above it, over the middle of its nodes."""
    out = ['<g class="layers">']
    for rank, name in enumerate(LAYERS):
        xs = [at(b.name)[0] for b in boxes if b.layer == rank]
        if name and xs:
            x = (min(xs) + max(xs)) / 2
            out.append(f'<text class="layer" x="{x:.1f}" y="16" text-anchor="middle">{name}</text>')
    out.append("</g>")
    return "".join(out)


def primary_role(roles: Sequence[str]) -> str:
    ranked = [r for r in ROLE_ORDER if r in roles]
    return ranked[0] if ranked else (roles[0] if roles else "")


def role_words(edge: Edge) -> str:
    """'supplier (Megapack batteries), builder'."""
    words = []
    for role in edge.roles:
        words.append(f"{role} ({edge.supplies})" if role == "supplier" and edge.supplies else role)
    return ", ".join(words)


def _edge(edge: Edge, points: list[tuple[float, float]], titles: dict) -> str:
    if not points:
        return ""
    role = primary_role(edge.roles)
    said = f"{titles['party', edge.party]} → {titles['campus', edge.campus]}: {role_words(edge)}"
    path = f"M{points[0][0]:.1f},{points[0][1]:.1f}"
    for i in range(1, len(points) - 2, 3):
        (ax, ay), (bx, by), (cx, cy) = points[i : i + 3]
        path += f" C{ax:.1f},{ay:.1f} {bx:.1f},{by:.1f} {cx:.1f},{cy:.1f}"
    return f'<path class="edge role-{escape(role)}" d="{path}"><title>{escape(said)}</title></path>'


def _supplied(box: _Box, place: tuple[float, float]) -> str:
    x, y = place
    return (
        f'<text class="supplies" x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle">'
        f"{escape(box.text)}</text>"
    )


def _node(box: _Box, place: tuple[float, float], url: str) -> str:
    assert box.node is not None
    node, (x, y) = box.node, place
    kind = "Campus" if node.kind == "campus" else "Party"
    tip = escape(f"{kind} {node.title} ({node.detail})" if node.detail else f"{kind} {node.title}")
    mark = (
        f'<rect x="{x - box.width / 2:.1f}" y="{y - HEIGHT / 2:.1f}" width="{box.width:.1f}"'
        f' height="{HEIGHT:.0f}" rx="4"/>'
        f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle">{escape(node.title)}</text>'
    )
    body = f'<g class="node {node.kind}"><title>{tip}</title>{mark}</g>'
    return f'<a href="{escape(url)}">{body}</a>' if url else body
