"""Rules of Clans of Caledonia, one module per rulebook section."""
