"""The coverage table: every TF1 training name, its jtrain name and its status.

Two steps, each re-run by later work:

``python tools/coverage.py names``
    Under TensorFlow (``nox -s coverage_names``): writes ``docs/tf_names.txt``,
    every public name of ``tf.compat.v1.train``, ``.train.experimental``,
    ``.train.queue_runner``, ``.summary``, ``.errors`` and of ``tf.compat.v1``
    itself, from the installed TensorFlow (the project's oracle version).

``python tools/coverage.py table``
    Under jtrain (``nox -s coverage``): writes ``docs/coverage.md`` from that list,
    by introspecting ``adapters.v1`` and ``jtrain``; statuses of names that exist
    but are incomplete come from ``GAPS`` below, the one hand-kept part.

``tests/test_coverage_table.py`` checks that the committed table is what the code
gives today, and, where TensorFlow's docs are beside the checkout
(``../shared/tf-docs``), that the name list holds every name of their
``tf.compat.v1.train`` index.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import inspect
import pathlib
import re
import sys
import types

ROOT = pathlib.Path(__file__).resolve().parents[1]
NAMES_FILE = ROOT / "docs" / "tf_names.txt"
TABLE_FILE = ROOT / "docs" / "coverage.md"
TF_DOCS_TRAIN_INDEX = "000_a3ec2bd6868f4605.txt"  # the tf.compat.v1.train module index

# TF module (under tf.compat.v1) -> the compat layer's module path; "" is tf.compat.v1.
MODULES = {
    "train": "adapters.v1.train",
    "train.experimental": "adapters.v1.train.experimental",
    "train.queue_runner": "adapters.v1.train.queue_runner",
    "summary": "adapters.v1.summary",
    "errors": "adapters.v1.errors",
    # TF's op library (the namespaces TF1 model code uses).
    "math": "adapters.v1.math",
    "linalg": "adapters.v1.linalg",
    "nn": "adapters.v1.nn",
    "losses": "adapters.v1.losses",
    "layers": "adapters.v1.layers",
    "random": "adapters.v1.random",
    "image": "adapters.v1.image",
    "metrics": "adapters.v1.metrics",
    "initializers": "adapters.v1.initializers",
    "tpu": "adapters.v1.tpu",
    "data": "adapters.v1.data",
    "": "adapters.v1",
}

# Ops whose output sizes depend on values computed in the step (framework/data_sizes.py).
_SIZED = (
    "computed from the step's values: one more launch and host fetch a step, one program "
    "per output size (64 kept); not inside `tf.while_loop`/`tf.cond` bodies or `tf.data` "
    "functions, nor in data-parallel or multi-process steps"
)

# Names that exist but do not do everything TF's do: (TF name) -> what is missing.
# Keep each entry to what a user must know; the docstring of the name says more.
GAPS: dict[str, str] = {
    "function": "no AutoGraph: a Python `if`/`for`/`while` on a tensor raises TF's `TypeError` "
    "(use `tf.cond`/`tf.while_loop`); the traced ops also stay in the graph's op list",
    "GradientTape": "`jacobian`/`batch_jacobian` need a target of fully known static shape",
    "train.Saver": "no sharded savers (`sharded=True`), no V1 format (`write_version=1`); "
    "the `.meta` carries the computation as `jax.export` StableHLO beside TF's fields",
    "train.export_meta_graph": "`save_debug_info=True` raises `NotImplementedError` (jtrain "
    "ops record no creation stack); no `meta_info_def.stripped_op_list`; nodes carry their "
    "computation (`_jtrain_fn`, `jax.export`) beside TF's fields",
    "import_graph_def": "a `Graph.as_graph_def()` carries no computation: its `JaxFunction`/"
    "`Gradients`/`ApplyGradients` nodes raise UnimplementedError when run (a jtrain meta "
    "graph's `graph_def` runs); TF's op types as `train.import_meta_graph`",
    "train.import_meta_graph": "jtrain `.meta`: summaries, queues and queue runners, "
    "and random ops (same seeds, same values) run after import, and `tf.gradients` (a new "
    "optimizer's `minimize`) goes through the imported nodes (but a loop of a computed "
    "length); `py_func` and other host "
    "ops (readers, parsing ops, input producers' file lists) raise UnimplementedError naming "
    "them. TF `.meta`: "
    "variables, collections and the SaverDef import (restore works); placeholders, "
    "constants, ref and resource variables, the op library's op types and the kernels "
    "of `framework/graph_kernels.py` run: TF's gradient kernels, shape arithmetic, "
    "Scatter*, every (Resource)(Sparse)Apply* kernel of TF1's optimizers as jtrain's "
    "optimizers (Unique pads to a static length), stateful random ops "
    "(jax.random's values, not TF's bits) and stateless ones (TF's values); TF convnets "
    "and MLPs with every TF1 "
    "optimizer, batch norm, TF's activations, gradient clipping, a decayed learning rate "
    "and resource variables train with TF's losses. Not run "
    "(UnimplementedError listing them): SaveV2/RestoreV2 (use the returned Saver), "
    "control flow v1 (Switch/Merge/Enter/Exit), ops with run-time shapes",
    "train.ProfilerHook": "writes a `jax.profiler` trace instead of a Chrome timeline; "
    "`show_dataflow`/`show_memory` are ignored",
    "train.init_from_checkpoint": "no partitioned variables",
    "train.warm_start": "no partitioned variables",
    "summary.FileWriter": "no `session=` (TF2 summary writers)",
    "Variable": "no `variable_def=` (use `tf.train.import_meta_graph`); "
    "`validate_shape=False` is not supported",
    "train.Server": "workers are `jax.distributed` processes holding every variable; ps "
    "tasks hold nothing (`join()` returns when the workers end); a failed worker needs a "
    "whole-job restart; `join()` on a worker is unimplemented",
    "train.SyncReplicasOptimizer": "an all-reduce over all workers: no backup workers "
    "(`replicas_to_aggregate < total_num_replicas` aggregates all, with a warning)",
    "train.replica_device_setter": "device names are recorded on ops only: every worker "
    "holds every variable",
    "tpu.shard": "runs over the local devices (`tf.jax_data_parallel`'s mesh); no "
    "`infeed_queue`/`device_assignment`; the computation may not assign variables",
    "tpu.batch_parallel": "as `tpu.shard`",
    "tpu.XLAOptions": "accepted, no effect: always SPMD, static shapes",
    "tpu.shutdown_system": "a no-op: there is no TPU system on CPUs and GPUs",
    "train.experimental.enable_mixed_precision_graph_rewrite": "the rewrite computes TF's "
    "allowlisted ops (matmul, convolutions) in float16 on GPU, bfloat16 on CPU, casting back "
    "to float32 after each (TF keeps the elementwise ops between them in float16 too)",
    **{
        f"train.experimental.{name}": "saving with a sharding callback raises "
        "`NotImplementedError` (jtrain writes one shard)"
        for name in ("MaxShardSizePolicy", "ShardByTaskPolicy", "ShardingCallback")
    },
    "train.CheckpointOptions": "`experimental_io_device` has no effect, `enable_async` saves "
    "synchronously; `experimental_skip_slot_variables` and sharding callbacks raise "
    "`NotImplementedError`",
    "train.do_quantize_training_on_graphdef": "raises `NotImplementedError` saying what to "
    "use (TF's deprecated fake-quantization GraphDef rewriter)",
    "summary.initialize": "raises TF's `RuntimeError` for a program without a TF2 summary "
    "writer: jtrain has none (use `tf.summary.FileWriter`)",
    "enable_v2_behavior": "raises `NotImplementedError`: TF1 graph mode only (eager code is JAX)",
    "enable_eager_execution": "raises `NotImplementedError`: TF1 graph mode only (eager "
    "code is JAX)",
    "nn.depthwise_conv2d_native": "with `dilations`, the filter's gradient is the true "
    "derivative (TF 2.21's CPU kernel ignores the dilation there: measured)",
    "nn.depthwise_conv2d": "a `rate` above 1 with strides above 1 raises `ValueError` (TF "
    "warns and computes a strided space-to-batch result)",
    "nn.separable_conv2d": "a `rate` above 1 with strides above 1 raises `ValueError` (TF "
    "warns and computes a strided space-to-batch result)",
    "nn.pool": "no `dilation_rate` above 1",
    "nn.rnn_cell": "no `DropoutWrapper(variational_recurrent=True)`; `zero_state(batch_size)` "
    "takes a number, a constant, a size computed from shapes (`tf.shape(x)[0]`) or a fed "
    "integer placeholder (one program per fed value); `LSTMCell`'s deprecated "
    "`num_unit_shards`/`num_proj_shards` raise",
    "random": "TF's Philox values for `uniform` (every dtype, int too), `normal`, "
    "`truncated_normal`, dropout, `shuffle`, `multinomial`/`categorical` (one-thread "
    "values), the random initializers and the stateless ops (float32 "
    "normals: ~99% bit-identical, others within 2 ulps, as TF's own depend on the libm); "
    "`gamma`, `poisson` and the candidate samplers "
    "draw from `jax.random` (TF's distributions and seed rules); no Generator, "
    "fold_in/split, stateless_binomial/gamma/poisson/multinomial/"
    "parameterized_truncated_normal",
    "random.stateless_uniform": "TF's values for `alg` `auto_select`/`philox`; "
    "`threefry` draws from `jax.random`; no full-range integers (`minval=maxval=None`)",
    **{
        f"random.stateless_{name}": "TF's values for `alg` `auto_select`/`philox`; "
        "`threefry` draws from `jax.random`"
        for name in ("normal", "truncated_normal")
    },
    # array and linear-algebra ops (adapters/v1/ops/array_ops.py, linalg_ops.py)
    "boolean_mask": f"a `mask` {_SIZED}",
    "dynamic_partition": f"`partitions` {_SIZED}",
    **{name: f"`x` {_SIZED}" for name in ("unique", "unique_with_counts")},
    "sequence_mask": f"`maxlen=None` with `lengths` {_SIZED}",
    "dynamic_stitch": "constant `indices` only (the output's length is their maximum + 1)",
    **{name: f"with neither `x` nor `y`, a `condition` {_SIZED}" for name in ("where", "where_v2")},
    **{
        name: "one diagonal (an int `k`); no bands (`k=[low, high]`)"
        for name in (
            "matrix_diag",
            "matrix_diag_part",
            "matrix_set_diag",
            "linalg.diag",
            "linalg.diag_part",
            "linalg.set_diag",
        )
    },
    **{
        name: "singular vectors may differ from TF's by sign (each is unique up to sign); "
        "no gradient with `full_matrices=True`"
        for name in ("svd", "linalg.svd")
    },
    **{
        name: "eigenvectors may differ from TF's by sign (each is unique up to sign)"
        for name in ("self_adjoint_eig", "linalg.eigh")
    },
    **{
        name: "`fast=False` with an `l2_regularizer` raises `NotImplementedError`"
        for name in ("matrix_solve_ls", "linalg.lstsq")
    },
    **{
        name: "an out-of-range index raises TF's error after the step's program ran (its "
        "writes committed)"
        for name in (
            "batch_gather",
            "scatter_nd",
            "tensor_scatter_nd_update",
            "tensor_scatter_nd_add",
            "tensor_scatter_nd_sub",
            "tensor_scatter_nd_min",
            "tensor_scatter_nd_max",
            "tensor_scatter_update",
            "tensor_scatter_add",
            "tensor_scatter_sub",
        )
    },
    "get_static_value": "constants and `shape`/`size`/`rank` of static shapes; "
    "`partial=True` gives `None` for partly known shapes",
    "linalg": "the linear-algebra ops of the op table (see its names in this table's rows); "
    "no `LinearOperator` classes",
    "math": "the math ops of the op table only (see its names in this table's rows)",
    **{
        name: f"a size (`max(labels, predictions) + 1` without `num_classes`) {_SIZED}"
        for name in ("confusion_matrix", "math.confusion_matrix")
    },
    **{
        name: f"a length (`max(arr) + 1` without `minlength >= maxlength`) {_SIZED}"
        for name in ("bincount", "math.bincount")
    },
    "math.special": "no bessel_j0/j1, bessel_y0/y1, bessel_k0/k0e/k1/k1e (no JAX "
    "implementations to build on)",
    **{
        f"nn.{name}": "one replica: the step sees the whole batch (no `tf.distribute` strategy)"
        for name in ("compute_average_loss", "scale_regularization_loss")
    },
    "layers": "no `tf.layers.experimental`",
    **{
        f"layers.{name}": "no `renorm`, `virtual_batch_size` or `adjustment`; one normalized axis"
        for name in ("batch_normalization", "BatchNormalization")
    },
    "gather": "the gradient is an `IndexedSlices` for axis 0 gathers of ids of static "
    "shape; an out-of-range index (and TF's run-time refusals of `batch_dims`) raises TF's "
    "error after the step's program ran (its writes committed)",
    "nn.embedding_lookup": "an out-of-range id raises TF's error after the step's program "
    "ran; a partition's gradient `IndexedSlices` has a row per id (ids of other partitions: zero "
    "rows at index = the partition's row count) where TF's has the partition's ids only",
    "nn.embedding_lookup_sparse": "needs `sp_ids`' dense shape and value count known when "
    "the graph is built; the result has `dense_shape[0]` rows (TF's: the last row with ids "
    "+ 1); the gradient has a row per id (TF's: per unique id)",
    "nn.safe_embedding_lookup_sparse": "`sparse_ids` of rank 2 only, with its dense shape "
    "and value count known when the graph is built",
    "IndexedSlices": "`dense_shape` must be known when the graph is built to convert one to a "
    "tensor; ops other than the optimizers and the `clip_by_*` functions densify it",
    "gather_nd": "an out-of-range index row raises TF's error after the step's program ran "
    "(its writes committed); with `batch_dims`, indices of unknown batch size leave the "
    "static batch dimensions unknown where TF's take `params`' known ones (values as "
    "TF's); indices of unknown rank are refused when the graph is built",
    "matmul": "no `output_type`",
    "assign": "no `validate_shape=False` (variables have static shapes)",
    **{
        f"metrics.{name}": "dense labels only (SparseTensor labels raise NotImplementedError)"
        for name in (
            "precision_at_k",
            "recall_at_k",
            "precision_at_top_k",
            "recall_at_top_k",
            "sparse_precision_at_k",
            "average_precision_at_k",
            "sparse_average_precision_at_k",
        )
    },
    **{
        name: "shape/axis arguments must be known when the graph is built (Python values "
        "or constants)"
        for name in (
            "reshape",
            "tile",
            "pad",
            "slice",
            "strided_slice",
            "fill",
            "zeros",
            "ones",
            "one_hot",
            "split",
            "range",
        )
    },
    **{f"segment_{op}": f"`segment_ids` {_SIZED}" for op in ("sum", "mean", "max", "min", "prod")},
    # tf.image (adapters/v1/ops/image_ops.py)
    "image.rot90": "a `k` computed in the graph needs a square image (otherwise a Python "
    "int or constant)",
    "image.central_crop": "`central_fraction` must be known when the graph is built",
    "image.resize_image_with_crop_or_pad": "target sizes must be known when the graph is built",
    "image.resize_with_crop_or_pad": "target sizes must be known when the graph is built",
    "image.rgb_to_grayscale": "compiled, float results may differ from TF's by one float32 "
    "rounding (XLA may fuse the weighted sum)",
    **{
        f"image.{name}": "`size` must be known when the graph is built; `half_pixel_centers` "
        "with `align_corners` raises when the graph is built (TF: when run)"
        for name in ("resize_bilinear", "resize_nearest_neighbor", "resize_bicubic")
    },
    "image.resize_area": "`size` must be known when the graph is built",
    "image.crop_and_resize": "`crop_size` must be known when the graph is built",
    **{
        f"image.{name}": "`size` must be known when the graph is built; `method` is a v1 "
        "number (`ResizeMethod`) or one of TF 2's names bilinear/nearest/bicubic/area; a "
        "non-float32 image of unknown height/width needs a cast to float32 first"
        for name in ("resize_images", "resize")
    },
    # Control flow and run-time checks (ops/control_flow_ops.py, framework/runtime_checks.py).
    "cond": "with a computed predicate, both branches must return the same static shape "
    "(TF merges differing shapes; a constant predicate evaluates only its branch, as TF)",
    "case": "every branch must return the same static shape",
    "while_loop": "a loop variable keeps its shape on every iteration (`shape_invariants` "
    "relax only the static shape); `tf.gradients` through it needs `maximum_iterations`; "
    "`parallel_iterations`/`swap_memory` are ignored",
    "py_func": "with inputs computed in the step, it runs as a host callback inside the "
    "program and its outputs need `set_shape`",
    "numpy_function": "with inputs computed in the step, it runs as a host callback inside "
    "the program and its outputs need `set_shape`",
    "check_numerics": "a failing run's variable writes are applied before the error is "
    "raised; not checked in multi-process collective steps",
    "Assert": "a failing run's variable writes are applied before the error is raised; not "
    "checked in multi-process collective steps",
    "add_check_numerics_ops": "as `check_numerics`",
    "verify_tensor_all_finite": "as `check_numerics`",
    # tf.data (adapters/v1/data/): a Python pipeline on the host, before each step.
    "data": "TF1 graph mode's datasets and iterators (see the `tf.compat.v1.data` rows); "
    "`tf.data.experimental` as in its row",
    "data.Dataset": "sources `from_tensor_slices`, `from_tensors`, `range`, `zip`, "
    "`from_generator`, `list_files`; `map`, `filter`, `batch`, `padded_batch`, `unbatch`, "
    "`shuffle`, `repeat`, `take`, `skip`, `shard`, `cache` (in memory), `prefetch`, "
    "`concatenate`, `flat_map`, `interleave`, `apply`, `reduce`, `enumerate`, `take_while`, "
    "`window` (read through `flat_map`/`interleave`), `scan`, `group_by_window`, "
    "`bucket_by_sequence_length`, `unique`, `cardinality`, `choose_from_datasets`, "
    "`sample_from_datasets` (NumPy's draws, not TF's), `with_options`/`options` (no "
    "effect on elements); functions run on the host, element by element, and may not read "
    "variables; `shuffle`'s order is TF's; no `element_spec`, `random`, `snapshot`, "
    "`rejection_resample`",
    "data.experimental": "`AUTOTUNE`, the options classes, `shuffle_and_repeat`, "
    "`map_and_batch`, `parallel_interleave` (deterministic order), `ignore_errors`, "
    "`unbatch`, `get_single_element`, `enumerate_dataset`, `take_while`, `scan`, "
    "`group_by_window`, `bucket_by_sequence_length`, `unique`, `Counter`, `cardinality`, "
    "`assert_cardinality`, `choose_from_datasets`, `sample_from_datasets`, `CsvDataset`, "
    "`make_csv_dataset`, `make_batched_features_dataset`, `parse_example_dataset`, "
    "`prefetch_to_device`, `copy_to_device`; other names raise an `AttributeError` saying "
    "what to use",
    # Image codecs (adapters/v1/ops/image_codecs.py): host ops; JPEG through Pillow.
    **{
        f"image.{name}": "JPEG files decode with libjpeg's accurate integer IDCT (Pillow, the "
        "`image` extra): TF's default `dct_method` (its fast IDCT) gives pixels up to 17 levels "
        "apart (a warning says so); `dct_method='INTEGER_ACCURATE'` gives TF's bits. "
        "`fancy_upscaling=False`, `try_recover_truncated` and CMYK JPEGs raise "
        "`NotImplementedError`"
        for name in ("decode_jpeg", "decode_image", "adjust_jpeg_quality", "random_jpeg_quality")
    },
    "image.decode_and_crop_jpeg": "decodes the whole image, then crops: with 4:2:0 chroma the "
    "pixels along the crop's edges differ from TF's (up to 50 levels)",
    "image.decode_gif": "GIFs with transparency, a partial first frame, or partial frames after "
    "disposal 2/3 raise `NotImplementedError`",
    "image.decode_png": "gray output of a colour PNG with a gAMA (other than 1.0) or sRGB chunk "
    "raises `NotImplementedError` (libpng converts in linear light)",
    "image.encode_jpeg": "`xmp_metadata` and `density_unit='cm'` raise `NotImplementedError`",
    "image.encode_png": "with `compression=0` on more than 8 KiB the bytes differ from TF's "
    "(zlib's block split); the image decodes the same",
    **{
        f"image.{name}": "boxes and scores must be constants or fed (the output's size "
        "depends on them): computed ones raise `NotImplementedError`; use "
        "`non_max_suppression_padded`, which runs in the step"
        for name in (
            "non_max_suppression",
            "non_max_suppression_with_scores",
            "non_max_suppression_overlaps",
        )
    },
    "image.combined_non_max_suppression": "boxes of tied scores may come out in another "
    "order than TF's",
    "image.sample_distorted_bounding_box": "the crops follow the rules TF's do (area, aspect, "
    "coverage, the whole-image fallback) but come from jtrain's random stream, not TF's",
    "image.extract_glimpse": "the random fill outside the image (`uniform_noise`/`noise`) has "
    "TF's range, not its values",
    **{
        f"nn.{name}": "a host op: ops of the same step cannot read its outputs"
        for name in ("ctc_greedy_decoder", "ctc_beam_search_decoder", "ctc_beam_search_decoder_v2")
    },
    "nn.collapse_repeated": "labels must be constants (the output's width depends on them)",
}

# Where a name's (or a class member's) signature differs from TF 2.21's: (TF name) ->
# the reason. tests/interop/test_signatures_interop.py fails on a difference not
# listed here, and on an entry that no longer differs. jtrain may add keyword-only
# parameters with defaults after TF's without an entry (no TF call can pass them).
SIGNATURE_GAPS: dict[str, str] = {
    **{
        f"errors.{name}": "`node_def`, `op` and `message` have defaults (jtrain raises errors "
        "with a message only); TF's calls work unchanged"
        for name in (
            "AbortedError",
            "AlreadyExistsError",
            "CancelledError",
            "DataLossError",
            "DeadlineExceededError",
            "FailedPreconditionError",
            "InternalError",
            "InvalidArgumentError",
            "NotFoundError",
            "OutOfRangeError",
            "PermissionDeniedError",
            "ResourceExhaustedError",
            "UnauthenticatedError",
            "UnavailableError",
            "UnimplementedError",
            "UnknownError",
        )
    },
    "errors.OpError": "`error_code` defaults to `UNKNOWN`; no `*args` (TF ignores them)",
}

# What to use instead of a name jtrain deliberately lacks: (TF name) -> advice.
ABSENT_ADVICE: dict[str, str] = {
    "tpu.CrossShardOptimizer": "use `tf.jax_data_parallel()` with any optimizer: the "
    "gradients of the whole batch are averaged by XLA's partitioner",
    "tpu.replicate": "use `tf.tpu.shard` (its inputs split) or `tf.jax_data_parallel()`",
    "tpu.rewrite": "no TPU: the graph already runs as one XLA program per `Session.run`",
    "tpu.outside_compilation": "no TPU: host code goes in `tf.py_func` outside the step",
    "tpu.cross_replica_sum": "inside `tf.tpu.shard`, return each shard's value and sum "
    "the concatenated output; `tf.jax_data_parallel()` averages gradients itself",
    "tpu.core": "no TPU cores: `tf.jax_data_parallel(devices)` picks the devices",
    "tpu.initialize_system": "no TPU system to initialize on CPUs and GPUs",
    "tpu.bfloat16_scope": "cast to `tf.bfloat16` explicitly",
    "tpu.PaddingSpec": "no TPU dynamic padding: shapes are static",
    "tpu.experimental": "TPU embeddings and topologies have no CPU/GPU equivalent",
    "data.NumpyIterator": "TF2's eager iteration: use an iterator's `get_next()` in a session",
    **{
        f"image.{name}": "decode the file with Pillow in the input pipeline and feed the "
        "arrays (feed_dict)"
        for name in ("decode_jxl", "decode_webp")
    },
}

# TF name -> the functional core's equivalent, where the names differ.
_CORE_NAMES = {
    "DynamicLossScale": "jtrain.loss_scale.dynamic_loss_scale",
    "FixedLossScale": "jtrain.loss_scale.fixed_loss_scale",
    "MixedPrecisionLossScaleOptimizer": "jtrain.loss_scale.loss_scale_optimizer",
    "ExponentialMovingAverage": "jtrain.averaging.exponential_moving_average",
}
# TF optimizer class -> the functional core's optax transformation.
_OPTIMIZERS = {
    "AdadeltaOptimizer": "adadelta",
    "AdagradDAOptimizer": "adagrad_da",
    "AdagradOptimizer": "adagrad",
    "AdamOptimizer": "adam",
    "FtrlOptimizer": "ftrl",
    "GradientDescentOptimizer": "gradient_descent",
    "MomentumOptimizer": "momentum",
    "ProximalAdagradOptimizer": "proximal_adagrad",
    "ProximalGradientDescentOptimizer": "proximal_gradient_descent",
    "RMSPropOptimizer": "rmsprop",
}
# Functional-core modules searched for a TF name (same object, or same name).
_CORE_MODULES = (
    "jtrain.errors",
    "jtrain.schedules",
    "jtrain.checkpoint",
    "jtrain.records",
    "jtrain.loss_scale",
    "jtrain.averaging",
    "jtrain.clipping",
)


@dataclasses.dataclass(frozen=True)
class Row:
    """One TF name in the table."""

    tf_name: str  # "train.AdamOptimizer" (under tf.compat.v1)
    jtrain_name: str  # where the compat layer defines it, "" when absent
    core_name: str  # the functional core's equivalent, "" when none
    status: str  # "complete", "partial" or "absent"
    note: str


def read_names(path: pathlib.Path = NAMES_FILE) -> list[str]:
    """The committed TF names, without the ``tf.compat.v1.`` prefix."""
    prefix = "tf.compat.v1."
    lines = [ln.strip() for ln in path.read_text().splitlines()]
    return [ln[len(prefix) :] for ln in lines if ln.startswith(prefix)]


def tf_docs_train_names(tf_docs: pathlib.Path) -> set[str]:
    """Class and function names of the ``tf.compat.v1.train`` index in TF's docs."""
    text = (tf_docs / TF_DOCS_TRAIN_INDEX).read_text()
    names = set(re.findall(r"^`class (\w+)`:", text, re.M))
    names |= set(re.findall(r"^`(\w+)\(\.\.\.\)`:", text, re.M))
    names |= set(re.findall(r"^`(\w+)` module:", text, re.M))
    return {f"train.{n}" for n in names}


