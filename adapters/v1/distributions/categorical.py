"""``tf.distributions.Categorical``: distributions over the classes ``{0, ..., K-1}``
of the last dimension of ``logits`` (or ``probs``).

``log_prob(k) = -sparse_softmax_cross_entropy_with_logits(k, logits)`` (parameters
and ``k`` broadcast against each other first, as TF), ``entropy = -sum(log_softmax *
probs)``, ``mode = argmax(logits)`` (the first of tied classes), ``cdf(k) = sum of
probs below k``; samples by ``tf.multinomial``. ``KL(a || b) = sum(softmax(a) *
(log_softmax(a) - log_softmax(b)))``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.v1.distributions import distribution, kullback_leibler
from adapters.v1.distributions.util import (
    embed_check_categorical_event_shape,
    embed_check_integer_casting_closed,
    get_logits_and_probs,
    op,
)
from adapters.v1.framework import dtypes, ops
from adapters.v1.framework.tensor_shape import TensorShape
from adapters.v1.ops import random_ops
from adapters.v1.ops.array_ops import identity

__all__ = ["Categorical"]


def _broadcast_cat_event_and_params(
    event: ops.Tensor, params: ops.Tensor, base_dtype: dtypes.DType
) -> tuple[ops.Tensor, ops.Tensor]:
    """``event`` (as integers) and ``params`` broadcast to ``event``'s batch, as TF."""
    if event.dtype.is_integer:
        pass
    elif event.dtype.is_floating:
        event = op("cast")(event, dtypes.int32)
    else:
        raise TypeError(f"`value` should have integer `dtype` or `self.dtype` ({base_dtype})")
    pshape = params.get_shape()
    known = (
        pshape.ndims is not None
        and pshape[:-1].is_fully_defined()
        and event.get_shape().is_fully_defined()
    )
    if not known or pshape[:-1].as_list() != event.get_shape().as_list():
        params = params * op("ones_like")(op("expand_dims")(event, -1), dtype=params.dtype)
        pshape = params.get_shape()
        if pshape.ndims is not None and pshape[:-1].is_fully_defined():
            batch: Any = pshape[:-1].as_list()
        else:
            batch = op("shape")(params)[:-1]
        event = event * op("ones")(batch, dtype=event.dtype)
        if pshape.ndims is not None:
            event.set_shape(pshape[:-1])
    return event, params


