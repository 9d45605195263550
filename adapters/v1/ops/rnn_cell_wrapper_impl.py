"""TF1's RNN cell wrappers: ``DropoutWrapper``, ``ResidualWrapper``, ``DeviceWrapper``.

A wrapper has its cell's sizes and variables and no variable scope of its own:
a wrapped ``BasicLSTMCell`` keeps ``rnn/basic_lstm_cell/kernel``.
"""

from __future__ import annotations

import hashlib
import numbers
from collections.abc import Callable
from typing import Any

from adapters.v1.framework import ops
from adapters.v1.framework.op_def import FUNCTIONS
from adapters.v1.ops import control_flow_ops as cf
from adapters.v1.ops import nn_dropout, random_ops
from adapters.v1.ops.rnn_cell_impl import LSTMStateTuple, RNNCell, assert_like_rnncell

__all__ = ["DropoutWrapper", "ResidualWrapper", "DeviceWrapper"]


class _RNNCellWrapper(RNNCell):
    """A cell around ``cell``: same sizes and variables, no variable scope of its own."""

    def __init__(self, cell: Any, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        assert_like_rnncell("cell", cell)
        self.cell = cell

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> Any:
        return self._call_wrapped_cell(inputs, state, self.cell.__call__, scope=scope)

    def _call_wrapped_cell(
        self, inputs: Any, state: Any, cell_call_fn: Callable[..., Any], **kwargs: Any
    ) -> Any:
        raise NotImplementedError

    @property
    def state_size(self) -> Any:
        return self.cell.state_size

    @property
    def output_size(self) -> Any:
        return self.cell.output_size

    @property
    def trainable_weights(self) -> list[Any]:
        return list(getattr(self.cell, "trainable_weights", []))

    @property
    def non_trainable_weights(self) -> list[Any]:
        return list(getattr(self.cell, "non_trainable_weights", []))

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        with ops.name_scope(type(self).__name__ + "ZeroState"):
            return self.cell.zero_state(batch_size, dtype)


def _keep_all_but_lstm_memory(substate: Any) -> Any:
    """The default state filter: every state but an ``LSTMStateTuple``'s ``c`` is dropped out."""
    if isinstance(substate, LSTMStateTuple):
        return LSTMStateTuple(c=False, h=True)
    return True


class DropoutWrapper(_RNNCellWrapper):
    """Dropout on a cell's inputs, outputs and (outgoing) states; a fresh mask every step,
    or with ``variational_recurrent`` one mask per run for every step (TF's: a
    ``[1, size]`` uniform noise per input, state and output tensor drawn when the
    wrapper is built, shared by the batch; ``value / keep_prob * floor(keep_prob +
    noise)``). The masks' values differ from TF's, as every random op's.

    A keep probability that is the Python number 1 adds no op; a tensor is always
    applied. State dropout skips an ``LSTMStateTuple``'s memory ``c`` unless
    ``dropout_state_filter_visitor`` says otherwise.

    Args (TF's defaults):
      cell: the wrapped cell.
      input_keep_prob: keep probability of the inputs (1.0).
      output_keep_prob: keep probability of the outputs (1.0).
      state_keep_prob: keep probability of the new states (1.0).
      variational_recurrent: one mask per run, the same at every step (False).
      input_size: the inputs' depth (structure), needed with ``variational_recurrent``
        when ``input_keep_prob`` is not 1.
      dtype: the noise's dtype, needed with ``variational_recurrent``.
      seed: the op-level seed (each dropout gets one derived from it, as TF's).
      dropout_state_filter_visitor: which parts of the state to drop out.
      **kwargs: ``Layer``'s keyword arguments.

    Raises:
      TypeError: ``dropout_state_filter_visitor`` is not callable.
      ValueError: a constant keep probability outside ``[0, 1]``; ``variational_recurrent``
        without ``dtype`` (or without ``input_size`` where it is needed).
    """

    def __init__(
        self,
        cell: Any,
        input_keep_prob: Any = 1.0,
        output_keep_prob: Any = 1.0,
        state_keep_prob: Any = 1.0,
        variational_recurrent: bool = False,
        input_size: Any = None,
        dtype: Any = None,
        seed: int | None = None,
        dropout_state_filter_visitor: Callable[[Any], Any] | None = None,
        **kwargs: Any,
    ):
        super().__init__(cell, dtype=dtype, **kwargs)
        if dropout_state_filter_visitor is not None and not callable(dropout_state_filter_visitor):
            raise TypeError(
                "dropout_state_filter_visitor must be callable. Received: "
                f"{dropout_state_filter_visitor}"
            )
        self._filter = dropout_state_filter_visitor or _keep_all_but_lstm_memory
        self._seed = seed
        probs = {}
        for prob, attr in (
            (input_keep_prob, "input_keep_prob"),
            (state_keep_prob, "state_keep_prob"),
            (output_keep_prob, "output_keep_prob"),
        ):
            if isinstance(prob, numbers.Real):
                if prob < 0 or prob > 1:
                    raise ValueError(f"Parameter {attr} must be between 0 and 1. Received {prob}")
                probs[attr] = float(prob)
            else:
                probs[attr] = ops.convert_to_tensor(prob)
        self._input_keep_prob = probs["input_keep_prob"]
        self._state_keep_prob = probs["state_keep_prob"]
        self._output_keep_prob = probs["output_keep_prob"]
        self._variational_recurrent = variational_recurrent
        self._noise: dict[str, list[Any]] = {}
        if variational_recurrent:
            if dtype is None:
                raise ValueError("When variational_recurrent=True, dtype must be provided")

            def batch_noise(sizes: Any, salt: str) -> list[Any]:
                leaves = cf.flatten(sizes)[0]
                return [
                    random_ops.random_uniform(
                        [1, *_dims(s)], seed=self._gen_seed(salt, i), dtype=dtype
                    )
                    for i, s in enumerate(leaves)
                ]

            if not isinstance(self._input_keep_prob, float) or self._input_keep_prob < 1.0:
                if input_size is None:
                    raise ValueError(
                        "When variational_recurrent=True and input_keep_prob < 1.0 or "
                        "is unknown, input_size must be provided"
                    )
                self._noise["input"] = batch_noise(input_size, "input")
            self._noise["state"] = batch_noise(cell.state_size, "state")
            self._noise["output"] = batch_noise(cell.output_size, "output")

    @property
    def wrapped_cell(self) -> Any:
        return self.cell

    def _gen_seed(self, salt_prefix: str, index: int) -> int | None:
        if self._seed is None:
            return None
        text = f"{self._seed}{salt_prefix}_{index}".encode()
        return int(hashlib.md5(text).hexdigest()[:8], 16) & 0x7FFFFFFF

    def _dropout(self, values: Any, salt: str, keep_prob: Any, flags: Any = None) -> Any:
        leaves, structure = cf.flatten(values)
        flags = [True] * len(leaves) if flags is None else flags
        if self._variational_recurrent:
            out = [
                _variational_dropout(v, n, keep_prob) if keep else v
                for v, n, keep in zip(leaves, self._noise[salt], flags, strict=True)
            ]
            return structure.unflatten(out)
        out = [
            nn_dropout.dropout(v, rate=1.0 - keep_prob, seed=self._gen_seed(salt, i)) if keep else v
            for i, (v, keep) in enumerate(zip(leaves, flags, strict=True))
        ]
        return structure.unflatten(out)

    def _call_wrapped_cell(
        self, inputs: Any, state: Any, cell_call_fn: Callable[..., Any], **kwargs: Any
    ) -> Any:
        def should(p: Any) -> bool:
            return not isinstance(p, float) or p < 1

        if should(self._input_keep_prob):
            inputs = self._dropout(inputs, "input", self._input_keep_prob)
        output, new_state = cell_call_fn(inputs, state, **kwargs)
        if should(self._state_keep_prob):
            flags = _leaf_flags(self._filter, new_state)
            new_state = self._dropout(new_state, "state", self._state_keep_prob, flags)
        if should(self._output_keep_prob):
            output = self._dropout(output, "output", self._output_keep_prob)
        return output, new_state


def _dims(size: Any) -> list[int]:
    """A ``state_size``/``output_size`` leaf (an int or a shape) as a list of dims."""
    if isinstance(size, numbers.Integral):
        return [int(size)]
    as_list = getattr(size, "as_list", None)
    return [int(d) for d in (as_list() if as_list is not None else size)]


def _variational_dropout(value: Any, noise: Any, keep_prob: Any) -> Any:
    """TF's ``_variational_recurrent_dropout_value``: the run's mask on ``value``."""
    binary = FUNCTIONS["floor"](FUNCTIONS["add"](keep_prob, noise))
    return FUNCTIONS["multiply"](FUNCTIONS["divide"](value, keep_prob), binary)


def _leaf_flags(visitor: Callable[[Any], Any], state: Any) -> list[bool]:
    """Whether to drop out each tensor of ``state`` (flattened), as the filter decides.

    The filter returns a bool for a whole sub-structure or a structure of decisions
    one level down (``LSTMStateTuple(c=False, h=True)``).
    """

    def size(value: Any) -> int:
        return len(cf.flatten(value)[0])

    def walk(value: Any, decision: Any) -> list[bool]:
        if isinstance(decision, bool):
            if not decision or not isinstance(value, (list, tuple, dict)):
                return [decision] * size(value)
            return [f for child in _children(value) for f in walk(child, visitor(child))]
        return [
            f
            for child, d in zip(_children(value), _children(decision), strict=True)
            for f in walk(child, visitor(child) if d is True else d)
        ]

    return walk(state, visitor(state))


def _children(value: Any) -> list[Any]:
    return [value[k] for k in sorted(value)] if isinstance(value, dict) else list(value)


class ResidualWrapper(_RNNCellWrapper):
    """A cell whose output is ``residual_fn(inputs, cell_output)`` (default: their sum).

    Args (TF's defaults):
      cell: the wrapped cell.
      residual_fn: ``(inputs, outputs) -> outputs`` (default: ``inputs + outputs``,
        same structure and compatible shapes).
      **kwargs: ``Layer``'s keyword arguments.
    """

    def __init__(self, cell: Any, residual_fn: Callable[[Any, Any], Any] | None = None, **kwargs):
        super().__init__(cell, **kwargs)
        self._residual_fn = residual_fn

    def _call_wrapped_cell(
        self, inputs: Any, state: Any, cell_call_fn: Callable[..., Any], **kwargs: Any
    ) -> Any:
        outputs, new_state = cell_call_fn(inputs, state, **kwargs)

        def default(inputs: Any, outputs: Any) -> Any:
            cf.assert_same_structure(inputs, outputs)
            ins, outs = cf.flatten(inputs)[0], cf.flatten(outputs)[0]
            for i, o in zip(ins, outs, strict=True):
                i.shape.assert_is_compatible_with(o.shape)
            summed = [i + o for i, o in zip(ins, outs, strict=True)]
            return cf.flatten(inputs)[1].unflatten(summed)

        return (self._residual_fn or default)(inputs, outputs), new_state


class DeviceWrapper(_RNNCellWrapper):
    """A cell whose step (and zero state) is built under ``tf.device(device)``.

    Args (TF's defaults):
      cell: the wrapped cell.
      device: the device name (recorded on the ops; the step program is one XLA program).
      **kwargs: ``Layer``'s keyword arguments.
    """

    def __init__(self, cell: Any, device: str, **kwargs: Any):
        super().__init__(cell, **kwargs)
        self._device = device

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        with ops.name_scope(type(self).__name__ + "ZeroState"):
            with ops.device(self._device):
                return self.cell.zero_state(batch_size, dtype)

    def _call_wrapped_cell(
        self, inputs: Any, state: Any, cell_call_fn: Callable[..., Any], **kwargs: Any
    ) -> Any:
        with ops.device(self._device):
            return cell_call_fn(inputs, state, **kwargs)
