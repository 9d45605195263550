"""``tf.distributions.Distribution``: TF1's base class of probability distributions.

A distribution holds its parameters as graph tensors; each public method opens
the name scope ``<name>/<method>/`` and builds its result from TF's compat ops,
so values, gradients, dtypes and static shapes are those of the ops. As in TF,
``prob`` falls back to ``exp(log_prob)`` (and back), ``log_cdf`` to ``log(cdf)``,
``survival_function`` to ``1 - cdf``, ``stddev`` to ``sqrt(variance)`` and
``variance`` to ``square(stddev)`` where a subclass defines only one of them.

Samples are drawn by the compat random ops (``tf.random_normal``...): their
shapes, dtypes and laws are TF's, the draws themselves are JAX's.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from adapters.v1.distributions import kullback_leibler
from adapters.v1.distributions.util import convert_preferred, op
from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.tensor_shape import TensorShape, as_shape
from adapters.v1.framework.tensor_util import get_static_value

__all__ = [
    "ReparameterizationType",
    "FULLY_REPARAMETERIZED",
    "NOT_REPARAMETERIZED",
    "Distribution",
]


class ReparameterizationType:
    """How samples relate to the parameters: ``FULLY_REPARAMETERIZED`` (gradients
    flow through samples) or ``NOT_REPARAMETERIZED``. Compared by identity, as TF."""

    def __init__(self, rep_type: str) -> None:
        self._rep_type = rep_type

    def __repr__(self) -> str:
        return f"<Reparameterization Type: {self._rep_type}>"

    def __eq__(self, other: object) -> bool:
        return self is other

    __hash__ = object.__hash__


FULLY_REPARAMETERIZED = ReparameterizationType("FULLY_REPARAMETERIZED")
NOT_REPARAMETERIZED = ReparameterizationType("NOT_REPARAMETERIZED")


class Distribution:
    """A batch of probability distributions (TF1's ``tf.distributions.Distribution``).

    Subclasses set their parameters and implement the private methods
    (``_log_prob``, ``_sample_n``, ``_batch_shape``...); the public methods here
    add the name scopes, convert values with the distribution's dtype preferred,
    and apply TF's fallbacks between related methods.

    Args:
      dtype: the dtype of samples (and of ``log_prob``'s argument).
      reparameterization_type: ``FULLY_REPARAMETERIZED`` or ``NOT_REPARAMETERIZED``.
      validate_args: whether run-time checks of arguments are added.
      allow_nan_stats: whether undefined statistics give NaN (else an error).
      parameters: the constructor's arguments (``parameters``, ``copy``).
      graph_parents: the parameter tensors.
      name: the name scope (``"Normal/"``: a trailing ``/`` reuses it as is).

    Raises:
      ValueError: a graph parent is not a tensor (TF's message).
    """

    def __init__(
        self,
        dtype: Any,
        reparameterization_type: ReparameterizationType,
        validate_args: bool,
        allow_nan_stats: bool,
        parameters: dict[str, Any] | None = None,
        graph_parents: list[Any] | None = None,
        name: str | None = None,
    ) -> None:
        graph_parents = [] if graph_parents is None else graph_parents
        for i, t in enumerate(graph_parents):
            if t is None or not isinstance(t, ops.Tensor):
                raise ValueError(f"Graph parent item {i} is not a Tensor; {t}.")
        if not name or name[-1] != "/":
            with ops.name_scope(name or type(self).__name__) as scope:
                name = scope
        self._dtype = dtypes.as_dtype(dtype)
        self._reparameterization_type = reparameterization_type
        self._allow_nan_stats = allow_nan_stats
        self._validate_args = validate_args
        params = dict(parameters or {})
        params.pop("self", None)
        params.pop("__class__", None)
        self._parameters = params
        self._graph_parents = graph_parents
        self._name = name

    # -- properties -----------------------------------------------------------
    @property
    def name(self) -> str:
        """The name scope of the distribution's ops (``"Normal/"``)."""
        return self._name

    @property
    def dtype(self) -> dtypes.DType:
        """The dtype of samples."""
        return self._dtype

    @property
    def parameters(self) -> dict[str, Any]:
        """The constructor's arguments (a new dict)."""
        return {k: v for k, v in self._parameters.items() if not k.startswith("__")}

    @property
    def reparameterization_type(self) -> ReparameterizationType:
        """``FULLY_REPARAMETERIZED`` or ``NOT_REPARAMETERIZED``."""
        return self._reparameterization_type

    @property
    def allow_nan_stats(self) -> bool:
        return self._allow_nan_stats

    @property
    def validate_args(self) -> bool:
        return self._validate_args

    def copy(self, **override_parameters_kwargs: Any) -> Distribution:
        """A new distribution of the same class, its parameters overridden."""
        parameters = dict(self.parameters, **override_parameters_kwargs)
        return type(self)(**parameters)

    # -- shapes ---------------------------------------------------------------
    def _batch_shape(self) -> TensorShape:
        return TensorShape(None)

    def _batch_shape_tensor(self) -> ops.Tensor:
        raise NotImplementedError(f"batch_shape_tensor is not implemented: {type(self).__name__}")

    @property
    def batch_shape(self) -> TensorShape:
        """The static shape of one draw's batch of independent distributions."""
        return as_shape(self._batch_shape())

    def batch_shape_tensor(self, name: str = "batch_shape_tensor") -> ops.Tensor:
        """The batch shape as a 1-D int32 tensor."""
        with self._name_scope(name):
            if self.batch_shape.is_fully_defined():
                return ops.convert_to_tensor(
                    np.asarray(self.batch_shape.as_list(), np.int32), name="batch_shape"
                )
            return self._batch_shape_tensor()

    def _event_shape(self) -> TensorShape:
        return TensorShape(None)

    def _event_shape_tensor(self) -> ops.Tensor:
        raise NotImplementedError(f"event_shape_tensor is not implemented: {type(self).__name__}")

    @property
    def event_shape(self) -> TensorShape:
        """The static shape of one event (``[]`` for scalar distributions)."""
        return as_shape(self._event_shape())

    def event_shape_tensor(self, name: str = "event_shape_tensor") -> ops.Tensor:
        """The event shape as a 1-D int32 tensor."""
        with self._name_scope(name):
            if self.event_shape.is_fully_defined():
                return ops.convert_to_tensor(
                    np.asarray(self.event_shape.as_list(), np.int32), name="event_shape"
                )
            return self._event_shape_tensor()

    def is_scalar_event(self, name: str = "is_scalar_event") -> ops.Tensor:
        """Whether the event shape is ``[]`` (a boolean tensor)."""
        with self._name_scope(name):
            return ops.convert_to_tensor(self.event_shape.ndims == 0, name="is_scalar_event")

    def is_scalar_batch(self, name: str = "is_scalar_batch") -> ops.Tensor:
        """Whether the batch shape is ``[]`` (a boolean tensor)."""
        with self._name_scope(name):
            return ops.convert_to_tensor(self.batch_shape.ndims == 0, name="is_scalar_batch")

    # -- sampling -------------------------------------------------------------
    def _sample_n(self, n: Any, seed: int | None = None) -> ops.Tensor:
        raise NotImplementedError(f"sample_n is not implemented: {type(self).__name__}")

    def _n_batch_shape(self, n: int) -> Any:
        """``[n] + batch_shape``: a list where the batch shape is static (the random ops
        then know their static shapes), else a tensor computed in the graph."""
        if self.batch_shape.is_fully_defined():
            return [n, *self.batch_shape.as_list()]
        return op("concat")([[n], self.batch_shape_tensor()], 0)

    def sample(self, sample_shape: Any = (), seed: int | None = None, name: str = "sample"):
        """Draws samples of shape ``sample_shape + batch_shape + event_shape``.

        Args:
          sample_shape: a scalar or 1-D int32 shape (``()``: one draw per batch member).
          seed: the op-level seed (``tf.set_random_seed`` as in TF).
          name: the name scope (``"sample"``).

        Returns:
          A tensor of ``self.dtype``.

        Raises:
          ValueError: ``sample_shape`` of rank above 1.
          NotImplementedError: ``sample_shape`` computed from the step's data (jtrain
            compiles static shapes).
        """
        with self._name_scope(name, [sample_shape]):
            if isinstance(sample_shape, (list, tuple)) and not sample_shape:
                sample_shape = np.zeros([0], np.int32)  # TF takes () as an empty int32 shape
            shape = ops.convert_to_tensor(sample_shape, dtype=dtypes.int32, name="sample_shape")
            static = get_static_value(shape)
            if static is None:
                raise NotImplementedError(
                    f"{type(self).__name__}.sample: sample_shape must be known when the graph "
                    f"is built (a Python value or a constant), got {shape.name}"
                )
            static = np.asarray(static)
            if static.ndim > 1:
                raise ValueError("Input is neither scalar nor vector.")
            dims = [int(d) for d in static.reshape(-1)]
            n = int(np.prod(dims, dtype=np.int64))
            samples = self._sample_n(n, seed)
            rest = samples.get_shape().as_list()[1:]
            if all(d is not None for d in rest):
                final: Any = dims + rest
            else:
                final = op("concat")([np.asarray(dims, np.int32), op("shape")(samples)[1:]], 0)
            return op("reshape")(samples, final)

    # -- densities --------------------------------------------------------------
    def _value(self, value: Any) -> ops.Tensor:
        return convert_preferred(value, self.dtype, name="value")

    def _log_prob(self, value: ops.Tensor) -> ops.Tensor:
        raise NotImplementedError(f"log_prob is not implemented: {type(self).__name__}")

    def _prob(self, value: ops.Tensor) -> ops.Tensor:
        raise NotImplementedError(f"prob is not implemented: {type(self).__name__}")

    def log_prob(self, value: Any, name: str = "log_prob") -> ops.Tensor:
        """The log density (log mass) of ``value``, broadcast with the batch."""
        with self._name_scope(name, [value]):
            value = self._value(value)
            try:
                return self._log_prob(value)
            except NotImplementedError as original:
                try:
                    return op("log")(self._prob(value))
                except NotImplementedError:
                    raise original from None

    def prob(self, value: Any, name: str = "prob") -> ops.Tensor:
        """The density (mass) of ``value``."""
        with self._name_scope(name, [value]):
            value = self._value(value)
            try:
                return self._prob(value)
            except NotImplementedError as original:
                try:
                    return op("exp")(self._log_prob(value))
                except NotImplementedError:
                    raise original from None

    def _log_cdf(self, value: ops.Tensor) -> ops.Tensor:
        raise NotImplementedError(f"log_cdf is not implemented: {type(self).__name__}")

    def _cdf(self, value: ops.Tensor) -> ops.Tensor:
        raise NotImplementedError(f"cdf is not implemented: {type(self).__name__}")

    def log_cdf(self, value: Any, name: str = "log_cdf") -> ops.Tensor:
        """``log P[X <= value]``."""
        with self._name_scope(name, [value]):
            value = self._value(value)
            try:
                return self._log_cdf(value)
            except NotImplementedError as original:
                try:
                    return op("log")(self._cdf(value))
                except NotImplementedError:
                    raise original from None

    def cdf(self, value: Any, name: str = "cdf") -> ops.Tensor:
        """``P[X <= value]``."""
        with self._name_scope(name, [value]):
            value = self._value(value)
            try:
                return self._cdf(value)
            except NotImplementedError as original:
                try:
                    return op("exp")(self._log_cdf(value))
                except NotImplementedError:
                    raise original from None

    def _log_survival_function(self, value: ops.Tensor) -> ops.Tensor:
        raise NotImplementedError(
            f"log_survival_function is not implemented: {type(self).__name__}"
        )

    def _survival_function(self, value: ops.Tensor) -> ops.Tensor:
        raise NotImplementedError(f"survival_function is not implemented: {type(self).__name__}")

    def log_survival_function(self, value: Any, name: str = "log_survival_function"):
        """``log P[X > value]`` (TF's fallback: ``log1p(-cdf)``)."""
        with self._name_scope(name, [value]):
            value = self._value(value)
            try:
                return self._log_survival_function(value)
            except NotImplementedError as original:
                try:
                    return op("log1p")(-self.cdf(value))
                except NotImplementedError:
                    raise original from None

    def survival_function(self, value: Any, name: str = "survival_function") -> ops.Tensor:
        """``P[X > value]`` (TF's fallback: ``1 - cdf``)."""
        with self._name_scope(name, [value]):
            value = self._value(value)
            try:
                return self._survival_function(value)
            except NotImplementedError as original:
                try:
                    one: Any = 1.0  # a Python operand: the tensor's dtype, as TF
                    return one - self.cdf(value)
                except NotImplementedError:
                    raise original from None

    # -- statistics -----------------------------------------------------------
    def _entropy(self) -> ops.Tensor:
        raise NotImplementedError(f"entropy is not implemented: {type(self).__name__}")

    def entropy(self, name: str = "entropy") -> ops.Tensor:
        """The Shannon entropy (nats) of each batch member."""
        with self._name_scope(name):
            return self._entropy()

    def _mean(self) -> ops.Tensor:
        raise NotImplementedError(f"mean is not implemented: {type(self).__name__}")

    def mean(self, name: str = "mean") -> ops.Tensor:
        """The mean of each batch member."""
        with self._name_scope(name):
            return self._mean()

    def _quantile(self, value: ops.Tensor) -> ops.Tensor:
        raise NotImplementedError(f"quantile is not implemented: {type(self).__name__}")

    def quantile(self, value: Any, name: str = "quantile") -> ops.Tensor:
        """The inverse CDF of ``value``."""
        with self._name_scope(name, [value]):
            return self._quantile(self._value(value))

    def _variance(self) -> ops.Tensor:
        raise NotImplementedError(f"variance is not implemented: {type(self).__name__}")

    def variance(self, name: str = "variance") -> ops.Tensor:
        """The variance (TF's fallback: ``square(stddev)``)."""
        with self._name_scope(name):
            try:
                return self._variance()
            except NotImplementedError as original:
                try:
                    return op("square")(self._stddev())
                except NotImplementedError:
                    raise original from None

    def _stddev(self) -> ops.Tensor:
        raise NotImplementedError(f"stddev is not implemented: {type(self).__name__}")

    def stddev(self, name: str = "stddev") -> ops.Tensor:
        """The standard deviation (TF's fallback: ``sqrt(variance)``)."""
        with self._name_scope(name):
            try:
                return self._stddev()
            except NotImplementedError as original:
                try:
                    return op("sqrt")(self._variance())
                except NotImplementedError:
                    raise original from None

    def _covariance(self) -> ops.Tensor:
        raise NotImplementedError(f"covariance is not implemented: {type(self).__name__}")

    def covariance(self, name: str = "covariance") -> ops.Tensor:
        with self._name_scope(name):
            return self._covariance()

    def _mode(self) -> ops.Tensor:
        raise NotImplementedError(f"mode is not implemented: {type(self).__name__}")

    def mode(self, name: str = "mode") -> ops.Tensor:
        """The mode of each batch member."""
        with self._name_scope(name):
            return self._mode()

    def cross_entropy(self, other: Distribution, name: str = "cross_entropy") -> ops.Tensor:
        """``H[self, other] = entropy(self) + KL(self || other)``."""
        with self._name_scope(name):
            return kullback_leibler.cross_entropy(self, other, allow_nan_stats=self.allow_nan_stats)

    def kl_divergence(self, other: Distribution, name: str = "kl_divergence") -> ops.Tensor:
        """``KL(self || other)`` by the registered function (``tf.distributions.RegisterKL``)."""
        with self._name_scope(name):
            return kullback_leibler.kl_divergence(self, other, allow_nan_stats=self.allow_nan_stats)

    # -- text -------------------------------------------------------------------
    def __str__(self) -> str:
        batch = f", batch_shape={self.batch_shape}" if self.batch_shape.ndims is not None else ""
        event = f", event_shape={self.event_shape}" if self.event_shape.ndims is not None else ""
        return (
            f'tfp.distributions.{type(self).__name__}("{self.name}"{batch}{event}, '
            f"dtype={self.dtype.name})"
        )

    def __repr__(self) -> str:
        return (
            f"<tfp.distributions.{type(self).__name__} '{self.name}' "
            f"batch_shape={self.batch_shape} event_shape={self.event_shape} "
            f"dtype={self.dtype.name}>"
        )

    @contextlib.contextmanager
    def _name_scope(self, name: str | None = None, values: Any = None) -> Iterator[str]:
        """The scope ``<self.name><name>/`` of a method's ops."""
        with ops.name_scope(self.name):
            with ops.name_scope(name, None, list(values or []) + self._graph_parents) as scope:
                yield scope
