"""Record prose on a page: Markdown made safe, wiki links, citations, marks and mentions."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser as HTMLParser
from site_fixtures import write_record

from sourcebook.pipeline import check
from sourcebook.publish.site.pages.sections import site_urls
from sourcebook.publish.site.view.citations import sentence
from sourcebook.publish.site.view.prose_html import safe_link
from sourcebook.publish.site.view.site_view import SiteView
from sourcebook.publish.site.view.wording import book_line, day, join, ordinal


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> SiteView:
    checked = check(write_record(tmp_path_factory.mktemp("record")))
    assert checked.record is not None
    return SiteView(checked.record, checked.graph, site_urls(checked.record.settings.site), [])


def block(view: SiteView, text: str) -> str:
    """A body that link did not read (no field of the record's): link's code reads it as
    the renderer renders it."""
    return str(view.prose.renderer.block(text).html)


def inline(view: SiteView, text: str) -> str:
    """As `block`, one line."""
    return str(view.prose.renderer.inline(text).html)


def test_wiki_links_in_every_form(view: SiteView) -> None:
    assert (
        inline(view, "[[colossus-2]]")
        == '<a class="mention" href="/vol1/ledger/colossus-2">Colossus 2</a>'
    )
    assert inline(view, "[[party:xai|Musk’s company]]") == (
        '<a class="mention" href="/vol1/parties/xai">Musk’s company</a>'
    )
    assert inline(view, "[[cluster]]") == (
        '<a class="mention term" href="/vol1/glossary/cluster">Cluster</a>'
    )


def test_citations_link_to_the_source_with_their_locator(view: SiteView) -> None:
    assert inline(view, "As argued [@sa-essay, p. 81].") == (
        'As argued <span class="citation">(<a href="/vol1/sources/other#sa-essay">'
        "Aschenbrenner, June 2024</a>, p. 81)</span>."
    )
    both = inline(view, "[@bloomberg-moonshot-alibaba-jul26; @semianalysis-btm-sep26]")
    assert "Hawkins and Fan, 31 July 2026</a>; <a" in both
    assert "SemiAnalysis, 10 September 2026</a>)" in both


def test_marked_spans_show_their_quoted_words(view: SiteView) -> None:
    assert inline(view, "a [“race”]{.scare} of sorts") == (
        'a <span class="scare">“race”</span> of sorts'
    )
    assert inline(view, "[“Racing Ahead”]{.title}") == '<span class="title">“Racing Ahead”</span>'


def test_every_mention_of_a_name_is_linked(view: SiteView) -> None:
    html = inline(view, "Clusters and a cluster; xAI built one.")
    assert html == (
        '<a class="mention term" href="/vol1/glossary/cluster">Clusters</a> and a '
        '<a class="mention term" href="/vol1/glossary/cluster">cluster</a>; '
        '<a class="mention" href="/vol1/parties/xai">xAI</a> built one.'
    )
    assert view.prose.renderer.inline("a cluster").terms == {"cluster"}


def test_no_mention_inside_links_code_or_urls(view: SiteView) -> None:
    html = block(view, "[a cluster](https://example.com/cluster) `cluster` https://x.org/cluster")
    assert "mention" not in html
    assert '<a href="https://example.com/cluster">a cluster</a>' in html


def test_an_entity_does_not_link_to_itself(view: SiteView) -> None:
    term = view.record.get("term", "cluster")
    assert term is not None
    assert "mention" not in str(view.prose.renderer.inline("a cluster", term.key).html)


def test_raw_html_is_text(view: SiteView) -> None:
    html = block(view, '<script>alert(1)</script> <img src=x onerror="alert(1)">')
    assert "<script" not in html and "<img" not in html
    assert "&lt;script&gt;" in html


ALLOWED_TAGS = {"p", "a", "em", "strong", "code", "pre", "ul", "ol", "li", "blockquote", "hr"}
ALLOWED_TAGS |= {"h2", "h3", "h4", "h5", "h6", "br", "img", "span", "html", "head", "body"}
ALLOWED_ATTRIBUTES = {"href", "src", "alt", "title", "class", "start"}


def assert_safe(html: str) -> None:
    """Only the tags Markdown makes, and no link or image that runs or embeds code."""
    tree = HTMLParser(html)
    for node in tree.root.traverse():
        if node.tag.startswith("-"):
            continue
        assert node.tag in ALLOWED_TAGS, node.tag
        for name, value in node.attributes.items():
            assert name in ALLOWED_ATTRIBUTES, name
            if name in ("href", "src"):
                assert safe_link(value or ""), value


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        "vbscript:msgbox(1)",
        "data:text/html,<script>alert(1)</script>",
        "data:image/png;base64,AAAA",
        "file:///etc/passwd",
    ],
)
def test_dangerous_links_are_refused(view: SiteView, url: str) -> None:
    html = block(view, f"[click]({url}) ![pic]({url}) <{url}> [ref]\n\n[ref]: {url}")
    assert_safe(html)
    assert not safe_link(url)


def test_safe_links_pass() -> None:
    for url in ("https://example.com", "http://a.b/c?d#e", "mailto:a@b.c", "/vol1/x", "#row-3"):
        assert safe_link(url)


def test_headings_in_prose_sit_below_the_page_title(view: SiteView) -> None:
    assert block(view, "# Notes\n\n## More") == "<h2>Notes</h2>\n<h3>More</h3>\n"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("<>\"'&[]()!@:/ajvscriptdo{}.=“” \n`*_#|-"))))
def test_no_text_makes_markup(view: SiteView, text: str) -> None:
    assert_safe(block(view, text))
    assert_safe(inline(view, text))


def test_days_ordinals_and_lists() -> None:
    assert day("2024-10-28") == "28 October 2024"
    assert day("2024-06") == "June 2024"
    assert day("2024") == "2024"
    assert ordinal(1) == "first" and ordinal(3) == "third" and ordinal(13) == "13th"
    assert join(["A", "B", "C"]) == "A, B and C"
    assert join(["A"]) == "A" and join([]) == ""


def test_a_sentence_ends_once() -> None:
    assert str(sentence("It rose")) == "It rose."
    assert str(sentence("It rose.")) == "It rose."
    assert str(sentence("“It rose.”")) == "“It rose.”"
    assert str(sentence("it “rose”")) == "it “rose”."


def test_the_book_line_leaves_out_what_settings_do_not_say() -> None:
    from sourcebook.model.settings import Book

    book = Book(title="T", house="H", closes="2026-11-08")
    assert str(book_line(book)) == "<i>T</i> is a book; its record closes on 8 November 2026."
    escaped = Book(title="<T>", house="H", closes="2026-11-08", author="A & B")
    assert "&lt;T&gt;" in str(book_line(escaped)) and "A &amp; B" in str(book_line(escaped))


WORDS = ["cluster", "Clusters", "xAI", "One machine", "the", "2026.", "(a)", "“so”", "’s", '"x"']
MARKS = ["[[cluster]]", "[[party:xai|them]]", "[@sa-essay, p. 3]", "[@sa-essay; @x]"]
MARKS += ["[“a\nb”]{.scare}", "[“x”]{.title}", "[[colossus-2]]", "[@nobody]"]
MARKS += ["`a-b`", "` x `", "`  `", "`<&\"'>`", "``x``", "`[[cluster]]`", "[[a`b]]", "a#b"]
ODD = list("[]@{}|-+=1.)\n `#") + ["[[", "]]", "  \n", "\n\n"]
PROSE = st.lists(
    st.one_of(
        st.sampled_from(WORDS),
        st.sampled_from(MARKS),
        st.just(" "),
        st.just("\n"),
        st.sampled_from(ODD),
    ),
    max_size=30,
).map("".join)


PLAIN_WORDS = ["cluster", "Clusters", "xAI", "One machine", "the", "(a)", "“so”", "’s", '"x"']
PLAIN_MARKS = ["[[cluster]]", "[[party:xai|them]]", "[@sa-essay, p. 3]", "[@sa-essay; @x]"]
PLAIN_MARKS += ["[“x”]{.title}", "[[colossus-2]]", "`a-b`", "`<&\"'>`", "`[[cluster]]`"]
PLAIN_LINE = st.lists(
    st.one_of(st.sampled_from(PLAIN_WORDS), st.sampled_from(PLAIN_MARKS)), min_size=1, max_size=8
).map(lambda parts: "cluster " + " ".join(parts))
"""A line of words and the marks the fast path renders, that Markdown reads as no markup:
it starts with a word, and its parts are a single space apart."""
PLAIN_PROSE = st.lists(PLAIN_LINE, min_size=1, max_size=4).map("\n".join)


@settings(max_examples=300, deadline=None)
@given(PLAIN_PROSE)
def test_plain_text_takes_a_faster_path_to_the_same_html(view: SiteView, text: str) -> None:
    from sourcebook.link.markdown import needs_markdown

    renderer = view.prose.renderer
    assert not needs_markdown(text)
    for fast, full in (
        (renderer.block(text), renderer.md.render(text, {"owner": None, "terms": set()})),
        (renderer.inline(text), renderer.md.renderInline(text, {"owner": None, "terms": set()})),
    ):
        assert str(fast.html) == full


@settings(max_examples=300, deadline=None)
@given(PROSE)
def test_any_text_renders_as_markdown_it_renders_it(view: SiteView, text: str) -> None:
    """Whichever path a text takes, its HTML is markdown-it's (with the record's rules)."""
    renderer = view.prose.renderer
    assert str(renderer.block(text).html) == renderer.md.render(
        text, {"owner": None, "terms": set()}
    )
    inline = renderer.md.renderInline(text, {"owner": None, "terms": set()})
    assert str(renderer.inline(text).html) == inline
