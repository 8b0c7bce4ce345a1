import pathlib
import sys

# tests import their helpers (oracle.py) as top-level modules
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
