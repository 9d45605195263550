"""``tf.compat.v1.io``: TFRecord files, ``gfile``, the parse functions and feature specs,
the queues and ``read_file``."""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.framework.graph_io import write_graph
from adapters.v1.ops.base64_ops import decode_base64, encode_base64
from adapters.v1.ops.data_flow_ops import (
    PaddingFIFOQueue,
    PriorityQueue,
    QueueBase,
    RandomShuffleQueue,
)
from adapters.v1.ops.image_codecs import (
    decode_and_crop_jpeg,
    decode_bmp,
    decode_gif,
    decode_image,
    decode_jpeg,
    decode_png,
    encode_jpeg,
    encode_png,
    extract_jpeg_shape,
    is_jpeg,
)
from adapters.v1.ops.io_ops import matching_files, read_file, write_file
from adapters.v1.ops.parsing_ops import (
    FixedLenFeature,
    FixedLenSequenceFeature,
    SparseFeature,
    VarLenFeature,
    decode_compressed,
    decode_csv,
    decode_json_example,
    decode_raw,
    parse_example,
    parse_sequence_example,
    parse_single_example,
    parse_single_sequence_example,
    parse_tensor,
    serialize_tensor,
)
from adapters.v1.ops.sparse_serialization import (
    deserialize_many_sparse,
    serialize_many_sparse,
    serialize_sparse,
)
from adapters.v1.platform import gfile
from adapters.v1.python_io import (
    TFRecordCompressionType,
    TFRecordOptions,
    TFRecordWriter,
    tf_record_iterator,
)
from adapters.v1.training.input import match_filenames_once

__all__ = [
    "FixedLenFeature",
    "FixedLenSequenceFeature",
    "PaddingFIFOQueue",
    "PriorityQueue",
    "QueueBase",
    "RandomShuffleQueue",
    "SparseFeature",
    "VarLenFeature",
    "parse_single_sequence_example",
    "TFRecordCompressionType",
    "TFRecordOptions",
    "TFRecordWriter",
    "decode_and_crop_jpeg",
    "decode_bmp",
    "decode_csv",
    "decode_gif",
    "decode_image",
    "decode_jpeg",
    "decode_png",
    "decode_raw",
    "encode_jpeg",
    "encode_png",
    "extract_jpeg_shape",
    "is_jpeg",
    "gfile",
    "match_filenames_once",
    "parse_example",
    "parse_single_example",
    "parse_tensor",
    "serialize_tensor",
    "decode_base64",
    "decode_compressed",
    "encode_base64",
    "matching_files",
    "write_file",
    "parse_sequence_example",
    "deserialize_many_sparse",
    "serialize_many_sparse",
    "serialize_sparse",
    "decode_json_example",
    "read_file",
    "tf_record_iterator",
    "write_graph",
]

__getattr__ = missing_name_getattr("tf.io", globals())
