"""TF1's recurrent cells (``tf.nn.rnn_cell``): one step of an RNN on graph nodes.

A cell is a ``tf.layers.Layer`` (TF 2.21's ``rnn_cell_impl`` under tf-keras'
legacy cells): ``cell(inputs, state) -> (output, new_state)`` builds its
variables on first call in its own variable scope, under TF's names, so a TF
checkpoint restores: ``rnn/basic_lstm_cell/kernel`` (``[input_depth + units,
4 * units]``, gates ``i, j, f, o``) and ``.../bias``; ``gru_cell/gates/kernel``
and ``gru_cell/candidate/kernel``; ``multi_rnn_cell/cell_0/...``. Wrappers
(``rnn_cell_wrapper_impl``) add no scope of their own. Kernels default to the
variable scope's initializer (Glorot uniform), biases to zeros (GRU's gate bias
to ones); ``forget_bias`` is added when the cell runs, not stored in the bias.

.. note::
   The default kernels are TF1 behaviour's (``tf.disable_v2_behavior()``, which
   ``adapters.v1`` always follows): ``tf.get_variable``'s
   ``glorot_uniform_initializer``, a ``RandomUniform`` taking the graph's next op
   seed under ``tf.set_random_seed``; TF 2.21's values bit for bit
   (``tests/interop/test_rnn_cells_seeded_interop.py``). TF 2.21 *without*
   ``disable_v2_behavior()`` (TF2 behaviour left on, even inside ``tf.Graph()``)
   gives tf_keras' legacy cells keras' ``GlorotUniform`` instead: a
   ``stateless_uniform`` seeded by ``random.randint(1, 10**9)`` from Python's
   ``random`` module, which ignores ``tf.set_random_seed``, differs from run to
   run and takes no op seed from the graph; jtrain does not reproduce that mode.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Sequence
from typing import Any

from adapters.v1.framework import dtypes, ops, shape_values
from adapters.v1.framework.op_def import FUNCTIONS
from adapters.v1.layers.base import InputSpec, Layer
from adapters.v1.ops import constant_op, init_ops
from adapters.v1.ops import control_flow_ops as cf
from adapters.v1.ops import variable_scope as vs

__all__ = [
    "RNNCell",
    "LayerRNNCell",
    "BasicRNNCell",
    "BasicLSTMCell",
    "LSTMCell",
    "GRUCell",
    "MultiRNNCell",
    "LSTMStateTuple",
    "assert_like_rnncell",
    "zero_state_like",
]

_WEIGHTS = "kernel"
_BIAS = "bias"


def _op(name: str) -> Callable[..., Any]:
    return FUNCTIONS[name]


def _activation(activation: Any) -> Callable[..., Any]:
    """A cell's activation: a callable, or a name (``"relu"``, ``"tanh"``); default tanh."""
    if not activation:
        return _op("tanh")
    if callable(activation):
        return activation
    for name in (f"nn.{activation}", str(activation)):
        if name in FUNCTIONS:
            return FUNCTIONS[name]
    raise ValueError(f"Unknown activation function: {activation!r}")


def _check_supported_dtypes(dtype: Any) -> None:
    if dtype is None:
        return
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_complex):
        raise ValueError(
            f"RNN cell only supports floating point inputs, but received dtype: {dtype}"
        )


def _check_rnn_cell_input_dtypes(values: Any) -> None:
    for t in cf.flatten(values)[0]:
        _check_supported_dtypes(getattr(t, "dtype", None))


def _depth(input_shape: Any) -> int:
    dims = list(input_shape.as_list()) if input_shape.ndims is not None else [None]
    if dims[-1] is None:
        raise ValueError(f"Expected inputs.shape[-1] to be known, received shape: {input_shape}")
    return int(dims[-1])


