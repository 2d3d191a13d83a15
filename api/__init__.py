"""kgrag's two front doors over the core: the HTTP API and the ``kgrag`` CLI, kept in separate subpackages.

Where a module lives follows who imports it, so neither door reaches into the other:

- ``routes/``   one FastAPI router per concern (query, chat, documents, graph, browse, health, ui). Only
                ``app.py`` includes them; a route never imports the CLI.
- ``cli/``      the typer commands: ``cli/__init__.py`` holds ``app`` and ``main`` (the ``kgrag`` console
                script and ``python -m kgrag``), ``cli/common.py`` the console, settings and error handling
                every command shares, one module per command group. Commands do not import routes: ``kgrag
                serve`` builds the app through ``app.create_app``, ``kgrag mcp`` the MCP server through
                ``mcp_server.py``, and the HTML export goes through ``ui_export.py`` (which reuses the view
                builders of ``service.py``, so the exported page shows exactly what the server would).
- top level     the HTTP app and what its routes share (``app.py`` wires them, ``deps.py`` the resources and
                the key check, ``service.py`` the operations routes and MCP tools both run, ``schemas.py``
                the wire format, ``problems.py`` the error mapping, ``jobs.py`` background builds), the MCP
                server (``mcp_server.py``), plus the two modules both doors use: ``doctor.py`` (``kgrag
                doctor`` and the readiness probe) and ``ui_export.py`` (the graph page, from ``kgrag graph
                export`` and ``GET /v1/graph/export``).
- ``static/``   the committed web UI bundle, package data served by ``routes/ui.py`` and inlined by
                ``ui_export.py``; both find it as ``resources.files("kgrag.api")``.
"""
