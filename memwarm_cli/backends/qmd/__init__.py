"""Running qmd (process groups, timeouts, output caps) and reading what it says (index, version, search
hits, crashes)."""
