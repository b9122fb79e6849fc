"""Figures and tables of the workflow: plot data selection (testable) apart from drawing."""
from privcd.plotting.curves import convergence_curves, final_errors
from privcd.plotting.draw import convergence_figure, save
from privcd.plotting.tables import error_table, to_latex, to_markdown

__all__ = ["convergence_curves", "convergence_figure", "error_table", "final_errors", "save",
           "to_latex", "to_markdown"]
