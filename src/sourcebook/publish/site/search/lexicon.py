"""The lexicon: which buckets hold the words a query's term stands for, so that a search
across the buckets finds the pages one index of the whole site would.

Pagefind searches each bucket as an index of its own, and turns each term of a query into
the words of that index: those that begin with the term's stem, else the longest word that
the stem begins with, else none, and then the term is left out of the query. A bucket
without the term's words therefore drops the term, or stands a shorter word in for it, and
finds pages that one index, which holds those words in other pages, would not: "cooling
eastwater" found every page of "cooling" in the buckets without "eastwater".

The lexicon is a small Pagefind index whose records are the buckets' words: records of each
bucket's words of its pages as Pagefind read them (each page's text and metadata, from its
fragment, split where Pagefind splits), a thousand words at most a record
(`RECORD_WORDS`), each filtered by the bucket's slot (`holds`). Pagefind turns a term
into the words of the lexicon as one index of the site would, since the lexicon holds
every word of the site; the slots of the records the term finds are the buckets that hold
those words. The browser looks each term up in the lexicon, and
searches only the buckets that every term found there (`static/search.js`).

The lexicon is split by the first letter of the words (`part_of`): a term's words all begin
with the first letter of its stem, which is that of the term. Each part is an index named
by the digest of what it holds, so that an edit makes again only the parts whose words it
changed. Words are given to Pagefind as the text it read, a token at a time, not as the
stems its index holds: Pagefind stems them again as it did the pages.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

PARTS = "abcdefghijklmnopqrstuvwxyz0_"
"""The parts of the lexicon: a letter, the digits, and whatever else."""
FORMAT = "2"
RECORD_WORDS = 1000
"""Words at most in one record of a part: a bucket's words of a part are given as records of
this many (each with the bucket's slot), which Pagefind indexes in about three fifths of
the time it takes over one record of all of them; the buckets a term finds are the same."""
WORDS = "words.json.gz"
"""Beside each bucket's index, its words by part (`words_of`): a bucket kept is not read
again."""
FRAGMENT_HEADER = b"pagefind_dcd"


@dataclass(frozen=True)
class Part:
    key: str
    name: str
    """The folder: a digest of what the part holds."""
    words: tuple[tuple[int, tuple[str, ...]], ...]
    """Each bucket's slot, with its words of this part."""

    def records(self) -> Iterator[tuple[int, int, str]]:
        """The records Pagefind is given of the part: each bucket's words, RECORD_WORDS at
        most a record, as (the bucket's slot, the record's number in it, its words)."""
        for slot, words in self.words:
            for number, start in enumerate(range(0, len(words), RECORD_WORDS)):
                yield slot, number, " ".join(words[start : start + RECORD_WORDS])


def part_of(char: str) -> str:
    """The part of the lexicon a word beginning with `char` falls into: its letter without
    accents, lower case (as Pagefind normalizes a word), "0" for a digit, else "_"."""
    decomposed = unicodedata.normalize("NFD", char.lower())
    plain = "".join(c for c in decomposed if not unicodedata.category(c).startswith("M"))
    first = plain[:1]
    if "a" <= first <= "z":
        return first
    return "0" if "0" <= first <= "9" else "_"


def parts_of(token: str) -> set[str]:
    """The parts that words Pagefind makes of `token` may fall into: those of the letters
    where a word of it may begin (its first letter or digit, and each one after a mark, an
    upper-case letter, or a change between letters and digits: Pagefind indexes the parts
    of a compound word too). More than it needs, never less."""
    found: set[str] = set()
    before = ""
    for char in token:
        if not char.isalnum():
            if not char.isascii():
                found.add("_")  # a mark of another script may stand in a word
            before = ""
            continue
        kind = "digit" if char.isdigit() else "upper" if char.isupper() else "lower"
        if not before or kind == "upper" or (kind == "digit") != (before == "digit"):
            found.add(part_of(char))
        before = kind
    return found


def words_of(fragments: Iterable[bytes]) -> dict[str, list[str]]:
    """The tokens of a bucket's pages, by the parts of the lexicon they fall into (see
    `parts_of`), each part's sorted: each page's text and metadata as its fragment holds
    them (gzipped JSON), split as Pagefind split them."""
    found: set[str] = set()
    for data in fragments:
        text = gzip.decompress(data)
        text = text.removeprefix(FRAGMENT_HEADER)
        fragment = json.loads(text)
        found.update(fragment.get("content", "").split(" "))
        for value in fragment.get("meta", {}).values():
            found.update(str(value).split())
    found.discard("")
    parts: dict[str, list[str]] = {}
    for token in sorted(found):
        for key in parts_of(token):
            parts.setdefault(key, []).append(token)
    return parts


def packed(words: Mapping[str, list[str]]) -> bytes:
    return gzip.compress(json.dumps(words, sort_keys=True).encode("utf-8"), mtime=0)


def unpacked(data: bytes) -> dict[str, list[str]]:
    found = json.loads(gzip.decompress(data))
    if not isinstance(found, dict):
        raise ValueError("not a bucket's words")
    return found


def split_words(buckets: Mapping[int, Mapping[str, list[str]]], salt: str) -> list[Part]:
    """The lexicon's parts, of the words of each bucket by its slot (see `words_of`); `salt`
    names how the index is made (Pagefind's version, the language)."""
    made = []
    for key in PARTS:
        words = tuple(
            (slot, tuple(buckets[slot][key])) for slot in sorted(buckets) if buckets[slot].get(key)
        )
        if not words:
            continue
        digest = hashlib.sha256()
        for part in (FORMAT, salt, key):
            digest.update(part.encode("utf-8") + b"\0")
        for slot, found in words:
            digest.update(f"{slot}\0".encode() + "\0".join(found).encode("utf-8") + b"\1")
        made.append(Part(key, f"lexicon-{key}-{digest.hexdigest()[:16]}", words))
    return made
