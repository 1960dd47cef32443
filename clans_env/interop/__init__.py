"""Bridges to other game frameworks (OpenSpiel). Imported explicitly; never by the engine."""
