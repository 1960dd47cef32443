"""The web viewer: replays, tournaments and games against the bots in the browser (``clans serve``,
``clans replay --html``). ``views`` and ``pages`` need no web framework; ``server`` is the FastAPI
app (the ``web`` extra). See docs/web.md."""
