"""README's Layout section is checked against the tree: every folder and top-level module
of the package is named there, and every path it names exists."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def layout_section():
    text = (ROOT / "README.md").read_text()
    match = re.search(r"^## Layout\n(.*?)(?=^## |\Z)", text, flags=re.S | re.M)
    assert match, "README.md has no '## Layout' section"
    return match.group(1)


def named_paths(section):
    """Backticked paths of the section (`binlogkit/printer/`, `fixtures/generate.py`),
    and paths written relative to the folder the bullet names (`dump.py` under
    `binlogkit/printer/`)."""
    paths = set()
    for bullet in re.split(r"\n(?=- )", section):
        folder = None
        for token in re.findall(r"`([^`\s]+)`", bullet):
            token = token.rstrip(",;:")
            if "/" in token and not token.startswith(("-", "$")):
                paths.add(token)
                if token.endswith("/"):
                    folder = token
            elif folder and re.fullmatch(r"[\w.*]+\.(py|c|h|sql|json|ipynb)", token):
                paths.add(folder + token)
    return paths


def package_parts():
    """Folders of binlogkit/ and the modules directly in it."""
    pkg = ROOT / "binlogkit"
    parts = set()
    for path in pkg.rglob("*"):
        if "__pycache__" in path.parts or path.name.startswith("."):
            continue
        rel = path.relative_to(ROOT).as_posix()
        if path.is_dir() and any(p.suffix in (".py", ".c") for p in path.iterdir()):
            parts.add(rel + "/")
        elif path.parent == pkg and path.suffix == ".py" and path.stem not in ("__init__", "__main__"):
            parts.add(rel)
    return parts


def test_every_folder_and_top_module_is_in_the_layout():
    section = layout_section()
    named = named_paths(section)
    missing = sorted(part for part in package_parts()
                     if part not in named and f"`{part}`" not in section)
    assert missing == [], "README Layout does not name: " + ", ".join(missing)


def test_every_path_the_layout_names_exists():
    gone = sorted(p for p in named_paths(layout_section())
                  if not any(ROOT.glob(p.rstrip("/"))))
    assert gone == [], "README Layout names paths that are not in the tree: " + ", ".join(gone)


def test_the_checker_reads_relative_names():
    section = "- `binlogkit/printer/`: the driver (`dump.py`), `events.py`.\n- `bench/`: `x.py`\n"
    assert named_paths(section) == {"binlogkit/printer/", "binlogkit/printer/dump.py",
                                    "binlogkit/printer/events.py", "bench/", "bench/x.py"}