class LSTMStateTuple(collections.namedtuple("LSTMStateTuple", ("c", "h"))):
    """An LSTM's state ``(c, h)``: the memory cell and the output (TF's ``LSTMStateTuple``)."""

    __slots__ = ()

    @property
    def dtype(self) -> Any:
        c, h = self
        if c.dtype != h.dtype:
            raise TypeError(f"Inconsistent dtypes for internal state: {c.dtype} vs {h.dtype}")
        return c.dtype


def _zero_state(state_size: Any, batch_size: Any, dtype: Any) -> Any:
    """Zeros of ``[batch_size] + s`` for each ``s`` in the (nested) ``state_size``.

    ``batch_size`` may be computed from shapes (``tf.shape(inputs)[0]``): its value is
    taken when the step is compiled, one program per fed shape.

    Raises:
      NotImplementedError: ``batch_size`` depends on the step's data (a fed
        placeholder: jtrain compiles static shapes; ``dynamic_rnn``/``static_rnn`` with
        ``dtype=`` build the zero state from the inputs instead).
    """
    if isinstance(batch_size, (ops.Tensor, ops.Operation)) or hasattr(
        batch_size, "_as_graph_tensor"
    ):
        tensor = ops.convert_to_tensor(batch_size)
        const = tensor.op._const_value
        if const is not None:
            batch_size = int(const)
        elif shape_values.depends_on_data(tensor):
            raise NotImplementedError(
                f"zero_state: batch_size must be known when the step is compiled (a Python "
                f"int, a constant or computed from tf.shape), got {tensor.name}, which "
                "depends on the step's data; jtrain compiles static shapes. Pass dtype= to "
                "tf.nn.dynamic_rnn/static_rnn without an initial_state (the zero state then "
                "follows the inputs' batch), or use tf.shape(inputs)[0]."
            )
        else:
            batch_size = tensor
    else:
        batch_size = int(batch_size)

    def zeros(size: Any) -> ops.Tensor:
        inner = list(size) if isinstance(size, (list, tuple)) else [int(size)]
        return _op("zeros")([batch_size, *inner], dtype=dtype)

    return _map_sizes(zeros, state_size)


def zero_state_like(state_size: Any, reference: ops.Tensor, dtype: Any) -> Any:
    """Zeros of ``[batch] + s`` for each ``s`` in ``state_size``, ``batch`` from
    ``reference`` (``[batch, ...]``): the zero state when the batch is known only
    when the step runs."""
    rank = reference.shape.ndims
    column = reference[(slice(None), *([0] * (rank - 1)))] if rank and rank > 1 else reference
    base = _op("expand_dims")(_op("cast")(_op("zeros_like")(column), dtype), 1)

    def zeros(size: Any) -> ops.Tensor:
        inner = list(size) if isinstance(size, (list, tuple)) else [int(size)]
        wide = base
        for _ in inner[1:]:
            wide = _op("expand_dims")(wide, -1)
        return wide + _op("zeros")(inner, dtype=dtype)

    return _map_sizes(zeros, state_size)


def _map_sizes(fn: Callable[[Any], Any], size: Any) -> Any:
    """``fn`` over a nested state size whose leaves are ints (or TensorShape-like lists)."""
    if isinstance(size, LSTMStateTuple):
        return LSTMStateTuple(*(_map_sizes(fn, s) for s in size))
    if isinstance(size, tuple) and not _is_shape(size):
        return tuple(_map_sizes(fn, s) for s in size)
    return fn(size)


def _is_shape(size: Any) -> bool:
    return hasattr(size, "as_list")


