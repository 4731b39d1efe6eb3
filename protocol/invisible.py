"""The code points a screen draws as nothing, besides the controls and separators.

Unicode's default-ignorable code points (joiners, variation selectors, fillers such as
the Hangul filler, which Unicode gives the category of a letter) and two symbols drawn
as nothing that Unicode does not mark ignorable (the blank Braille pattern, the musical
null notehead). Names are compared without them (``rummyhall.server.names``), and the
LAN beacon listener shows them as U+FFFD (:func:`~rummyhall.protocol.beacon.printable`),
so that neither a name nor a server's announced name can pass for another by them.

    >>> "\u3164".isprintable(), 0x3164 in INVISIBLE, 0x2800 in INVISIBLE
    (True, True, True)
"""

from __future__ import annotations

from typing import Final

IGNORABLE_RANGES: Final = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
"""Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt)."""
BLANKS: Final = (0x2800, 0x1D159)
"""Symbols drawn as nothing that Unicode does not mark ignorable: the blank Braille
pattern and the musical null notehead."""
INVISIBLE: Final[dict[int, None]] = {
    code: None for low, high in IGNORABLE_RANGES for code in range(low, high + 1)}
"""Every one of them, as a :meth:`str.translate` table that drops them."""
INVISIBLE.update(dict.fromkeys(BLANKS))
