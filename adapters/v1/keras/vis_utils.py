"""``tf.keras.utils.plot_model`` and ``model_to_dot``: TF draws models with pydot and
graphviz, which adapters.v1 does not use; both raise Keras' ``ImportError`` for a
missing pydot (after TF's check that the model is built)."""

from __future__ import annotations

from typing import Any, NoReturn

__all__ = ["model_to_dot", "plot_model"]


def _check_built(model: Any) -> None:
    if not getattr(model, "built", True):
        raise ValueError(
            "This model has not yet been built. Build the model first by calling `build()` "
            "or by calling the model on a batch of data."
        )


def model_to_dot(model: Any, *args: Any, **kwargs: Any) -> NoReturn:
    """Not provided (TF's pydot graph of the model).

    Raises:
      ValueError: the model is not built (TF's message).
      ImportError: always otherwise, Keras' message without pydot.
    """
    _check_built(model)
    raise ImportError(
        "You must install pydot (`pip install pydot`) for model_to_dot to work. "
        "(adapters.v1 does not draw models: run model_to_dot with TensorFlow.)"
    )


def plot_model(model: Any, *args: Any, **kwargs: Any) -> NoReturn:
    """Not provided (TF's image of the model, through pydot and graphviz).

    Raises:
      ValueError: the model is not built (TF's message).
      ImportError: always otherwise, Keras' message without pydot and graphviz.
    """
    _check_built(model)
    raise ImportError(
        "You must install pydot (`pip install pydot`) and install graphviz (see "
        "instructions at https://graphviz.gitlab.io/download/) for plot_model to work. "
        "(adapters.v1 does not draw models: run plot_model with TensorFlow.)"
    )
