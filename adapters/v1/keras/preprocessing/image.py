"""``tf.keras.preprocessing.image``: ``array_to_img``, ``img_to_array``, ``load_img``
and ``save_img`` (keras/image_utils.py). Not provided: ``ImageDataGenerator``, the
iterators and the random transforms (a missing name raises an ``AttributeError``
naming it)."""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.keras.image_utils import array_to_img, img_to_array, load_img, save_img

__all__ = ["array_to_img", "img_to_array", "load_img", "save_img"]

__getattr__ = missing_name_getattr("tf.keras.preprocessing.image", globals())
