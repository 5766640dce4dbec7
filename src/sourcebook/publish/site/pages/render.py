"""Templates in, files out: the Jinja environment, the static files, and page writing.

A record may override any template or static file by putting one of the same name in
its own `templates/` or `static/` folder; an override can extend the built-in one as
`sourcebook/<name>`. Pages are rendered in worker processes when there are many of
them and the machine has cores to spare.
"""

from __future__ import annotations

import contextlib
import os
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import chain
from pathlib import Path
from typing import Any

from jinja2 import (
    BytecodeCache,
    ChoiceLoader,
    Environment,
    FileSystemBytecodeCache,
    FileSystemLoader,
    PrefixLoader,
    StrictUndefined,
    TemplateNotFound,
    TemplateSyntaxError,
    select_autoescape,
)
from jinja2.loaders import split_template_path

from sourcebook.incremental import READS, SharedMemo, Token, note_attribute
from sourcebook.library.report import QuoteReport
from sourcebook.publish.site.formats import twins
from sourcebook.publish.site.pages.kept_blocks import KeptBlocks
from sourcebook.publish.site.pages.page import SEARCH_TEMPLATE, Page
from sourcebook.publish.site.pages.reach import RecordSandbox
from sourcebook.publish.site.pages.template_budget import Budget
from sourcebook.publish.site.pages.urls import Urls
from sourcebook.publish.site.serving.policy import page_policy, with_policy
from sourcebook.publish.site.serving.swap import read_ahead, write_file
from sourcebook.publish.site.view.citations import proven_quotes
from sourcebook.publish.site.view.wording import day, file_size
from sourcebook.read.paths import Confined
from sourcebook.runtime.workers import Forked, forked_job, worker_count

HERE = Path(__file__).parent.parent
"""The site's folder, where the built-in templates and static files are kept."""
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"
PARALLEL_FROM = 300
"""Fewer pages than this are rendered in this process: a pool costs more than it saves."""
CHUNK = 250

FILTERS: dict[str, Callable[[Any], str]] = {"day": day, "size": file_size}
"""The site's own filters, besides Jinja's: `{{ source.date | day }}` → '28 October 2024',
`{{ file.bytes | size }}` → '14.2 KB'."""

Progress = Callable[[int], None]


def environment(record_root: Path, globals_: dict[str, Any], entities: int = 0) -> Environment:
    """Jinja2 with autoescaping on; the record's templates/ first, then the built-in ones.

    A record's own templates are code from whoever wrote the record: where it has any, every
    template renders in `RecordSandbox`, which lets a template reach plain values, the
    record's values and the view's documented parts, and nothing else (see `reach.py`),
    each render within a budget linear in the record's `entities` (`template_budget.py`)."""
    builtin = FileSystemLoader(TEMPLATES)
    own = record_root / "templates"
    confined = Confined(record_root)
    overridden = any(confined.files(own, ""))
    loaders: list[Any] = [ConfinedLoader(own, confined)] if overridden else []
    loaders += [builtin, PrefixLoader({"sourcebook": builtin})]
    kind = RecordSandbox if overridden else TracedEnvironment
    env = kind(
        loader=ChoiceLoader(loaders),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
        cache_size=-1,
        bytecode_cache=_compiled_templates(sandboxed=overridden),
        extensions=[KeptBlocks],
    )
    env.filters.update(FILTERS)
    env.globals.update(globals_)
    if isinstance(env, RecordSandbox):
        env.budget = Budget.for_record(entities)
    return env


class TracedEnvironment(Environment):
    """Jinja for the built-in templates: every attribute a template reads of an entity is
    noted as the page's (see `incremental.Reads`), as the record's sandbox notes it."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if _NOTING:
            note_attribute(obj, attribute)
        return Environment.getattr(self, obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        if _NOTING and isinstance(argument, str):
            note_attribute(obj, argument)
        return Environment.getitem(self, obj, argument)


_NOTING = READS.open_pages()
"""The pages open now (empty while none is: a build that keeps nothing pays a test)."""


class ConfinedLoader(FileSystemLoader):
    """The record's templates/, where a link that leaves the record is no template."""

    def __init__(self, folder: Path, confined: Confined):
        super().__init__(folder)
        self.confined = confined

    def get_source(
        self, environment: Environment, template: str
    ) -> tuple[str, str, Callable[[], bool]]:
        pieces = split_template_path(template)
        for searchpath in self.searchpath:
            path = os.path.join(searchpath, *pieces)
            if os.path.lexists(path):
                if not (self.confined.holds(path) and os.path.isfile(path)):
                    raise TemplateNotFound(template)
                break
        return super().get_source(environment, template)


