"""``tf.keras.backend`` (legacy Keras 2 in TF1 graph mode): the subset graph-mode scripts use.

Keras keeps per-graph state: the learning phase (a ``keras_learning_phase``
``placeholder_with_default(False)``, or the 0/1 that ``set_learning_phase``
fixed), the layer-name counters (shared with ``tf.layers``: a ``tf.layers.Dense``
then a ``tf.keras.layers.Dense`` are ``dense_1`` and ``dense_1``), and a session
(``get_session``: the default session, else one Keras creates and keeps; either
way the Keras variables not yet initialized are initialized first, as TF's).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1._missing import missing_name_getattr
from adapters.v1.framework import dtypes, ops
from adapters.v1.layers.base import op
from adapters.v1.ops import array_ops
from adapters.v1.ops import variables as tf_variables

__all__ = [
    "cast",
    "cast_to_floatx",
    "clear_session",
    "concatenate",
    "constant",
    "epsilon",
    "floatx",
    "get_session",
    "get_uid",
    "get_value",
    "image_data_format",
    "int_shape",
    "learning_phase",
    "mean",
    "ndim",
    "placeholder",
    "reset_uids",
    "set_epsilon",
    "set_floatx",
    "set_learning_phase",
    "set_session",
    "set_value",
    "shape",
    "sum",
    "variable",
]

_FLOATX = "float32"
_EPSILON = 1e-7
_SESSION: dict[int, Any] = {}  # id(graph) -> the session Keras created or was given


def floatx() -> str:
    """The default float type of Keras' layers and variables (``"float32"``)."""
    return _FLOATX


def set_floatx(value: str) -> None:
    """Sets ``floatx`` (``"float16"``, ``"bfloat16"``, ``"float32"`` or ``"float64"``).

    Raises:
      ValueError: another value.
    """
    global _FLOATX
    if value not in ("float16", "bfloat16", "float32", "float64"):
        raise ValueError(
            f"Unknown `floatx` value: {value}. Expected one of "
            "{'float16', 'bfloat16', 'float32', 'float64'}"
        )
    _FLOATX = str(value)


def epsilon() -> float:
    """The fuzz factor of Keras' losses (``1e-7``)."""
    return _EPSILON


def set_epsilon(value: float) -> None:
    """Sets ``epsilon``."""
    global _EPSILON
    _EPSILON = value


def image_data_format() -> str:
    """``"channels_last"``."""
    return "channels_last"


def cast_to_floatx(x: Any) -> np.ndarray:
    """``x`` as a NumPy array of ``floatx``."""
    return np.asarray(x, dtype=_FLOATX)


def _state(graph: ops.Graph | None = None) -> dict[str, Any]:
    graph = graph or ops.get_default_graph()
    return graph.__dict__.setdefault("_keras_state", {})


def get_uid(prefix: str = "") -> int:
    """The next 1-based id for ``prefix`` in the default graph (shared with layer names)."""
    counts = ops.get_default_graph().__dict__.setdefault("_layer_name_counts", {})
    counts[prefix] = counts.get(prefix, 0) + 1
    return int(counts[prefix])


def reset_uids() -> None:
    """Resets the default graph's name counters."""
    ops.get_default_graph().__dict__["_layer_name_counts"] = {}


def unique_object_name(base: str, zero_based: bool = True) -> str:
    """``base``, ``base_1``... (zero-based, Keras' layers) or ``base_1``, ``base_2``..."""
    counts = ops.get_default_graph().__dict__.setdefault("_layer_name_counts", {})
    n = counts.get(base, 0)
    counts[base] = n + 1
    if zero_based:
        return base if n == 0 else f"{base}_{n}"
    return f"{base}_{n + 1}"


def learning_phase() -> Any:
    """The learning phase: the 0/1 ``set_learning_phase`` fixed, else the graph's bool
    ``keras_learning_phase`` tensor (``placeholder_with_default(False, shape=())``:
    feed ``True`` to train dropout and batch normalization)."""
    state = _state()
    if "learning_phase" not in state:
        graph = ops.get_default_graph()
        with graph.name_scope(""):
            state["learning_phase"] = array_ops.placeholder_with_default(
                False, shape=(), name="keras_learning_phase"
            )
    return state["learning_phase"]


def set_learning_phase(value: int) -> None:
    """Fixes the learning phase of the default graph to 0 (test) or 1 (train).

    Raises:
      ValueError: ``value`` is not 0 or 1.
    """
    if value not in {0, 1}:
        raise ValueError("Expected learning phase to be 0 or 1.")
    _state()["learning_phase"] = value


def _track_variable(variable: Any) -> None:
    _state(variable.graph).setdefault("variables", []).append(variable)


