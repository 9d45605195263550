"""``tf.compat.v1.lookup``: TF1 lookup tables, held per session on the host
(``ops/lookup_ops.py``)."""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.ops.lookup_ops import (
    KeyValueTensorInitializer,
    StaticHashTable,
    StaticVocabularyTable,
    TextFileIndex,
    TextFileInitializer,
)

__all__ = [
    "KeyValueTensorInitializer",
    "StaticHashTable",
    "StaticVocabularyTable",
    "TextFileIndex",
    "TextFileInitializer",
]

__getattr__ = missing_name_getattr("tf.lookup", globals())
