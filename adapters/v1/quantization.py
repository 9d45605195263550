"""``tf.quantization``: TF's quantization ops (fake quantization for quantization-aware
training; ``ops/array_ops.py``)."""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.ops.quantization_ops import (
    fake_quant_with_min_max_args,
    fake_quant_with_min_max_args_gradient,
    fake_quant_with_min_max_vars,
    fake_quant_with_min_max_vars_gradient,
    fake_quant_with_min_max_vars_per_channel,
    fake_quant_with_min_max_vars_per_channel_gradient,
    quantize_and_dequantize,
    quantize_and_dequantize_v2,
)

__all__ = [
    "fake_quant_with_min_max_args",
    "fake_quant_with_min_max_args_gradient",
    "fake_quant_with_min_max_vars",
    "fake_quant_with_min_max_vars_gradient",
    "fake_quant_with_min_max_vars_per_channel",
    "fake_quant_with_min_max_vars_per_channel_gradient",
    "quantize_and_dequantize",
    "quantize_and_dequantize_v2",
]

__getattr__ = missing_name_getattr("tf.quantization", globals())
