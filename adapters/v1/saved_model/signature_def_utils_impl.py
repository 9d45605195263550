"""``SignatureDef`` builders (TF's ``saved_model/signature_def_utils_impl.py``).

A signature maps input and output keys to ``TensorInfo``s and names the serving
method; ``predict_signature_def`` serves anything, ``classification_signature_def``
and ``regression_signature_def`` check TensorFlow Serving's dtypes as TF does.
"""

from __future__ import annotations

from typing import Any

from adapters.v1.framework import graph_def as graph_def_lib
from adapters.v1.framework import ops
from adapters.v1.saved_model import signature_constants
from adapters.v1.saved_model import utils_impl as utils
from jtrain import errors

__all__ = [
    "build_signature_def",
    "classification_signature_def",
    "is_valid_signature",
    "predict_signature_def",
    "regression_signature_def",
]

_DT_STRING = 7
_DT_FLOAT = 1


def build_signature_def(
    inputs: Any = None, outputs: Any = None, method_name: str | None = None, defaults: Any = None
) -> Any:
    """A ``SignatureDef`` (``tf.compat.v1.saved_model.build_signature_def``).

    Args:
      inputs: a dict of key -> ``TensorInfo`` (default ``None``).
      outputs: a dict of key -> ``TensorInfo`` (default ``None``).
      method_name: the method name (default ``None``: unset).
      defaults: a dict of input key -> a constant ``Tensor`` whose value is the
        input's default (default ``None``).

    Returns:
      A ``SignatureDef`` proto (``jtrain.protos.meta_graph_pb2``).

    Raises:
      ValueError: a default that is not the output of a ``Const`` op (TF's message).
    """
    from jtrain.protos import meta_graph_pb2

    out = meta_graph_pb2.SignatureDef()
    for key in inputs or {}:
        out.inputs[key].ParseFromString(inputs[key].SerializeToString())
    for key in outputs or {}:
        out.outputs[key].ParseFromString(outputs[key].SerializeToString())
    if method_name is not None:
        out.method_name = method_name
    for key, default in (defaults or {}).items():
        if not isinstance(default, ops.Tensor) or default.op.type != "Const":
            raise ValueError(
                f"Unable to convert object {default!s} of type {type(default)} to TensorProto."
            )
        node = graph_def_lib.node_def(default.op)
        out.defaults[key].CopyFrom(node.attr["value"].tensor)
    return out


def regression_signature_def(examples: Any, predictions: Any) -> Any:
    """A regression signature (``tf.compat.v1.saved_model.regression_signature_def``).

    Args:
      examples: a string ``Tensor`` of serialized ``tf.Example``s.
      predictions: a float32 ``Tensor``.

    Returns:
      A ``SignatureDef`` with inputs ``{"inputs"}``, outputs ``{"outputs"}`` and
      method ``tensorflow/serving/regress``.

    Raises:
      ValueError: a missing argument, ``examples`` not a Tensor, or the dtypes
        TensorFlow Serving does not take (TF's messages).
    """
    if examples is None:
        raise ValueError("Regression `examples` cannot be None.")
    if not isinstance(examples, ops.Tensor):
        raise ValueError(
            "Expected regression `examples` to be of type Tensor. "
            f"Found `examples` of type {type(examples)}."
        )
    if predictions is None:
        raise ValueError("Regression `predictions` cannot be None.")
    input_info = utils.build_tensor_info(examples)
    if input_info.dtype != _DT_STRING:
        raise ValueError(
            "Regression input tensors must be of type string. "
            f"Found tensors with type {input_info.dtype}."
        )
    output_info = utils.build_tensor_info(predictions)
    if output_info.dtype != _DT_FLOAT:
        raise ValueError(
            "Regression output tensors must be of type float. "
            f"Found tensors with type {output_info.dtype}."
        )
    return build_signature_def(
        {signature_constants.REGRESS_INPUTS: input_info},
        {signature_constants.REGRESS_OUTPUTS: output_info},
        signature_constants.REGRESS_METHOD_NAME,
    )


def classification_signature_def(examples: Any, classes: Any, scores: Any) -> Any:
    """A classification signature (``tf.compat.v1.saved_model.classification_signature_def``).

    Args:
      examples: a string ``Tensor`` of serialized ``tf.Example``s.
      classes: a string ``Tensor`` of class labels, or ``None``.
      scores: a float32 ``Tensor``, or ``None`` (not both ``None``).

    Returns:
      A ``SignatureDef`` with inputs ``{"inputs"}``, outputs ``classes`` and/or
      ``scores`` and method ``tensorflow/serving/classify``.

    Raises:
      ValueError: a missing argument, ``examples`` not a Tensor, or the dtypes
        TensorFlow Serving does not take (TF's messages).
    """
    if examples is None:
        raise ValueError("Classification `examples` cannot be None.")
    if not isinstance(examples, ops.Tensor):
        raise ValueError(
            "Classification `examples` must be a string Tensor. "
            f"Found `examples` of type {type(examples)}."
        )
    if classes is None and scores is None:
        raise ValueError("Classification `classes` and `scores` cannot both be None.")
    input_info = utils.build_tensor_info(examples)
    if input_info.dtype != _DT_STRING:
        raise ValueError(
            "Classification input tensors must be of type string. "
            f"Found tensors of type {input_info.dtype}"
        )
    outputs = {}
    if classes is not None:
        classes_info = utils.build_tensor_info(classes)
        if classes_info.dtype != _DT_STRING:
            raise ValueError(
                "Classification classes must be of type string Tensor. "
                f"Found tensors of type {classes_info.dtype}.`"
            )
        outputs[signature_constants.CLASSIFY_OUTPUT_CLASSES] = classes_info
    if scores is not None:
        scores_info = utils.build_tensor_info(scores)
        if scores_info.dtype != _DT_FLOAT:
            raise ValueError("Classification scores must be a float Tensor.")
        outputs[signature_constants.CLASSIFY_OUTPUT_SCORES] = scores_info
    return build_signature_def(
        {signature_constants.CLASSIFY_INPUTS: input_info},
        outputs,
        signature_constants.CLASSIFY_METHOD_NAME,
    )


