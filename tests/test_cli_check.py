"""`sourcebook check` as a user runs it: a subprocess, its output and its exit status."""

from __future__ import annotations

import json

from conftest import run, term


def test_clean_record_exits_0(make_record):
    root = make_record(
        {
            "terms/cluster.md": term("Cluster", body="Chips wired as one."),
            "terms/chip.md": term(
                "Chip", body="Many make a cluster.", extra="related: [cluster]\n"
            ),
        }
    )
    result = run("check", str(root))
    assert result.returncode == 0, result.stdout
    assert result.stdout.strip() == "3 entities: 0 errors, 0 warnings"


def test_errors_exit_1_with_file_line_col_and_hint(make_record):
    root = make_record({"terms/cluster.md": term("Cluster", extra="related: [trainng]\n")})
    (root / "terms" / "training.md").write_text(
        "---\ntitle: Training\ndefinition: d\n---\nA cluster in training.\n"
    )
    result = run("check", "record", cwd=root.parent)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert (
        lines[0] == "record/terms/cluster.md:5:11: error L001 unknown term id 'trainng' "
        "in 'related'"
    )
    assert lines[1] == "  hint: did you mean 'training'?"


def test_default_record_is_the_current_folder(make_record):
    root = make_record({"terms/cluster.md": term("Cluster", body="A cluster.")})
    assert run("check", cwd=root).returncode == 0


def test_json_format_for_editors(make_record):
    root = make_record({"terms/cluster.md": term("Cluster", extra="draft: true\n")})
    result = run("check", str(root), "--format", "json")
    assert result.returncode == 0
    report = json.loads(result.stdout)
    assert report["errors"] == 0 and report["warnings"] == 2
    first = report["diagnostics"][0]
    assert set(first) == {"file", "line", "col", "severity", "code", "message", "hint"}


def test_json_format_for_a_folder_that_is_not_a_record(tmp_path):
    result = run("check", str(tmp_path), "--format", "json")
    assert result.returncode == 2 and "no sourcebook.toml" in json.loads(result.stdout)["error"]


def test_no_warnings_flag(make_record):
    root = make_record({"terms/orphan.md": term("Orphan")})
    result = run("check", str(root), "--no-warnings")
    assert result.returncode == 0
    assert "U001" not in result.stdout and "1 warning" in result.stdout


def test_schema_command_writes_a_schema_per_kind(tmp_path):
    result = run("schema", "--out", str(tmp_path))
    assert result.returncode == 0
    schema = json.loads((tmp_path / "term.schema.json").read_text())
    assert "definition" in schema["required"] and "id" not in schema["properties"]
