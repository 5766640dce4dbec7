"""Templates in, files out: the Jinja environment, the static files, and page writing.

A record may override any template or static file by putting one of the same name in
its own `templates/` or `static/` folder; an override can extend the built-in one as
`sourcebook/<name>`. Pages are rendered in worker processes when there are many of
them and the machine has cores to spare.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import traceback
from collections.abc import Callable, Iterator, MutableMapping, Sequence
from itertools import chain
from pathlib import Path
from types import CodeType, MethodType
from typing import Any

import markupsafe
from jinja2 import (
    BytecodeCache,
    ChoiceLoader,
    Environment,
    FileSystemBytecodeCache,
    FileSystemLoader,
    PrefixLoader,
    StrictUndefined,
    Template,
    TemplateNotFound,
    TemplateSyntaxError,
    select_autoescape,
)
from jinja2.loaders import split_template_path
from jinja2.runtime import Context
from jinja2.sandbox import SandboxedEnvironment
from markupsafe import Markup

from sourcebook.library.report import QuoteReport
from sourcebook.publish.site import api
from sourcebook.publish.site.citations import proven_quotes
from sourcebook.publish.site.pages import Page
from sourcebook.publish.site.swap import read_ahead, write_file
from sourcebook.publish.site.urls import Urls
from sourcebook.read.paths import Confined
from sourcebook.runtime.workers import worker_count

HERE = Path(__file__).parent
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"
PARALLEL_FROM = 300
"""Fewer pages than this are rendered in this process: a pool costs more than it saves."""
CHUNK = 250

Progress = Callable[[int], None]


def environment(record_root: Path, globals_: dict[str, Any]) -> Environment:
    """Jinja2 with autoescaping on; the record's templates/ first, then the built-in ones.

    A record's own templates are code from whoever wrote the record: where it has any, every
    template renders in Jinja's sandbox, which refuses what a template could reach beyond
    the values it is given (`lipsum.__globals__`, `__class__`, …)."""
    builtin = FileSystemLoader(TEMPLATES)
    own = record_root / "templates"
    confined = Confined(record_root)
    overridden = any(confined.files(own, ""))
    loaders: list[Any] = [ConfinedLoader(own, confined)] if overridden else []
    loaders += [builtin, PrefixLoader({"sourcebook": builtin})]
    kind = _SandboxedEnvironment if overridden else _Environment
    env = kind(
        loader=ChoiceLoader(loaders),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
        cache_size=-1,
        bytecode_cache=_compiled_templates(sandboxed=overridden),
    )
    env.globals.update(globals_)
    return env


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


def escape(value: Any) -> Markup:
    """What `markupsafe.escape` gives, for the values templates write most, faster.

    A template escapes every value it writes, half a million of them at 10,000 entities;
    markupsafe's escape asks each, str or not, whether it is markup already, and again as
    it wraps the result: a tenth of the time a page takes. Anything but a str or Markup
    goes to markupsafe itself."""
    kind = type(value)
    if kind is str:
        return _as_markup(
            Markup,
            value.replace("&", "&amp;")
            .replace("<", "&lt;")
            .replace(">", "&gt;")
            .replace("'", "&#39;")
            .replace('"', "&#34;"),
        )
    if kind is Markup:
        return value
    return markupsafe.escape(value)


_as_markup = str.__new__
"""Markup made from a str known to be escaped, without Markup's check that it may be
markup already."""


class _Template(Template):
    @classmethod
    def from_code(
        cls,
        environment: Environment,
        code: CodeType,
        globals: MutableMapping[str, Any],
        uptodate: Callable[[], bool] | None = None,
    ) -> Template:
        """The template, its compiled code writing values through `escape` above."""
        template = super().from_code(environment, code, globals, uptodate)
        template.root_render_func.__globals__["escape"] = escape
        return template


class _Context(Context):
    def call(__self, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        """Jinja's `Context.call`, quicker for the calls templates make most: to methods
        (the view's) that take no context, called as they are. For every call, Jinja asks
        three times whether the callable wants the context passed in."""
        if type(__obj) is MethodType and not hasattr(__obj, "jinja_pass_arg"):
            if kwargs:
                kwargs.pop("_block_vars", None)
                kwargs.pop("_loop_vars", None)
            try:
                return __obj(*args, **kwargs)
            except StopIteration:  # as Jinja takes it
                return __self.environment.undefined(
                    "value was undefined because a callable raised a StopIteration exception"
                )
        return super().call(__obj, *args, **kwargs)


class _Environment(Environment):
    template_class = _Template
    context_class = _Context

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        """A template's globals as one flat dict, not Jinja's ChainMap over the
        environment's: every render copies them into its context, and a ChainMap copies
        several times slower. The build sets every global before it loads a template."""
        return {**self.globals, **(d or {})}


class _SandboxedEnvironment(SandboxedEnvironment, _Environment):
    """The sandbox, with the same templates, contexts and globals as the plain one."""


def _compiled_templates(sandboxed: bool) -> BytecodeCache | None:
    """Templates compiled by an earlier build: compiling them all takes a build a quarter
    of a second. Jinja keys each by its source's checksum, so an edited or overriding
    template is compiled afresh. Kept in Jinja's own per-user folder (created private, and
    refused if anyone else could write to it), never in the record: compiled templates are
    code, and a record could hold any file. Sandboxed code is kept apart from plain code."""
    try:
        return FileSystemBytecodeCache(pattern=f"sourcebook-{'sandboxed-' * sandboxed}%s.cache")
    except RuntimeError:  # a cache folder Jinja does not trust
        return None


def static_files(record_root: Path, urls: Urls) -> dict[str, Path]:
    """Each static file of the site, relative to the output folder, and where it comes
    from: the built-in ones, and the record's own over them."""
    target = Urls.file_for(urls.static("x")).rsplit("/", 1)[0]
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

    def __init__(self, env: Environment, view: Any, out: Path):
        self.env = env
        self.view = view
        self.out = out
        self._made: set[Path] = set()

    def render(self, page: Page) -> str:
        if page.template == api.TEMPLATE:
            return api.render(self.view, page)
        self.view.begin(page.url)
        with template_errors(f"while rendering {page.url}"):
            template = self.env.get_template(page.template)
            canonical = self.view.absolute(page.url)
            return template.render(page=page, canonical=canonical, **page.context)

    def path(self, page: Page) -> Path:
        return self.out / Urls.file_for(page.url)

    def write(self, page: Page) -> None:
        path = self.path(page)
        if path.parent not in self._made:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._made.add(path.parent)
        write_file(path, self.render(page).encode("utf-8"))