def get_session(op_input_list: Any = ()) -> Any:
    """The session Keras runs in: the default session, else the one Keras created for
    the default graph; the Keras variables not yet initialized are initialized first."""
    from adapters.v1.client.session import Session, get_default_session

    session = get_default_session()
    if session is None:
        graph = ops.get_default_graph()
        session = _SESSION.get(id(graph))
        if session is None or getattr(session, "_closed", False) or session.graph is not graph:
            session = Session(graph=graph)
            _SESSION[id(graph)] = session
    _initialize_variables(session)
    return session


def _initialize_variables(session: Any) -> None:
    tracked = [
        v
        for v in _state(session.graph).get("variables", [])
        if not getattr(v, "_keras_initialized", False)
    ]
    if not tracked:
        return
    with session.graph.as_default():
        flags = session.run([tf_variables.is_variable_initialized(v) for v in tracked])
        missing = [v for v, done in zip(tracked, flags, strict=True) if not done]
        for v in tracked:
            v._keras_initialized = True
        if missing:
            session.run(tf_variables.variables_initializer(missing))


def set_session(session: Any) -> None:
    """Makes ``session`` the one Keras uses for its graph."""
    _SESSION[id(session.graph)] = session


def clear_session() -> None:
    """Resets the default graph (new name counters, a new learning phase) and forgets
    Keras' session."""
    _SESSION.pop(id(ops.get_default_graph()), None)
    ops.reset_default_graph()


def placeholder(
    shape: Any = None,
    ndim: int | None = None,
    dtype: Any = None,
    sparse: bool = False,
    name: str | None = None,
    ragged: bool = False,
) -> ops.Tensor:
    """``tf.placeholder(dtype or floatx(), shape)`` (``ndim``: a shape of ``ndim`` Nones).

    Raises:
      NotImplementedError: ``sparse`` or ``ragged``.
    """
    if sparse or ragged:
        raise NotImplementedError(
            "tf.keras.backend.placeholder: sparse and ragged "
            "placeholders are not supported by adapters.v1"
        )
    if shape is None and ndim is not None:
        shape = (None,) * ndim
    return array_ops.placeholder(dtype or floatx(), shape=shape, name=name)


def variable(value: Any, dtype: Any = None, name: str | None = None, constraint: Any = None) -> Any:
    """A resource variable initialized to ``value`` (dtype ``floatx`` unless given)."""
    value = np.asarray(value, dtype=dtypes.as_dtype(dtype or floatx()).as_numpy_dtype)
    v = tf_variables.Variable(value, name=name, constraint=constraint, use_resource=True)
    _track_variable(v)
    return v


def get_value(x: Any) -> Any:
    """``x``'s value in Keras' session."""
    return get_session().run(x)


def set_value(x: Any, value: Any) -> None:
    """Loads ``value`` into the variable ``x`` in Keras' session."""
    x.load(np.asarray(value), get_session())


def int_shape(x: Any) -> tuple[int | None, ...] | None:
    """``x``'s static shape as a tuple (``None`` for unknown dimensions or rank)."""
    shape = x.shape
    if shape.ndims is None:
        return None
    return tuple(shape.as_list())


def ndim(x: Any) -> int | None:
    """``x``'s rank, ``None`` if unknown."""
    return x.shape.ndims


def shape(x: Any) -> ops.Tensor:
    """``tf.shape(x)``."""
    return op("shape")(x)


def cast(x: Any, dtype: Any) -> ops.Tensor:
    """``tf.cast(x, dtype)``."""
    return op("cast")(x, dtype)


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str | None = None) -> Any:
    """``tf.constant(value, dtype or floatx(), shape, name)``."""
    from adapters.v1.ops.constant_op import constant as tf_constant

    return tf_constant(value, dtype=dtype or floatx(), shape=shape, name=name or "Const")


def concatenate(tensors: list[Any], axis: int = -1) -> ops.Tensor:
    """``tf.concat(tensors, axis)`` (a negative ``axis`` counts from the first tensor's rank)."""
    if axis < 0:
        rank = tensors[0].shape.ndims
        axis = axis % rank if rank else 0
    return op("concat")(list(tensors), axis)


def mean(x: Any, axis: Any = None, keepdims: bool = False) -> ops.Tensor:
    """``tf.reduce_mean(x, axis, keepdims)`` (bool inputs are cast to ``floatx`` first)."""
    x = ops.convert_to_tensor(x)
    if x.dtype.base_dtype == dtypes.bool:
        x = op("cast")(x, floatx())
    return op("reduce_mean")(x, axis, keepdims=keepdims)


def sum(x: Any, axis: Any = None, keepdims: bool = False) -> ops.Tensor:  # noqa: A001
    """``tf.reduce_sum(x, axis, keepdims)``."""
    return op("reduce_sum")(x, axis, keepdims=keepdims)


__getattr__ = missing_name_getattr("tf.keras.backend", globals())
