"""Token counting: exact counts, pre-token cutting, the counting pool, the report tally."""
