"""TF's ragged tensors (``tf.RaggedTensor``, ``tf.ragged``) and the ops returning them."""