def _compiled_templates(sandboxed: bool) -> BytecodeCache | None:
    """Templates compiled by an earlier build: compiling them all takes a build a quarter
    of a second. Jinja keys each by its source's checksum, so an edited or overriding
    template is compiled afresh. Kept in Jinja's own per-user folder (created private, and
    refused if anyone else could write to it), never in the record: compiled templates are
    code, and a record could hold any file. Sandboxed code is kept apart from plain code."""
    try:
        kept = f"sourcebook-{'sandboxed-budgeted-' * sandboxed}%s.cache"
        return FileSystemBytecodeCache(pattern=kept)
    except RuntimeError:  # a cache folder Jinja does not trust
        return None


def static_files(record_root: Path, urls: Urls) -> dict[str, Path]:
    """Each static file of the site, relative to the output folder, and where it comes
    from: the built-in ones, and the record's own over them."""
    target = Urls.file_for(urls.static("")).removesuffix("/index.html")
    files = {
        f"{target}/{path.relative_to(STATIC).as_posix()}": path
        for path in sorted(STATIC.rglob("*"))
        if path.is_file()
    }
    confined = Confined(record_root)  # check reports the links it passes over
    for path, shown in confined.files(record_root / "static", "", hidden=True):
        files[f"{target}{shown}"] = Path(path)
    return files


def copy_files(files: dict[str, Path], out: Path) -> None:
    """Copy each file to its place (relative to `out`)."""
    for relative, source in files.items():
        path = out / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        write_file(path, source.read_bytes())


class Writer:
    """Renders pages into an output folder."""

    def __init__(
        self,
        env: Environment,
        view: Any,
        out: Path,
        files: Mapping[str, Callable[[Any, Page], bytes]] | None = None,
    ):
        self.env = env
        self.view = view
        self.out = out
        self.files = files or {}
        """Pseudo-templates of files that are not pages (a chart's CSV, the paper's PDF),
        each with what writes one."""
        self._made: set[Path] = set()
        self.reads: dict[str, frozenset[Token]] | None = None
        """What each page read, by URL, where the build keeps it (see `incremental.Reads`)."""

    def render(self, page: Page) -> str:
        if page.template == twins.TEMPLATE:
            return twins.render(self.view, page)
        self.view.prose.begin(page.url)
        with template_errors(f"while rendering {page.url}"):
            template = self.env.get_template(page.template)
            canonical = self.view.links.absolute(page.url)
            made = template.render(page=page, canonical=canonical, **page.context)
        return with_policy(made, self.policy(page)) if page.template.endswith(".html") else made

    def policy(self, page: Page) -> str:
        """The page's content security policy: the site's, whatever its template says."""
        notify = self.view.notify
        forms = [notify.origin] if notify is not None else []
        return page_policy(wasm=page.template == SEARCH_TEMPLATE, forms=forms)

    def path(self, page: Page) -> Path:
        return self.out / Urls.file_for(page.url)

    def content(self, page: Page) -> bytes:
        """The page's file, as it is written."""
        if self.reads is None:
            return self._content(page)
        with READS.page() as read:
            content = self._content(page)
        self.reads[page.url] = frozenset(read)
        return content

    def _content(self, page: Page) -> bytes:
        made = self.files.get(page.template)
        if made is not None:
            with template_errors(f"while writing {page.url}"):
                return made(self.view, page)
        return self.render(page).encode("utf-8")

    def write(self, page: Page, content: bytes | None = None) -> None:
        """Write the page (`content`, where it was made before)."""
        path = self.path(page)
        if path.parent not in self._made:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._made.add(path.parent)
        write_file(path, self.content(page) if content is None else content)


class RenderError(Exception):
    """A template that failed: one line saying where, for a person."""


TEMPLATE_SUFFIXES = (".html", ".xml", ".atom", ".txt")


@contextlib.contextmanager
def template_errors(doing: str) -> Iterator[None]:
    """Turn an error raised by a template's code into a RenderError naming the template's
    file and line: a record's own templates can fail in any way, and a person wants the
    line of the template, not Python's traceback."""
    try:
        yield
    except RenderError:
        raise
    except TemplateSyntaxError as exc:
        where = f"{_shown_template(exc.filename or exc.name or '?')}:{exc.lineno}"
        raise RenderError(f"{where}: {exc.message} ({doing})") from None
    except Exception as exc:
        frames = [
            f
            for f in traceback.extract_tb(exc.__traceback__)
            if f.filename.endswith(TEMPLATE_SUFFIXES)
        ]
        if not frames:
            raise
        where = f"{_shown_template(frames[-1].filename)}:{frames[-1].lineno}"
        message = " ".join(str(exc).split()) or type(exc).__name__
        raise RenderError(f"{where}: {type(exc).__name__}: {message} ({doing})") from None


def _shown_template(path: str) -> str:
    """A template's file as a person knows it: the record's own as written, a built-in one
    under sourcebook/."""
    if path.startswith(str(TEMPLATES)):
        return f"sourcebook/templates/{os.path.relpath(path, TEMPLATES)}"
    try:
        return Path(path).relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path


