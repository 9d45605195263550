"""``tf.keras.backend`` (legacy Keras 2 in TF1 graph mode): the subset graph-mode scripts use.

Keras keeps per-graph state: the learning phase (a ``keras_learning_phase``
``placeholder_with_default(False)``, or the 0/1 that ``set_learning_phase``
fixed), the layer-name counters (shared with ``tf.layers``: a ``tf.layers.Dense``
then a ``tf.keras.layers.Dense`` are ``dense_1`` and ``dense_1``), and a session
(``get_session``: the default session, else one Keras creates and keeps; either
way the Keras variables not yet initialized are initialized first, as TF's, unless
``manual_variable_initialization(True)``), and the image data format
(``set_image_data_format``: what this module's functions taking ``data_format=None``
use).

The functions are TF's ops under Keras' names (TF's ``tf_keras/src/backend.py``
builds each from the same ops): element-wise, reductions, shapes (``tile``,
``repeat_elements``, the paddings, ``resize_images``...), ``batch_dot``, the
convolutions and poolings (``channels_first`` transposed to channels-last and
back, as TF's backend does on a machine without GPUs), batch normalization,
``moving_average_update`` (TF1's zero-debiased form), the losses on tensors
(focal, CTC), the locally connected ``local_conv1d``/``local_conv2d``, the
random tensors (TF's seeded streams; without a seed, one drawn from NumPy's
global generator, as Keras does), ``map_fn``/``foldl``/``foldr`` and the
variable helpers. A function TF's backend has and this module lacks raises
``AttributeError`` naming it: ``ctc_decode`` (the decoders' sparse outputs are
host values here, which ``tf.sparse.to_dense`` in the step cannot read) and
``rnn``.
"""

from __future__ import annotations

import builtins
import contextlib
import itertools
import sys
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from adapters.v1._missing import missing_name_getattr
from adapters.v1.framework import dtypes, ops, tensor_util
from adapters.v1.layers.base import op
from adapters.v1.ops import array_ops
from adapters.v1.ops import variables as tf_variables

__all__ = [
    "abs",
    "all",
    "any",
    "arange",
    "argmax",
    "argmin",
    "backend",
    "batch_dot",
    "batch_flatten",
    "batch_get_value",
    "batch_normalization",
    "batch_set_value",
    "bias_add",
    "binary_crossentropy",
    "binary_focal_crossentropy",
    "cast",
    "cast_to_floatx",
    "categorical_crossentropy",
    "categorical_focal_crossentropy",
    "clear_session",
    "clip",
    "concatenate",
    "constant",
    "conv1d",
    "conv2d",
    "conv2d_transpose",
    "conv3d",
    "cos",
    "count_params",
    "ctc_batch_cost",
    "ctc_label_dense_to_sparse",
    "cumprod",
    "cumsum",
    "depthwise_conv2d",
    "dot",
    "dropout",
    "dtype",
    "elu",
    "epsilon",
    "equal",
    "eval",
    "exp",
    "expand_dims",
    "eye",
    "flatten",
    "floatx",
    "foldl",
    "foldr",
    "function",
    "gather",
    "get_session",
    "get_uid",
    "get_value",
    "gradients",
    "greater",
    "greater_equal",
    "hard_sigmoid",
    "image_data_format",
    "in_test_phase",
    "in_top_k",
    "in_train_phase",
    "int_shape",
    "is_keras_tensor",
    "is_sparse",
    "l2_normalize",
    "learning_phase",
    "learning_phase_scope",
    "less",
    "less_equal",
    "local_conv1d",
    "local_conv2d",
    "log",
    "manual_variable_initialization",
    "map_fn",
    "max",
    "maximum",
    "mean",
    "min",
    "minimum",
    "moving_average_update",
    "name_scope",
    "ndim",
    "normalize_batch_in_training",
    "not_equal",
    "one_hot",
    "ones",
    "ones_like",
    "permute_dimensions",
    "placeholder",
    "pool2d",
    "pool3d",
    "pow",
    "print_tensor",
    "prod",
    "random_bernoulli",
    "random_binomial",
    "random_normal",
    "random_normal_variable",
    "random_uniform",
    "random_uniform_variable",
    "relu",
    "repeat",
    "repeat_elements",
    "reset_uids",
    "reshape",
    "resize_images",
    "resize_volumes",
    "reverse",
    "round",
    "separable_conv2d",
    "set_epsilon",
    "set_floatx",
    "set_image_data_format",
    "set_learning_phase",
    "set_session",
    "set_value",
    "shape",
    "sigmoid",
    "sign",
    "sin",
    "softmax",
    "softplus",
    "softsign",
    "sparse_categorical_crossentropy",
    "spatial_2d_padding",
    "spatial_3d_padding",
    "sqrt",
    "square",
    "squeeze",
    "stack",
    "std",
    "stop_gradient",
    "sum",
    "switch",
    "tanh",
    "temporal_padding",
    "tile",
    "to_dense",
    "transpose",
    "truncated_normal",
    "update",
    "update_add",
    "update_sub",
    "var",
    "variable",
    "zeros",
    "zeros_like",
]

_FLOATX = "float32"
_EPSILON = 1e-7
_IMAGE_DATA_FORMAT = "channels_last"
_MANUAL_VAR_INIT = False
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
    """The default image data format (``"channels_last"`` unless set)."""
    return _IMAGE_DATA_FORMAT


def set_image_data_format(data_format: str) -> None:
    """Sets ``image_data_format`` (``"channels_last"`` or ``"channels_first"``).

    Raises:
      ValueError: another value.
    """
    global _IMAGE_DATA_FORMAT
    accepted_formats = {"channels_last", "channels_first"}
    if data_format not in accepted_formats:
        raise ValueError(
            f"Unknown `data_format`: {data_format}. Expected one of {accepted_formats}"
        )
    _IMAGE_DATA_FORMAT = str(data_format)


def backend() -> str:
    """The name of the backend: ``"tensorflow"``."""
    return "tensorflow"


def manual_variable_initialization(value: bool) -> None:
    """Whether ``get_session`` leaves the Keras variables uninitialized (default False:
    it initializes those not yet initialized)."""
    global _MANUAL_VAR_INIT
    _MANUAL_VAR_INIT = value


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


@contextlib.contextmanager
def learning_phase_scope(value: int) -> Iterator[None]:
    """Fixes the learning phase to ``value`` (0 or 1) inside the block, then restores
    the previous one (deprecated in TF: warns as TF's).

    Raises:
      ValueError: ``value`` is not 0 or 1.
    """
    warnings.warn(
        "`tf.keras.backend.learning_phase_scope` is deprecated and "
        "will be removed after 2020-10-11. To update it, simply "
        "pass a True/False value to the `training` argument of the "
        "`__call__` method of your layer or model.",
        stacklevel=3,
    )
    if value not in {0, 1}:
        raise ValueError("Expected learning phase to be 0 or 1.")
    graph = ops.get_default_graph()
    state = _state(graph)
    unset = object()
    previous = state.get("learning_phase", unset)
    state["learning_phase"] = value
    try:
        yield
    finally:
        state = _state(graph)
        if previous is unset:
            state.pop("learning_phase", None)
        else:
            state["learning_phase"] = previous


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
    if not _MANUAL_VAR_INIT:
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
    """A resource variable initialized to ``value`` (dtype ``floatx`` unless given; a
    tensor value is its initial value op)."""
    dtype = dtypes.as_dtype(dtype or floatx())
    if not isinstance(value, ops.Tensor):
        value = np.asarray(value, dtype=dtype.as_numpy_dtype)
    v = tf_variables.Variable(
        value, dtype=dtype, name=name, constraint=constraint, use_resource=True
    )
    _track_variable(v)
    return v


def get_value(x: Any) -> Any:
    """``x``'s value in Keras' session.

    Args:
      x: a tensor or variable; any other value (a Python number, a NumPy array)
        is its own value, returned as it is (TF's ``tf.is_tensor`` test).

    Returns:
      A NumPy value for a tensor or variable, else ``x`` itself.
    """
    if not tensor_util.is_tensor(x):
        return x
    return get_session().run(x)