def _split(tf_name: str) -> tuple[str, str]:
    module, _, attr = tf_name.rpartition(".")
    return module, attr


def _compat_module(module: str) -> types.ModuleType | None:
    path = MODULES[module]
    try:
        return importlib.import_module(path)
    except ImportError:
        parent, _, attr = path.rpartition(".")
        value = getattr(importlib.import_module(parent), attr, None)
        return value if isinstance(value, types.ModuleType) else None


def _defined_at(obj: object, fallback: str) -> str:
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if isinstance(module, str) and isinstance(qualname, str) and "<" not in qualname:
        return f"{module}.{qualname}"
    return fallback


def _core_name(attr: str, obj: object) -> str:
    if attr in _CORE_NAMES:
        return _CORE_NAMES[attr]
    if attr in _OPTIMIZERS:
        return f"jtrain.optimizers.{_OPTIMIZERS[attr]}"
    for path in _CORE_MODULES:
        module = importlib.import_module(path)
        found = getattr(module, attr, None)
        if found is not None and (found is obj or obj is None or inspect.isroutine(found)):
            return f"{path}.{attr}"
    return ""


def rows(names: list[str]) -> list[Row]:
    """One row per TF name: the compat layer's and the core's names, and the status."""
    out = []
    for tf_name in names:
        module, attr = _split(tf_name)
        compat = _compat_module(module)
        present = compat is not None and hasattr(compat, attr)  # tf.newaxis is None
        obj = getattr(compat, attr) if present else None
        if module == "" and not present:
            continue  # top-level names: only those the compat layer offers
        compat_path = f"{MODULES[module]}.{attr}"
        core = _core_name(attr, obj)
        if not present:
            note = ABSENT_ADVICE.get(tf_name, "")
            if not note and core:
                note = f"use `{core}`"
            out.append(Row(tf_name, "", core, "absent", note))
        elif tf_name in GAPS:
            out.append(Row(tf_name, _defined_at(obj, compat_path), core, "partial", GAPS[tf_name]))
        else:
            out.append(Row(tf_name, _defined_at(obj, compat_path), core, "complete", ""))
    return out


