"""``tf.keras.utils`` as TF 2.21's legacy Keras (``tf.compat.v1.keras.utils``).

Provided: ``Sequence``, ``OrderedEnqueuer``, ``GeneratorEnqueuer``,
``SequenceEnqueuer``, ``pad_sequences``, ``get_file`` (keras/data_utils.py),
``Progbar`` (keras/generic_utils.py), ``to_categorical``, ``to_ordinal``,
``normalize`` (keras/np_utils.py), ``enable_interactive_logging``,
``disable_interactive_logging``, ``is_interactive_logging_enabled``
(keras/io_utils.py), ``CustomObjectScope``/``custom_object_scope``,
``get_custom_objects``, ``register_keras_serializable``, ``get_registered_name``,
``get_registered_object``, ``serialize_keras_object``, ``deserialize_keras_object``,
``legacy`` (keras/serialization.py), ``array_to_img``, ``img_to_array``, ``load_img``,
``save_img`` (keras/image_utils.py, Pillow), ``get_source_inputs``
(keras/layer_utils.py); ``plot_model``/``model_to_dot`` raise Keras'
``ImportError`` (no pydot: keras/vis_utils.py). Checked live against TF in
tests/interop/test_keras_utils_interop.py.
"""

from __future__ import annotations

import types

from adapters.v1._missing import missing_name_getattr
from adapters.v1.keras.data_utils import (
    GeneratorEnqueuer,
    OrderedEnqueuer,
    Sequence,
    SequenceEnqueuer,
    get_file,
    pad_sequences,
)
from adapters.v1.keras.generic_utils import Progbar
from adapters.v1.keras.image_utils import array_to_img, img_to_array, load_img, save_img
from adapters.v1.keras.io_utils import (
    disable_interactive_logging,
    enable_interactive_logging,
    is_interactive_logging_enabled,
)
from adapters.v1.keras.layer_utils import get_source_inputs
from adapters.v1.keras.np_utils import normalize, to_categorical, to_ordinal
from adapters.v1.keras.serialization import (
    CustomObjectScope,
    custom_object_scope,
    deserialize_keras_object,
    get_custom_objects,
    get_registered_name,
    get_registered_object,
    legacy_deserialize_keras_object,
    register_keras_serializable,
    serialize_keras_object,
)
from adapters.v1.keras.vis_utils import model_to_dot, plot_model

__all__ = [
    "CustomObjectScope",
    "GeneratorEnqueuer",
    "OrderedEnqueuer",
    "Progbar",
    "Sequence",
    "SequenceEnqueuer",
    "array_to_img",
    "custom_object_scope",
    "deserialize_keras_object",
    "disable_interactive_logging",
    "enable_interactive_logging",
    "get_custom_objects",
    "get_file",
    "get_registered_name",
    "get_registered_object",
    "get_source_inputs",
    "img_to_array",
    "is_interactive_logging_enabled",
    "legacy",
    "load_img",
    "model_to_dot",
    "normalize",
    "pad_sequences",
    "plot_model",
    "register_keras_serializable",
    "save_img",
    "serialize_keras_object",
    "to_categorical",
    "to_ordinal",
]


def _legacy_namespace() -> types.ModuleType:
    """``tf.keras.utils.legacy``: Keras' legacy (de)serialization functions."""
    ns = types.ModuleType("adapters.v1.keras.utils.legacy")
    ns.serialize_keras_object = serialize_keras_object
    ns.deserialize_keras_object = legacy_deserialize_keras_object
    return ns


legacy = _legacy_namespace()

__getattr__ = missing_name_getattr("tf.keras.utils", globals())
