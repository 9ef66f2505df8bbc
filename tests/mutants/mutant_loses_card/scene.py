from crazy_eights.scene import PALETTE, scene  # noqa: F401
