"""``tf.Module``: TF's base class of objects that own variables and submodules."""
