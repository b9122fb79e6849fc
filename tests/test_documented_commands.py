"""Every ``python -m benchmarks`` command the READMEs document parses as written."""
import re
import shlex
from pathlib import Path

import pytest

from benchmarks.__main__ import SECTIONS, parse

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = ("README.md", "benchmarks/README.md", "config/README.md")
SUITE_COMMAND = re.compile(r"python -m benchmarks((?: [^`#\n]*)?)(?=[`#\n]|$)")


def documented_suite_commands():
    """(document, arguments) of each ``python -m benchmarks ...`` (the suite, not a module of it)."""
    found = []
    for document in DOCUMENTS:
        for match in SUITE_COMMAND.finditer((ROOT / document).read_text()):
            arguments = match.group(1).strip()
            if "[" not in arguments and "<" not in arguments:  # usage lines, not commands
                found.append((document, arguments))
    return found


def test_the_documents_hold_suite_commands():
    commands = documented_suite_commands()
    assert ("benchmarks/README.md", "") in commands and len(commands) >= 3


@pytest.mark.parametrize("document, arguments", documented_suite_commands())
def test_a_documented_command_parses(document, arguments):
    args = parse(shlex.split(arguments))
    assert args.only and set(args.only) <= set(SECTIONS)


def test_no_section_means_every_section_and_a_wrong_one_is_named():
    assert parse([]).only == list(SECTIONS)
    assert parse(["--quick", "--only", "shapes", "warm"]).only == ["shapes", "warm"]
    with pytest.raises(SystemExit) as caught:
        parse(["shapez"])
    assert caught.value.code == 2


def test_help_lists_every_section_with_its_seconds():
    from benchmarks.__main__ import SECONDS, parser
    text = parser().format_help()
    assert set(SECONDS) == set(SECTIONS)
    for name, (title, _, _) in SECTIONS.items():
        assert f"{title} (about {SECONDS[name]} s" in text
    assert "__main__.py" not in text and "(issue" not in text
