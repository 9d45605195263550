"""``tf.keras.backend`` (legacy Keras 2 in TF1 graph mode): the subset graph-mode scripts use.

Keras keeps per-graph state: the learning phase (a ``keras_learning_phase``
``placeholder_with_default(False)``, or the 0/1 that ``set_learning_phase``
fixed), the layer-name counters (shared with ``tf.layers``: a ``tf.layers.Dense``
then a ``tf.keras.layers.Dense`` are ``dense_1`` and ``dense_1``), and a session
(``get_session``: the default session, else one Keras creates and keeps; either
way the Keras variables not yet initialized are initialized first, as TF's).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
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
    "argmax",
    "argmin",
    "batch_flatten",
    "batch_get_value",
    "batch_set_value",
    "bias_add",
    "binary_crossentropy",
    "cast",
    "cast_to_floatx",
    "categorical_crossentropy",
    "clear_session",
    "clip",
    "concatenate",
    "constant",
    "cos",
    "count_params",
    "dot",
    "dtype",
    "epsilon",
    "equal",
    "eval",
    "exp",
    "expand_dims",
    "flatten",
    "floatx",
    "function",
    "gather",
    "get_session",
    "get_uid",
    "get_value",
    "gradients",
    "greater",
    "greater_equal",
    "image_data_format",
    "in_test_phase",
    "in_train_phase",
    "int_shape",
    "is_keras_tensor",
    "l2_normalize",
    "learning_phase",
    "less",
    "less_equal",
    "log",
    "max",
    "maximum",
    "mean",
    "min",
    "minimum",
    "name_scope",
    "ndim",
    "not_equal",
    "one_hot",
    "ones",
    "ones_like",
    "permute_dimensions",
    "placeholder",
    "pow",
    "prod",
    "relu",
    "reset_uids",
    "reshape",
    "round",
    "set_epsilon",
    "set_floatx",
    "set_learning_phase",
    "set_session",
    "set_value",
    "shape",
    "sigmoid",
    "sign",
    "sin",
    "softmax",
    "softplus",
    "sparse_categorical_crossentropy",
    "sqrt",
    "square",
    "squeeze",
    "stack",
    "std",
    "stop_gradient",
    "sum",
    "switch",
    "tanh",
    "transpose",
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
    """``tf.nn.bias_add`` of a 1-D bias (``channels_first`` adds on axis 1).

    Raises:
      NotImplementedError: a bias of rank > 1.
    """
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


__getattr__ = missing_name_getattr("tf.keras.backend", globals())
