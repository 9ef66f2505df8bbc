"""``python -m cardgym.cli``: the same as the ``cardgym`` command."""

from cardgym.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
