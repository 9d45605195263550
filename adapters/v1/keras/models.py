"""``tf.keras.Model`` and ``tf.keras.Sequential`` called on graph tensors (TF1 graph mode).

A model is a layer: calling it opens its name scope (``sequential``, ``model``...)
and calls its layers inside, so a ``Sequential`` first called on a tensor creates
``sequential/dense/kernel:0``; one whose first layer has an ``input_shape`` is built
at construction on a ``<layer>_input`` placeholder (variables ``dense/kernel:0``)
and later calls only add ops (``sequential/dense/BiasAdd``). A functional
``Model(inputs, outputs)`` keeps the layer calls that lead from ``inputs`` to
``outputs`` and replays them on new tensors (``model(x)``: ops under ``model/``).

Keras' training loop runs as TF's v1 engine does in a graph
(``adapters.v1.keras.training``): ``compile`` builds the loss, metrics and target
placeholder, ``fit``/``evaluate``/``predict``/``*_on_batch`` run one
``Session.run`` per batch on NumPy arrays, datasets or generators.

``save_weights``/``load_weights`` use TF's object-based checkpoint, the format
tf-keras picks for a path not ending in ``.h5``/``.keras``/``.hdf5``: the model is
the root; a functional or ``Sequential`` model's layers are its children
``layer-<i>`` (and ``layer_with_weights-<k>`` for those with weights, the name its
keys take: ``layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE``); a
subclassed model's are named by the attributes holding them; a layer's children are
its weights by the name given to ``add_weight``; a compiled model's ``optimizer``
adds its variables (``iter`` and the hyperparameters of a Keras optimizer, with
its slots under each variable; a ``tf.train`` optimizer under
``optimizer/optimizer`` with ``optimizer/global_step``). The files are
``<prefix>.index``/``.data-00000-of-00001``, written atomically, and the
directory's ``checkpoint`` state file names the prefix, as TF.

A path ending in ``.h5``/``.hdf5`` (or ``save_format='h5'``) uses Keras' HDF5 format
(``adapters.v1.keras.saving``, with ``h5py``), as does ``save`` (the whole model:
config, weights, training config and optimizer state) for any path: HDF5 is TF1's
default, as in TF after ``disable_v2_behavior()``; ``save_format='tf'`` (SavedModel)
and ``.keras`` (Keras v3) paths raise ``NotImplementedError``. ``get_config``/
``from_config``/``to_json`` give TF's configs (functional and ``Sequential`` models);
the module's ``clone_model``, ``load_model``, ``save_model``, ``model_from_config``,
``model_from_json`` and ``model_from_yaml`` are ``tf.keras.models``'.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from adapters.v1._missing import missing_name_getattr
from adapters.v1.framework import ops
from adapters.v1.keras import layers as layers_module
from adapters.v1.keras import saving, training
from adapters.v1.keras.layers import InputLayer, Layer, _flat, _history
from adapters.v1.layers import base as tl_base
from adapters.v1.ops.variables import Variable

__all__ = [
    "Model",
    "Sequential",
    "clone_model",
    "load_model",
    "model_from_config",
    "model_from_json",
    "model_from_yaml",
    "save_model",
]

_KERAS_V3_HINT = (
    "the Keras v3 format ('.keras' paths) is not supported by adapters.v1: use "
    "HDF5 ('.h5'/'.hdf5' paths, save_format='h5') or TF's checkpoint format"
)


class Model(Layer):
    """A functional model ``Model(inputs, outputs, name=None)`` (or, subclassed, a layer
    whose ``call`` uses the layers set as its attributes).

    The functional form's arguments: ``inputs``, the ``tf.keras.Input`` tensor(s) the
    model starts from; ``outputs``, the tensor(s) computed from them by Keras layers;
    ``name``, the model's name (default ``model``, ``model_1``...).

    Raises:
      ValueError: an output not computed from ``inputs`` by Keras layers ("Graph
        disconnected").
    """

    def __init__(self, *args: Any, **kwargs: Any):
        inputs = kwargs.pop("inputs", args[0] if args else None)
        outputs = kwargs.pop("outputs", args[1] if len(args) > 1 else None)
        trainable = kwargs.pop("trainable", True)
        self.__dict__["_tracked"] = []
        super().__init__(trainable=trainable, **kwargs)
        self._nodes_order: list[tuple[Any, ...]] = []
        self.inputs: list[Any] | None = None
        self.outputs: list[Any] | None = None
        self._single_output = True
        if inputs is not None and outputs is not None:
            self._init_graph(inputs, outputs)

    def __setattr__(self, name: str, value: Any) -> None:
        # A layer set as a public attribute, or in a list or tuple set as one, is the
        # model's (TF tracks a list of layers as a ``ListWrapper``).
        if not name.startswith("_"):
            tracked = self.__dict__.setdefault("_tracked", [])
            for item in value if isinstance(value, (list, tuple)) else [value]:
                if isinstance(item, tl_base.Layer) and all(item is not t for t in tracked):
                    tracked.append(item)
        super().__setattr__(name, value)

    def _init_graph(self, inputs: Any, outputs: Any) -> None:
        self.inputs = _flat(inputs)
        self._single_output = not isinstance(outputs, (list, tuple))
        self.outputs = _flat(outputs)
        graph = self.outputs[0].graph
        history = _history(graph)
        known = {id(x) for x in self.inputs}
        order: list[tuple[Any, ...]] = []
        seen: set[int] = set()

        def visit(tensor: Any) -> None:
            if id(tensor) in known:
                return
            entry = history.get(id(tensor))
            producer = getattr(tensor, "op", None)
            if entry is None and producer is not None and producer.type != "Placeholder":
                raise NotImplementedError(
                    f"tf.keras.Model: {tensor} was computed by the TF op {producer.name!r} "
                    "outside a Keras layer; adapters.v1 builds functional models from Keras "
                    "layers only: wrap the op in tf.keras.layers.Lambda"
                )
            if entry is None or entry[2] is None:
                raise ValueError(
                    f"Graph disconnected: cannot obtain value for tensor {tensor} at layer "
                    f'"{entry[1].name if entry else tensor.op.name}". The following previous '
                    "layers were accessed without issue: "
                    f"{[e[1].name for e in order]}"
                )
            node_outputs = entry[5]
            key = id(node_outputs) if isinstance(node_outputs, (list, tuple)) else id(tensor)
            if key in seen:
                return
            for x in _flat(entry[2]):
                visit(x)
            seen.add(key)
            order.append(entry)

        for out in self.outputs:
            visit(out)
        self._nodes_order = order
        self.__dict__["_tracked"] = _layers_by_depth(history, self.inputs, self.outputs)
        self.built = True
        self.__dict__["_nodes"] = [(inputs, outputs)]

    # -- layers and weights ----------------------------------------------------------------
    @property
    def layers(self) -> list[Any]:
        """The model's layers (a functional model's ``InputLayer``s first)."""
        return list(self.__dict__.get("_tracked", []))

    def get_layer(self, name: str | None = None, index: int | None = None) -> Any:
        """The layer named ``name`` (or at ``index``).

        Raises:
          ValueError: no such layer, or neither argument given.
        """
        if index is not None:
            if len(self.layers) <= index:
                raise ValueError(
                    f"Was asked to retrieve layer at index {index} but model "
                    f"only has {len(self.layers)} layers."
                )
            return self.layers[index]
        if name is not None:
            for layer in self.layers:
                if layer.name == name:
                    return layer
            raise ValueError(
                f"No such layer: {name}. Existing layers are: "
                f"{[layer.name for layer in self.layers]}."
            )
        raise ValueError("Provide either a layer name or layer index at `get_layer`.")

    def _gather(self, attr: str) -> list[Any]:
        out: list[Any] = []
        for layer in self.layers:
            for w in getattr(layer, attr):
                if all(w is not o for o in out):
                    out.append(w)
        return out

    @property
    def weights(self) -> list[Any]:
        """Each layer's weights in turn (trainable then not, per layer), then the
        model's own, as Keras' ``Model.weights``."""
        return (
            self._gather("weights")
            + list(self._trainable_weights)
            + list(self._non_trainable_weights)
        )

    @property
    def trainable_weights(self) -> list[Any]:
        if not self.trainable:
            return []
        return self._gather("trainable_weights") + list(self._trainable_weights)

    @property
    def non_trainable_weights(self) -> list[Any]:
        if self.trainable:
            return self._gather("non_trainable_weights") + list(self._non_trainable_weights)
        return (
            self._gather("trainable_weights")
            + self._gather("non_trainable_weights")
            + self._trainable_weights
            + self._non_trainable_weights
        )

    @property
    def updates(self) -> list[Any]:
        """The layers' update ops (batch normalization's moving averages)."""
        if not self.trainable and not self.stateful:
            return []
        return self._gather("updates") + list(self._updates)

    @property
    def losses(self) -> list[Any]:
        """The layers' losses (regularizers, each access building them anew), then the
        model's own."""
        own = Layer.losses.fget(self)
        out: list[Any] = []
        for layer in self.layers:
            out.extend(layer.losses)
        return out + own

    # -- calling ------------------------------------------------------------------------
    def _cast_inputs(self, inputs: Any) -> Any:
        return inputs

    def _expects_training(self) -> bool:
        return False

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        """Replays the functional graph on ``inputs`` (subclasses override it).

        Raises:
          NotImplementedError: a model with neither a graph nor its own ``call``.
        """
        if self.inputs is None:
            raise NotImplementedError(
                "When subclassing the `Model` class, you should implement a `call()` method."
            )
        new = _flat(inputs)
        if len(new) != len(self.inputs):
            raise ValueError(
                f'Layer "{self.name}" expects {len(self.inputs)} input(s), '
                f"but it received {len(new)} input tensors."
            )
        values = {id(old): x for old, x in zip(self.inputs, new, strict=True)}
        for tensor, layer, node_in, args, kwargs, node_out in self._nodes_order:
            if id(tensor) in values:
                continue
            mapped = (
                type(node_in)(values[id(x)] for x in node_in)
                if isinstance(node_in, (list, tuple))
                else values[id(node_in)]
            )
            kwargs = dict(kwargs)
            if training is not None and layer._expects_training():
                kwargs["training"] = training
            result = layer(mapped, *args, **kwargs)
            for old, x in zip(_flat(node_out), _flat(result), strict=True):
                values[id(old)] = x
        outs = [values[id(x)] for x in self.outputs or []]
        return outs[0] if self._single_output else outs

    def summary(
        self,
        line_length: int | None = None,
        positions: list[float] | None = None,
        print_fn: Callable[[str], Any] | None = None,
        expand_nested: bool = False,
        show_trainable: bool = False,
        layer_range: Any = None,
    ) -> None:
        """Prints Keras' table of the layers, their output shapes and parameter counts.

        Args (TF's defaults): line_length=None (65, or 98 with a "Connected to"
        column for a non-sequential functional model), positions=None,
        print_fn=None (``print``), expand_nested=False, show_trainable=False,
        layer_range=None.

        Raises:
          ValueError: a model not built yet (TF's message).
          NotImplementedError: ``expand_nested`` or ``layer_range``.
        """
        if expand_nested or layer_range is not None:
            raise NotImplementedError(
                "tf.keras Model.summary: expand_nested and layer_range "
                "are not supported by adapters.v1"
            )
        if not self.built:
            raise ValueError(
                "This model has not yet been built. Build the model first by "
                "calling `build()` or by calling the model on a batch of data."
            )
        _print_summary(self, line_length, positions, print_fn or print, show_trainable)

    # -- Keras' training loop (adapters.v1.keras.training) ---------------------------------
    def compile(
        self,
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
        """Configures training: builds the loss, metrics and target placeholder in the
        model's graph (Keras' v1 engine; see ``adapters.v1.keras.training``).

        Args (TF's defaults):
          optimizer: a ``tf.train`` optimizer (wrapped as Keras' ``TFOptimizer``: an
            int64 ``TFOptimizer/iterations`` global step), or what
            ``tf.keras.optimizers.get`` accepts (default 'rmsprop').
          loss: a loss name ('mse', 'categorical_crossentropy'...), function or
            ``tf.keras.losses`` object (default None).
          metrics: metric names, functions or ``tf.keras.metrics.Metric`` objects
            (default None); 'accuracy'/'acc' pick the binary, sparse categorical or
            categorical accuracy by loss and output.
          loss_weights: a number per output, as a list or a dict (default None).
          weighted_metrics: metrics weighted by the sample/class weights (default None).
          sample_weight_mode, target_tensors, distribute: None only.

        A model not built yet is built by the first data it is given, as TF.

        Raises:
          NotImplementedError: metric objects, an output without a loss, or an
            argument above other than its default.
          ValueError: an uninstantiated ``Loss`` class, an unknown loss or metric name.

        .. note:: Metric names follow TF: as given ('mae', 'accuracy') unless
           ``tf.disable_v2_behavior()`` was called, then Keras' v1 names
           ('mean_absolute_error', 'acc').
        """
        # what ``save`` writes as the training config
        self.__dict__["_compile_args"] = {
            "loss": loss,
            "metrics": metrics,
            "loss_weights": loss_weights,
        }
        training.compile_model(
            self,
            optimizer,
            loss,
            metrics,
            loss_weights,
            sample_weight_mode,
            weighted_metrics,
            target_tensors,
            distribute,
            **kwargs,
        )

    @property
    def metrics(self) -> list[Any]:
        """The compiled metric objects, as TF's ``Model.metrics`` (see
        ``training.compile_metrics``)."""
        return training.compile_metrics(self)

    @property
    def metrics_names(self) -> list[str]:
        """``['loss']`` then the compiled metrics' names."""
        return training.metrics_names(self)

    def reset_metrics(self) -> None:
        """Resets the compiled metrics' running totals."""
        training.reset_metrics(self)

    def fit(
        self,
        x: Any = None,
        y: Any = None,
        batch_size: int | None = None,
        epochs: int = 1,
        verbose: int = 1,
        callbacks: Any = None,
        validation_split: float = 0.0,
        validation_data: Any = None,
        shuffle: Any = True,
        class_weight: Any = None,
        sample_weight: Any = None,
        initial_epoch: int = 0,
        steps_per_epoch: int | None = None,
        validation_steps: int | None = None,
        validation_freq: Any = 1,
        **kwargs: Any,
    ) -> Any:
        """Trains on NumPy arrays (or a ``tf.data`` dataset of ``(x, y)``, by steps) as
        Keras' v1 engine: one ``Session.run`` per batch.

        Args (TF's defaults): x (an array, or a list/dict of arrays per input),
        y (the targets), batch_size=None (32), epochs=1, verbose=1 (0 silent,
        2 one line per epoch), callbacks=None, validation_split=0.0 (the last
        fraction, before shuffling), validation_data=None ((x, y)), shuffle=True
        (``np.random.shuffle`` of the indices each epoch), class_weight=None,
        sample_weight=None, initial_epoch=0, steps_per_epoch=None,
        validation_steps=None, validation_freq=1.

        Returns:
          The ``History`` callback (``history``, ``epoch``, ``params``).

        Raises:
          RuntimeError: the model is not compiled (TF's message).
          ValueError: arrays of the wrong shape or lengths (TF's messages).
          NotImplementedError: steps_per_epoch with arrays and validation,
            shuffle='batch', sample/class weights as lists or dicts.
        """
        return training.fit(
            self,
            x,
            y,
            batch_size,
            epochs,
            verbose,
            callbacks,
            validation_split,
            validation_data,
            shuffle,
            class_weight,
            sample_weight,
            initial_epoch,
            steps_per_epoch,
            validation_steps,
            validation_freq,
            **kwargs,
        )

    def evaluate(
        self,
        x: Any = None,
        y: Any = None,
        batch_size: int | None = None,
        verbose: int = 1,
        sample_weight: Any = None,
        steps: int | None = None,
        callbacks: Any = None,
        **kwargs: Any,
    ) -> Any:
        """The loss (and metrics) over ``x``/``y`` in batches (learning phase 0).

        Args (TF's defaults): x, y, batch_size=None (32), verbose=1, sample_weight=None,
        steps=None, callbacks=None.

        Returns:
          The float32 loss, or ``[loss, metric...]`` when metrics were compiled: the
          loss is the batch-size-weighted mean of the batch losses.
        """
        return training.evaluate(
            self, x, y, batch_size, verbose, sample_weight, steps, callbacks, **kwargs
        )

    def predict(
        self,
        x: Any,
        batch_size: int | None = None,
        verbose: int = 0,
        steps: int | None = None,
        callbacks: Any = None,
        **kwargs: Any,
    ) -> Any:
        """The model's output on ``x``, in batches of ``batch_size`` (default 32),
        concatenated (learning phase 0)."""
        return training.predict(self, x, batch_size, verbose, steps, callbacks, **kwargs)

    def train_on_batch(
        self,
        x: Any,
        y: Any = None,
        sample_weight: Any = None,
        class_weight: Any = None,
        reset_metrics: bool = True,
    ) -> Any:
        """One training step on one batch: the loss (and metrics)."""
        return training.train_on_batch(self, x, y, sample_weight, class_weight, reset_metrics)

    def test_on_batch(
        self, x: Any, y: Any = None, sample_weight: Any = None, reset_metrics: bool = True
    ) -> Any:
        """The loss (and metrics) on one batch."""
        return training.test_on_batch(self, x, y, sample_weight, reset_metrics)

    def predict_on_batch(self, x: Any) -> Any:
        """The model's output on one batch."""
        return training.predict_on_batch(self, x)

    def fit_generator(
        self,
        generator: Any,
        steps_per_epoch: int | None = None,
        epochs: int = 1,
        verbose: int = 1,
        callbacks: Any = None,
        validation_data: Any = None,
        validation_steps: int | None = None,
        validation_freq: Any = 1,
        class_weight: Any = None,
        max_queue_size: int = 10,
        workers: int = 1,
        use_multiprocessing: bool = False,
        shuffle: bool = True,
        initial_epoch: int = 0,
    ) -> Any:
        """Trains on the ``(x, y)``/``(x, y, sample_weight)`` batches a Python
        generator or a ``keras.utils.Sequence`` yields, ``steps_per_epoch`` per epoch
        (TF's v1 generator loop: ``train_on_batch`` per step; a ``Sequence``'s batch
        order shuffled each pass where ``shuffle`` and ``workers`` > 0; see
        ``training.generator_iteration``).

        Raises:
          ValueError: no ``steps_per_epoch``/``validation_steps`` for a generator (TF's
            messages).
        """
        return training.generator_iteration(
            self,
            generator,
            steps_per_epoch,
            epochs=epochs,
            verbose=verbose,
            callbacks=callbacks,
            validation_data=validation_data,
            validation_steps=validation_steps,
            validation_freq=validation_freq,
            class_weight=class_weight,
            max_queue_size=max_queue_size,
            workers=workers,
            use_multiprocessing=use_multiprocessing,
            shuffle=shuffle,
            initial_epoch=initial_epoch,
            mode="train",
        )

    def evaluate_generator(
        self,
        generator: Any,
        steps: int | None = None,
        callbacks: Any = None,
        max_queue_size: int = 10,
        workers: int = 1,
        use_multiprocessing: bool = False,
        verbose: int = 0,
    ) -> Any:
        """The loss (and metrics) over ``steps`` batches of a generator (the loss
        averaged over steps, the metrics of the last batch, as TF)."""
        return training.generator_iteration(
            self,
            generator,
            steps,
            verbose=verbose,
            callbacks=callbacks,
            max_queue_size=max_queue_size,
            workers=workers,
            use_multiprocessing=use_multiprocessing,
            mode="test",
        )

    def predict_generator(
        self,
        generator: Any,
        steps: int | None = None,
        callbacks: Any = None,
        max_queue_size: int = 10,
        workers: int = 1,
        use_multiprocessing: bool = False,
        verbose: int = 0,
    ) -> Any:
        """The outputs over ``steps`` batches of a generator, concatenated."""
        return training.generator_iteration(
            self,
            generator,
            steps,
            verbose=verbose,
            callbacks=callbacks,
            max_queue_size=max_queue_size,
            workers=workers,
            use_multiprocessing=use_multiprocessing,
            mode="predict",
        )

    # -- serialization and whole-model saving (adapters.v1.keras.saving) -------------------
    def get_config(self) -> dict[str, Any]:
        """A functional model's config in TF's layout (``name``, ``trainable``,
        ``layers`` with their ``inbound_nodes``, ``input_layers``,
        ``output_layers``).

        Raises:
          NotImplementedError: a subclassed model (TF's: it must override
            ``get_config``).
        """
        if self.__dict__.get("_nodes_order") is None or self.inputs is None:
            raise NotImplementedError(
                f"Model {type(self).__name__} is a subclassed model: it must override "
                "`get_config()` to be serialized (only functional and Sequential models "
                "have one)."
            )
        return saving.functional_config(self)

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> Any:
        """The functional model ``config`` describes, with new layers and weights.

        Raises:
          ValueError: an unknown layer class, a node whose inputs no layer makes.
        """
        with saving._custom_objects_in_use(custom_objects):
            return saving.functional_from_config(cls, config, custom_objects)

    def to_json(self, **kwargs: Any) -> str:
        """``{"class_name", "config", "keras_version", "backend"}`` as JSON;
        ``kwargs`` go to ``json.dumps``."""
        return saving.to_json(saving.model_to_dict(self), **kwargs)

    def to_yaml(self, **kwargs: Any) -> str:
        """Removed from Keras (TF 2.21 raises ``RuntimeError``).

        Raises:
          RuntimeError: always (TF's message).
        """
        raise RuntimeError(
            "Method `model.to_yaml()` has been removed due to security risk of "
            "arbitrary code execution. Please use `model.to_json()` instead."
        )

    def save(
        self,
        filepath: Any,
        overwrite: bool = True,
        include_optimizer: bool = True,
        save_format: str | None = None,
        signatures: Any = None,
        options: Any = None,
        save_traces: bool = True,
    ) -> None:
        """Saves the whole model as HDF5 (``tf.keras.models.save_model``): TF1's default
        format, so a path without ``.h5`` is an HDF5 file too, as in TF after
        ``disable_v2_behavior()``.

        Args (TF's defaults): filepath, overwrite=True, include_optimizer=True,
        save_format=None, signatures=None, options=None, save_traces=True.

        Raises:
          NotImplementedError: ``save_format='tf'`` or a ``.keras`` path, a
            subclassed model.
        """
        saving.save_model(
            self,
            filepath,
            overwrite,
            include_optimizer,
            save_format,
            signatures,
            options,
            save_traces,
        )

    # -- weights in TF's checkpoint format -------------------------------------------------
    def _assert_weights_created(self) -> None:
        if (type(self) is Sequential or "build" in type(self).__dict__) and not self.built:
            raise ValueError(
                f"Weights for model '{self.name}' have not yet been created. "
                "Weights are created when the model is first called on inputs or "
                "`build()` is called with an `input_shape`."
            )

    def save_weights(
        self,
        filepath: Any,
        overwrite: bool = True,
        save_format: str | None = None,
        options: Any = None,
    ) -> None:
        """Saves the weights (and the compiled optimizer's variables) as TF's
        object-based checkpoint at the prefix ``filepath``, and names it in the
        directory's ``checkpoint`` state file.

        Args (TF's defaults):
          filepath: the checkpoint prefix (a str or path).
          overwrite: True; False asks on stdin before replacing ``<filepath>.index``.
          save_format: None ('tf'; 'h5' for a path ending in ``.h5``/``.keras``/
            ``.hdf5``), 'tf'/'tensorflow' or 'h5'/'hdf5'/'keras'.
          options: a ``tf.train.CheckpointOptions`` (default None).

        The HDF5 format writes TF's layout (``layer_names``, a group per layer with
        its ``weight_names`` and datasets), atomically.

        Raises:
          ValueError: a model not built yet, an unknown ``save_format``, or 'tf'
            with an HDF5 path (TF's messages).
          NotImplementedError: a ``.keras`` path (the Keras v3 format).
          FailedPreconditionError: a variable not initialized (named).
        """
        from adapters.v1.keras import backend
        from jtrain.checkpoint import checkpoint_management as cm

        self._assert_weights_created()
        filepath = os.fspath(filepath)
        is_h5 = _is_hdf5_filepath(filepath)
        if save_format is None:
            save_format = "h5" if is_h5 else "tf"
        else:
            user_format = save_format.lower().strip()
            if user_format in ("tensorflow", "tf"):
                save_format = "tf"
            elif user_format in ("hdf5", "h5", "keras"):
                save_format = "h5"
            else:
                raise ValueError(
                    f"Unknown format. Received: `save_format`={save_format}. "
                    'Was expecting one of {"tf", "h5"}.'
                )
        if save_format == "tf" and is_h5:
            raise ValueError(
                'save_weights got save_format="tf"/"tensorflow", but the '
                f"filepath ({filepath}) looks like an HDF5 file. "
                'Omit the ".h5"/".keras" when saving in TensorFlow format.'
            )
        if save_format == "h5":
            if filepath.endswith(".keras"):
                raise NotImplementedError(f"tf.keras.Model.save_weights: {_KERAS_V3_HINT}")
            if not overwrite and os.path.isfile(filepath) and not _ask_to_overwrite(filepath):
                return
            saving.save_weights_h5(self, filepath)
            return
        check = filepath + ".index"
        if not overwrite and os.path.isfile(check) and not _ask_to_overwrite(check):
            return
        session = backend.get_session()
        _weights_checkpoint(self).write(filepath, session=session, options=options)
        cm.update_checkpoint_state(
            os.path.dirname(filepath),
            filepath,
            all_model_checkpoint_paths=[filepath],
            save_relative_paths=True,
        )

    def load_weights(
        self, filepath: Any, by_name: bool = False, skip_mismatch: bool = False, options: Any = None
    ) -> Any:
        """Restores the weights (and the optimizer variables that exist now) from a
        checkpoint ``save_weights`` wrote, here or in TF, matching objects by the
        checkpoint's object graph (not by variable names); or from an HDF5 file (a
        ``.h5``/``.hdf5`` path or any HDF5 file: layers in order, or by name with
        ``by_name``, a whole-model file's ``model_weights`` too), returning None.

        Args (TF's defaults):
          filepath: the checkpoint prefix (str or path).
          by_name: False (True raises, as TF for this format).
          skip_mismatch: False (only with ``by_name``).
          options: a ``tf.train.CheckpointOptions`` (default None; unused).

        Returns:
          The ``tf.train.Checkpoint`` load status (restore already run in Keras'
          session).

        Raises:
          ValueError: ``skip_mismatch`` without ``by_name`` (TF's message).
          NotFoundError: no checkpoint at ``filepath``.
          NotImplementedError: ``by_name`` with a TF checkpoint, a ``.keras`` path,
            or a name-based (``tf.train.Saver``) checkpoint (TF's message: no
            streaming restore).
          OSError: a path that is neither a TF checkpoint nor an HDF5 file.
          ValueError: (HDF5) another count of layers or weights, another shape
            (TF's messages; ``skip_mismatch`` skips them with a warning).
          InvalidArgumentError: a checkpointed value's dtype or shape differs from
            the variable's (key and shapes named).
          AssertionError: nothing but the root matched (TF's message).

        .. note:: TF's graph-mode restore also assigns variables created later
           (optimizer slots made by the first ``fit``), and TF1's reference variables
           take a checkpointed value of another shape, changing their shape; here
           only the variables that exist are restored, and another shape raises
           ``InvalidArgumentError``.
        """
        from adapters.v1.keras import backend
        from adapters.v1.training.checkpoint import OBJECT_GRAPH_PROTO_KEY, CheckpointLoadStatus
        from jtrain import errors
        from jtrain.checkpoint.checkpoint_utils import load_checkpoint
        from jtrain.protos.trackable_object_graph_pb2 import TrackableObjectGraph

        if skip_mismatch and not by_name:
            raise ValueError(
                "When calling model.load_weights, skip_mismatch can only be set to "
                "True when by_name is True."
            )
        filepath = os.fspath(filepath)
        if filepath.endswith(".keras"):
            raise NotImplementedError(f"tf.keras.Model.load_weights: {_KERAS_V3_HINT}")
        if _is_hdf5_filepath(filepath) or _is_hdf5_file(filepath):
            self._assert_weights_created()
            saving.load_weights_h5(self, filepath, by_name, skip_mismatch)
            return None
        try:
            if os.path.isdir(filepath) and not os.path.exists(filepath + ".index"):
                # TF's reader finds no checkpoint in a directory (no latest lookup)
                raise errors.DataLossError(None, None, f"{filepath} is a directory")
            reader = load_checkpoint(filepath)
        except errors.DataLossError as e:  # TF then reads the file as HDF5
            raise OSError(
                f"Unable to open file: {filepath} is neither a TF checkpoint nor an HDF5 file"
            ) from e
        if by_name:
            raise NotImplementedError(
                "Weights may only be loaded based on topology into Models when loading "
                "TensorFlow-formatted weights (got by_name=True to load_weights)."
            )
        if not reader.has_tensor(OBJECT_GRAPH_PROTO_KEY):
            raise NotImplementedError(
                "Streaming restore not supported from name-based checkpoints when "
                "graph building. File a feature request if this limitation bothers "
                "you. As a workaround, consider either using tf.train.Checkpoint to "
                "load name-based checkpoints or enabling eager execution."
            )
        proto = TrackableObjectGraph()
        proto.ParseFromString(bytes(np.asarray(reader.get_tensor(OBJECT_GRAPH_PROTO_KEY)).item()))
        status = CheckpointLoadStatus(_weights_checkpoint(self), filepath, reader, proto)
        status.run_restore_ops(backend.get_session())
        status.assert_nontrivial_match()
        return status


class Sequential(Model):
    """A linear stack of layers (``tf.keras.Sequential``).

    Args:
      layers: the layers, in order (default none; ``add`` appends).
      name: the model's name (default ``sequential``, ``sequential_1``...).

    A first layer carrying ``input_shape`` (or an ``InputLayer``) builds the model
    at once on a placeholder (``<layer>_input``); otherwise the first call builds it.
    """

    def __init__(self, layers: list[Any] | None = None, name: str | None = None):
        super().__init__(name=name)
        self.__dict__["_tracked"] = []
        for layer in layers or []:
            self.add(layer)

    @property
    def layers(self) -> list[Any]:
        """The layers, without an ``InputLayer``."""
        return [lay for lay in self.__dict__["_tracked"] if not isinstance(lay, InputLayer)]

    def add(self, layer: Any) -> None:
        """Appends ``layer`` (built at once when the model has an input).

        Raises:
          TypeError: ``layer`` is not a Keras layer.
          ValueError: a second ``InputLayer``, or a layer whose name a layer of the model has.
        """
        if isinstance(layer, ops.Tensor):  # an ``Input`` tensor: its InputLayer
            entry = _history(layer.graph).get(id(layer))
            if entry is not None and isinstance(entry[1], InputLayer):
                layer = entry[1]
        if not isinstance(layer, tl_base.Layer):
            raise TypeError(
                "The added layer must be an instance of class Layer. "
                f"Received: layer={layer} of type {type(layer)}."
            )
        tracked = self.__dict__["_tracked"]
        if any(layer.name == t.name for t in tracked):
            raise ValueError(
                f"All layers added to a Sequential model should have unique "
                f'names. Name "{layer.name}" is already the name of a layer in '
                "this model. Update the `name` argument to pass a unique name."
            )
        if isinstance(layer, InputLayer):
            if self.outputs is not None or tracked:
                raise ValueError("An InputLayer can only be the first layer of a Sequential model.")
            self.inputs, self.outputs = [layer.output], [layer.output]
        elif self.outputs is not None:
            self.outputs = [layer(self.outputs[0])]
        elif not tracked and getattr(layer, "_batch_input_shape", None) is not None:
            x = layers_module.Input(
                batch_shape=layer._batch_input_shape, dtype=layer.dtype, name=f"{layer.name}_input"
            )
            self.inputs, self.outputs = [x], [layer(x)]
        tracked.append(layer)
        self.built = self.outputs is not None

    def pop(self) -> None:
        """Removes the last layer.

        Raises:
          TypeError: the model has no layers.
        """
        if not self.layers:
            raise TypeError("There are no layers in the model.")
        self.__dict__["_tracked"].pop()
        if self.inputs is not None:
            x = self.inputs[0]
            for layer in self.layers:
                x = layer(x)
            self.outputs = [x]

    def _expects_training(self) -> bool:
        return False

    def get_config(self) -> dict[str, Any]:
        """``name`` and ``layers`` (the ``InputLayer`` first when the model has one), as
        TF's ``Sequential``."""
        layers = []
        if self.inputs is not None:
            entry = _history(self.inputs[0].graph).get(id(self.inputs[0]))
            if entry is not None and isinstance(entry[1], InputLayer):
                layers.append(saving.serialize_keras_object(entry[1]))
        layers.extend(saving.serialize_keras_object(layer) for layer in self.layers)
        return {"name": self.name, "layers": layers}

    @classmethod
    def from_config(cls, config: Any, custom_objects: Any = None) -> Any:
        """A new ``Sequential`` of the layers ``config`` lists (or a list of layer
        configs), added in order.

        Raises:
          ValueError: an unknown layer class.
        """
        if isinstance(config, dict):
            name, layer_configs = config.get("name"), config["layers"]
        else:
            name, layer_configs = None, config
        model = cls(name=name)
        with saving._custom_objects_in_use(custom_objects):
            for layer_config in layer_configs:
                model.add(saving.deserialize_layer(layer_config, custom_objects))
        return model

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        """The layers applied in order."""
        x = inputs
        for layer in self.layers:
            kwargs = {}
            if training is not None and layer._expects_training():
                kwargs["training"] = training
            x = layer(x, **kwargs)
        return x


clone_model = saving.clone_model
load_model = saving.load_model
save_model = saving.save_model
model_from_config = saving.model_from_config
model_from_json = saving.model_from_json
model_from_yaml = saving.model_from_yaml

__getattr__ = missing_name_getattr("tf.keras.models", globals())


def _layers_by_depth(history: dict[int, Any], inputs: list[Any], outputs: list[Any]) -> list[Any]:
    """A functional model's layers in TF's order (``_map_graph_network``): by decreasing
    depth (a node one deeper than the nodes using its outputs, a layer as deep as its
    deepest node), ties in the order a depth-first walk from the outputs meets them."""
    known = {id(x) for x in inputs}
    post_order: list[tuple[int, Any, list[int]]] = []
    finished: set[int] = set()
    first_seen: dict[int, int] = {}

    def walk(tensor: Any) -> None:
        entry = history[id(tensor)]
        layer, node_in, node_out = entry[1], entry[2], entry[5]
        if id(tensor) in known and not isinstance(layer, InputLayer):
            return
        key = id(node_out) if isinstance(node_out, (list, tuple)) else id(tensor)
        if key in finished:
            return
        first_seen.setdefault(id(layer), len(first_seen))
        parents = []
        if node_in is not None and id(tensor) not in known:
            for x in _flat(node_in):
                walk(x)
                parent = history[id(x)][5]
                parents.append(id(parent) if isinstance(parent, (list, tuple)) else id(x))
        finished.add(key)
        post_order.append((key, layer, parents))

    for out in outputs:
        walk(out)
    node_depth: dict[int, int] = {}
    layer_depth: dict[int, int] = {}
    layers: dict[int, Any] = {}
    for key, layer, parents in reversed(post_order):
        depth = max(node_depth.setdefault(key, 0), layer_depth.get(id(layer), 0))
        layer_depth[id(layer)] = node_depth[key] = depth
        layers[id(layer)] = layer
        for parent in parents:
            node_depth[parent] = max(depth + 1, node_depth.get(parent, 0))
    for x in inputs:  # an input no output depends on
        entry = history.get(id(x))
        if entry is not None and id(entry[1]) not in layers:
            layers[id(entry[1])] = entry[1]
            layer_depth[id(entry[1])] = 0
            first_seen[id(entry[1])] = -1
    return sorted(layers.values(), key=lambda la: (-layer_depth[id(la)], first_seen[id(la)]))


# -- the object graph save_weights writes (tf-keras' trackable children) ---------------
def _is_hdf5_filepath(filepath: str) -> bool:
    return filepath.endswith((".h5", ".keras", ".hdf5"))


def _is_hdf5_file(filepath: str) -> bool:
    """An existing HDF5 file (TF reads a path that is no checkpoint as one)."""
    if not os.path.isfile(filepath):
        return False
    with open(filepath, "rb") as f:
        return f.read(8) == b"\x89HDF\r\n\x1a\n"


def _ask_to_overwrite(filepath: str) -> bool:
    """TF's ``ask_to_proceed_with_overwrite``: y/n on stdin."""
    answer = input(f"[WARNING] {filepath} already exists - overwrite? [y/n]").strip().lower()
    while answer not in ("y", "n"):
        answer = input('Enter "y" (overwrite) or "n" (cancel).').strip().lower()
    if answer == "n":
        return False
    sys.stdout.write("[TIP] Next time specify overwrite=True!\n")
    return True


class _Node:
    """A node of the object graph: its named children (``Checkpoint``'s protocol)."""

    def __init__(self) -> None:
        self.children: dict[str, Any] = {}

    def _trackable_children(self) -> dict[str, Any]:
        return self.children


class _KerasOptimizerNode(_Node):
    """A Keras optimizer: ``iter``, then its hyperparameter variables by name; its
    slots are saved under the variables they belong to."""

    _checkpoint_slot_owner = True

    def __init__(self, optimizer: Any):
        super().__init__()
        self._optimizer = optimizer
        if optimizer._iterations is not None:
            self.children["iter"] = optimizer._iterations
        for name, value in sorted(optimizer._hyper.items()):
            if isinstance(value, Variable):
                self.children[name] = value

    def get_slot_names(self) -> list[str]:
        return list(self._optimizer.get_slot_names())

    def get_slot(self, var: Any, slot_name: str) -> Any:
        return self._optimizer._slots.get(var, {}).get(slot_name)


def _weights_checkpoint(model: Model) -> Any:
    """A ``tf.train.Checkpoint`` whose root stands for ``model``, with tf-keras'
    edges (node order as TF's: layers, attributes, weights, optimizer, ``root``)."""
    from adapters.v1.keras import optimizers
    from adapters.v1.training.checkpoint import Checkpoint

    weights = model.weights
    graph = weights[0].graph if weights else ops.get_default_graph()
    with graph.as_default():
        root = Checkpoint()
    nodes: dict[int, Any] = {id(model): root}

    def node(obj: Any) -> Any:
        if isinstance(obj, (list, tuple)):
            return [node(x) for x in obj]
        if id(obj) not in nodes:
            new = _Node()
            nodes[id(obj)] = new
            for name, child in _edges(obj):
                new.children.setdefault(name, child)
        return nodes[id(obj)]

    def _edges(layer: Any) -> list[tuple[str, Any]]:
        out: list[tuple[str, Any]] = []
        owned: set[int] = set()
        if isinstance(layer, Sequential) or (
            isinstance(layer, Model) and layer.__dict__.get("_nodes_order")
        ):  # a graph network: its layers by position
            k = 0
            for j, sub in enumerate(layer.layers):
                if sub.weights:
                    out.append((f"layer_with_weights-{k}", node(sub)))
                    k += 1
                out.append((f"layer-{j}", node(sub)))
                owned.update(id(w) for w in sub.weights)
        for name, value in vars(layer).items():
            if name.startswith("_"):
                continue
            subs = value if isinstance(value, (list, tuple)) else [value]
            if subs and all(isinstance(v, tl_base.Layer) for v in subs):
                out.append((name, node(value)))
                for v in subs:
                    owned.update(id(w) for w in v.weights)
        for w in layer.weights:
            if id(w) not in owned:
                out.append((w.op.name.rsplit("/", 1)[-1], w))
        return out

    edges = _edges(model)
    optimizer = getattr(model, "optimizer", None)
    if isinstance(optimizer, optimizers.Optimizer):
        edges.append(("optimizer", _KerasOptimizerNode(optimizer)))
    elif isinstance(optimizer, optimizers.TFOptimizer):
        wrapper = _Node()
        wrapper.children["optimizer"] = optimizer.optimizer
        wrapper.children["global_step"] = optimizer.iterations
        edges.append(("optimizer", wrapper))
    edges.append(("root", root))
    seen: set[str] = set()
    for name, child in edges:
        if name not in seen:
            seen.add(name)
            setattr(root, name, child)
    return root


def _count(weights: list[Any]) -> tuple[int, int]:
    """Keras' ``count_params`` and ``weight_memory_size`` over the unique weights."""
    unique = {id(w): w for w in weights}.values()
    count = size = 0
    for w in unique:
        n = 1
        for d in w.shape.as_list():
            n *= d
        count += n
        size += n * w.dtype.base_dtype.size
    return count, size


def _readable(size: float) -> str:
    for unit in ["Byte", "KB", "MB", "GB", "TB", "PB"]:
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} PB"


