"""``tf.keras`` as TF1 graph-mode scripts use it (legacy Keras 2 in a TF1 graph).

The subset provided, checked live against TF 2.21's ``tf.compat.v1.keras``
(``TF_USE_LEGACY_KERAS=1``) in tests/interop/test_keras_interop.py:

- ``tf.keras.layers``: Dense, Conv1D, Conv2D, Conv3D (Convolution1D/2D/3D),
  Conv1DTranspose, Conv2DTranspose, Conv3DTranspose (Convolution*Transpose),
  SeparableConv1D/2D (SeparableConvolution1D/2D), DepthwiseConv2D,
  MaxPooling1D/2D/3D (MaxPool1D/2D/3D), AveragePooling1D/2D/3D (AvgPool1D/2D/3D),
  GlobalAveragePooling1D/2D/3D, GlobalMaxPooling1D/2D/3D, Flatten, Dropout,
  BatchNormalization, Embedding, Activation, Reshape, Concatenate, Add,
  Multiply, Subtract, Average, Maximum, Minimum, Dot and the functions add,
  subtract, multiply, average, maximum, minimum, concatenate, dot
  (tests/interop/test_keras_layers_more_interop.py), Lambda, Input/InputLayer,
  LeakyReLU, ReLU, ELU, ThresholdedReLU, PReLU, Softmax, LayerNormalization,
  RepeatVector, Permute, Cropping1D/2D/3D, ZeroPadding1D/2D/3D, UpSampling1D/2D/3D
  (nearest), and ``Layer`` to subclass. Called on graph tensors, they name and
  create variables as Keras does (``dense/kernel:0``, resource variables, in
  ``GLOBAL_VARIABLES``/``TRAINABLE_VARIABLES``; nothing in ``UPDATE_OPS`` or
  ``REGULARIZATION_LOSSES``: use ``layer.updates`` and ``layer.losses``);
  ``training`` defaults to ``backend.learning_phase()``.
- ``tf.keras.Sequential``, the functional ``tf.keras.Model(inputs, outputs)`` and
  ``Model`` subclasses, called on tensors (``model(x)``), with ``weights``,
  ``trainable_weights``, ``updates``, ``losses``, ``layers``, ``get_layer``,
  ``get_weights``/``set_weights`` and ``summary()`` (TF's text).
- ``tf.keras.initializers``, ``activations``, ``regularizers`` (l1, l2, l1_l2),
  ``constraints`` (MaxNorm, NonNeg, UnitNorm, MinMaxNorm; tf.train optimizers
  apply them after each update),
  ``losses`` (functions and classes with ``auto``/``sum_over_batch_size``,
  ``sum``, ``none`` reductions), ``backend`` (get_session/set_session,
  learning_phase/set_learning_phase, floatx, epsilon, clear_session,
  placeholder, variable, zeros/ones, int_shape, concatenate, mean, sum, the
  element-wise and reduction helpers, dot, switch, in_train_phase, function,
  update/update_add...), and ``utils.to_categorical``.

- Keras' training loop as TF's v1 engine runs it in a graph
  (tests/interop/test_keras_fit_interop.py): ``Model.compile`` (a ``tf.train``
  optimizer wrapped as ``TFOptimizer``, or a Keras optimizer; losses; metrics,
  ``'accuracy'`` resolved as TF), ``fit``/``evaluate``/``predict`` on NumPy arrays
  (TF's batches, shuffle order, validation split and History numbers), the
  ``*_on_batch`` methods, ``metrics_names``; ``tf.keras.callbacks`` (Callback,
  History, BaseLogger, ProgbarLogger, EarlyStopping, LambdaCallback,
  TerminateOnNaN) and ``tf.keras.metrics``' functions.
- ``tf.keras.optimizers`` (tests/interop/test_keras_optimizers_interop.py): Keras 2's
  legacy SGD, Adam, RMSprop, Adagrad, Adadelta, Adamax, Nadam and Ftrl, the
  ``Optimizer`` base (subclasses with TF update ops too), ``get``/``serialize``/
  ``deserialize``, ``legacy`` and ``schedules``: TF's variable names and bits.
- ``Model.save_weights``/``load_weights`` in TF's object-based checkpoint format
  (tests/interop/test_keras_save_weights_interop.py: TF loads jtrain's files and
  jtrain TF's, the same keys and object graph) and ``tf.keras.callbacks.ModelCheckpoint``.
- Configs and HDF5 (keras/saving.py): every layer's and model's ``get_config``/
  ``from_config``, ``to_json``, ``tf.keras.models.model_from_json``/``model_from_config``,
  ``clone_model``, ``.h5`` weights and whole models (``Model.save``/``save_model``/
  ``load_model``: HDF5 is TF1's default format, the ``keras`` extra's h5py), files
  exchanged with TF both ways (tests/interop/test_keras_model_config_interop.py,
  test_keras_h5_interop.py).

- ``tf.keras.utils.Sequence`` (and Python generators) in ``fit``/``evaluate``/
  ``predict`` and the ``*_generator`` methods, as TF's v1 generator loop
  (tests/interop/test_keras_sequence_fit_interop.py); the rest of ``tf.keras.utils``
  but the enqueuers and TF2-only helpers (tests/interop/test_keras_utils_interop.py:
  ``Progbar``, ``pad_sequences``, ``get_file``, the image helpers, custom objects and
  ``serialize_keras_object``...) and ``tf.keras.preprocessing``'s ``sequence``,
  ``text`` and ``image`` helpers (``ImageDataGenerator``'s ``flow`` and
  ``flow_from_directory``, not ``flow_from_dataframe``:
  tests/interop/test_keras_preprocessing_interop.py).

Not provided: the SavedModel and ``.keras`` formats (``NotImplementedError``). The
recurrent layers (``LSTM``, ``GRU``, ``SimpleRNN``, their cells, ``RNN``,
``Bidirectional``, ``TimeDistributed``: keras/recurrent.py, wrappers.py) take a mask
only as their explicit ``mask=`` argument (no ``Masking`` layer, no mask propagation);
the other Keras namespaces are absent.
"""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.keras import (
    activations,
    backend,
    callbacks,
    constraints,
    initializers,
    layers,
    losses,
    metrics,
    models,
    optimizers,
    preprocessing,
    regularizers,
    utils,
)
from adapters.v1.keras.layers import Input
from adapters.v1.keras.models import Model, Sequential

__all__ = [
    "Input",
    "Model",
    "Sequential",
    "activations",
    "backend",
    "callbacks",
    "constraints",
    "initializers",
    "layers",
    "losses",
    "metrics",
    "models",
    "optimizers",
    "preprocessing",
    "regularizers",
    "utils",
]

__getattr__ = missing_name_getattr("tf.keras", globals())
