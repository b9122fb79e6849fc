"""The package's layers: every import between privcd's top-level units goes down the layers, so the
import graph between them has no cycle and kernels know nothing of accounting, tuning or results."""
import ast
import collections
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "privcd"
# Lowest first; a unit may import units of lower layers only.
LAYERS = [
    {"numerics", "validation", "identity", "numba_cache", "numba_inlining"},
    {"losses", "penalties"},
    {"kernels"},
    {"randomness", "privacy", "problem", "data", "optimum"},
    {"algorithms", "run"},
    {"fit"},
    {"fit_many"},
    {"results"},
    {"tuning", "plotting"},
    {"estimators"},
    {"auditing", "warmup", "__init__"},
]
LAYER_OF = {unit: index for index, units in enumerate(LAYERS) for unit in units}


def unit_of(path):
    """A module's top-level unit: its subpackage, or its own name for a module at the top."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return parts[0]


def imports_between_units():
    """``unit -> {(imported unit, file)}`` for every ``privcd.<unit>`` a module of another unit imports."""
    edges = collections.defaultdict(set)
    for path in PACKAGE.rglob("*.py"):
        source = unit_of(path)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "privcd":
                names = ([f"privcd.{alias.name}" for alias in node.names] if node.module == "privcd"
                         else [node.module])
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names if alias.name.split(".")[0] == "privcd"]
            else:
                continue
            for name in names:
                parts = name.split(".")
                if len(parts) > 1 and parts[1] != source:
                    edges[source].add((parts[1], path.relative_to(PACKAGE).as_posix()))
    return edges


def test_every_unit_has_a_layer():
    units = {unit_of(path) for path in PACKAGE.rglob("*.py")}
    assert units <= set(LAYER_OF), sorted(units - set(LAYER_OF))


def test_imports_go_down_the_layers():
    edges = imports_between_units()
    assert {"kernels", "privacy"} <= {target for target, _ in edges["algorithms"]}  # the scan sees imports
    upward = [f"{where}: {source} (layer {LAYER_OF[source]}) imports {target} (layer {LAYER_OF[target]})"
              for source, targets in edges.items() for target, where in targets
              if LAYER_OF[target] >= LAYER_OF[source]]
    assert not upward, "\n".join(sorted(upward))


def test_no_dated_measurement_stays_in_the_package():
    """Docstrings say what the code does and why; dates and nanosecond timings live in
    benchmarks/README.md and results/reference/ (issue 39)."""
    package = Path(__file__).resolve().parents[1] / "src" / "privcd"
    found = [f"{path.relative_to(package)}:{number}"
             for path in sorted(package.rglob("*.py"))
             for number, line in enumerate(path.read_text().splitlines(), 1)
             if re.search(r"\b20\d\d-\d\d-\d\d\b|\b\d+(\.\d+)? ns\b", line)]
    assert not found, found


def module_import_graph():
    """``module -> {module}`` of privcd's module-level imports (the ones that run at import time;
    imports inside functions are deferred by design and cannot form an import-time cycle)."""
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ("privcd", *path.relative_to(PACKAGE).with_suffix("").parts)
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path

    def owner(name):  # the module a dotted name lives in (a module, or an attribute of one)
        while name not in modules and "." in name:
            name = name.rsplit(".", 1)[0]
        return name if name in modules else None

    graph = {}
    for module, path in modules.items():
        targets = set()
        for statement in ast.parse(path.read_text()).body:
            for node in ast.walk(statement):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    break
                if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "privcd":
                    targets |= {owner(f"{node.module}.{alias.name}") for alias in node.names}
                elif isinstance(node, ast.Import):
                    targets |= {owner(alias.name) for alias in node.names}
        graph[module] = targets - {None, module}
    return graph


def test_no_module_import_cycle():
    """No chain of module-level imports leads from a module back to itself (depth-first search)."""
    graph = module_import_graph()
    assert "privcd.losses.huber" in graph["privcd.kernels.dispatch"]  # the scan sees imports
    state, path, cycles = {}, [], []

    def visit(module):
        state[module] = "open"
        path.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == "open":
                cycles.append(" -> ".join(path[path.index(target):] + [target]))
            elif target not in state:
                visit(target)
        path.pop()
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module)
    assert not cycles, "\n".join(cycles)
