"""``tf.data.Options``: settings a dataset carries (``Dataset.with_options``).

The options are TF's: the same names, types, defaults, aliases
(``experimental_deterministic`` is ``deterministic``, ``experimental_threading`` is
``threading``), errors and merging (``Dataset.options()`` is the merge of the
inputs' options and the ones given, the later one winning; nested options merged
option by option). They are stored and read back; **none changes jtrain's
pipeline**, which is one Python thread making each element when asked, in TF's
deterministic order: ``deterministic=False`` keeps that order (one of the orders
TF then allows), threading, autotune, optimization, distribution and service
options have nothing to tune (``auto_shard_policy`` shards nothing: shard the
dataset with ``Dataset.shard``).
"""

from __future__ import annotations

import enum
from typing import Any

__all__ = [
    "AutoShardPolicy",
    "AutotuneAlgorithm",
    "AutotuneOptions",
    "DistributeOptions",
    "ExternalStatePolicy",
    "OptimizationOptions",
    "Options",
    "ServiceOptions",
    "ThreadingOptions",
    "merge_options",
]


class AutotuneAlgorithm(enum.Enum):
    """TF's autotuning algorithms (accepted; jtrain tunes nothing)."""

    DEFAULT = 0
    HILL_CLIMB = 1
    GRADIENT_DESCENT = 2
    MAX_PARALLELISM = 3
    STAGE_BASED = 4


class AutoShardPolicy(enum.IntEnum):
    """TF's auto-sharding policies for distributed datasets (accepted; jtrain shards
    nothing by itself: use ``Dataset.shard``)."""

    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class ExternalStatePolicy(enum.Enum):
    """How TF handles external state when serializing a dataset (accepted)."""

    WARN = 0
    IGNORE = 1
    FAIL = 2


class OptionsBase:
    """A set of options: each a typed attribute, ``None`` (or its default) until set.

    Subclasses list their options in ``_OPTIONS``: ``name -> (type, default factory)``.
    """

    _OPTIONS: dict[str, tuple[type, Any]] = {}

    def __init__(self) -> None:
        object.__setattr__(self, "_options", {})
        object.__setattr__(self, "_mutable", True)

    def __getattr__(self, name: str) -> Any:
        table = type(self)._OPTIONS
        if name not in table:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        values = self.__dict__["_options"]
        if name not in values:
            factory = table[name][1]
            values[name] = factory() if factory is not None else None
        return values[name]

    def __setattr__(self, name: str, value: Any) -> None:
        if not self._mutable:
            raise ValueError(
                "Mutating `tf.data.Options()` returned by `tf.data.Dataset.options()` has no "
                "effect. Use `tf.data.Dataset.with_options(options)` to set or update dataset "
                "options."
            )
        table = type(self)._OPTIONS
        if name not in table:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        ty = table[name][0]
        if not isinstance(value, ty):
            raise TypeError(
                f'Property "{name}" must be of type {ty}, got: {value} (type: {type(value)})'
            )
        self._options[name] = value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, self.__class__):
            return NotImplemented
        names = set(self._options) | set(other._options)
        return all(getattr(self, n) == getattr(other, n) for n in names)

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # mutable, compared by value (as TF's)

    def _set_mutable(self, mutable: bool) -> None:
        object.__setattr__(self, "_mutable", mutable)
        for value in self._options.values():
            if isinstance(value, OptionsBase):
                value._set_mutable(mutable)

    def _copy(self) -> Any:
        """An independent, mutable copy."""
        return merge_options(self)


def merge_options(*options_list: Any) -> Any:
    """The options of ``options_list`` merged into a new object, as TF merges them: an
    option set (to other than its default) later wins; nested options merge option by
    option; ``framework_type`` lists are joined.

    Raises:
      ValueError: no options.
      TypeError: options of different types, or not options.
    """
    if len(options_list) < 1:
        raise ValueError("At least one options should be provided")
    result_type = type(options_list[0])
    for options in options_list:
        if not isinstance(options, result_type):
            raise TypeError(
                f"Could not merge incompatible options of type {type(options)} and {result_type}."
            )
    if not isinstance(options_list[0], OptionsBase):
        raise TypeError(
            "All options to be merged should inherit from `OptionsBase` but found option of "
            f"type {type(options_list[0])} which does not."
        )
    default = result_type()
    result = result_type()
    for options in options_list:
        for name in list(options._options):
            this, that, base = getattr(result, name), getattr(options, name), getattr(default, name)
            if that == base:
                continue
            if this == base:
                value = that._copy() if isinstance(that, OptionsBase) else that
            elif isinstance(this, OptionsBase):
                value = merge_options(this, that)
            elif name == "framework_type":
                value = this + that
            else:
                value = that
            result._options[name] = value
    return result


