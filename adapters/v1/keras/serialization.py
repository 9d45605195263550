"""Keras' custom objects and object (de)serialization, as TF 2.21's legacy Keras in a
TF1 program (``tf_keras/saving/object_registration.py`` and, TF 2 behaviour being
off, ``tf_keras/saving/legacy/serialization.py``).

``tf.keras.utils``: ``CustomObjectScope``/``custom_object_scope``,
``get_custom_objects``, ``register_keras_serializable``, ``get_registered_name``,
``get_registered_object``, ``serialize_keras_object`` and
``deserialize_keras_object``.

The custom objects are looked up by name: those of the innermost
``custom_object_scope`` (per thread), then the registered ones
(``get_custom_objects()``, global), then a ``custom_objects`` argument. Names are
only looked up, never evaluated.

.. note:: With TF 2 behaviour off (``disable_v2_behavior()``, classic TF1),
   ``tf.keras.utils.serialize_keras_object`` writes Keras' legacy format:
   ``{'class_name': <registered name>, 'config': <get_config(), nested objects
   serialized and marked '__passive_serialization__'>}`` for an object with
   ``get_config``, its registered name for a class or function. Keras' shared-object
   ids (``Model.save``'s scopes) are not written or read.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable
from typing import Any

__all__ = [
    "CustomObjectScope",
    "custom_object_scope",
    "custom_objects_in_scope",
    "deserialize_keras_object",
    "get_custom_objects",
    "get_registered_name",
    "get_registered_object",
    "legacy_deserialize_keras_object",
    "register_keras_serializable",
    "serialize_keras_object",
]

# name -> object: registered (global) and scoped (per thread, ``custom_object_scope``).
_GLOBAL_CUSTOM_OBJECTS: dict[str, Any] = {}
_GLOBAL_CUSTOM_NAMES: dict[Any, str] = {}
_THREAD_LOCAL_CUSTOM_OBJECTS = threading.local()


def _scoped() -> dict[str, Any]:
    return _THREAD_LOCAL_CUSTOM_OBJECTS.__dict__


class CustomObjectScope:
    """Makes custom objects known by name inside a ``with`` block (this thread).

    Args:
      *args: dicts of ``{name: object}``; a later one wins a name.

    ``custom_object_scope`` is the same class. Leaving the block restores the names
    known before it.
    """

    def __init__(self, *args: dict[str, Any]):
        self.custom_objects = args
        self.backup: dict[str, Any] | None = None

    def __enter__(self) -> CustomObjectScope:
        self.backup = dict(_scoped())
        for objects in self.custom_objects:
            _scoped().update(objects)
        return self

    def __exit__(self, *exc: Any) -> None:
        _scoped().clear()
        _scoped().update(self.backup or {})


custom_object_scope = CustomObjectScope


def get_custom_objects() -> dict[str, Any]:
    """The global dict of registered custom objects, live (changing it registers or
    unregisters names); a ``custom_object_scope``'s objects are not in it."""
    return _GLOBAL_CUSTOM_OBJECTS


def custom_objects_in_scope() -> dict[str, Any]:
    """The custom objects known now: the registered ones, then the scope's (a scoped
    name wins), as a new dict (for ``deserialize``/``get`` of the Keras modules)."""
    return {**_GLOBAL_CUSTOM_OBJECTS, **_scoped()}


def register_keras_serializable(
    package: str = "Custom", name: str | None = None
) -> Callable[[Any], Any]:
    """A decorator registering a class or function as ``'<package>><name>'``.

    Args (TF's defaults): package='Custom', name=None (the object's ``__name__``).

    Returns:
      The decorator, which returns the object unchanged.

    Raises:
      ValueError: (by the decorator) a class without ``get_config`` (TF's message).
    """

    def decorator(arg: Any) -> Any:
        registered_name = f"{package}>{name if name is not None else arg.__name__}"
        if inspect.isclass(arg) and not hasattr(arg, "get_config"):
            raise ValueError("Cannot register a class that does not have a get_config() method.")
        _GLOBAL_CUSTOM_OBJECTS[registered_name] = arg
        _GLOBAL_CUSTOM_NAMES[arg] = registered_name
        return arg

    return decorator


def get_registered_name(obj: Any) -> str:
    """The name ``obj`` was registered under, else its ``__name__``.

    Raises:
      AttributeError: an unregistered object without ``__name__`` (as TF).
    """
    if obj in _GLOBAL_CUSTOM_NAMES:
        return _GLOBAL_CUSTOM_NAMES[obj]
    return str(obj.__name__)


def get_registered_object(
    name: str, custom_objects: dict[str, Any] | None = None, module_objects: Any = None
) -> Any:
    """The object known as ``name``: in the current ``custom_object_scope``, then the
    registered ones, then ``custom_objects``, then ``module_objects``; None if none.

    Args (TF's defaults): name, custom_objects=None, module_objects=None (dicts).
    """
    for objects in (_scoped(), _GLOBAL_CUSTOM_OBJECTS, custom_objects, module_objects):
        if objects and name in objects:
            return objects[name]
    return None


def serialize_keras_object(instance: Any) -> Any:
    """Keras' legacy serialization of ``instance`` (TF 1 behaviour; see the module's
    note): None as None; an object with ``get_config`` as ``{'class_name', 'config'}``
    (each non-string config value serialized when it can be, a dict from an object
    marked ``'__passive_serialization__': True``); a class or function as its
    registered name.

    Raises:
      ValueError: an object with neither ``get_config`` nor ``__name__`` (TF's
        message).
      NotImplementedError: ``get_config`` raised it.
    """
    if instance is None:
        return None
    if hasattr(instance, "get_config") and not isinstance(instance, type):
        config = instance.get_config()
        serialized: dict[str, Any] = {}
        for key, item in config.items():
            if isinstance(item, str):
                serialized[key] = item
                continue
            try:
                value = serialize_keras_object(item)
            except ValueError:
                serialized[key] = item
                continue
            if isinstance(value, dict) and not isinstance(item, dict):
                value["__passive_serialization__"] = True
            serialized[key] = value
        return {"class_name": get_registered_name(type(instance)), "config": serialized}
    if hasattr(instance, "__name__"):
        return get_registered_name(instance)
    raise ValueError(f"Cannot serialize {instance} because it doesn't implement `get_config()`.")


