"""One input file as a job (copy, check, summary, budget), datasets line by line, many files in parallel."""
