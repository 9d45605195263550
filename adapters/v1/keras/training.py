"""Keras' v1 training loop in a TF1 graph: ``Model.compile``, ``fit``, ``evaluate``,
``predict`` and the ``*_on_batch`` methods, as TF 2.21's legacy Keras runs them in
graph mode (``tf_keras``' ``training_v1``/``training_arrays_v1``).

``compile`` builds, in the model's graph, TF's pieces: a ``<output>_target``
placeholder, the loss under ``loss/<output>_loss`` (the loss function per example,
reduced to ``sum / number of elements``, plus ``add_n(model.losses)``), the
metrics under ``metrics/<name>``, and wraps a ``tf.train`` optimizer as Keras'
``TFOptimizer`` (an int64 ``TFOptimizer/iterations`` variable, its global step).
The first ``fit``/``train_on_batch`` adds the train op under ``training``
(``compute_gradients``/``apply_gradients`` over the model's trainable weights,
then ``model.updates``).

Each batch is one ``Session.run`` of Keras' session (``backend.get_session()``):
the loss, each metric's running result, and the train op, with the learning
phase fed ``True`` when training. The metrics are Keras' stateful metric objects (a
function or name as a ``MeanMetricWrapper`` of it, as TF's): their variables, outside
every collection, accumulate across the batches of an epoch (of an ``evaluate``);
each output's loss (several outputs) is Keras' ``Mean`` of the batch losses, its
float32 total and count kept on the host (the same float32 additions).

``fit`` on NumPy arrays slices batches as TF (``np.random.shuffle`` of the index
array each epoch, so ``np.random.seed`` gives TF's order; the validation split
is the last fraction before shuffling), and reports through TF's callbacks
(``adapters.v1.keras.callbacks``): History's ``loss`` is the batch-size-weighted
mean of the batch losses in Python floats, the metrics their last running value,
``val_*`` the float32 aggregate of the validation pass.

``sample_weight``/``class_weight`` (sample-wise) weight the loss as TF
(``sum(loss * weight) / number of elements``) and the ``weighted_metrics`` (named
``weighted_<name>``, after the output's ``metrics``); the compiled ``metrics`` stay
unweighted. They are fed through an ``<output>_sample_weights`` placeholder.

.. note:: TF recompiles its loss when the weighting changes between calls, but
   rebuilds only the function (train or test) of the call that recompiled; the
   other keeps its old loss. So, as in TF, ``evaluate(sample_weight=w)`` after an
   unweighted ``test_on_batch`` and a weighted ``fit`` ignores ``w``.

A ``tf.data`` dataset of ``(x, y)`` (or ``(x, y, sample_weight)``; ``x`` for
``predict``) runs by steps as TF's loop: an initializable iterator per call, its
cardinality as ``steps_per_epoch`` when not given (re-initialized each epoch
then), the loss averaged over steps; each element is read in Keras' session and
fed to the step (TF connects the iterator's tensors to the step instead: the same
values, one more host round trip here).

A model compiled before it is built is built by its first data, as TF's
(``input_1``, floats as ``floatx``; the output named ``output_1``).

Several outputs as TF: ``loss``/``loss_weights``/``metrics`` given once, as lists
or as dicts by output name; ``metrics_names`` ``['loss', '<out>_loss'...,
'<out>_<metric>'...]``, each output's loss a running mean over the epoch's batches
(Keras' ``Mean``), an output's metrics keyed by name (a repeated one counted once).

Metric objects in ``compile(metrics=[...])`` (``Precision``, ``AUC``, ``MeanIoU``,
``BinaryAccuracy``..., and those made of functions and names) run as TF's v1 engine
runs them: each is called on its
output's target and prediction in the graph (unweighted), renamed to its compiled
name (``<output>_<name>`` with several outputs; one list for several outputs gives
each output a clone), its latest call's result fetched each batch (the running
value, logged as is), its state reset (``reset_state()`` in Keras' session) at the
start of each epoch, of ``evaluate`` and of the validation pass, and after
``*_on_batch`` unless ``reset_metrics=False``. ``metrics_names`` reads the objects'
current names, as TF's.

Not supported (``NotImplementedError`` naming the argument): an output without a
loss, sample or class weights with several outputs, ``sample_weight_mode``,
``target_tensors``, ``steps_per_epoch`` with arrays and validation, arrays with
dataset or generator validation, a dataset with array validation.

``fit``/``evaluate``/``predict`` and ``fit_generator``/``evaluate_generator``/
``predict_generator`` on Python generators and ``keras.utils.Sequence`` run TF's v1
generator loop (see ``generator_iteration``; its ``validation_data`` may be a
generator, a ``Sequence`` or a tuple of arrays).

``steps_per_epoch``/``steps`` with arrays run as TF's: every step feeds all the
arrays; ``validation_freq`` (a number or the epochs listed) as TF's.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Container, Iterator
from typing import Any

import numpy as np

from adapters.v1 import nest
from adapters.v1.distribute import distribute_lib
from adapters.v1.distribute.distributed_training_utils import check_keras_arrays
from adapters.v1.framework import ops
from adapters.v1.keras import backend, losses
from adapters.v1.keras import callbacks as cbks
from adapters.v1.keras import layers as layers_module
from adapters.v1.keras import metrics as metrics_module
from adapters.v1.keras.data_utils import OrderedEnqueuer, Sequence, iter_sequence_infinite
from adapters.v1.keras.layers import _history
from adapters.v1.layers.base import op
from adapters.v1.ops import array_ops, control_flow_ops
from jtrain import errors

__all__ = ["compile_model", "evaluate", "fit", "predict"]

_log = logging.getLogger(__name__)


def _get_optimizer(identifier: Any) -> Any:
    """``tf.keras.optimizers.get``: a ``tf.train`` optimizer wrapped as ``TFOptimizer``
    (``TFOptimizer/iterations``), a Keras optimizer as is, a name built."""
    from adapters.v1.keras import optimizers

    return optimizers.get(identifier)


def _track_optimizer_variables(optimizer: Any) -> None:
    """Keras' session initializes the variables of the optimizers it runs (a wrapped
    ``tf.train`` optimizer's slots included), as TF's ``get_session``."""
    known = {id(v) for v in backend._state().get("variables", [])}
    for owner in (optimizer, getattr(optimizer, "optimizer", None)):
        getter = getattr(owner, "variables", None)
        if not callable(getter):
            continue
        for v in getter():
            if id(v) not in known:
                known.add(id(v))
                backend._track_variable(v)


def _metric_name(metric: Any) -> str:
    """TF's name of a ``compile`` metric under TF1 behaviour (``disable_v2_behavior()``,
    ``adapters.v1``'s only behaviour): ``'accuracy'``/``'acc'`` is ``acc``,
    ``'crossentropy'``/``'ce'`` is ``ce``, others the function's name (``'mae'`` is
    ``mean_absolute_error``).

    .. note::
       TF 2 in graph mode without ``disable_v2_behavior()`` keeps the user's string
       (``accuracy``); a TF1 script, and so jtrain, gets ``acc`` (History's keys).
    """
    if metric in ("accuracy", "acc"):
        return "acc"
    if metric in ("crossentropy", "ce"):
        return "ce"
    fn = metrics_module.get(metric)
    return str(getattr(fn, "name", None) or fn.__name__)


def _clone_metric(metric: Any) -> Any:
    """TF's ``clone_metric``: a new metric object of the same class and config (its
    own variables); anything else as is."""
    if isinstance(metric, metrics_module.Metric):
        return type(metric).from_config(metric.get_config())
    return metric


def _nested_metrics(metrics: Any, names: list[str]) -> list[list[Any]]:
    """TF's ``collect_per_output_metric_info``'s nesting of ``compile``'s ``metrics``
    (or ``weighted_metrics``): one list of metrics per output."""
    if not metrics:
        return [[] for _ in names]
    if isinstance(metrics, dict):
        return [
            [] if m is None else list(m) if isinstance(m, (list, tuple)) else [m]
            for m in _per_output(metrics, names, "metrics")
        ]
    if isinstance(metrics, (list, tuple)) and any(isinstance(m, list) for m in metrics):
        if len(metrics) != len(names):
            raise ValueError(
                "When passing a list of lists as `metrics`, it should have one entry "
                f"per model output. The model has {len(names)} outputs, but you passed "
                f"metrics={metrics}"
            )
        return [list(m) if isinstance(m, (list, tuple)) else [m] for m in metrics]
    if isinstance(metrics, (list, tuple)):
        # one list for several outputs: each output gets its own copy of a metric
        # object (TF's ``clone_metric``); one output uses the objects given
        if len(names) > 1:
            return [[_clone_metric(m) for m in metrics] for _ in names]
        return [list(metrics)]
    raise TypeError(
        "Type of `metrics` argument not understood. Expected a list or dictionary, "
        f"found: {metrics}"
    )


def _is_loss(loss_fn: Any, fn: Any, cls: type) -> bool:
    return isinstance(loss_fn, cls) or loss_fn is fn or getattr(loss_fn, "fn", None) is fn


def _metric_function(metric: Any, output_shape: list[Any], loss_fn: Any) -> Any:
    if metric not in ("accuracy", "acc", "crossentropy", "ce"):
        return metrics_module.get(metric)
    sparse = _is_loss(
        loss_fn, losses.sparse_categorical_crossentropy, losses.SparseCategoricalCrossentropy
    )
    binary = _is_loss(loss_fn, losses.binary_crossentropy, losses.BinaryCrossentropy)
    last = output_shape[-1] if output_shape else None
    if metric in ("accuracy", "acc"):
        if last == 1 or binary:
            return metrics_module.binary_accuracy
        if sparse:
            return metrics_module.sparse_categorical_accuracy
        return metrics_module.categorical_accuracy
    if last == 1 or binary:
        return metrics_module.binary_crossentropy
    if sparse:
        return metrics_module.sparse_categorical_crossentropy
    return metrics_module.categorical_crossentropy


def _squeeze_or_expand(y_pred: Any, y_true: Any) -> tuple[Any, Any]:
    """Keras' ``squeeze_or_expand_dimensions`` for static ranks: a trailing 1 on the
    one of rank one higher is squeezed."""
    p_rank, t_rank = y_pred.shape.ndims, y_true.shape.ndims
    if p_rank is None or t_rank is None:
        return y_pred, y_true
    if p_rank - t_rank == 1 and y_pred.shape.as_list()[-1] == 1:
        y_pred = op("squeeze")(y_pred, [-1])
    elif t_rank - p_rank == 1 and y_true.shape.as_list()[-1] == 1:
        y_true = op("squeeze")(y_true, [-1])
    return y_pred, y_true


def _layer_name(tensor: Any) -> str:
    entry = _history(tensor.graph).get(id(tensor))
    if entry is not None:
        return str(entry[1].name)
    return str(tensor.op.name)


def _unsupported(what: str) -> NotImplementedError:
    return NotImplementedError(
        f"tf.keras.Model.{what} is not supported by adapters.v1's Keras training loop"
    )


def _per_output(spec: Any, names: list[str], what: str) -> list[Any]:
    """A compile argument given once, as a list or as a dict, one entry per output."""
    if isinstance(spec, dict):
        unknown = [k for k in spec if k not in names]
        if unknown:
            raise ValueError(
                f"Unknown entries in {what} dictionary: {unknown}. Only expected following "
                f"keys: {names}"
            )
        return [spec.get(n) for n in names]
    if isinstance(spec, (list, tuple)):
        if len(spec) != len(names):
            raise ValueError(
                f"When passing a list as {what}, it should have one entry per model "
                f"outputs. The model has {len(names)} outputs, but you passed {what}={spec}"
            )
        return list(spec)
    return [spec] * len(names)


class _Compiled:
    """What ``compile`` built: the losses, the metric tensors, the feeds."""

    def __init__(
        self,
        model: Any,
        optimizer: Any,
        loss: Any,
        metrics: Any,
        loss_weights: Any,
        output_name: str | None = None,
        weighted_metrics: Any = None,
    ):
        outputs = list(model.outputs)
        graph = outputs[0].graph
        names = [output_name] if output_name else [_layer_name(o) for o in outputs]
        self.output_names = names
        self.output_name = names[0]
        self.input_names = [_layer_name(x) for x in model.inputs]
        loss_list = _per_output(loss, names, "loss")
        for one in loss_list:
            if one is None:
                raise _unsupported("compile(loss=None for an output)")
            if isinstance(one, type) and issubclass(one, losses.Loss):
                raise ValueError(
                    f"Received uninstantiated Loss class: {one}\nPlease call loss classes "
                    "before passing them to Model.compile."
                )
        if loss_weights is None:
            weights: list[Any] = [None] * len(names)
        elif isinstance(loss_weights, dict):
            weights = [loss_weights.get(n, 1.0) for n in names]
        elif isinstance(loss_weights, (list, tuple)):
            if len(loss_weights) != len(names):
                raise ValueError(
                    "When passing a list as loss_weights, it should have one entry per "
                    f"model output. The model has {len(names)} outputs, but you passed "
                    f"loss_weights={loss_weights}"
                )
            weights = list(loss_weights)
        else:
            raise TypeError(
                "Could not interpret loss_weights argument: "
                f"{loss_weights} - expected a list of dicts."
            )
        self.loss_fns = [
            one if isinstance(one, losses.Loss) else losses.get(one) for one in loss_list
        ]
        self.loss_fn = self.loss_fns[0]
        self.keras_loss = isinstance(self.loss_fn, losses.Loss) or (
            self.loss_fn in losses._BY_NAME.values()
        )
        per_output = _nested_metrics(metrics, names)
        per_output_weighted = _nested_metrics(weighted_metrics, names)
        multi = len(names) > 1
        # each metric's label: a name, or the metric object whose name TF reads
        self._labels: list[Any] = [f"{n}_loss" for n in names] if multi else []
        # what each metric fetches: ``("loss", output_loss)`` (Keras' Mean of an output's
        # batch losses, kept on the host) or ``("result", metric)`` (a metric object's
        # running result: a function's is a MeanMetricWrapper of it, as TF's)
        self.metric_tensors: list[tuple[Any, ...]] = []
        self.metric_objects: list[Any] = []  # the stateful ones, reset as TF's
        self.fetches: dict[str, list[Any]] = {}  # by mode, see metric_fetches
        with graph.as_default():
            self.optimizer = optimizer
            self.targets = []
            with graph.name_scope(""):
                for out, name in zip(outputs, names, strict=True):
                    self.targets.append(
                        backend.placeholder(
                            ndim=out.shape.ndims,
                            name=f"{name}_target",
                            dtype=out.dtype.base_dtype,
                        )
                    )
            self.target = self.targets[0]
            metric_entries: list[tuple[Any, ...]] = []
            # TF keys each output's metrics by name (a repeated one counted once), all
            # named before any is renamed (an object given to two outputs included);
            # an output's metrics, then its weighted ones
            keyed = [
                (
                    self._keyed_metrics(specs, out, i, weighted=False),
                    self._keyed_metrics(wspecs, out, i, weighted=True),
                )
                for i, (out, specs, wspecs) in enumerate(
                    zip(outputs, per_output, per_output_weighted, strict=True)
                )
            ]
            self.weighted_objects: list[tuple[Any, int, dict[bool, Any]]] = []
            with graph.name_scope("metrics"):
                for i, (out, pair) in enumerate(zip(outputs, keyed, strict=True)):
                    for weighted, unique in enumerate(pair):
                        for name, fn in unique.items():
                            if multi:
                                name = f"{names[i]}_{name}"
                            base, j = name, 1
                            while name in ["loss", *self.metric_names]:
                                name = f"{base}_{j}"
                                j += 1
                            self._labels.append(
                                fn if isinstance(fn, metrics_module.Metric) else name
                            )
                            with graph.name_scope(name):
                                metric_entries.append(self._metric_entry(name, fn, out, i))
                            if weighted:
                                variants = {False: fn._call_result}
                                self.weighted_objects.append((fn, i, variants))
            self.output_losses: list[Any] = []
            with graph.name_scope("loss"):
                parts = []
                for i, (out, name) in enumerate(zip(outputs, names, strict=True)):
                    with graph.name_scope(f"{name}_loss"):
                        output_loss = self._output_loss(out, None, i)
                    self.output_losses.append(output_loss)
                    parts.append(output_loss if weights[i] is None else weights[i] * output_loss)
                custom = model.losses
                if custom:
                    parts.append(op("add_n")(list(custom)))
                self.total_loss = parts[0] if len(parts) == 1 else op("add_n")(parts)
        # the per-output losses are Keras' Mean metrics of each batch's loss
        if multi:
            self.metric_tensors = [("loss", t) for t in self.output_losses]
        self.metric_tensors += metric_entries
        self.model = model
        self.loss_weight = weights[0]
        self.sample_weights: Any = None
        self.weighted_loss: Any = None
        self.trainable_weights = list(model.trainable_weights)
        self.train_ops: dict[bool, Any] = {}
        # TF's recompilation on sample weights: the loss follows the latest call's
        # weighting; a train/test function is rebuilt only by the call that recompiles
        # (or when first made), so the other one keeps the loss it was made with.
        self.loss_weighted = False
        self.function_weighted: dict[str, bool | None] = {"train": None, "test": None}
        self.updates = model.updates
        self.state = [[np.float32(0.0), np.float32(0.0)] for _ in self.metric_names]

    @property
    def metric_names(self) -> list[str]:
        """The metrics' labels after ``loss``: a metric object's current ``name``
        (as TF's ``metrics_names`` reads ``Model.metrics``: renamed by a later compile
        that uses it, the model's label follows)."""
        return [label if isinstance(label, str) else label.name for label in self._labels]

    def _keyed_metrics(
        self, specs: list[Any], output: Any, index: int, weighted: bool
    ) -> dict[str, Any]:
        """An output's ``compile`` metrics keyed by TF's name (``weighted_`` before a
        weighted one's): the metric objects as given, a function (or name) as a
        ``MeanMetricWrapper`` of it of that name (TF's stateful version of it)."""
        shape = output.shape.as_list() if output.shape.ndims is not None else [None]
        unique: dict[str, Any] = {}
        prefix = "weighted_" if weighted else ""
        for metric in specs:
            if isinstance(metric, metrics_module.Metric):
                unique[prefix + metric.name] = metric
                continue
            if isinstance(metric, type) and issubclass(metric, metrics_module.Metric):
                # TF fails building the name of the class's ``name`` property (TypeError)
                raise TypeError(
                    f"Model.compile(metrics=...) got the metric class {metric.__name__}, "
                    f"not a metric: pass an instance ({metric.__name__}())"
                )
            name = prefix + _metric_name(metric)
            fn = _metric_function(metric, shape, self.loss_fns[index])
            if not isinstance(fn, metrics_module.Metric):
                fn = metrics_module.MeanMetricWrapper(fn, name=name)
            unique[name] = fn
        return unique

    def _metric_entry(self, name: str, metric: Any, output: Any, index: int) -> tuple[Any, ...]:
        """An output's compiled metric object in its ``metrics/<name>`` scope: renamed
        ``name`` and called on the target and the output, as TF's
        ``call_metric_function`` (no sample weights: these are the unweighted
        metrics); as TF, the train/test function fetches the result of the object's
        latest call (``_call_result``) when it is made."""
        metric.name = name  # TF sets the metric's name to its unique compiled name
        if metric not in self.metric_objects:
            self.metric_objects.append(metric)
        metric._call_result = metric(self.targets[index], output)
        return ("result", metric)

    def metric_fetches(self, mode: str) -> list[Any]:
        """The metric tensors ``mode``'s function fetches, fixed when it is made.

        .. note:: As TF, a metric object fetches the result of its latest call when the
           function is made: one object given to two outputs reports the second one's
           value under both names; one compiled into two models makes the first
           model's function fetch the second's result (TF's ``InvalidArgumentError``:
           the second model's target placeholder is not fed).
        """
        if mode not in self.fetches:
            tensors: list[Any] = []
            for entry in self.metric_tensors:
                if entry[0] == "result":
                    tensors.append(entry[1]._call_result)
                else:
                    tensors.extend(entry[1:])
            self.fetches[mode] = tensors
        return self.fetches[mode]

    def _output_loss(self, output: Any, sample_weight: Any = None, index: int = 0) -> Any:
        fn = self.loss_fns[index]
        target = self.targets[index]
        if isinstance(fn, losses.Loss):
            y_true, y_pred = target, output
            if isinstance(fn, losses.LossFunctionWrapper):
                y_pred, y_true = _squeeze_or_expand(y_pred, y_true)
            per_example = fn.call(y_true, y_pred)
            reduction = fn.reduction
        else:
            y_pred, y_true = _squeeze_or_expand(output, target)
            per_example = fn(y_true, y_pred)
            reduction = "sum_over_batch_size"
        per_example = ops.convert_to_tensor(per_example)
        if reduction == "none":
            raise _unsupported("compile(loss=a Loss with reduction='none')")
        if sample_weight is not None:  # Keras' compute_weighted_loss(reduction=NONE)
            weight = op("cast")(sample_weight, per_example.dtype.base_dtype)
            l_rank, w_rank = per_example.shape.ndims, weight.shape.ndims
            if l_rank is not None and w_rank:
                if w_rank - l_rank == 1:
                    weight = op("squeeze")(weight, [-1])
                elif l_rank - w_rank == 1:
                    weight = op("expand_dims")(weight, [-1])
            per_example = op("multiply")(per_example, weight)
        total = op("reduce_sum")(per_example)
        if reduction == "sum":
            return total
        count = op("cast")(op("size")(per_example), per_example.dtype.base_dtype)
        return op("div_no_nan")(total, count)

    def loss(self, weighted: bool) -> Any:
        """The total loss; ``weighted``: with the ``<output>_sample_weights`` feed (TF
        recompiles its loss so when ``fit`` gets sample or class weights)."""
        if not weighted:
            return self.total_loss
        if self.weighted_loss is None:
            graph = self.total_loss.graph
            output = self.model.outputs[0]
            with graph.as_default():
                with graph.name_scope(""):
                    self.sample_weights = array_ops.placeholder(
                        backend.floatx(), shape=[None], name=f"{self.output_name}_sample_weights"
                    )
                with graph.name_scope("loss"):
                    with graph.name_scope(f"{self.output_name}_loss"):
                        output_loss = self._output_loss(output, self.sample_weights)
                    parts = [
                        output_loss if self.loss_weight is None else self.loss_weight * output_loss
                    ]
                    custom = self.model.losses
                    if custom:
                        parts.append(op("add_n")(list(custom)))
                    self.weighted_loss = parts[0] if len(parts) == 1 else op("add_n")(parts)
        return self.weighted_loss

    def uses_weights(self, mode: str, weighted: bool) -> bool:
        """Whether ``mode``'s function weights the loss by the fed sample weights."""
        if weighted != self.loss_weighted:
            # TF recompiles the loss and calls the weighted metrics again, with the
            # sample weights or without
            self.loss_weighted = weighted
            self.function_weighted[mode] = weighted
            self.fetches.pop(mode, None)  # the function is made again
            self._call_weighted_metrics(weighted)
        elif self.function_weighted[mode] is None:
            self.function_weighted[mode] = self.loss_weighted
            self.fetches.pop(mode, None)
        return bool(self.function_weighted[mode]) and weighted

    def _call_weighted_metrics(self, weighted: bool) -> None:
        """Points each weighted metric's latest result at its call with (or without)
        the ``<output>_sample_weights`` feed, calling it the first time."""
        for metric, index, variants in self.weighted_objects:
            if weighted not in variants:
                self.loss(True)  # makes the <output>_sample_weights placeholder
                graph = self.sample_weights.graph
                with graph.as_default(), graph.name_scope("metrics"):
                    with graph.name_scope(metric.name):
                        variants[weighted] = metric(
                            self.targets[index],
                            self.model.outputs[index],
                            sample_weight=self.sample_weights,
                        )
            metric._call_result = variants[weighted]

    def build_train_op(self, weighted: bool = False) -> Any:
        if weighted not in self.train_ops:
            loss = self.loss(weighted)
            graph = loss.graph
            with graph.as_default(), graph.name_scope("training"):
                updates = self.optimizer.get_updates(loss, self.trainable_weights)
                _track_optimizer_variables(self.optimizer)
                updates = list(updates) + list(self.updates)
                self.train_ops[weighted] = control_flow_ops.group(*updates)
            with graph.as_default(), graph.name_scope("training"):
                pass  # TF opens 'training' again for its train function: the next is _2
        return self.train_ops[weighted]

    def reset(self) -> None:
        """TF's ``Model.reset_metrics``: the host means restart, and each metric
        object's ``reset_state()`` runs in Keras' session."""
        self.state = [[np.float32(0.0), np.float32(0.0)] for _ in self.metric_names]
        for metric in self.metric_objects:
            metric.reset_state()


def compile_model(
    model: Any,
    optimizer: Any = "rmsprop",
    loss: Any = None,
    metrics: Any = None,
    loss_weights: Any = None,
    sample_weight_mode: Any = None,
    weighted_metrics: Any = None,
    target_tensors: Any = None,
    distribute: Any = None,
    **kwargs: Any,
) -> None:
    """``Model.compile`` (see ``Model.compile``)."""
    for name, value in (
        ("sample_weight_mode", sample_weight_mode),
        ("target_tensors", target_tensors),
        ("distribute", distribute),
    ):
        if value is not None:
            raise _unsupported(f"compile({name}=...)")
    kwargs.pop("run_eagerly", None)
    kwargs.pop("experimental_run_tf_function", None)
    if kwargs:
        raise TypeError(f"Invalid keyword argument(s) in `compile()`: {tuple(kwargs)}.")
    if isinstance(loss, type) and issubclass(loss, losses.Loss):
        raise ValueError(
            f"Received uninstantiated Loss class: {loss}\nPlease call loss classes "
            "before passing them to Model.compile."
        )
    graph = model.outputs[0].graph if model.outputs else ops.get_default_graph()
    with graph.as_default():
        opt = _get_optimizer(optimizer)
    model.__dict__["optimizer"] = opt
    model.__dict__["loss"] = loss
    # TF's distributed loop runs a model compiled under a strategy's scope()
    model.__dict__["_distribution_strategy"] = (
        distribute_lib.get_strategy() if distribute_lib.has_strategy() else None
    )
    model.__dict__.pop("_compiled", None)
    if model.outputs is None or model.inputs is None:
        # TF builds a model without inputs on the first data it gets (an ``input_1``
        # placeholder, the output named ``output_1``), then compiles it.
        model.__dict__["_pending_compile"] = (
            graph,
            opt,
            loss,
            metrics,
            loss_weights,
            weighted_metrics,
        )
        return
    model.__dict__.pop("_pending_compile", None)
    _finish_compile(model, opt, loss, metrics, loss_weights, weighted_metrics=weighted_metrics)


def _finish_compile(
    model: Any,
    opt: Any,
    loss: Any,
    metrics: Any,
    loss_weights: Any,
    output_name: Any = None,
    weighted_metrics: Any = None,
) -> None:
    compiled = _Compiled(model, opt, loss, metrics, loss_weights, output_name, weighted_metrics)
    model.__dict__["_compiled"] = compiled
    model.__dict__["total_loss"] = compiled.total_loss


def _maybe_build(model: Any, x: Any) -> None:
    """A model compiled before it was built is built on ``x``'s shape (floats as
    ``floatx``), as TF's ``_build_model_with_inputs``, then compiled."""
    pending = model.__dict__.get("_pending_compile")
    if pending is None:
        return
    graph, opt, loss, metrics, loss_weights, weighted_metrics = pending
    if isinstance(x, dict) or (isinstance(x, (list, tuple)) and len(x) != 1):
        raise _unsupported("fit/evaluate/predict of a model not built, on several inputs")
    a = np.asarray(x[0] if isinstance(x, (list, tuple)) else x)
    dtype = backend.floatx() if a.dtype.kind == "f" else a.dtype.name
    with graph.as_default():
        inp = layers_module.Input(batch_shape=(None, *a.shape[1:]), dtype=dtype)
        out = model(inp)
    if isinstance(out, (list, tuple)):
        raise _unsupported("compile of a model with several outputs")
    model.inputs, model.outputs = [inp], [out]
    model.built = True
    del model.__dict__["_pending_compile"]
    _finish_compile(
        model,
        opt,
        loss,
        metrics,
        loss_weights,
        output_name="output_1",
        weighted_metrics=weighted_metrics,
    )


def _compiled(model: Any, method: str) -> _Compiled:
    compiled = model.__dict__.get("_compiled")
    if compiled is None and "_pending_compile" in model.__dict__:
        raise _unsupported(f"{method} before the model is built")
    if compiled is None:
        raise RuntimeError(
            "You must compile your model before training/testing. "
            "Use `model.compile(optimizer, loss)`."
        )
    return compiled


def metrics_names(model: Any) -> list[str]:
    compiled = model.__dict__.get("_compiled")
    return ["loss"] + (compiled.metric_names if compiled is not None else [])


def compile_metrics(model: Any) -> list[Any]:
    """TF's ``Model.metrics`` of a compiled model: the metric objects ``compile`` made
    or was given, in ``metrics_names``' order (an object given to two outputs twice),
    without the per-output losses' means.

    Args:
      model: a ``tf.keras.Model``.

    Returns:
      The metric objects (``[]`` before ``compile``).
    """
    compiled = model.__dict__.get("_compiled")
    if compiled is None:
        return []
    return [label for label in compiled._labels if not isinstance(label, str)]


# -- data -------------------------------------------------------------------------------
def _standardize(
    data: Any, tensors: list[Any], names: list[str], prefix: str, check: bool = True
) -> list[np.ndarray]:
    if data is None:
        raise ValueError(f"Error when checking model {prefix}: expected no data, but got None")
    if isinstance(data, dict):
        try:
            arrays = [data[n] for n in names]
        except KeyError as e:
            raise ValueError(
                f"No data provided for {e.args[0]!r}. Need data for each key in: {names}"
            ) from None
    elif isinstance(data, (list, tuple)):
        arrays = list(data)
        if len(arrays) != len(names) and len(names) == 1:
            arrays = [np.asarray(data)]
    else:
        arrays = [data]
    if len(arrays) != len(names):
        raise ValueError(
            f"Error when checking model {prefix}: the list of Numpy arrays that you are "
            f"passing to your model is not the size the model expected. Expected to see "
            f"{len(names)} array(s), but instead got {len(arrays)} arrays."
        )
    out = []
    for a, t, name in zip(arrays, tensors, names, strict=True):
        if isinstance(a, ops.Tensor):
            raise _unsupported(f"fit/evaluate/predict on graph tensors ({prefix} {name})")
        a = np.asarray(a)
        shape = t.shape.as_list() if t.shape.ndims is not None else None
        if a.ndim == 1 and (shape is None or len(shape) != 1):
            a = np.expand_dims(a, 1)
        if check and shape is not None:
            if a.ndim != len(shape):
                raise ValueError(
                    f"Error when checking {prefix}: expected {name} to have {len(shape)} "
                    f"dimensions, but got array with shape {a.shape}"
                )
            for dim, ref in zip(a.shape[1:], shape[1:], strict=True):
                if ref is not None and ref != dim:
                    raise ValueError(
                        f"Error when checking {prefix}: expected {name} to have shape "
                        f"{tuple(shape[1:])} but got array with shape {a.shape[1:]}"
                    )
        out.append(a)
    return out


def _check_lengths(x: list[np.ndarray], y: list[np.ndarray]) -> None:
    xs = {len(a) for a in x}
    ys = {len(a) for a in y}
    if len(xs) > 1:
        raise ValueError(
            "All input arrays (x) should have the same number of samples. Got array "
            f"shapes: {[a.shape for a in x]}"
        )
    if len(ys) > 1:
        raise ValueError(
            "All target arrays (y) should have the same number of samples. Got array "
            f"shapes: {[a.shape for a in y]}"
        )
    if xs and ys and xs != ys:
        raise ValueError(
            "Input arrays should have the same number of samples as target arrays. "
            f"Found {next(iter(xs))} input samples and {next(iter(ys))} target samples."
        )


def _weights(y: np.ndarray, sample_weight: Any, class_weight: Any) -> np.ndarray | None:
    """TF's ``standardize_weights`` (sample-wise): the sample weights, times the
    class weights of ``y``'s classes (its argmax, or its single column)."""
    if isinstance(sample_weight, tuple):
        sample_weight = sample_weight[0]
    if isinstance(sample_weight, (list, dict)):
        raise _unsupported("fit(sample_weight=a list or dict)")
    if sample_weight is not None:
        sample_weight = np.asarray(sample_weight)
        if len(sample_weight.shape) != 1:
            raise ValueError(
                f"Found a sample_weight array with shape {sample_weight.shape}. In order to "
                "use timestep-wise sample weights, you should specify "
                'sample_weight_mode="temporal" in compile(); founssd "None" instead. If you '
                "just mean to use sample-wise weights, make sure your sample_weight array "
                "is 1D."
            )
        if y.shape[: sample_weight.ndim] != sample_weight.shape:
            raise ValueError(
                f"Found a sample_weight array with shape {sample_weight.shape} for an input "
                f"with shape {y.shape}. sample_weight cannot be broadcast."
            )
    class_sample_weight = None
    if isinstance(class_weight, dict):
        if len(y.shape) > 2:
            raise ValueError("`class_weight` not supported for 3+ dimensional targets.")
        y_classes = y
        if len(y.shape) == 2:
            if y.shape[1] > 1:
                y_classes = np.argmax(y, axis=1)
            elif y.shape[1] == 1:
                y_classes = np.reshape(y, y.shape[0])
        class_sample_weight = np.asarray([class_weight[c] for c in y_classes if c in class_weight])
        if len(class_sample_weight) != len(y_classes):
            missing = set(y_classes) - set(class_weight.keys())
            raise ValueError(
                "`class_weight` must contain all classes in the data. The classes "
                f"{missing} exist in the data but not in `class_weight`."
            )
    elif class_weight is not None:
        raise _unsupported("fit(class_weight=a list)")
    if class_sample_weight is not None and sample_weight is not None:
        return np.asarray(class_sample_weight * sample_weight)
    if sample_weight is not None:
        return sample_weight
    return class_sample_weight


def _data(
    model: Any,
    x: Any,
    y: Any,
    with_y: bool = True,
    sample_weight: Any = None,
    class_weight: Any = None,
) -> list[np.ndarray]:
    _maybe_build(model, x)
    if model.inputs is None:
        raise NotImplementedError(
            "tf.keras.Model: predict of a model neither built nor compiled is not supported "
            "by adapters.v1: give the first layer an input_shape (or use tf.keras.Input)"
        )
    compiled = model.__dict__.get("_compiled")
    names = compiled.input_names if compiled else [_layer_name(t) for t in model.inputs]
    xs = _standardize(x, model.inputs, names, "input")
    if not with_y:
        return xs
    assert compiled is not None
    if y is None:
        raise ValueError(
            "Target data is missing. Your model was compiled with "
            f"loss={model.loss}, and therefore expects target data to be provided in `fit()`."
        )
    ys = _standardize(y, model.outputs, compiled.output_names, "target", check=False)
    if len(ys) > 1 and (sample_weight is not None or class_weight is not None):
        raise _unsupported("fit/evaluate of a model with several outputs with sample/class weights")
    weights = _weights(ys[0], sample_weight, class_weight)
    _check_lengths(xs, ys)
    if weights is not None and len(weights) != len(ys[0]):
        raise ValueError(
            "Sample_weight arrays should have the same number of samples as target arrays. "
            f"Got {len(ys[0])} input samples and {len(weights)} target samples."
        )
    for target, loss_fn, output in zip(ys, compiled.loss_fns, model.outputs, strict=True):
        _check_loss_and_target(target, loss_fn, output)
    return xs + ys + ([] if weights is None else [weights])


def _check_loss_and_target(y: np.ndarray, loss_fn: Any, output: Any) -> None:
    """TF's ``check_loss_and_target_compatibility`` for the losses it knows."""
    fn = getattr(loss_fn, "fn", loss_fn)
    if fn is losses.categorical_crossentropy or isinstance(loss_fn, losses.CategoricalCrossentropy):
        if y.shape[-1] == 1:
            raise ValueError(
                f"You are passing a target array of shape {y.shape} while using as loss "
                "`categorical_crossentropy`. `categorical_crossentropy` expects targets to "
                "be binary matrices (1s and 0s) of shape (samples, classes). If your targets "
                "are integer classes, you can convert them to the expected format via:\n"
                "```\nfrom tf_keras.src.utils import to_categorical\ny_binary = "
                "to_categorical(y_int)\n```\n\nAlternatively, you can use the loss function "
                "`sparse_categorical_crossentropy` instead, which does expect integer targets."
            )
    keys = (losses.mean_squared_error, losses.binary_crossentropy, losses.categorical_crossentropy)
    classes = (losses.MeanSquaredError, losses.BinaryCrossentropy, losses.CategoricalCrossentropy)
    if not (isinstance(loss_fn, classes) or any(fn is k for k in keys)):
        return
    if output.shape.ndims is None:
        return
    shape = tuple(output.shape.as_list())
    for target_dim, out_dim in zip(y.shape[1:], shape[1:], strict=False):
        if out_dim is not None and target_dim != out_dim:
            name = getattr(loss_fn, "name", None) or getattr(fn, "__name__", str(fn))
            raise ValueError(
                f"A target array with shape {y.shape} was passed for an output of shape "
                f"{shape} while using as loss `{name}`. This loss expects targets to have "
                "the same shape as the output."
            )


def _feeds(model: Any, mode: str, weighted: bool = False) -> list[Any]:
    feeds = list(model.inputs)
    if mode != "predict":
        compiled = _compiled(model, mode)
        feeds.extend(compiled.targets)
        if weighted:
            compiled.loss(True)
            feeds.append(compiled.sample_weights)
    return feeds


def _make_batches(size: int, batch_size: int) -> list[tuple[int, int]]:
    n = int(np.ceil(size / float(batch_size)))
    return [(i * batch_size, min(size, (i + 1) * batch_size)) for i in range(n)]


# -- one step ---------------------------------------------------------------------------
def _run(model: Any, mode: str, arrays: list[np.ndarray]) -> list[Any]:
    """One ``Session.run`` of the train/test/predict function on one batch."""
    weighted = mode != "predict" and len(arrays) == len(model.inputs) + len(model.outputs) + 1
    if weighted and not _compiled(model, mode).uses_weights(mode, True):
        arrays, weighted = arrays[:-1], False  # TF's stale function: weights not fed
    elif not weighted and mode != "predict":
        _compiled(model, mode).uses_weights(mode, False)
    feeds = _feeds(model, mode, weighted)
    feed_dict = {
        t: np.asarray(a, dtype=t.dtype.base_dtype.as_numpy_dtype)
        for t, a in zip(feeds, arrays, strict=True)
    }
    if mode == "predict":
        return list(backend.get_session().run(list(model.outputs), feed_dict))
    compiled = _compiled(model, mode)
    fetches: list[Any] = [compiled.loss(weighted)]
    fetches.extend(compiled.metric_fetches(mode))
    if mode == "train":
        fetches.append(compiled.build_train_op(weighted))
        phase = backend.learning_phase()
        if not isinstance(phase, int):
            feed_dict[phase] = True
    values = backend.get_session().run(fetches, feed_dict)
    outs: list[Any] = [np.float32(np.asarray(values[0]))]
    k = 1
    for state, entry in zip(compiled.state, compiled.metric_tensors, strict=True):
        kind = entry[0]
        if kind == "result":  # a metric object: its running result, as fetched
            outs.append(values[k])
            k += 1
            continue
        # a per-output loss: Keras' Mean of one value per batch (float32 total and
        # count, the result total / count)
        state[0] = np.float32(state[0] + np.float32(values[k]))
        state[1] = np.float32(state[1] + np.float32(1.0))
        k += 1
        outs.append(np.float32(0.0) if state[1] == 0 else np.float32(state[0] / state[1]))
    return outs


# -- the loop ---------------------------------------------------------------------------
def _callback_list(
    model: Any,
    callbacks: Any,
    mode: str,
    verbose: int,
    params: dict[str, Any],
    count_mode: str = "samples",
) -> cbks.CallbackList:
    if isinstance(callbacks, cbks.CallbackList):
        return callbacks
    callbacks = list(callbacks or [])
    if mode == "train":
        history = cbks.History()
        model.__dict__["history"] = history
        callbacks = [cbks.BaseLogger(), *callbacks, history]
        if verbose:
            callbacks.append(cbks.ProgbarLogger(count_mode))
    names = metrics_names(model)
    for cb in callbacks:
        if isinstance(cb, (cbks.BaseLogger, cbks.ProgbarLogger)):
            cb.stateful_metrics = set(names[1:])
    result = cbks.CallbackList(callbacks)
    result.set_model(model)
    metric_names = []
    if mode != "predict":
        metric_names = list(names)
        if params["do_validation"]:
            metric_names += ["val_" + n for n in names]
    result.set_params(
        {
            "batch_size": params["batch_size"],
            "epochs": params["epochs"],
            "steps": params["steps"],
            "samples": params["samples"],
            "verbose": verbose,
            "do_validation": params["do_validation"],
            "metrics": metric_names,
        }
    )
    model.__dict__["stop_training"] = False
    return result


def _make_logs(
    model: Any, logs: dict[str, Any], outputs: list[Any], mode: str, prefix: str = ""
) -> dict[str, Any]:
    if mode in ("train", "test"):
        for label, value in zip(metrics_names(model), outputs, strict=False):
            logs[prefix + label] = value
    else:
        logs["outputs"] = outputs
    return logs


class _DatasetFeed:
    """A ``tf.data`` dataset as Keras' v1 loop reads it: an initializable iterator
    (made once per ``fit``/``evaluate``/``predict``), one element per step read in
    Keras' session and fed as that step's arrays."""

    def __init__(self, model: Any, dataset: Any, with_y: bool):
        graph = (model.outputs[0] if model.outputs else model.inputs[0]).graph
        with graph.as_default():
            self.iterator = dataset.make_initializable_iterator()
            self.next = self.iterator.get_next()
        self.model, self.with_y = model, with_y
        self.reset()

    def reset(self) -> None:
        backend.get_session().run(self.iterator.initializer)

    def get(self) -> list[np.ndarray]:
        value = backend.get_session().run(self.next)
        if isinstance(value, tuple) and self.with_y:
            x, y = value[0], value[1]
            sw = value[2] if len(value) > 2 else None
            return _data(self.model, x, y, sample_weight=sw)
        if isinstance(value, tuple) and len(value) in (2, 3) and not self.with_y:
            value = value[0]  # predict on (x, y) elements reads x
        return _data(self.model, value, None, with_y=False)


def _is_dataset(x: Any) -> bool:
    from adapters.v1.data.dataset_ops import DatasetV1

    return isinstance(x, DatasetV1)


def _dataset_steps(dataset: Any, steps: Any, epochs: int, steps_name: str) -> Any:
    """TF's ``infer_steps_for_dataset``: the dataset's cardinality (an ``np.int64``)
    when ``steps`` is None; checks ``steps * epochs`` against it."""
    size = np.int64(backend.get_session().run(dataset.cardinality()))
    if size == -1 and steps is None:  # INFINITE_CARDINALITY
        raise ValueError(
            "When passing an infinitely repeating dataset, you must specify the "
            f"`{steps_name}` argument."
        )
    # (TF's v1 loop infers only when no steps are given: it never checks given ones)
    if steps is None:
        return size if size >= 0 else None
    return steps


def _should_run_validation(validation_freq: Any, epoch: int) -> bool:
    """TF's rule: every ``validation_freq`` epochs, or the (1-based) epochs listed."""
    if isinstance(validation_freq, int):
        if validation_freq < 1:
            raise ValueError("`validation_freq` can not be less than 1.")
        return (epoch + 1) % validation_freq == 0
    if not isinstance(validation_freq, Container):
        raise ValueError(
            "`validation_freq` must be an Integer or `collections.abc.Container` (e.g. list, "
            "tuple, etc.)"
        )
    return epoch + 1 in validation_freq


class _ArrayFeed:
    """Arrays run by steps (``steps_per_epoch``/``steps`` given): TF feeds all of
    them at every step."""

    def __init__(self, ins: list[np.ndarray]):
        self.ins = ins

    def reset(self) -> None:
        pass

    def get(self) -> list[np.ndarray]:
        return self.ins


def _aggregate(agg: list[Any], outs: list[Any], first: bool, weight: Any) -> list[Any]:
    """TF's MetricsAggregator step (``weight``: the batch's samples, or None by steps);
    ``first``: the epoch's first batch starts a new sum."""
    if first:
        agg = [0.0] * len(outs)
    agg[0] += outs[0] if weight is None else outs[0] * weight
    agg[1:] = outs[1:]
    return agg


def model_iteration(
    model: Any,
    ins: list[np.ndarray] | None,
    batch_size: Any,
    epochs: int = 1,
    verbose: int = 1,
    callbacks: Any = None,
    val_ins: list[np.ndarray] | None = None,
    shuffle: Any = True,
    initial_epoch: int = 0,
    mode: str = "train",
    feed: _DatasetFeed | _ArrayFeed | None = None,
    steps: Any = None,
    val_feed: _DatasetFeed | _ArrayFeed | None = None,
    val_steps: Any = None,
    reset_each_epoch: bool = False,
    validation_freq: Any = 1,
) -> Any:
    """TF's ``training_arrays_v1.model_iteration`` for NumPy arrays (by samples) and
    ``tf.data`` datasets (by steps)."""
    use_steps = feed is not None
    num_samples = steps if use_steps else (int(ins[0].shape[0]) if ins else 0)
    do_validation = val_ins is not None or val_feed is not None
    if mode == "train" and verbose:
        unit = "steps" if isinstance(feed, _DatasetFeed) else "samples"
        msg = f"Train on {num_samples} {unit}"
        val_count = val_steps if val_feed is not None else (val_ins[0].shape[0] if val_ins else 0)
        if val_count:
            msg += f", validate on {int(val_count)} {unit}"
        print(msg)
    callback_list = _callback_list(
        model,
        callbacks,
        mode,
        verbose,
        {
            "batch_size": batch_size,
            "epochs": epochs,
            "steps": steps,
            "samples": num_samples,
            "do_validation": do_validation,
        },
        "steps" if use_steps else "samples",
    )
    model.__dict__["stop_training"] = False
    compiled = model.__dict__.get("_compiled")
    if mode == "train" and compiled is not None and not compiled.train_ops and ins is not None:
        # TF makes the train function before the callbacks begin: the optimizer's
        # variables are made in its 'training' scope even when a callback reads one
        # first (LearningRateScheduler's lr). (An unweighted fit's; weights decide per
        # batch.)
        if len(ins) == len(model.inputs) + len(model.outputs):
            compiled.build_train_op(False)
    callback_list._call_begin_hook(mode)
    results: Any = None
    # TF's aggregator lives across epochs: an epoch whose dataset is exhausted before
    # its first step finalizes (divides) the previous epoch's sums again, as TF.
    agg: list[Any] = []
    for epoch in range(initial_epoch, epochs):
        if model.__dict__.get("stop_training"):
            break
        epoch_logs: dict[str, Any] = {}
        if mode != "predict" and compiled is not None:
            compiled.reset()
        if mode == "train":
            callback_list.on_epoch_begin(epoch, epoch_logs)
        parts: list[list[Any]] = []
        divisor: Any = num_samples
        if use_steps:
            assert feed is not None
            step = 0
            target = np.inf if steps is None else steps
            while step < target:
                batch_logs: dict[str, Any] = {"batch": step, "size": 1}
                callback_list._call_batch_hook(mode, "begin", step, batch_logs)
                try:
                    outs = _run(model, mode, feed.get())
                except errors.OutOfRangeError:
                    if steps:
                        model.__dict__["stop_training"] = True
                        _log.warning(
                            "Your dataset ran out of data; interrupting training. Make sure "
                            "that your dataset can generate at least `steps_per_epoch * "
                            "epochs` batches (in this case, %d batches). You may need to "
                            "use the repeat() function when building your dataset.",
                            steps * epochs,
                        )
                    elif step > 0:
                        steps = step
                    break
                if mode == "predict":
                    parts.append(outs)
                else:
                    agg = _aggregate(agg, outs, step == 0, None)
                batch_logs = _make_logs(model, batch_logs, outs, mode)
                callback_list._call_batch_hook(mode, "end", step, batch_logs)
                step += 1
                if model.__dict__.get("stop_training"):
                    break
            divisor = steps
            if parts:
                agg = [np.concatenate([p[i] for p in parts]) for i in range(len(parts[0]))]
        else:
            assert ins is not None
            index_array = np.arange(num_samples)
            if shuffle == "batch":
                raise _unsupported("fit(shuffle='batch')")
            if shuffle:
                np.random.shuffle(index_array)  # noqa: NPY002 (TF's global NumPy stream)
            batches = _make_batches(num_samples, batch_size)
            for batch_index, (start, end) in enumerate(batches):
                ids = index_array[start:end]
                batch_ins = ins if len(batches) == 1 else [a[ids] for a in ins]
                batch_logs = {"batch": batch_index, "size": len(ids)}
                callback_list._call_batch_hook(mode, "begin", batch_index, batch_logs)
                outs = _run(model, mode, batch_ins)
                if mode == "predict":
                    if batch_index == 0:
                        agg = [np.zeros((num_samples, *o.shape[1:]), dtype=o.dtype) for o in outs]
                    for r, o in zip(agg, outs, strict=True):
                        r[start:end] = o
                else:
                    agg = _aggregate(agg, outs, batch_index == 0, end - start)
                batch_logs = _make_logs(model, batch_logs, outs, mode)
                callback_list._call_batch_hook(mode, "end", batch_index, batch_logs)
                if model.__dict__.get("stop_training"):
                    break
        if not agg:
            raise ValueError("Empty training data.")
        if mode != "predict":
            agg[0] /= divisor
        results = list(agg)
        epoch_logs = _make_logs(model, epoch_logs, results, mode)
        if len(results) == 1:
            results = results[0]
        if (
            do_validation
            and _should_run_validation(validation_freq, epoch)
            and not model.__dict__.get("stop_training")
        ):
            val_results = model_iteration(
                model,
                val_ins,
                batch_size,
                callbacks=callback_list,
                verbose=0,
                shuffle=True,  # TF's validation pass shuffles (and draws from NumPy's stream)
                mode="test",
                feed=val_feed,
                steps=val_steps,
            )
            if not isinstance(val_results, list):
                val_results = [val_results]
            epoch_logs = _make_logs(model, epoch_logs, val_results, mode, prefix="val_")
            if val_feed is not None and epoch < epochs - 1:
                val_feed.reset()
        if mode == "train":
            callback_list.on_epoch_end(epoch, epoch_logs)
        if reset_each_epoch and feed is not None and epoch < epochs - 1:
            feed.reset()
    callback_list._call_end_hook(mode)
    if mode == "train":
        return model.__dict__["history"]
    return results


def _batch_size(batch_size: Any, steps: Any, what: str, x: Any = None) -> Any:
    if _is_dataset(x) or inspect.isgenerator(x) or isinstance(x, Sequence):
        if batch_size is not None:
            raise ValueError(
                "The `batch_size` argument must not be specified for the given input type. "
                f"Received input: {x}, batch_size: {batch_size}"
            )
        return None
    if batch_size is None and steps is None:
        return 32
    return batch_size


def fit(
    model: Any,
    x: Any = None,
    y: Any = None,
    batch_size: Any = None,
    epochs: int = 1,
    verbose: int = 1,
    callbacks: Any = None,
    validation_split: float = 0.0,
    validation_data: Any = None,
    shuffle: Any = True,
    class_weight: Any = None,
    sample_weight: Any = None,
    initial_epoch: int = 0,
    steps_per_epoch: Any = None,
    validation_steps: Any = None,
    validation_freq: Any = 1,
    **kwargs: Any,
) -> Any:
    """``Model.fit`` on NumPy arrays or a ``tf.data`` dataset (see ``Model.fit``)."""
    if "nb_epoch" in kwargs:
        epochs = kwargs.pop("nb_epoch")
    enqueuer = _enqueuer_arguments(kwargs)
    if kwargs:
        raise TypeError(f"Unrecognized keyword arguments: {kwargs}")
    size = _batch_size(batch_size, steps_per_epoch, "fit", x)
    if _is_generator_or_sequence(x):
        _check_generator_arguments(y, sample_weight, validation_split)
        return generator_iteration(
            model,
            x,
            steps_per_epoch,
            epochs=epochs,
            verbose=verbose,
            callbacks=callbacks,
            validation_data=validation_data,
            validation_steps=validation_steps,
            validation_freq=validation_freq,
            class_weight=class_weight,
            shuffle=shuffle,
            initial_epoch=initial_epoch,
            mode="train",
            **enqueuer,
        )
    if _is_dataset(x):
        if y is not None or sample_weight is not None or class_weight is not None:
            raise ValueError(
                "`y` argument is not supported when using dataset as input."
                if y is not None
                else "`sample_weight` argument is not supported when using dataset as input."
            )
        if validation_split:
            raise ValueError(
                "`validation_split` argument is not supported when input `x` is a dataset "
                "or a dataset iterator. Received: x="
                + str(x)
                + ", validation_split="
                + str(validation_split)
            )
        steps = _dataset_steps(x, steps_per_epoch, epochs, "steps_per_epoch")
        val_feed, val_steps = None, None
        if validation_data is not None:
            if not _is_dataset(validation_data):
                raise _unsupported("fit(dataset, validation_data=arrays)")
            val_steps = _dataset_steps(validation_data, validation_steps, 1, "validation_steps")
        feed = _dataset_feed(model, x, True)
        if validation_data is not None:
            val_feed = _dataset_feed(model, validation_data, True)
        _compiled(model, "fit")
        return model_iteration(
            model,
            None,
            None,
            epochs=epochs,
            verbose=verbose,
            callbacks=callbacks,
            initial_epoch=initial_epoch,
            mode="train",
            feed=feed,
            steps=steps,
            val_feed=val_feed,
            val_steps=val_steps,
            reset_each_epoch=steps_per_epoch is None,
            validation_freq=validation_freq,
        )
    _maybe_build(model, x)
    _compiled(model, "fit")
    check_keras_arrays(
        model.__dict__.get("_distribution_strategy"),
        "train",
        len(nest.flatten(x)[0]),
        batch_size,
        steps=steps_per_epoch,
        shuffle=shuffle,
        validation_split=validation_split,
        class_weight=class_weight,
    )
    ins = _data(model, x, y, sample_weight=sample_weight, class_weight=class_weight)
    val_ins = None
    if validation_data is not None and _is_dataset(validation_data):
        raise _unsupported("fit(arrays, validation_data=a dataset)")
    if validation_data:
        if not isinstance(validation_data, (list, tuple)) or len(validation_data) not in (2, 3):
            raise ValueError(
                "When passing a `validation_data` argument, it must contain either 2 items "
                "(x_val, y_val), or 3 items (x_val, y_val, val_sample_weights), or "
                f"alternatively it could be a dataset or a dataset iterator. However we "
                f"received `validation_data={validation_data}`"
            )
        val_weights = validation_data[2] if len(validation_data) == 3 else None
        val_ins = _data(model, validation_data[0], validation_data[1], sample_weight=val_weights)
    elif validation_split and 0.0 < validation_split < 1.0:
        split_at = int(ins[0].shape[0] * (1.0 - validation_split))
        ins, val_ins = [a[:split_at] for a in ins], [a[split_at:] for a in ins]
    elif validation_steps:
        raise ValueError("`validation_steps` should not be specified if `validation_data` is None.")
    if steps_per_epoch is not None:
        if val_ins is not None:
            raise _unsupported("fit(arrays, steps_per_epoch=..., with validation)")
        return model_iteration(
            model,
            None,
            size,
            epochs=epochs,
            verbose=verbose,
            callbacks=callbacks,
            initial_epoch=initial_epoch,
            mode="train",
            feed=_ArrayFeed(ins),
            steps=steps_per_epoch,
        )
    return model_iteration(
        model,
        ins,
        size,
        epochs=epochs,
        verbose=verbose,
        callbacks=callbacks,
        val_ins=val_ins,
        shuffle=shuffle,
        initial_epoch=initial_epoch,
        mode="train",
        validation_freq=validation_freq,
    )


def _dataset_feed(model: Any, dataset: Any, with_y: bool) -> _DatasetFeed:
    if model.inputs is None:
        raise _unsupported("fit/evaluate/predict of a model not built, on a dataset")
    return _DatasetFeed(model, dataset, with_y)


def evaluate(
    model: Any,
    x: Any = None,
    y: Any = None,
    batch_size: Any = None,
    verbose: int = 1,
    sample_weight: Any = None,
    steps: Any = None,
    callbacks: Any = None,
    **kwargs: Any,
) -> Any:
    """``Model.evaluate`` on NumPy arrays, a ``tf.data`` dataset, a generator or a
    ``keras.utils.Sequence`` (see ``Model.evaluate``)."""
    enqueuer = _enqueuer_arguments(kwargs)
    size = _batch_size(batch_size, steps, "evaluate", x)
    if _is_generator_or_sequence(x):
        _check_generator_arguments(y, sample_weight)
        return generator_iteration(
            model, x, steps, verbose=verbose, callbacks=callbacks, mode="test", **enqueuer
        )
    if _is_dataset(x):
        _compiled(model, "evaluate")
        n = _dataset_steps(x, steps, 1, "steps")
        feed = _dataset_feed(model, x, True)
        return model_iteration(
            model, None, None, verbose=verbose, callbacks=callbacks, mode="test", feed=feed, steps=n
        )
    _maybe_build(model, x)
    _compiled(model, "evaluate")
    check_keras_arrays(
        model.__dict__.get("_distribution_strategy"),
        "test",
        len(nest.flatten(x)[0]),
        batch_size,
        steps=steps,
    )
    ins = _data(model, x, y, sample_weight=sample_weight)
    if steps is not None:
        return model_iteration(
            model,
            None,
            size,
            verbose=verbose,
            callbacks=callbacks,
            mode="test",
            feed=_ArrayFeed(ins),
            steps=steps,
        )
    return model_iteration(
        model, ins, size, verbose=verbose, callbacks=callbacks, shuffle=False, mode="test"
    )


def predict(
    model: Any,
    x: Any,
    batch_size: Any = None,
    verbose: int = 0,
    steps: Any = None,
    callbacks: Any = None,
    **kwargs: Any,
) -> Any:
    """``Model.predict`` on NumPy arrays, a ``tf.data`` dataset, a generator or a
    ``keras.utils.Sequence`` (see ``Model.predict``)."""
    enqueuer = _enqueuer_arguments(kwargs)
    size = _batch_size(batch_size, steps, "predict", x)
    if _is_generator_or_sequence(x):
        return generator_iteration(
            model, x, steps, verbose=verbose, callbacks=callbacks, mode="predict", **enqueuer
        )
    if _is_dataset(x):
        n = _dataset_steps(x, steps, 1, "steps")
        feed = _dataset_feed(model, x, False)
        return model_iteration(
            model,
            None,
            None,
            verbose=verbose,
            callbacks=callbacks,
            mode="predict",
            feed=feed,
            steps=n,
        )
    check_keras_arrays(
        model.__dict__.get("_distribution_strategy"),
        "predict",
        len(nest.flatten(x)[0]),
        batch_size,
        steps=steps,
    )
    ins = _data(model, x, None, with_y=False)
    if steps is not None:
        return model_iteration(
            model,
            None,
            size,
            verbose=verbose,
            callbacks=callbacks,
            mode="predict",
            feed=_ArrayFeed(ins),
            steps=steps,
        )
    return model_iteration(
        model, ins, size, verbose=verbose, callbacks=callbacks, shuffle=False, mode="predict"
    )


def _generator_batch(batch: Any, mode: str) -> tuple[Any, Any, Any]:
    if mode == "predict":
        if isinstance(batch, tuple) and len(batch) in (2, 3):
            return batch[0], None, None
        return batch, None, None
    if not isinstance(batch, tuple) or len(batch) not in (2, 3):
        raise ValueError(
            "Output of generator should be a tuple `(x, y, sample_weight)` or `(x, y)`. "
            f"Found: {batch}"
        )
    return batch[0], batch[1], batch[2] if len(batch) == 3 else None


def _is_generator_or_sequence(x: Any) -> bool:
    """TF's ``is_generator_or_sequence``: a Python generator or iterator, or a
    ``keras.utils.Sequence`` (not arrays, tensors, lists, tuples, dicts or sets)."""
    if isinstance(x, (np.ndarray, str, list, tuple, dict, set, frozenset)) or _is_dataset(x):
        return False
    return inspect.isgenerator(x) or isinstance(x, (Sequence, Iterator))


def _is_array_tuple(data: Any) -> bool:
    """``(x, y)`` or ``(x, y, sample_weight)`` arrays given as a generator loop's
    ``validation_data`` (a tuple: TF batches it; a list it does not)."""
    return isinstance(data, tuple) and len(data) in (2, 3)


def _array_batches(data: tuple[Any, ...], batch_size: int) -> tuple[Iterator[Any], int]:
    """TF's ``convert_to_generator_like`` for a generator loop's array validation data:
    its ``None`` entries dropped, one pass of in-order batches of ``batch_size`` (TF
    passes the size of the last training batch), and the number of batches (which
    replaces ``validation_steps``)."""
    parts = [part for part in data if part is not None]
    first = parts[0][0] if isinstance(parts[0], (list, tuple)) else parts[0]
    size = int(np.shape(first)[0])

    def rows(part: Any, start: int, stop: int) -> Any:
        if isinstance(part, (list, tuple)):
            return [np.asarray(p)[start:stop] for p in part]
        if isinstance(part, dict):
            return {k: np.asarray(v)[start:stop] for k, v in part.items()}
        return np.asarray(part)[start:stop]

    batches = (
        tuple(rows(part, start, min(start + batch_size, size)) for part in parts)
        for start in range(0, size, batch_size)
    )
    return batches, -(-size // batch_size)


def _check_generator_arguments(y: Any, sample_weight: Any, validation_split: Any = 0.0) -> None:
    """TF's ``check_generator_arguments`` for ``fit``/``evaluate`` on a generator or
    ``Sequence``."""
    for name, value, where in (
        ("y", y, "targets as the second"),
        ("sample_weight", sample_weight, "sample weights as the third"),
    ):
        if value is not None:
            raise ValueError(
                f"`{name}` argument is not supported when data is a generator or Sequence "
                f"instance. Instead pass {where} element of the generator."
            )
    if validation_split:
        raise ValueError(
            "If your data is in the form of a Python generator, you cannot use `validation_split`."
        )


def _enqueuer_arguments(kwargs: dict[str, Any]) -> dict[str, Any]:
    """``max_queue_size``, ``workers`` and ``use_multiprocessing`` out of ``kwargs``
    (TF's defaults 10, 1, False; NumPy arrays and datasets ignore them, as TF)."""
    defaults = {"max_queue_size": 10, "workers": 1, "use_multiprocessing": False}
    return {name: kwargs.pop(name, default) for name, default in defaults.items()}


def generator_iteration(
    model: Any,
    generator: Any,
    steps: Any = None,
    epochs: int = 1,
    verbose: int = 1,
    callbacks: Any = None,
    validation_data: Any = None,
    validation_steps: Any = None,
    validation_freq: Any = 1,
    class_weight: Any = None,
    max_queue_size: int = 10,
    workers: int = 1,
    use_multiprocessing: bool = False,
    shuffle: bool = True,
    initial_epoch: int = 0,
    mode: str = "train",
) -> Any:
    """TF's ``training_generator_v1.model_iteration`` for Python generators and
    ``keras.utils.Sequence``: each step is ``train_on_batch``/``test_on_batch``/
    ``predict_on_batch`` on the next element (the metrics running over the epoch),
    the loss averaged over steps for the result and weighted by batch size for
    History.

    A ``Sequence`` runs ``len(seq)`` steps when ``steps`` is None, read as TF's: with
    ``workers`` > 0 through an ``OrderedEnqueuer`` (its batch order shuffled each
    pass when ``shuffle``, training only; ``on_epoch_end`` after each pass), with
    ``workers=0`` by ``iter_sequence_infinite`` (in order, no ``on_epoch_end``); a
    validation ``Sequence`` runs from its first batch, in order, each validation
    pass. ``max_queue_size``, ``workers`` > 1 and ``use_multiprocessing`` change
    nothing here (every batch is read in this thread, in TF's order: see
    ``keras.data_utils.OrderedEnqueuer``).

    .. note:: TF reads a generator through a thread (``workers=1``) that
       prefetches up to ``max_queue_size`` elements and drops the prefetched
       remainder at the end of each validation pass (timing dependent); adapters.v1
       reads exactly the elements it runs, as TF with ``workers=0``.
    """
    is_sequence = isinstance(generator, Sequence)
    if _is_dataset(generator):
        raise _unsupported(f"{mode}_generator on a dataset (pass it to fit/evaluate/predict)")
    if is_sequence and steps is None:
        steps = len(generator)
    if steps is None:
        name = "steps_per_epoch" if mode == "train" else "steps"
        raise ValueError(f"Please specify the number of steps via the `{name}` argument.")
    if validation_data is not None:
        if isinstance(validation_data, Sequence):
            if validation_steps is None:
                validation_steps = len(validation_data)
        elif _is_array_tuple(validation_data):
            pass  # batched by the last training batch's size (see _array_batches)
        elif not _is_generator_or_sequence(validation_data):
            raise _unsupported("fit_generator(validation_data=a list or a dataset)")
        elif not validation_steps:
            raise ValueError("Please specify the `validation_steps` argument.")
    enqueuer: OrderedEnqueuer | None = None
    if is_sequence and workers > 0:
        enqueuer = OrderedEnqueuer(generator, use_multiprocessing, shuffle and mode == "train")
        enqueuer.start(workers, max_queue_size)
        gen: Any = enqueuer.get()
    else:
        gen = iter_sequence_infinite(generator) if is_sequence else iter(generator)
    do_validation = validation_data is not None
    callback_list = _callback_list(
        model,
        callbacks,
        mode,
        verbose,
        {
            "batch_size": None,
            "epochs": epochs,
            "steps": steps,
            "samples": steps,
            "do_validation": do_validation,
        },
        "steps",
    )
    model.__dict__["stop_training"] = False
    callback_list._call_begin_hook(mode)
    results: Any = None
    agg: list[Any] = []
    last_size = 0  # the last batch's size: array validation data is batched by it
    for epoch in range(initial_epoch, epochs):
        if model.__dict__.get("stop_training"):
            break
        reset_metrics(model)
        epoch_logs: dict[str, Any] = {}
        if mode == "train":
            callback_list.on_epoch_begin(epoch, epoch_logs)
        parts: list[list[Any]] = []
        step = 0
        while step < steps:
            try:
                batch = next(gen)
            except StopIteration:
                model.__dict__["stop_training"] = True
                _log.warning(
                    "Your dataset iterator ran out of data; interrupting training. Make sure "
                    "that your iterator can generate at least `%s * epochs` batches (in this "
                    "case, %d batches).",
                    "steps_per_epoch" if mode == "train" else "steps",
                    steps * epochs,
                )
                break
            x, y, sw = _generator_batch(batch, mode)
            first = (
                x[0]
                if isinstance(x, (list, tuple))
                else next(iter(x.values()))
                if isinstance(x, dict)
                else x
            )
            last_size = int(np.shape(first)[0])
            batch_logs: dict[str, Any] = {"batch": step, "size": last_size}
            callback_list._call_batch_hook(mode, "begin", step, batch_logs)
            if mode == "train":  # the metrics run over the epoch: no reset per batch
                outs = train_on_batch(model, x, y, sw, class_weight, reset_metrics=False)
            elif mode == "test":
                outs = test_on_batch(model, x, y, sample_weight=sw, reset_metrics=False)
            else:
                outs = predict_on_batch(model, x)
            outs = outs if isinstance(outs, list) else [outs]
            if mode == "predict":
                parts.append(outs)
            else:
                agg = _aggregate(agg, outs, step == 0, None)
            batch_logs = _make_logs(model, batch_logs, outs, mode)
            callback_list._call_batch_hook(mode, "end", step, batch_logs)
            step += 1
            if model.__dict__.get("stop_training"):
                break
        if parts:
            agg = [np.concatenate([p[i] for p in parts]) for i in range(len(parts[0]))]
        if not agg:
            raise ValueError("Empty training data.")
        if mode != "predict":
            agg[0] /= steps
        results = list(agg)
        epoch_logs = _make_logs(model, epoch_logs, results, mode)
        if len(results) == 1:
            results = results[0]
        if (
            do_validation
            and _should_run_validation(validation_freq, epoch)
            and not model.__dict__.get("stop_training")
        ):
            val_source, val_steps = validation_data, validation_steps
            if _is_array_tuple(validation_data):
                val_source, val_steps = _array_batches(validation_data, last_size)
            val_results = generator_iteration(
                model,
                val_source,
                val_steps,
                callbacks=callback_list,
                verbose=verbose,
                class_weight=class_weight,
                workers=workers,
                shuffle=False,
                mode="test",
            )
            if not isinstance(val_results, list):
                val_results = [val_results]
            epoch_logs = _make_logs(model, epoch_logs, val_results, mode, prefix="val_")
        if mode == "train":
            callback_list.on_epoch_end(epoch, epoch_logs)
    callback_list._call_end_hook(mode)
    if enqueuer is not None:
        enqueuer.stop()
    if mode == "train":
        return model.__dict__["history"]
    return results


def train_on_batch(
    model: Any,
    x: Any,
    y: Any = None,
    sample_weight: Any = None,
    class_weight: Any = None,
    reset_metrics: bool = True,
) -> Any:
    """``Model.train_on_batch`` (see ``Model.train_on_batch``)."""
    _maybe_build(model, x)
    compiled = _compiled(model, "train_on_batch")
    ins = _data(model, x, y, sample_weight=sample_weight, class_weight=class_weight)
    outs = _run(model, "train", ins)
    if reset_metrics:
        compiled.reset()
    return outs[0] if len(outs) == 1 else outs


def test_on_batch(
    model: Any, x: Any, y: Any = None, sample_weight: Any = None, reset_metrics: bool = True
) -> Any:
    """``Model.test_on_batch`` (see ``Model.test_on_batch``)."""
    _maybe_build(model, x)
    compiled = _compiled(model, "test_on_batch")
    outs = _run(model, "test", _data(model, x, y, sample_weight=sample_weight))
    if reset_metrics:
        compiled.reset()
    return outs[0] if len(outs) == 1 else outs


def predict_on_batch(model: Any, x: Any) -> Any:
    """``Model.predict_on_batch`` (see ``Model.predict_on_batch``)."""
    outs = _run(model, "predict", _data(model, x, None, with_y=False))
    return outs[0] if len(outs) == 1 else outs


def reset_metrics(model: Any) -> None:
    compiled = model.__dict__.get("_compiled")
    if compiled is not None:
        compiled.reset()