def extensions() -> list[tuple[str, str]]:
    """Names the compat layer's modules offer that TF's lack: (dotted name, defined at)."""
    tf_names = set(read_names())
    own = []
    for module, path in MODULES.items():
        compat = _compat_module(module)
        if compat is None:
            continue
        for attr in sorted(getattr(compat, "__all__", [])):
            tf_name = f"{module}.{attr}" if module else attr
            if tf_name not in tf_names:
                own.append((tf_name, _defined_at(getattr(compat, attr), f"{path}.{attr}")))
    return own


def render(table: list[Row]) -> str:
    """The Markdown page."""
    counts = {s: sum(r.status == s for r in table) for s in ("complete", "partial", "absent")}
    lines = [
        "# Coverage of TensorFlow's TF1 training API",
        "",
        "<!-- Generated by `python tools/coverage.py table`; edit the script, not this page. -->",
        "",
        "Every public name of `tf.compat.v1.train` (with `train.experimental` and",
        "`train.queue_runner`), `tf.compat.v1.summary`, `tf.compat.v1.errors` and the op",
        "namespaces (`math`, `linalg`, `nn`, `losses`, `layers`, `random`, `image`,",
        "`metrics`, `initializers`), `tf.compat.v1.tpu` in TensorFlow 2.21, and the",
        "top-level `tf.compat.v1` names the",
        "compat layer offers.",
        "For each: where `adapters.v1` defines it (use it as `tf.<name>` after",
        "`from adapters import v1 as tf`), the functional core's equivalent, and its",
        "status: **complete**, **partial** (what is missing is said) or **absent**",
        "(with what to do instead).",
        "",
        f"Totals: {counts['complete']} complete, {counts['partial']} partial, "
        f"{counts['absent']} absent.",
        "",
    ]
    sections = [
        ("tf.compat.v1.train", "train"),
        ("tf.compat.v1.train.experimental", "train.experimental"),
        ("tf.compat.v1.train.queue_runner", "train.queue_runner"),
        ("tf.compat.v1.summary", "summary"),
        ("tf.compat.v1.errors", "errors"),
        *[
            (f"tf.compat.v1.{m}", m)
            for m in MODULES
            if m and not m.startswith(("train", "summary", "errors"))
        ],
        ("tf.compat.v1 (the names the compat layer offers)", ""),
    ]
    for title, module in sections:
        lines += [f"## {title}", "", "| TF name | jtrain name | functional core | status |"]
        lines += ["|---|---|---|---|"]
        for r in table:
            if _split(r.tf_name)[0] != module:
                continue
            status = r.status if not r.note else f"{r.status}: {r.note}"
            jname = f"`{r.jtrain_name}`" if r.jtrain_name else ""
            core = f"`{r.core_name}`" if r.core_name else ""
            lines.append(f"| `{_split(r.tf_name)[1]}` | {jname} | {core} | {status} |")
        lines.append("")
    lines += [
        "## Signature differences from TF 2.21",
        "",
        "Names (and class members) of `train`, `train.experimental`, `summary` and `errors`",
        "whose `inspect.signature` differs from TensorFlow's, and why",
        "(`tests/interop/test_signatures_interop.py` checks every other one is TF's;",
        "keyword-only parameters jtrain adds after TF's are not listed).",
        "",
        "| name | difference |",
        "|---|---|",
    ]
    lines += [f"| `{name}` | {why} |" for name, why in sorted(SIGNATURE_GAPS.items())]
    lines.append("")
    lines += [
        "## The compat layer's own names",
        "",
        "Names `adapters.v1` offers that TensorFlow lacks (under `tf.` after the import).",
        "",
        "| name | defined at |",
        "|---|---|",
    ]
    lines += [f"| `{name}` | `{where}` |" for name, where in extensions()]
    lines.append("")
    return "\n".join(lines)


def write_names() -> None:
    """Write ``docs/tf_names.txt`` from the installed TensorFlow."""
    import tensorflow as tf  # only in the `coverage_names` session

    v1 = tf.compat.v1
    lines = [
        f"# Public names of tf.compat.v1 modules in TensorFlow {tf.__version__}.",
        "# Generated by `python tools/coverage.py names`; do not edit.",
    ]
    for module in MODULES:
        obj = v1
        for part in filter(None, module.split(".")):
            obj = getattr(obj, part)
        prefix = "tf.compat.v1." + (f"{module}." if module else "")
        lines += [prefix + n for n in sorted(dir(obj)) if not n.startswith("_")]
    NAMES_FILE.write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=["names", "table"])
    parser.add_argument("--check", action="store_true", help="fail if the table is stale")
    args = parser.parse_args(argv)
    if args.step == "names":
        write_names()
        return 0
    text = render(rows(read_names()))
    if args.check:
        if TABLE_FILE.read_text() != text:
            print(f"{TABLE_FILE} is stale: run `python tools/coverage.py table`")
            return 1
        return 0
    TABLE_FILE.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
