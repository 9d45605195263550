"""``tf.keras.preprocessing.text`` as TF 2.21's legacy Keras
(``tf_keras/preprocessing/text.py``): ``text_to_word_sequence``, ``one_hot``,
``hashing_trick``, ``Tokenizer`` and ``tokenizer_from_json``.

.. note:: ``one_hot`` and ``hashing_trick``'s default hash are Python's ``hash``,
   which differs between processes (``PYTHONHASHSEED``): as in TF, only
   ``hash_function='md5'`` gives the same indices in every run.
"""

from __future__ import annotations

import collections
import hashlib
import json
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from adapters.v1._missing import missing_name_getattr

__all__ = ["Tokenizer", "hashing_trick", "one_hot", "text_to_word_sequence", "tokenizer_from_json"]

_FILTERS = '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n'


def text_to_word_sequence(
    input_text: str, filters: str = _FILTERS, lower: bool = True, split: str = " "
) -> list[str]:
    """The words of ``input_text``: lower-cased, each character of ``filters``
    replaced by ``split``, split on ``split``, empty words dropped.

    Args (TF's defaults): input_text, filters (punctuation, tabs and newlines),
    lower=True, split=' '.
    """
    if lower:
        input_text = input_text.lower()
    words = input_text.translate(str.maketrans(dict.fromkeys(filters, split))).split(split)
    return [word for word in words if word]


def _md5(word: str) -> int:
    return int(hashlib.md5(word.encode()).hexdigest(), 16)  # noqa: S324 (Keras' hash)


def hashing_trick(
    text: str,
    n: int,
    hash_function: Any = None,
    filters: str = _FILTERS,
    lower: bool = True,
    split: str = " ",
    analyzer: Callable[[str], Iterable[str]] | None = None,
) -> list[int]:
    """Each word of ``text`` as ``hash(word) % (n - 1) + 1`` (indices 1..n-1).

    Args (TF's defaults): text, n, hash_function=None (Python's ``hash``; 'md5':
    the md5 digest as an integer; or a function of a word), filters, lower=True,
    split=' ', analyzer=None (a function giving the words instead of
    ``text_to_word_sequence``).
    """
    if hash_function is None:
        hash_function = hash
    elif hash_function == "md5":
        hash_function = _md5
    words = (
        text_to_word_sequence(text, filters=filters, lower=lower, split=split)
        if analyzer is None
        else analyzer(text)
    )
    return [hash_function(word) % (n - 1) + 1 for word in words]


def one_hot(
    input_text: str,
    n: int,
    filters: str = _FILTERS,
    lower: bool = True,
    split: str = " ",
    analyzer: Callable[[str], Iterable[str]] | None = None,
) -> list[int]:
    """``hashing_trick`` with Python's ``hash`` (see the module's note).

    Args (TF's defaults): input_text, n, filters, lower=True, split=' ',
    analyzer=None.
    """
    return hashing_trick(
        input_text,
        n,
        hash_function=hash,
        filters=filters,
        lower=lower,
        split=split,
        analyzer=analyzer,
    )


