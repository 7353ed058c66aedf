"""lanes._textdoc: text and TOML files someone else wrote, read with _jsondoc's refusals."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from lanes._jsondoc import failing_with
from lanes._textdoc import load_toml, read_text
from lanes.errors import ConfigError

if TYPE_CHECKING:
    from pathlib import Path

FAIL = failing_with(ConfigError, "make it a regular UTF-8 file")


def test_text_is_returned_byte_for_byte_crlf_included(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_bytes(b'[project]\r\nname = "x"\r\n')
    assert read_text(path, what="p", fail=FAIL) == '[project]\r\nname = "x"\r\n'
    assert load_toml(path, what="p", fail=FAIL) == {"project": {"name": "x"}}


def test_an_absent_file_is_none(tmp_path: Path) -> None:
    assert read_text(tmp_path / "absent", what="p", fail=FAIL) is None
    assert load_toml(tmp_path / "absent", what="p", fail=FAIL) is None


@pytest.mark.timeout(30)
@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "directory", "symlink", "huge", "latin-1"])
def test_what_is_not_a_small_regular_utf8_file_is_refused(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "f.toml"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "directory":
        path.mkdir()
    elif kind == "symlink":
        (tmp_path / "real.toml").write_text("", encoding="utf-8")
        path.symlink_to(tmp_path / "real.toml")
    elif kind == "huge":
        with path.open("wb") as handle:
            handle.truncate(2048)
    else:
        path.write_bytes(b"caf\xe9")
    with pytest.raises(ConfigError) as caught:
        read_text(path, what="the file", fail=FAIL, max_bytes=1024)
    assert caught.value.message.startswith("the file ")
    assert caught.value.hint == "make it a regular UTF-8 file"


def test_a_user_named_link_is_followed_when_asked(tmp_path: Path) -> None:
    (tmp_path / "real.toml").write_text("a = 1\n", encoding="utf-8")
    (tmp_path / "link.toml").symlink_to(tmp_path / "real.toml")
    assert load_toml(tmp_path / "link.toml", what="p", fail=FAIL, follow_symlinks=True) == {"a": 1}


@pytest.mark.parametrize(
    ("text", "why"),
    [("a = " + "[" * 100_000 + "]" * 100_000, "too deeply"), ("a = ", "not valid TOML")],
)
def test_bad_or_too_deep_toml_is_refused(tmp_path: Path, text: str, why: str) -> None:
    path = tmp_path / "p.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=why):
        load_toml(path, what="p", fail=FAIL)
