"""``tf.keras.layers`` recurrent layers as TF 2.21's legacy Keras builds them in a TF1 graph.

In TF1 mode ``tf.keras.layers.LSTM``, ``GRU`` and their cells are Keras' **v1**
classes (``lstm_v1``, ``gru_v1``; measured live): ``recurrent_activation``
defaults to ``'hard_sigmoid'``, ``implementation`` to 1 (one product per gate)
and GRU's ``reset_after`` to False. ``SimpleRNN``, ``RNN`` and
``StackedRNNCells`` are Keras' only versions.

Variables are built as Keras builds them: the layer's first call builds its cell
in a name scope of the cell's name (``lstm/lstm_cell/kernel:0``,
``recurrent_kernel:0``, ``bias:0``; ``rnn/stacked_rnn_cells/lstm_cell/...``),
with Keras' initializers (``glorot_uniform`` kernels, ``orthogonal`` recurrent
kernels, zero biases but for LSTM's forget gate, ones with
``unit_forget_bias``), so a TF checkpoint of a Keras model restores by name.

The time loop is ``tf.nn.dynamic_rnn``'s (``adapters.v1.ops.rnn``): the step is
built once, on tensors standing for one step's input and state, and the whole
sequence runs as ONE node, a ``lax.scan`` inside the session's compiled program.
``unroll=True`` computes the same with that loop. Keras' semantics around it:

- ``go_backwards`` reads the sequence last step first and returns the outputs in
  that (reversed) order.
- ``mask`` (``[batch, time]``, True where a step counts): at a masked step the
  state is carried through and the output is the previous step's (zeros with
  ``zero_output_for_mask``, which ``Bidirectional`` sets for sequences).
- Dropout masks are drawn once per call, before the loop, by a first call of the
  step on the first time step (Keras' ``output_time_zero``), and reused at every
  step (``DropoutRNNCellMixin``); ``training`` None is the learning phase.
- ``return_state`` returns ``[output] + states`` (LSTM: ``h``, ``c``).

Not supported (each raises ``NotImplementedError`` naming it): ``stateful=True``
and ``constants``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.tensor_shape import TensorShape
from adapters.v1.keras import activations, backend, initializers, regularizers
from adapters.v1.keras.layers import InputSpec, Layer, constraints_get
from adapters.v1.layers.base import op, passed_arguments
from adapters.v1.ops import control_flow_ops as cf
from adapters.v1.ops import nn_dropout
from adapters.v1.ops.rnn import _rnn_loop
from adapters.v1.ops.rnn_cell_impl import zero_state_like

__all__ = [
    "GRU",
    "GRUCell",
    "LSTM",
    "LSTMCell",
    "RNN",
    "SimpleRNN",
    "SimpleRNNCell",
    "StackedRNNCells",
]

_UNROLL_MESSAGE = (
    "Cannot unroll a RNN if the time dimension is undefined. \n"
    "- If using a Sequential model, specify the time dimension by passing an "
    "`input_shape` or `batch_input_shape` argument to your first layer. If your "
    "first layer is an Embedding, you can also use the `input_length` argument.\n"
    "- If using the functional API, specify the time dimension by passing a `shape` "
    "or `batch_shape` argument to your Input layer."
)


def has_arg(fn: Callable[..., Any], name: str) -> bool:
    """Whether ``fn`` takes an argument ``name`` (or ``**kwargs``), as Keras asks before
    passing ``training``, ``mask`` or ``initial_state`` on."""
    try:
        parameters = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return name in parameters or any(p.kind is p.VAR_KEYWORD for p in parameters.values())


def _nested(value: Any) -> bool:
    return isinstance(value, (list, tuple))


def _state_list(state_size: Any) -> list[Any]:
    """Keras' states of a cell: a list even for one state (``[units]``)."""
    return list(state_size) if _nested(state_size) else [state_size]


def _sublayers_weights(layer: Any, sublayers: list[Any], trainable: bool) -> list[Any]:
    """Weights of ``sublayers`` as a container layer reports them (all non-trainable
    when the container is frozen)."""
    if trainable:
        if not layer.trainable:
            return []
        return [w for s in sublayers for w in s.trainable_weights]
    own = [w for s in sublayers for w in s.non_trainable_weights]
    if layer.trainable:
        return own
    return [w for s in sublayers for w in s.trainable_weights] + own


class _Container(Layer):
    """A layer whose weights and losses are its sublayers' (a cell, cells, layers)."""

    def _sublayers(self) -> list[Any]:
        return []

    @property
    def trainable_weights(self) -> list[Any]:
        subs = [s for s in self._sublayers() if isinstance(s, Layer)]
        return list(self._trainable_weights) + _sublayers_weights(self, subs, True)

    @property
    def non_trainable_weights(self) -> list[Any]:
        subs = [s for s in self._sublayers() if isinstance(s, Layer)]
        return list(self._non_trainable_weights) + _sublayers_weights(self, subs, False)

    @property
    def losses(self) -> list[Any]:
        own = Layer.losses.fget(self)
        return own + [x for s in self._sublayers() if isinstance(s, Layer) for x in s.losses]

    @property
    def updates(self) -> list[Any]:
        own = Layer.updates.fget(self)
        return own + [u for s in self._sublayers() if isinstance(s, Layer) for u in s.updates]


