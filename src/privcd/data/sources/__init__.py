"""Dataset sources, one module per source, each declaring its registry lines in ``DATASETS``."""
