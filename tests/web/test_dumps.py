"""/dumps/: the list of the current dump set, and its files downloaded whole, in ranges,
or not at all when the client has them (issue #30)."""

import datetime
import gzip
import hashlib
import json
import re
from html import unescape

import pytest
from django.urls import reverse

from leaderboards.dumps import export
from leaderboards.dumps.export import export_set
from leaderboards.web.views.dumps import byte_range
from tests.helpers import html

PAGES = "pages.tar.gz"


@pytest.fixture
def dumps(seeded, tmp_path, settings):
    settings.SOTASITE_DUMPS_DIR = tmp_path
    manifest = export_set(tmp_path)
    return {entry["name"]: entry for entry in manifest["files"]}


def body(response):
    return b"".join(response.streaming_content) if response.streaming else response.content


def test_no_dumps_yet_the_page_says_so_and_files_are_not_found(db, client, settings, tmp_path):
    settings.SOTASITE_DUMPS_DIR = tmp_path / "none"
    assert "No dumps have been written yet" in html(client, reverse("leaderboards:dumps"))
    assert client.get(reverse("leaderboards:dumps_manifest")).status_code == 404
    assert client.get(reverse("leaderboards:dumps_file", args=[PAGES])).status_code == 404


def test_the_page_lists_each_file_with_its_size_and_checksum(dumps, client):
    page = html(client, reverse("leaderboards:dumps"))
    for name, entry in dumps.items():
        assert f'href="/dumps/{name}"' in page
        assert entry["sha256"] in page
    assert "1 boards" in page
    assert 'href="/dumps/"' in html(client, "/")  # the footer links it


def test_the_page_says_when_the_set_was_made_as_the_site_writes_times(
    db, client, settings, tmp_path, monkeypatch
):
    settings.SOTASITE_DUMPS_DIR = tmp_path
    made = datetime.datetime(2026, 3, 5, 14, 7, 9, 654321, tzinfo=datetime.UTC)
    monkeypatch.setattr(export.timezone, "now", lambda: made)
    export_set(tmp_path)
    page = html(client, reverse("leaderboards:dumps"))
    assert '<time datetime="2026-03-05T14:07:09+00:00">5 Mar 2026, 14:07 UTC</time>' in page
    seen = " ".join(unescape(re.sub(r"<[^>]*>", " ", page)).split())
    assert "Made 5 Mar 2026, 14:07 UTC from data version" in seen
    assert "2026-03-05" not in seen


def test_manifest_json_is_the_sets_manifest(dumps, client):
    response = client.get(reverse("leaderboards:dumps_manifest"))
    assert {entry["name"]: entry for entry in json.loads(response.content)["files"]} == dumps
    assert "no-cache" in response["Cache-Control"]


def test_a_file_downloads_whole_with_its_length_and_etag(dumps, client):
    response = client.get(f"/dumps/{PAGES}")
    data = body(response)
    assert response.status_code == 200
    assert int(response["Content-Length"]) == len(data) == dumps[PAGES]["size"]
    assert hashlib.sha256(data).hexdigest() == dumps[PAGES]["sha256"]
    assert response["ETag"] == f'"{dumps[PAGES]["sha256"]}"'
    assert response["Accept-Ranges"] == "bytes"
    assert response["Content-Type"] == "application/gzip"
    assert "Content-Encoding" not in response  # a browser keeps it gzipped
    assert response.streaming


def test_a_file_the_client_has_answers_304(dumps, client):
    etag = f'"{dumps[PAGES]["sha256"]}"'
    response = client.get(f"/dumps/{PAGES}", headers={"if-none-match": f'"other", {etag}'})
    assert response.status_code == 304 and response.content == b""
    response = client.get(f"/dumps/{PAGES}", headers={"if-none-match": '"other"'})
    assert response.status_code == 200
    response.close()