# -- cells -------------------------------------------------------------------------------
class _DropoutCell(Layer):
    """Keras' ``DropoutRNNCellMixin``: dropout masks drawn once and reused at each step.

    A mask is ``tf.nn.dropout(ones_like(inputs), rate)`` in the training phase and
    ``ones_like(inputs)`` otherwise (``backend.in_train_phase``); ``count`` masks,
    one per gate, are drawn independently.
    """

    dropout: float
    recurrent_dropout: float

    def reset_dropout_mask(self) -> None:
        """Forgets the cached input dropout masks (the RNN does it on each call)."""
        self.__dict__["_dropout_mask"] = None

    def reset_recurrent_dropout_mask(self) -> None:
        """Forgets the cached recurrent dropout masks."""
        self.__dict__["_recurrent_dropout_mask"] = None

    def _mask(self, key: str, rate: float, inputs: Any, training: Any, count: int) -> Any:
        if rate == 0:
            return None
        cached = self.__dict__.get(key)
        if cached is None:
            ones = op("ones_like")(inputs)

            def draw() -> Any:
                return backend.in_train_phase(
                    lambda: nn_dropout.dropout(ones, rate=rate), ones, training=training
                )

            cached = [draw() for _ in range(count)] if count > 1 else draw()
            self.__dict__[key] = cached
        return cached

    def get_dropout_mask_for_cell(self, inputs: Any, training: Any, count: int = 1) -> Any:
        """The (cached) dropout mask(s) for the cell's input; None without dropout."""
        return self._mask("_dropout_mask", self.dropout, inputs, training, count)

    def get_recurrent_dropout_mask_for_cell(
        self, inputs: Any, training: Any, count: int = 1
    ) -> Any:
        """The (cached) dropout mask(s) for the cell's recurrent state; None without."""
        return self._mask(
            "_recurrent_dropout_mask", self.recurrent_dropout, inputs, training, count
        )


class _GatedCell(_DropoutCell):
    """The arguments Keras' three cells share (see each cell for its math)."""

    _gates = 1
    units: int
    state_size: Any
    output_size: int

    def __init__(
        self,
        units: int,
        activation: Any,
        use_bias: bool,
        kernel_initializer: Any,
        recurrent_initializer: Any,
        bias_initializer: Any,
        kernel_regularizer: Any,
        recurrent_regularizer: Any,
        bias_regularizer: Any,
        kernel_constraint: Any,
        recurrent_constraint: Any,
        bias_constraint: Any,
        dropout: float,
        recurrent_dropout: float,
        **kwargs: Any,
    ):
        if int(units) <= 0:
            raise ValueError(
                "Received an invalid value for argument `units`, "
                f"expected a positive integer, got {units}."
            )
        kwargs.pop("enable_caching_device", None)
        super().__init__(**kwargs)
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints_get(kernel_constraint)
        self.recurrent_constraint = constraints_get(recurrent_constraint)
        self.bias_constraint = constraints_get(bias_constraint)
        self.dropout = min(1.0, max(0.0, float(dropout)))
        self.recurrent_dropout = min(1.0, max(0.0, float(recurrent_dropout)))
        self.bias: Any = None

    def _build_kernels(self, input_shape: Any) -> None:
        input_dim = int(TensorShape(input_shape).as_list()[-1])  # None: TF's TypeError
        width = self.units * self._gates
        self.kernel = self.add_weight(
            shape=(input_dim, width),
            name="kernel",
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.recurrent_kernel = self.add_weight(
            shape=(self.units, width),
            name="recurrent_kernel",
            initializer=self.recurrent_initializer,
            regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint,
        )

    def _add_bias(self, shape: tuple[int, ...], initializer: Any) -> None:
        self.bias = self.add_weight(
            shape=shape,
            name="bias",
            initializer=initializer,
            regularizer=self.bias_regularizer,
            constraint=self.bias_constraint,
        )

    def _columns(self, matrix: Any, gate: int, gates: int = 1) -> Any:
        """Columns ``[gate * units, (gate + gates) * units)`` of ``matrix`` (Keras' slices)."""
        start, stop = gate * self.units, (gate + gates) * self.units
        if len(matrix.shape) == 1:
            return matrix[start:stop]
        return matrix[:, start:stop]

    def get_initial_state(self, inputs: Any = None, batch_size: Any = None, dtype: Any = None):
        """Zeros of ``[batch_size, size]`` for each state (Keras' zero-filled state).

        Args:
          inputs: a ``[batch, ...]`` tensor the batch size and dtype come from, or None.
          batch_size: the batch size when ``inputs`` is None.
          dtype: the states' dtype when ``inputs`` is None.
        """
        if inputs is not None:
            inputs = ops.convert_to_tensor(inputs)
            zeros = [zero_state_like(s, inputs, inputs.dtype) for s in _state_list(self.state_size)]
        else:
            zeros = [
                op("zeros")([batch_size, s], dtype=dtype) for s in _state_list(self.state_size)
            ]
        return zeros if _nested(self.state_size) else zeros[0]


class SimpleRNNCell(_GatedCell):
    """One step of a fully-connected RNN (``tf.keras.layers.SimpleRNNCell``).

    ``h_t = activation(x_t @ kernel + bias + h_{t-1} @ recurrent_kernel)``; with
    dropout, ``x_t`` and ``h_{t-1}`` are multiplied by their (per-call) masks first.
    The state is ``[h_t]``, the output ``h_t``.

    Args (TF's defaults): units, activation='tanh', use_bias=True,
    kernel_initializer='glorot_uniform', recurrent_initializer='orthogonal',
    bias_initializer='zeros', kernel_regularizer=None, recurrent_regularizer=None,
    bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
    bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, **kwargs.

    Raises:
      ValueError: ``units`` not positive.
    """

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        **kwargs: Any,
    ):
        self._config = passed_arguments(locals())
        super().__init__(**self._config)
        self.state_size = self.units
        self.output_size = self.units

    def build(self, input_shape: Any) -> None:
        """Creates ``kernel [input_dim, units]``, ``recurrent_kernel [units, units]`` and
        ``bias [units]``."""
        self._build_kernels(input_shape)
        if self.use_bias:
            self._add_bias((self.units,), self.bias_initializer)
        self.built = True

    def call(  # type: ignore[override]
        self, inputs: Any, states: Any, training: Any = None
    ) -> tuple[Any, Any]:
        """``(h_t, [h_t])`` (``h_t`` alone as the state when ``states`` is a tensor)."""
        prev = states[0] if _nested(states) else states
        dp_mask = self.get_dropout_mask_for_cell(inputs, training)
        rec_dp_mask = self.get_recurrent_dropout_mask_for_cell(prev, training)
        h = backend.dot(inputs * dp_mask if dp_mask is not None else inputs, self.kernel)
        if self.bias is not None:
            h = backend.bias_add(h, self.bias)
        if rec_dp_mask is not None:
            prev = prev * rec_dp_mask
        output = self.activation(h + backend.dot(prev, self.recurrent_kernel))
        return output, [output] if _nested(states) else output


