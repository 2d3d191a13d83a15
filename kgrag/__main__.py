"""``python -m kgrag``: the same CLI as the ``kgrag`` command."""

from kgrag.api.cli import main

if __name__ == "__main__":
    main()
