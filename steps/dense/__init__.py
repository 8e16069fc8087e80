"""Dense retrieval programs in Python (the TypeScript steps beside them run them)."""