class LSTMCell(_GatedCell):
    """One step of Keras' v1 LSTM (``tf.keras.layers.LSTMCell`` in TF1 mode).

    With ``σ`` = ``recurrent_activation``, ``g`` = ``activation``, gate columns in
    the order i, f, c, o of ``kernel`` ``W``, ``recurrent_kernel`` ``U`` and ``bias``
    ``b``::

        i = σ(x W_i + b_i + h_{t-1} U_i)     f = σ(x W_f + b_f + h_{t-1} U_f)
        c_t = f * c_{t-1} + i * g(x W_c + b_c + h_{t-1} U_c)
        o = σ(x W_o + b_o + h_{t-1} U_o)     h_t = o * g(c_t)

    ``implementation=1`` takes one product per gate (each with its own dropout
    mask); ``implementation=2`` one product for the four (the first mask only, and
    no recurrent dropout, as Keras). The state is ``[h_t, c_t]``, the output ``h_t``.

    Args (TF's defaults): units, activation='tanh', recurrent_activation=
    'hard_sigmoid', use_bias=True, kernel_initializer='glorot_uniform',
    recurrent_initializer='orthogonal', bias_initializer='zeros',
    unit_forget_bias=True (the forget gate's bias starts at one), kernel_regularizer
    =None, recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
    recurrent_constraint=None, bias_constraint=None, dropout=0.0,
    recurrent_dropout=0.0, **kwargs (implementation=1; 2 becomes 1 with recurrent
    dropout).

    Raises:
      ValueError: ``units`` not positive.
    """

    _gates = 4

    _config_fixed = {"implementation": 1}
    _config_kwargs = ("implementation",)

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        recurrent_activation: Any = "hard_sigmoid",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        unit_forget_bias: bool = True,
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        **kwargs: Any,
    ):
        self._config = passed_arguments(locals())
        arguments = dict(self._config)
        implementation = arguments.pop("implementation", 1)
        arguments.pop("recurrent_activation")
        arguments.pop("unit_forget_bias")
        super().__init__(**arguments)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.unit_forget_bias = unit_forget_bias
        self.implementation = 1 if self.recurrent_dropout != 0 else int(implementation)
        self.state_size = [self.units, self.units]
        self.output_size = self.units

    def build(self, input_shape: Any) -> None:
        """Creates ``kernel [input_dim, 4 units]``, ``recurrent_kernel [units, 4 units]``
        and ``bias [4 units]``."""
        self._build_kernels(input_shape)
        if self.use_bias:
            inner, u = self.bias_initializer, self.units

            def forget_ones(shape: Any, dtype: Any = None, partition_info: Any = None) -> Any:
                ones = initializers.get("ones")
                parts = [inner((u,), dtype=dtype), ones((u,), dtype=dtype)]
                return backend.concatenate([*parts, inner((2 * u,), dtype=dtype)])

            self._add_bias((4 * u,), forget_ones if self.unit_forget_bias else inner)
        self.built = True

    def call(  # type: ignore[override]
        self, inputs: Any, states: Any, training: Any = None
    ) -> tuple[Any, Any]:
        """``(h_t, [h_t, c_t])`` from ``states = [h_{t-1}, c_{t-1}]``."""
        h_tm1, c_tm1 = states[0], states[1]
        dp_mask = self.get_dropout_mask_for_cell(inputs, training, count=4)
        rec_dp_mask = self.get_recurrent_dropout_mask_for_cell(h_tm1, training, count=4)
        act, rec = self.activation, self.recurrent_activation
        if self.implementation == 1:
            if 0 < self.dropout < 1:
                xs = [inputs * m for m in dp_mask]
            else:
                xs = [inputs] * 4
            kernels = op("split")(self.kernel, num_or_size_splits=4, axis=1)
            x = [backend.dot(xi, k) for xi, k in zip(xs, kernels, strict=True)]
            if self.use_bias:
                biases = op("split")(self.bias, num_or_size_splits=4, axis=0)
                x = [backend.bias_add(xi, b) for xi, b in zip(x, biases, strict=True)]
            if 0 < self.recurrent_dropout < 1:
                hs = [h_tm1 * m for m in rec_dp_mask]
            else:
                hs = [h_tm1] * 4
            rk = self.recurrent_kernel
            z = [x[k] + backend.dot(hs[k], self._columns(rk, k)) for k in range(4)]
        else:
            if 0 < self.dropout < 1:
                inputs = inputs * dp_mask[0]
            fused = backend.dot(inputs, self.kernel)
            fused = fused + backend.dot(h_tm1, self.recurrent_kernel)
            if self.use_bias:
                fused = backend.bias_add(fused, self.bias)
            z = op("split")(fused, num_or_size_splits=4, axis=1)
        i, f, o = rec(z[0]), rec(z[1]), rec(z[3])
        c = f * c_tm1 + i * act(z[2])
        h = o * act(c)
        return h, [h, c]


