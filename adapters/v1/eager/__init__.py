"""TF's ``python/eager`` names that classic TF1 graph mode has: ``tf.GradientTape``."""
