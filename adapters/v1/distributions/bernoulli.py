"""``tf.distributions.Bernoulli``: distributions over ``{0, 1}`` with ``P[1] = probs =
sigmoid(logits)``.

``log_prob(x) = -sigmoid_cross_entropy_with_logits(x, logits)``, ``entropy =
-logits * (sigmoid(logits) - 1) + softplus(-logits)``, ``mode = probs > 0.5`` (0 at a
tie), ``mean = probs``, ``variance = probs * (1 - probs)``; samples ``uniform <
probs``. ``KL(a || b)`` from softplus of the logits, as TF.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1.distributions import distribution, kullback_leibler
from adapters.v1.distributions.util import (
    embed_check_integer_casting_closed,
    get_logits_and_probs,
    op,
)
from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.tensor_shape import TensorShape
from adapters.v1.ops import random_ops
from adapters.v1.ops.array_ops import identity

__all__ = ["Bernoulli"]


class Bernoulli(distribution.Distribution):
    """Bernoulli distributions (``tf.compat.v1.distributions.Bernoulli``).

    Args:
      logits: floating log-odds of 1 (give exactly one of logits/probs).
      probs: floating probabilities of 1.
      dtype: the dtype of samples and ``mode`` (``tf.int32``).
      validate_args: ``False``; ``True`` adds TF's checks (probs in ``[0, 1]``,
        ``log_prob`` values 0 or 1), failing the run with ``InvalidArgumentError``.
      allow_nan_stats: ``True``.
      name: ``"Bernoulli"``.

    Raises:
      ValueError: both or neither of logits/probs.
      TypeError: non-floating logits/probs.
    """

    def __init__(
        self,
        logits: Any = None,
        probs: Any = None,
        dtype: Any = dtypes.int32,
        validate_args: bool = False,
        allow_nan_stats: bool = True,
        name: str = "Bernoulli",
    ) -> None:
        parameters = dict(locals())
        with ops.name_scope(name) as name:
            self._logits, self._probs = get_logits_and_probs(
                logits=logits, probs=probs, validate_args=validate_args, name=name
            )
        super().__init__(
            dtype=dtype,
            reparameterization_type=distribution.NOT_REPARAMETERIZED,
            validate_args=validate_args,
            allow_nan_stats=allow_nan_stats,
            parameters=parameters,
            graph_parents=[self._logits, self._probs],
            name=name,
        )

    @property
    def logits(self) -> ops.Tensor:
        """The log-odds of 1."""
        return self._logits

    @property
    def probs(self) -> ops.Tensor:
        """The probabilities of 1."""
        return self._probs

    def _batch_shape_tensor(self) -> ops.Tensor:
        return op("shape")(self._logits)

    def _batch_shape(self) -> TensorShape:
        return self._logits.get_shape()

    def _event_shape_tensor(self) -> ops.Tensor:
        return ops.convert_to_tensor(np.zeros([0], np.int32))

    def _event_shape(self) -> TensorShape:
        return TensorShape([])

    def _sample_n(self, n: Any, seed: int | None = None) -> ops.Tensor:
        new_shape = self._n_batch_shape(n)
        uniform = random_ops.random_uniform(new_shape, seed=seed, dtype=self.probs.dtype)
        return op("cast")(op("less")(uniform, self.probs), self.dtype)

    def _log_prob(self, event: ops.Tensor) -> ops.Tensor:
        if self.validate_args:
            event = embed_check_integer_casting_closed(event, target_dtype=dtypes.bool)
        event = op("cast")(event, self.logits.dtype)
        logits = self.logits
        same = (
            event.get_shape().is_fully_defined()
            and logits.get_shape().is_fully_defined()
            and event.get_shape().as_list() == logits.get_shape().as_list()
        )
        if not same:
            logits, event = (
                op("ones_like")(event) * logits,
                op("ones_like")(logits) * event,
            )
        return -op("nn.sigmoid_cross_entropy_with_logits")(labels=event, logits=logits)

    def _entropy(self) -> ops.Tensor:
        return -self.logits * (op("sigmoid")(self.logits) - 1) + op("nn.softplus")(-self.logits)

    def _mean(self) -> ops.Tensor:
        return identity(self.probs)

    def _variance(self) -> ops.Tensor:
        one: Any = 1.0
        return self._mean() * (one - self.probs)

    def _mode(self) -> ops.Tensor:
        """Returns ``1`` if ``prob > 0.5`` and ``0`` otherwise."""
        return op("cast")(self.probs > 0.5, self.dtype)


@kullback_leibler.RegisterKL(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(a: Bernoulli, b: Bernoulli, name: str | None = None) -> ops.Tensor:
    with ops.name_scope(name, "kl_bernoulli_bernoulli", [a.logits, b.logits]):
        delta_probs0 = op("nn.softplus")(-b.logits) - op("nn.softplus")(-a.logits)
        delta_probs1 = op("nn.softplus")(b.logits) - op("nn.softplus")(a.logits)
        return op("sigmoid")(a.logits) * delta_probs0 + op("sigmoid")(-a.logits) * delta_probs1
