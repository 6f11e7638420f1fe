"""No word a person reads is left out of the translation in templates/: every text node and every attribute that
people read (aria-label, title, alt, placeholder, …) says its words through {% translate %} or
{% blocktranslate %}, or shows a value ({{ … }}). What is left once those, the template tags, comments, scripts
and styles are taken out may hold symbols (·, ✕, ›), single letters and the product's own names, never a word.

And the scripts in static/js say their sentences through gettext()/ngettext() (Django's JavaScript catalogue)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = ROOT / "templates"
SCRIPTS = ROOT / "static" / "js"

# Names, not words: the product, the program it runs, the image API; kept as they are in every language.
NAMES = {"htrbrowser", "htrflow", "IIIF"}

# Attributes whose values are read (aloud or on screen); a value of any other attribute is markup.
READ_ATTRIBUTES = ("aria-label", "aria-description", "title", "alt", "placeholder", "label", "data-copy-label",
                   "data-trouble")

_REMOVED = [
    re.compile(r"{%\s*comment\s*%}.*?{%\s*endcomment\s*%}", re.S),
    re.compile(r"{#.*?#}", re.S),
    re.compile(r"<(script|style)\b.*?</\1\s*>", re.S | re.I),
    re.compile(r"{%\s*blocktrans(?:late)?\b.*?{%\s*endblocktrans(?:late)?\s*%}", re.S),
    re.compile(r"{%.*?%}", re.S),
    re.compile(r"{{.*?}}", re.S),
]
_READ = "|".join(map(re.escape, READ_ATTRIBUTES))
_ATTRIBUTE = re.compile(r"""\s(""" + _READ + r""")\s*=\s*("[^"]*"|'[^']*')""", re.I)
# A tag ends at the first ">" outside quotes: hx-swap-oob="outerHTML:#rows > li" holds one.
_TAG = re.compile(r"""<(?:[^>"']|"[^"]*"|'[^']*')*>""", re.S)
_ENTITY = re.compile(r"&(#\d+|#x[0-9a-f]+|\w+);", re.I)
_WORD = re.compile(r"[^\W\d_]{2,}")
# A string literal given to a filter as words, as in {{ x|default:"not recorded" }}: it must be _("…").
_BARE_DEFAULT = re.compile(r"""\|default(?:_if_none)?:(["'])[^"']*[^\W\d_]{2,}""")


def untranslated(source: str) -> list[str]:
    """The words in a template's source that no translation tag says."""
    for pattern in _REMOVED:
        source = pattern.sub(" ", source)
    read = [value for _, value in _ATTRIBUTE.findall(source)]
    text = _TAG.sub(" ", source)
    words = _WORD.findall(_ENTITY.sub(" ", " ".join([text, *read])))
    return [word for word in words if word not in NAMES]


def template_files() -> list[Path]:
    return sorted(path for path in TEMPLATES.rglob("*") if path.is_file())


@pytest.mark.parametrize("path", template_files(), ids=lambda path: str(path.relative_to(TEMPLATES)))
def test_every_word_a_template_shows_goes_through_translation(path):
    source = path.read_text()
    assert untranslated(source) == [], f"{path.relative_to(TEMPLATES)}: words outside translate tags"
    assert not _BARE_DEFAULT.search(source), f"{path.relative_to(TEMPLATES)}: a default's words need _(…)"
    if "translate" in source:
        assert re.search(r"{%\s*load\b[^%]*\bi18n\b", source), f"{path.relative_to(TEMPLATES)} loads no i18n"


def test_the_lint_finds_words_in_text_and_read_attributes_and_passes_what_is_said():
    assert untranslated("<p>Run log</p>") == ["Run", "log"]
    assert untranslated('<a aria-label="Next page" href="/x?q=word">›</a>') == ["Next", "page"]
    assert untranslated('<button title="{{ t }}" class="copy-button js-only">✕</button>') == []
    assert untranslated("<li>{{ a }} · {{ b }} s</li>{# a note #}{% comment %}Words{% endcomment %}") == []
    assert untranslated('{% translate "Run log" %} {% blocktranslate %}Of {{ x }}{% endblocktranslate %}') == []
    assert untranslated("<script>var words = 'hidden';</script><style>p { color: red }</style>") == []
    assert untranslated("{% if x %}running again{% else %}retrying{% endif %}") == ["running", "again", "retrying"]
    assert untranslated("<title>{% block title %}x{% endblock %} · htrbrowser</title>") == []
    assert untranslated('<template hx-swap-oob="outerHTML:#rows > li[data-key=a]">{{ x }}</template>') == []
    assert _BARE_DEFAULT.search('{{ v|default:"not recorded" }}')
    assert not _BARE_DEFAULT.search('{{ v|default:_("not recorded") }} {{ n|default:"·" }}')


# What a script writes into the page: a string literal of two words or more, or one capitalised word, handed to
# textContent, append, setAttribute(…, "…") or a sayer; such a literal must be inside gettext()/ngettext().
_SAID = re.compile(r"""(?:textContent\s*=|\.append\(|setAttribute\([^,]+,|say\w*\()\s*[^;]*?(["'])([^"']*)\1""")


@pytest.mark.parametrize("path", sorted(SCRIPTS.glob("*.js")), ids=lambda path: path.name)
def test_what_a_script_writes_into_the_page_goes_through_the_catalogue(path):
    code = re.sub(r"//[^\n]*|/\*.*?\*/", "", path.read_text(), flags=re.S)
    # A call may run over several lines (ngettext's two forms): taken out of the whole script before lines.
    code = re.sub(r"\b(?:gettext|ngettext|pgettext|npgettext)\((?:[^()]|\([^()]*\))*\)", "gettext()", code)
    # An attribute's name read back (getAttribute("data-copy-label")) is markup, not a sentence.
    code = re.sub(r"""\b(?:get|has|remove)Attribute\((["'])[^"']*\1\)""", "attribute()", code)
    bare = []
    for kept in code.splitlines():
        for match in _SAID.finditer(kept):
            literal = match.group(2)
            if len(_WORD.findall(literal)) >= 2 or re.fullmatch(r"[A-Z][a-z]+…?", literal):
                bare.append(literal)
    assert bare == [], f"{path.name}: sentences outside gettext()"
