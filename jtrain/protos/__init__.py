"""Protocol buffers of TF's file formats, compiled into the committed ``*_pb2`` modules.

Each ``<name>.proto`` here copies the field numbers and types of TF's message of the
same name, so the wire format is TF's: ``feature``/``example`` (``tf.train.Example``),
``event``/``summary``/``tensor`` (event files), ``saver``, ``queue_runner``
(with ``error_codes``), ``cluster``,
``tensorflow_server``/``config``/``device_filters`` (``ServerDef``; ``config``'s
``RunMetadata`` with ``step_stats``, ``cost_graph``, ``tensor_description`` and
``allocation_description``), the graph files
(``graph``, ``node_def``, ``attr_value``, ``variable``, ``meta_graph``; ``saved_model``
for a SavedModel's ``saved_model.pb``), and the checkpoint
formats (``tensor_bundle``, ``tensor_shape``, ``tensor_slice``, ``types``,
``versions``, ``checkpoint_state``).

The proto package is ``jtrain.protos``, not ``tensorflow``: TF registers its own
``tensorflow.*`` names in protobuf's default descriptor pool, and a second definition
of one would break ``import tensorflow`` in the same process (the wire format does not
depend on the package). Regenerate the modules with ``nox -s protos``.
"""