class Categorical(distribution.Distribution):
    """Categorical distributions (``tf.compat.v1.distributions.Categorical``).

    Args:
      logits: floating ``[..., K]`` log-odds (give exactly one of logits/probs).
      probs: floating ``[..., K]`` probabilities.
      dtype: the dtype of samples and ``mode`` (``tf.int32``).
      validate_args: ``False``; ``True`` adds TF's checks (at least 2 classes; probs
        non-negative and summing to 1; ``log_prob``/``cdf`` values non-negative
        integers), failing the run with ``InvalidArgumentError``.
      allow_nan_stats: ``True``.
      name: ``"Categorical"``.

    Raises:
      ValueError: both or neither of logits/probs (TF's message).
      TypeError: non-floating logits/probs.
    """

    def __init__(
        self,
        logits: Any = None,
        probs: Any = None,
        dtype: Any = dtypes.int32,
        validate_args: bool = False,
        allow_nan_stats: bool = True,
        name: str = "Categorical",
    ) -> None:
        parameters = dict(locals())
        with ops.name_scope(name, None, [logits, probs]) as name:
            self._logits, self._probs = get_logits_and_probs(
                logits=logits,
                probs=probs,
                validate_args=validate_args,
                multidimensional=True,
                name=name,
            )
            if validate_args:
                self._logits = embed_check_categorical_event_shape(self._logits)
            static = self._logits.get_shape().with_rank_at_least(1)
            if static.ndims is None:
                raise NotImplementedError(
                    "tf.distributions.Categorical: logits/probs of unknown rank are not "
                    "supported; give them a static rank"
                )
            self._batch_rank = ops.convert_to_tensor(
                np.asarray(static.ndims - 1, np.int32), name="batch_rank"
            )
            last = static.as_list()[-1]
            if last is not None:
                self._event_size = ops.convert_to_tensor(
                    np.asarray(last, np.int32), name="event_size"
                )
            else:
                with ops.name_scope("event_size"):
                    self._event_size = op("shape")(self._logits, name="logits_shape")[-1]
            if static[:-1].is_fully_defined():
                self._batch_shape_val = ops.convert_to_tensor(
                    np.asarray(static[:-1].as_list(), np.int32), name="batch_shape"
                )
            else:
                with ops.name_scope("batch_shape"):
                    self._batch_shape_val = op("shape")(self._logits)[:-1]
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
    def event_size(self) -> ops.Tensor:
        """The number of classes (a scalar int32 tensor)."""
        return self._event_size

    @property
    def logits(self) -> ops.Tensor:
        """The log-probabilities (``log(probs)`` when built from probs)."""
        return self._logits

    @property
    def probs(self) -> ops.Tensor:
        """The probabilities (``softmax(logits)`` when built from logits)."""
        return self._probs

    def _batch_shape_tensor(self) -> ops.Tensor:
        return identity(self._batch_shape_val)

    def _batch_shape(self) -> TensorShape:
        return self.logits.get_shape()[:-1]

    def _event_shape_tensor(self) -> ops.Tensor:
        return ops.convert_to_tensor(np.zeros([0], np.int32))

    def _event_shape(self) -> TensorShape:
        return TensorShape([])

    def _sample_n(self, n: Any, seed: int | None = None) -> ops.Tensor:
        if self.logits.get_shape().ndims == 2:
            logits_2d = self.logits
        else:
            logits_2d = op("reshape")(self.logits, [-1, self.event_size])
        sample_dtype = dtypes.int64 if self.dtype.size > 4 else dtypes.int32
        draws = random_ops.multinomial(logits_2d, n, seed=seed, output_dtype=sample_dtype)
        draws = op("reshape")(op("transpose")(draws), self._n_batch_shape(n))
        return op("cast")(draws, self.dtype)

    def _cdf(self, k: ops.Tensor) -> ops.Tensor:
        if self.validate_args:
            k = embed_check_integer_casting_closed(k, target_dtype=dtypes.int32)
        k, probs = _broadcast_cat_event_and_params(k, self.probs, self.dtype.base_dtype)
        flat_probs = op("reshape")(probs, [-1, self._event_size])
        flat_k = op("reshape")(k, [-1])
        below = op("where")(
            op("sequence_mask")(flat_k, self._event_size),
            flat_probs,
            op("zeros_like")(flat_probs),
        )
        flat_cdf = op("reduce_sum")(below, axis=-1)
        return op("reshape")(flat_cdf, op("shape")(k))

    def _log_prob(self, k: ops.Tensor) -> ops.Tensor:
        if self.validate_args:
            k = embed_check_integer_casting_closed(k, target_dtype=dtypes.int32)
        k, logits = _broadcast_cat_event_and_params(k, self.logits, self.dtype.base_dtype)
        return -op("nn.sparse_softmax_cross_entropy_with_logits")(labels=k, logits=logits)

    def _entropy(self) -> ops.Tensor:
        return -op("reduce_sum")(op("nn.log_softmax")(self.logits) * self.probs, axis=-1)

    def _mode(self) -> ops.Tensor:
        ret = op("argmax")(self.logits, axis=self._batch_rank)
        ret = op("cast")(ret, self.dtype)
        ret.set_shape(self.batch_shape)
        return ret


@kullback_leibler.RegisterKL(Categorical, Categorical)
def _kl_categorical_categorical(
    a: Categorical, b: Categorical, name: str | None = None
) -> ops.Tensor:
    with ops.name_scope(name, "kl_categorical_categorical", [a.logits, b.logits]):
        delta_log_probs1 = op("nn.log_softmax")(a.logits) - op("nn.log_softmax")(b.logits)
        return op("reduce_sum")(op("nn.softmax")(a.logits) * delta_log_probs1, axis=-1)
