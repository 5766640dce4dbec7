"""The machine drawn: campuses and parties as nodes, their roles as edges, as inline SVG.

The layout is networkx's force-directed `spring_layout` (Fruchterman-Reingold), seeded,
so the same record always gives the same drawing. A drawing that a reader can follow has
a few dozen nodes, not thousands, and the layout's cost grows with the square of the
nodes: past MAX_NODES the diagram shows the campuses with the most parties and the
parties of those, and says so; the table beside it always lists every role.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup, escape

from sourcebook.derive.machine import Edge, Machine, Node

MAX_NODES = 80
"""The most nodes drawn; the table lists them all."""
WIDTH = 960
MARGIN_X, MARGIN_Y = 120, 40
"""Room for a node's label beside it at the drawing's edges."""
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
SEED = 20261108


@dataclass(frozen=True, slots=True)
class Drawing:
    svg: Markup
    nodes: int
    """How many nodes are drawn."""
    edges: int
    capped: bool
    """Whether the record has more nodes than are drawn."""


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


def layout(nodes: Sequence[Node], edges: Sequence[Edge]) -> tuple[dict[Any, tuple], float]:
    """Each node's place, x and y in 0…1, by a seeded force-directed layout; and the
    layout's height over its width."""
    import networkx as nx  # only the build that draws the machine pays for the import

    # Sorted, so the layout does not depend on the order the record lists things in.
    graph = nx.Graph()
    graph.add_nodes_from(sorted((n.kind, n.id) for n in nodes))
    graph.add_edges_from(
        sorted(tuple(sorted((("campus", e.campus), ("party", e.party)))) for e in edges)
    )
    found = _packed(nx, graph)
    xs = [p[0] for p in found.values()]
    ys = [p[1] for p in found.values()]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    places = {
        key: ((p[0] - x0) / ((x1 - x0) or 1), (p[1] - y0) / ((y1 - y0) or 1))
        for key, p in found.items()
    }
    return places, ((y1 - y0) or 1) / ((x1 - x0) or 1)


def _packed(nx: Any, graph: Any) -> dict[Any, tuple[float, float]]:
    """Each connected part laid out alone, in a square as large as its share of the
    nodes, and the squares set in rows, largest first: a force layout of the whole would
    push the parts that share no edge to the far corners."""
    parts = sorted(nx.connected_components(graph), key=lambda p: (-len(p), min(p)))
    row_width = max(math.sqrt(len(parts[0])), 1.3 * math.sqrt(len(graph)))
    places: dict[Any, tuple[float, float]] = {}
    x = y = row_height = 0.0
    for part in parts:
        side = math.sqrt(len(part))
        if x > 0 and x + side > row_width:
            x, y, row_height = 0.0, y + row_height, 0.0
        # A graph of its own, nodes and edges in sorted order: networkx's subgraph view
        # can iterate its nodes in a set's order, which differs from run to run.
        sub = nx.Graph()
        sub.add_nodes_from(sorted(part))
        sub.add_edges_from(sorted(tuple(sorted(edge)) for edge in graph.edges(part)))
        if len(part) == 1:
            found = {next(iter(part)): (0.5, 0.5)}
        else:
            raw = nx.spring_layout(sub, k=2.5 / side, iterations=300, seed=SEED)
            found = _unit(raw)
        inner = side * 0.8  # a margin between the parts
        for key, (px, py) in found.items():
            places[key] = (x + side * 0.1 + px * inner, y + side * 0.1 + py * inner)
        x += side
        row_height = max(row_height, side)
    return places


def _unit(found: dict[Any, Any]) -> dict[Any, tuple[float, float]]:
    xs = [float(p[0]) for p in found.values()]
    ys = [float(p[1]) for p in found.values()]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    return {
        key: ((float(p[0]) - x0) / ((x1 - x0) or 1), (float(p[1]) - y0) / ((y1 - y0) or 1))
        for key, p in found.items()
    }


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
    if not nodes:
        return Drawing(Markup(""), 0, 0, False)
    places, aspect = layout(nodes, edges)
    height = round(max(360, min(1600, (WIDTH - 2 * MARGIN_X) * aspect + 2 * MARGIN_Y)))

    scaled = {
        key: (MARGIN_X + x * (WIDTH - 2 * MARGIN_X), MARGIN_Y + y * (height - 2 * MARGIN_Y))
        for key, (x, y) in places.items()
    }
    spots = _apart(nodes, scaled, height)

    def at(kind: str, ident: str) -> tuple[float, float]:
        return spots[kind, ident]

    titles = {(n.kind, n.id): n.title for n in nodes}
    parts = [
        f'<svg class="machine" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}"'
        ' aria-labelledby="machine-t machine-d" xmlns="http://www.w3.org/2000/svg">',
        f'<title id="machine-t">{escape(title)}</title>'
        f'<desc id="machine-d">{escape(description)}</desc>',
        '<g class="edges">',
    ]
    parts += [_edge(e, at, titles) for e in edges]
    parts.append('</g><g class="nodes">')
    parts += [_node(n, at(n.kind, n.id), url(n.kind, n.id)) for n in nodes]
    parts.append("</g></svg>")
    capped = len(nodes) < len(machine.nodes)
    return Drawing(Markup("".join(parts)), len(nodes), len(edges), capped)


