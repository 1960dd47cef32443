"""Pictures of the game (matplotlib, Agg backend); imported only by code that draws."""