def _print_summary(
    model: Any,
    line_length: int | None,
    positions: Any,
    print_fn: Callable[[str], Any],
    show_trainable: bool,
) -> None:
    nodes = getattr(model, "_nodes_order", [])
    graph_network = model.inputs is not None and not isinstance(model, Sequential)
    sequential_like = not graph_network or (
        len(model.inputs) == 1
        and len(model.outputs or []) == 1
        and all(len(_flat(entry[2])) == 1 for entry in nodes)
        and len({id(entry[1]) for entry in nodes}) == len(nodes)
    )
    if sequential_like:
        line_length = line_length or 65
        positions = positions or [0.45, 0.85, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #"]
    else:
        line_length = line_length or 98
        positions = positions or [0.3, 0.6, 0.70, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]
    positions = list(positions)
    if show_trainable:
        line_length += 11
        positions.append(line_length)
        header.append("Trainable")

    def print_row(fields: list[Any]) -> None:
        left = [str(x) for x in fields]
        while any(left):
            line = ""
            for col in range(len(left)):
                start = positions[col - 1] if col > 0 else 0
                end = positions[col]
                space = 2 if col != len(positions) - 1 else 0
                cutoff = end - start - space
                if col != len(positions) - 1:
                    cutoff -= 1
                fit = left[col][:cutoff]
                breaks = [fit.find(x) + len(x) for x in ("),", "},", "],", "',") if x in fit]
                if breaks:
                    cutoff = min(breaks)
                    fit = fit[:cutoff]
                if col == 0:
                    line += " "
                line += fit + (" " * space if space else "")
                left[col] = left[col][cutoff:]
                line += " " * (positions[col] - len(line))
            print_fn(line)

    def output_shape(layer: Any) -> Any:
        try:
            return layer.output_shape
        except AttributeError:
            return "multiple"

    def connections(layer: Any) -> list[str]:
        out = []
        history = _history(model.outputs[0].graph)
        for node_in, _ in layer.__dict__.get("_nodes", []):
            if not isinstance(layer, InputLayer) and all(
                entry[2] is not node_in for entry in nodes
            ):
                continue
            if isinstance(layer, InputLayer):
                continue
            for x in _flat(node_in):
                entry = history[id(x)]
                source = entry[1]
                calls = source.__dict__.get("_nodes", [])
                index = next(
                    i
                    for i, (_, o) in enumerate(calls)
                    if o is entry[5] or (isinstance(o, list) and any(t is x for t in o))
                )
                tensor_index = next(i for i, t in enumerate(_flat(entry[5])) if t is x)
                out.append(f"{source.name}[{index}][{tensor_index}]")
        return out

    print_fn(f'Model: "{model.name}"')
    print_fn("_" * line_length)
    print_row(header)
    print_fn("=" * line_length)
    layers = model.layers
    for layer in layers:
        if not layer.built and not isinstance(layer, Model):
            params: Any = "0 (unused)"
        else:
            params = _count(layer.weights)[0]
        fields = [f"{layer.name} ({type(layer).__name__})", output_shape(layer), params]
        if not sequential_like:
            fields.append(connections(layer))
        if show_trainable:
            fields.append("Y" if layer.trainable else "N")
        print_row(fields)
        print_fn(" " * line_length)
    trainable, trainable_size = _count(model.trainable_weights)
    frozen, frozen_size = _count(model.non_trainable_weights)
    print_fn("=" * line_length)
    print_fn(f"Total params: {trainable + frozen} ({_readable(trainable_size + frozen_size)})")
    print_fn(f"Trainable params: {trainable} ({_readable(trainable_size)})")
    print_fn(f"Non-trainable params: {frozen} ({_readable(frozen_size)})")
    print_fn("_" * line_length)
