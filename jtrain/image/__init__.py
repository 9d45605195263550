"""Image files without TensorFlow: :mod:`jtrain.image.png`, PNG read and written in pure
Python and NumPy (zlib for the compressed stream), converted as TF's ``decode_png``."""
