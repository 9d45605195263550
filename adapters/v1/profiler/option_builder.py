"""``tf.profiler.ProfileOptionBuilder``: the option dicts of ``tf.profiler.profile``.

The dicts, their keys, defaults and the builder's methods are TF's
(``tensorflow/python/profiler/option_builder.py``); ``build()`` and the builder's
constructor copy deeply, as TF's.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["ProfileOptionBuilder", "TRAINABLE_VARIABLES"]

# The op type tfprof gives the ops of trainable variables (TF's tfprof_logger constant).
TRAINABLE_VARIABLES = "_trainable_variables"


def _common(**overrides: Any) -> dict[str, Any]:
    """TF's option dict with ``overrides`` (the keys stay in TF's order)."""
    options: dict[str, Any] = {
        "max_depth": 100,
        "min_bytes": 0,
        "min_micros": 0,
        "min_params": 0,
        "min_float_ops": 0,
        "min_occurrence": 0,
        "order_by": "name",
        "account_type_regexes": [".*"],
        "start_name_regexes": [".*"],
        "trim_name_regexes": [],
        "show_name_regexes": [".*"],
        "hide_name_regexes": [],
        "account_displayed_op_only": False,
        "select": ["micros"],
        "step": -1,
        "output": "stdout",
    }
    options.update(overrides)
    return options


class ProfileOptionBuilder:
    """Builds the option dict of ``tf.profiler.profile`` (TF's
    ``tf.compat.v1.profiler.ProfileOptionBuilder``).

    Use a prebuilt dict (``float_operation()``, ``trainable_variables_parameter()``,
    ``time_and_memory()``) or chain the ``with_*`` methods and call ``build()``.

    Args:
      options: a dict to start from (deep-copied); default ``None``: TF's defaults
        (``max_depth`` 100, everything accounted and shown, ``select=['micros']``,
        ``order_by='name'``, ``output='stdout'``).
    """

    def __init__(self, options: dict[str, Any] | None = None):
        self._options = copy.deepcopy(options) if options is not None else _common()

    @staticmethod
    def trainable_variables_parameter() -> dict[str, Any]:
        """Options counting the parameters of trainable variables (for the scope view).

        Returns:
          A dict: ``account_type_regexes=['_trainable_variables']``,
          ``select=['params']``, ``max_depth`` 10000, displayed ops only.
        """
        return _common(
            max_depth=10000,
            account_type_regexes=[TRAINABLE_VARIABLES],
            account_displayed_op_only=True,
            select=["params"],
        )

    @staticmethod
    def float_operation() -> dict[str, Any]:
        """Options counting float operations (TF's registered per-op statistics).

        Returns:
          A dict: ``min_float_ops`` 1, ``order_by='float_ops'``,
          ``select=['float_ops']``, ``max_depth`` 10000, displayed ops only.
        """
        return _common(
            max_depth=10000,
            min_float_ops=1,
            order_by="float_ops",
            account_displayed_op_only=True,
            select=["float_ops"],
        )

    @staticmethod
    def time_and_memory(
        min_micros: int = 1,
        min_bytes: int = 1,
        min_accelerator_micros: int = 0,
        min_cpu_micros: int = 0,
        min_peak_bytes: int = 0,
        min_residual_bytes: int = 0,
        min_output_bytes: int = 0,
    ) -> dict[str, Any]:
        """Options showing execution time and memory (these need run metadata).

        Args:
          min_micros: show nodes taking at least this time (default 1).
          min_bytes: show nodes requesting at least these bytes (default 1).
          min_accelerator_micros: ... this accelerator time (default 0).
          min_cpu_micros: ... this CPU time (default 0).
          min_peak_bytes: ... this peak memory (default 0).
          min_residual_bytes: ... these bytes left allocated (default 0).
          min_output_bytes: ... these output bytes (default 0).

        Returns:
          A dict in TF's key order, ``select=['micros', 'bytes']``,
          ``order_by='micros'``.
        """
        return {
            "max_depth": 10000,
            "min_bytes": min_bytes,
            "min_peak_bytes": min_peak_bytes,
            "min_residual_bytes": min_residual_bytes,
            "min_output_bytes": min_output_bytes,
            "min_micros": min_micros,
            "min_accelerator_micros": min_accelerator_micros,
            "min_cpu_micros": min_cpu_micros,
            "min_params": 0,
            "min_float_ops": 0,
            "min_occurrence": 0,
            "order_by": "micros",
            "account_type_regexes": [".*"],
            "start_name_regexes": [".*"],
            "trim_name_regexes": [],
            "show_name_regexes": [".*"],
            "hide_name_regexes": [],
            "account_displayed_op_only": True,
            "select": ["micros", "bytes"],
            "step": -1,
            "output": "stdout",
        }

    def build(self) -> dict[str, Any]:
        """A deep copy of the options built so far."""
        return copy.deepcopy(self._options)

    def with_max_depth(self, max_depth: int) -> ProfileOptionBuilder:
        """Shows nodes down to this depth (scope view: of the name scope tree)."""
        self._options["max_depth"] = max_depth
        return self

    def with_min_memory(
        self,
        min_bytes: int = 0,
        min_peak_bytes: int = 0,
        min_residual_bytes: int = 0,
        min_output_bytes: int = 0,
    ) -> ProfileOptionBuilder:
        """Shows nodes using at least this memory (all default 0)."""
        self._options["min_bytes"] = min_bytes
        self._options["min_peak_bytes"] = min_peak_bytes
        self._options["min_residual_bytes"] = min_residual_bytes
        self._options["min_output_bytes"] = min_output_bytes
        return self

    def with_min_execution_time(
        self, min_micros: int = 0, min_accelerator_micros: int = 0, min_cpu_micros: int = 0
    ) -> ProfileOptionBuilder:
        """Shows nodes taking at least this time (all default 0)."""
        self._options["min_micros"] = min_micros
        self._options["min_accelerator_micros"] = min_accelerator_micros
        self._options["min_cpu_micros"] = min_cpu_micros
        return self

    def with_min_parameters(self, min_params: int) -> ProfileOptionBuilder:
        """Shows nodes holding at least ``min_params`` parameters."""
        self._options["min_params"] = min_params
        return self

    def with_min_occurrence(self, min_occurrence: int) -> ProfileOptionBuilder:
        """Shows nodes grouping at least ``min_occurrence`` graph nodes."""
        self._options["min_occurrence"] = min_occurrence
        return self

    def with_min_float_operations(self, min_float_ops: int) -> ProfileOptionBuilder:
        """Shows nodes with at least ``min_float_ops`` float operations."""
        self._options["min_float_ops"] = min_float_ops
        return self

    def with_accounted_types(self, account_type_regexes: list[str]) -> ProfileOptionBuilder:
        """Counts only nodes one of whose types (op type, device, op log types) fully
        matches one of the regexes (a shallow copy of the list is kept)."""
        self._options["account_type_regexes"] = copy.copy(account_type_regexes)
        return self

    def with_node_names(
        self,
        start_name_regexes: list[str] | None = None,
        show_name_regexes: list[str] | None = None,
        hide_name_regexes: list[str] | None = None,
        trim_name_regexes: list[str] | None = None,
    ) -> ProfileOptionBuilder:
        """Regexes selecting the nodes displayed (``None`` keeps the current list)."""
        if start_name_regexes is not None:
            self._options["start_name_regexes"] = copy.copy(start_name_regexes)
        if show_name_regexes is not None:
            self._options["show_name_regexes"] = copy.copy(show_name_regexes)
        if hide_name_regexes is not None:
            self._options["hide_name_regexes"] = copy.copy(hide_name_regexes)
        if trim_name_regexes is not None:
            self._options["trim_name_regexes"] = copy.copy(trim_name_regexes)
        return self

    def account_displayed_op_only(self, is_true: bool) -> ProfileOptionBuilder:
        """Whether totals count only the nodes displayed."""
        self._options["account_displayed_op_only"] = is_true
        return self

    def with_empty_output(self) -> ProfileOptionBuilder:
        """Prints nothing (``output='none'``)."""
        self._options["output"] = "none"
        return self

    def with_stdout_output(self) -> ProfileOptionBuilder:
        """Prints the report (``output='stdout'``)."""
        self._options["output"] = "stdout"
        return self

    def with_file_output(self, outfile: str) -> ProfileOptionBuilder:
        """Writes the report to ``outfile`` (``output='file:outfile=...'``)."""
        self._options["output"] = f"file:outfile={outfile}"
        return self

    def with_timeline_output(self, timeline_file: str) -> ProfileOptionBuilder:
        """A timeline JSON file (``output='timeline:outfile=...'``; needs run metadata)."""
        self._options["output"] = f"timeline:outfile={timeline_file}"
        return self

    def with_pprof_output(self, pprof_file: str) -> ProfileOptionBuilder:
        """A pprof file (``output='pprof:outfile=...'``; code view)."""
        self._options["output"] = f"pprof:outfile={pprof_file}"
        return self

    def order_by(self, attribute: str) -> ProfileOptionBuilder:
        """Orders displayed nodes by ``attribute`` (``name``, ``params``, ``float_ops``,
        ``micros``, ``bytes``...: descending, name ascending)."""
        self._options["order_by"] = attribute
        return self

    def select(self, attributes: list[str]) -> ProfileOptionBuilder:
        """The attributes displayed (a shallow copy of the list is kept)."""
        self._options["select"] = copy.copy(attributes)
        return self

    def with_step(self, step: int) -> ProfileOptionBuilder:
        """Which profiled step to show (default -1: the average of all)."""
        self._options["step"] = step
        return self
