"""Tidy results: the table's columns, atomic parquet I/O, merging, selection, relative error."""
from privcd.results.analysis import final_checkpoints, relative_error, select_best, with_relative_error
from privcd.results.io import merge, read_parquets, write_parquet, write_text
from privcd.results.table import AGGREGATED_COLUMNS, KEY_COLUMNS, RUN_TABLE_COLUMNS, check_columns

__all__ = ["AGGREGATED_COLUMNS", "KEY_COLUMNS", "RUN_TABLE_COLUMNS", "check_columns", "final_checkpoints",
           "merge", "read_parquets", "relative_error", "select_best", "with_relative_error",
           "write_parquet", "write_text"]
