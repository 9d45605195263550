"""Keras' serialization and whole-model saving, as TF 2.21's legacy Keras in a TF1 graph.

- Configs: ``serialize_keras_object``/``deserialize_keras_object`` (``{"class_name",
  "config"}``), the configs of the built-in layers (their constructor arguments, as
  ``Layer.get_config`` gives them), of ``Sequential`` (``name``, ``layers``) and
  functional models (``name``, ``trainable``, ``layers`` with their
  ``inbound_nodes``, ``input_layers``, ``output_layers``), and the models rebuilt
  from them (``model_from_config``, ``model_from_json``, ``clone_model``).
- HDF5 (tf-keras' ``hdf5_format``, needs ``h5py``: the ``keras`` extra): weights
  under one group per layer (the ``layer_names`` attribute; each group's
  ``weight_names`` and one dataset per weight at the weight's name), and the whole
  model: ``model_config`` and ``training_config`` JSON attributes, the weights
  under ``model_weights``, the optimizer's under ``optimizer_weights``. Files are
  written to a temporary name in the same directory, then renamed.

Custom objects are looked up in the ``custom_objects`` given, then in those a load
has in use, then in ``tf.keras.utils``' custom object scope and registered objects
(``_lookup_custom_object``). Nothing read from a file is unpickled or
evaluated: a ``Lambda`` layer's marshalled bytecode is refused on loading.
"""

from __future__ import annotations

import codecs
import contextlib
import inspect
import json
import marshal
import os
import secrets
import types
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from adapters.v1.keras import serialization
from adapters.v1.keras.serialization import (  # tf.keras.saving's names, as TF's
    custom_object_scope,
    get_custom_objects,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
)

__all__ = [
    "custom_object_scope",
    "deserialize_keras_object",
    "get_custom_objects",
    "get_registered_name",
    "get_registered_object",
    "load_model",
    "register_keras_serializable",
    "save_model",
    "serialize_keras_object",
]

KERAS_VERSION = "2.21.0"
_HDF5_OBJECT_HEADER_LIMIT = 64512
_BASE_KEYS = ("name", "trainable", "dtype", "batch_input_shape")

# the custom objects of the loads in progress (innermost last)
_IN_USE: list[dict[str, Any]] = []


def _lookup_custom_object(name: str) -> Any:
    """The object known as ``name`` outside a load's ``custom_objects``: in the current
    ``tf.keras.utils.custom_object_scope``, then registered
    (``register_keras_serializable``, ``get_custom_objects()``), or None."""
    return serialization.get_registered_object(name)


def _custom(name: str, custom_objects: dict[str, Any] | None = None) -> Any:
    """The custom object ``name``: ``custom_objects``, the loads' in use, the seam."""
    for objects in ([custom_objects] if custom_objects else []) + _IN_USE[::-1]:
        if name in objects:
            return objects[name]
    return _lookup_custom_object(name)


@contextlib.contextmanager
def _custom_objects_in_use(custom_objects: dict[str, Any] | None) -> Iterator[None]:
    _IN_USE.append(dict(custom_objects or {}))
    try:
        yield
    finally:
        _IN_USE.pop()


def _unknown(kind: str, name: Any) -> ValueError:
    return ValueError(
        f"Unknown {kind}: '{name}'. Please ensure you are using a "
        "`keras.utils.custom_object_scope` and that this object is included in the scope. "
        "See https://www.tensorflow.org/guide/keras/save_and_serialize"
        "#registering_the_custom_object for details."
    )


def _class_name(obj: Any) -> str:
    from adapters.v1.keras import models

    if isinstance(obj, models.Model) and not isinstance(obj, models.Sequential):
        if obj.__dict__.get("_nodes_order") is not None and type(obj) is models.Model:
            return "Functional"
    return type(obj).__name__


def serialize_keras_object(instance: Any) -> Any:
    """``{"class_name", "config"}`` of an object with ``get_config``, a function's name,
    or None (tf-keras' legacy ``serialize_keras_object``).

    Raises:
      ValueError: an object with neither ``get_config`` nor a name.
    """
    if instance is None:
        return None
    if hasattr(instance, "get_config"):
        return {"class_name": _class_name(instance), "config": instance.get_config()}
    if hasattr(instance, "__name__"):
        return instance.__name__
    raise ValueError(f"Cannot serialize {instance} because it doesn't implement `get_config()`.")


def deserialize_keras_object(
    identifier: Any,
    module_objects: dict[str, Any] | None = None,
    custom_objects: dict[str, Any] | None = None,
    printable_module_name: str = "object",
) -> Any:
    """The object a :func:`serialize_keras_object` result stands for: a dict's class
    (``custom_objects`` first, then ``module_objects``) from its config, a string's
    object (a class is instantiated without arguments).

    Raises:
      ValueError: an unknown name, or a dict without ``class_name``/``config``.
    """
    if identifier is None:
        return None
    module_objects = module_objects or {}
    if isinstance(identifier, dict):
        if "class_name" not in identifier or "config" not in identifier:
            raise ValueError(f"Improper config format for {identifier}.")
        name = identifier["class_name"]
        cls = _custom(name, custom_objects) or module_objects.get(name)
        if cls is None:
            raise _unknown(printable_module_name, name)
        config = identifier["config"]
        if hasattr(cls, "from_config"):
            params = inspect.signature(cls.from_config).parameters
            if "custom_objects" in params:
                with _custom_objects_in_use(custom_objects):
                    return cls.from_config(config, custom_objects=custom_objects)
            with _custom_objects_in_use(custom_objects):
                return cls.from_config(config)
        return cls(**config)
    if isinstance(identifier, str):
        obj = _custom(identifier, custom_objects) or module_objects.get(identifier)
        if obj is None:
            raise _unknown(printable_module_name, identifier)
        return obj() if inspect.isclass(obj) else obj
    raise ValueError(f"Could not interpret serialized {printable_module_name}: {identifier}")


