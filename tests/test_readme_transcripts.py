"""Every output the README shows is what its command prints today (``readme_transcripts``):
the explain-url verdicts, a search's score parts, the community lists, a config error, the
ranking guard on a config that lost its demote list, ``tamis dupes``, ``tamis --help``. A
change that alters one fails here; ``python tests/readme_transcripts.py --write`` rewrites
them from real runs."""

from __future__ import annotations

from readme_transcripts import README, blocks, check


def test_the_readme_marks_its_transcripts_and_shown_files() -> None:
    found = blocks(README.read_text("utf-8").split("\n"))
    commands = [c.text for b in found if b.kind == "transcript" for c in b.commands]
    assert "tamis --help" in commands
    assert any(c.startswith("tamis check --config examples/no-demote.yaml") for c in commands)
    assert {b.arg for b in found if b.kind == "file"} >= {"examples/no-demote.yaml",
                                                          "examples/bad.yaml"}


def test_every_readme_output_is_what_its_command_prints() -> None:
    problems = check(write=False)
    assert not problems, ("\n\n".join(problems)
                          + "\n\nrun: python tests/readme_transcripts.py --write")
