"""``tf.keras.utils.get_source_inputs``, as TF 2.21's legacy Keras
(``tf_keras/utils/layer_utils.py``), on the graph's record of Keras layer calls."""

from __future__ import annotations

from typing import Any

from adapters.v1.framework import ops
from adapters.v1.keras.layers import _flat, _history

__all__ = ["get_source_inputs"]


def get_source_inputs(tensor: Any, layer: Any = None, node_index: Any = None) -> Any:
    """The ``Input`` tensors ``tensor`` is computed from, through Keras layer calls.

    Args (TF's defaults): tensor, layer=None, node_index=None (accepted; the layer
    call that made ``tensor`` is the graph's record).

    Returns:
      A list of the input tensors, each once (in the order first reached); ``tensor``
      itself, not in a list, when no Keras layer call made it (as TF).
    """
    del layer, node_index
    if not isinstance(tensor, ops.Tensor):
        return tensor
    history = _history(tensor.graph)
    entry = history.get(id(tensor))
    if entry is None or entry[0] is not tensor:
        return tensor
    inputs = entry[2]
    if inputs is None:  # an Input layer's tensor
        return [tensor]
    sources: list[Any] = []
    for x in _flat(inputs):
        for source in get_source_inputs(x):
            if all(source is not s for s in sources):
                sources.append(source)
    return sources
