"""``python -m kgrag.api.cli`` keeps working now that the CLI is a package (the flat module ran it before)."""

from kgrag.api.cli import main

if __name__ == "__main__":
    main()
