"""The torch dense-search backend: low-precision candidates with a proven depth (search.py, bound.py)."""
