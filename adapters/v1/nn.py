"""``tf.nn``: the neural-network ops of TF's op table (``framework/op_def.py``) named ``nn.*``."""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.framework.op_def import tf_names
from adapters.v1.ops import (  # noqa: F401  (fill the table)
    array_ops,
    bincount_ops,
    confusion_matrix,
    math_ops,
    nn_conv,
    nn_norm,
    nn_ops,
    nn_pool,
    rnn_cell,  # noqa: F401  (tf.nn.rnn_cell)
)
from adapters.v1.ops.candidate_sampling_ops import (  # noqa: F401
    all_candidate_sampler,
    compute_accidental_hits,
    fixed_unigram_candidate_sampler,
    learned_unigram_candidate_sampler,
    log_uniform_candidate_sampler,
    uniform_candidate_sampler,
)
from adapters.v1.ops.ctc_ops import (  # noqa: F401
    collapse_repeated,
    ctc_beam_search_decoder,
    ctc_beam_search_decoder_v2,
    ctc_greedy_decoder,
    ctc_loss,
    ctc_loss_v2,
    ctc_unique_labels,
)
from adapters.v1.ops.dilation_ops import dilation2d, erosion2d  # noqa: F401
from adapters.v1.ops.embedding_ops import (  # noqa: F401
    embedding_lookup,
    embedding_lookup_sparse,
    safe_embedding_lookup_sparse,
)
from adapters.v1.ops.nn_dropout import dropout  # noqa: F401  (in __all__)
from adapters.v1.ops.nn_impl import nce_loss, sampled_softmax_loss  # noqa: F401
from adapters.v1.ops.nn_with_space_to_batch import with_space_to_batch  # noqa: F401
from adapters.v1.ops.rnn import (  # noqa: F401
    bidirectional_dynamic_rnn,
    dynamic_rnn,
    raw_rnn,
    static_bidirectional_rnn,
    static_rnn,
)

globals().update(tf_names("nn"))
__all__ = sorted(
    [
        *tf_names("nn"),
        "all_candidate_sampler",
        "bidirectional_dynamic_rnn",
        "collapse_repeated",
        "compute_accidental_hits",
        "ctc_beam_search_decoder",
        "ctc_beam_search_decoder_v2",
        "ctc_greedy_decoder",
        "ctc_loss",
        "ctc_loss_v2",
        "ctc_unique_labels",
        "dropout",
        "erosion2d",
        "dynamic_rnn",
        "raw_rnn",
        "embedding_lookup",
        "embedding_lookup_sparse",
        "fixed_unigram_candidate_sampler",
        "learned_unigram_candidate_sampler",
        "log_uniform_candidate_sampler",
        "nce_loss",
        "rnn_cell",
        "safe_embedding_lookup_sparse",
        "sampled_softmax_loss",
        "static_bidirectional_rnn",
        "static_rnn",
        "uniform_candidate_sampler",
        "with_space_to_batch",
    ]
)

__getattr__ = missing_name_getattr("tf.nn", globals())
