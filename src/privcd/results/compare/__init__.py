"""Our numbers beside the papers' (``results/compare/papers.md``), as ratios ours / paper.

Modules: :mod:`~privcd.results.compare.values` (the transcribed tables, ``config/paper_values/``,
and the reasons for cells more than 2x off), :mod:`~privcd.results.compare.cells` (dp-cd Table 2
and dp-gcd Table 3 cell by cell, counts within 1.25x and 2x), :mod:`~privcd.results.compare.winners`
(best algorithm and best number of passes, ties), :mod:`~privcd.results.compare.grids` (dp-gcd
Table 4 in grid steps, tuned values at a grid edge), :mod:`~privcd.results.compare.times` (dp-cd
Table 3 as speed ratios), :mod:`~privcd.results.compare.report` (the Markdown sections).
"""