class RenderError(Exception):
    """A template that failed: one line saying where, for a person."""


TEMPLATE_SUFFIXES = (".html", ".xml", ".atom")


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


_JOB: tuple[Writer, Sequence[Page]] | None = None
"""What the forked workers that render pages find: the writer (with its view) and the pages."""

_PROSE_JOB: tuple[Any, Sequence[Any]] | None = None
"""What the forked workers that render prose find: the view and the record's entities."""


def _render_chunk(bounds: tuple[int, int]) -> int:
    assert _JOB is not None
    writer, pages = _JOB
    chunk = pages[bounds[0] : bounds[1]]
    read_ahead(map(writer.path, chunk))
    for page in chunk:
        writer.write(page)
    return bounds[1] - bounds[0]


def _warm_share(share: tuple[int, int]) -> tuple[dict, ...]:
    """Render the prose of every `share[1]`-th entity from `share[0]`; return the caches."""
    assert _PROSE_JOB is not None
    view, entities = _PROSE_JOB
    with template_errors("while rendering the record's prose"):
        for entity in entities[share[0] :: share[1]]:
            view.warm(entity)
    return view.caches()


def _cite_share(task: tuple[tuple[int, int], dict[str, Any]]) -> tuple[dict, ...]:
    """Render the citation of every `share[1]`-th source from `share[0]`, given the proof
    of their quotes; return what was made."""
    assert _PROSE_JOB is not None
    view = _PROSE_JOB[0]
    (start, step), proven = task
    sources = view.record.of("source")
    with template_errors("while rendering the sources' citations"):
        return view.warm_citations(sources[start::step], proven)


def _without_collector() -> None:
    """A worker's cycle collector stays off: a worker lives for one build, and what it
    makes is kept for the build or freed by reference counting (its peak memory is the
    same without the collector). Collections would only scan its caches again and again,
    writing to the memory it shares with the building process: about a tenth of the
    workers' time at 10,000 entities."""
    gc.disable()


def _in_background() -> None:
    """Give way to the building process: what it does meanwhile (check, derive) is what the
    pages wait for, and the prose workers can use what time it leaves."""
    _without_collector()
    with contextlib.suppress(OSError):
        os.nice(10)


class ProseWorkers:
    """The prose every page draws on (see `SiteView.warm`), rendered by `jobs` forked
    workers, a share each, while this process goes on with other work (checking the
    record, deriving), and then, once check has proved their quotes, the sources'
    citations (`cite`); `adopt` brings it all in, so that no page worker renders it again.

    From the fork on, the cycle collector leaves alone what the workers inherited, so that
    its memory stays shared with them; the page workers, forked later, inherit it too.
    """

    def __init__(self, view: Any, jobs: int):
        global _PROSE_JOB
        self._view = view
        self._jobs = jobs
        with template_errors("while compiling the templates"):
            for name in view.env.list_templates(filter_func=_own_template):
                view.env.get_template(name)  # compiled once, before the fork, for every worker
        gc.freeze()
        _PROSE_JOB = (view, list(view.record))
        self._pool: Any = multiprocessing.get_context("fork").Pool(jobs, _in_background)
        self._shares = self._pool.imap_unordered(_warm_share, [(i, jobs) for i in range(jobs)])
        self._citations: Any = ()
        self._running = True

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
        global _PROSE_JOB
        for caches in chain(self._shares, self._citations):
            self._view.adopt(caches)
        self._pool.close()
        self._pool.join()
        self._running, _PROSE_JOB = False, None

    def cancel(self) -> None:
        """Stop the workers, where they still run: the build will not go on."""
        global _PROSE_JOB
        if not self._running:
            return
        self._pool.terminate()
        self._pool.join()
        self._running, _PROSE_JOB = False, None
        gc.unfreeze()


def _own_template(name: str) -> bool:
    return name.endswith((".html", ".xml")) and not name.startswith("sourcebook/")


def default_jobs(pages: int) -> int:
    """Worker processes for a build: one per core for a large site, none for a small one."""
    return worker_count(pages, PARALLEL_FROM)


def write_pages(writer: Writer, pages: Sequence[Page], jobs: int, progress: Progress) -> None:
    """Every page, in this process or spread over `jobs` forked workers; where there are
    workers, the prose every page draws on has been rendered first (`ProseWorkers`)."""
    global _JOB
    if jobs <= 1:
        for page in pages:
            writer.write(page)
            progress(1)
        return
    try:
        gc.freeze()
        _JOB = (writer, pages)
        bounds = [(i, min(i + CHUNK, len(pages))) for i in range(0, len(pages), CHUNK)]
        with multiprocessing.get_context("fork").Pool(jobs, _without_collector) as pool:
            for done in pool.imap_unordered(_render_chunk, bounds):
                progress(done)
    finally:
        gc.unfreeze()
        _JOB = None