class AutotuneOptions(OptionsBase):
    """``tf.data.experimental.AutotuneOptions``: ``enabled``, ``cpu_budget``,
    ``ram_budget``, ``autotune_algorithm``, ``initial_parallelism``,
    ``min_parallelism`` (stored; jtrain's pipeline has nothing to tune)."""

    _OPTIONS = {
        "enabled": (bool, None),
        "cpu_budget": (int, None),
        "ram_budget": (int, None),
        "autotune_algorithm": (AutotuneAlgorithm, None),
        "initial_parallelism": (int, None),
        "min_parallelism": (int, None),
    }


class DistributeOptions(OptionsBase):
    """``tf.data.experimental.DistributeOptions``: ``auto_shard_policy`` (default
    ``AutoShardPolicy.AUTO``) and ``num_devices`` (stored; jtrain shards nothing by
    itself: use ``Dataset.shard``)."""

    _OPTIONS = {
        "auto_shard_policy": (AutoShardPolicy, lambda: AutoShardPolicy.AUTO),
        "num_devices": (int, None),
    }


class OptimizationOptions(OptionsBase):
    """``tf.data.experimental.OptimizationOptions``: TF's graph rewrites of the
    pipeline (stored; jtrain's elements are the same with or without them, as TF's
    are)."""

    _OPTIONS = {
        name: (bool, None)
        for name in (
            "apply_default_optimizations",
            "filter_fusion",
            "filter_parallelization",
            "inject_prefetch",
            "seq_interleave_prefetch",
            "map_and_batch_fusion",
            "map_and_filter_fusion",
            "map_fusion",
            "map_parallelization",
            "noop_elimination",
            "parallel_batch",
            "shuffle_and_repeat_fusion",
        )
    }


class ServiceOptions(OptionsBase):
    """``tf.data`` service options: ``pinned`` (stored; there is no tf.data service)."""

    _OPTIONS = {"pinned": (bool, None)}


class ThreadingOptions(OptionsBase):
    """``tf.data.ThreadingOptions``: ``max_intra_op_parallelism`` and
    ``private_threadpool_size`` (stored; the pipeline is one Python thread)."""

    _OPTIONS = {
        "max_intra_op_parallelism": (int, None),
        "private_threadpool_size": (int, None),
    }


# Options's deprecated names and the options they stand for (as TF's aliases).
_ALIASES = {"experimental_deterministic": "deterministic", "experimental_threading": "threading"}


class Options(OptionsBase):
    """``tf.data.Options``: options of a dataset (``Dataset.with_options``).

    Attributes (TF's, all default ``None`` but the nested options objects):
    ``autotune`` (``AutotuneOptions``), ``deterministic`` (alias
    ``experimental_deterministic``), ``experimental_distribute``
    (``DistributeOptions``), ``experimental_external_state_policy``,
    ``experimental_optimization`` (``OptimizationOptions``), ``experimental_slack``,
    ``experimental_symbolic_checkpoint``, ``experimental_service``,
    ``threading`` (``ThreadingOptions``; alias ``experimental_threading``),
    ``experimental_warm_start``, ``dataset_name``, ``framework_type``.

    Raises (on setting):
      AttributeError: a name TF's ``Options`` does not have.
      TypeError: a value of another type than the option's.

    .. note:: Stored and merged as TF's; none changes jtrain's elements or their
       order (see the module docstring): ``deterministic=False`` leaves the order
       TF's deterministic one, which TF also may give.
    """

    _OPTIONS = {
        "autotune": (AutotuneOptions, AutotuneOptions),
        "deterministic": (bool, None),
        "experimental_distribute": (DistributeOptions, DistributeOptions),
        "experimental_external_state_policy": (ExternalStatePolicy, None),
        "experimental_optimization": (OptimizationOptions, OptimizationOptions),
        "experimental_slack": (bool, None),
        "experimental_symbolic_checkpoint": (bool, None),
        "experimental_service": (ServiceOptions, ServiceOptions),
        "experimental_warm_start": (bool, None),
        "dataset_name": (str, None),
        "framework_type": (list, None),
        "threading": (ThreadingOptions, ThreadingOptions),
    }

    def __getattr__(self, name: str) -> Any:
        return super().__getattr__(_ALIASES.get(name, name))

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(_ALIASES.get(name, name), value)

    def merge(self, options: Options) -> Options:
        """A new ``Options``: these merged with ``options`` (``options``'s settings win)."""
        return merge_options(self, options)
