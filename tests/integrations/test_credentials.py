"""Which login each CalDAV URL is read with (cerebri.integrations.credentials): the longest
matching credentials-file prefix, then the URL's own user, then netrc per host, then the
default login (issue 21 item 12, docs/decisions/0037)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cerebri.integrations.credentials import CalDAVLogins, CredentialsError


def _private(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    path.chmod(0o600)
    return path


def _logins(
    tmp_path: Path,
    document: object | None = None,
    *,
    netrc: str | None = None,
    environ: dict[str, str] | None = None,
) -> CalDAVLogins:
    file = None if document is None else _private(tmp_path / "c.json", json.dumps(document))
    env = dict(environ or {})
    if netrc is not None:
        env["NETRC"] = str(_private(tmp_path / "netrc", netrc))
    return CalDAVLogins.load(
        credentials_file=file, username="dflt", password="dflt-pw", environ=env, home=tmp_path
    )


def _who(logins: CalDAVLogins, url: str) -> tuple[str | None, str | None]:
    login = logins.login_for(url)
    return login.username, login.password


def test_longest_prefix_on_segment_boundaries_wins(tmp_path: Path) -> None:
    logins = _logins(
        tmp_path,
        {
            "https://dav.example.org/": {"user": "site", "password": "s"},
            "https://DAV.example.org:443/alice": {"user": "alice", "password": "a"},
            "https://dav.example.org/alice/work/": {"user": "work", "password_env": "W"},
        },
        environ={"W": "w-pw"},
    )
    assert _who(logins, "https://dav.example.org/alice/work/") == ("work", "w-pw")
    assert _who(logins, "https://dav.example.org/alice/home/") == ("alice", "a")
    assert _who(logins, "https://dav.example.org/alicia/home/") == ("site", "s")
    assert _who(logins, "http://dav.example.org/alice/home/") == ("dflt", "dflt-pw")  # scheme
    assert _who(logins, "https://dav.example.org:8443/alice/") == ("dflt", "dflt-pw")  # port


def test_netrc_per_host_then_its_default_entry(tmp_path: Path) -> None:
    text = "machine dav.example.org login nn password nn-pw\ndefault login any password any-pw\n"
    logins = _logins(tmp_path, netrc=text)
    assert _who(logins, "https://dav.example.org:8443/x/") == ("nn", "nn-pw")
    assert _who(logins, "https://other.example.org/x/") == ("any", "any-pw")
    # the URL's own user name is kept (the library reads it from the URL)
    assert _who(logins, "https://me:pw@dav.example.org/x/") == (None, None)


def test_home_netrc_is_read_and_the_default_is_last(tmp_path: Path) -> None:
    _private(tmp_path / ".netrc", "machine dav.example.org login home password home-pw\n")
    logins = CalDAVLogins.load(
        credentials_file=None, username="dflt", password=None, environ={}, home=tmp_path
    )
    assert _who(logins, "https://dav.example.org/") == ("home", "home-pw")
    assert _who(logins, "https://elsewhere.example.org/") == ("dflt", None)


def test_an_insecure_netrc_is_refused_on_first_use(tmp_path: Path) -> None:
    logins = _logins(tmp_path, netrc="machine h login u password secret-pw\n")
    (tmp_path / "netrc").chmod(0o644)
    with pytest.raises(CredentialsError) as caught:
        logins.login_for("https://h/")
    assert caught.value.code == "credentials.insecure"


def test_a_malformed_netrc_names_the_line_but_quotes_nothing(tmp_path: Path) -> None:
    # Python's netrc reports "bad toplevel token 's3cret-Word'": that text is not passed on.
    text = "machine h login u password p\ns3cret-Word machine g login v password q\n"
    logins = _logins(tmp_path, netrc=text)
    with pytest.raises(CredentialsError) as caught:
        logins.login_for("https://h/")
    assert caught.value.code == "credentials.invalid"
    assert "line 2" in caught.value.message
    assert "s3cret-Word" not in caught.value.message


@pytest.mark.parametrize(
    ("document", "words"),
    [
        ([], "JSON object"),
        ({"ftp://h/": {"user": "u"}}, "not an http"),
        ({"https://u:p@h/": {"user": "u"}}, "without a login"),
        ({"https://h/": {"user": ""}}, '"user"'),
        ({"https://h/": {"user": "u", "password": "p", "password_env": "X"}}, "both"),
        ({"https://h/": {"user": "u", "token": "t"}}, "an object with"),
        ({"https://h/a": {"user": "u"}, "https://H:443/a/": {"user": "v"}}, "same prefix"),
    ],
)
def test_malformed_credentials_files(tmp_path: Path, document: object, words: str) -> None:
    with pytest.raises(CredentialsError) as caught:
        _logins(tmp_path, document)
    assert caught.value.code == "credentials.invalid"
    assert words in caught.value.message


def test_a_named_netrc_that_does_not_exist(tmp_path: Path) -> None:
    with pytest.raises(CredentialsError) as caught:
        CalDAVLogins.load(
            credentials_file=None,
            username=None,
            password=None,
            environ={"NETRC": str(tmp_path / "absent")},
            home=tmp_path,
        )
    assert caught.value.code == "credentials.invalid"
