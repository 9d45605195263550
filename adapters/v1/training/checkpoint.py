"""``tf.compat.v1.train.Checkpoint`` and ``CheckpointManager``: object-based checkpoints.

A ``Checkpoint(**kwargs)`` is the root of an object graph: its keyword arguments,
then (once created) its ``save_counter``. Edges follow TF's tracking rules:

- a ``Variable`` is a leaf holding one value (``.ATTRIBUTES/VARIABLE_VALUE``);
- an optimizer's children are its non-slot variables of the current graph,
  sorted by name (Adam's ``beta1_power``, ``beta2_power``); its slot variables are
  stored under the variable they belong to, as
  ``<variable path>/.OPTIMIZER_SLOT/<optimizer path>/<slot name>``;
- a list or tuple's children are its trackable items, named by index; a dict's,
  its trackable values, named by key;
- a nested ``Checkpoint``, or any object with a ``_trackable_children()`` method
  returning ``{name: child}``, contributes those children.

An object is named by the first path that reaches it in a breadth-first walk from
the root, with ``.`` escaped as ``..`` and ``/`` as ``.S`` (TF's
``escape_local_name``); keys are those paths plus ``/.ATTRIBUTES/VARIABLE_VALUE``.
The serialized ``TrackableObjectGraph`` goes into the checkpoint as the string
tensor ``_CHECKPOINTABLE_OBJECT_GRAPH``, so TensorFlow's ``tf.train.Checkpoint``
restores these checkpoints and jtrain restores TF's.

Restoring matches the live objects to the checkpoint's graph by edge names from the
root (not by keys), as TF does. In graph mode ``restore`` only returns a status;
``status.run_restore_ops(sess)`` (or ``initialize_or_restore``) assigns the values.
Matching happens when the status is used, so objects created after ``restore``
(slot variables created by ``minimize``) are restored too, TF's deferred
restoration.
"""

from __future__ import annotations

import collections
import os
import time
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from adapters.v1.framework import ops
from adapters.v1.ops.variables import Variable
from adapters.v1.trackable.python_state import PYTHON_STATE, PythonState
from adapters.v1.training.checkpoint_options import CheckpointOptions
from adapters.v1.training.optimizer import Optimizer
from jtrain import errors
from jtrain.checkpoint import checkpoint_management as cm
from jtrain.checkpoint.retention import ManagerRetention

__all__ = [
    "Checkpoint",
    "CheckpointManager",
    "CheckpointLoadStatus",
    "InitializationOnlyStatus",
    "NameBasedSaverStatus",
]

OBJECT_GRAPH_PROTO_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
_ESCAPE = "."
_VARIABLE_VALUE = "VARIABLE_VALUE"


# -- naming (TF's trackable_utils) ----------
def _escape(name: str) -> str:
    return name.replace(_ESCAPE, _ESCAPE + _ESCAPE).replace("/", _ESCAPE + "S")


def _attribute_key(path: str, attribute: str = _VARIABLE_VALUE) -> str:
    return f"{path}/{_ESCAPE}ATTRIBUTES/{_escape(attribute)}"


def _slot_path(variable_path: str, optimizer_path: str, slot_name: str) -> str:
    return f"{variable_path}/{_ESCAPE}OPTIMIZER_SLOT/{optimizer_path}/{_escape(slot_name)}"


# -- the object graph ----------
def _slot_owner(obj: Any) -> bool:
    """An optimizer whose slot variables are saved under the variables they belong to:
    a ``tf.train`` optimizer, or an object declaring ``_checkpoint_slot_owner`` (the
    node Keras' ``save_weights`` makes of a Keras optimizer) with ``get_slot_names()``
    and ``get_slot(var, name)`` (None when absent)."""
    return isinstance(obj, Optimizer) or getattr(obj, "_checkpoint_slot_owner", False) is True


def _is_trackable(obj: Any) -> bool:
    return isinstance(
        obj, (Variable, Optimizer, Checkpoint, PythonState, list, tuple, dict)
    ) or callable(getattr(obj, "_trackable_children", None))


