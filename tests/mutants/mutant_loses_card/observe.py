from crazy_eights.observe import ENCODERS, WORLD, state_size  # noqa: F401
