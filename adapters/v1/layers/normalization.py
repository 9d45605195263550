"""``tf.layers.batch_normalization`` (TF1) and ``BatchNormalization``.

The layer creates ``gamma`` (if ``scale``), ``beta`` (if ``center``) and the
non-trainable ``moving_mean``/``moving_variance`` (in ``GLOBAL_VARIABLES`` only).
``training`` is a Python bool or a bool tensor: training normalizes with the
batch's statistics and adds two ``AssignMovingAvg`` ops to ``UPDATE_OPS``
(``moving -= (moving - batch_statistic) * (1 - momentum)``), which TF1 code runs
with ``tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS))``;
inference normalizes with the moving statistics and adds no update.

TF's two paths are kept, since their numbers differ: 4-D float16, bfloat16 or
float32 inputs normalized on their channel axis use the fused kernel
(``tf.nn.fused_batch_norm``; ``fused=None`` or ``True`` elsewhere falls back to
the other path, as TF's v1 layer does), whose
variance for the moving average is the batch's unbiased one (``n / (n - 1)``)
and whose ``1 - momentum`` is computed in float32; other inputs use
``tf.nn.moments`` and ``tf.nn.batch_normalization`` with the biased variance.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from adapters.v1.framework import dtypes, ops
from adapters.v1.layers.base import InputSpec, Layer, op, passed_arguments
from adapters.v1.layers.core import smart_cond
from adapters.v1.ops import init_ops
from adapters.v1.ops.constant_op import constant
from adapters.v1.ops.variables import VariableAggregation, VariableSynchronization

__all__ = ["BatchNormalization", "batch_normalization"]
# TF's default initializers (shared instances, as TF's signatures show).
_ZEROS = init_ops.zeros_initializer()
_ONES = init_ops.ones_initializer()


class BatchNormalization(Layer):
    """Batch normalization (``tf.compat.v1.layers.BatchNormalization``).

    Args (TF's defaults): axis=-1, momentum=0.99, epsilon=1e-3, center=True,
    scale=True, beta/gamma/moving_mean/moving_variance initializers (zeros,
    ones, zeros, ones), beta/gamma regularizers and constraints (None),
    renorm=False, renorm_clipping=None, renorm_momentum=0.99, fused=None (the
    fused kernel where it applies), trainable=True, virtual_batch_size=None,
    adjustment=None, name=None, **kwargs.

    Raises:
      NotImplementedError: ``renorm``, ``virtual_batch_size`` or ``adjustment``
        (batch renormalization and ghost batches are not provided), or more
        than one normalized axis.
    """

    def __init__(
        self,
        axis: int | list[int] = -1,
        momentum: float = 0.99,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = _ZEROS,
        gamma_initializer: Any = _ONES,
        moving_mean_initializer: Any = _ZEROS,
        moving_variance_initializer: Any = _ONES,
        beta_regularizer: Callable | None = None,
        gamma_regularizer: Callable | None = None,
        beta_constraint: Callable | None = None,
        gamma_constraint: Callable | None = None,
        renorm: bool = False,
        renorm_clipping: Any = None,
        renorm_momentum: float = 0.99,
        fused: bool | None = None,
        trainable: bool = True,
        virtual_batch_size: int | None = None,
        adjustment: Callable | None = None,
        name: str | None = None,
        **kwargs: Any,
    ):
        super().__init__(name=name, trainable=trainable, **kwargs)
        if renorm or virtual_batch_size is not None or adjustment is not None:
            raise NotImplementedError(
                "tf.layers.BatchNormalization: renorm, virtual_batch_size and adjustment are "
                "not supported by adapters.v1; normalize with the batch statistics instead"
            )
        axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
        if len(axes) != 1:
            raise NotImplementedError(
                f"tf.layers.BatchNormalization normalizes one axis in adapters.v1, got {axis}"
            )
        self.axis = axes
        self.momentum = momentum
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = beta_initializer
        self.gamma_initializer = gamma_initializer
        self.moving_mean_initializer = moving_mean_initializer
        self.moving_variance_initializer = moving_variance_initializer
        self.beta_regularizer = beta_regularizer
        self.gamma_regularizer = gamma_regularizer
        self.beta_constraint = beta_constraint
        self.gamma_constraint = gamma_constraint
        self.renorm = renorm
        self.fused = fused

    def build(self, input_shape: Any) -> None:
        ndims = input_shape.ndims
        if ndims is None:
            raise ValueError(f"Input has undefined rank. Received: input_shape={input_shape}.")
        axis = self.axis[0] + ndims if self.axis[0] < 0 else self.axis[0]
        if not 0 <= axis < ndims:
            raise ValueError(
                f"Invalid axis. Expected 0 <= axis < inputs.rank (with inputs.rank={ndims}). "
                f"Received: layer.axis={self.axis}"
            )
        self.axis = [axis]
        # TF's v1 layer: ``fused`` None or True uses the kernel where it can (rank 4,
        # channel axis 1 or 3, a float16/bfloat16/float32 compute dtype) and falls
        # back to the moments path silently elsewhere (float64 inputs, other ranks)
        can_fuse = (
            ndims == 4
            and axis in (1, 3)
            and (self.dtype or "float32") in ("float16", "bfloat16", "float32")
        )
        self.fused = can_fuse and self.fused in (None, True)
        depth = input_shape.as_list()[axis]
        if depth is None:
            raise ValueError(
                f"Axis {axis} of input tensor should have a defined dimension but the layer "
                f"received an input with shape {input_shape}."
            )
        self.input_spec = InputSpec(ndim=ndims, axes={axis: depth})
        dtype = self.dtype
        if dtype in ("float16", "bfloat16"):
            dtype = "float32"  # TF keeps the parameters in float32
        self._param_dtype = dtypes.as_dtype(dtype or "float32")
        param = dict(shape=[depth], dtype=self._param_dtype, experimental_autocast=False)
        self.gamma = self.beta = None
        if self.scale:
            self.gamma = self.add_weight(
                "gamma",
                initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer,
                constraint=self.gamma_constraint,
                trainable=True,
                **param,
            )
        if self.center:
            self.beta = self.add_weight(
                "beta",
                initializer=self.beta_initializer,
                regularizer=self.beta_regularizer,
                constraint=self.beta_constraint,
                trainable=True,
                **param,
            )
        moving = dict(
            trainable=False,
            synchronization=VariableSynchronization.ON_READ,
            aggregation=VariableAggregation.MEAN,
            **param,
        )
        self.moving_mean = self.add_weight(
            "moving_mean", initializer=self.moving_mean_initializer, **moving
        )
        self.moving_variance = self.add_weight(
            "moving_variance", initializer=self.moving_variance_initializer, **moving
        )
        self.built = True

    def call(self, inputs: Any, training: Any = False) -> Any:
        inputs = self._to_compute_dtype(inputs)
        if isinstance(training, ops.Tensor) or hasattr(training, "_as_graph_tensor"):
            training_value = None  # decided at run time
        else:
            training_value = bool(training)
        if self.fused:
            return self._fused(inputs, training, training_value)
        return self._moments(inputs, training, training_value)

    # -- the fused kernel (4-D inputs) -------------------------------------------------
    def _fused(self, inputs: Any, training: Any, training_value: bool | None) -> Any:
        depth = inputs.shape.as_list()[self.axis[0]]
        gamma = self.gamma if self.scale else _constant(1.0, depth, self._param_dtype)
        beta = self.beta if self.center else _constant(0.0, depth, self._param_dtype)
        data_format = "NHWC" if self.axis[0] == 3 else "NCHW"

        def run(is_training: bool) -> Any:
            return op("nn.fused_batch_norm")(
                inputs,
                gamma,
                beta,
                mean=self.moving_mean,
                variance=self.moving_variance,
                epsilon=self.epsilon,
                is_training=is_training,
                data_format=data_format,
            )

        if training_value is None:
            train, infer = run(True), run(False)
            output, mean, variance = (
                op("where_v2")(training, t, i) for t, i in zip(train, infer, strict=True)
            )
            momentum = op("where_v2")(
                training,
                constant(self.momentum, dtype=dtypes.float32),
                constant(1.0, dtype=dtypes.float32),
            )
        else:
            output, mean, variance = run(training_value)
            momentum = constant(self.momentum, dtype=dtypes.float32)
        if training_value is not False:
            # TF: 1 - momentum computed on a float32 tensor.
            decay = op("subtract")(1.0, momentum)
            self.add_update(self._assign_moving_average(self.moving_mean, mean, decay))
            self.add_update(self._assign_moving_average(self.moving_variance, variance, decay))
        return output

    # -- moments and batch_normalization (other inputs) ----------------------------------
    def _moments(self, inputs: Any, training: Any, training_value: bool | None) -> Any:
        ndims = inputs.shape.ndims
        axis = self.axis[0]
        reduction_axes = [i for i in range(ndims) if i != axis]

        def broadcast(v: Any) -> Any:
            if v is None or axis == ndims - 1:
                return v
            shape = [1] * ndims
            shape[axis] = inputs.shape.as_list()[axis]
            return op("reshape")(v, shape)

        if training_value is False:
            mean, variance = self.moving_mean, self.moving_variance
        else:
            batch_mean, batch_variance = op("nn.moments")(
                op("cast")(inputs, self._param_dtype), reduction_axes, keep_dims=False
            )
            mean = smart_cond(training, lambda: batch_mean, lambda: self.moving_mean)
            variance = smart_cond(training, lambda: batch_variance, lambda: self.moving_variance)
            # TF: 1 - momentum computed in Python (double), then float32.
            decay = constant(1.0 - self.momentum, dtype=self._param_dtype)
            for var, value in (
                (self.moving_mean, batch_mean),
                (self.moving_variance, batch_variance),
            ):
                if training_value is None:  # no change when not training
                    value = op("where_v2")(training, value, var)
                self.add_update(self._assign_moving_average(var, value, decay))
        dtype = inputs.dtype
        outputs = op("nn.batch_normalization")(
            inputs,
            broadcast(op("cast")(mean, dtype)),
            broadcast(op("cast")(variance, dtype)),
            broadcast(op("cast")(self.beta, dtype)) if self.center else None,
            broadcast(op("cast")(self.gamma, dtype)) if self.scale else None,
            self.epsilon,
        )
        return outputs

    def _assign_moving_average(self, variable: Any, value: Any, decay: Any) -> ops.Operation:
        graph = ops.get_default_graph()
        with graph.name_scope("AssignMovingAvg") as scope:
            delta = op("multiply")(
                op("subtract")(variable, op("cast")(value, variable.dtype)), decay
            )
            return variable.assign_sub(delta, name=scope).op


def _constant(value: float, depth: int, dtype: Any) -> ops.Tensor:
    return constant([value] * depth, dtype=dtype)


def batch_normalization(
    inputs: Any,
    axis: int | list[int] = -1,
    momentum: float = 0.99,
    epsilon: float = 1e-3,
    center: bool = True,
    scale: bool = True,
    beta_initializer: Any = _ZEROS,
    gamma_initializer: Any = _ONES,
    moving_mean_initializer: Any = _ZEROS,
    moving_variance_initializer: Any = _ONES,
    beta_regularizer: Callable | None = None,
    gamma_regularizer: Callable | None = None,
    beta_constraint: Callable | None = None,
    gamma_constraint: Callable | None = None,
    training: Any = False,
    trainable: bool = True,
    name: str | None = None,
    reuse: Any = None,
    renorm: bool = False,
    renorm_clipping: Any = None,
    renorm_momentum: float = 0.99,
    fused: bool | None = None,
    virtual_batch_size: int | None = None,
    adjustment: Callable | None = None,
) -> ops.Tensor:
    """The functional form of ``BatchNormalization`` (``tf.compat.v1.layers.batch_normalization``).

    Args:
      inputs: the input tensor.
      training: a Python bool or a bool tensor (default False: the moving statistics).
      name: the layer's variable scope; ``reuse`` reuses it.
      axis: and the other arguments: as ``BatchNormalization``.

    Returns:
      The normalized tensor; when training, the moving averages' update ops are
      in ``UPDATE_OPS``.
    """
    arguments = passed_arguments(locals(), "inputs", "training", "reuse")
    layer = BatchNormalization(**arguments, _scope=name, _reuse=reuse)
    return layer(inputs, training=training)