def _children(obj: Any, graph: ops.Graph) -> list[tuple[str, Any]]:
    """The named edges out of ``obj``, in TF's order."""
    if isinstance(obj, (Variable, PythonState)):
        return []
    if isinstance(obj, Checkpoint):
        kids = list(obj._kwargs.items())
        if obj._save_counter is not None:
            kids.append(("save_counter", obj._save_counter))
        return kids
    wrapper = getattr(obj, "_checkpoint_dependencies", None)
    if callable(wrapper):  # per-graph children (MixedPrecisionLossScaleOptimizer, LossScale)
        return list(wrapper(graph))
    if isinstance(obj, Optimizer):
        items = [(k, v) for k, v in obj._non_slot_vars.items() if k[1] is graph]
        return [(name, v) for (name, _), v in sorted(items, key=lambda kv: kv[0][0])]
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a namedtuple: by field (TF's)
        return [(str(k), v) for k, v in zip(obj._fields, obj, strict=True) if _is_trackable(v)]
    if isinstance(obj, (list, tuple)):
        return [(str(i), v) for i, v in enumerate(obj) if _is_trackable(v)]
    if isinstance(obj, dict):
        out = []
        for k, v in obj.items():
            if not _is_trackable(v):
                continue
            if not isinstance(k, str):
                raise ValueError(
                    f"Unable to save the dictionary {obj!r}: it maps the non-string key "
                    f"{k!r} to a trackable object; checkpoint keys are strings."
                )
            out.append((k, v))
        return out
    return [(str(k), v) for k, v in obj._trackable_children().items() if _is_trackable(v)]


class _ObjectGraph:
    """The live object graph from a root: BFS order, paths, slot variables."""

    def __init__(self, root: Any, graph: ops.Graph):
        self.objects: list[Any] = [root]
        self.paths: list[str] = [""]
        self.edges: list[list[tuple[str, Any]]] = []
        ids = {id(root): 0}
        i = 0
        while i < len(self.objects):
            obj = self.objects[i]
            kids = _children(obj, graph)
            self.edges.append(kids)
            for name, child in kids:
                if id(child) not in ids:
                    ids[id(child)] = len(self.objects)
                    prefix = self.paths[i] + "/" if i else ""
                    self.objects.append(child)
                    self.paths.append(prefix + _escape(name))
            i += 1
        self.ids = ids
        # Slot variables, after every other node (TF's _serialize_slot_variables).
        self.slots: dict[int, list[tuple[int, str, int]]] = {}
        non_slot = list(self.objects)
        for opt_id, opt in enumerate(non_slot):
            # A wrapper's slots belong to the optimizer it wraps (its own node).
            if not _slot_owner(opt) or hasattr(opt, "_checkpoint_dependencies"):
                continue
            for slot_name in opt.get_slot_names():
                for var_id, var in enumerate(non_slot):
                    if not isinstance(var, Variable):
                        continue
                    slot = opt.get_slot(var, slot_name)
                    if slot is None:
                        continue
                    slot_id = len(self.objects)
                    self.objects.append(slot)
                    self.paths.append(_slot_path(self.paths[var_id], self.paths[opt_id], slot_name))
                    self.edges.append([])
                    self.ids.setdefault(id(slot), slot_id)
                    self.slots.setdefault(opt_id, []).append((var_id, slot_name, slot_id))

    def variables(self) -> list[tuple[str, Variable]]:
        """(checkpoint key, variable) for every variable node."""
        return [
            (_attribute_key(p), o)
            for p, o in zip(self.paths, self.objects, strict=True)
            if isinstance(o, Variable)
        ]

    def python_states(self) -> list[tuple[str, PythonState]]:
        """(checkpoint key, object) for every ``PythonState`` node."""
        return [
            (_attribute_key(p, PYTHON_STATE), o)
            for p, o in zip(self.paths, self.objects, strict=True)
            if isinstance(o, PythonState)
        ]

    def proto(self) -> Any:
        from jtrain.protos.trackable_object_graph_pb2 import TrackableObjectGraph

        g = TrackableObjectGraph()
        for i, obj in enumerate(self.objects):
            node = g.nodes.add()
            for name, child in self.edges[i]:
                node.children.add(node_id=self.ids[id(child)], local_name=name)
            if isinstance(obj, Variable):
                node.attributes.add(
                    name=_VARIABLE_VALUE,
                    full_name=obj.op.name,
                    checkpoint_key=_attribute_key(self.paths[i]),
                )
            elif isinstance(obj, PythonState):
                node.attributes.add(
                    name=PYTHON_STATE,
                    full_name=PYTHON_STATE,
                    checkpoint_key=_attribute_key(self.paths[i], PYTHON_STATE),
                )
            for var_id, slot_name, slot_id in self.slots.get(i, []):
                node.slot_variables.add(
                    original_variable_node_id=var_id,
                    slot_name=slot_name,
                    slot_variable_node_id=slot_id,
                )
        _fill_has_checkpoint_values(g)
        return g


def _fill_has_checkpoint_values(g: Any) -> None:
    """TF's rule: a node with attributes or slots, and every ancestor of one."""
    parents: dict[int, set[int]] = collections.defaultdict(set)
    marked = set()
    for i, node in enumerate(g.nodes):
        if node.attributes or node.slot_variables or node.HasField("registered_saver"):
            marked.add(i)
        for c in node.children:
            parents[c.node_id].add(i)
    todo = list(marked)
    while todo:
        for p in parents.pop(todo.pop(), ()):
            if p not in marked:
                marked.add(p)
                todo.append(p)
    for i, node in enumerate(g.nodes):
        node.has_checkpoint_values.value = i in marked


def _node_names(g: Any) -> dict[int, str]:
    """TF's ObjectGraphProtoPrettyPrinter: ``(root).model.w``, slots described."""
    names = {0: "(root)"}
    todo = collections.deque([0])
    while todo:
        i = todo.popleft()
        for c in g.nodes[i].children:
            if c.node_id not in names:
                names[c.node_id] = f"{names[i]}.{c.local_name}"
                todo.append(c.node_id)
    for i, node in enumerate(g.nodes):
        for s in node.slot_variables:
            names[s.slot_variable_node_id] = (
                f"{names.get(i)}'s state '{s.slot_name}' for "
                f"{names.get(s.original_variable_node_id)}"
            )
    return names


def _session(session: Any) -> Any:
    from adapters.v1.client.session import get_default_session

    session = session or get_default_session()
    if session is None:
        raise ValueError(
            "No session: pass `session=` or run under `with sess.as_default():` (graph mode)."
        )
    return session


def _describe(obj: Any) -> str:
    return f"<Variable {obj.name}>" if isinstance(obj, Variable) else repr(obj)


def _assign(session: Any, var: Variable, value: np.ndarray) -> None:
    session.variable_store.write(var, value)


def _read_values(prefix: str, wanted: dict[str, Variable]) -> dict[str, np.ndarray]:
    from jtrain.checkpoint.checkpoint_utils import restore_tf_checkpoint

    target = {k: jax.ShapeDtypeStruct(v._shape, v.dtype) for k, v in wanted.items()}
    return restore_tf_checkpoint(prefix, target) if target else {}


# -- restore statuses ----------
class _LoadStatus:
    def expect_partial(self) -> _LoadStatus:
        """Silences warnings about an incomplete restore; returns ``self``."""
        self._expect_partial = True
        return self


class CheckpointLoadStatus(_LoadStatus):
    """What ``Checkpoint.restore`` returns for an object-based checkpoint.

    Matching runs each time the status is used, against the objects that exist
    then; ``run_restore_ops`` assigns every matched variable its checkpointed value.
    """

    def __init__(self, root: Checkpoint, save_path: str, reader: Any, object_graph: Any):
        self._root = root
        self._save_path = save_path
        self._reader = reader
        self._proto = object_graph
        self._expect_partial = False
        self._graph = root._graph

    def _match(self) -> tuple[dict[int, Any], _ObjectGraph]:
        """node id -> live object, walking the checkpoint's edges from the root."""
        live = _ObjectGraph(self._root, self._graph)
        nodes = self._proto.nodes
        matched: dict[int, Any] = {0: self._root}
        by_obj = {id(self._root): 0}
        todo = collections.deque([(0, self._root)])
        while todo:
            node_id, obj = todo.popleft()
            kids = dict(_children(obj, self._graph))
            for ref in nodes[node_id].children:
                child = kids.get(ref.local_name)
                if child is None or ref.node_id in matched or id(child) in by_obj:
                    continue
                matched[ref.node_id] = child
                by_obj[id(child)] = ref.node_id
                todo.append((ref.node_id, child))
        for node_id, node in enumerate(nodes):
            opt = matched.get(node_id)
            if not _slot_owner(opt):
                continue
            for s in node.slot_variables:
                var = matched.get(s.original_variable_node_id)
                slot = opt.get_slot(var, s.slot_name) if isinstance(var, Variable) else None
                if slot is not None and s.slot_variable_node_id not in matched:
                    matched[s.slot_variable_node_id] = slot
                    by_obj[id(slot)] = s.slot_variable_node_id
        return matched, live

    def _matched_variables(self) -> dict[str, Variable]:
        matched, _ = self._match()
        out = {}
        for node_id, obj in matched.items():
            if isinstance(obj, Variable):
                for attr in self._proto.nodes[node_id].attributes:
                    if attr.name == _VARIABLE_VALUE:
                        out[attr.checkpoint_key] = obj
        return out

    def assert_existing_objects_matched(self) -> CheckpointLoadStatus:
        """Every variable reachable from the root now has a value in the checkpoint.

        Raises:
          AssertionError: naming the live objects without a checkpointed value.
        """
        matched, live = self._match()
        found = {id(o) for o in matched.values()}
        unused = [o for o in live.objects if isinstance(o, Variable) and id(o) not in found]
        if unused:
            shown = [_describe(o) for o in unused[:10]]
            raise AssertionError(
                f"Found {len(unused)} Python objects that were not bound to checkpointed "
                "values, likely due to changes in the Python program. Showing "
                f"{len(shown)} of {len(unused)} unmatched objects: {shown}"
            )
        return self

    def assert_consumed(self) -> CheckpointLoadStatus:
        """Every live object is matched and every checkpointed value has an object.

        Raises:
          AssertionError: naming the unmatched live objects, or the checkpoint's
            object (``(root).model.w``) that has no Python counterpart.
        """
        self.assert_existing_objects_matched()
        matched, _ = self._match()
        names = None
        for node_id, node in enumerate(self._proto.nodes):
            if node.attributes and node_id not in matched:
                names = names or _node_names(self._proto)
                raise AssertionError(
                    f"Unresolved object in checkpoint {names.get(node_id)}: {node}"
                )
        return self

    def assert_nontrivial_match(self) -> CheckpointLoadStatus:
        """Something besides the root matched.

        Raises:
          AssertionError: only the root object matched.
        """
        matched, live = self._match()
        if len(matched) <= 1:
            unused = [_describe(o) for o in live.objects if isinstance(o, Variable)]
            if unused:
                raise AssertionError(
                    "Nothing except the root object matched a checkpointed value. Typically "
                    "this means that the checkpoint does not match the Python program. The "
                    f"following objects have no matching checkpointed value: {unused}"
                )
            raise AssertionError(
                f"Nothing to load. No dependencies have been added to {self._root!r} yet."
            )
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        """Assigns the checkpointed values to the matched variables in ``session``.

        Raises:
          NotFoundError / InvalidArgumentError: a key is missing, or a stored shape
            or dtype differs from the variable's (key and shapes named).
        """
        session = _session(session)
        wanted = self._matched_variables()
        values = _read_values(self._save_path, wanted)
        for key, var in wanted.items():
            _assign(session, var, values[key])
        matched, _ = self._match()
        for node_id, obj in matched.items():
            if isinstance(obj, PythonState):
                for attr in self._proto.nodes[node_id].attributes:
                    if attr.name == PYTHON_STATE:
                        value = np.asarray(self._reader.get_tensor(attr.checkpoint_key)).item()
                        obj.deserialize(value.encode() if isinstance(value, str) else value)

    def initialize_or_restore(self, session: Any = None) -> None:
        """Restores the matched variables and initializes the other live ones."""
        session = _session(session)
        wanted = self._matched_variables()
        restored = {id(v) for v in wanted.values()}
        live = _ObjectGraph(self._root, self._graph)
        others = [
            o.initializer for o in live.objects if isinstance(o, Variable) and id(o) not in restored
        ]
        self.run_restore_ops(session)
        if others:
            session.run(others)


class InitializationOnlyStatus(_LoadStatus):
    """What ``Checkpoint.restore(None)`` returns: ``initialize_or_restore`` initializes."""

    _MESSAGE = "No checkpoint specified (save_path=None); nothing is being restored."

    def __init__(self, root: Checkpoint):
        self._root = root
        self._expect_partial = False

    def assert_consumed(self) -> Any:
        raise AssertionError(self._MESSAGE)

    def assert_existing_objects_matched(self) -> Any:
        raise AssertionError(self._MESSAGE)

    def assert_nontrivial_match(self) -> Any:
        raise AssertionError(self._MESSAGE)

    def run_restore_ops(self, session: Any = None) -> None:
        raise AssertionError(
            "No checkpoint specified, so no restore ops are available "
            "(save_path=None to Saver.restore)."
        )

    def initialize_or_restore(self, session: Any = None) -> None:
        """Runs the initializers of every variable reachable from the root."""
        session = _session(session)
        live = _ObjectGraph(self._root, self._root._graph)
        inits = [o.initializer for o in live.objects if isinstance(o, Variable)]
        if inits:
            session.run(inits)


class NameBasedSaverStatus(_LoadStatus):
    """What ``Checkpoint.restore`` returns for a ``Saver`` (name-based) checkpoint.

    Variables are looked up by their op names (``w``, ``w/Adam``, ``beta1_power``).
    """

    def __init__(self, root: Checkpoint, save_path: str, reader: Any):
        self._root = root
        self._save_path = save_path
        self._reader = reader
        self._expect_partial = False

    def _variables(self) -> list[Variable]:
        live = _ObjectGraph(self._root, self._root._graph)
        return [o for o in live.objects if isinstance(o, Variable)]

    def assert_consumed(self) -> NameBasedSaverStatus:
        """Every live variable has its name in the checkpoint.

        Raises:
          AssertionError: naming a variable the checkpoint lacks.
        """
        for var in self._variables():
            if not self._reader.has_tensor(var.op.name):
                raise AssertionError(f"Object not restored: {_describe(var)}")
        return self

    assert_existing_objects_matched = assert_consumed
    assert_nontrivial_match = assert_consumed

    def run_restore_ops(self, session: Any = None) -> None:
        """Restores every live variable (``save_counter`` included) by its name.

        Raises:
          NotFoundError: a variable's name is not in the checkpoint (as TF, whose
            restore op fails on the first missing key).
        """
        session = _session(session)
        wanted = {v.op.name: v for v in self._variables()}
        values = _read_values(self._save_path, wanted)
        for key, var in wanted.items():
            _assign(session, var, values[key])

    initialize_or_restore = run_restore_ops


# -- Checkpoint ----------
class Checkpoint:
    """Groups trackable objects, saved and restored together (TF1's ``tf.train.Checkpoint``).

    Args:
      **kwargs: the objects to track, by name: variables, optimizers, lists/tuples/
        dicts of them, nested ``Checkpoint``s, or objects with a
        ``_trackable_children()`` method. Assigning such an object to a public
        attribute later tracks it too (after the keyword arguments, as TF).

    Raises:
      ValueError: a value is not trackable (TF's message).

    .. note::
       As in TF, ``save_counter`` (an int64 variable named ``save_counter``) is
       created on the first ``save`` or ``restore``; ``write`` does not create it.
    """

    def __init__(self, **kwargs: Any):
        self._kwargs: dict[str, Any] = {}
        for k, v in sorted(kwargs.items(), key=lambda item: item[0]):
            if not _is_trackable(v):
                raise ValueError(
                    "`Checkpoint` was expecting a trackable object (an object derived from "
                    f"`Trackable`), got {v}. If you believe this object should be trackable "
                    "(i.e. it is part of the TensorFlow Python API and manages state), please "
                    "open an issue."
                )
            self._kwargs[k] = v
        self._graph = ops.get_default_graph()
        self._save_counter: Variable | None = None
        self._save_assign: Any = None

    def __setattr__(self, name: str, value: Any) -> None:
        # As TF's AutoTrackable: a trackable public attribute becomes a dependency.
        if not name.startswith("_") and "_kwargs" in self.__dict__:
            if _is_trackable(value):
                self._kwargs[name] = value
                return
            self._kwargs.pop(name, None)
        object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        kwargs = self.__dict__.get("_kwargs", {})
        if name in kwargs:
            return kwargs[name]
        raise AttributeError(f"'Checkpoint' object has no attribute {name!r}")

    def _maybe_create_save_counter(self) -> None:
        if self._save_counter is None:
            with self._graph.as_default():
                self._save_counter = Variable(
                    np.int64(0), trainable=False, name="save_counter", dtype=np.int64
                )

    @property
    def save_counter(self) -> Variable:
        """The number of ``save`` calls (an int64 variable, created on first use)."""
        self._maybe_create_save_counter()
        assert self._save_counter is not None  # created just above
        return self._save_counter

    def write(
        self, file_prefix: str, session: Any = None, options: CheckpointOptions | None = None
    ) -> str:
        """Writes the checkpoint at ``file_prefix`` (no numbering, no state file).

        Args:
          file_prefix: the checkpoint's prefix.
          session: default: the default session.
          options: a ``tf.train.CheckpointOptions`` (default None); its write
            callbacks run after the files are written.

        Returns:
          ``file_prefix``.

        Raises:
          FailedPreconditionError: a variable is not initialized (named).
        """
        from jtrain.checkpoint.tensor_bundle import write_tf_checkpoint

        options = CheckpointOptions.check(options)
        session = _session(session)
        file_prefix = os.fspath(file_prefix)
        graph = _ObjectGraph(self, self._graph)
        variables = graph.variables()
        store = session.variable_store
        missing = [v.op.name for v in store.uninitialized(v for _, v in variables)]
        if missing:
            raise errors.FailedPreconditionError(
                None, None, f"Attempting to save uninitialized variables: {missing}"
            )
        # One consistent copy taken under the store's lock; the files are written after.
        host = store.snapshot([v for _, v in variables]).values
        tensors: dict[str, Any] = {k: np.asarray(host[v], dtype=v.dtype) for k, v in variables}
        for key, state in graph.python_states():
            value = state.serialize()
            tensors[key] = np.asarray(value.encode() if isinstance(value, str) else value, object)
        tensors[OBJECT_GRAPH_PROTO_KEY] = np.asarray(
            graph.proto().SerializeToString(), dtype=object
        )
        if os.path.dirname(file_prefix):
            os.makedirs(os.path.dirname(file_prefix), exist_ok=True)
        write_tf_checkpoint(file_prefix, tensors)
        options.run_write_callbacks(file_prefix)
        return file_prefix

    def save(
        self, file_prefix: str, session: Any = None, options: CheckpointOptions | None = None
    ) -> str:
        """Increments ``save_counter``, writes ``file_prefix-<save_counter>``, and names
        it (alone) in the directory's state file, with a relative path as TF.

        Args:
          file_prefix: the prefix before ``-<save_counter>``.
          session: default: the default session.
          options: a ``tf.train.CheckpointOptions`` (default None).

        Returns:
          the checkpoint's prefix.
        """
        session = _session(session)
        if self._save_counter is None:
            session.run(self.save_counter.initializer)
        if self._save_assign is None:
            self._save_assign = self._save_counter.assign_add(np.int64(1))
        number = int(session.run(self._save_assign))
        path = self.write(f"{os.fspath(file_prefix)}-{number}", session=session, options=options)
        cm.update_checkpoint_state(
            os.path.dirname(os.fspath(file_prefix)),
            path,
            all_model_checkpoint_paths=[path],
            save_relative_paths=True,
        )
        return path

    def restore(self, save_path: str | None) -> Any:
        """Returns a status that restores ``save_path`` into the tracked objects.

        Args:
          save_path: a checkpoint prefix (``tf.train.latest_checkpoint`` gives one), or
            None: the status then only initializes.

        Returns:
          ``CheckpointLoadStatus`` (object-based checkpoint), ``NameBasedSaverStatus``
          (a ``Saver`` checkpoint, matched by variable names) or
          ``InitializationOnlyStatus`` (``save_path`` None). Nothing is assigned
          until ``run_restore_ops`` / ``initialize_or_restore`` runs.

        Raises:
          NotFoundError: no checkpoint at ``save_path``.
        """
        if save_path is None:
            self._maybe_create_save_counter()
            return InitializationOnlyStatus(self)
        from jtrain.checkpoint.checkpoint_utils import load_checkpoint
        from jtrain.protos.trackable_object_graph_pb2 import TrackableObjectGraph

        save_path = os.fspath(save_path)
        reader = load_checkpoint(save_path)
        if not reader.has_tensor(OBJECT_GRAPH_PROTO_KEY):
            self._maybe_create_save_counter()
            return NameBasedSaverStatus(self, save_path, reader)
        proto = TrackableObjectGraph()
        proto.ParseFromString(bytes(np.asarray(reader.get_tensor(OBJECT_GRAPH_PROTO_KEY)).item()))
        self._maybe_create_save_counter()
        return CheckpointLoadStatus(self, save_path, reader, proto)


# -- CheckpointManager ----------
class CheckpointManager:
    """Numbered saves of a ``Checkpoint`` in a directory, keeping the newest few.

    TF's ``tf.train.CheckpointManager`` rules: ``save`` writes
    ``DIRECTORY/CHECKPOINT_NAME-N`` (N: ``checkpoint_number``, else
    ``save_counter``), then the state file with relative paths, timestamps and
    ``last_preserved_timestamp``, then deletes checkpoints beyond ``max_to_keep``
    (oldest first) unless ``keep_checkpoint_every_n_hours`` preserves them: one
    whose timestamp is at least that many hours after the last preserved one is
    kept. A new manager adopts the state file's checkpoints younger than its
    ``last_preserved_timestamp``.

    Args:
      checkpoint: the ``Checkpoint`` to save and restore.
      directory: where checkpoints and the state file go.
      max_to_keep: how many to keep (None keeps all).
      keep_checkpoint_every_n_hours: also keep one per this many hours (None: never).
      checkpoint_name: the prefix's base name (default ``ckpt``).
      step_counter: a variable read when ``checkpoint_interval`` is set.
      checkpoint_interval: save only when the step advanced this much.
      init_fn: called by ``restore_or_initialize`` when there is no checkpoint.
      last_checkpoint_step: the step of the last checkpoint, where
        ``checkpoint_interval`` counts from (default None: the first ``save`` saves).
      clock: the time source (``time.time``); tests inject one.

    Raises:
      ValueError: ``max_to_keep`` <= 0, or ``checkpoint_interval`` without
        ``step_counter``.

    .. note::
       Retention is TF's CheckpointManager rule, not ``Saver``'s
       (``jtrain.checkpoint.retention.ManagerRetention``): with ``max_to_keep=None``
       every checkpoint is listed, and preservation counts from
       ``last_preserved_timestamp``. Only checkpoints inside ``directory`` are deleted.
    """

    def __init__(
        self,
        checkpoint: Checkpoint,
        directory: str,
        max_to_keep: int | None,
        keep_checkpoint_every_n_hours: float | None = None,
        checkpoint_name: str = "ckpt",
        step_counter: Any = None,
        checkpoint_interval: int | None = None,
        init_fn: Callable[[], Any] | None = None,
        last_checkpoint_step: int | None = None,
        *,
        clock: Callable[[], float] = time.time,
    ):
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(
                f"Expected a positive integer or `None` for `max_to_keep`, got {max_to_keep}."
            )
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError(
                "`step_counter` should be passed if `checkpoint_interval` is not None."
            )
        self._checkpoint = checkpoint
        self._max_to_keep = max_to_keep
        self._directory = os.fspath(directory)
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._last_checkpoint_step: int | None = last_checkpoint_step
        self._init_fn = init_fn
        self._clock = clock
        self._save_assign: Any = None
        now = clock()
        state = cm.get_checkpoint_state(self._directory)
        if state is None:
            self._latest_checkpoint: str | None = None
            last_preserved = now - 1.0
        else:
            self._latest_checkpoint = state.model_checkpoint_path
            last_preserved = min(state.last_preserved_timestamp, now)
        self._retention = ManagerRetention(
            max_to_keep, keep_checkpoint_every_n_hours, last_preserved
        )
        if state is not None:
            paths = list(state.all_model_checkpoint_paths)
            stamps = list(state.all_model_checkpoint_timestamps) or [last_preserved] * len(paths)
            for path, stamp in zip(paths, stamps, strict=False):
                stamp = min(stamp, now)
                if stamp > last_preserved:
                    self._retention.record(path, stamp)

    @property
    def directory(self) -> str:
        return self._directory

    @property
    def checkpoint(self) -> Checkpoint:
        return self._checkpoint

    @property
    def checkpoint_interval(self) -> int | None:
        return self._checkpoint_interval

    @property
    def latest_checkpoint(self) -> str | None:
        """The newest checkpoint's prefix (None before any)."""
        return self._latest_checkpoint

    @property
    def checkpoints(self) -> list[str]:
        """The managed checkpoints' prefixes, oldest first."""
        return list(self._retention.maybe_delete)

    def _record_state(self) -> None:
        cm.update_checkpoint_state(
            self._directory,
            self._latest_checkpoint,
            all_model_checkpoint_paths=list(self._retention.maybe_delete),
            all_model_checkpoint_timestamps=list(self._retention.maybe_delete.values()),
            last_preserved_timestamp=self._retention.last_preserved,
            save_relative_paths=True,
        )

    def save(
        self,
        checkpoint_number: Any = None,
        check_interval: bool = True,
        options: CheckpointOptions | None = None,
        *,
        session: Any = None,
    ) -> str | None:
        """Saves a numbered checkpoint; returns its prefix (None when the interval
        says not yet).

        Args:
          checkpoint_number: the number in the name: an int, or a variable/tensor
            evaluated in the session; default the incremented ``save_counter``.
          check_interval: honour ``checkpoint_interval``.
          options: a ``tf.train.CheckpointOptions`` (default None).
          session: default: the default session (jtrain's keyword: graph mode).
        """
        session = _session(session)
        if self._checkpoint_interval is not None:
            step = int(session.run(self._step_counter))
            if self._last_checkpoint_step is not None:
                if step == self._last_checkpoint_step:
                    return None
                if check_interval and step < self._last_checkpoint_step + self._checkpoint_interval:
                    return None
            self._last_checkpoint_step = step
        ckpt = self._checkpoint
        if ckpt._save_counter is None:
            session.run(ckpt.save_counter.initializer)
        if self._save_assign is None:
            self._save_assign = ckpt.save_counter.assign_add(np.int64(1))
        counter = int(session.run(self._save_assign))
        if checkpoint_number is None:
            checkpoint_number = counter
        elif not isinstance(checkpoint_number, (int, np.integer)):
            checkpoint_number = int(session.run(checkpoint_number))
        path = ckpt.write(
            f"{self._prefix}-{int(checkpoint_number)}", session=session, options=options
        )
        self._retention.record(path, self._clock())
        self._latest_checkpoint = path
        self._record_state()
        self._retention.sweep(self._directory)
        self._record_state()
        return path

    @property
    def last_checkpoint_step(self) -> int | None:
        """The step counter's value at the last save (None before one, or without
        ``checkpoint_interval``)."""
        return self._last_checkpoint_step

    def sync(self) -> None:
        """Waits for outstanding saves: none, jtrain's saves return when written."""

    def restore_or_initialize(self, *, session: Any = None) -> str | None:
        """Restores the latest checkpoint and returns its path, or calls ``init_fn``
        and returns None.

        .. note::
           TF in graph mode builds the restore ops and leaves them unrun; here they
           run in ``session`` (default: the default session) when there is one.
        """
        if self._latest_checkpoint is not None:
            status = self._checkpoint.restore(self._latest_checkpoint)
            from adapters.v1.client.session import get_default_session

            if session is not None or get_default_session() is not None:
                status.run_restore_ops(session)
            return self._latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None
