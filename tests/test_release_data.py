"""A release of the bundled record as its users read it: a valid Frictionless data package,
a database Datasette serves, JSON that says what the CSV says, and valid citations."""

from __future__ import annotations

import csv
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import jsonschema
import pytest
import yaml
from conftest import REPO
from release_fixtures import release_bundled, run

from sourcebook.model.kinds import Grade

CFF_SCHEMA = REPO / "tests" / "vendor" / "citation-file-format-1.2.0.json"
"""The Citation File Format's own JSON Schema (CC-BY-4.0), as cffconvert 2.0.0 ships it."""


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return release_bundled(tmp_path_factory.mktemp("release"))


@pytest.fixture(scope="module")
def package(released: Path) -> dict:
    return json.loads((released / "datapackage.json").read_text(encoding="utf-8"))


def resource(package: dict, name: str) -> dict:
    return next(r for r in package["resources"] if r["name"] == name)


def field(package: dict, table: str, name: str) -> dict:
    return next(f for f in resource(package, table)["schema"]["fields"] if f["name"] == name)


def test_frictionless_finds_the_data_package_valid(released: Path) -> None:
    from frictionless import validate

    report = validate(released / "datapackage.json")
    errors = [error.message for task in report.tasks for error in task.errors]
    assert report.valid, errors[:10]
    assert len(report.tasks) == len(json.loads((released / "release.json").read_text())["tables"])


def test_every_field_has_a_type_and_a_description(package: dict) -> None:
    for table in package["resources"]:
        for described in table["schema"]["fields"]:
            assert described["type"] and described.get("description"), (table["name"], described)


def test_the_schema_carries_grades_units_and_keys(package: dict) -> None:
    grades = [grade.value for grade in Grade]
    assert field(package, "figures", "grade")["constraints"]["enum"] == grades
    assert field(package, "grades", "grade")["constraints"]["enum"] == grades
    assert field(package, "figures", "value")["unitField"] == "unit"
    assert field(package, "figures", "base_value")["unitField"] == "base_unit"
    assert field(package, "library_items", "size")["unit"] == "byte"
    assert field(package, "figures", "evidenced")["type"] == "boolean"
    assert field(package, "terms", "chapters")["type"] == "array"
    assert resource(package, "entities")["schema"]["primaryKey"] == ["kind", "id"]
    references = {
        (tuple(key["fields"]), key["reference"]["resource"])
        for key in resource(package, "figures")["schema"]["foreignKeys"]
    }
    assert {
        (("source",), "sources"),
        (("campus",), "campuses"),
        (("grade",), "grades"),
    } <= references
    assert package["licenses"][0]["name"] == "CC-BY-4.0"
    assert any(source["title"] for source in package["sources"])


def test_the_json_says_what_the_csv_says(released: Path, package: dict) -> None:
    for table in package["resources"]:
        with (released / table["path"]).open(encoding="utf-8", newline="") as file:
            from_csv = list(csv.DictReader(file))
        path = released / "json" / f"{table['name']}.json"
        from_json = json.loads(path.read_text(encoding="utf-8"))
        assert len(from_csv) == len(from_json), table["name"]
        for written, typed in zip(from_csv, from_json, strict=True):
            assert written.keys() == typed.keys()
            for column, value in typed.items():
                assert same(written[column], value), (table["name"], column, value)
    hyperion = next(
        row
        for row in json.loads((released / "json" / "figures.json").read_text(encoding="utf-8"))
        if row["campus"] == "hyperion" and row["metric"] == "it-power" and row["value"] == 2
    )
    assert hyperion["base_value"] == 2e9 and hyperion["evidenced"] is True


def same(written: str, value: object) -> bool:
    """Whether a CSV cell and a JSON value say the same."""
    if value is None:
        return written == ""
    if isinstance(value, bool):
        return written == str(int(value))
    if isinstance(value, (int, float)):
        return float(written) == value
    if isinstance(value, (list, dict)):
        return json.loads(written) == value
    return written == value


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def datasette(released: Path) -> Iterator[str]:
    """Datasette serving the release's database on a free port, until the test ends."""
    port = free_port()
    command = [sys.executable, "-m", "datasette", "serve", "-i", str(released / "record.db")]
    base = f"http://127.0.0.1:{port}"
    with subprocess.Popen(
        [*command, "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    ) as server:
        try:
            wait_for(base, server)
            yield base
        finally:
            server.terminate()


def wait_for(base: str, server: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while True:
        assert server.poll() is None, server.stderr.read() if server.stderr else ""
        try:
            if httpx.get(f"{base}/-/versions.json", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, "Datasette did not start"
        time.sleep(0.2)


def test_datasette_serves_the_release_database(datasette: str) -> None:
    campuses = httpx.get(f"{datasette}/record/campuses.json?_shape=array", timeout=10).json()
    assert {"colossus-2", "hyperion"} <= {row["id"] for row in campuses}
    found = httpx.get(
        f"{datasette}/record/search.json",
        params={"_search": "cluster", "_shape": "array"},
        timeout=10,
    ).json()
    assert ("term", "cluster") in {(row["kind"], row["id"]) for row in found}


def test_citation_cff_is_valid_citation_file_format(released: Path) -> None:
    citation = yaml.safe_load((released / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff_errors(citation) == []
    assert citation["version"] == "2026-11-08" and citation["date-released"] == "2026-11-08"
    assert citation["authors"] == [{"given-names": "Lee S.", "family-names": "Dryburgh"}]
    assert citation["license"] == "CC-BY-4.0"


def cff_errors(citation: dict) -> list[str]:
    """What the Citation File Format 1.2.0 schema finds wrong with a CITATION.cff."""
    schema = json.loads(CFF_SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    return [error.message for error in validator.iter_errors(citation)]


def test_release_bib_is_one_bibtex_entry(released: Path) -> None:
    entry = (released / "release.bib").read_text(encoding="utf-8")
    assert entry.startswith("@misc{the-ai-compute-race-2026-11-08,\n")
    assert entry.count("{") == entry.count("}") and entry.endswith("}\n")
    assert "author    = {Dryburgh, Lee S.}," in entry
    assert "title     = {{The AI Compute Race: data release 2026-11-08}}," in entry
    assert "year      = {2026}," in entry and "month     = nov," in entry


def test_a_new_record_releases_valid_data_once_its_author_sets_what_it_needs(
    tmp_path: Path,
) -> None:
    assert run("init", str(tmp_path / "my-book")).returncode == 0
    settings = tmp_path / "my-book" / "sourcebook.toml"
    text = settings.read_text(encoding="utf-8")
    for line in ("# closes = ", "# author = ", "# licence = "):
        text = text.replace(line, line[2:])
    settings.write_text(text.replace('"Your Name"', '"Ada Quill"'), encoding="utf-8")
    result = run("release", "0.1.0", str(tmp_path / "my-book"), "-q")
    assert result.returncode == 0, result.stdout + result.stderr
    released = tmp_path / "my-book" / "releases" / "0.1.0"
    from frictionless import validate

    assert validate(released / "datapackage.json").valid
    citation = yaml.safe_load((released / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff_errors(citation) == []
    assert citation["authors"] == [{"family-names": "Quill", "given-names": "Ada"}]
    assert citation["license"] == "CC-BY-4.0"
