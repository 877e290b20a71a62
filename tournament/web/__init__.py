"""The browser side of uno-env: HTML replays, tournament pages and a table to play at.

``view`` turns a seat's observation (and, for replays, the engine's state) into the JSON the
pages draw; ``replay_page`` writes a self-contained replay; ``report`` a tournament's
``index.html``; ``server`` the ``uno-env serve`` app. It sits above ``agents`` (the server
loads them), so it lives in ``tournament`` and ``uno_env`` never imports it.
"""
