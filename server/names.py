"""When two player names are the same name.

A name is shown as its player typed it, but compared by its key: Unicode's compatibility
normal form (NFKC), case-folded and normalized again, the "identifier caseless match" of
Unicode's standard annex 31. So "Ada" is "ada", "josé" typed with a combining accent is
"josé" typed with one character, and a name in full-width letters is the name in plain
ones: nobody can take a name that only looks different from one in use, nor dodge a ban
on it that way.

    >>> name_key("Ada") == name_key("ADA") == name_key("ａｄａ")
    True
    >>> name_key("jose\\u0301") == name_key("jos\\u00e9"), name_key("jose") == name_key("josé")
    (True, False)
    >>> name_key("Straße") == name_key("STRASSE")
    True
"""

from __future__ import annotations

import unicodedata


def name_key(name: str) -> str:
    """The form two names are compared in: equal keys, the same name."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
