from crazy_eights.reference import legal  # noqa: F401