def _variable_value(x: Any, value: Any) -> np.ndarray:
    """``value`` as an array of the variable ``x``'s dtype, as TF's ``set_value``.

    Raises:
      AttributeError: ``x`` has no ``dtype`` (a Python number), or is not a
        variable (a NumPy value): Python's message for the missing attribute.
    """
    array = np.asarray(value, dtype=dtypes.as_dtype(x.dtype).as_numpy_dtype)
    x.assign  # noqa: B018 - TF's AttributeError for a value that is not a variable
    return array


def set_value(x: Any, value: Any) -> None:
    """Loads ``value`` into the variable ``x`` in Keras' session.

    Args:
      x: a variable.
      value: a NumPy value or Python number, converted to ``x``'s dtype.

    Raises:
      AttributeError: ``x`` is not a variable (TF's: ``'float' object has no
        attribute 'dtype'`` for a Python number, ``... no attribute 'assign'`` for
        a NumPy value).
    """
    array = _variable_value(x, value)  # before ``x.load``: TF's errors first
    x.load(array, get_session())


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


# -- element-wise and reductions (TF's ops under Keras' names) --------------------------
def _unary(name: str, doc: str) -> Callable[[Any], Any]:
    def fn(x: Any) -> Any:
        return op(name)(x)

    fn.__doc__ = doc
    return fn


square = _unary("square", "``tf.square(x)``.")
abs = _unary("abs", "``tf.abs(x)``.")  # noqa: A001
exp = _unary("exp", "``tf.exp(x)``.")
log = _unary("log", "``tf.math.log(x)``.")
sign = _unary("sign", "``tf.sign(x)``.")
round = _unary("round", "``tf.round(x)`` (half to even).")  # noqa: A001
sin = _unary("sin", "``tf.sin(x)``.")
cos = _unary("cos", "``tf.cos(x)``.")
transpose = _unary("transpose", "``tf.transpose(x)``.")
flatten = lambda x: op("reshape")(x, [-1])  # noqa: E731
flatten.__doc__ = "``tf.reshape(x, [-1])``."


def sqrt(x: Any) -> Any:
    """``tf.sqrt(max(x, 0))`` (Keras clips negatives to 0 first)."""
    x = ops.convert_to_tensor(x)
    return op("sqrt")(op("maximum")(x, op("cast")(0.0, x.dtype.base_dtype)))


def pow(x: Any, a: Any) -> Any:  # noqa: A001
    """``tf.pow(x, a)``."""
    return op("pow")(x, a)


def _reduce(name: str, x: Any, axis: Any, keepdims: bool) -> Any:
    return op(name)(x, axis, keepdims=keepdims)