@pytest.mark.parametrize(
    ("header", "start", "end"),
    [
        ("bytes=0-9", 0, 9),
        ("bytes=10-", 10, None),
        ("bytes=-7", -7, None),
        ("bytes=5-99999999", 5, None),
    ],
)
def test_a_range_answers_206_with_those_bytes(dumps, client, tmp_path, header, start, end):
    whole = (tmp_path / "current" / PAGES).read_bytes()
    response = client.get(f"/dumps/{PAGES}", headers={"range": header})
    expected = whole[start : None if end is None else end + 1]
    assert response.status_code == 206
    assert body(response) == expected
    assert int(response["Content-Length"]) == len(expected)
    first = start if start >= 0 else len(whole) + start
    assert response["Content-Range"] == f"bytes {first}-{first + len(expected) - 1}/{len(whole)}"


def test_a_range_past_the_end_answers_416(dumps, client):
    size = dumps[PAGES]["size"]
    for header in (f"bytes={size}-", f"bytes={size + 5}-{size + 9}", "bytes=-0"):
        response = client.get(f"/dumps/{PAGES}", headers={"range": header})
        assert response.status_code == 416, header
        assert response["Content-Range"] == f"bytes */{size}"


def test_several_ranges_or_garbage_answer_the_whole_file(dumps, client):
    for header in ("bytes=0-1,5-9", "bytes=x-y", "lines=1-2", "bytes=9-3", "bytes=-"):
        response = client.get(f"/dumps/{PAGES}", headers={"range": header})
        assert response.status_code == 200, header
        assert len(body(response)) == dumps[PAGES]["size"]


def test_a_range_of_another_version_answers_the_whole_file(dumps, client):
    response = client.get(f"/dumps/{PAGES}", headers={"range": "bytes=0-9", "if-range": '"old"'})
    assert response.status_code == 200
    assert len(body(response)) == dumps[PAGES]["size"]


@pytest.mark.parametrize(
    "name",
    ["..%2Fmanifest.json", "%2E%2E", "..", "current", "sets", "manifest.json.gz",
     "..%2F..%2Fsettings.py", "%2Fetc%2Fpasswd", "pages.tar.gz%00", "PAGES.TAR.GZ"],
)  # fmt: skip
def test_only_a_name_the_manifest_lists_is_served(dumps, client, name):
    assert client.get(f"/dumps/{name}").status_code in (400, 404)


def test_a_gzipped_record_file_is_valid_json(dumps, client):
    data = gzip.decompress(body(client.get("/dumps/datasets.json.gz")))
    assert isinstance(json.loads(data), list)


def test_byte_range_reads_each_form():
    assert byte_range("bytes=0-0", 10) == (0, 0)
    assert byte_range("bytes=-20", 10) == (0, 9)
    assert byte_range("bytes=9-", 10) == (9, 9)
    assert byte_range("bytes=10-", 10) == "unsatisfiable"
    assert byte_range(None, 10) is None
    assert byte_range("bytes=1-2, 4-5", 10) is None


def test_the_page_reads_no_database_however_many_files(dumps, client, django_assert_num_queries):
    with django_assert_num_queries(0):
        client.get(reverse("leaderboards:dumps"))
    with django_assert_num_queries(0):
        client.get(f"/dumps/{PAGES}", headers={"range": "bytes=0-3"}).close()


def test_a_manifest_naming_a_path_out_of_the_set_serves_nothing(dumps, client, tmp_path):
    manifest_path = tmp_path / "current" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["files"].append({"name": "../../secret", "size": 1, "sha256": "0" * 64})
    manifest_path.write_text(json.dumps(manifest))
    (tmp_path / "secret").write_text("x")
    assert client.get("/dumps/..%2F..%2Fsecret").status_code == 404


def test_head_tells_the_length_without_the_body(dumps, client):
    response = client.head(f"/dumps/{PAGES}")
    assert response.status_code == 200
    assert int(response["Content-Length"]) == dumps[PAGES]["size"]
    assert body(response) == b""
