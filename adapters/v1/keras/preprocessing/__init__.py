"""``tf.keras.preprocessing`` as TF 2.21's legacy Keras: ``sequence``
(``pad_sequences``, ``TimeseriesGenerator``, ``make_sampling_table``, ``skipgrams``),
``text`` (``Tokenizer``, ``tokenizer_from_json``, ``text_to_word_sequence``,
``one_hot``, ``hashing_trick``) and ``image`` (``ImageDataGenerator`` with ``flow``
and ``flow_from_directory``, the iterators, the random transforms, ``array_to_img``,
``img_to_array``, ``load_img``, ``save_img``; no ``flow_from_dataframe``), checked
live against TF in
tests/interop/test_keras_preprocessing_interop.py.
"""

from adapters.v1._missing import missing_name_getattr
from adapters.v1.keras.preprocessing import image, sequence, text

__all__ = ["image", "sequence", "text"]

__getattr__ = missing_name_getattr("tf.keras.preprocessing", globals())