class Tokenizer:
    """Keras' word (or character) index of a corpus.

    Args (TF's defaults):
      num_words=None: keep the ``num_words - 1`` most frequent words when converting.
      filters: characters removed (punctuation, tabs and newlines).
      lower=True, split=' ', char_level=False (characters are the tokens).
      oov_token=None: the token (index 1) replacing unknown words when given.
      analyzer=None: a function giving a text's words.
      document_count=0 (keyword), nb_words (keyword, TF's old name of
        ``num_words``, with its warning).

    Raises:
      TypeError: other keyword arguments (TF's message).
    """

    def __init__(
        self,
        num_words: int | None = None,
        filters: str = _FILTERS,
        lower: bool = True,
        split: str = " ",
        char_level: bool = False,
        oov_token: str | None = None,
        analyzer: Callable[[str], Iterable[str]] | None = None,
        **kwargs: Any,
    ):
        if "nb_words" in kwargs:
            warnings.warn(
                "The `nb_words` argument in `Tokenizer` has been renamed `num_words`.",
                stacklevel=2,
            )
            num_words = kwargs.pop("nb_words")
        document_count = kwargs.pop("document_count", 0)
        if kwargs:
            raise TypeError("Unrecognized keyword arguments: " + str(kwargs))
        self.word_counts: dict[str, int] = collections.OrderedDict()
        self.word_docs: dict[str, int] = collections.defaultdict(int)
        self.filters = filters
        self.split = split
        self.lower = lower
        self.num_words = num_words
        self.document_count = document_count
        self.char_level = char_level
        self.oov_token = oov_token
        self.index_docs: dict[int, int] = collections.defaultdict(int)
        self.word_index: dict[str, int] = {}
        self.index_word: dict[int, str] = {}
        self.analyzer = analyzer

    def _tokens(self, text: Any) -> Any:
        """A text's tokens: a list of words or a string at character level as given
        (lower-cased), else its words."""
        if self.char_level or isinstance(text, list):
            if self.lower:
                text = [t.lower() for t in text] if isinstance(text, list) else text.lower()
            return text
        if self.analyzer is None:
            return text_to_word_sequence(
                text, filters=self.filters, lower=self.lower, split=self.split
            )
        return self.analyzer(text)

    def fit_on_texts(self, texts: Iterable[Any]) -> None:
        """Counts the words of ``texts`` (strings or lists of words) and re-indexes
        them by count (most frequent first, ties in first-seen order; index 0 is
        never used, the ``oov_token`` is 1)."""
        for text in texts:
            self.document_count += 1
            tokens = self._tokens(text)
            for word in tokens:
                self.word_counts[word] = self.word_counts.get(word, 0) + 1
            for word in set(tokens):
                self.word_docs[word] += 1
        by_count = sorted(self.word_counts.items(), key=lambda item: item[1], reverse=True)
        vocabulary = ([] if self.oov_token is None else [self.oov_token]) + [
            word for word, _ in by_count
        ]
        self.word_index = {word: i for i, word in enumerate(vocabulary, start=1)}
        self.index_word = {i: word for word, i in self.word_index.items()}
        for word, count in list(self.word_docs.items()):
            self.index_docs[self.word_index[word]] = count

    def fit_on_sequences(self, sequences: Any) -> None:
        """Counts the documents each index is in (for ``sequences_to_matrix``'s
        'tfidf' mode)."""
        self.document_count += len(sequences)
        for seq in sequences:
            for index in set(seq):
                self.index_docs[index] += 1

    def texts_to_sequences(self, texts: Iterable[Any]) -> list[list[int]]:
        """Each text as its word indices (see ``texts_to_sequences_generator``)."""
        return list(self.texts_to_sequences_generator(texts))

    def texts_to_sequences_generator(self, texts: Iterable[Any]) -> Iterator[list[int]]:
        """Each text's word indices: unknown words and those ranked ``num_words`` or
        beyond dropped, or the ``oov_token``'s index when there is one."""
        oov = self.word_index.get(self.oov_token) if self.oov_token is not None else None
        for text in texts:
            indices = []
            for word in self._tokens(text):
                i = self.word_index.get(word)
                if i is None:
                    if self.oov_token is not None:
                        indices.append(oov)
                elif self.num_words and i >= self.num_words:
                    if oov is not None:
                        indices.append(oov)
                else:
                    indices.append(i)
            yield indices

    def sequences_to_texts(self, sequences: Iterable[Any]) -> list[str]:
        """Each sequence of indices as its words joined by spaces."""
        return list(self.sequences_to_texts_generator(sequences))

    def sequences_to_texts_generator(self, sequences: Iterable[Any]) -> Iterator[str]:
        """Each sequence's words joined by spaces: unknown indices and those at or
        beyond ``num_words`` dropped, or the ``oov_token`` when there is one."""
        oov = self.word_index.get(self.oov_token) if self.oov_token is not None else None
        for seq in sequences:
            words = []
            for num in seq:
                word = self.index_word.get(num)
                if word is None:
                    if self.oov_token is not None:
                        words.append(self.index_word[oov])
                elif self.num_words and num >= self.num_words:
                    if oov is not None:
                        words.append(self.index_word[oov])
                else:
                    words.append(word)
            yield " ".join(words)

    def texts_to_matrix(self, texts: Iterable[Any], mode: str = "binary") -> np.ndarray:
        """``sequences_to_matrix(texts_to_sequences(texts), mode)``."""
        return self.sequences_to_matrix(self.texts_to_sequences(texts), mode=mode)

    def sequences_to_matrix(self, sequences: Any, mode: str = "binary") -> np.ndarray:
        """A float64 ``(len(sequences), num_words)`` matrix (``len(word_index) + 1``
        columns without ``num_words``): per row, for each index below it, 'binary' 1,
        'count' its count, 'freq' its count over the sequence's length, 'tfidf'
        ``(1 + log(count)) * log(1 + documents / (1 + documents with it))``.

        Raises:
          ValueError: no ``num_words`` and nothing fitted; 'tfidf' before fitting;
            another mode (TF's messages).
        """
        if self.num_words:
            num_words = self.num_words
        elif self.word_index:
            num_words = len(self.word_index) + 1
        else:
            raise ValueError(
                "Specify a dimension (`num_words` argument), or fit on some text data first."
            )
        if mode == "tfidf" and not self.document_count:
            raise ValueError("Fit the Tokenizer on some data before using tfidf mode.")
        x = np.zeros((len(sequences), num_words))
        for i, seq in enumerate(sequences):
            if not seq:
                continue
            counts: dict[int, int] = collections.defaultdict(int)
            for j in seq:
                if j < num_words:
                    counts[j] += 1
            for j, c in list(counts.items()):
                if mode == "count":
                    x[i][j] = c
                elif mode == "freq":
                    x[i][j] = c / len(seq)
                elif mode == "binary":
                    x[i][j] = 1
                elif mode == "tfidf":
                    idf = np.log(1 + self.document_count / (1 + self.index_docs.get(j, 0)))
                    x[i][j] = (1 + np.log(c)) * idf
                else:
                    raise ValueError("Unknown vectorization mode:", mode)
        return x

    def get_config(self) -> dict[str, Any]:
        """The arguments and the fitted counts and indices (as JSON strings)."""
        return {
            "num_words": self.num_words,
            "filters": self.filters,
            "lower": self.lower,
            "split": self.split,
            "char_level": self.char_level,
            "oov_token": self.oov_token,
            "document_count": self.document_count,
            "word_counts": json.dumps(self.word_counts),
            "word_docs": json.dumps(self.word_docs),
            "index_docs": json.dumps(self.index_docs),
            "index_word": json.dumps(self.index_word),
            "word_index": json.dumps(self.word_index),
        }

    def to_json(self, **kwargs: Any) -> str:
        """``{'class_name': 'Tokenizer', 'config': get_config()}`` as JSON (``kwargs``
        go to ``json.dumps``); ``tokenizer_from_json`` reads it back."""
        return json.dumps(
            {"class_name": type(self).__name__, "config": self.get_config()}, **kwargs
        )


def tokenizer_from_json(json_string: str) -> Tokenizer:
    """The ``Tokenizer`` of a ``Tokenizer.to_json`` string (its counts and indices
    restored; the index keys as ints)."""
    config = json.loads(json_string).get("config")
    word_counts = json.loads(config.pop("word_counts"))
    word_docs = json.loads(config.pop("word_docs"))
    index_docs = {int(k): v for k, v in json.loads(config.pop("index_docs")).items()}
    index_word = {int(k): v for k, v in json.loads(config.pop("index_word")).items()}
    word_index = json.loads(config.pop("word_index"))
    tokenizer = Tokenizer(**config)
    tokenizer.word_counts = word_counts
    tokenizer.word_docs = word_docs
    tokenizer.index_docs = index_docs
    tokenizer.word_index = word_index
    tokenizer.index_word = index_word
    return tokenizer


__getattr__ = missing_name_getattr("tf.keras.preprocessing.text", globals())
