"""Making text fit the screen: lines wrapped at words, names shortened without ambiguity.

prompt_toolkit wraps a long line wherever the window ends, in the middle of a word;
:func:`wrap` breaks it at its spaces instead, the following rows indented. Names that do
not fit are cut with a visible "…", and where two cut names would read the same, each
keeps the end that tells it apart (:func:`short_names`).

    >>> short_names(["Bartholomew-Montague", "Bartholomew-Monroe", "ada"], 9)
    ['Bartho…ue', 'Bartho…oe', 'ada']
"""

from __future__ import annotations

from collections.abc import Sequence

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.formatted_text.utils import fragment_list_width, split_lines
from prompt_toolkit.utils import get_cwidth

Fragments = StyleAndTextTuples
ELLIPSIS = "…"


def wrap(fragments: Fragments, width: int, indent: int = 2) -> Fragments:
    """``fragments`` with every line wider than ``width`` broken at its last space that
    fits; each following row starts ``indent`` columns further in than the line did. A
    word longer than a row is broken where the row ends (only then)."""
    out: Fragments = []
    for line in split_lines(fragments):
        for row in _wrap_line(line, max(1, width), indent):
            out.extend(row)
            out.append(("", "\n"))
    if out:
        out.pop()  # (split_lines gives one line more than there are newlines)
    return out


def _wrap_line(line: Fragments, width: int, indent: int) -> list[Fragments]:
    if fragment_list_width(line) <= width:
        return [line]
    chars = [(style, ch) for style, text, *_ in line for ch in text]
    lead = len(chars) - len(_lstrip(chars))
    pad = min(lead + indent, width // 2)
    rows: list[Fragments] = []
    row: list[tuple[str, str]] = []
    used = 0
    for style, ch in chars:
        w = get_cwidth(ch)
        if used + w > width and ch == " ":  # the row ends at a word's end
            rows.append(_join(row))
            row, used = [("", " ")] * pad, pad
            continue
        if used + w > width:
            space = _last_space(row, pad if rows else lead)
            if space is not None:
                rest = row[space + 1:]
                row = row[:space]
            else:
                rest = []
            rows.append(_join(row))
            row = [("", " ")] * pad + rest
            used = sum(get_cwidth(c) for _, c in row)
        row.append((style, ch))
        used += w
    rows.append(_join(row))
    return rows


def _lstrip(chars: list[tuple[str, str]]) -> list[tuple[str, str]]:
    i = 0
    while i < len(chars) and chars[i][1] == " ":
        i += 1
    return chars[i:]


def _last_space(row: list[tuple[str, str]], start: int) -> int | None:
    for i in range(len(row) - 1, start, -1):
        if row[i][1] == " ":
            return i
    return None


def _join(chars: list[tuple[str, str]]) -> Fragments:
    """Characters back into fragments, one per run of a style."""
    out: Fragments = []
    for style, ch in chars:
        if out and out[-1][0] == style:
            out[-1] = (style, out[-1][1] + ch)
        else:
            out.append((style, ch))
    while out and out[-1][1].endswith(" "):  # (no trailing blanks at a break)
        style, text = out[-1][0], out[-1][1]
        text = text.rstrip(" ")
        if text:
            out[-1] = (style, text)
            break
        out.pop()
    return out


def text_rows(fragments: Fragments) -> int:
    """How many rows ``fragments`` take (one per line)."""
    return sum(1 for _ in split_lines(fragments))


def cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` columns: cut with "…" when longer."""
    if get_cwidth(text) <= width:
        return text
    out = ""
    for ch in text:
        if get_cwidth(out + ch) > width - 1:
            break
        out += ch
    return out.rstrip() + ELLIPSIS


def short_names(names: Sequence[str], width: int) -> list[str]:
    """Each name in at most ``width`` columns; a cut name shows "…" where it was cut, and
    no two different names come out the same (cut names that would read alike keep as
    much of their ends as it takes to tell them apart, else their seat's number)."""
    width = max(3, width)
    out = [cut(n, width) for n in names]
    groups: dict[str, list[int]] = {}
    for i, short in enumerate(out):
        groups.setdefault(short, []).append(i)
    for members in groups.values():
        if len({names[i] for i in members}) < 2:
            continue
        for tail in range(1, width - 1):
            tried = [names[i][:width - 1 - tail] + ELLIPSIS + names[i][-tail:]
                     for i in members]
            if len(set(tried)) == len({names[i] for i in members}):
                break
        else:
            tried = [names[i][:width - 1 - len(str(i))] + ELLIPSIS + str(i) for i in members]
        for i, name in zip(members, tried, strict=True):
            out[i] = name
    return out
