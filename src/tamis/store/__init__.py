"""State that outlives a process (cache, key rest times) behind one small interface.

``base.open_store(url)``: ``None`` is SQLite in the user cache dir, a path is SQLite there,
``redis://...`` is Redis (for replicas that share state), ``memory:`` lives in the process.
"""