class RNNCell(Layer):
    """The base of TF1's RNN cells: ``(output, new_state) = cell(inputs, state)``.

    Subclasses define ``state_size``, ``output_size`` and ``call(inputs, state)``;
    variables come from ``build`` (``add_weight``) or ``tf.get_variable`` in ``call``,
    in the cell's variable scope (its name in snake case, unique in the scope it is
    first called in).

    Args (TF's defaults):
      trainable: whether the variables are trainable.
      name: the cell's name (its variable scope's).
      dtype: the variables' dtype (default: the first input's).
      **kwargs: ``Layer``'s keyword arguments.
    """

    def __init__(
        self, trainable: bool = True, name: str | None = None, dtype: Any = None, **kwargs: Any
    ):
        super().__init__(trainable=trainable, name=name, dtype=dtype, **kwargs)
        self._is_tf_rnn_cell = True

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> Any:
        """Runs the cell on ``inputs`` from ``state``.

        Args:
          inputs: ``[batch_size, input_size]``.
          state: ``[batch_size, state_size]``, or a nested tuple of such tensors.
          scope: the variable scope for the cell's variables (default: its name).

        Returns:
          ``(output, new_state)``.
        """
        if scope is not None:
            with vs.variable_scope(scope) as captured:
                return Layer.__call__(self, inputs, state, scope=captured)
        return Layer.__call__(self, inputs, state)

    @property
    def state_size(self) -> Any:
        """The size(s) of the state: an int, or a nested tuple of ints."""
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self) -> Any:
        """The size of the output."""
        raise NotImplementedError("Abstract method")

    def get_initial_state(self, inputs: Any = None, batch_size: Any = None, dtype: Any = None):
        """Zeros of the state's shape (from ``inputs``' batch and dtype, or the arguments).

        Raises:
          ValueError: ``inputs`` disagree with ``batch_size``/``dtype``, or neither is known.
        """
        if inputs is not None:
            inputs = ops.convert_to_tensor(inputs)
            static = inputs.shape.as_list()[0] if inputs.shape.ndims else None
            if batch_size is not None and static != batch_size:
                raise ValueError(
                    "batch size from input tensor is different from the input param. Input "
                    f"tensor batch: {static}, batch_size: {batch_size}"
                )
            if dtype is not None and inputs.dtype != dtypes.as_dtype(dtype):
                raise ValueError(
                    "dtype from input tensor is different from the input param. Input tensor "
                    f"dtype: {inputs.dtype}, dtype: {dtype}"
                )
            batch_size = static if static is not None else _op("shape")(inputs)[0]
            dtype = inputs.dtype
        if batch_size is None or dtype is None:
            raise ValueError(
                "batch_size and dtype cannot be None while constructing initial state: "
                f"batch_size={batch_size}, dtype={dtype}"
            )
        return self.zero_state(batch_size, dtype)

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        """Zero-filled state: ``[batch_size, s]`` for each ``s`` in ``state_size``.

        Args:
          batch_size: an int or a scalar int tensor.
          dtype: the state's dtype.

        Returns:
          A tensor, or a nested tuple of tensors in ``state_size``'s structure.
        """
        with ops.name_scope(type(self).__name__ + "ZeroState"):
            return _zero_state(self.state_size, batch_size, dtype)


class LayerRNNCell(RNNCell):
    """An ``RNNCell`` that creates its variables in ``build`` (as ``tf.layers`` do)."""


