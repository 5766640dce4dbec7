"""Bad input gets a positioned diagnostic or a one-line message, never a traceback."""

from __future__ import annotations

import json
import os
import re
import string

import pytest
from conftest import SETTINGS, codes, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from thorough import examples

from sourcebook.pipeline import check
from sourcebook.read import RecordError

LINE = re.compile(r"^.+:\d+:\d+: (error|warning) [A-Z]\d{3} .+$")


def test_non_utf8_file_points_at_the_bad_byte(make_record):
    root = make_record({"terms/bad.md": b"---\ntitle: Caf\xe9\n---\n"})
    (found,) = check(root).diagnostics
    assert (found.code, found.pos.line, found.pos.col) == ("R002", 2, 11)


def test_empty_file(make_record):
    assert codes(check(make_record({"terms/empty.md": ""}))) == ["R003"]


def test_huge_file_is_refused_unread(make_record, tmp_path):
    root = make_record({})
    big = root / "terms" / "huge.md"
    big.parent.mkdir(exist_ok=True)
    with big.open("wb") as handle:
        handle.truncate(50 * 1024 * 1024)
    (found,) = check(root).diagnostics
    assert found.code == "R005" and "52,428,800 bytes" in found.message


def test_symbolic_link_loop(make_record):
    root = make_record({"terms/a/cluster.md": "---\ntitle: Cluster\ndefinition: d\n---\n"})
    os.symlink(root / "terms", root / "terms" / "a" / "loop")
    found = codes(check(root))
    assert "R009" in found


def test_dangling_symbolic_link(make_record):
    root = make_record({})
    (root / "terms").mkdir()
    os.symlink(root / "nowhere.md", root / "terms" / "gone.md")
    assert codes(check(root)) == ["R009"]


def test_folder_without_settings(tmp_path):
    with pytest.raises(RecordError, match="no sourcebook.toml"):
        check(tmp_path)
    result = run("check", str(tmp_path))
    assert result.returncode == 2
    assert result.stderr.strip().startswith("error: ")
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_missing_folder():
    result = run("check", "/nonexistent/record")
    assert result.returncode == 2 and "no such folder" in result.stderr


def test_settings_that_are_not_utf8(tmp_path):
    (tmp_path / "sourcebook.toml").write_bytes(b'[book]\ntitle = "\xff"\n')
    assert codes(check(tmp_path)) == ["R002"]


# Fragments from which broken files are assembled: real field names, bad values,
# YAML punctuation, stray bytes.
FRAGMENTS = [
    "---\n",
    "title: Cluster\n",
    "definition: d\n",
    "chapters: [chapter-1]\n",
    "related: [nope]\n",
    "title:\n",
    "- a\n",
    ": :\n",
    "  indented: x\n",
    "[[cluster]]",
    "[[x|y]]",
    "[@nope, p. 1]",
    "“a quote”",
    "date: 2099-01-01\n",
    "category: press\n",
    "aliases: {a: 1}\n",
    "number: x\n",
    "row: -1\n",
    "draft: maybe\n",
    "\t",
    "'",
    '"',
    "{",
    "}",
    "&anchor ",
    "*alias ",
    "!!python/object:os.system\n",
    "%YAML 9\n",
    "...\n",
    "\x00",
    "same_as: party:\n",
    "parties: [{party: p}]\n",
    "figures: [1, 2]\n",
]
KIND_FOLDERS = [
    "terms",
    "chapters",
    "campuses",
    "indicators",
    "tests",
    "sources",
    "people",
    "parties",
    "corrections",
]

