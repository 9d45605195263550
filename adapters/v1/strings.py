"""``tf.compat.v1.strings``: TF's string operations, run on the host (``ops/string_ops.py``)."""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.ops.ragged.ragged_string_ops import (
    bytes_split,
    ngrams,
    unicode_decode,
    unicode_decode_with_offsets,
    unicode_encode,
    unicode_split,
    unicode_split_with_offsets,
)
from adapters.v1.ops.string_ops import (
    as_string,
    reduce_join,
    regex_full_match,
    regex_replace,
    string_format,
    string_join,
    string_length,
    string_lower,
    string_split_v1,
    string_strip,
    string_to_hash_bucket,
    string_to_hash_bucket_fast,
    string_to_hash_bucket_strong,
    string_to_number,
    string_upper,
    substr,
    unicode_script,
    unicode_transcode,
    unsorted_segment_join,
)

format = string_format  # noqa: A001 - TF's name
join = string_join
length = string_length
lower = string_lower
split = string_split_v1
strip = string_strip
to_hash_bucket = string_to_hash_bucket
to_hash_bucket_fast = string_to_hash_bucket_fast
to_hash_bucket_strong = string_to_hash_bucket_strong
to_number = string_to_number
upper = string_upper

__all__ = [
    "as_string",
    "bytes_split",
    "format",
    "join",
    "length",
    "lower",
    "ngrams",
    "reduce_join",
    "regex_full_match",
    "regex_replace",
    "split",
    "strip",
    "substr",
    "to_hash_bucket",
    "to_hash_bucket_fast",
    "to_hash_bucket_strong",
    "to_number",
    "unicode_decode",
    "unicode_decode_with_offsets",
    "unicode_encode",
    "unicode_script",
    "unicode_split",
    "unicode_split_with_offsets",
    "unicode_transcode",
    "unsorted_segment_join",
    "upper",
]

__getattr__ = missing_name_getattr("tf.strings", globals())
