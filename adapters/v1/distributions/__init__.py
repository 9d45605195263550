"""``tf.distributions`` (TF 2.21's ``tf.compat.v1.distributions``): TF1's probability
distributions, their KL divergences and the ``RegisterKL`` registry.

Each distribution builds its math from TF's compat ops (``tf.math``/``tf.nn``), so
values, gradients, dtypes (float32 and float64 exactly) and static shapes are TF's;
samples are drawn by the compat random ops (TF's shapes and laws, JAX's draws).

TF 2.21 also has ``DirichletMultinomial`` and ``Multinomial``; they are not here
yet and raise an ``AttributeError`` saying so.
"""

from typing import Any

from adapters.v1._missing import missing_attribute_error
from adapters.v1.distributions.bernoulli import Bernoulli
from adapters.v1.distributions.beta import Beta
from adapters.v1.distributions.categorical import Categorical
from adapters.v1.distributions.dirichlet import Dirichlet
from adapters.v1.distributions.distribution import (
    FULLY_REPARAMETERIZED,
    NOT_REPARAMETERIZED,
    Distribution,
    ReparameterizationType,
)
from adapters.v1.distributions.exponential import Exponential
from adapters.v1.distributions.gamma import Gamma
from adapters.v1.distributions.kullback_leibler import RegisterKL, kl_divergence
from adapters.v1.distributions.laplace import Laplace
from adapters.v1.distributions.normal import Normal
from adapters.v1.distributions.student_t import StudentT
from adapters.v1.distributions.uniform import Uniform

__all__ = [
    "Bernoulli",
    "Beta",
    "Categorical",
    "Dirichlet",
    "Distribution",
    "Exponential",
    "FULLY_REPARAMETERIZED",
    "Gamma",
    "Laplace",
    "NOT_REPARAMETERIZED",
    "Normal",
    "RegisterKL",
    "ReparameterizationType",
    "StudentT",
    "Uniform",
    "kl_divergence",
]

# TF 2.21's tf.compat.v1.distributions names that jtrain does not have yet.
_NOT_YET = (
    "DirichletMultinomial",
    "Multinomial",
)


def __getattr__(name: str) -> Any:  # noqa: N807 (module protocol)
    if name in _NOT_YET:
        raise AttributeError(
            f"tf.distributions.{name} is not in adapters.v1 yet (it has "
            f"{', '.join(__all__)}); subclass tf.distributions.Distribution with its "
            "log_prob/sample written with tf.math ops, or write it in jax.numpy inside "
            "tf.jax_function"
        )
    raise missing_attribute_error("tf.distributions", name, globals())
