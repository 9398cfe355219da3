"""digest."""
