"""``tf.compat.v1.data.Iterator``: a dataset's elements, one ``get_next`` run at a time.

As in TF1, an iterator's state belongs to the session: each session holds its own
position (``data_flow_ops.session_state``). ``get_next()`` is a host operation
(``Graph.create_op(host="pre")``): it takes the next element from the session's
Python pipeline before the step's XLA program runs, and its values enter the
program as feeds do. At the end it raises ``tf.errors.OutOfRangeError``, so the
classic loop works::

    while True:
        try:
            sess.run(train_op)
        except tf.errors.OutOfRangeError:
            break

An initializable iterator's ``initializer`` (a host op too) starts the pipeline
again, reading the placeholders the dataset uses from that run's ``feed_dict``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator as PyIterator
from typing import Any

import numpy as np

from adapters.v1.data import structure
from adapters.v1.data.dataset_ops import DatasetV1, Element, Run
from adapters.v1.data.host_graph import HostGraph
from adapters.v1.data.structure import Spec
from adapters.v1.framework import ops
from adapters.v1.framework.tensor_shape import as_shape
from adapters.v1.ops.data_flow_ops import session_state
from jtrain import errors

__all__ = ["Iterator"]


class _State:
    """One session's position in an iterator: the running pipeline, or None."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.elements: PyIterator[Element] | None = None


class _Pipeline:
    """What starting a dataset needs: the graph tensors it reads, evaluated on the host."""

    def __init__(self, dataset: DatasetV1):
        self.dataset = dataset
        captures: list[ops.Tensor] = []
        functions: list[HostGraph] = []
        for d in dataset._all():
            captures.extend(t for t in d._captures() if t not in captures)
            functions.extend(d._functions())
        self.captures = HostGraph(captures, [], "a tf.data dataset") if captures else None
        found = [
            *(self.captures.placeholders if self.captures else []),
            *(t for f in functions for t in f.placeholders),
        ]
        # The placeholders the pipeline reads: fed with the iterator's initializer.
        self.placeholders = list(dict.fromkeys(found))

    def start(self, session: Any, fed: dict[ops.Tensor, Any]) -> PyIterator[Element]:
        """The dataset's elements in ``session``, its placeholders' values ``fed``."""
        known = dict(fed)
        if self.captures is not None:
            values = self.captures(session, [], known, {})
            known.update(zip(self.captures.outputs, values, strict=True))
        return self.dataset._elements(Run(session, known))


def _user_value(value: np.ndarray) -> Any:
    """A component as a fetch gives it: a string scalar is ``bytes``, as TF's."""
    return value.item() if value.dtype.kind == "O" and value.ndim == 0 else value


