"""One shape for every command: RECORD is an argument, help lists every option, the README
lists every command, and `serve` is quiet unless asked (-v)."""

from __future__ import annotations

import contextlib
import re
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import click
import pytest
from conftest import REPO, run
from host_fixtures import serve_process

from sourcebook.cli import COMMANDS, main


def commands() -> dict[str, click.Command]:
    """Every command and subcommand by its words (`notify list`)."""
    found: dict[str, click.Command] = {}
    for name in COMMANDS:
        command = main.get_command(click.Context(main), name)
        assert command is not None
        if isinstance(command, click.Group):
            found |= {f"{name} {sub}": each for sub, each in command.commands.items()}
        else:
            found[name] = command
    return found


COMMANDS_NOW = commands()


@pytest.mark.parametrize("words", sorted(COMMANDS_NOW))
def test_help_lists_every_option(words: str) -> None:
    shown = run(*words.split(), "--help")
    assert shown.returncode == 0, shown.stderr
    for param in COMMANDS_NOW[words].params:
        if isinstance(param, click.Option) and not param.hidden:
            assert any(opt in shown.stdout for opt in param.opts), (words, param.opts)
        if isinstance(param, click.Argument):
            assert param.human_readable_name in shown.stdout


@pytest.mark.parametrize("words", sorted(COMMANDS_NOW))
def test_record_is_an_argument_everywhere(words: str) -> None:
    params = {p.name: p for p in COMMANDS_NOW[words].params}
    if "record" in params:
        assert isinstance(params["record"], click.Argument), words
    assert not any(
        isinstance(p, click.Option) and "--record" in p.opts and not p.hidden
        for p in params.values()
    ), words


def test_import_help_shows_how_it_is_used_and_its_options() -> None:
    shown = run("import", "--help").stdout
    assert re.search(r"^Usage: .*sourcebook import \[OPTIONS\] FILE \[RECORD\]$", shown, re.M)
    assert re.search(
        r"^   or: .*sourcebook import hypothesis \[OPTIONS\] FILE \[RECORD\]$", shown, re.M
    )
    assert "--dry-run" in shown
    assert "COMMAND [ARGS]" not in shown


def test_library_takes_the_record_as_an_argument_and_as_once_it_was(tmp_path: Path) -> None:
    assert run("init", str(tmp_path / "book")).returncode == 0
    page = tmp_path / "page.txt"
    page.write_text("The words of a page.\n", encoding="utf-8")
    added = run("library", "add", str(page), str(tmp_path / "book"), "--captured", "2026-01-02")
    assert added.returncode == 0, added.stderr
    assert added.stdout == "S1 added: text, page.txt, captured 2026-01-02\n"
    again = run("library", "add", str(page), "--record", str(tmp_path / "book"))
    assert again.stdout.startswith("S1 already held: text, page.txt")
    listed = run("library", "list", str(tmp_path / "book"))
    assert listed.stdout == run("library", "list", "--record", str(tmp_path / "book")).stdout
    assert listed.stdout.endswith("1 item\n")


def test_the_readme_lists_every_command() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    rows = [line for line in readme.splitlines() if line.startswith("| `sourcebook ")]
    for words in COMMANDS_NOW:
        top, _, sub = words.partition(" ")
        row = "\n".join(r for r in rows if r.startswith(f"| `sourcebook {top}"))
        assert row, f"the README's table has no row for 'sourcebook {top}'"
        assert sub.lower() in row.lower(), f"the README's table does not name '{words}'"


@pytest.fixture
def record_with_signup(tmp_path: Path) -> Path:
    assert run("init", str(tmp_path / "book")).returncode == 0
    settings = tmp_path / "book" / "sourcebook.toml"
    settings.write_text(
        settings.read_text(encoding="utf-8")
        + '\n[notify]\nurl = "https://notify.example.com"\nsender = "B <news@example.com>"\n',
        encoding="utf-8",
    )
    return tmp_path / "book"


def _post_signup(output: str) -> None:
    service = re.search(r"The sign-up form posts to (http://127\.0\.0\.1:\d+)", output)
    assert service is not None, output
    data = urllib.parse.urlencode({"email": "ada@example.org"}).encode()
    with contextlib.suppress(urllib.error.HTTPError):  # refused or not, it was asked
        urllib.request.urlopen(f"{service[1]}/signup", data=data, timeout=20)  # noqa: S310


@pytest.mark.parametrize("verbose", [False, True], ids=["quiet", "-v"])
def test_serve_logs_the_sign_up_services_requests_with_v_alone(
    record_with_signup: Path, verbose: bool
) -> None:
    options = ("--no-watch", "-v") if verbose else ("--no-watch",)
    with serve_process(record_with_signup, *options) as running:
        _post_signup(running.output)
        _post_signup(running.output)
    # The site's own log lines may run into the service's: count the service's requests.
    logged = re.findall(r'"event":"request","method":"POST","path":"/signup"', running.output)
    assert len(logged) == (2 if verbose else 0), running.output
    assert verbose or '{"time":' not in running.output
