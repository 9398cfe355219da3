"""textkit."""
