"""``tf.random`` (TF 2.21's ``tf.compat.v1.random``): stateful random ops and seeds.

The ops live in ``ops/random_ops.py`` (how a random op keeps fresh values on every
``Session.run`` and reproducible sequences is described there).
"""

from adapters.v1 import random_experimental as experimental  # noqa: F401
from adapters.v1._missing import missing_name_getattr
from adapters.v1.ops.candidate_sampling_ops import (
    all_candidate_sampler,
    fixed_unigram_candidate_sampler,
    learned_unigram_candidate_sampler,
    log_uniform_candidate_sampler,
    uniform_candidate_sampler,
)
from adapters.v1.ops.init_ops import set_random_seed
from adapters.v1.ops.random_ops import (
    categorical,
    get_seed,
    multinomial,
    stateless_truncated_normal,
    truncated_normal,
)
from adapters.v1.ops.random_ops import random_gamma as gamma
from adapters.v1.ops.random_ops import random_normal as normal
from adapters.v1.ops.random_ops import random_poisson as poisson
from adapters.v1.ops.random_ops import random_shuffle as shuffle
from adapters.v1.ops.random_ops import random_uniform as uniform
from adapters.v1.ops.random_ops import stateless_random_normal as stateless_normal
from adapters.v1.ops.random_ops import stateless_random_uniform as stateless_uniform
from adapters.v1.ops.stateless_random_ops import (
    Algorithm,
    create_rng_state,
    fold_in,
    split,
    stateless_categorical,
    stateless_multinomial,
    stateless_parameterized_truncated_normal,
)
from adapters.v1.ops.stateless_random_ops import stateless_random_binomial as stateless_binomial
from adapters.v1.ops.stateless_random_ops import stateless_random_gamma as stateless_gamma
from adapters.v1.ops.stateless_random_ops import stateless_random_poisson as stateless_poisson

__all__ = [
    "Algorithm",
    "all_candidate_sampler",
    "categorical",
    "create_rng_state",
    "experimental",
    "fixed_unigram_candidate_sampler",
    "fold_in",
    "gamma",
    "get_seed",
    "learned_unigram_candidate_sampler",
    "log_uniform_candidate_sampler",
    "multinomial",
    "normal",
    "poisson",
    "set_random_seed",
    "shuffle",
    "split",
    "stateless_binomial",
    "stateless_categorical",
    "stateless_gamma",
    "stateless_multinomial",
    "stateless_normal",
    "stateless_parameterized_truncated_normal",
    "stateless_poisson",
    "stateless_truncated_normal",
    "stateless_uniform",
    "truncated_normal",
    "uniform",
    "uniform_candidate_sampler",
]

__getattr__ = missing_name_getattr("tf.random", globals())
