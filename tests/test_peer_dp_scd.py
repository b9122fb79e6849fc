"""``python -m benchmarks.peer_dp_scd`` fetches nothing: it refuses an ``--authors-code`` path that
is not a checkout of the dp-scd authors' code with a usage error that names the path and says how
to obtain the code, before loading any data or writing any output."""
import pytest

from benchmarks import peer_dp_scd

OBTAIN = "git clone https://github.com/gdamaskinos/dpscd && git -C dpscd checkout 00d593f"


def missing(tmp_path):
    return tmp_path / "no-such-checkout"


def empty(tmp_path):
    path = tmp_path / "empty"
    path.mkdir()
    return path


def partial(tmp_path):
    path = tmp_path / "partial"
    path.mkdir()
    (path / "optimizer.py").write_text("")
    return path


@pytest.mark.parametrize("make, says", [(missing, "does not exist"), (empty, "lacks optimizer.py"),
                                        (partial, "lacks standaloneLR.py, standaloneSVM.py, accountant.py")])
def test_a_path_without_the_authors_code_is_a_usage_error_naming_it_and_how_to_obtain_it(tmp_path, capsys, make,
                                                                                         says):
    path = make(tmp_path)
    with pytest.raises(SystemExit) as stop:
        peer_dp_scd.main(["--authors-code", str(path), "--output", str(tmp_path / "out")])
    assert stop.value.code == 2
    error = capsys.readouterr().err
    assert f"--authors-code {path}: {says}" in error
    assert OBTAIN in error
    assert not (tmp_path / "out").exists()