def predict_signature_def(inputs: Any, outputs: Any) -> Any:
    """A prediction signature (``tf.compat.v1.saved_model.predict_signature_def``).

    Args:
      inputs: a dict of key -> ``Tensor``.
      outputs: a dict of key -> ``Tensor``.

    Returns:
      A ``SignatureDef`` with method ``tensorflow/serving/predict``.

    Raises:
      ValueError: ``inputs`` or ``outputs`` is ``None`` or empty (TF's messages).
    """
    if inputs is None or not inputs:
        raise ValueError("Prediction `inputs` cannot be None or empty.")
    if outputs is None or not outputs:
        raise ValueError("Prediction `outputs` cannot be None or empty.")
    return build_signature_def(
        {key: utils.build_tensor_info(t) for key, t in inputs.items()},
        {key: utils.build_tensor_info(t) for key, t in outputs.items()},
        signature_constants.PREDICT_METHOD_NAME,
    )


def is_valid_signature(signature_def: Any) -> bool:
    """Whether TensorFlow Serving can serve ``signature_def``
    (``tf.compat.v1.saved_model.is_valid_signature``): a classify, regress or predict
    signature with the keys and dtypes its API takes."""
    if signature_def is None:
        return False
    return (
        _valid_classification(signature_def)
        or _valid_regression(signature_def)
        or _valid_predict(signature_def)
    )


def _valid_predict(sig: Any) -> bool:
    return (
        sig.method_name == signature_constants.PREDICT_METHOD_NAME
        and bool(sig.inputs.keys())
        and bool(sig.outputs.keys())
    )


def _valid_regression(sig: Any) -> bool:
    if sig.method_name != signature_constants.REGRESS_METHOD_NAME:
        return False
    if set(sig.inputs.keys()) != {signature_constants.REGRESS_INPUTS}:
        return False
    if sig.inputs[signature_constants.REGRESS_INPUTS].dtype != _DT_STRING:
        return False
    if set(sig.outputs.keys()) != {signature_constants.REGRESS_OUTPUTS}:
        return False
    return sig.outputs[signature_constants.REGRESS_OUTPUTS].dtype == _DT_FLOAT


def _valid_classification(sig: Any) -> bool:
    if sig.method_name != signature_constants.CLASSIFY_METHOD_NAME:
        return False
    if set(sig.inputs.keys()) != {signature_constants.CLASSIFY_INPUTS}:
        return False
    if sig.inputs[signature_constants.CLASSIFY_INPUTS].dtype != _DT_STRING:
        return False
    allowed = {
        signature_constants.CLASSIFY_OUTPUT_CLASSES,
        signature_constants.CLASSIFY_OUTPUT_SCORES,
    }
    if not sig.outputs.keys() or set(sig.outputs.keys()) - allowed:
        return False
    classes = signature_constants.CLASSIFY_OUTPUT_CLASSES
    if classes in sig.outputs and sig.outputs[classes].dtype != _DT_STRING:
        return False
    scores = signature_constants.CLASSIFY_OUTPUT_SCORES
    return not (scores in sig.outputs and sig.outputs[scores].dtype != _DT_FLOAT)


def op_signature_def(op: Any, key: str) -> Any:
    """A signature whose one output ``key`` names ``op`` (TF's builder's init/train op)."""
    return build_signature_def(outputs={key: utils.build_tensor_info_from_op(op)})


def load_op_from_signature_def(signature_def: Any, key: str, import_scope: str | None = None):
    """The operation (or tensor) named by ``signature_def``'s output ``key``.

    Raises:
      NotFoundError: the graph has no such element (TF's message).
    """
    try:
        return utils.get_element_from_tensor_info(
            signature_def.outputs[key], import_scope=import_scope
        )
    except KeyError:
        raise errors.NotFoundError(
            None,
            None,
            f'The key "{key}" could not be found in the graph. Please make sure the '
            "SavedModel was created by the internal _SavedModelBuilder. If you are using "
            "the public API, please make sure the SignatureDef in the SavedModel does not "
            f'contain the key "{key}".',
        ) from None
