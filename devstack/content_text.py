"""Invented Swedish parish-register text, in the spelling of the 18th and 19th centuries.

Everything here is deterministic: callers pass a ``random.Random`` seeded from the volume id and
page number (see ``seeded_random``), so the same page always reads the same.
"""

from __future__ import annotations

import hashlib
import random

MALE_NAMES = (
    "Anders",
    "Johan",
    "Per",
    "Pehr",
    "Nils",
    "Carl",
    "Erik",
    "Lars",
    "Olof",
    "Jonas",
    "Gustaf",
    "Magnus",
    "Sven",
    "Israel",
    "Petter",
    "Jöns",
    "Håkan",
    "Samuel",
    "Daniel",
    "Abraham",
)
FEMALE_NAMES = (
    "Maria",
    "Anna",
    "Stina",
    "Brita",
    "Kajsa",
    "Greta",
    "Ingrid",
    "Christina",
    "Johanna",
    "Lena",
    "Ulrica",
    "Catharina",
    "Sophia",
    "Eva",
    "Karin",
    "Elisabeth",
    "Helena",
    "Charlotta",
)
PATRONYM_STEMS = (
    "Anders",
    "Pers",
    "Nils",
    "Jons",
    "Ers",
    "Lars",
    "Olofs",
    "Magnus",
    "Svens",
    "Jöns",
    "Pehrs",
    "Håkans",
    "Gustafs",
    "Johans",
)
PARISHES = (
    "Hjorted",
    "Östra Ryd",
    "Skällvik",
    "Vårdnäs",
    "Kättilstad",
    "Tjärstad",
    "Gryt",
    "Västra Eneby",
    "Sankt Anna",
    "Ringarum",
    "Misterhult",
    "Dalhem",
    "Törnevalla",
    "Hannäs",
    "Gamleby",
    "Tryserum",
)
FARMS = (
    "Östergården",
    "Backen",
    "Lilla Ängen",
    "Nybygget",
    "Torpet",
    "Sörgården",
    "Kvarnbacken",
    "Hagalund",
    "Norrby",
    "Stensjö",
    "Björkeberg",
    "Ekhult",
    "Gölstorp",
    "Mossebo",
    "Källtorp",
    "Humlekärr",
    "Ryckelsby",
)
MEN_OCCUPATIONS = (
    "Bonden",
    "Torparen",
    "Drängen",
    "Soldaten",
    "Skräddaren",
    "Smeden",
    "Inhyses mannen",
    "Hemmansägaren",
    "Arbetaren",
    "Skomakaren",
    "Klockaren",
    "Båtsmannen",
    "Mjölnaren",
)
WOMEN_OCCUPATIONS = ("Pigan", "Enkan", "Hustrun", "Inhyses hustrun", "Bondedottern")
MONTHS = (
    "Januarii",
    "Februarii",
    "Martii",
    "Aprilis",
    "Maji",
    "Junii",
    "Julii",
    "Augusti",
    "Septembris",
    "Octobris",
    "Novembris",
    "Decembris",
)
CAUSES_OF_DEATH = (
    "Lungsot",
    "Ålderdom",
    "Barnkoppor",
    "Bröstfeber",
    "Slag",
    "Rödsot",
    "Kikhosta",
    "Vattusot",
    "Nerffeber",
    "Tandvärk",
    "Okänd sjukdom",
    "Förkylning",
    "Halsfluss",
)
HEADINGS = (
    "Födde och Döpte i {parish} Församling Anno {year}",
    "Döde och Begrafne i {parish} Församling Anno {year}",
    "Vigde i {parish} Församling Anno {year}",
    "Utflyttade ifrån {parish} Församling Anno {year}",
)


def seeded_random(*parts: object) -> random.Random:
    """A random generator whose sequence depends only on ``parts`` (never on Python's hash seed)."""
    text = "\x1f".join(str(part) for part in parts)
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def seeded_floats(*parts: object) -> tuple[float, float, float, float]:
    """Four numbers in [0, 1) that depend only on ``parts``; much cheaper than ``seeded_random``."""
    text = "\x1f".join(str(part) for part in parts)
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return tuple(int.from_bytes(digest[i : i + 8], "big") / 2**64 for i in range(0, 32, 8))


