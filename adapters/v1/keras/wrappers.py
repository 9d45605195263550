"""``tf.keras.layers.Bidirectional`` and ``TimeDistributed`` as TF 2.21's legacy Keras
builds them in a TF1 graph.

``Bidirectional(layer)`` runs two copies of a recurrent layer (Keras'
``from_config`` copies, named ``forward_<name>`` and ``backward_<name>``, the
second with ``go_backwards`` flipped) and merges their outputs; their variables
are ``bidirectional/forward_lstm/lstm_cell/kernel:0``... (measured live).
``TimeDistributed(layer)`` applies ``layer`` to each time step by folding the
time axis into the batch (Keras' reshape path; the inner layer's variables are
built under the wrapper's name: ``time_distributed/kernel:0``).
"""

from __future__ import annotations

from typing import Any

from adapters.v1.framework import ops
from adapters.v1.framework.tensor_shape import TensorShape
from adapters.v1.keras import backend, saving
from adapters.v1.keras.layers import InputSpec, Layer
from adapters.v1.keras.recurrent import _Container, clone_layer, has_arg
from adapters.v1.layers.base import op

__all__ = ["Bidirectional", "TimeDistributed"]

_MERGE_MODES = ("sum", "mul", "ave", "concat", None)


class Bidirectional(_Container):
    """A recurrent layer run forwards and backwards (``tf.keras.layers.Bidirectional``).

    The backward layer's sequence output is reversed back to the input's order
    before merging: ``concat`` (on the last axis), ``sum``, ``ave`` (the mean),
    ``mul``, or None (the two outputs as a list). With ``return_state`` the result
    is ``[output] + forward states + backward states``; an ``initial_state`` (or a
    list input ``[inputs, *states]``) is split in halves, forward first. With
    ``return_sequences`` both layers output zeros at masked steps
    (``zero_output_for_mask``).

    Args (TF's defaults): layer (an ``RNN`` layer), merge_mode='concat',
    weights=None, backward_layer=None (a copy of ``layer`` going backwards),
    **kwargs.

    Raises:
      ValueError: ``layer`` or ``backward_layer`` not a layer, an unknown
        ``merge_mode``, or layers that do not pair (TF's messages).
      NotImplementedError: ``weights`` (use ``set_weights`` once built).
    """

    _config_skip = ("backward_layer",)

    def get_config(self) -> dict[str, Any]:
        """Keras' config: ``layer`` (the forward layer given), ``merge_mode``, and
        ``backward_layer`` where one was given."""
        config = super().get_config()
        backward = self.__dict__.get("_init_arguments", {}).get("backward_layer")
        if backward is not None:
            config["backward_layer"] = saving.serialize_keras_object(backward)
        return config

    def __init__(
        self,
        layer: Any,
        merge_mode: str | None = "concat",
        weights: Any = None,
        backward_layer: Any = None,
        **kwargs: Any,
    ):
        if not isinstance(layer, Layer):
            raise ValueError(
                "Please initialize `Bidirectional` layer with a "
                f"`tf.keras.layers.Layer` instance. Received: {layer}"
            )
        if backward_layer is not None and not isinstance(backward_layer, Layer):
            raise ValueError(
                "`backward_layer` need to be a `tf.keras.layers.Layer` "
                f"instance. Received: {backward_layer}"
            )
        if merge_mode not in _MERGE_MODES:
            raise ValueError(
                f"Invalid merge mode. Received: {merge_mode}. Merge mode should be one of "
                '{"sum", "mul", "ave", "concat", None}'
            )
        if weights is not None:
            raise NotImplementedError(
                "tf.keras.layers.Bidirectional: the `weights` argument is not supported by "
                "adapters.v1; call layer.set_weights(values) after the layer is built"
            )
        super().__init__(**kwargs)
        self.layer = layer
        self.forward_layer = clone_layer(layer)
        self.backward_layer = (
            clone_layer(layer, go_backwards=True) if backward_layer is None else backward_layer
        )
        self.forward_layer._name = "forward_" + self.forward_layer.name
        self.backward_layer._name = "backward_" + self.backward_layer.name
        self._verify_layers()
        for sub in (self.forward_layer, self.backward_layer):
            if getattr(sub, "zero_output_for_mask", None) is not None:
                sub.zero_output_for_mask = sub.return_sequences
        self.merge_mode = merge_mode
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        self.supports_masking = True
        self.input_spec = layer.input_spec

    def _verify_layers(self) -> None:
        fw, bw = self.forward_layer, self.backward_layer
        if fw.go_backwards == bw.go_backwards:
            raise ValueError(
                "Forward layer and backward layer should have different `go_backwards` "
                f"value.forward_layer.go_backwards = {fw.go_backwards},"
                f"backward_layer.go_backwards = {bw.go_backwards}"
            )
        for a in ("stateful", "return_sequences", "return_state"):
            if getattr(fw, a) != getattr(bw, a):
                raise ValueError(
                    "Forward layer and backward layer are expected to have the same value "
                    f'for attribute "{a}", got "{getattr(fw, a)}" for forward layer and '
                    f'"{getattr(bw, a)}" for backward layer'
                )

    def _sublayers(self) -> list[Any]:
        return [self.forward_layer, self.backward_layer]

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        """Calls the layer; a list ``[inputs, *states]`` passes the initial states."""
        if isinstance(inputs, list):
            if len(inputs) > 1 and kwargs.get("initial_state") is None:
                kwargs["initial_state"] = list(inputs[1:])
            inputs = inputs[0]
        return super().__call__(inputs, *args, **kwargs)

    def build(self, input_shape: Any) -> None:
        """Nothing to build: each direction builds on its first call, under this
        layer's name scope."""
        self.built = True

    def call(
        self, inputs: Any, training: Any = None, mask: Any = None, initial_state: Any = None
    ) -> Any:
        """The merged outputs (and the states): see the class."""
        kwargs: dict[str, Any] = {}
        if has_arg(self.forward_layer.call, "training"):
            kwargs["training"] = training
        if has_arg(self.forward_layer.call, "mask"):
            kwargs["mask"] = mask
        states: list[Any] = [None, None]
        if initial_state is not None:
            half = len(initial_state) // 2
            states = [list(initial_state[:half]), list(initial_state[half:])]
        y = self.forward_layer(inputs, initial_state=states[0], **kwargs)
        y_rev = self.backward_layer(inputs, initial_state=states[1], **kwargs)
        final: list[Any] = []
        if self.return_state:
            final = list(y[1:]) + list(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            time_axis = 0 if getattr(self.forward_layer, "time_major", False) else 1
            y_rev = op("reverse")(y_rev, [time_axis])
        if self.merge_mode == "concat":
            output: Any = backend.concatenate([y, y_rev])
        elif self.merge_mode == "sum":
            output = y + y_rev
        elif self.merge_mode == "ave":
            output = (y + y_rev) / 2
        elif self.merge_mode == "mul":
            output = y * y_rev
        else:
            output = [y, y_rev]
        if self.return_state:
            return output + final if self.merge_mode is None else [output, *final]
        return output


class TimeDistributed(_Container):
    """``layer`` applied to every time step (``tf.keras.layers.TimeDistributed``).

    ``[batch, time, ...]`` is folded to ``[batch * time, ...]``, ``layer`` is called on
    it (with ``training`` and ``mask`` when its ``call`` takes them) and the result
    is unfolded to ``[batch, time, ...]``.

    Args (TF's defaults): layer, **kwargs.

    Raises:
      ValueError: ``layer`` not a layer; (when called) an input of rank < 3 (TF's
        messages).
    """

    def __init__(self, layer: Any, **kwargs: Any):
        if not isinstance(layer, Layer):
            raise ValueError(
                "Please initialize `TimeDistributed` layer with a "
                f"`tf.keras.layers.Layer` instance. Received: {layer}"
            )
        super().__init__(**kwargs)
        self.layer = layer
        self.supports_masking = True

    def _sublayers(self) -> list[Any]:
        return [self.layer]

    def build(self, input_shape: Any) -> None:
        """Builds ``layer`` on one step's shape, under this layer's name scope.

        Raises:
          ValueError: an input of rank < 3.
        """
        shape = TensorShape(input_shape)
        if shape.ndims is not None and shape.ndims < 3:
            raise ValueError(
                "`TimeDistributed` Layer should be passed an `input_shape ` with at least "
                f"3 dimensions, received: {shape}"
            )
        dims = shape.as_list()
        self.input_spec = InputSpec(ndim=len(dims))
        if not self.layer.built:
            self.layer.build(TensorShape([dims[0], *dims[2:]]))
            self.layer.built = True
        self.built = True

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        """``layer`` on each step of ``inputs``: see the class."""
        dims = inputs.shape.as_list()
        dynamic = None

        def size(axis: int) -> Any:
            nonlocal dynamic
            if dims[axis] is not None:
                return dims[axis]
            if dynamic is None:
                dynamic = op("shape")(inputs)
            return dynamic[axis]

        inner = [size(a) for a in range(2, len(dims))]
        folded = op("reshape")(inputs, _shape([-1, *inner]))
        kwargs: dict[str, Any] = {}
        if has_arg(self.layer.call, "training"):
            kwargs["training"] = training
        if mask is not None and has_arg(self.layer.call, "mask"):
            kwargs["mask"] = op("reshape")(mask, [-1])
        y = ops.convert_to_tensor(self.layer(folded, **kwargs))
        out_dims = y.shape.as_list()[1:]
        # the batch as a size, not -1, when the steps are unknown: the reshape's static
        # shape then keeps the batch unknown
        batch = -1 if dims[1] is not None else size(0)
        if any(d is None for d in out_dims):
            lead = op("stack")([op("cast")(d, "int32") for d in (batch, size(1))])
            return op("reshape")(y, op("concat")([lead, op("shape")(y)[1:]], 0))
        return op("reshape")(y, _shape([batch, size(1), *out_dims]))


def _shape(dims: list[Any]) -> Any:
    """A shape argument: the list itself when every size is known, else a stacked tensor."""
    if all(isinstance(d, int) for d in dims):
        return dims
    return op("stack")([op("cast")(d, "int32") if not isinstance(d, int) else d for d in dims])