def _render_chunk(bounds: tuple[int, int]) -> tuple[int, dict[str, frozenset[Token]] | None]:
    """Write the pages within `bounds`; their number, and what each read where noted."""
    writer, pages = forked_job()  # the writer (with its view) and the pages
    chunk = pages[bounds[0] : bounds[1]]
    read_ahead(map(writer.path, chunk))
    for page in chunk:
        writer.write(page)
    if writer.reads is None:
        return len(chunk), None
    return len(chunk), {page.url: writer.reads[page.url] for page in chunk}


@contextlib.contextmanager
def _noting(noting: bool) -> Iterator[None]:
    """What the block makes notes what it reads, where `noting` (see `reads.Reads.cached`)."""
    if not noting:
        yield
        return
    with READS.page():
        yield


def _warm_share(share: tuple[int, int]) -> tuple[SharedMemo, ...]:
    """Render the prose of every `share[1]`-th entity from `share[0]`; return the caches."""
    view, entities, noting = forked_job()  # the view, the record's entities, whether noted
    with template_errors("while rendering the record's prose"), _noting(noting):
        for entity in entities[share[0] :: share[1]]:
            view.prose.warm(entity)
    return view.prose.caches()  # type: ignore[no-any-return]


def _cite_share(task: tuple[tuple[int, int], dict[str, Any]]) -> tuple[SharedMemo, ...]:
    """Render the citation of every `share[1]`-th source from `share[0]`, given the proof
    of their quotes; return what was made."""
    view, _, noting = forked_job()
    (start, step), proven = task
    sources = view.record.of("source")
    with template_errors("while rendering the sources' citations"), _noting(noting):
        return view.prose.warm_citations(sources[start::step], proven)  # type: ignore[no-any-return]


BACKGROUND = 10
"""How far the prose workers give way to the building process: what it does meanwhile
(check, derive) is what the pages wait for, and they can use what time it leaves."""


class ProseWorkers:
    """The prose every page draws on (see `PageProse.warm`), rendered by `jobs` forked
    workers, a share each, while this process goes on with other work (checking the
    record, deriving), and then, once check has proved their quotes, the sources'
    citations (`cite`); `adopt` brings it all in, so that no page worker renders it again.

    What the workers inherited stays out of the cycle collector's reach until the pages
    are written, so that its memory stays shared with them and the page workers too.
    """

    def __init__(self, view: Any, jobs: int, noting: bool = False):
        """`noting`: what each piece read is noted with it, for a build that keeps what
        each page read (see `reads.Reads.cached`)."""
        self._view = view
        self._jobs = jobs
        with template_errors("while compiling the templates"):
            for name in view.env.list_templates(filter_func=_own_template):
                view.env.get_template(name)  # compiled once, before the fork, for every worker
        job = (view, list(view.record), noting)
        self._pool = Forked(jobs, job, shared=True, nice=BACKGROUND)
        self._shares = self._pool.imap_unordered(_warm_share, [(i, jobs) for i in range(jobs)])
        self._citations: Any = ()

    def cite(self, report: QuoteReport | None) -> None:
        """Have the workers render the sources' citations too, now that check has proved
        their quotes: what each shows of its proof goes with it."""
        sources = self._view.record.of("source")
        tasks = [
            (
                (i, self._jobs),
                {s.id: proven_quotes(report, s) for s in sources[i :: self._jobs]}
                if report is not None
                else {},
            )
            for i in range(self._jobs)
        ]
        self._citations = self._pool.imap_unordered(_cite_share, tasks)

    def adopt(self) -> None:
        """Wait for every share and take it into this process's view."""
        for caches in chain(self._shares, self._citations):
            self._view.prose.adopt(caches)
        self._pool.close()

    def cancel(self) -> None:
        """Stop the workers, where they still run: the build will not go on."""
        self._pool.cancel()


def _own_template(name: str) -> bool:
    return name.endswith((".html", ".xml")) and not name.startswith("sourcebook/")


def default_jobs(pages: int) -> int:
    """Worker processes for a build: one per core for a large site, none for a small one."""
    return worker_count(pages, PARALLEL_FROM)


def write_pages(
    writer: Writer, pages: Sequence[Page], jobs: int, progress: Progress | None = None
) -> None:
    """Every page, in this process or spread over `jobs` forked workers; where there are
    workers, the prose every page draws on has been rendered first (`ProseWorkers`), or
    each renders what its pages show. Pages that note what they read send it back."""
    progress = progress or (lambda done: None)
    if jobs <= 1:
        for page in pages:
            writer.write(page)
            progress(1)
        return
    bounds = [(i, min(i + CHUNK, len(pages))) for i in range(0, len(pages), CHUNK)]
    with Forked(jobs, (writer, pages), shared=True) as pool:
        for done, reads in pool.imap_unordered(_render_chunk, bounds):
            if reads is not None and writer.reads is not None:
                writer.reads.update(reads)
            progress(done)