class BasicRNNCell(LayerRNNCell):
    """The basic RNN cell: ``output = new_state = activation(W [inputs, state] + b)``.

    Variables: ``kernel`` ``[input_depth + num_units, num_units]``, ``bias``
    ``[num_units]`` (zeros).

    Args (TF's defaults):
      num_units: the number of units.
      activation: the nonlinearity (default ``tanh``).
      reuse: reuse the variables of an existing scope.
      name: the cell's name.
      dtype: the variables' dtype.
      **kwargs: ``Layer``'s keyword arguments.
    """

    def __init__(
        self,
        num_units: int,
        activation: Any = None,
        reuse: Any = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        self.input_spec = InputSpec(ndim=2)
        self._num_units = int(num_units)
        self._activation = _activation(activation)

    @property
    def state_size(self) -> int:
        return self._num_units

    @property
    def output_size(self) -> int:
        return self._num_units

    def build(self, input_shape: Any) -> None:
        """Creates ``kernel`` and ``bias``."""
        depth = _depth(input_shape)
        _check_supported_dtypes(self.dtype)
        self._kernel = self.add_weight(_WEIGHTS, shape=[depth + self._num_units, self._num_units])
        self._bias = self.add_weight(
            _BIAS, shape=[self._num_units], initializer=init_ops.zeros_initializer()
        )
        self.built = True

    def call(self, inputs: Any, state: Any) -> Any:  # type: ignore[override]
        _check_rnn_cell_input_dtypes([inputs, state])
        gates = _op("matmul")(_op("concat")([inputs, state], 1), self._kernel)
        output = self._activation(_op("nn.bias_add")(gates, self._bias))
        return output, output


class GRUCell(LayerRNNCell):
    """A gated recurrent unit (Cho et al. 2014), as TF1's ``GRUCell``.

    Variables: ``gates/kernel`` ``[input_depth + num_units, 2 * num_units]`` and
    ``gates/bias`` (ones unless ``bias_initializer``), ``candidate/kernel``
    ``[input_depth + num_units, num_units]`` and ``candidate/bias`` (zeros unless
    ``bias_initializer``). The gates split as ``r, u``.

    Args (TF's defaults):
      num_units: the number of units.
      activation: the candidate's nonlinearity (default ``tanh``).
      reuse: reuse the variables of an existing scope.
      kernel_initializer: the kernels' initializer (default: the scope's).
      bias_initializer: both biases' initializer (default: ones and zeros).
      name: the cell's name.
      dtype: the variables' dtype.
      **kwargs: ``Layer``'s keyword arguments.
    """

    def __init__(
        self,
        num_units: int,
        activation: Any = None,
        reuse: Any = None,
        kernel_initializer: Any = None,
        bias_initializer: Any = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        self.input_spec = InputSpec(ndim=2)
        self._num_units = int(num_units)
        self._activation = _activation(activation)
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    @property
    def state_size(self) -> int:
        return self._num_units

    @property
    def output_size(self) -> int:
        return self._num_units

    def build(self, input_shape: Any) -> None:
        """Creates ``gates/{kernel,bias}`` and ``candidate/{kernel,bias}``."""
        depth = _depth(input_shape)
        _check_supported_dtypes(self.dtype)
        n = self._num_units
        self._gate_kernel = self.add_weight(
            f"gates/{_WEIGHTS}", shape=[depth + n, 2 * n], initializer=self._kernel_initializer
        )
        self._gate_bias = self.add_weight(
            f"gates/{_BIAS}",
            shape=[2 * n],
            initializer=self._bias_initializer or init_ops.constant_initializer(1.0),
        )
        self._candidate_kernel = self.add_weight(
            f"candidate/{_WEIGHTS}", shape=[depth + n, n], initializer=self._kernel_initializer
        )
        self._candidate_bias = self.add_weight(
            f"candidate/{_BIAS}",
            shape=[n],
            initializer=self._bias_initializer or init_ops.zeros_initializer(),
        )
        self.built = True

    def call(self, inputs: Any, state: Any) -> Any:  # type: ignore[override]
        _check_rnn_cell_input_dtypes([inputs, state])
        gates = _op("matmul")(_op("concat")([inputs, state], 1), self._gate_kernel)
        value = _op("sigmoid")(_op("nn.bias_add")(gates, self._gate_bias))
        r, u = _op("split")(value=value, num_or_size_splits=2, axis=1)
        candidate = _op("matmul")(_op("concat")([inputs, r * state], 1), self._candidate_kernel)
        c = self._activation(_op("nn.bias_add")(candidate, self._candidate_bias))
        new_h = u * state + (1 - u) * c
        return new_h, new_h


class BasicLSTMCell(LayerRNNCell):
    """The basic LSTM cell (no peepholes, no clipping, no projection).

    Variables: ``kernel`` ``[input_depth + num_units, 4 * num_units]`` and ``bias``
    ``[4 * num_units]`` (zeros); the gates split as ``i, j, f, o`` and
    ``forget_bias`` is added to ``f`` when the cell runs.

    Args (TF's defaults):
      num_units: the number of units.
      forget_bias: added to the forget gate's pre-activation (1.0).
      state_is_tuple: states are ``LSTMStateTuple(c, h)`` (True) or ``concat([c, h], 1)``.
      activation: the nonlinearity (default ``tanh``).
      reuse: reuse the variables of an existing scope.
      name: the cell's name.
      dtype: the variables' dtype.
      **kwargs: ``Layer``'s keyword arguments.
    """

    def __init__(
        self,
        num_units: int,
        forget_bias: float = 1.0,
        state_is_tuple: bool = True,
        activation: Any = None,
        reuse: Any = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        self.input_spec = InputSpec(ndim=2)
        self._num_units = int(num_units)
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = _activation(activation)

    @property
    def state_size(self) -> Any:
        n = self._num_units
        return LSTMStateTuple(n, n) if self._state_is_tuple else 2 * n

    @property
    def output_size(self) -> int:
        return self._num_units

    def build(self, input_shape: Any) -> None:
        """Creates ``kernel`` and ``bias``."""
        depth = _depth(input_shape)
        _check_supported_dtypes(self.dtype)
        n = self._num_units
        self._kernel = self.add_weight(_WEIGHTS, shape=[depth + n, 4 * n])
        self._bias = self.add_weight(_BIAS, shape=[4 * n], initializer=init_ops.zeros_initializer())
        self.built = True

    def call(self, inputs: Any, state: Any) -> Any:  # type: ignore[override]
        _check_rnn_cell_input_dtypes([inputs, state])
        if self._state_is_tuple:
            c, h = state
        else:
            c, h = _op("split")(value=state, num_or_size_splits=2, axis=1)
        gates = _op("matmul")(_op("concat")([inputs, h], 1), self._kernel)
        gates = _op("nn.bias_add")(gates, self._bias)
        i, j, f, o = _op("split")(value=gates, num_or_size_splits=4, axis=1)
        sigmoid = _op("sigmoid")
        forget_bias = constant_op.constant(self._forget_bias, dtype=f.dtype)
        new_c = _op("add")(
            _op("multiply")(c, sigmoid(_op("add")(f, forget_bias))),
            _op("multiply")(sigmoid(i), self._activation(j)),
        )
        new_h = _op("multiply")(self._activation(new_c), sigmoid(o))
        if self._state_is_tuple:
            return new_h, LSTMStateTuple(new_c, new_h)
        return new_h, _op("concat")([new_c, new_h], 1)


class LSTMCell(LayerRNNCell):
    """The LSTM cell with optional peepholes, cell clipping and output projection.

    Variables: ``kernel`` ``[input_depth + h_depth, 4 * num_units]`` (``h_depth`` is
    ``num_proj`` or ``num_units``), ``bias`` (zeros); with ``use_peepholes``,
    ``w_f_diag``, ``w_i_diag``, ``w_o_diag`` ``[num_units]``; with ``num_proj``,
    ``projection/kernel`` ``[num_units, num_proj]``.

    Args (TF's defaults):
      num_units: the number of units.
      use_peepholes: add diagonal peephole connections (False).
      cell_clip: clip the cell state to ``[-cell_clip, cell_clip]`` (None: no clipping).
      initializer: the weights' initializer (default: the scope's).
      num_proj: project the output to this size (None: no projection).
      proj_clip: clip the projected output (with ``num_proj``).
      num_unit_shards: deprecated; must be None (use a partitioner).
      num_proj_shards: deprecated; must be None (use a partitioner).
      forget_bias: added to the forget gate's pre-activation (1.0).
      state_is_tuple: states are ``LSTMStateTuple(c, m)`` (True) or concatenated.
      activation: the nonlinearity (default ``tanh``).
      reuse: reuse the variables of an existing scope.
      name: the cell's name.
      dtype: the variables' dtype.
      **kwargs: ``Layer``'s keyword arguments.

    Raises:
      NotImplementedError: ``num_unit_shards`` or ``num_proj_shards`` given.
    """

    def __init__(
        self,
        num_units: int,
        use_peepholes: bool = False,
        cell_clip: float | None = None,
        initializer: Any = None,
        num_proj: int | None = None,
        proj_clip: float | None = None,
        num_unit_shards: int | None = None,
        num_proj_shards: int | None = None,
        forget_bias: float = 1.0,
        state_is_tuple: bool = True,
        activation: Any = None,
        reuse: Any = None,
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        if num_unit_shards is not None or num_proj_shards is not None:
            raise NotImplementedError(
                "LSTMCell: num_unit_shards and num_proj_shards (deprecated in TF) are not "
                "supported; use a variable scope with a partitioner instead"
            )
        self.input_spec = InputSpec(ndim=2)
        self._num_units = int(num_units)
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = initializer
        self._num_proj = num_proj
        self._proj_clip = proj_clip
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = _activation(activation)
        out = num_proj if num_proj else num_units
        self._state_size = LSTMStateTuple(num_units, out) if state_is_tuple else num_units + out
        self._output_size = out

    @property
    def state_size(self) -> Any:
        return self._state_size

    @property
    def output_size(self) -> int:
        return self._output_size

    def build(self, input_shape: Any) -> None:
        """Creates ``kernel``, ``bias`` and the peephole and projection weights asked for."""
        depth = _depth(input_shape)
        _check_supported_dtypes(self.dtype)
        n = self._num_units
        h_depth = self._num_proj if self._num_proj is not None else n
        init = self._initializer
        self._kernel = self.add_weight(_WEIGHTS, shape=[depth + h_depth, 4 * n], initializer=init)
        self._bias = self.add_weight(_BIAS, shape=[4 * n], initializer=init_ops.zeros_initializer())
        if self._use_peepholes:
            self._w_f_diag = self.add_weight("w_f_diag", shape=[n], initializer=init)
            self._w_i_diag = self.add_weight("w_i_diag", shape=[n], initializer=init)
            self._w_o_diag = self.add_weight("w_o_diag", shape=[n], initializer=init)
        if self._num_proj is not None:
            self._proj_kernel = self.add_weight(
                f"projection/{_WEIGHTS}", shape=[n, self._num_proj], initializer=init
            )
        self.built = True

    def call(self, inputs: Any, state: Any) -> Any:  # type: ignore[override]
        _check_rnn_cell_input_dtypes([inputs, state])
        n = self._num_units
        num_proj = n if self._num_proj is None else self._num_proj
        if self._state_is_tuple:
            c_prev, m_prev = state
        else:
            c_prev = _op("slice")(state, [0, 0], [-1, n])
            m_prev = _op("slice")(state, [0, n], [-1, num_proj])
        matrix = _op("matmul")(_op("concat")([inputs, m_prev], 1), self._kernel)
        matrix = _op("nn.bias_add")(matrix, self._bias)
        i, j, f, o = _op("split")(value=matrix, num_or_size_splits=4, axis=1)
        sigmoid, act = _op("sigmoid"), self._activation
        if self._use_peepholes:
            c = sigmoid(f + self._forget_bias + self._w_f_diag * c_prev) * c_prev + sigmoid(
                i + self._w_i_diag * c_prev
            ) * act(j)
        else:
            c = sigmoid(f + self._forget_bias) * c_prev + sigmoid(i) * act(j)
        if self._cell_clip is not None:
            c = _op("clip_by_value")(c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            m = sigmoid(o + self._w_o_diag * c) * act(c)
        else:
            m = sigmoid(o) * act(c)
        if self._num_proj is not None:
            m = _op("matmul")(m, self._proj_kernel)
            if self._proj_clip is not None:
                m = _op("clip_by_value")(m, -self._proj_clip, self._proj_clip)
        if self._state_is_tuple:
            return m, LSTMStateTuple(c, m)
        return m, _op("concat")([c, m], 1)


def _is_nested(value: Any) -> bool:
    return isinstance(value, (list, tuple, dict))


class MultiRNNCell(RNNCell):
    """Cells stacked: each cell's output is the next cell's input.

    Cell ``i``'s variables live under ``multi_rnn_cell/cell_i/``.

    Args (TF's defaults):
      cells: the cells, in order (the same object twice shares weights).
      state_is_tuple: states are an ``n``-tuple (True) or concatenated (False).

    Raises:
      ValueError: no cells; a cell has a tuple state and ``state_is_tuple`` is False.
      TypeError: ``cells`` is not a list or tuple.
    """

    def __init__(self, cells: Sequence[Any], state_is_tuple: bool = True):
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not isinstance(cells, (list, tuple)):
            raise TypeError(f"cells must be a list or tuple, but received: {cells}.")
        self._cells = list(cells)
        self._state_is_tuple = state_is_tuple
        if not state_is_tuple and any(_is_nested(c.state_size) for c in self._cells):
            raise ValueError(
                "Some cells return tuples of states, but the flag state_is_tuple is not set. "
                f"State sizes are: {[c.state_size for c in self._cells]}"
            )

    @property
    def state_size(self) -> Any:
        if self._state_is_tuple:
            return tuple(cell.state_size for cell in self._cells)
        return sum(cell.state_size for cell in self._cells)

    @property
    def output_size(self) -> Any:
        return self._cells[-1].output_size

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        with ops.name_scope(type(self).__name__ + "ZeroState"):
            if self._state_is_tuple:
                return tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)
            return _zero_state(self.state_size, batch_size, dtype)

    @property
    def trainable_weights(self) -> list[Any]:
        if not self.trainable:
            return []
        return [w for cell in self._cells for w in getattr(cell, "trainable_weights", [])]

    @property
    def non_trainable_weights(self) -> list[Any]:
        weights = [w for cell in self._cells for w in getattr(cell, "non_trainable_weights", [])]
        if not self.trainable:
            trainable = [w for cell in self._cells for w in getattr(cell, "trainable_weights", [])]
            return trainable + weights
        return weights

    def call(self, inputs: Any, state: Any) -> Any:  # type: ignore[override]
        position = 0
        current = inputs
        new_states = []
        for i, cell in enumerate(self._cells):
            with vs.variable_scope(f"cell_{i}"):
                if self._state_is_tuple:
                    if not _is_nested(state):
                        raise ValueError(
                            f"Expected state to be a tuple of length {len(self.state_size)}, "
                            f"but received: {state}"
                        )
                    cell_state = state[i]
                else:
                    cell_state = _op("slice")(state, [0, position], [-1, cell.state_size])
                    position += cell.state_size
                current, new_state = cell(current, cell_state)
                new_states.append(new_state)
        if self._state_is_tuple:
            return current, tuple(new_states)
        return current, _op("concat")(new_states, 1)


def assert_like_rnncell(name: str, cell: Any) -> None:
    """Raises TF's ``TypeError`` when ``cell`` lacks what an RNN cell has.

    Raises:
      TypeError: ``cell`` has no ``output_size``/``state_size``/``zero_state`` or is
        not callable.
    """
    problems = [
        f"'{attr}' property is missing"
        for attr in ("output_size", "state_size")
        if not hasattr(cell, attr)
    ]
    if not hasattr(cell, "zero_state") and not hasattr(cell, "get_initial_state"):
        problems.append("either 'zero_state' or 'get_initial_state' method is required")
    if not callable(cell):
        problems.append("is not callable")
    if problems:
        raise TypeError(f"The argument {name!r} ({cell}) is not an RNNCell: {', '.join(problems)}.")
