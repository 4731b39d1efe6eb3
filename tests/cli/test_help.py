"""Every subcommand's --help says what it does and what each of its flags means."""

from __future__ import annotations

import argparse

import pytest

from rummyhall.cli import build_parser, main


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def summaries() -> dict[str, str | None]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {c.dest: c.help for c in sub._choices_actions}


def unexplained(parser: argparse.ArgumentParser) -> list[str]:
    """The flags and arguments of ``parser`` (and of its own subcommands) without help;
    a group of subcommands is explained by its commands' own lines."""
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        if isinstance(action, argparse._SubParsersAction):
            lines = {c.dest: c.help for c in action._choices_actions}
            for command, sub in action.choices.items():
                out += ([] if lines.get(command) else [command]) + unexplained(sub)
        elif not action.help:
            out.append("/".join(action.option_strings) or action.dest)
    return out


@pytest.mark.parametrize("name", list(subcommands()))
def test_every_subcommand_and_flag_is_explained(
        name: str, capsys: pytest.CaptureFixture[str]) -> None:
    parser = subcommands()[name]
    summary = summaries()[name]
    assert summary and "\n" not in summary  # its line in `rummyhall --help`
    assert parser.description, f"{name}: no description"
    assert not unexplained(parser), f"{name}: {unexplained(parser)} say nothing"
    with pytest.raises(SystemExit) as info:
        main([name, "--help"])
    assert info.value.code == 0
    assert parser.description.split()[0] in capsys.readouterr().out
