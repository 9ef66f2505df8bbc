"""The compiled machinery: numba's on-disk cache and hooks (`cache`, `numba_hooks`, `fastcall`), the
state-held random numbers (`rng`), the binder (`binder`) of the per-game template (`bound`), the packed
arguments of its loops (`batch`) and the software prefetch (`prefetch`)."""