class GRUCell(_GatedCell):
    """One step of Keras' v1 GRU (``tf.keras.layers.GRUCell`` in TF1 mode).

    With ``σ`` = ``recurrent_activation``, ``g`` = ``activation``, gate columns in
    the order z, r, h of ``kernel`` ``W``, ``recurrent_kernel`` ``U`` and the input
    bias ``b`` (and, with ``reset_after``, a recurrent bias ``b'``: ``bias`` is then
    ``[2, 3 units]``)::

        z = σ(x W_z + b_z + h_{t-1} U_z [+ b'_z])
        r = σ(x W_r + b_r + h_{t-1} U_r [+ b'_r])
        hh = g(x W_h + b_h + (r * h_{t-1}) U_h)          reset_after=False
        hh = g(x W_h + b_h + r * (h_{t-1} U_h + b'_h))   reset_after=True
        h_t = z * h_{t-1} + (1 - z) * hh

    The state is ``[h_t]``, the output ``h_t``.

    Args (TF's defaults): units, activation='tanh', recurrent_activation=
    'hard_sigmoid', use_bias=True, kernel_initializer='glorot_uniform',
    recurrent_initializer='orthogonal', bias_initializer='zeros', regularizers and
    constraints None, dropout=0.0, recurrent_dropout=0.0, reset_after=False,
    **kwargs (implementation=1; 2 becomes 1 with recurrent dropout).

    Raises:
      ValueError: ``units`` not positive.
    """

    _gates = 3

    _config_fixed = {"implementation": 1}
    _config_kwargs = ("implementation",)

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        recurrent_activation: Any = "hard_sigmoid",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        reset_after: bool = False,
        **kwargs: Any,
    ):
        self._config = passed_arguments(locals())
        arguments = dict(self._config)
        implementation = arguments.pop("implementation", 1)
        for key in ("recurrent_activation", "reset_after"):
            arguments.pop(key)
        super().__init__(**arguments)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.reset_after = reset_after
        self.implementation = 1 if self.recurrent_dropout != 0 else int(implementation)
        self.state_size = self.units
        self.output_size = self.units

    def build(self, input_shape: Any) -> None:
        """Creates ``kernel [input_dim, 3 units]``, ``recurrent_kernel [units, 3 units]``
        and ``bias`` (``[3 units]``, or ``[2, 3 units]`` with ``reset_after``)."""
        self._build_kernels(input_shape)
        if self.use_bias:
            width = 3 * self.units
            self._add_bias((2, width) if self.reset_after else (width,), self.bias_initializer)
        self.built = True

    def call(  # type: ignore[override]
        self, inputs: Any, states: Any, training: Any = None
    ) -> tuple[Any, Any]:
        """``(h_t, [h_t])`` (``h_t`` alone as the state when ``states`` is a tensor)."""
        h_tm1 = states[0] if _nested(states) else states
        dp_mask = self.get_dropout_mask_for_cell(inputs, training, count=3)
        rec_dp_mask = self.get_recurrent_dropout_mask_for_cell(h_tm1, training, count=3)
        input_bias = recurrent_bias = None
        if self.use_bias:
            if self.reset_after:
                input_bias, recurrent_bias = op("unstack")(self.bias)
            else:
                input_bias = self.bias
        rec, col, rk = self.recurrent_activation, self._columns, self.recurrent_kernel
        if self.implementation == 1:
            xs = [inputs * m for m in dp_mask] if 0 < self.dropout < 1 else [inputs] * 3
            x = [backend.dot(xs[k], col(self.kernel, k)) for k in range(3)]
            if input_bias is not None:
                x = [backend.bias_add(x[k], col(input_bias, k)) for k in range(3)]
            hs = [h_tm1 * m for m in rec_dp_mask] if 0 < self.recurrent_dropout < 1 else [h_tm1] * 3
            recurrent = [backend.dot(hs[k], col(rk, k)) for k in range(2)]
            if recurrent_bias is not None:
                recurrent = [
                    backend.bias_add(recurrent[k], col(recurrent_bias, k)) for k in range(2)
                ]
            z = rec(x[0] + recurrent[0])
            r = rec(x[1] + recurrent[1])
            if self.reset_after:
                recurrent_h = backend.dot(hs[2], col(rk, 2))
                if recurrent_bias is not None:
                    recurrent_h = backend.bias_add(recurrent_h, col(recurrent_bias, 2))
                recurrent_h = r * recurrent_h
            else:
                recurrent_h = backend.dot(r * hs[2], col(rk, 2))
            x_h = x[2]
        else:
            if 0 < self.dropout < 1:
                inputs = inputs * dp_mask[0]
            matrix_x = backend.dot(inputs, self.kernel)
            if input_bias is not None:
                matrix_x = backend.bias_add(matrix_x, input_bias)
            x_z, x_r, x_h = op("split")(matrix_x, 3, axis=-1)
            if self.reset_after:
                inner = backend.dot(h_tm1, rk)
                if recurrent_bias is not None:
                    inner = backend.bias_add(inner, recurrent_bias)
            else:
                inner = backend.dot(h_tm1, col(rk, 0, 2))
            u = self.units
            rec_z, rec_r, recurrent_h = op("split")(inner, [u, u, -1], axis=-1)
            z = rec(x_z + rec_z)
            r = rec(x_r + rec_r)
            if self.reset_after:
                recurrent_h = r * recurrent_h
            else:
                recurrent_h = backend.dot(r * h_tm1, col(rk, 2))
        hh = self.activation(x_h + recurrent_h)
        h = z * h_tm1 + (1 - z) * hh
        return h, [h] if _nested(states) else h


