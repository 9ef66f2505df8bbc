"""Every output path of the cardgym command is checked before the work starts: a folder, a missing
parent, a file in the way, an unwritable place or a name too long end in one line and exit code 2;
a write that fails later (a full device) too."""

from __future__ import annotations

import pytest

from cardgym.cli import main
from cardgym.app.game_records import play_recorded


@pytest.fixture
def places(tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    afile = tmp_path / "afile"
    afile.write_text("x")
    return {"folder": str(folder), "file": str(afile), "missing": str(tmp_path / "nope" / "out"),
            "under_file": str(afile / "out"), "long": str(tmp_path / ("n" * 300)), "proc": "/proc/cardgym-out"}


def _fails(capsys, argv, words, flag=None):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    err = capsys.readouterr().err.strip()
    assert exc.value.code == 2, (argv, err)
    assert len(err.splitlines()) == 1 and words in err, (argv, err)
    assert flag is None or f"argument {flag}: " in err, (argv, err)
    assert "Traceback" not in err
    return err


FILE_CASES = [("folder", "is a folder; give a file name"), ("missing", "does not exist"),
              ("under_file", "is not a folder"), ("long", "bytes long; the file system takes at most"), ("proc", "cannot be written")]


@pytest.mark.parametrize("where,words", FILE_CASES, ids=[c[0] for c in FILE_CASES])
def test_file_outputs_are_checked_first(places, capsys, tmp_path, where, words):
    path = places[where] + ("" if where == "folder" else ".jsonl")
    _fails(capsys, ["play", "skyjo", "--record", path], words, "--record")
    rec = play_recorded("skipbo_junior", ["random", "random"], seed=1).save(tmp_path / "r.jsonl")
    err = _fails(capsys, ["replay", str(rec), "--gif", path], words, "--gif")
    assert "cardgym replay" in err
    _fails(capsys, ["bench", "--json", path], words, "--json")


FOLDER_CASES = [("file", "is a file, not a folder"), ("under_file", "is not a folder"), ("long", "bytes long; the file system takes at most"),
                ("proc", "cannot be written")]


@pytest.mark.parametrize("where,words", FOLDER_CASES, ids=[c[0] for c in FOLDER_CASES])
def test_folder_outputs_are_checked_first(places, capsys, where, words):
    path = places[where]
    _fails(capsys, ["eval", "skyjo", "--bots", "random,greedy", "--games", "2", "--record", path],
           words, "--record")
    _fails(capsys, ["new-game", "mygame", "--dir", path], words, "--dir")
    _fails(capsys, ["train", "skyjo", "--steps", "100", "--out", path], words, "--out")


def test_a_new_game_name_too_long_for_a_folder(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _fails(capsys, ["new-game", "g" * 300], "the folder of NAME: the name cardgym-ggg")
    assert not list(tmp_path.iterdir())


@pytest.mark.slow
def test_a_write_that_fails_late_is_one_line(capsys, tmp_path):
    rec = play_recorded("skipbo_junior", ["random", "random"], seed=1).save(tmp_path / "r.jsonl")
    _fails(capsys, ["replay", str(rec), "--gif", "/dev/full"], "could not write /dev/full: No space left on device")


@pytest.mark.slow
def test_good_outputs_are_written(capsys, tmp_path):
    out = tmp_path / "new" / "records"  # a folder output is made with its parents
    main(["eval", "skipbo_junior", "--bots", "random,greedy", "--games", "2", "--record", str(out)])
    assert len(list(out.glob("*.jsonl"))) == 1
    gif = tmp_path / "r.gif"
    main(["replay", str(next(out.glob("*.jsonl"))), "--gif", str(gif)])
    assert gif.read_bytes()[:3] == b"GIF"
