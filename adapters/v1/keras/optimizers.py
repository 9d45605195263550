"""``tf.keras.optimizers``: not provided; each name raises ``NotImplementedError``.

In a TF1 graph, train with a ``tf.train`` optimizer instead:
``tf.train.AdamOptimizer(1e-3).minimize(loss)`` (the Keras names map to
``GradientDescentOptimizer``/``MomentumOptimizer``, ``AdamOptimizer``,
``RMSPropOptimizer``, ``AdagradOptimizer``, ``AdadeltaOptimizer``, ``FtrlOptimizer``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["SGD", "Adadelta", "Adagrad", "Adam", "Ftrl", "Optimizer", "RMSprop", "get"]

_INSTEAD = {
    "SGD": "tf.train.GradientDescentOptimizer (or MomentumOptimizer)",
    "Adam": "tf.train.AdamOptimizer",
    "RMSprop": "tf.train.RMSPropOptimizer",
    "Adagrad": "tf.train.AdagradOptimizer",
    "Adadelta": "tf.train.AdadeltaOptimizer",
    "Ftrl": "tf.train.FtrlOptimizer",
    "Optimizer": "a tf.train optimizer",
}


class _Unsupported:
    _name = "Optimizer"

    def __init__(self, *args: Any, **kwargs: Any):
        raise NotImplementedError(
            f"tf.keras.optimizers.{self._name} is not supported by adapters.v1: in a TF1 "
            f"graph use {_INSTEAD[self._name]} and its minimize(loss)"
        )


def _make(name: str) -> type:
    return type(
        name,
        (_Unsupported,),
        {"_name": name, "__doc__": f"Raises ``NotImplementedError``: use {_INSTEAD[name]}."},
    )


SGD = _make("SGD")
Adam = _make("Adam")
RMSprop = _make("RMSprop")
Adagrad = _make("Adagrad")
Adadelta = _make("Adadelta")
Ftrl = _make("Ftrl")
Optimizer = _make("Optimizer")


def get(identifier: Any) -> Any:
    """Raises ``NotImplementedError``: Keras' optimizers are not provided.

    Raises:
      NotImplementedError: always.
    """
    raise NotImplementedError(
        f"tf.keras.optimizers.get({identifier!r}) is not supported by adapters.v1: use a "
        "tf.train optimizer (tf.train.AdamOptimizer...) and its minimize(loss)"
    )