class StackedRNNCells(_Container):
    """Cells applied one after another at each step (``tf.keras.layers.StackedRNNCells``).

    Each cell's output is the next one's input; the state is the list of the cells'
    states (``state_size`` the tuple of theirs), the output the last cell's.

    Args (TF's defaults): cells (a list of cells), **kwargs.

    Raises:
      ValueError: a cell without ``call`` or ``state_size`` (TF's messages).
      NotImplementedError: ``reverse_state_order=True``.
    """

    def __init__(self, cells: list[Any], **kwargs: Any):
        for cell in cells:
            if "call" not in dir(cell):
                raise ValueError(
                    "All cells must have a `call` method. "
                    f"Received cell without a `call` method: {cell}"
                )
            if "state_size" not in dir(cell):
                raise ValueError(
                    "All cells must have a `state_size` attribute. "
                    f"Received cell without a `state_size`: {cell}"
                )
        if kwargs.pop("reverse_state_order", False):
            raise NotImplementedError(
                "tf.keras.layers.StackedRNNCells: reverse_state_order=True is not "
                "supported by adapters.v1"
            )
        super().__init__(**kwargs)
        self.cells = list(cells)

    def _sublayers(self) -> list[Any]:
        return self.cells

    @property
    def state_size(self) -> tuple[Any, ...]:
        return tuple(c.state_size for c in self.cells)

    @property
    def output_size(self) -> Any:
        last = self.cells[-1]
        if getattr(last, "output_size", None) is not None:
            return last.output_size
        return _state_list(last.state_size)[0]

    def get_initial_state(self, inputs: Any = None, batch_size: Any = None, dtype: Any = None):
        """Each cell's initial state, in a tuple."""
        out = []
        for cell in self.cells:
            get = getattr(cell, "get_initial_state", None)
            if get is None:
                raise NotImplementedError(
                    "tf.keras.layers.StackedRNNCells: a cell without get_initial_state "
                    "in adapters.v1; pass initial_state"
                )
            out.append(get(inputs=inputs, batch_size=batch_size, dtype=dtype))
        return tuple(out)

    def build(self, input_shape: Any) -> None:
        """Builds each cell in a name scope of its name on the previous one's output."""
        shape = TensorShape(input_shape).as_list()
        graph = ops.get_default_graph()
        for cell in self.cells:
            if isinstance(cell, Layer) and not cell.built:
                with graph.name_scope(cell.name):
                    cell.build(TensorShape(shape))
                    cell.built = True
            size = getattr(cell, "output_size", None)
            if size is None:
                size = _state_list(cell.state_size)[0]
            shape = [shape[0], *TensorShape(size).as_list()]
        self.built = True

    def call(  # type: ignore[override]
        self, inputs: Any, states: Any, training: Any = None
    ) -> tuple[Any, Any]:
        """``(last output, new states)``: each cell on the previous cell's output."""
        leaves, _ = cf.flatten(states)
        packed = cf.flatten(list(self.state_size))[1]
        per_cell = packed.unflatten(leaves) if len(leaves) == packed.num_leaves else states
        new_states = []
        for cell, cell_states in zip(self.cells, per_cell, strict=True):
            cell_states = cell_states if _nested(cell_states) else [cell_states]
            kwargs = {"training": training} if has_arg(cell.call, "training") else {}
            call = cell.__call__ if callable(cell) else cell.call
            inputs, new = call(inputs, cell_states, **kwargs)
            new_states.append(new)
        flat = cf.flatten(new_states)[0]
        return inputs, packed.unflatten(flat)


def _cells_of(cell: Any) -> list[Any]:
    return list(cell.cells) if isinstance(cell, StackedRNNCells) else [cell]


