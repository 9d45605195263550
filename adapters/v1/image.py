"""``tf.image``: TF's image ops (``ops/image_ops.py``) named ``image.*``."""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.framework.op_def import tf_names
from adapters.v1.ops import attention_ops as _attention  # noqa: F401  (tf.image glimpses)
from adapters.v1.ops import bounding_box_ops as _boxes  # noqa: F401  (tf.image boxes)
from adapters.v1.ops import image_codecs, image_ops
from adapters.v1.ops import non_max_suppression_ops as _nms  # noqa: F401  (tf.image NMS)
from adapters.v1.ops import ssim_ops as _ssim  # noqa: F401  (tf.image.ssim)
from adapters.v1.ops.random_ops import random_crop  # noqa: F401  (tf.random_crop)

ResizeMethod = image_ops.ResizeMethod
globals().update(tf_names("image"))
globals().update({name: getattr(image_ops, name) for name in image_ops.GRAPH_FUNCTIONS})
globals().update({name: getattr(image_codecs, name) for name in image_codecs.__all__})
__all__ = sorted(
    [
        *tf_names("image"),
        *image_ops.GRAPH_FUNCTIONS,
        *image_codecs.__all__,
        "ResizeMethod",
        "random_crop",
    ]
)

__getattr__ = missing_name_getattr("tf.image", globals())
