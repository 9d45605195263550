"""``tf.random.experimental`` (TF 2.21's ``tf.compat.v1.random.experimental``): the
stateless seed functions under their experimental names.

``stateless_split``/``stateless_fold_in`` are ``tf.random.split``/``tf.random.fold_in``
(TF's values, ``ops/stateless_random_ops.py``). ``Generator``,
``get_global_generator``/``set_global_generator``, ``index_shuffle`` and
``stateless_shuffle`` are not provided (their ``AttributeError`` says so).
"""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.ops.stateless_random_ops import Algorithm, create_rng_state
from adapters.v1.ops.stateless_random_ops import fold_in as stateless_fold_in
from adapters.v1.ops.stateless_random_ops import split as stateless_split

__all__ = ["Algorithm", "create_rng_state", "stateless_fold_in", "stateless_split"]

__getattr__ = missing_name_getattr("tf.random.experimental", globals())
