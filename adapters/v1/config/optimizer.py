"""``tf.config.optimizer``: TF's eager-context JIT and grappler options, kept and given
back.

.. note::
   In classic TF1 these configure ``tf.function`` graphs of TF 2's eager context, not
   sessions (a ``Session`` takes its ``ConfigProto``'s ``graph_options``). jtrain
   compiles every ``Session.run`` step with XLA whatever they say, and has no grappler:
   they change no value or placement.
"""

from __future__ import annotations

from typing import Any

from adapters.v1._missing import missing_name_getattr
from adapters.v1.config._context import REWRITER_BOOLS, REWRITER_TOGGLES, SETTINGS

__all__ = ["get_experimental_options", "get_jit", "set_experimental_options", "set_jit"]


def get_jit() -> str:
    """``"autoclustering"`` when ``set_jit`` turned it on, else ``""`` (TF's answers)."""
    return "autoclustering" if SETTINGS.optimizer_jit else ""


def set_jit(enabled: bool | str) -> None:
    """Keeps the JIT setting: on for ``True`` or ``"autoclustering"``, off otherwise.

    Args:
      enabled: ``"autoclustering"`` (``True`` is TF's deprecated alias) or ``False``.
    """
    SETTINGS.optimizer_jit = enabled in (True, "autoclustering")


def get_experimental_options() -> dict[str, Any]:
    """The grappler options set, as TF reports them.

    TF's on/off options appear once set (``True``/``False``), ``disable_model_pruning``
    and ``disable_meta_optimizer`` always (``False`` by default), ``min_graph_nodes``
    when not 0; options TF does not know are kept but not reported, as in TF.
    """
    given = SETTINGS.optimizer_options
    out: dict[str, Any] = {}
    for name in REWRITER_TOGGLES:
        if name in REWRITER_BOOLS:
            out[name] = bool(given.get(name, False))
        elif given.get(name) is not None:
            out[name] = bool(given[name])
    if given.get("min_graph_nodes"):
        out["min_graph_nodes"] = given["min_graph_nodes"]
    return out


def set_experimental_options(options: dict[str, Any]) -> None:
    """Merges ``options`` into the grappler options kept (see the module).

    Args:
      options: option name -> value (``{"constant_folding": False}``).
    """
    SETTINGS.optimizer_options.update(options)


__getattr__ = missing_name_getattr("tf.config.optimizer", globals())
