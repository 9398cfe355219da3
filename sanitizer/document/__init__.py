"""Reading bytes into records and writing them back: the loader, the JSON writer, exact numbers."""
