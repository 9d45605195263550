"""TF-exact optimizers as optax transformations, one module per TF optimizer.

Each function takes the arguments of the ``tf.compat.v1.train`` optimizer class
it mirrors (same names and defaults, minus ``use_locking`` and ``name``) and
returns an ``optax.GradientTransformation`` whose state fields are TF's slot and
non-slot variable names.

The optimizers whose TF kernels *assign* the variable (``ftrl``,
``proximal_adagrad``, ``proximal_gradient_descent``, ``adagrad_da``) return an
:class:`AssigningTransformation`: its ``update`` is optax's (``new - params``,
which ``optax.apply_updates`` adds back up to one rounding), its ``assign`` the
new value itself. :func:`apply_gradients` takes a step with either kind, with
TF's bits.
"""

from jtrain.optimizers._base import AssigningTransformation, apply_gradients
from jtrain.optimizers.adadelta import AdadeltaState, adadelta
from jtrain.optimizers.adagrad import AdagradState, adagrad
from jtrain.optimizers.adagrad_da import AdagradDAState, adagrad_da
from jtrain.optimizers.adam import AdamState, adam
from jtrain.optimizers.ftrl import FtrlState, ftrl
from jtrain.optimizers.gradient_descent import GradientDescentState, gradient_descent
from jtrain.optimizers.momentum import MomentumState, momentum
from jtrain.optimizers.proximal_adagrad import ProximalAdagradState, proximal_adagrad
from jtrain.optimizers.proximal_gradient_descent import (
    ProximalGradientDescentState,
    proximal_gradient_descent,
)
from jtrain.optimizers.rmsprop import RMSPropState, rmsprop

__all__ = [
    "AssigningTransformation",
    "apply_gradients",
    "GradientDescentState",
    "gradient_descent",
    "MomentumState",
    "momentum",
    "AdagradState",
    "adagrad",
    "AdagradDAState",
    "adagrad_da",
    "AdadeltaState",
    "adadelta",
    "ProximalGradientDescentState",
    "proximal_gradient_descent",
    "AdamState",
    "adam",
    "RMSPropState",
    "rmsprop",
    "FtrlState",
    "ftrl",
    "ProximalAdagradState",
    "proximal_adagrad",
]