file_text = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.text(string.printable + "é“”—…", max_size=12)),
    max_size=12,
).map("".join)
file_bytes = st.one_of(file_text.map(lambda t: t.encode("utf-8")), st.binary(max_size=40))
# File names as a file system allows them: any bytes but `/` and NUL, so not UTF-8,
# newlines, escape sequences and bidi controls among them.
any_name = st.binary(min_size=1, max_size=10).filter(lambda b: b"/" not in b and b"\0" not in b)
file_names = st.one_of(
    st.from_regex(r"[a-z0-9-]{1,8}", fullmatch=True).map(str.encode),
    any_name,
    st.text(alphabet="a\n\r\t\x1b[\u202e\u200f é", min_size=1, max_size=8).map(str.encode),
)
records = st.dictionaries(
    st.tuples(st.sampled_from(KIND_FOLDERS), file_names), file_bytes, max_size=6
)


def toml_value(value: object) -> str:
    return json.dumps(value) if isinstance(value, str) else str(value).lower()


# Settings as an untrusted record may write them: every field the site and the limits
# read, given text of any kind, numbers of every size and sign, nan and inf.
setting_values = st.one_of(
    st.text(max_size=20),
    st.sampled_from(["/../../x", "java\tscript:alert(1)", " javascript:x", "//evil", "/a//b"]),
    st.integers(),
    st.floats(),
    st.booleans(),
).map(toml_value)
fuzzed_settings = st.tuples(
    st.sampled_from(
        [
            "site.base_path",
            "site.base_url",
            "site.book_url",
            "site.notify_url",
            "site.language",
            "limits.max_file_bytes",
            "limits.query_seconds",
            "book.volume",
            "book.closes",
        ]
    ),
    setting_values,
).map(lambda kv: _with_setting(*kv))


def _with_setting(key: str, value: str) -> str:
    table, field = key.split(".")
    lines = SETTINGS.replace(f"[{table}]\n", f"[{table}]\n{field} = {value}\n")
    return lines if f"[{table}]" in SETTINGS else f"{SETTINGS}\n[{table}]\n{field} = {value}\n"


@settings(
    max_examples=examples(300),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    files=records,
    toml=st.sampled_from(
        [
            SETTINGS,
            SETTINGS + "[limits]\nmax_file_bytes = 30\n",
            "[book\n",
            "",
            "[book]\ncloses = 1\n",
        ]
    )
    | fuzzed_settings,
)
def test_thousands_of_broken_records_never_raise(tmp_path_factory, files, toml):
    root = tmp_path_factory.mktemp("broken")
    (root / "sourcebook.toml").write_text(toml, encoding="utf-8")
    for (folder, name), content in files.items():
        path = root / folder / os.fsdecode(name + b".md")
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(content)
    try:
        checked = check(root)
    except RecordError as exc:  # settings that are not settings: one line, said plainly
        assert "\n" not in str(exc).strip(), str(exc)
        return
    for diagnostic in checked.diagnostics:
        lines = diagnostic.format().splitlines()
        assert len(lines) == 1 + bool(diagnostic.hint), lines
        assert LINE.match(lines[0]), lines[0]
        assert lines[0].isprintable(), lines[0]


def test_broken_records_through_the_cli(make_record):
    root = make_record(
        {
            "terms/a.md": b"\xff\xfe",
            "terms/b.md": "---\n- 1\n---\n",
            "terms/c.md": "---\ntitle: [\n---\n",
            "sources/d.md": "",
        }
    )
    result = run("check", str(root))
    assert result.returncode == 1
    assert "Traceback" not in result.stdout + result.stderr
    lines = [x for x in result.stdout.splitlines() if x and not x.startswith("  hint:")]
    assert all(LINE.match(x) for x in lines[:-1]), lines
    assert lines[-1].endswith("4 errors, 0 warnings")


def test_a_control_character_after_an_alias_is_malformed_yaml(make_record):
    # the alias makes the nesting budget read the text first, where libyaml refuses it
    root = make_record({"terms/x.md": b"---\n*\x0c---\n---\n"}, with_chapter=False)
    (found,) = check(root).diagnostics
    assert (found.code, found.pos.line) == ("R001", 2)
    assert "control characters are not allowed" in found.message