def volume_year(volume_id: str) -> int:
    """The year a volume's records are from, fixed per volume."""
    return seeded_random("year", volume_id).randint(1790, 1895)


def volume_parish(volume_id: str) -> str:
    return seeded_random("parish", volume_id).choice(PARISHES)


def heading_text(volume_id: str, page_no: int) -> str:
    rng = seeded_random("heading", volume_id)
    template = rng.choice(HEADINGS)
    return template.format(parish=volume_parish(volume_id), year=volume_year(volume_id) + (page_no - 1) // 40)


def _man(rng: random.Random) -> str:
    return f"{rng.choice(MALE_NAMES)} {rng.choice(PATRONYM_STEMS)}son"


def _woman(rng: random.Random) -> str:
    return f"{rng.choice(FEMALE_NAMES)} {rng.choice(PATRONYM_STEMS)}dotter"


def _date(rng: random.Random) -> str:
    return f"d. {rng.randint(1, 28)} {rng.choice(MONTHS)}"


def _birth(rng: random.Random, year: int) -> str:
    child = rng.choice(("en son", "en dotter", "tvillingar"))
    name = rng.choice(MALE_NAMES) if child == "en son" else rng.choice(FEMALE_NAMES)
    return (
        f"{_date(rng)} födde {rng.choice(MEN_OCCUPATIONS)} {_man(rng)} och hans hustru {_woman(rng)} "
        f"i {rng.choice(FARMS)} {child} {name}, döpt {_date(rng)} af Comminister {rng.choice(PATRONYM_STEMS)}sonius. "
        f"Faddrar: {_man(rng)} och hustru {_woman(rng)} från {rng.choice(FARMS)}."
    )


def _death(rng: random.Random, year: int) -> str:
    who = rng.choice((f"{rng.choice(MEN_OCCUPATIONS)} {_man(rng)}", f"{rng.choice(WOMEN_OCCUPATIONS)} {_woman(rng)}"))
    return (
        f"{_date(rng)} död {who} i {rng.choice(FARMS)}, {rng.randint(1, 88)} år {rng.randint(0, 11)} "
        f"månader gammal, af {rng.choice(CAUSES_OF_DEATH)}. Begrafven {_date(rng)} Anno {year}."
    )


def _marriage(rng: random.Random, year: int) -> str:
    return (
        f"{_date(rng)} vigde Drängen {_man(rng)} från {rng.choice(PARISHES)} och Pigan {_woman(rng)} "
        f"i {rng.choice(FARMS)}. Lysning i {rng.choice(PARISHES)} Församling, hinder ej förekommit, "
        f"attest N:o {rng.randint(1, 60)}."
    )


def _moving(rng: random.Random, year: int) -> str:
    return (
        f"{_date(rng)} utflyttad {rng.choice(MEN_OCCUPATIONS)} {_man(rng)} med hustru {_woman(rng)} "
        f"och {rng.randint(1, 6)} barn till {rng.choice(PARISHES)}, läser försvarligt i bok, "
        f"begått nattvarden {_date(rng)} Anno {year}."
    )


RECORD_KINDS = (_birth, _death, _marriage, _moving)


def record_words(rng: random.Random, year: int) -> list[str]:
    """One register entry as a list of words, ready to be broken into handwritten lines."""
    return rng.choice(RECORD_KINDS)(rng, year).split()


def margin_note(rng: random.Random, number: int) -> str:
    """The short note written in the left margin beside an entry."""
    return rng.choice((f"N:o {number}", f"{number}.", f"N:o {number}"))


def hyphen_split(word: str) -> tuple[str, str] | None:
    """Where a scribe could break ``word`` across two lines, or None for a word too short to break."""
    letters = word.rstrip(".,:;")
    if len(letters) < 7 or not letters.isalpha():
        return None
    vowels = "aeiouyåäöAEIOUYÅÄÖ"
    middle = len(letters) // 2
    # A consonant followed by a vowel starts a syllable: "Gustafs-dotter", "försvar-ligt".
    for offset in (0, 1, -1, 2, -2, 3, -3):
        cut = middle + offset
        if 3 <= cut <= len(letters) - 3 and letters[cut] not in vowels and letters[cut + 1] in vowels:
            return word[:cut], word[cut:]
    return word[:middle], word[middle:]
