"""The HTTP routes, one router per concern; ``kgrag.api.app.create_app`` includes them all.

Each module exposes ``router`` (``ui`` and ``browse`` also an ``install``/``preload`` hook the app calls).
What the routes share (resources, schemas, problem documents, jobs) lives one level up in ``kgrag.api``,
where the CLI's ``kgrag serve`` and the tests reach the app without importing a route.
"""
