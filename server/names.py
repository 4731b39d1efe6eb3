"""When two player names are the same name.

A name is shown as its player typed it, but compared by its key: Unicode's compatibility
normal form (NFKC), case-folded and normalized again, the "identifier caseless match" of
Unicode's standard annex 31, without the code points Unicode marks default-ignorable
(shown as nothing: joiners, variation selectors, fillers) and two symbols drawn as
nothing (the blank Braille pattern, the musical null notehead). So "Ada" is "ada",
"josé" typed with a combining accent is "josé" typed with one character, a name in
full-width letters is the name in plain ones, and "ada" with an invisible joiner inside
is "ada": nobody can take a name that differs from one in use only in such ways, nor
dodge a ban on it that way. (Letters of other scripts that look alike, a Cyrillic "а"
for a Latin "a", are other names still.)

    >>> name_key("Ada") == name_key("ADA") == name_key("ａｄａ") == name_key("ad\u034fa")
    True
    >>> name_key("ada\ufe0f") == name_key("ada\u180b") == name_key("ada\u3164") == "ada"
    True
    >>> name_key("\u2800ada") == name_key("ada\U0001d159") == "ada"
    True
    >>> name_key("jose\\u0301") == name_key("jos\\u00e9"), name_key("jose") == name_key("josé")
    (True, False)
    >>> name_key("Straße") == name_key("STRASSE")
    True
"""

from __future__ import annotations

import unicodedata

from rummyhall.protocol.invisible import INVISIBLE as _DROP


def name_key(name: str) -> str:
    """The form two names are compared in: equal keys, the same name."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return folded.translate(_DROP)