def _box(node: Node) -> tuple[float, float, float]:
    """Half the width and half the height of a node with its label, and how far below the
    node's point the box's middle is."""
    if node.kind == "campus":
        return 7 + 3.6 * len(node.title), 13.0, 0.0
    return max(8.0, 3.4 * len(node.title)), 16.0, 7.0


def _apart(
    nodes: Sequence[Node], spots: dict[Any, tuple[float, float]], height: float, rounds: int = 40
) -> dict[Any, tuple[float, float]]:
    """The nodes nudged apart until no two labels overlap (or `rounds` are done): each
    overlapping pair moves apart, half each, along the axis where they overlap least."""
    keys = [(n.kind, n.id) for n in nodes]
    boxes = {(n.kind, n.id): _box(n) for n in nodes}
    at = {k: list(spots[k]) for k in keys}
    for _ in range(rounds):
        moved = False
        for i, a in enumerate(keys):
            wa, ha, da = boxes[a]
            for b in keys[i + 1 :]:
                wb, hb, db = boxes[b]
                dx = at[b][0] - at[a][0]
                dy = (at[b][1] + db) - (at[a][1] + da)
                over_x, over_y = wa + wb - abs(dx), ha + hb - abs(dy)
                if over_x <= 0 or over_y <= 0:
                    continue
                moved = True
                if over_x < over_y:
                    step = (over_x / 2 + 1) * (1 if dx >= 0 else -1)
                    at[a][0] -= step
                    at[b][0] += step
                else:
                    step = (over_y / 2 + 1) * (1 if dy >= 0 else -1)
                    at[a][1] -= step
                    at[b][1] += step
        for k in keys:
            w, h, _d = boxes[k]
            at[k][0] = min(max(at[k][0], w + 2), WIDTH - w - 2)
            at[k][1] = min(max(at[k][1], h + 2), height - h - 20)
        if not moved:
            break
    return {k: (at[k][0], at[k][1]) for k in keys}


def primary_role(roles: Sequence[str]) -> str:
    ranked = [r for r in ROLE_ORDER if r in roles]
    return ranked[0] if ranked else (roles[0] if roles else "")


def role_words(edge: Edge) -> str:
    """'supplier (Megapack batteries), builder'."""
    words = []
    for role in edge.roles:
        words.append(f"{role} ({edge.supplies})" if role == "supplier" and edge.supplies else role)
    return ", ".join(words)


def _edge(edge: Edge, at: Callable, titles: dict) -> str:
    x1, y1 = at("party", edge.party)
    x2, y2 = at("campus", edge.campus)
    role = primary_role(edge.roles)
    said = f"{titles['party', edge.party]} → {titles['campus', edge.campus]}: {role_words(edge)}"
    line = (
        f'<line class="edge role-{escape(role)}" x1="{x1:.1f}" y1="{y1:.1f}"'
        f' x2="{x2:.1f}" y2="{y2:.1f}"><title>{escape(said)}</title></line>'
    )
    if not edge.supplies:
        return line
    # Nearer the campus than the party: a supplier is a hub that many lines leave.
    mx, my = x2 + (x1 - x2) * 0.4, y2 + (y1 - y2) * 0.4
    return (
        f'{line}<text class="supplies" x="{mx:.1f}" y="{my - 3:.1f}" text-anchor="middle">'
        f"{escape(edge.supplies)}</text>"
    )


def _node(node: Node, place: tuple[float, float], url: str) -> str:
    x, y = place
    label = escape(node.title)
    kind = "Campus" if node.kind == "campus" else "Party"
    tip = escape(f"{kind} {node.title} ({node.detail})" if node.detail else f"{kind} {node.title}")
    if node.kind == "campus":
        width = 14 + 7.2 * len(node.title)
        mark = (
            f'<rect x="{x - width / 2:.1f}" y="{y - 11:.1f}" width="{width:.1f}" height="22"'
            ' rx="4"/>'
            f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle">{label}</text>'
        )
    else:
        mark = (
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="6"/>'
            f'<text x="{x:.1f}" y="{y + 19:.1f}" text-anchor="middle">{label}</text>'
        )
    body = f'<g class="node {node.kind}"><title>{tip}</title>{mark}</g>'
    return f'<a href="{escape(url)}">{body}</a>' if url else body