def _draws_dropout(cell: Any) -> bool:
    return any(
        isinstance(c, _DropoutCell) and (c.dropout > 0 or c.recurrent_dropout > 0)
        for c in _cells_of(cell)
    )


def _spec_text(states: list[Any]) -> str:
    specs = []
    for s in states:
        shape = ops.convert_to_tensor(s).shape
        dims = tuple(shape.as_list()) if shape.ndims is not None else None
        specs.append(f"InputSpec(shape={dims}, ndim={len(dims) if dims is not None else None})")
    return "ListWrapper([" + ", ".join(specs) + "])"


# -- layers ------------------------------------------------------------------------------
class RNN(_Container):
    """A cell run over the time axis (``tf.keras.layers.RNN``): see the module docstring.

    ``call(inputs, mask=None, training=None, initial_state=None)``: ``inputs``
    ``[batch, time, features]`` (``[time, batch, ...]`` with ``time_major``), or a
    list ``[inputs, *initial_state]``.

    Args (TF's defaults): cell (a cell, or a list of cells: ``StackedRNNCells``),
    return_sequences=False, return_state=False, go_backwards=False, stateful=False,
    unroll=False, time_major=False, **kwargs (``zero_output_for_mask=False``).

    Raises:
      ValueError: a cell without ``call`` or ``state_size``; (when called) an
        ``initial_state`` that does not fit ``cell.state_size``, or ``unroll`` with an
        unknown number of steps (TF's messages).
      NotImplementedError: ``stateful=True``; ``constants``.
    """

    def __init__(
        self,
        cell: Any,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        time_major: bool = False,
        **kwargs: Any,
    ):
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        if "call" not in dir(cell):
            raise ValueError(
                f"Argument `cell` should have a `call` method. The RNN was passed: cell={cell}"
            )
        if "state_size" not in dir(cell):
            raise ValueError(
                "The RNN cell should have a `state_size` attribute (tuple of integers, one "
                f"integer per RNN state). Received: cell={cell}"
            )
        if stateful:
            raise NotImplementedError(
                f"tf.keras.layers.{type(self).__name__}: stateful=True is not supported by "
                "adapters.v1; carry the final states (return_state=True) into the next "
                "call's initial_state yourself"
            )
        self.zero_output_for_mask = bool(kwargs.pop("zero_output_for_mask", False))
        if "input_shape" not in kwargs and ("input_dim" in kwargs or "input_length" in kwargs):
            kwargs["input_shape"] = (
                kwargs.pop("input_length", None),
                kwargs.pop("input_dim", None),
            )
        super().__init__(**kwargs)
        self.cell = cell
        self.return_sequences = return_sequences
        self.return_state = return_state
        self.go_backwards = go_backwards
        self.stateful = False
        self.unroll = unroll
        self.time_major = time_major
        self.supports_masking = True

    def _sublayers(self) -> list[Any]:
        return [self.cell]

    def _arguments(self) -> dict[str, Any]:
        """The constructor arguments a copy takes (``Bidirectional``'s two layers)."""
        return {
            "cell": _clone_cell(self.cell),
            "return_sequences": self.return_sequences,
            "return_state": self.return_state,
            "go_backwards": self.go_backwards,
            "unroll": self.unroll,
            "time_major": self.time_major,
            "trainable": self.trainable,
            "dtype": self.dtype,
        }

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        """Calls the layer; a list ``[inputs, *states]`` passes the initial states.

        Raises:
          NotImplementedError: ``constants``.
        """
        if kwargs.get("constants") is not None:
            raise NotImplementedError(
                f"tf.keras.layers.{type(self).__name__}: constants are not supported by adapters.v1"
            )
        kwargs.pop("constants", None)
        if isinstance(inputs, list):
            if len(inputs) > 1 and kwargs.get("initial_state") is None:
                kwargs["initial_state"] = list(inputs[1:])
            inputs = inputs[0]
        state = kwargs.get("initial_state")
        if state is not None and not isinstance(state, list):
            kwargs["initial_state"] = list(state) if isinstance(state, tuple) else [state]
        return super().__call__(inputs, *args, **kwargs)

    def build(self, input_shape: Any) -> None:
        """Builds the cell in a name scope of its name, on one step's input shape."""
        dims = TensorShape(input_shape).as_list()
        step = dims[1:] if self.time_major else dims[:1] + dims[2:]
        if self.input_spec is None:
            self.input_spec = InputSpec(ndim=len(dims))
        cell = self.cell
        if isinstance(cell, Layer) and not cell.built:
            with ops.get_default_graph().name_scope(cell.name):
                cell.build(TensorShape(step))
                cell.built = True
        self.built = True

    def _initial_states(self, initial_state: Any, batch_major: Any) -> list[Any]:
        sizes = _state_list(self.cell.state_size)
        dtype = batch_major.dtype
        if initial_state is None:
            get = getattr(self.cell, "get_initial_state", None)
            if get is not None:
                state = get(inputs=batch_major[:, 0], batch_size=None, dtype=dtype)
            else:
                state = [zero_state_like(s, batch_major[:, 0], dtype) for s in sizes]
            return list(state) if _nested(state) else [state]
        given = [ops.convert_to_tensor(s) for s in cf.flatten(initial_state)[0]]
        structure = cf.flatten(sizes)[1]
        fits = len(given) == structure.num_leaves
        if fits:
            for s, size in zip(given, cf.flatten(sizes)[0], strict=True):
                if s.shape.ndims is not None and not TensorShape(
                    s.shape.as_list()[1:]
                ).is_compatible_with(TensorShape(size)):
                    fits = False
        if not fits:
            raise ValueError(
                "An `initial_state` was passed that is not compatible with "
                f"`cell.state_size`. Received `state_spec`={_spec_text(given)}; "
                f"however `cell.state_size` is {sizes}"
            )
        return structure.unflatten(given)

    def call(
        self,
        inputs: Any,
        mask: Any = None,
        training: Any = None,
        initial_state: Any = None,
        constants: Any = None,
    ) -> Any:
        """The outputs (and states) of the cell over the sequence: see the class."""
        cell = self.cell
        steps = inputs.shape.as_list()[0 if self.time_major else 1]
        if self.unroll and steps is None:
            raise ValueError(_UNROLL_MESSAGE)
        xs = inputs if self.time_major else _swap(inputs)  # [time, batch, ...]
        batch_major = _swap(inputs) if self.time_major else inputs
        states = self._initial_states(initial_state, batch_major)
        flags = None
        if mask is not None:
            flags = op("expand_dims")(op("cast")(mask, dtypes.bool), -1)
            if not self.time_major:
                flags = _swap(flags)
        if self.go_backwards:
            xs = op("reverse")(xs, [0])
            flags = None if flags is None else op("reverse")(flags, [0])
        for c in _cells_of(cell):
            if isinstance(c, _DropoutCell):
                c.reset_dropout_mask()
                c.reset_recurrent_dropout_mask()
        kwargs = {"training": training} if has_arg(cell.call, "training") else {}
        call = cell.__call__ if callable(cell) else cell.call

        def step(x: Any, old: Any) -> tuple[Any, Any]:
            output, new = call(x, old, **kwargs)
            new = new if _nested(new) else [new]
            leaves, tree = cf.flatten(new)
            like = cf.flatten(old)[1]
            if tree != like:
                if len(leaves) != like.num_leaves:
                    cf.assert_same_structure(old, new)
                new = like.unflatten(leaves)
            return output, new

        first = None
        if flags is not None or _draws_dropout(cell):
            # Keras' call on the first step before the loop: it draws the dropout masks
            # (outside the loop, once per run) and gives the zero output for masking.
            first, _ = step(xs[0], states)
        if flags is None:
            outputs, final = _rnn_loop(step, [xs], cf.flatten(xs)[1], states, None)
        else:
            zero = op("zeros_like")(first)
            zero_output = self.zero_output_for_mask

            def masked(inp: Any, carry: Any) -> tuple[Any, Any]:
                (x, keep), (old, previous) = inp, carry
                output, new = step(x, old)
                where = op("where_v2")
                output = where(keep, output, zero if zero_output else previous)
                new_leaves = [
                    where(keep, n, o)
                    for n, o in zip(cf.flatten(new)[0], cf.flatten(old)[0], strict=True)
                ]
                return output, (cf.flatten(old)[1].unflatten(new_leaves), output)

            pair = (xs, flags)
            outputs, (final, _) = _rnn_loop(
                masked, list(pair), cf.flatten(pair)[1], (states, zero), None
            )
        if self.return_sequences:
            output = outputs if self.time_major else _swap(outputs)
        else:
            output = outputs[-1]
        if self.return_state:
            return [output, *final]
        return output


