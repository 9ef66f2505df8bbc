"""The environments, written once for every game: the PettingZoo AEC env (`aec`, `aec_wrappers`), the
Gymnasium single-agent env (`single`), the vector env (`vector` over `vector_engines` and the Python
`episodes` driver), what they share (`opponents`, `resets`, `frames`, `copies`, `state_io`) and the
builder of a game's public entry points (`entry_points`)."""
