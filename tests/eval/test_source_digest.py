from pathlib import Path

from meddiag.eval.source_digest import meddiag_digest, source_digest


def _tree(root: Path) -> Path:
    (root / "pkg" / "__pycache__").mkdir(parents=True)
    (root / "pkg" / "ranking.py").write_text("WEIGHT = 0.3\n", encoding="utf-8")
    (root / "pkg" / "limits.csv").write_text("term,low\n", encoding="utf-8")
    return root / "pkg"


def test_the_digest_changes_with_any_source_or_data_file(tmp_path: Path) -> None:
    pkg = _tree(tmp_path)
    before = source_digest(pkg)
    assert source_digest(pkg) == before  # stable
    (pkg / "ranking.py").write_text("WEIGHT = 0.4\n", encoding="utf-8")
    edited = source_digest(pkg)
    assert edited != before
    (pkg / "limits.csv").write_text("term,low\nHP:1,2\n", encoding="utf-8")
    assert source_digest(pkg) != edited
    (pkg / "ranking.py").rename(pkg / "scoring.py")  # same content, another module
    assert source_digest(pkg) not in (before, edited)


def test_compiled_caches_and_other_files_do_not_count(tmp_path: Path) -> None:
    pkg = _tree(tmp_path)
    before = source_digest(pkg)
    (pkg / "__pycache__" / "ranking.cpython-311.pyc").write_bytes(b"\x00\x01")
    (pkg / "__pycache__" / "stale.py").write_text("x = 1\n", encoding="utf-8")
    (pkg / "notes.txt").write_text("scratch\n", encoding="utf-8")
    assert source_digest(pkg) == before


def test_the_installed_package_has_a_digest() -> None:
    digest = meddiag_digest()
    assert len(digest) == 12 and digest == meddiag_digest()