class Iterator(structure.Structured):
    """An iterator over a dataset's elements (``tf.compat.v1.data.Iterator``).

    Make one with ``dataset.make_one_shot_iterator()``,
    ``dataset.make_initializable_iterator()`` or ``Iterator.from_structure`` (then
    ``make_initializer(dataset)`` for each dataset it reads).
    """

    def __init__(self, element: Any, one_shot: _Pipeline | None = None):
        self._structure = element
        self._graph = ops.get_default_graph()
        self._one_shot_pipeline = one_shot
        self._initializer: ops.Operation | None = None

    # -- making iterators ----------------------------------------------------------------
    @classmethod
    def _one_shot(cls, dataset: DatasetV1) -> Iterator:
        pipeline = _Pipeline(dataset)
        if pipeline.placeholders:
            p = pipeline.placeholders[0]
            raise ValueError(
                f"Cannot capture a placeholder (name:{p.op.name}, type:Placeholder) by value: "
                "use make_initializable_iterator() and feed it when running its initializer."
            )
        return cls(dataset._structure, one_shot=pipeline)

    @classmethod
    def _initializable(cls, dataset: DatasetV1) -> Iterator:
        iterator = cls(dataset._structure)
        iterator._initializer = iterator.make_initializer(dataset)
        return iterator

    @staticmethod
    def from_structure(
        output_types: Any,
        output_shapes: Any = None,
        shared_name: str | None = None,
        output_classes: Any = None,
    ) -> Iterator:
        """An iterator not bound to a dataset: ``make_initializer(dataset)`` binds one.

        Args:
          output_types: the elements' ``DType``s, nested as the elements.
          output_shapes: their shapes (default: unknown), nested likewise.
          shared_name: accepted, unused (one process).
          output_classes: accepted (``tf.Tensor`` components only).

        Raises:
          TypeError: ``output_shapes`` nested differently from ``output_types``.
        """
        if output_shapes is None:
            output_shapes = structure.map_structure(lambda _: None, output_types)
        if not structure.same_structure(output_types, output_shapes):
            raise TypeError("output_shapes must have the structure of output_types")
        element = structure.map_structure(
            lambda t, s: Spec.of(as_shape(s), t), output_types, output_shapes
        )
        return Iterator(element)

    def make_initializer(self, dataset: DatasetV1, name: str | None = None) -> ops.Operation:
        """An op (re)starting this iterator on ``dataset`` in the session that runs it.

        Raises:
          TypeError: ``dataset``'s structure or types differ from the iterator's.
          ValueError: ``dataset``'s shapes are incompatible with the iterator's.
        """
        if not structure.same_structure(self._structure, dataset._structure):
            raise TypeError(
                f"Expected output structure {self.output_types} but got dataset with "
                f"structure {dataset.output_types}."
            )
        if self.output_types != dataset.output_types:
            raise TypeError(
                f"Expected output types {self.output_types} but got dataset with output types "
                f"{dataset.output_types}."
            )
        for mine, theirs in zip(
            structure.flatten(self.output_shapes),
            structure.flatten(dataset.output_shapes),
            strict=True,
        ):
            if not mine.is_compatible_with(theirs):
                raise TypeError(
                    f"Expected output shapes compatible with {self.output_shapes} but got "
                    f"dataset with output shapes {dataset.output_shapes}."
                )
        pipeline = _Pipeline(dataset)
        iterator = self

        def compute(session: Any, *fed: Any) -> tuple[()]:
            state = iterator._state(session)
            elements = pipeline.start(session, dict(zip(pipeline.placeholders, fed, strict=True)))
            with state.lock:
                state.elements = elements
            return ()

        return self._graph.create_op(
            "MakeIterator",
            name or "MakeIterator",
            inputs=pipeline.placeholders,
            compute=compute,
            host="pre",
        )

    # -- using them ----------------------------------------------------------------------
    @property
    def initializer(self) -> ops.Operation:
        """The op (re)starting an initializable iterator.

        Raises:
          ValueError: a one-shot iterator, or one from ``from_structure`` (use
            ``make_initializer``).
        """
        if self._initializer is None:
            raise ValueError("Iterator does not have an initializer.")
        return self._initializer

    def _state(self, session: Any) -> _State:
        state: _State = session_state(session, self, _State)
        return state

    def get_next(self, name: str | None = None) -> Any:
        """Tensors of the next element, nested as the elements, with their static shapes.

        Each run of an op reading them takes one element. Raises at run time
        ``OutOfRangeError`` at the end of the dataset, and ``FailedPreconditionError``
        for an initializable iterator not yet initialized in the session.
        """
        specs: list[Spec] = structure.flatten(self._structure)
        iterator = self

        def compute(session: Any) -> tuple[Any, ...]:
            state = iterator._state(session)
            with state.lock:
                if state.elements is None:
                    if iterator._one_shot_pipeline is None:
                        raise errors.FailedPreconditionError(
                            None,
                            None,
                            "GetNext() failed because the iterator has not been initialized. "
                            "Ensure that you have run the initializer operation for this "
                            "iterator before getting the next element.",
                        )
                    state.elements = iterator._one_shot_pipeline.start(session, {})
                try:
                    element = next(state.elements)
                except StopIteration:
                    raise errors.OutOfRangeError(None, None, "End of sequence") from None
            return tuple(_user_value(v) for v in element)

        op = self._graph.create_op(
            "IteratorGetNext",
            name or "IteratorGetNext",
            compute=compute,
            output_specs=[(s.shape, s.dtype) for s in specs],
            host="pre",
        )
        return structure.pack(self._structure, list(op.outputs))

    def string_handle(self, name: str | None = None) -> Any:
        """Not in jtrain: feedable iterators (``from_string_handle``) are absent.

        Raises:
          NotImplementedError: always; use ``from_structure`` and ``make_initializer``.
        """
        raise NotImplementedError(
            "Iterator.string_handle (feedable iterators) is not in adapters.v1; use "
            "Iterator.from_structure(...) and run make_initializer(dataset) to switch datasets"
        )

    @staticmethod
    def from_string_handle(
        string_handle: Any, output_types: Any, output_shapes: Any = None, output_classes: Any = None
    ) -> Iterator:
        """Not in jtrain (see ``string_handle``).

        Raises:
          NotImplementedError: always.
        """
        raise NotImplementedError(
            "Iterator.from_string_handle (feedable iterators) is not in adapters.v1; use "
            "Iterator.from_structure(...) and run make_initializer(dataset) to switch datasets"
        )


def make_one_shot_iterator(dataset: DatasetV1) -> Iterator:
    """``dataset.make_one_shot_iterator()`` (``tf.compat.v1.data.make_one_shot_iterator``)."""
    return dataset.make_one_shot_iterator()


def make_initializable_iterator(dataset: DatasetV1, shared_name: str | None = None) -> Iterator:
    """``dataset.make_initializable_iterator()``
    (``tf.compat.v1.data.make_initializable_iterator``)."""
    return dataset.make_initializable_iterator(shared_name)


def get_output_types(dataset_or_iterator: Any) -> Any:
    """The ``output_types`` of a dataset or iterator."""
    return dataset_or_iterator.output_types


def get_output_shapes(dataset_or_iterator: Any) -> Any:
    """The ``output_shapes`` of a dataset or iterator."""
    return dataset_or_iterator.output_shapes


def get_output_classes(dataset_or_iterator: Any) -> Any:
    """The ``output_classes`` of a dataset or iterator."""
    return dataset_or_iterator.output_classes