def max(x: Any, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A001
    """``tf.reduce_max(x, axis, keepdims)``."""
    return _reduce("reduce_max", x, axis, keepdims)


def min(x: Any, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A001
    """``tf.reduce_min(x, axis, keepdims)``."""
    return _reduce("reduce_min", x, axis, keepdims)


def prod(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """``tf.reduce_prod(x, axis, keepdims)``."""
    return _reduce("reduce_prod", x, axis, keepdims)


def var(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """``tf.math.reduce_variance`` (bool inputs cast to floatx first)."""
    x = ops.convert_to_tensor(x)
    if x.dtype.base_dtype == dtypes.bool:
        x = op("cast")(x, floatx())
    return op("math.reduce_variance")(x, axis=axis, keepdims=keepdims)


def std(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """``tf.math.reduce_std`` (bool inputs cast to floatx first)."""
    x = ops.convert_to_tensor(x)
    if x.dtype.base_dtype == dtypes.bool:
        x = op("cast")(x, floatx())
    return op("math.reduce_std")(x, axis=axis, keepdims=keepdims)


def any(x: Any, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A001
    """``tf.reduce_any(tf.cast(x, bool), axis, keepdims)``."""
    return op("reduce_any")(op("cast")(x, dtypes.bool), axis, keepdims=keepdims)


def all(x: Any, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A001
    """``tf.reduce_all(tf.cast(x, bool), axis, keepdims)``."""
    return op("reduce_all")(op("cast")(x, dtypes.bool), axis, keepdims=keepdims)


def argmax(x: Any, axis: int = -1) -> Any:
    """``tf.argmax(x, axis)`` (int64)."""
    return op("argmax")(x, axis)


def argmin(x: Any, axis: int = -1) -> Any:
    """``tf.argmin(x, axis)`` (int64)."""
    return op("argmin")(x, axis)


def _binary(name: str, doc: str) -> Callable[[Any, Any], Any]:
    def fn(x: Any, y: Any) -> Any:
        return op(name)(x, y)

    fn.__doc__ = doc
    return fn


maximum = _binary("maximum", "``tf.maximum(x, y)``.")
minimum = _binary("minimum", "``tf.minimum(x, y)``.")
equal = _binary("equal", "``tf.equal(x, y)``.")
not_equal = _binary("not_equal", "``tf.not_equal(x, y)``.")
greater = _binary("greater", "``tf.greater(x, y)``.")
greater_equal = _binary("greater_equal", "``tf.greater_equal(x, y)``.")
less = _binary("less", "``tf.less(x, y)``.")
less_equal = _binary("less_equal", "``tf.less_equal(x, y)``.")


def clip(x: Any, min_value: Any, max_value: Any) -> Any:
    """``tf.clip_by_value(x, min_value, max_value)``; a ``max_value`` below ``min_value``
    is raised to it, None bounds are infinite."""
    if isinstance(min_value, (int, float)) and isinstance(max_value, (int, float)):
        if max_value < min_value:
            max_value = min_value
    if min_value is None:
        min_value = -np.inf
    if max_value is None:
        max_value = np.inf
    return op("clip_by_value")(x, min_value, max_value)


# -- activations, shapes ----------------------------------------------------------------------
def relu(x: Any, alpha: float = 0.0, max_value: float | None = None, threshold: float = 0.0) -> Any:
    """``tf.keras.activations.relu``."""
    from adapters.v1.keras import activations

    return activations.relu(x, alpha=alpha, max_value=max_value, threshold=threshold)


def sigmoid(x: Any) -> Any:
    """``tf.sigmoid(x)``."""
    return op("sigmoid")(x)


def tanh(x: Any) -> Any:
    """``tf.tanh(x)``."""
    return op("tanh")(x)


def softmax(x: Any, axis: int = -1) -> Any:
    """``tf.nn.softmax(x, axis)``."""
    return op("nn.softmax")(x, axis=axis)


def softplus(x: Any) -> Any:
    """``tf.nn.softplus(x)``."""
    return op("nn.softplus")(x)


def l2_normalize(x: Any, axis: Any = None) -> Any:
    """``tf.linalg.l2_normalize(x, axis)``."""
    return op("nn.l2_normalize")(x, axis=axis)


def bias_add(x: Any, bias: Any, data_format: str | None = None) -> Any:
    """``tf.nn.bias_add`` of a 1-D bias (``channels_first`` adds on axis 1; None:
    ``image_data_format()``).

    Raises:
      ValueError: an unknown ``data_format``.
      NotImplementedError: a bias of rank > 1.
    """
    data_format = _data_format(data_format)
    bias = ops.convert_to_tensor(bias)
    if bias.shape.ndims != 1:
        raise NotImplementedError(
            "tf.keras.backend.bias_add: only 1-D biases in adapters.v1; "
            "add the bias with broadcasting"
        )
    fmt = "NCHW" if data_format == "channels_first" else "NHWC"
    return op("nn.bias_add")(x, bias, data_format=fmt)


def dot(x: Any, y: Any) -> Any:
    """The product over ``x``'s last and ``y``'s second-to-last axis (``tf.matmul`` for
    two matrices), as Keras' ``dot``."""
    x, y = ops.convert_to_tensor(x), ops.convert_to_tensor(y)
    if x.shape.ndims == 2 and y.shape.ndims == 2:
        return op("matmul")(x, y)
    if y.shape.ndims is None or x.shape.ndims is None:
        raise NotImplementedError("tf.keras.backend.dot needs the ranks known in adapters.v1")
    return op("tensordot")(x, y, [[x.shape.ndims - 1], [y.shape.ndims - 2]])


def reshape(x: Any, shape: Any) -> Any:
    """``tf.reshape(x, shape)``."""
    return op("reshape")(x, shape)


def batch_flatten(x: Any) -> Any:
    """``x`` as ``[batch, -1]``."""
    dims = x.shape.as_list()
    if builtins.all(d is not None for d in dims[1:]):
        return op("reshape")(x, [-1, int(np.prod(dims[1:]))])
    return op("reshape")(x, op("stack")([-1, op("reduce_prod")(op("shape")(x)[1:])]))


def expand_dims(x: Any, axis: int = -1) -> Any:
    """``tf.expand_dims(x, axis)``."""
    return op("expand_dims")(x, axis)


def squeeze(x: Any, axis: int) -> Any:
    """``tf.squeeze(x, [axis])``."""
    return op("squeeze")(x, [axis])


def stack(x: list[Any], axis: int = 0) -> Any:
    """``tf.stack(x, axis)``."""
    return op("stack")(list(x), axis=axis)


def permute_dimensions(x: Any, pattern: Any) -> Any:
    """``tf.transpose(x, pattern)``."""
    return op("transpose")(x, list(pattern))


def one_hot(indices: Any, num_classes: int) -> Any:
    """``tf.one_hot(indices, num_classes, axis=-1)``."""
    return op("one_hot")(indices, depth=num_classes, axis=-1)


def gather(reference: Any, indices: Any) -> Any:
    """``tf.gather(reference, indices)``."""
    return op("gather")(reference, indices)


def zeros_like(x: Any, dtype: Any = None, name: str | None = None) -> Any:
    """``tf.zeros_like(x, dtype)``."""
    return op("zeros_like")(x, dtype=dtype, name=name)


def ones_like(x: Any, dtype: Any = None, name: str | None = None) -> Any:
    """``tf.ones_like(x, dtype)``."""
    return op("ones_like")(x, dtype=dtype, name=name)


def zeros(shape: Any, dtype: Any = None, name: str | None = None) -> Any:
    """A variable of zeros, initialized from ``tf.zeros(shape, dtype, name)`` (so the
    variable is ``<name>_1``, as Keras')."""
    dtype = dtype or floatx()
    return variable(op("zeros")(tuple(shape), dtype=dtype, name=name), dtype, name)


def ones(shape: Any, dtype: Any = None, name: str | None = None) -> Any:
    """A variable of ones, initialized from ``tf.ones(shape, dtype, name)``."""
    dtype = dtype or floatx()
    return variable(op("ones")(tuple(shape), dtype=dtype, name=name), dtype, name)


def stop_gradient(variables: Any) -> Any:
    """``tf.stop_gradient`` of a tensor or of each tensor of a list."""
    if isinstance(variables, (list, tuple)):
        return [op("stop_gradient")(v) for v in variables]
    return op("stop_gradient")(variables)


def gradients(loss: Any, variables: Any) -> Any:
    """``tf.gradients(loss, variables)``."""
    from adapters.v1.ops.gradients_impl import gradients as tf_gradients

    return tf_gradients(loss, variables)


def switch(condition: Any, then_expression: Any, else_expression: Any) -> Any:
    """``then_expression`` where ``condition`` holds, else ``else_expression`` (callables
    are called); a condition of rank > 1 and lower than theirs gets trailing axes, as
    Keras'.

    Raises:
      ValueError: a condition of higher rank than the expressions.
    """
    if callable(then_expression):
        then_expression = then_expression()
    if callable(else_expression):
        else_expression = else_expression()
    if isinstance(condition, (bool, int)):
        return then_expression if condition else else_expression
    condition = op("cast")(condition, dtypes.bool)
    then_expression = ops.convert_to_tensor(then_expression)
    c_rank, e_rank = condition.shape.ndims, then_expression.shape.ndims
    if c_rank is not None and e_rank is not None and c_rank > e_rank:
        raise ValueError(
            "Rank of `condition` should be less than or equal to rank of `then_expression` "
            f"and `else_expression`. ndim(condition)={c_rank}, ndim(then_expression)={e_rank}"
        )
    if c_rank is not None and e_rank is not None and 1 < c_rank < e_rank:
        # Keras: trailing unit axes, then broadcast (a rank-1 condition broadcasts as
        # tf.where's, from the last axis)
        condition = op("reshape")(
            condition, op("concat")([op("shape")(condition), [1] * (e_rank - c_rank)], 0)
        )
        condition = op("logical_and")(
            condition, op("ones_like")(then_expression, dtype=dtypes.bool)
        )
    return op("where_v2")(condition, then_expression, else_expression)


def in_train_phase(x: Any, alt: Any, training: Any = None) -> Any:
    """``x`` in the training phase, ``alt`` otherwise (``training`` None: the learning
    phase)."""
    if training is None:
        training = learning_phase()
    if training is True or (isinstance(training, int) and training == 1):
        return x() if callable(x) else x
    if training is False or (isinstance(training, int) and training == 0):
        return alt() if callable(alt) else alt
    return switch(training, x, alt)


def in_test_phase(x: Any, alt: Any, training: Any = None) -> Any:
    """``in_train_phase(alt, x, training)``."""
    return in_train_phase(alt, x, training=training)


# -- losses on tensors ---------------------------------------------------------------------
def categorical_crossentropy(
    target: Any, output: Any, from_logits: bool = False, axis: int = -1
) -> Any:
    """Keras' backend ``categorical_crossentropy`` (see ``tf.keras.losses``)."""
    from adapters.v1.keras import losses

    return losses._categorical(
        ops.convert_to_tensor(target), ops.convert_to_tensor(output), from_logits, axis
    )


def sparse_categorical_crossentropy(
    target: Any, output: Any, from_logits: bool = False, axis: int = -1
) -> Any:
    """Keras' backend ``sparse_categorical_crossentropy`` (see ``tf.keras.losses``)."""
    from adapters.v1.keras import losses

    return losses.sparse_categorical_crossentropy(target, output, from_logits, axis)


def binary_crossentropy(target: Any, output: Any, from_logits: bool = False) -> Any:
    """Keras' backend ``binary_crossentropy``: element-wise, not averaged."""
    from adapters.v1.keras import losses

    return losses._binary(ops.convert_to_tensor(target), ops.convert_to_tensor(output), from_logits)


# -- variables and sessions -------------------------------------------------------------------
def dtype(x: Any) -> str:
    """``x``'s dtype name (``"float32"``)."""
    return x.dtype.base_dtype.name


def count_params(x: Any) -> int:
    """The number of scalars in ``x``."""
    return int(np.prod(x.shape.as_list()))


def eval(x: Any) -> Any:  # noqa: A001
    """``x``'s value in Keras' session."""
    return get_value(x)


def batch_get_value(tensors: list[Any]) -> list[Any]:
    """The values of ``tensors`` in Keras' session."""
    return list(get_session().run(list(tensors))) if tensors else []


def batch_set_value(tuples: list[tuple[Any, Any]]) -> None:
    """Loads each ``(variable, value)`` in Keras' session."""
    values = [(x, _variable_value(x, value)) for x, value in tuples]
    session = get_session()
    for x, value in values:
        x.load(value, session)


def update(x: Any, new_x: Any) -> Any:
    """``tf.assign(x, new_x)``."""
    return x.assign(new_x)


def update_add(x: Any, increment: Any) -> Any:
    """``tf.assign_add(x, increment)``."""
    return x.assign_add(increment)


def update_sub(x: Any, decrement: Any) -> Any:
    """``tf.assign_sub(x, decrement)``."""
    return x.assign_sub(decrement)


def is_keras_tensor(x: Any) -> bool:
    """Whether ``x`` was made by a Keras layer called on Keras tensors (or ``Input``).

    Raises:
      ValueError: ``x`` is not a tensor.
    """
    if not isinstance(x, (ops.Tensor, tf_variables.Variable)):
        raise ValueError(
            f"Unexpectedly found an instance of type `{type(x)}`. Expected a "
            "symbolic tensor instance."
        )
    return id(x) in x.graph.__dict__.get("_keras_history", {})


def name_scope(name: str) -> Any:
    """``tf.name_scope(name)``."""
    return ops.name_scope(name)


def function(
    inputs: list[Any], outputs: Any, updates: Any = None, name: str | None = None, **kwargs: Any
) -> Callable[[list[Any]], Any]:
    """A callable feeding ``inputs`` and running ``outputs`` (and ``updates``) in Keras'
    session, as Keras' graph-mode ``function``.

    Raises:
      ValueError: unknown keyword arguments.
    """
    if kwargs:
        raise ValueError(
            f"Invalid argument {sorted(kwargs)} passed to K.function with TensorFlow backend"
        )
    inputs = list(inputs)
    single = not isinstance(outputs, (list, tuple))
    fetches = [outputs] if single else list(outputs)
    extra = list(updates or [])

    def call(values: list[Any]) -> Any:
        if len(values) != len(inputs):
            raise ValueError(f"Expected {len(inputs)} inputs, got {len(values)}")
        result = get_session().run([fetches, extra], dict(zip(inputs, values, strict=True)))[0]
        return result[0] if single else list(result)

    return call


# -- more of TF's ops under Keras' names ---------------------------------------------------
def _tf() -> Any:
    from adapters import v1

    return v1


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = "int32") -> Any:
    """``tf.range(start, stop, step, name="arange")``, cast to ``dtype`` unless int32
    (a negative ``start`` with no ``stop`` is an empty range, as NumPy's)."""
    if stop is None and start < 0:
        start = 0
    result = op("range")(start, limit=stop, delta=step, name="arange")
    if dtype != "int32":
        result = cast(result, dtype)
    return result


def eye(size: Any, dtype: Any = None, name: str | None = None) -> Any:
    """A variable holding the identity matrix ``tf.eye(size, dtype or floatx())``."""
    if dtype is None:
        dtype = floatx()
    return variable(op("eye")(size, dtype=dtypes.as_dtype(dtype)), dtype, name)


def cumsum(x: Any, axis: int = 0) -> Any:
    """``tf.cumsum(x, axis)``."""
    return op("cumsum")(x, axis=axis)


def cumprod(x: Any, axis: int = 0) -> Any:
    """``tf.math.cumprod(x, axis)``."""
    return op("cumprod")(x, axis=axis)


def tile(x: Any, n: Any) -> Any:
    """``tf.tile(x, n)`` (an int ``n`` is ``[n]``)."""
    if isinstance(n, int):
        n = [n]
    return op("tile")(x, n)


def repeat(x: Any, n: Any) -> Any:
    """A 2-D ``x`` of ``[samples, dim]`` repeated ``n`` times: ``[samples, n, dim]``.

    Raises:
      AssertionError: ``x`` is not 2-D.
    """
    if ndim(x) != 2:
        raise AssertionError
    x = op("expand_dims")(x, 1)
    return op("tile")(x, op("stack")([1, n, 1]))


def repeat_elements(x: Any, rep: int, axis: int) -> Any:
    """Each slice of ``x`` along ``axis`` repeated ``rep`` times, as ``np.repeat``."""
    static = x.shape.as_list()
    if static[axis] is not None:
        splits = op("split")(x, static[axis], axis=axis)
        return concatenate([s for s in splits for _ in range(rep)], axis)
    # an unknown length: tile on a new axis after ``axis``, then merge the two
    aux = axis + 1
    dynamic = op("shape")(x)
    reps = np.ones(len(static) + 1)
    reps[aux] = rep
    x_rep = op("tile")(op("expand_dims")(x, axis=aux), reps)
    reps = np.delete(reps, aux)
    reps[axis] = rep
    x_rep = op("reshape")(x_rep, dynamic * op("cast")(reps, dtypes.int32))
    x_rep.set_shape(static)
    return x_rep


def reverse(x: Any, axes: Any) -> Any:
    """``tf.reverse(x, axes)`` (an int ``axes`` is ``[axes]``)."""
    if isinstance(axes, int):
        axes = [axes]
    return op("reverse")(x, axes)


def softsign(x: Any) -> Any:
    """``tf.math.softsign(x)``."""
    return op("nn.softsign")(x)


def hard_sigmoid(x: Any) -> Any:
    """``clip(0.2 * x + 0.5, 0, 1)``."""
    x = ops.convert_to_tensor(x)
    kind = x.dtype.base_dtype
    x = op("multiply")(x, op("cast")(0.2, kind))
    x = op("add")(x, op("cast")(0.5, kind))
    return op("clip_by_value")(x, 0.0, 1.0)


def elu(x: Any, alpha: float = 1.0) -> Any:
    """``tf.nn.elu(x)``, its negative part scaled by ``alpha``."""
    res = op("nn.elu")(x)
    if alpha == 1:
        return res
    return op("where_v2")(op("greater")(x, 0), res, alpha * res)


def in_top_k(predictions: Any, targets: Any, k: int) -> Any:
    """``tf.compat.v1.math.in_top_k(predictions, targets, k)``."""
    return op("math.in_top_k")(predictions, targets, k)


def is_sparse(tensor: Any) -> bool:
    """Whether ``tensor`` is a ``tf.SparseTensor``."""
    return isinstance(tensor, _tf().SparseTensor)


def to_dense(tensor: Any) -> Any:
    """``tf.sparse.to_dense`` of a sparse tensor, any other ``tensor`` as it is."""
    if is_sparse(tensor):
        return _tf().sparse.to_dense(tensor)
    return tensor


def _check_pairs(padding: Any, count: int) -> None:
    if len(padding) != count or builtins.any(len(p) != 2 for p in padding):
        raise AssertionError


def _data_format(data_format: str | None) -> str:
    data_format = data_format or image_data_format()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError("Unknown data_format: " + str(data_format))
    return data_format


def temporal_padding(x: Any, padding: Any = (1, 1)) -> Any:
    """Zeros padded on the middle axis of a 3-D ``x`` (``padding``: before, after)."""
    if len(padding) != 2:
        raise AssertionError
    return op("pad")(x, [[0, 0], [padding[0], padding[1]], [0, 0]])


def spatial_2d_padding(
    x: Any, padding: Any = ((1, 1), (1, 1)), data_format: str | None = None
) -> Any:
    """Zeros padded on the two spatial axes of a 4-D ``x``.

    Raises:
      ValueError: an unknown ``data_format``.
    """
    _check_pairs(padding, 2)
    spatial = [list(p) for p in padding]
    if _data_format(data_format) == "channels_first":
        return op("pad")(x, [[0, 0], [0, 0], *spatial])
    return op("pad")(x, [[0, 0], *spatial, [0, 0]])


def spatial_3d_padding(
    x: Any, padding: Any = ((1, 1), (1, 1), (1, 1)), data_format: str | None = None
) -> Any:
    """Zeros padded on the three spatial axes of a 5-D ``x``.

    Raises:
      ValueError: an unknown ``data_format``.
    """
    _check_pairs(padding, 3)
    spatial = [[p[0], p[1]] for p in padding]
    if _data_format(data_format) == "channels_first":
        return op("pad")(x, [[0, 0], [0, 0], *spatial])
    return op("pad")(x, [[0, 0], *spatial, [0, 0]])


def batch_dot(x: Any, y: Any, axes: Any = None) -> Any:
    """The dot product of each batch entry of ``x`` and ``y`` over ``axes`` (default:
    ``x``'s last axis and ``y``'s second-to-last, or last if 2-D), as Keras'.

    Raises:
      ValueError: a rank below 2, different batch sizes, list axes, axis 0, or
        axes of different sizes (TF's messages).
    """
    x_shape: Any = int_shape(x)
    y_shape: Any = int_shape(y)
    x_ndim, y_ndim = len(x_shape), len(y_shape)
    if x_ndim < 2 or y_ndim < 2:
        raise ValueError(
            "Cannot do batch_dot on inputs with rank < 2. "
            f"Received inputs with shapes {x_shape} and {y_shape}."
        )
    if x_shape[0] is not None and y_shape[0] is not None and x_shape[0] != y_shape[0]:
        raise ValueError(
            "Cannot do batch_dot on inputs with different batch sizes. "
            f"Received inputs with shapes {x_shape} and {y_shape}."
        )
    if isinstance(axes, int):
        axes = [axes, axes]
    if axes is None:
        axes = [x_ndim - 1, y_ndim - 1] if y_ndim == 2 else [x_ndim - 1, y_ndim - 2]
    if builtins.any(isinstance(a, (list, tuple)) for a in axes):
        raise ValueError(
            "Multiple target dimensions are not supported. "
            f"Expected: None, int, (int, int), Provided: {axes}"
        )
    axes = list(axes)
    if axes[0] < 0:
        axes[0] += x_ndim
    if axes[1] < 0:
        axes[1] += y_ndim
    if 0 in axes:
        raise ValueError(
            "Cannot perform batch_dot over axis 0. If your inputs are not batched, "
            "add a dummy batch dimension to your inputs using K.expand_dims(x, 0)"
        )
    a0, a1 = axes
    d1, d2 = x_shape[a0], y_shape[a1]
    if d1 is not None and d2 is not None and d1 != d2:
        raise ValueError(
            f"Cannot do batch_dot on inputs with shapes {x_shape} and {y_shape} with "
            f"axes={axes}. x.shape[{axes[0]}] != y.shape[{axes[1]}] ({d1} != {d2})."
        )
    orig_x_ndim, orig_y_ndim = x_ndim, y_ndim
    if x_ndim == 2:
        x = op("expand_dims")(x, 1)
        a0 += 1
        x_ndim += 1
    if y_ndim == 2:
        y = op("expand_dims")(y, 2)
        y_ndim += 1
    if a0 != x_ndim - 1:  # x's contracted axis last
        pattern = list(range(x_ndim))
        pattern[a0:-1] = pattern[a0 + 1 :]
        pattern[-1] = a0
        x = op("transpose")(x, pattern)
    if a1 != 1:  # y's contracted axis second
        pattern = list(range(y_ndim))
        pattern[2 : a1 + 1] = pattern[1:a1]
        pattern[1] = a1
        y = op("transpose")(y, pattern)
    x_mid = y_trail = None
    if x_ndim > 3:
        xs = shape(x)
        x_mid = xs[1:-1]
        x = op("reshape")(x, op("stack")([xs[0], -1, xs[-1]]))
    if y_ndim > 3:
        ys = shape(y)
        y_trail = ys[2:]
        y = op("reshape")(y, op("stack")([ys[0], ys[1], -1]))
    result = op("matmul")(x, y)
    if x_mid is not None or y_trail is not None:
        out_shape = op("shape")(result)
        if x_mid is not None:
            out_shape = op("concat")([out_shape[:1], x_mid, out_shape[-1:]], 0)
        if y_trail is not None:
            out_shape = op("concat")([out_shape[:-1], y_trail], 0)
        result = op("reshape")(result, out_shape)
    if orig_x_ndim == 2:
        result = op("squeeze")(result, [1])
    elif orig_y_ndim == 2:
        result = op("squeeze")(result, [-1])
    return result


def resize_images(
    x: Any,
    height_factor: int,
    width_factor: int,
    data_format: str,
    interpolation: str = "nearest",
) -> Any:
    """The rows and columns of a 4-D ``x`` scaled up by integer factors with TF 2's
    ``tf.image.resize`` (half-pixel centers).

    Args:
      data_format: ``"channels_first"`` or ``"channels_last"``.
      interpolation: ``"nearest"`` (default), ``"bilinear"``, ``"bicubic"`` or
        ``"area"``; TF's ``"gaussian"``, ``"lanczos3"``, ``"lanczos5"`` and
        ``"mitchellcubic"`` are not in adapters.v1 (NotImplementedError).

    Raises:
      ValueError: an unknown ``data_format`` or ``interpolation`` (TF's messages).
    """
    if data_format == "channels_first":
        rows, cols = 2, 3
    elif data_format == "channels_last":
        rows, cols = 1, 2
    else:
        raise ValueError(f"Invalid `data_format` argument: {data_format}")
    static = x.shape[rows : cols + 1]
    if static.is_fully_defined():
        size = np.asarray(static.as_list(), np.int32)
    else:
        size = op("shape")(x)[rows : cols + 1]
    size = size * np.array([height_factor, width_factor], np.int32)
    if data_format == "channels_first":
        x = permute_dimensions(x, [0, 2, 3, 1])
    methods = (
        "area",
        "bicubic",
        "bilinear",
        "gaussian",
        "lanczos3",
        "lanczos5",
        "mitchellcubic",
        "nearest",
    )
    if interpolation not in methods:
        names = '"' + '", "'.join(methods) + '"'
        raise ValueError(
            f'`interpolation` argument should be one of: {names}. Received: "{interpolation}".'
        )
    if interpolation == "nearest":
        x = op("image.resize_nearest_neighbor")(x, size, half_pixel_centers=True)
    elif interpolation == "bilinear":
        x = op("image.resize_bilinear")(x, size, half_pixel_centers=True)
    elif interpolation == "bicubic":
        x = op("image.resize_bicubic")(x, size, half_pixel_centers=True)
    elif interpolation == "area":
        x = op("image.resize_area")(x, size)
    else:
        raise NotImplementedError(
            f"tf.keras.backend.resize_images: interpolation={interpolation!r} "
            "(TF's ScaleAndTranslate) is not in adapters.v1"
        )
    if data_format == "channels_first":
        x = permute_dimensions(x, [0, 3, 1, 2])
    return x


def resize_volumes(
    x: Any, depth_factor: int, height_factor: int, width_factor: int, data_format: str
) -> Any:
    """The three spatial axes of a 5-D ``x`` repeated by integer factors.

    Raises:
      ValueError: an unknown ``data_format``.
    """
    if data_format == "channels_first":
        first = 2
    elif data_format == "channels_last":
        first = 1
    else:
        raise ValueError("Invalid data_format: " + str(data_format))
    out = repeat_elements(x, depth_factor, axis=first)
    out = repeat_elements(out, height_factor, axis=first + 1)
    return repeat_elements(out, width_factor, axis=first + 2)


def map_fn(fn: Callable[..., Any], elems: Any, name: str | None = None, dtype: Any = None) -> Any:
    """``tf.compat.v1.map_fn(fn, elems, name=name, dtype=dtype)``."""
    return _tf().map_fn(fn, elems, name=name, dtype=dtype)


def foldl(
    fn: Callable[..., Any], elems: Any, initializer: Any = None, name: str | None = None
) -> Any:
    """``tf.compat.v1.foldl(fn, elems, initializer, name)``."""
    return _tf().foldl(fn, elems, initializer=initializer, name=name)


def foldr(
    fn: Callable[..., Any], elems: Any, initializer: Any = None, name: str | None = None
) -> Any:
    """``tf.compat.v1.foldr(fn, elems, initializer, name)``."""
    return _tf().foldr(fn, elems, initializer=initializer, name=name)


def print_tensor(x: Any, message: str = "", summarize: int = 3) -> Any:
    """``x`` through an identity that prints ``message`` and ``x`` to stdout when run
    (``tf.print``); a value that is not a tensor is printed now and returned."""
    tf = _tf()
    if isinstance(x, ops.Tensor):
        with x.graph.as_default():
            printed = tf.print(message, x, output_stream=sys.stdout, summarize=summarize)
            with tf.control_dependencies([printed]):
                return tf.identity(x)
    tf.print(message, x, output_stream=sys.stdout, summarize=summarize)
    return x


# -- convolutions, pooling, batch normalization ---------------------------------------------
# TF's ``_has_nchw_support()`` is False on a machine without GPUs (TF's CPU kernels lack
# most NCHW forms): ``channels_first`` inputs are transposed to channels-last, the op
# runs there and its output is transposed back. These functions do the same everywhere.
def _padding(padding: str) -> str:
    if padding == "same":
        return "SAME"
    if padding == "valid":
        return "VALID"
    raise ValueError("Invalid padding: " + str(padding))


def _to_last(x: Any, first: bool, rank: int) -> Any:
    """A channels-first ``x`` of ``rank`` transposed to channels-last."""
    if not first:
        return x
    return op("transpose")(x, [0, *range(2, rank), 1])


def _to_first(x: Any, first: bool, rank: int) -> Any:
    """A channels-last result transposed back to channels-first."""
    if not first:
        return x
    return op("transpose")(x, [0, rank - 1, *range(1, rank - 1)])


def conv1d(
    x: Any,
    kernel: Any,
    strides: int = 1,
    padding: str = "valid",
    data_format: str | None = None,
    dilation_rate: int = 1,
) -> Any:
    """1-D convolution of ``x`` with ``kernel`` (``padding``: ``"valid"``, ``"same"`` or
    ``"causal"``: zeros on the left).

    Raises:
      ValueError: an unknown ``data_format`` or ``padding``.
    """
    first = _data_format(data_format) == "channels_first"
    if padding == "causal":
        left = dilation_rate * (kernel.shape.as_list()[0] - 1)
        x = temporal_padding(x, (left, 0))
        padding = "valid"
    return _convolution(x, kernel, strides, padding, first, dilation_rate, "NWC")


def _convolution(
    x: Any, kernel: Any, strides: Any, padding: str, first: bool, rates: Any, layout: str
) -> Any:
    """``tf.nn.convolution`` in the channels-last ``layout``, a channels-first ``x``
    transposed to it and back, as Keras' backend does on CPU."""
    rank = len(layout)
    x = _to_last(x, first, rank)
    x = op("nn.convolution")(
        input=x,
        filter=kernel,
        dilation_rate=rates,
        strides=strides,
        padding=_padding(padding),
        data_format=layout,
    )
    return _to_first(x, first, rank)


def conv2d(
    x: Any,
    kernel: Any,
    strides: Any = (1, 1),
    padding: str = "valid",
    data_format: str | None = None,
    dilation_rate: Any = (1, 1),
) -> Any:
    """2-D convolution of ``x`` with ``kernel`` (``[rows, cols, in, out]``).

    Raises:
      ValueError: an unknown ``data_format`` or ``padding``.
    """
    first = _data_format(data_format) == "channels_first"
    return _convolution(x, kernel, strides, padding, first, dilation_rate, "NHWC")


def conv2d_transpose(
    x: Any,
    kernel: Any,
    output_shape: Any,
    strides: Any = (1, 1),
    padding: str = "valid",
    data_format: str | None = None,
    dilation_rate: Any = (1, 1),
) -> Any:
    """Transposed 2-D convolution of ``x`` to ``output_shape`` (a ``None`` batch size:
    ``x``'s); a dilation rate uses ``tf.nn.atrous_conv2d_transpose``.

    Raises:
      ValueError: an unknown ``data_format`` or ``padding``, unequal dilation rates.
    """
    first = _data_format(data_format) == "channels_first"
    x = _to_last(x, first, 4)
    if first:
        output_shape = (output_shape[0], output_shape[2], output_shape[3], output_shape[1])
    if output_shape[0] is None:
        output_shape = (shape(x)[0], *tuple(output_shape[1:]))
    if isinstance(output_shape, (tuple, list)):
        output_shape = op("stack")(list(output_shape))
    padding = _padding(padding)
    if dilation_rate == (1, 1):
        x = op("nn.conv2d_transpose")(
            x, kernel, output_shape, (1, *strides, 1), padding=padding, data_format="NHWC"
        )
    else:
        if dilation_rate[0] != dilation_rate[1]:
            raise ValueError(
                "Expected the 2 dimensions of the `dilation_rate` argument "
                "to be equal to each other. "
                f"Received: dilation_rate={dilation_rate}"
            )
        x = op("nn.atrous_conv2d_transpose")(
            x, kernel, output_shape, rate=dilation_rate[0], padding=padding
        )
    return _to_first(x, first, 4)


def separable_conv2d(
    x: Any,
    depthwise_kernel: Any,
    pointwise_kernel: Any,
    strides: Any = (1, 1),
    padding: str = "valid",
    data_format: str | None = None,
    dilation_rate: Any = (1, 1),
) -> Any:
    """``tf.nn.separable_conv2d``: a depthwise then a pointwise convolution.

    Raises:
      ValueError: an unknown ``data_format`` or ``padding``, ``strides`` not 2 ints.
    """
    first = _data_format(data_format) == "channels_first"
    if len(strides) != 2:
        raise ValueError("`strides` must be a tuple of 2 integers.")
    x = _to_last(x, first, 4)
    x = op("nn.separable_conv2d")(
        x,
        depthwise_kernel,
        pointwise_kernel,
        strides=(1, *tuple(strides), 1),
        padding=_padding(padding),
        dilations=dilation_rate,
        data_format="NHWC",
    )
    return _to_first(x, first, 4)


def depthwise_conv2d(
    x: Any,
    depthwise_kernel: Any,
    strides: Any = (1, 1),
    padding: str = "valid",
    data_format: str | None = None,
    dilation_rate: Any = (1, 1),
) -> Any:
    """``tf.nn.depthwise_conv2d`` of ``x``.

    Raises:
      ValueError: an unknown ``data_format`` or ``padding``.
    """
    first = _data_format(data_format) == "channels_first"
    x = _to_last(x, first, 4)
    x = op("nn.depthwise_conv2d")(
        x,
        depthwise_kernel,
        strides=(1, *strides, 1),
        padding=_padding(padding),
        dilations=dilation_rate,
        data_format="NHWC",
    )
    return _to_first(x, first, 4)


def conv3d(
    x: Any,
    kernel: Any,
    strides: Any = (1, 1, 1),
    padding: str = "valid",
    data_format: str | None = None,
    dilation_rate: Any = (1, 1, 1),
) -> Any:
    """3-D convolution of ``x`` with ``kernel``.

    Raises:
      ValueError: an unknown ``data_format`` or ``padding``.
    """
    first = _data_format(data_format) == "channels_first"
    return _convolution(x, kernel, strides, padding, first, dilation_rate, "NDHWC")


def pool2d(
    x: Any,
    pool_size: Any,
    strides: Any = (1, 1),
    padding: str = "valid",
    data_format: str | None = None,
    pool_mode: str = "max",
) -> Any:
    """2-D max (``pool_mode="max"``) or average (``"avg"``) pooling.

    Raises:
      ValueError: an unknown ``data_format``, ``padding`` or ``pool_mode``, sizes or
        strides not 2 ints.
    """
    first = _data_format(data_format) == "channels_first"
    if len(pool_size) != 2:
        raise ValueError("`pool_size` must be a tuple of 2 integers.")
    if len(strides) != 2:
        raise ValueError("`strides` must be a tuple of 2 integers.")
    x = _to_last(x, first, 4)
    padding = _padding(padding)
    ksize, steps = (1, *pool_size, 1), (1, *strides, 1)
    if pool_mode == "max":
        x = op("nn.max_pool")(x, ksize, steps, padding=padding, data_format="NHWC")
    elif pool_mode == "avg":
        x = op("nn.avg_pool")(x, ksize, steps, padding=padding, data_format="NHWC")
    else:
        raise ValueError("Invalid pooling mode: " + str(pool_mode))
    return _to_first(x, first, 4)


def pool3d(
    x: Any,
    pool_size: Any,
    strides: Any = (1, 1, 1),
    padding: str = "valid",
    data_format: str | None = None,
    pool_mode: str = "max",
) -> Any:
    """3-D max (``pool_mode="max"``) or average (``"avg"``) pooling.

    Raises:
      ValueError: an unknown ``data_format``, ``padding`` or ``pool_mode``.
    """
    first = _data_format(data_format) == "channels_first"
    x = _to_last(x, first, 5)
    padding = _padding(padding)
    ksize, steps = (1, *pool_size, 1), (1, *strides, 1)
    if pool_mode == "max":
        x = op("nn.max_pool3d")(x, ksize, steps, padding=padding, data_format="NDHWC")
    elif pool_mode == "avg":
        x = op("nn.avg_pool3d")(x, ksize, steps, padding=padding, data_format="NDHWC")
    else:
        raise ValueError("Invalid pooling mode: " + str(pool_mode))
    return _to_first(x, first, 5)


def _broadcast_normalize(x: Any, gamma: Any, beta: Any, axes: Any, epsilon: float) -> Any:
    mean, var = op("nn.moments")(x, axes, None, None, False)
    target = op("stack")(
        [1 if axis in axes else op("shape")(x)[axis] for axis in range(x.shape.ndims)]
    )

    def spread(t: Any) -> Any:
        return None if t is None else op("reshape")(t, target)

    normed = op("nn.batch_normalization")(
        x, spread(mean), spread(var), spread(beta), spread(gamma), epsilon
    )
    return normed, mean, var


def normalize_batch_in_training(
    x: Any, gamma: Any, beta: Any, reduction_axes: Any, epsilon: float = 1e-3
) -> tuple[Any, Any, Any]:
    """``(normalized x, mean, variance)`` over ``reduction_axes`` (a 4-D ``x``
    normalized per channel of axis 3 goes through ``tf.nn.fused_batch_norm``, whose
    variance is the unbiased one, as TF's)."""
    axes = list(reduction_axes)
    rank = ndim(x)
    if rank == 4 and axes == [0, 1, 2]:
        channels = x.shape[3]
        if gamma is None:
            gamma = op("fill")([channels], op("cast")(1.0, x.dtype.base_dtype))
        if beta is None:
            beta = op("fill")([channels], op("cast")(0.0, x.dtype.base_dtype))
        return tuple(op("nn.fused_batch_norm")(x, gamma, beta, epsilon=epsilon))
    if rank != 4 or axes != [0, 2, 3]:
        if sorted(axes) == list(range(rank))[:-1]:
            mean, var = op("nn.moments")(x, axes, None, None, False)
            normed = op("nn.batch_normalization")(x, mean, var, beta, gamma, epsilon)
            return normed, mean, var
    return _broadcast_normalize(x, gamma, beta, axes, epsilon)


def batch_normalization(
    x: Any, mean: Any, var: Any, beta: Any, gamma: Any, axis: int = -1, epsilon: float = 1e-3
) -> Any:
    """``(x - mean) / sqrt(var + epsilon) * gamma + beta``: a 4-D ``x`` through
    ``tf.nn.fused_batch_norm`` (inference), any other through
    ``tf.nn.batch_normalization``."""
    if ndim(x) != 4:
        return op("nn.batch_normalization")(x, mean, var, beta, gamma, epsilon)
    if axis in (3, -1):
        fmt: str | None = "NHWC"
        mean = op("reshape")(mean, [-1]) if ndim(mean) > 1 else mean
        var = op("reshape")(var, [-1]) if ndim(var) > 1 else var
        if beta is None:
            beta = zeros_like(mean)
        elif ndim(beta) > 1:
            beta = op("reshape")(beta, [-1])
        if gamma is None:
            gamma = ones_like(mean)
        elif ndim(gamma) > 1:
            gamma = op("reshape")(gamma, [-1])
    else:
        fmt = "NCHW" if axis in (1, -3) else None
    y, _, _ = op("nn.fused_batch_norm")(
        x,
        gamma,
        beta,
        epsilon=epsilon,
        mean=mean,
        variance=var,
        data_format=fmt,
        is_training=False,
    )
    return y


def moving_average_update(x: Any, value: Any, momentum: Any) -> Any:
    """TF1's ``assign_moving_average(x, value, momentum, zero_debias=True)``: ``x``
    becomes the zero-debiased moving average of the values (with ``decay = 1 -
    momentum``, a ``biased`` accumulator and a ``local_step`` counter created as
    ``get_variable``s in the variable scope named after ``x``).

    Returns:
      The assignment of ``x`` (its new value).
    """
    from adapters.v1.ops import init_ops
    from adapters.v1.ops import variable_scope as vs
    from adapters.v1.training.moving_averages import _unique_in_scope

    kind = x.dtype.base_dtype
    with ops.name_scope(None, "AssignMovingAvg", [x, value, momentum]):
        decay = ops.convert_to_tensor(1.0 - momentum, name="decay")
        if decay.dtype.base_dtype != kind:
            decay = op("cast")(decay, kind)
        with vs.variable_scope(x.name[: -len(":0")], values=[x, value, decay]):
            biased = vs.get_variable(
                _unique_in_scope("biased"),
                initializer=init_ops.zeros_initializer(),
                shape=x.shape,
                dtype=kind,
                trainable=False,
            )
            local_step = vs.get_variable(
                _unique_in_scope("local_step"),
                shape=[],
                dtype=kind,
                initializer=init_ops.zeros_initializer(),
                trainable=False,
            )
        update_biased = biased.assign_sub((biased - value) * decay)
        update_step = local_step.assign_add(1)
        bias_factor = 1 - op("pow")(1.0 - decay, update_step)
        return x.assign(update_biased / bias_factor)


def _local_conv(
    inputs: Any,
    kernel: Any,
    kernel_size: Any,
    strides: Any,
    output_shape: tuple[int, ...],
    data_format: str | None,
) -> Any:
    """Keras' ``local_conv``: each output position's patch flattened, a batch of
    patches times its own kernel slice (``batch_dot``)."""
    first = _data_format(data_format) == "channels_first"
    kernel_shape: Any = int_shape(kernel)
    feature_dim, channels_out = kernel_shape[1], kernel_shape[-1]
    ndims = len(output_shape)
    patches = []
    for position in itertools.product(*(range(n) for n in output_shape)):
        window = [
            slice(position[d] * strides[d], position[d] * strides[d] + kernel_size[d])
            for d in range(ndims)
        ]
        index = (
            (slice(None), slice(None), *window) if first else (slice(None), *window, slice(None))
        )
        patches.append(reshape(inputs[index], (1, -1, feature_dim)))
    output = batch_dot(concatenate(patches, axis=0), kernel)
    output = reshape(output, (*output_shape, -1, channels_out))
    spatial = list(range(ndims))
    if first:
        return permute_dimensions(output, [ndims, ndims + 1, *spatial])
    return permute_dimensions(output, [ndims, *spatial, ndims + 1])


def local_conv1d(
    inputs: Any, kernel: Any, kernel_size: Any, strides: Any, data_format: str | None = None
) -> Any:
    """1-D convolution with weights not shared: ``kernel`` is ``[output_length,
    kernel_size * input_dim, filters]``.

    Raises:
      ValueError: an unknown ``data_format``.
    """
    output_shape = (int(kernel.shape.as_list()[0]),)
    return _local_conv(inputs, kernel, kernel_size, strides, output_shape, data_format)


def local_conv2d(
    inputs: Any,
    kernel: Any,
    kernel_size: Any,
    strides: Any,
    output_shape: Any,
    data_format: str | None = None,
) -> Any:
    """2-D convolution with weights not shared: ``kernel`` is ``[rows * cols,
    kernel rows * kernel cols * input channels, filters]``, ``output_shape`` the
    output's ``(rows, cols)``.

    Raises:
      ValueError: an unknown ``data_format``.
    """
    return _local_conv(inputs, kernel, kernel_size, strides, tuple(output_shape), data_format)


# -- more losses on tensors -----------------------------------------------------------------
def binary_focal_crossentropy(
    target: Any,
    output: Any,
    apply_class_balancing: bool = False,
    alpha: float = 0.25,
    gamma: float = 2.0,
    from_logits: bool = False,
) -> Any:
    """``binary_crossentropy`` scaled by ``(1 - p_t) ** gamma`` (and by ``alpha`` for
    the positives, ``1 - alpha`` for the negatives with ``apply_class_balancing``)."""
    sigmoidal = sigmoid(output) if from_logits else output
    p_t = target * sigmoidal + (1 - target) * (1 - sigmoidal)
    focal = op("pow")(1.0 - p_t, gamma) * binary_crossentropy(target, output, from_logits)
    if apply_class_balancing:
        focal = (target * alpha + (1 - target) * (1 - alpha)) * focal
    return focal


def categorical_focal_crossentropy(
    target: Any,
    output: Any,
    alpha: float = 0.25,
    gamma: float = 2.0,
    from_logits: bool = False,
    axis: int = -1,
) -> Any:
    """The categorical crossentropy of each class scaled by ``alpha * (1 - p) ** gamma``,
    summed over ``axis``.

    Raises:
      ValueError: ``target`` and ``output`` of incompatible shapes.
    """
    from adapters.v1.keras import losses

    target = ops.convert_to_tensor(target)
    output = ops.convert_to_tensor(output)
    target.shape.assert_is_compatible_with(output.shape)
    output, from_logits = losses._get_logits(output, from_logits, "Softmax")
    if from_logits:
        output = op("nn.softmax")(output, axis=axis)
    output = output / op("reduce_sum")(output, axis=axis, keepdims=True)
    eps = op("cast")(epsilon(), output.dtype.base_dtype)
    output = op("clip_by_value")(output, eps, 1.0 - eps)
    cce = -target * op("log")(output)
    weighting = op("multiply")(op("pow")(1.0 - output, gamma), alpha)
    return op("reduce_sum")(op("multiply")(weighting, cce), axis=axis)


def ctc_label_dense_to_sparse(labels: Any, label_lengths: Any) -> Any:
    """The first ``label_lengths[i]`` labels of each row of the dense ``labels`` as a
    ``tf.SparseTensor`` (int64 indices and dense shape)."""
    tf = _tf()
    label_shape = op("shape")(labels)
    num_batches = op("stack")([label_shape[0]])
    max_labels = op("stack")([label_shape[1]])

    def range_less_than(old_input: Any, current_input: Any) -> Any:
        return op("less")(
            op("expand_dims")(op("range")(op("shape")(old_input)[1]), 0),
            op("fill")(max_labels, current_input),
        )

    init = op("cast")(op("fill")([1, label_shape[1]], 0), dtypes.bool)
    dense_mask = tf.scan(range_less_than, label_lengths, initializer=init, parallel_iterations=1)
    dense_mask = dense_mask[:, 0, :]
    label_array = op("reshape")(
        op("tile")(op("range")(0, label_shape[1]), num_batches), label_shape
    )
    label_ind = op("boolean_mask")(label_array, dense_mask)
    batch_array = op("transpose")(
        op("reshape")(
            op("tile")(op("range")(0, label_shape[0]), max_labels), reverse(label_shape, 0)
        )
    )
    batch_ind = op("boolean_mask")(batch_array, dense_mask)
    indices = op("transpose")(op("reshape")(concatenate([batch_ind, label_ind], axis=0), [2, -1]))
    values = op("gather_nd")(labels, indices)
    return tf.SparseTensor(
        op("cast")(indices, dtypes.int64), values, op("cast")(label_shape, dtypes.int64)
    )


def ctc_batch_cost(y_true: Any, y_pred: Any, input_length: Any, label_length: Any) -> Any:
    """The CTC loss of each batch entry, ``[batch, 1]``.

    Args:
      y_true: ``[batch, max_label_length]`` labels.
      y_pred: ``[batch, time, classes]`` softmax outputs.
      input_length: ``[batch, 1]`` lengths of ``y_pred``'s sequences.
      label_length: ``[batch, 1]`` lengths of ``y_true``'s labels.
    """
    tf = _tf()
    label_length = op("cast")(op("squeeze")(label_length, axis=-1), dtypes.int32)
    input_length = op("cast")(op("squeeze")(input_length, axis=-1), dtypes.int32)
    sparse = ctc_label_dense_to_sparse(y_true, label_length)
    sparse = tf.SparseTensor(
        sparse.indices, op("cast")(sparse.values, dtypes.int32), sparse.dense_shape
    )
    y_pred = op("log")(op("transpose")(y_pred, perm=[1, 0, 2]) + epsilon())
    loss = tf.nn.ctc_loss(inputs=y_pred, labels=sparse, sequence_length=input_length)
    return op("expand_dims")(loss, 1)


# -- random tensors (TF's seeded streams; no seed: NumPy's global generator draws one) ----
def _seed(seed: int | None, high: float = 10e6) -> int:
    return int(np.random.randint(high)) if seed is None else seed  # noqa: NPY002 - as TF


def dropout(x: Any, level: float, noise_shape: Any = None, seed: int | None = None) -> Any:
    """``tf.nn.dropout(x, rate=level, noise_shape, seed)``."""
    return _tf().nn.dropout(x, rate=level, noise_shape=noise_shape, seed=_seed(seed))


def random_normal(
    shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = None, seed: int | None = None
) -> Any:
    """``tf.random.normal(shape, mean, stddev, dtype or floatx(), seed)``."""
    return _tf().random.normal(
        shape, mean=mean, stddev=stddev, dtype=dtype or floatx(), seed=_seed(seed)
    )


def random_uniform(
    shape: Any, minval: float = 0.0, maxval: float = 1.0, dtype: Any = None, seed: int | None = None
) -> Any:
    """``tf.random.uniform(shape, minval, maxval, dtype or floatx(), seed)``."""
    return _tf().random.uniform(
        shape, minval=minval, maxval=maxval, dtype=dtype or floatx(), seed=_seed(seed)
    )


def truncated_normal(
    shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = None, seed: int | None = None
) -> Any:
    """``tf.random.truncated_normal(shape, mean, stddev, dtype or floatx(), seed)``."""
    return _tf().random.truncated_normal(
        shape, mean, stddev, dtype=dtype or floatx(), seed=_seed(seed)
    )


def random_bernoulli(shape: Any, p: float = 0.0, dtype: Any = None, seed: int | None = None) -> Any:
    """1 where ``tf.random.uniform(shape, dtype, seed) <= p``, else 0."""
    tf = _tf()
    dtype = dtype or floatx()
    draws = tf.random.uniform(shape, dtype=dtype, seed=_seed(seed))
    return op("where_v2")(
        op("less_equal")(draws, p), op("ones")(shape, dtype=dtype), op("zeros")(shape, dtype=dtype)
    )


def random_binomial(shape: Any, p: float = 0.0, dtype: Any = None, seed: int | None = None) -> Any:
    """``random_bernoulli`` (deprecated in TF: warns as TF's)."""
    warnings.warn(
        "`tf.keras.backend.random_binomial` is deprecated, "
        "and will be removed in a future version."
        "Please use `tf.keras.backend.random_bernoulli` instead.",
        stacklevel=2,
    )
    return random_bernoulli(shape, p, dtype, seed)


def random_uniform_variable(
    shape: Any,
    low: float,
    high: float,
    dtype: Any = None,
    name: str | None = None,
    seed: int | None = None,
) -> Any:
    """A variable initialized by ``tf.compat.v1.random_uniform_initializer(low, high,
    seed=seed)`` (no seed: one drawn below ``10e8`` from NumPy's generator)."""
    dtype = dtype or floatx()
    init = _tf().random_uniform_initializer(
        low, high, dtype=dtypes.as_dtype(dtype), seed=_seed(seed, 10e8)
    )
    return variable(init(shape), dtype=dtype, name=name)


def random_normal_variable(
    shape: Any,
    mean: float,
    scale: float,
    dtype: Any = None,
    name: str | None = None,
    seed: int | None = None,
) -> Any:
    """A variable initialized by ``tf.compat.v1.random_normal_initializer(mean, scale,
    seed=seed)`` (no seed: one drawn below ``10e8`` from NumPy's generator)."""
    dtype = dtype or floatx()
    init = _tf().random_normal_initializer(
        mean, scale, dtype=dtypes.as_dtype(dtype), seed=_seed(seed, 10e8)
    )
    return variable(init(shape), dtype=dtype, name=name)


__getattr__ = missing_name_getattr("tf.keras.backend", globals())
