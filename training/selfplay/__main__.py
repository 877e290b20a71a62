"""``python -m training.selfplay``: see :func:`training.selfplay.reporting.main`."""

from training.selfplay.reporting import main

raise SystemExit(main())
