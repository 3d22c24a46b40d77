"""The house's floors (docs/layout.md): a package imports only its own modules and packages on
lower floors, lazy imports inside functions included; infra imports none of the graph's parts;
no command-line module grows past 300 lines. Reads the source, runs nothing."""
import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "tripartite"
FLOORS = {
    "infra": 1,
    "lexical": 2, "ontology": 2,
    "analysis": 3, "objects": 3, "selection": 3,
    "kg": 4,
    "search": 5, "drafting": 5, "pipeline": 5, "batches": 5, "reembed": 5,
    "evaluation": 6, "serving": 6, "doctor": 6,
    "cli": 7, "__main__": 8,
}


def part_of(module: str) -> str:
    """tripartite.kg.extract -> kg; tripartite.pipeline -> pipeline."""
    return module.split(".")[1]


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every `tripartite.*` import in the file, wherever it stands."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tripartite."):
            names = [node.module] if node.module.count(".") > 1 or node.module != "tripartite" else []
            if node.module in ("tripartite.cli", "tripartite.infra"):  # `from tripartite.cli import search`
                names = [f"{node.module}.{alias.name}" for alias in node.names]
            found += [(node.lineno, name) for name in names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names if alias.name.startswith("tripartite.")]
    return found


def test_every_import_stays_on_its_floor_or_goes_down():
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE.parent).with_suffix("")
        if len(relative.parts) == 2 and relative.parts[1] == "__init__":
            continue  # the package's face
        own = part_of(".".join(relative.parts))
        assert own in FLOORS, f"{path}: a part docs/layout.md does not place on a floor"
        for line, module in imports(path):
            other = part_of(module)
            if other != own and FLOORS.get(other, 99) >= FLOORS[own]:
                wrong.append(f"{relative}.py:{line} ({own}, floor {FLOORS[own]}) imports {module} "
                             f"(floor {FLOORS.get(other, '?')})")
    assert not wrong, "imports that stay on a floor or run back up:\n" + "\n".join(wrong)


def test_command_line_modules_stay_small():
    long = {p.name: n for p in (PACKAGE / "cli").glob("*.py") if (n := len(p.read_text().splitlines())) > 300}
    assert not long, long