def _swap(x: Any) -> Any:
    """``x`` with its first two axes swapped (batch-major <-> time-major)."""
    rank = x.shape.ndims
    return op("transpose")(x, [1, 0, *range(2, rank)])


def _clone_cell(cell: Any) -> Any:
    """A new cell of ``cell``'s class and arguments (Keras' ``from_config`` copy)."""
    if isinstance(cell, StackedRNNCells):
        return StackedRNNCells([_clone_cell(c) for c in cell.cells], name=cell.name)
    config = getattr(cell, "_config", None)
    if config is None:
        raise NotImplementedError(
            f"tf.keras.layers.Bidirectional: adapters.v1 cannot copy the cell {cell!r}; "
            "pass backward_layer= (and build the forward layer yourself)"
        )
    return type(cell)(**dict(config, name=cell.name))


def _cell_property(name: str) -> property:
    return property(lambda self: getattr(self.cell, name), doc=f"The cell's ``{name}``.")


class _CellLayer(RNN):
    """An RNN layer that makes its own cell from its arguments (SimpleRNN, LSTM, GRU)."""

    _cell_class: type
    _cell_name: str
    units = _cell_property("units")
    activation = _cell_property("activation")
    use_bias = _cell_property("use_bias")
    dropout = _cell_property("dropout")
    recurrent_dropout = _cell_property("recurrent_dropout")
    kernel_initializer = _cell_property("kernel_initializer")
    recurrent_initializer = _cell_property("recurrent_initializer")
    bias_initializer = _cell_property("bias_initializer")

    def _make(self, arguments: dict[str, Any]) -> None:
        self._config = dict(arguments)
        layer_keys = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll")
        layer_args = {k: arguments.pop(k) for k in layer_keys}
        activity = arguments.pop("activity_regularizer", None)
        cell_keys = set(inspect.signature(self._cell_class.__init__).parameters)
        cell_keys -= {"self", "kwargs"}
        cell_args = {k: arguments.pop(k) for k in list(arguments) if k in cell_keys}
        if "implementation" in arguments:
            cell_args["implementation"] = max(1, int(arguments.pop("implementation")))
        if "enable_caching_device" in arguments:
            cell_args["enable_caching_device"] = arguments.pop("enable_caching_device")
        cell = self._cell_class(
            dtype=arguments.get("dtype"),
            trainable=arguments.get("trainable", True),
            name=self._cell_name,
            **cell_args,
        )
        super().__init__(cell, activity_regularizer=activity, **layer_args, **arguments)
        self.input_spec = InputSpec(ndim=3)

    def _arguments(self) -> dict[str, Any]:
        arguments = {k: v for k, v in self._config.items() if k not in ("name", "input_shape")}
        arguments.update(go_backwards=self.go_backwards, trainable=self.trainable)
        return arguments


