"""Output checkers: built-in comparators (in-process) and custom checker binaries (sandboxed)."""
