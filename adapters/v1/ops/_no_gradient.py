"""Where TF's backpropagation gives no gradient, by op type: ops declared not
differentiable (``None`` for every input), gradient functions returning ``None`` for
some inputs, and ops with no gradient registered (``tf.gradients`` raises
``LookupError``). ``gradients_impl`` consults these tables when it builds the
backward pass, as TF looks the gradient functions up.

The tables were measured against TF 2.21 (``tests/interop/test_gradient_none_interop.py``
checks each entry live).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import jax

__all__ = [
    "NOT_DIFFERENTIABLE",
    "NO_INPUT_GRADIENT",
    "NO_GRADIENT_FOR_REAL_INPUT",
    "OUTPUT_FROM_ITS_INPUT",
    "UNREGISTERED",
    "lookup_error",
    "without_gradient",
]

# Operation types TF gives no gradient to their inputs: registered with
# ``ops.NotDifferentiable``, or whose gradient function returns ``None`` (``Floor``,
# ``ArgMax``). Only those that may read or produce floating tensors matter: a path
# through an integer or boolean tensor carries no gradient anyway.
NOT_DIFFERENTIABLE = frozenset(
    {
        "ArgMax",
        "ArgMin",
        "Assign",
        "AssignAdd",
        "AssignSub",
        "CTCBeamSearchDecoder",
        "CTCGreedyDecoder",
        "Ceil",
        "DrawBoundingBoxes",
        "EditDistance",
        "ExtractGlimpse",
        "FakeQuantWithMinMaxArgsGradient",
        "FakeQuantWithMinMaxVarsGradient",
        "FakeQuantWithMinMaxVarsPerChannelGradient",
        "Floor",
        "FloorDiv",
        "HSVToRGB",
        "Multinomial",
        "OneHot",
        "OnesLike",
        "ParameterizedTruncatedNormal",
        "RandomShuffle",
        "Range",
        "Rint",
        "Round",
        "SampleDistortedBoundingBox",
        "SampleDistortedBoundingBoxV2",
        "ScatterAdd",
        "ScatterDiv",
        "ScatterMul",
        "ScatterNdAdd",
        "ScatterNdSub",
        "ScatterNdUpdate",
        "ScatterSub",
        "StopGradient",
        "TruncateDiv",
        "ZerosLike",
    }
)

# Operation type -> the inputs TF's gradient function gives ``None`` (the others get
# their gradient): ``tf.gradients`` gives ``None`` for an ``x`` reaching ``ys`` only
# through them, and no derivative flows through them.
NO_INPUT_GRADIENT: dict[str, frozenset[int]] = {
    # _BetaincGrad: [None, None, grad_x]
    "Betainc": frozenset({0, 1}),
    # _FusedBatchNorm*Grad: [dx, dscale, doffset, None, None] (the given mean and
    # variance, used at inference only)
    "FusedBatchNorm": frozenset({3, 4}),
    "FusedBatchNormV2": frozenset({3, 4}),
    "FusedBatchNormV3": frozenset({3, 4}),
    # _PolygammaGrad: [None, grad_x]
    "Polygamma": frozenset({0}),
    # _QuantizeAndDequantizeV2Grad: [grad, None, None] (V4 gives zeros to the range)
    "QuantizeAndDequantizeV2": frozenset({1, 2}),
    # _ZetaGrad: [None, grad_q]
    "Zeta": frozenset({0}),
}

# Operation types whose output ``i`` is computed from input ``i`` alone (TF builds
# ``tf.meshgrid``'s grids each from its own vector, broadcast by the others' shapes):
# the gradient of output ``i`` reaches input ``i`` only.
OUTPUT_FROM_ITS_INPUT = frozenset({"Meshgrid"})

# Operation types that, on a real (not complex) input, TF builds from ops without a
# gradient (``tf.math.imag`` is ``zeros_like``, ``tf.math.angle`` a ``where`` of
# constants): ``None`` for the input.
NO_GRADIENT_FOR_REAL_INPUT = frozenset({"Angle", "Imag"})

# Operation types TF registers no gradient for: ``tf.gradients`` raises ``LookupError``
# when a gradient reaches one on a path from ``xs`` to ``ys``.
UNREGISTERED = frozenset(
    {
        "AdjustContrastv2",
        "AdjustHue",
        "AdjustSaturation",
        "Bitcast",
        "DenseBincount",
        "GuaranteeConst",
        "HistogramFixedWidth",
        "IsFinite",
        "IsInf",
        "IsNan",
        "Lu",
        "ParallelConcat",
        "RandomPoissonV2",
        "ResizeArea",
        "Unique",
    }
)


def lookup_error(op_name: str, op_type: str) -> LookupError:
    """TF's ``LookupError`` for a gradient reaching ``op_name``, of a type without one."""
    return LookupError(
        f"No gradient defined for operation'{op_name}' (op type: {op_type}). In general "
        "every operation must have an associated `@tf.RegisterGradient` for correct "
        "autodiff, which this op is lacking. If you want to pretend this operation is a "
        "constant in your program, you may insert `tf.stop_gradient`. This can be useful "
        "to silence the error in cases where you know gradients are not needed, e.g. the "
        "forward pass of tf.custom_gradient. Please see more details in "
        "https://www.tensorflow.org/api_docs/python/tf/custom_gradient."
    )


@functools.cache
def without_gradient(op_type: str) -> Callable[[jax.Array], jax.Array]:
    """``x -> x`` whose derivative raises TF's ``LookupError`` naming ``op_type``
    (inside an op's computation, where the op type is not one of ``UNREGISTERED``'s:
    jtrain's ``tf.gradients`` raises when it traces the step)."""

    @jax.custom_vjp
    def same(x: jax.Array) -> jax.Array:
        return x

    def fwd(x: jax.Array) -> tuple[jax.Array, None]:
        return x, None

    def bwd(_: None, g: jax.Array) -> tuple[jax.Array]:
        raise LookupError(
            f"No gradient defined for operation '{op_type}' (op type: {op_type}). In general "
            "every operation must have an associated `@tf.RegisterGradient` for correct "
            "autodiff, which this op is lacking. If you want to pretend this operation is a "
            "constant in your program, you may insert `tf.stop_gradient`."
        )

    same.defvjp(fwd, bwd)
    return same