_LAYER_ARGS = """return_sequences=False, return_state=False, go_backwards=False,
    stateful=False (True: NotImplementedError), unroll=False, **kwargs (time_major=False,
    name, dtype, input_shape...)"""


class SimpleRNN(_CellLayer):
    """A fully-connected RNN over a sequence (``tf.keras.layers.SimpleRNN``): the
    ``SimpleRNNCell`` named ``simple_rnn_cell`` under an ``RNN``.

    Args (TF's defaults): units, activation='tanh', use_bias=True,
    kernel_initializer='glorot_uniform', recurrent_initializer='orthogonal',
    bias_initializer='zeros', kernel_regularizer=None, recurrent_regularizer=None,
    bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
    recurrent_constraint=None, bias_constraint=None, dropout=0.0,
    recurrent_dropout=0.0, {layer_args}.
    """

    __doc__ = (__doc__ or "").format(layer_args=_LAYER_ARGS)
    _cell_class, _cell_name = SimpleRNNCell, "simple_rnn_cell"

    _config_fixed = {"time_major": False}
    _config_kwargs = ("time_major",)

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        **kwargs: Any,
    ):
        arguments = passed_arguments(locals())
        arguments.pop("implementation", None)
        self._make(arguments)


class LSTM(_CellLayer):
    """Keras' v1 LSTM over a sequence (``tf.keras.layers.LSTM`` in TF1 mode): the
    ``LSTMCell`` (gate equations there) named ``lstm_cell`` under an ``RNN``; the
    states are ``[h, c]``.

    Args (TF's defaults): units, activation='tanh', recurrent_activation=
    'hard_sigmoid', use_bias=True, kernel_initializer='glorot_uniform',
    recurrent_initializer='orthogonal', bias_initializer='zeros',
    unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None,
    bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
    recurrent_constraint=None, bias_constraint=None, dropout=0.0,
    recurrent_dropout=0.0, {layer_args}, implementation=1.
    """

    __doc__ = (__doc__ or "").format(layer_args=_LAYER_ARGS)
    _cell_class, _cell_name = LSTMCell, "lstm_cell"
    recurrent_activation = _cell_property("recurrent_activation")
    unit_forget_bias = _cell_property("unit_forget_bias")
    implementation = _cell_property("implementation")

    _config_fixed = {"time_major": False, "implementation": 1}
    _config_kwargs = ("time_major", "implementation")

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        recurrent_activation: Any = "hard_sigmoid",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        unit_forget_bias: bool = True,
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        **kwargs: Any,
    ):
        self._make(passed_arguments(locals()))


class GRU(_CellLayer):
    """Keras' v1 GRU over a sequence (``tf.keras.layers.GRU`` in TF1 mode): the
    ``GRUCell`` (gate equations there) named ``gru_cell`` under an ``RNN``.

    Args (TF's defaults): units, activation='tanh', recurrent_activation=
    'hard_sigmoid', use_bias=True, kernel_initializer='glorot_uniform',
    recurrent_initializer='orthogonal', bias_initializer='zeros',
    kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
    activity_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
    bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, {layer_args},
    reset_after=False, implementation=1.
    """

    __doc__ = (__doc__ or "").format(layer_args=_LAYER_ARGS)
    _cell_class, _cell_name = GRUCell, "gru_cell"
    recurrent_activation = _cell_property("recurrent_activation")
    reset_after = _cell_property("reset_after")
    implementation = _cell_property("implementation")

    _config_fixed = {"time_major": False, "implementation": 1}
    _config_kwargs = ("time_major", "implementation")

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        recurrent_activation: Any = "hard_sigmoid",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        reset_after: bool = False,
        **kwargs: Any,
    ):
        self._make(passed_arguments(locals()))


def clone_layer(layer: Any, go_backwards: bool = False) -> Any:
    """A new layer of ``layer``'s class and arguments, ``go_backwards`` flipped when asked
    (Keras' ``from_config`` copy, as ``Bidirectional`` makes its two layers).

    Raises:
      NotImplementedError: a layer that is not one of these recurrent layers.
    """
    if not isinstance(layer, RNN):
        raise NotImplementedError(
            f"tf.keras.layers.Bidirectional in adapters.v1 copies recurrent layers only, got "
            f"{type(layer).__name__}; pass backward_layer="
        )
    arguments = layer._arguments()
    if go_backwards:
        arguments["go_backwards"] = not layer.go_backwards
    arguments["name"] = layer.name
    clone = type(layer)(**arguments)
    clone.zero_output_for_mask = layer.zero_output_for_mask
    return clone
