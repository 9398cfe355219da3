"""Finding and redacting credentials: the patterns, the scan, and the contract beyond the parts."""
