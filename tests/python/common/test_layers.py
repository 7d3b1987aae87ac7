"""The package's layers (ARCHITECTURE.md): imports point down only, no cycles,
and function-local imports only for optional dependencies."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[3] / "python" / "vcgmm"

# Lower layers first; a module may import its own subpackage and the layers below.
LAYERS = (
    ("_core",),
    ("_base",),
    ("_data",),
    ("_blocks",),
    ("_estimator",),
    ("_kmeans", "_vcgmm", "_stochastic", "_kernel"),  # the families: none imports another
    ("_registry",),
    ("__init__", "dask", "datasets"),
    ("cli",),
    ("__main__",),
)
# Local imports of package modules that need an optional dependency (dask).
OPTIONAL = {("_data.source", "_data.dask_source")}
RANK = {group: rank for rank, groups in enumerate(LAYERS) for group in groups}


def _module_name(path):
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def _modules():
    if not PACKAGE.is_dir():
        pytest.skip("the package's sources are not beside the tests")
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _resolve(module, path, node, known):
    """The package modules an import node names (relative or ``vcgmm.``)."""
    is_pkg = path.name == "__init__.py"
    base = module.split(".") if module != "__init__" else []
    if isinstance(node, ast.ImportFrom):
        if node.level:
            anchor = base if is_pkg else base[:-1]
            anchor = anchor[:len(anchor) - (node.level - 1)]
            target = anchor + (node.module.split(".") if node.module else [])
        elif node.module and node.module.split(".")[0] == "vcgmm":
            target = node.module.split(".")[1:]
        else:
            return []
        names = []
        for alias in node.names:
            sub = ".".join(target + [alias.name])
            names.append(sub if sub in known else ".".join(target) or "__init__")
        return names
    return [".".join(a.name.split(".")[1:]) or "__init__" for a in node.names
            if a.name.split(".")[0] == "vcgmm"]


def _imports():
    known = _modules()
    known_names = set(known) | {"_core"}
    edges = {}
    local = []
    for module, path in known.items():
        tree = ast.parse(path.read_text(), str(path))
        top = {id(n) for n in tree.body}
        guarded = {id(c) for n in tree.body if isinstance(n, ast.Try) for c in ast.walk(n)}
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            targets = [t for t in _resolve(module, path, node, known_names) if t != module]
            edges.setdefault(module, set()).update(targets)
            if (targets and id(node) not in top and id(node) not in guarded
                    and not all((module, t) in OPTIONAL for t in targets)):
                local.append(f"{module}:{node.lineno} imports {targets} inside a function")
    return edges, local


def _group(module):
    return module.split(".")[0]


def test_imports_point_down():
    edges, _ = _imports()
    upward = [f"{m} -> {t}" for m, ts in edges.items() for t in ts
              if RANK[_group(t)] > RANK[_group(m)]
              or (RANK[_group(t)] == RANK[_group(m)] and _group(t) != _group(m))]
    assert not upward, "imports that point up a layer or across families:\n" + "\n".join(upward)


def test_no_import_cycles():
    edges, _ = _imports()
    state, cycles = {}, []

    def visit(m, stack):
        state[m] = 1
        for t in sorted(edges.get(m, ())):
            if state.get(t) == 1:
                cycles.append(" -> ".join(stack[stack.index(t):] + [t]))
            elif t not in state:
                visit(t, stack + [t])
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m, [m])
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_no_local_imports_of_the_package():
    # A function-local import of a package module hides a cycle or an upward
    # import; only optional third-party dependencies are imported locally.
    _, local = _imports()
    assert not local, "\n".join(local)


def test_every_module_is_in_a_layer():
    missing = [m for m in _modules() if _group(m) not in RANK]
    assert not missing, f"modules outside the layers of LAYERS: {missing}"
