from crazy_eights.kernels import apply, legal, reset, state_vector  # noqa: F401