def _unknown(kind: str, name: Any) -> ValueError:
    return ValueError(
        f"Unknown {kind}: '{name}'. Please ensure you are using a "
        "`keras.utils.custom_object_scope` and that this object is included in the scope. "
        "See https://www.tensorflow.org/guide/keras/save_and_serialize"
        "#registering_the_custom_object for details."
    )


def _class_and_config(
    config: Any, module_objects: Any, custom_objects: Any, kind: str
) -> tuple[Any, Any]:
    """The class ``config`` names and its config, the nested serialized objects in it
    deserialized (in place, as TF) and the names of known functions replaced by them."""
    if not isinstance(config, dict) or "class_name" not in config or "config" not in config:
        raise ValueError(
            f"Improper config format for {config}. Expecting python dict contains "
            "`class_name` and `config` as keys"
        )
    cls = get_registered_object(config["class_name"], custom_objects, module_objects)
    if cls is None:
        raise _unknown(kind, config["class_name"])
    inner = config["config"]
    if isinstance(inner, list):
        return cls, inner
    for key, item in list(inner.items()):
        if key == "name":
            continue
        if isinstance(item, dict) and "__passive_serialization__" in item:
            inner[key] = legacy_deserialize_keras_object(
                item, module_objects, custom_objects, "config_item"
            )
        elif isinstance(item, str) and inspect.isfunction(
            found := get_registered_object(item, custom_objects)
        ):
            inner[key] = found
    return cls, inner


def deserialize_keras_object(
    identifier: Any,
    custom_objects: dict[str, Any] | None = None,
    safe_mode: bool = True,
    **kwargs: Any,
) -> Any:
    """The object ``identifier`` describes, as TF's ``tf.keras.utils.
    deserialize_keras_object`` with TF 2 behaviour off: ``custom_objects`` merged with
    the scope's and the registered objects (those win a name), then Keras' legacy
    deserialization (``legacy_deserialize_keras_object``).

    Args (TF's defaults): identifier, custom_objects=None, safe_mode=True (nothing is
    ever evaluated here), module_objects=None and printable_module_name='object'
    (keywords, as TF).

    Raises:
      ValueError: other keywords (TF's message); see
        ``legacy_deserialize_keras_object``.
    """
    del safe_mode  # no lambda or code is ever loaded
    module_objects = kwargs.pop("module_objects", None)
    kind = kwargs.pop("printable_module_name", "object")
    if kwargs:
        raise ValueError(f"The following argument(s) are not supported: {list(kwargs.keys())}")
    merged = {**(custom_objects or {}), **_scoped(), **_GLOBAL_CUSTOM_OBJECTS}
    return legacy_deserialize_keras_object(identifier, module_objects, merged, kind)


def legacy_deserialize_keras_object(
    identifier: Any,
    module_objects: Any = None,
    custom_objects: dict[str, Any] | None = None,
    printable_module_name: str = "object",
) -> Any:
    """Keras' legacy deserialization (``tf.keras.utils.legacy.deserialize_keras_object``):
    a ``{'class_name', 'config'}`` dict built with the class's ``from_config`` (given
    the custom objects when it takes them; else inside a ``custom_object_scope`` of
    them) or its constructor; a name looked up in ``custom_objects``, the scope, the
    registered objects, then ``module_objects`` (a class is instantiated with no
    arguments); a function returned as is.

    Args (TF's defaults): identifier, module_objects=None, custom_objects=None,
    printable_module_name='object' (the kind named in the errors).

    Raises:
      ValueError: an unknown name (TF's message, naming it), a dict without
        ``class_name``/``config``, anything else.
      AttributeError: a name found nowhere without ``module_objects`` (TF calls
        ``None.get``; the message here says which name).

    .. note:: As TF's: the nested objects of ``identifier['config']`` are replaced
       in place by what they deserialize to.
    """
    kind = printable_module_name
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        cls, inner = _class_and_config(identifier, module_objects, custom_objects, kind)
        custom_objects = custom_objects or {}
        if not hasattr(cls, "from_config"):
            with CustomObjectScope(custom_objects):
                return cls(**inner)
        if "custom_objects" in inspect.signature(cls.from_config).parameters:
            everything = {**_GLOBAL_CUSTOM_OBJECTS, **_scoped(), **custom_objects}
            return cls.from_config(inner, custom_objects=everything)
        with CustomObjectScope(custom_objects):
            return cls.from_config(inner)
    if isinstance(identifier, str):
        for objects in (custom_objects, _scoped(), _GLOBAL_CUSTOM_OBJECTS, module_objects):
            if objects and identifier in objects:
                found = objects[identifier]
                break
        else:
            if module_objects is None:
                raise AttributeError(
                    f"deserialize_keras_object: '{identifier}' is not a custom object "
                    "and no module_objects were given ('NoneType' object has no "
                    "attribute 'get', as TF)"
                )
            raise _unknown(kind, identifier)
        return found() if inspect.isclass(found) else found
    if inspect.isfunction(identifier):
        return identifier
    raise ValueError(f"Could not interpret serialized {kind}: {identifier}")