def _json_default(obj: Any) -> Any:
    """What ``json.dumps`` cannot write itself: tuples (lists), NumPy values, dtypes."""
    if hasattr(obj, "get_config"):
        return serialize_keras_object(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    if type(obj).__name__ == "DType":
        return obj.name
    if type(obj).__name__ == "TensorShape":
        return obj.as_list() if obj.ndims is not None else None
    if callable(obj) and hasattr(obj, "__name__"):
        return obj.__name__
    raise TypeError(f"Unable to serialize {obj} to JSON. Unrecognized type {type(obj)}.")


def to_json(value: Any, **kwargs: Any) -> str:
    """``value`` as JSON, with :func:`_json_default` for what JSON lacks."""
    return json.dumps(value, default=_json_default, **kwargs)


# -- the configs of the built-in layers ---------------------------------------------------
_SIGNATURES: dict[type, inspect.Signature] = {}


def _signature(cls: type) -> inspect.Signature:
    if cls not in _SIGNATURES:
        _SIGNATURES[cls] = inspect.signature(cls.__init__)
    return _SIGNATURES[cls]


def bound_arguments(cls: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The arguments of a call ``cls(*args, **kwargs)`` by name, defaults filled in
    (``**kwargs`` merged; {} when they do not fit: the constructor will say so)."""
    try:
        bound = _signature(cls).bind(None, *args, **kwargs)
    except TypeError:
        return {}
    bound.apply_defaults()
    out: dict[str, Any] = {}
    for i, (name, value) in enumerate(bound.arguments.items()):
        kind = _signature(cls).parameters[name].kind
        if i == 0 or kind == inspect.Parameter.VAR_POSITIONAL:
            continue
        if kind == inspect.Parameter.VAR_KEYWORD:
            out.update(value)
        else:
            out[name] = value
    return out


def _own_parameters(cls: type) -> list[str]:
    return [
        p.name
        for i, p in enumerate(_signature(cls).parameters.values())
        if i > 0 and p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    ]


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    return value


def _serialized(key: str, value: Any) -> tuple[bool, Any]:
    """A constructor argument as Keras' config holds it, by the argument's name."""
    from adapters.v1.keras import activations, constraints, initializers, regularizers

    if key in ("activation", "recurrent_activation"):
        return True, activations.serialize(activations.get(value))
    if key.endswith("_initializer"):
        return True, initializers.serialize(initializers.get(value))
    if key.endswith("_regularizer"):
        return True, regularizers.serialize(regularizers.get(value))
    if key.endswith("_constraint"):
        return True, constraints.serialize(constraints.get(value))
    if key in ("layer", "cell", "backward_layer"):
        return True, serialize_keras_object(value)
    if key == "cells":
        return True, [serialize_keras_object(c) for c in value]
    return False, None


_PLAIN_TYPES = (int, float, str, bool, tuple, list, np.generic, type(None))


def layer_config(layer: Any) -> dict[str, Any]:
    """A built-in layer's own config entries: its constructor's arguments (as given
    or their defaults; the layer's normalized attribute where it has one, so
    ``kernel_size=3`` is ``(3, 3)``), initializers and the like serialized, less
    ``_config_skip``, plus ``_config_fixed``."""
    cls = type(layer)
    arguments = layer.__dict__.get("_init_arguments", {})
    skip = set(getattr(cls, "_config_skip", ())) | set(_BASE_KEYS)
    config: dict[str, Any] = {}
    for key in _own_parameters(cls):
        if key in skip or key == "weights":
            continue
        value = arguments.get(key)
        done, serialized = _serialized(key, value)
        if done:
            config[key] = serialized
            continue
        attr = getattr(layer, key, None) if key not in getattr(cls, "_config_args", ()) else None
        if isinstance(attr, np.ndarray) and attr.ndim == 0:
            attr = attr[()]
        if attr is not None and isinstance(attr, _PLAIN_TYPES):
            value = attr
        config[key] = _plain(value)
    for key, fixed in getattr(cls, "_config_fixed", {}).items():
        value = arguments.get(key, fixed)
        for owner in (layer, getattr(layer, "cell", None)):
            attr = getattr(owner, key, None) if owner is not None else None
            if isinstance(attr, (int, float, str, bool)):
                value = attr
                break
        config[key] = _plain(value)
    return config


def base_config(layer: Any) -> dict[str, Any]:
    """``name``, ``trainable``, ``batch_input_shape`` (where the layer has one) and
    ``dtype`` (None until the layer is built, then its dtype's name)."""
    config: dict[str, Any] = {"name": layer.name, "trainable": bool(layer.trainable)}
    batch = getattr(layer, "_batch_input_shape", None)
    if batch is not None:
        config["batch_input_shape"] = tuple(batch)
    dtype = layer.dtype
    if dtype is None and layer.built and layer.weights:
        # a layer built by its wrapper's ``build`` (an RNN's cell): its weights' dtype
        dtype = layer.weights[0].dtype.base_dtype
    config["dtype"] = None if dtype is None else _dtype_name(dtype)
    return config


def _dtype_name(dtype: Any) -> str:
    from adapters.v1.framework import dtypes

    return dtypes.as_dtype(dtype).name


def layer_from_config(cls: type, config: dict[str, Any]) -> Any:
    """``cls(**config)`` with the fixed entries ``_config_fixed`` checked and left out.

    Raises:
      NotImplementedError: a fixed entry with another value than adapters.v1 has.
    """
    config = dict(config)
    for key in ("layer", "cell", "backward_layer"):
        if isinstance(config.get(key), dict):
            config[key] = deserialize_layer(config[key])
    if isinstance(config.get("cells"), list):
        config["cells"] = [
            deserialize_layer(c) if isinstance(c, dict) else c for c in config["cells"]
        ]
    passed = set(getattr(cls, "_config_kwargs", ()))
    for key, fixed in getattr(cls, "_config_fixed", {}).items():
        if key in passed:
            continue
        value = config.pop(key, fixed)
        if value != fixed and not (isinstance(fixed, tuple) and list(fixed) == value):
            raise NotImplementedError(
                f"tf.keras.layers.{cls.__name__}.from_config: {key}={value!r} is not "
                f"supported by adapters.v1 (only {fixed!r})"
            )
    return cls(**config)


def _layer_objects() -> dict[str, Any]:
    from adapters.v1.keras import layers, models

    objects = {n: getattr(layers, n) for n in layers.__all__ if inspect.isclass(getattr(layers, n))}
    objects.update(Model=models.Model, Functional=models.Model, Sequential=models.Sequential)
    return objects


def deserialize_layer(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """The layer (or model) of a ``{"class_name", "config"}`` dict.

    Raises:
      ValueError: an unknown class name (TF's message).
    """
    return deserialize_keras_object(
        config, _layer_objects(), custom_objects, printable_module_name="layer"
    )


def function_config(function: Any, key: str, module_key: str) -> dict[str, Any]:
    """A ``Lambda``'s function entries as TF writes them: a Python function as
    ``(base64 marshalled code, defaults, closure)`` of type ``"lambda"``, another
    callable by name (``"function"``), anything else as is (``"raw"``)."""
    if isinstance(function, types.FunctionType):
        code = codecs.encode(marshal.dumps(function.__code__), "base64").decode("ascii")
        closure = (
            tuple(cell.cell_contents for cell in function.__closure__)
            if function.__closure__
            else None
        )
        value: Any = (code, function.__defaults__, closure)
        kind, module = "lambda", function.__module__
    elif callable(function):
        value, kind, module = function.__name__, "function", function.__module__
    else:
        value, kind, module = function, "raw", None
    return {key: value, f"{key}_type": kind, module_key: module}


def function_from_config(
    config: dict[str, Any], key: str, module_key: str, custom_objects: Any
) -> Any:
    """The function a ``Lambda`` config names (its type and module entries removed).

    Raises:
      ValueError: a ``"lambda"`` (bytecode: never run), an unknown name.
    """
    kind = config.pop(f"{key}_type", "raw")
    config.pop(module_key, None)
    value = config.get(key)
    if kind == "lambda":
        # never run: the function of the custom objects whose own bytecode it is
        code = value[0] if isinstance(value, (list, tuple)) and value else None
        for objects in [custom_objects or {}, *_IN_USE]:
            for candidate in objects.values():
                if (
                    isinstance(candidate, types.FunctionType)
                    and function_config(candidate, key, module_key)[key][0] == code
                ):
                    return candidate
        raise ValueError(
            "Requested the deserialization of a Lambda layer with a Python `lambda` "
            "inside it. This carries a potential risk of arbitrary code execution and "
            "thus it is disallowed (adapters.v1 never runs bytecode read from a file): "
            "pass the function in `custom_objects` (it is recognized by its bytecode)."
        )
    if kind == "function":
        found = _custom(value, custom_objects)
        if found is None:
            raise _unknown("function in Lambda layer", value)
        return found
    return tuple(value) if isinstance(value, list) else value


# -- model configs ---------------------------------------------------------------------
def _node_key(outputs: Any) -> int:
    return id(outputs)


def _skips_first_node(layer: Any) -> bool:
    """TF's ``_should_skip_first_node``: a model built on an ``InputLayer`` has a node
    of its own (input to output) before its calls; configs count from 1 for it."""
    from adapters.v1.keras import models
    from adapters.v1.keras.layers import InputLayer, _history

    if not isinstance(layer, models.Model) or not layer.inputs:
        return False
    entry = _history(layer.inputs[0].graph).get(id(layer.inputs[0]))
    return entry is not None and isinstance(entry[1], InputLayer)


def functional_config(model: Any) -> dict[str, Any]:
    """A functional model's config in TF's layout: each layer with the nodes (calls) of
    it the model uses, each node listing ``[layer name, node index, tensor index,
    call kwargs]`` for its inputs; node indices count the model's nodes only."""
    from adapters.v1.keras.layers import _flat, _history

    history = _history(model.outputs[0].graph)
    kept = {_node_key(entry[5]) for entry in model._nodes_order}
    kept.update(_node_key(x) for x in model.inputs)

    def node_index(layer: Any, outputs: Any) -> int:
        index = 1 if _skips_first_node(layer) else 0
        for _, outs in layer.__dict__.get("_nodes", []):
            if outs is outputs:
                return index
            if _node_key(outs) in kept:
                index += 1
        raise ValueError(f"tf.keras Model.get_config: a node of {layer.name} is not the model's")

    def where(tensor: Any) -> list[Any]:
        entry = history[id(tensor)]
        tensor_index = next(i for i, t in enumerate(_flat(entry[5])) if t is tensor)
        return [entry[1].name, node_index(entry[1], entry[5]), tensor_index]

    layer_configs = []
    for layer in model.layers:
        inbound = []
        for ins, outs in layer.__dict__.get("_nodes", []):
            if _node_key(outs) not in kept or ins is outs:
                continue
            kwargs = history[id(_flat(outs)[0])][4]
            inbound.append([[*where(x), dict(kwargs)] for x in _flat(ins)])
        layer_configs.append(
            {
                "class_name": _class_name(layer),
                "config": layer.get_config(),
                "name": layer.name,
                "inbound_nodes": inbound,
            }
        )
    return {
        "name": model.name,
        "trainable": bool(model.trainable),
        "layers": layer_configs,
        "input_layers": [where(x) for x in model.inputs],
        "output_layers": [where(x) for x in model.outputs],
    }


def functional_from_config(
    cls: type, config: dict[str, Any], custom_objects: dict[str, Any] | None = None
) -> Any:
    """Rebuilds a functional model: its layers from their configs, then each node
    called (in the order their inputs become available) on the tensors it names.

    Raises:
      ValueError: a node whose inputs never become available.
    """
    from adapters.v1.keras.layers import _flat

    layers: dict[str, Any] = {}
    pending: list[tuple[Any, list[Any]]] = []
    outputs: dict[tuple[str, int], list[Any]] = {}
    for entry in config["layers"]:
        layer = deserialize_layer(
            {"class_name": entry["class_name"], "config": entry["config"]}, custom_objects
        )
        layers[entry["name"]] = layer
        if not entry["inbound_nodes"]:
            if hasattr(layer, "output") and layer.__dict__.get("_nodes"):
                outputs[(entry["name"], 0)] = [layer.output]
        for node in entry["inbound_nodes"]:
            pending.append((layer, node))
    counts = {
        name: 1 if (name, 0) in outputs or _skips_first_node(layer) else 0
        for name, layer in layers.items()
    }
    while pending:
        progressed = False
        still: list[tuple[Any, list[Any]]] = []
        blocked: set[str] = set()
        for layer, node in pending:
            ready = layer.name not in blocked and all(
                (src, index) in outputs for src, index, *_ in node
            )
            if not ready:
                blocked.add(layer.name)  # a layer's nodes are called in order
                still.append((layer, node))
                continue
            inputs = [outputs[(src, index)][tensor] for src, index, tensor, *_ in node]
            kwargs = node[0][3] if len(node[0]) > 3 else {}
            result = layer(inputs[0] if len(inputs) == 1 else inputs, **(kwargs or {}))
            outputs[(layer.name, counts[layer.name])] = _flat(result)
            counts[layer.name] += 1
            progressed = True
        if not progressed:
            raise ValueError(
                "tf.keras Model.from_config: the nodes of "
                f"{sorted({layer.name for layer, _ in still})} name inputs no layer produces"
            )
        pending = still
    inputs = [outputs[(name, index)][tensor] for name, index, tensor in config["input_layers"]]
    outs = [outputs[(name, index)][tensor] for name, index, tensor in config["output_layers"]]
    return cls(
        inputs=inputs,
        outputs=outs[0] if len(outs) == 1 else outs,
        name=config.get("name"),
    )


def model_to_dict(model: Any) -> dict[str, Any]:
    return {
        "class_name": _class_name(model),
        "config": model.get_config(),
        "keras_version": KERAS_VERSION,
        "backend": "tensorflow",
    }


def model_from_config(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """A model (or layer) from its ``{"class_name", "config"}`` dict
    (``tf.keras.models.model_from_config``).

    Raises:
      TypeError: a list (TF's message: a Sequential's list of layers).
      ValueError: an unknown class name.
    """
    if isinstance(config, list):
        raise TypeError(
            "`model_from_config` expects a dictionary, not a list. "
            f"Received: config={config}. Did you meant to use "
            "`Sequential.from_config(config)`?"
        )
    return deserialize_layer(config, custom_objects)


def model_from_json(json_string: str, custom_objects: dict[str, Any] | None = None) -> Any:
    """The model a ``Model.to_json()`` string describes (``tf.keras.models.model_from_json``)."""
    return model_from_config(json.loads(json_string), custom_objects)


def model_from_yaml(yaml_string: str, custom_objects: dict[str, Any] | None = None) -> Any:
    """Removed from Keras (TF 2.21 raises ``RuntimeError``): use ``model_from_json``.

    Raises:
      RuntimeError: always (TF's message).
    """
    raise RuntimeError(
        "Method `model_from_yaml()` has been removed due to security risk of "
        "arbitrary code execution. Please use `Model.to_json()` and "
        "`model_from_json()` instead."
    )


# -- HDF5 ------------------------------------------------------------------------------
def _h5py() -> Any:
    try:
        import h5py
    except ImportError as e:  # pragma: no cover - the keras extra installs it
        raise ImportError(
            "`save_model()` using h5 format requires h5py. Could not import h5py "
            "(install adapters' `keras` extra: pip install jtrain[keras])."
        ) from e
    return h5py


def _write_attribute(group: Any, name: str, data: list[Any]) -> None:
    """tf-keras' ``save_attributes_to_hdf5_group``: split in ``name0``, ``name1``...
    beyond HDF5's 64 KB object header."""
    bad = [x for x in data if len(str(x)) > _HDF5_OBJECT_HEADER_LIMIT]
    if bad:
        raise RuntimeError(
            "The following attributes cannot be saved to HDF5 file because they are "
            f"larger than {_HDF5_OBJECT_HEADER_LIMIT} bytes: {bad}"
        )
    array = np.asarray([x.encode("utf8") for x in data]) if data else np.asarray([])
    chunks = 1
    parts = np.array_split(array, chunks)
    while any(x.nbytes > _HDF5_OBJECT_HEADER_LIMIT for x in parts):
        chunks += 1
        parts = np.array_split(array, chunks)
    if chunks > 1:
        for i, part in enumerate(parts):
            group.attrs[f"{name}{i}"] = part
    else:
        group.attrs[name] = array


def _read_attribute(group: Any, name: str) -> list[str]:
    def text(x: Any) -> str:
        return x.decode("utf8") if isinstance(x, bytes) else str(x)

    if name in group.attrs:
        return [text(x) for x in np.atleast_1d(group.attrs[name])]
    out: list[str] = []
    i = 0
    while f"{name}{i}" in group.attrs:
        out.extend(text(x) for x in np.atleast_1d(group.attrs[f"{name}{i}"]))
        i += 1
    return out


def _layer_weights(layer: Any) -> list[Any]:
    """Keras' legacy order: trainable weights, then the others."""
    return list(layer.trainable_weights) + list(layer.non_trainable_weights)


def _write_weights(group: Any, weights: list[Any], values: list[Any]) -> None:
    _write_attribute(group, "weight_names", [w.name for w in weights])
    for w, value in zip(weights, values, strict=True):
        value = np.asarray(value)
        dataset = group.create_dataset(w.name, value.shape, dtype=value.dtype)
        if value.shape:
            dataset[:] = value
        else:
            dataset[()] = value


def save_weights_to_hdf5_group(f: Any, model: Any) -> None:
    """The model's layers' weights into ``f``, TF's layout: ``layer_names``,
    ``backend`` and ``keras_version`` attributes, a group per layer holding its
    ``weight_names`` and one dataset per weight, and ``top_level_model_weights``."""
    from adapters.v1.keras import backend

    layers = model.layers
    _write_attribute(f, "layer_names", [layer.name for layer in layers])
    f.attrs["backend"] = "tensorflow"
    f.attrs["keras_version"] = KERAS_VERSION
    every = [_layer_weights(layer) for layer in layers]
    own = list(model._trainable_weights) + list(model._non_trainable_weights)
    flat = [w for ws in every for w in ws] + own
    values = backend.batch_get_value(flat) if flat else []
    start = 0
    for layer, weights in zip(layers, every, strict=True):
        _write_weights(f.create_group(layer.name), weights, values[start : start + len(weights)])
        start += len(weights)
    _write_weights(f.create_group("top_level_model_weights"), own, values[start:])


def _saved_layers(f: Any) -> list[tuple[str, list[np.ndarray]]]:
    out = []
    for name in _read_attribute(f, "layer_names"):
        group = f[name]
        values = [np.asarray(group[w][()]) for w in _read_attribute(group, "weight_names")]
        out.append((name, values))
    return out


def _assign(pairs: list[tuple[Any, Any]]) -> None:
    from adapters.v1.keras import backend

    if pairs:
        backend.batch_set_value(pairs)


def _check_shape(layer: Any, weight: Any, value: np.ndarray) -> bool:
    return tuple(weight.shape.as_list()) == value.shape


def load_weights_from_hdf5_group(f: Any, model: Any) -> None:
    """Loads ``f``'s weights into the model's layers with weights, in order (names
    ignored), as TF's ``load_weights_from_hdf5_group``.

    Raises:
      ValueError: another number of layers with weights, of weights in a layer, or a
        weight's shape that differs (TF's messages).
    """
    layers = [layer for layer in model.layers if _layer_weights(layer)]
    saved = [(name, values) for name, values in _saved_layers(f) if values]
    if len(saved) != len(layers):
        raise ValueError(
            "Layer count mismatch when loading weights from file. "
            f"Model expected {len(layers)} layers, found {len(saved)} saved layers."
        )
    pairs = []
    for k, (layer, (name, values)) in enumerate(zip(layers, saved, strict=True)):
        weights = _layer_weights(layer)
        if len(weights) != len(values):
            raise ValueError(
                f"Weight count mismatch for layer #{k} (named {layer.name} in the current "
                f"model, {name} in the save file). Layer expects {len(weights)} weight(s). "
                f"Received {len(values)} saved weight(s)"
            )
        for w, value in zip(weights, values, strict=True):
            if not _check_shape(layer, w, value):
                raise ValueError(
                    f"Shape mismatch in layer #{k} (named {layer.name}) for weight "
                    f"{w.name}. Weight expects shape {tuple(w.shape.as_list())}. "
                    f"Received saved weight with shape {value.shape}"
                )
            pairs.append((w, value))
    if "top_level_model_weights" in f:
        own = list(model._trainable_weights) + list(model._non_trainable_weights)
        values = _saved_layers_group(f["top_level_model_weights"])
        if len(own) != len(values):
            raise ValueError(
                "Weight count mismatch for top-level weights when loading weights from "
                f"file. Model expects {len(own)} top-level weight(s). Received "
                f"{len(values)} saved top-level weight(s)"
            )
        pairs.extend(zip(own, values, strict=True))
    _assign(pairs)


def _saved_layers_group(group: Any) -> list[np.ndarray]:
    return [np.asarray(group[w][()]) for w in _read_attribute(group, "weight_names")]


def load_weights_from_hdf5_group_by_name(f: Any, model: Any, skip_mismatch: bool = False) -> None:
    """Loads the weights of ``f``'s layers into the model's layers of the same name
    (TF's ``load_weights_from_hdf5_group_by_name``).

    Raises:
      ValueError: another number of weights or a shape that differs, unless
        ``skip_mismatch`` (then a warning and the layer or weight is left as is).
    """
    by_name: dict[str, list[Any]] = {}
    for layer in model.layers:
        by_name.setdefault(layer.name, []).append(layer)
    pairs = []
    for k, (name, values) in enumerate(_saved_layers(f)):
        for layer in by_name.get(name, []):
            weights = _layer_weights(layer)
            if len(weights) != len(values):
                if skip_mismatch:
                    warnings.warn(
                        f"Skipping loading of weights for layer #{k} (named {layer.name}) due "
                        f"to mismatch in number of weights. Layer expects {len(weights)} "
                        f"weight(s). Received {len(values)} saved weight(s)",
                        stacklevel=2,
                    )
                    continue
                raise ValueError(
                    f"Weight count mismatch for layer #{k} (named {layer.name}). Layer "
                    f"expects {len(weights)} weight(s). Received {len(values)} saved weight(s)"
                )
            for w, value in zip(weights, values, strict=True):
                if not _check_shape(layer, w, value):
                    if skip_mismatch:
                        warnings.warn(
                            f"Skipping loading weights for layer #{k} (named {layer.name}) "
                            f"due to mismatch in shape for weight {w.name}. Weight expects "
                            f"shape {tuple(w.shape.as_list())}. Received saved weight with "
                            f"shape {value.shape}",
                            stacklevel=2,
                        )
                        continue
                    raise ValueError(
                        f"Shape mismatch in layer #{k} (named {layer.name}) for weight "
                        f"{w.name}. Weight expects shape {tuple(w.shape.as_list())}. "
                        f"Received saved weight with shape {value.shape}"
                    )
                pairs.append((w, value))
    _assign(pairs)


@contextlib.contextmanager
def _atomic_h5(filepath: str) -> Iterator[Any]:
    """An HDF5 file open for writing at a temporary name beside ``filepath`` (created
    as h5py creates files, the umask's permissions), synced and renamed to
    ``filepath`` when the block ends without error, removed otherwise."""
    from jtrain.checkpoint._fileio import fsync_dir, remove_quietly

    h5py = _h5py()
    directory = os.path.dirname(os.path.abspath(filepath))
    os.makedirs(directory, exist_ok=True)
    tmp = f"{filepath}.tmp{secrets.token_hex(8)}"
    try:
        with h5py.File(tmp, "w") as f:
            yield f
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, filepath)
    except BaseException:
        remove_quietly(tmp)
        raise
    fsync_dir(directory)


def save_weights_h5(model: Any, filepath: str) -> None:
    """``Model.save_weights`` in the HDF5 format, written atomically."""
    with _atomic_h5(filepath) as f:
        save_weights_to_hdf5_group(f, model)


def load_weights_h5(
    model: Any, filepath: str, by_name: bool = False, skip_mismatch: bool = False
) -> None:
    """``Model.load_weights`` of an HDF5 file (a whole-model file's ``model_weights``)."""
    h5py = _h5py()
    with h5py.File(filepath, "r") as f:
        if "layer_names" not in f.attrs and "model_weights" in f:
            f = f["model_weights"]
        if by_name:
            load_weights_from_hdf5_group_by_name(f, model, skip_mismatch)
        else:
            load_weights_from_hdf5_group(f, model)


def _training_config(model: Any) -> dict[str, Any] | None:
    """The compile arguments TF writes (``loss``, ``metrics``, ``loss_weights``,
    ``sample_weight_mode``, ``weighted_metrics``, ``optimizer_config``); None for a
    model not compiled or compiled with a ``tf.train`` optimizer (TF's warning)."""
    from adapters.v1.keras import losses, metrics, optimizers

    optimizer = model.__dict__.get("optimizer")
    args = model.__dict__.get("_compile_args")
    if optimizer is None or args is None:
        return None
    if not isinstance(optimizer, optimizers.Optimizer):
        warnings.warn(
            "TensorFlow optimizers do not make it possible to access optimizer attributes "
            "or optimizer state after instantiation. As a result, we cannot save the "
            "optimizer as part of the model save file. You will have to compile your model "
            "again after loading it.",
            stacklevel=3,
        )
        return None

    def loss_of(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: loss_of(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [loss_of(v) for v in x]
        if x is None or isinstance(x, str):
            return x
        try:
            return losses.serialize(x, use_legacy_format=True)
        except ValueError:  # a function of the user's: its name, as TF
            return x.__name__

    def metric_of(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: metric_of(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [metric_of(v) for v in x]
        if x is None or isinstance(x, str):
            return x
        try:
            return metrics.serialize(x)
        except ValueError:  # a function or metric of the user's, as TF
            return serialize_keras_object(x)

    return {
        "loss": loss_of(args["loss"]),
        "metrics": metric_of(args["metrics"]),
        "loss_weights": args["loss_weights"],
        "sample_weight_mode": None,
        "weighted_metrics": None,
        "optimizer_config": optimizers.serialize(optimizer, use_legacy_format=True),
    }


def save_model(
    model: Any,
    filepath: Any,
    overwrite: bool = True,
    include_optimizer: bool = True,
    save_format: str | None = None,
    signatures: Any = None,
    options: Any = None,
    save_traces: bool = True,
) -> None:
    """Saves the whole model as TF's HDF5 file (``tf.keras.models.save_model``):
    its config, weights and (compiled, with ``include_optimizer``) training config
    and optimizer state, written atomically.

    Args (TF's defaults): model, filepath (str or path), overwrite=True (False asks
    on stdin), include_optimizer=True, save_format=None ('h5': TF1's default, as
    TF under ``disable_v2_behavior()``; 'tf' raises), signatures=None, options=None,
    save_traces=True (the last three SavedModel-only).

    Raises:
      NotImplementedError: ``save_format='tf'`` or a ``.keras`` path (the SavedModel
        and Keras v3 formats), a subclassed model (no config).
      ValueError: an unknown ``save_format``.
    """
    from adapters.v1.keras import backend

    filepath = os.fspath(filepath)
    if save_format is None:
        save_format = "keras" if filepath.endswith(".keras") else "h5"
    save_format = str(save_format).lower().strip()
    if save_format in ("tf", "tensorflow", "keras"):
        raise NotImplementedError(
            f"tf.keras save_model(save_format={save_format!r}): the "
            f"{'SavedModel' if save_format != 'keras' else 'Keras v3'} format is not "
            "supported by adapters.v1; save to HDF5 (a path ending in .h5, or "
            "save_format='h5'), as TF1 does by default"
        )
    if save_format not in ("h5", "hdf5"):
        raise ValueError(
            f"Unknown format. Received: `save_format`={save_format}. "
            'Was expecting one of {"tf", "h5"}.'
        )
    if _class_name(model) not in ("Functional", "Sequential"):
        raise NotImplementedError(
            "Saving the model to HDF5 format requires the model to be a Functional model "
            "or a Sequential model. It does not work for subclassed models, because such "
            "models are defined via the body of a Python method, which isn't safely "
            f"serializable (got {type(model).__name__}): use `save_weights` instead."
        )
    if not overwrite and os.path.isfile(filepath):
        from adapters.v1.keras.models import _ask_to_overwrite

        if not _ask_to_overwrite(filepath):
            return
    config = model_to_dict(model)
    config.pop("keras_version")
    config.pop("backend")
    training_config = _training_config(model) if include_optimizer else None
    with _atomic_h5(filepath) as f:
        f.attrs["keras_version"] = KERAS_VERSION
        f.attrs["backend"] = "tensorflow"
        f.attrs["model_config"] = to_json(config)
        if training_config is not None:
            f.attrs["training_config"] = to_json(training_config)
        save_weights_to_hdf5_group(f.create_group("model_weights"), model)
        optimizer = model.__dict__.get("optimizer")
        if training_config is not None and optimizer.weights:
            group = f.create_group("optimizer_weights")
            values = backend.batch_get_value(optimizer.weights)
            _write_weights(group, optimizer.weights, values)


def _compile_from_config(model: Any, training_config: dict[str, Any], custom: Any) -> None:
    from adapters.v1.keras import losses, metrics, optimizers

    optimizer = optimizers.deserialize(training_config["optimizer_config"], custom_objects=custom)

    def nested(deserialize: Any) -> Any:
        def one(x: Any) -> Any:
            if isinstance(x, dict) and "class_name" not in x:
                return {k: one(v) for k, v in x.items()}
            if isinstance(x, list):
                return [one(v) for v in x]
            if isinstance(x, dict):
                return deserialize(x, custom_objects=custom)
            if isinstance(x, str):
                found = _custom(x, custom)
                return found if found is not None else x
            return x

        return one

    loss_of, metrics_of = nested(losses.deserialize), nested(metrics.deserialize)

    kwargs: dict[str, Any] = {}
    for key in ("sample_weight_mode", "weighted_metrics"):
        if training_config.get(key) is not None:
            kwargs[key] = training_config[key]
    model.compile(
        optimizer=optimizer,
        loss=loss_of(training_config.get("loss")),
        metrics=metrics_of(training_config.get("metrics")),
        loss_weights=training_config.get("loss_weights"),
        **kwargs,
    )


def load_model(
    filepath: Any,
    custom_objects: dict[str, Any] | None = None,
    compile: bool = True,
    options: Any = None,
    safe_mode: bool = True,
) -> Any:
    """The model an HDF5 file holds, compiled as saved (``tf.keras.models.load_model``),
    with its optimizer's state.

    Args (TF's defaults): filepath (str or path), custom_objects=None (names to
    classes or functions), compile=True, options=None, safe_mode=True.

    Raises:
      OSError: no file at ``filepath`` (TF's message).
      NotImplementedError: a SavedModel directory or a Keras v3 ``.keras`` file.
      ValueError: a file without a model config (TF's message).
    """
    from adapters.v1.keras import training

    h5py = _h5py()
    filepath = os.fspath(filepath)
    if not os.path.exists(filepath):
        raise OSError(f"No file or directory found at {filepath}")
    if os.path.isdir(filepath) or not h5py.is_hdf5(filepath):
        raise NotImplementedError(
            f"tf.keras load_model: {filepath} is not an HDF5 file; SavedModel directories "
            "and Keras v3 .keras files are not supported by adapters.v1"
        )
    with _custom_objects_in_use(custom_objects), h5py.File(filepath, "r") as f:
        raw = f.attrs.get("model_config")
        if raw is None:
            raise ValueError(f"No model config found in the file at {filepath}.")
        model = model_from_config(json.loads(_text(raw)), custom_objects)
        load_weights_from_hdf5_group(f["model_weights"], model)
        if not compile:
            return model
        raw_training = f.attrs.get("training_config")
        if raw_training is None:
            warnings.warn(
                "No training configuration found in the save file, so the model was "
                "*not* compiled. Compile it manually.",
                stacklevel=2,
            )
            return model
        _compile_from_config(model, json.loads(_text(raw_training)), custom_objects)
        if "optimizer_weights" in f:
            group = f["optimizer_weights"]
            values = _saved_layers_group(group)
            training._compiled(model, "load_model").build_train_op()
            try:
                model.optimizer.set_weights(values)
            except ValueError:
                warnings.warn(
                    "Error in loading the saved optimizer state. As a result, your model "
                    "is starting with a freshly initialized optimizer.",
                    stacklevel=2,
                )
    return model


def _text(raw: Any) -> str:
    return raw.decode("utf8") if isinstance(raw, bytes) else str(raw)


# -- clone_model --------------------------------------------------------------------------
def clone_model(model: Any, input_tensors: Any = None, clone_function: Any = None) -> Any:
    """A model of the same config with new weights (``tf.keras.models.clone_model``):
    each layer is ``clone_function(layer)`` (default: ``type(layer).from_config(
    layer.get_config())``), called on ``input_tensors`` (default: new ``Input``s like
    the model's).

    Raises:
      ValueError: a subclassed model, or ``input_tensors`` of another count.
    """
    from adapters.v1.keras import layers as layers_module
    from adapters.v1.keras import models
    from adapters.v1.keras.layers import InputLayer, _flat, _history

    def default_clone(layer: Any) -> Any:
        return type(layer).from_config(layer.get_config())

    clone = clone_function or default_clone
    if isinstance(model, models.Sequential):
        cloned = [clone(layer) for layer in model.layers]
        if input_tensors is not None:
            tensors = _flat(input_tensors)
            if len(tensors) != 1:
                raise ValueError(
                    "To clone a `Sequential` model, we expect at most one tensor as part "
                    f"of `input_tensors`. Received: input_tensors={input_tensors}"
                )
            x = tensors[0]
            if id(x) not in _history(x.graph):
                x = layers_module.Input(tensor=x)
            new = models.Sequential([layers_module.InputLayer(input_tensor=x)], name=model.name)
            for layer in cloned:
                new.add(layer)
            return new
        if model.inputs is not None:
            first = _history(model.inputs[0].graph)[id(model.inputs[0])][1]
            if isinstance(first, InputLayer) and not getattr(
                model.layers[0], "_batch_input_shape", None
            ):
                cloned.insert(0, clone(first))
        return models.Sequential(cloned, name=model.name)
    if model.__dict__.get("_nodes_order") is None or model.inputs is None:
        raise ValueError(
            "Expected `model` argument to be a functional `Model` instance, but got a "
            f"subclassed model instead: {model}"
        )
    history = _history(model.inputs[0].graph)
    if input_tensors is None:
        new_inputs = []
        for x in model.inputs:
            layer = history[id(x)][1]
            new_inputs.append(
                layers_module.Input(
                    batch_shape=layer._batch_input_shape, dtype=x.dtype.base_dtype, name=layer.name
                )
            )
    else:
        new_inputs = _flat(input_tensors)
        if len(new_inputs) != len(model.inputs):
            raise ValueError(
                "Input tensors should have the same number of inputs as the model: "
                f"expected {len(model.inputs)}, received {len(new_inputs)}"
            )
        new_inputs = [
            x if id(x) in _history(x.graph) else layers_module.Input(tensor=x) for x in new_inputs
        ]
    values = {id(old): new for old, new in zip(model.inputs, new_inputs, strict=True)}
    clones: dict[int, Any] = {}
    for tensor, layer, node_in, args, kwargs, node_out in model._nodes_order:
        if id(tensor) in values:
            continue
        if id(layer) not in clones:
            clones[id(layer)] = clone(layer)
        mapped = (
            [values[id(x)] for x in node_in]
            if isinstance(node_in, (list, tuple))
            else values[id(node_in)]
        )
        result = clones[id(layer)](mapped, *args, **kwargs)
        for old, x in zip(_flat(node_out), _flat(result), strict=True):
            values[id(old)] = x
    outputs = [values[id(x)] for x in model.outputs]
    return models.Model(
        new_inputs if len(new_inputs) > 1 else new_inputs[0],
        outputs[0] if model._single_output else outputs,
        name=model.name,
    )
