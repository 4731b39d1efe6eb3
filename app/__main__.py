"""``python -m rummyhall`` runs the ``rummyhall`` command."""

from rummyhall.cli import main

raise SystemExit(main())
