"""Results editors add: cited, marked on the page, exported apart, kept by every re-load."""

import html as htmllib
import json
import re

import pytest
from django.urls import reverse

from leaderboards import record
from leaderboards.models import EditorAddition, EditorialChange
from tests.helpers import (
    NEW_MODEL,
    RANK_CELL,
    SEED_FILE,
    SEED_SLUG,
    add_in_admin,
    admin_url,
    exported,
)
from tests.hostile import SCRIPT

BOARD = reverse("leaderboards:leaderboard", args=[SEED_SLUG])
JSON = reverse("leaderboards:leaderboard_json", args=[SEED_SLUG])
CSV = reverse("leaderboards:leaderboard_csv", args=[SEED_SLUG])
CHANGES = reverse("leaderboards:changes")
ADD = admin_url(EditorAddition, "add") + f"?board={SEED_SLUG}"


def test_an_editor_adds_a_result_and_the_page_marks_it(seeded, editor_client, client):
    response = add_in_admin(editor_client, seeded)
    assert response.status_code == 302, response.content.decode()[:3000]
    html = client.get(BOARD).content.decode()
    row = re.search(r"<tr>\s*" + RANK_CELL.format("—") + ".*?</tr>", html, re.S).group(0)
    assert NEW_MODEL in row and "added by editors" in row
    # Its note is text on the page, not a tooltip; its citation is the paper's link.
    assert '<span class="added-note">Table 2 of the paper' in row
    assert "98.1 ± 0.1" in row and "9.87" in row
    assert 'href="https://arxiv.org/abs/2511.00001"' in row
    assert (
        "22 rows and 1 result added by editors after the archive, without an archive rank: "
        "it sorts among the rows by value" in html
    )
    # In the archive's order it comes last; sorted by a metric, it ranks among the rows.
    table = html[html.index('id="results"') :]
    assert table.rindex("CMA(ViT-B/16, NegLabel)") < table.index(NEW_MODEL)
    html = client.get(BOARD, {"sort": "FPR95", "order": "asc"}).content.decode()
    table = html[html.index('id="results"') :]
    assert table.index(NEW_MODEL) < table.index("CMA(ViT-B/16, NegLabel)")


def test_the_export_carries_additions_apart_and_the_archive_rows_as_they_were(
    seeded, editor_client, client
):
    add_in_admin(editor_client, seeded)
    document = exported(client)
    stored = json.loads(SEED_FILE.read_text(encoding="utf-8"))
    assert document["rows"] == stored["rows"] and document["counts"] == stored["counts"]
    [added] = document["editor_additions"]
    assert list(document)[-1] == "editor_additions"
    assert added["model"] == NEW_MODEL
    assert added["metrics"] == {"FPR95": "9.87", "AUROC": "98.1 ± 0.1"}
    assert added["paper_url"] == "https://arxiv.org/abs/2511.00001"
    assert added["paper_date"] == "2025-11-02" and added["code"] is None
    assert added["note"].startswith("Table 2")
    assert added["added_by"] == "an editor"  # erin gave no name
    # The CSV is the archive's rows.
    assert NEW_MODEL not in client.get(CSV).content.decode()


def test_an_unchanged_page_exports_byte_for_byte_with_no_additions_field(seeded, client):
    body = client.get(JSON).content
    assert b"editor_additions" not in body
    assert json.loads(body) == json.loads(SEED_FILE.read_text(encoding="utf-8"))


def test_an_addition_survives_a_reload_of_a_changed_file(
    seeded, editor_client, client, load, seed_page, write_page
):
    add_in_admin(editor_client, seeded)
    seed_page["syntology"]["read_at"] = "2026-11-01T00:00:00+00:00"
    seed_page["rows"] = seed_page["rows"][:5]
    from leaderboards.format import derive

    seed_page["counts"] = derive.page_counts(seed_page["rows"])
    seed_page["syntology"].update(derive.syntology_figures(seed_page["rows"]))
    for name in ("samples_over_distinct_papers", "samples_row_weighted"):
        seed_page["syntology"][name]["note"] = "n"
    ok, out, err = load(write_page(seed_page))
    assert ok and "1 updated" in out, err
    html = client.get(BOARD).content.decode()
    assert NEW_MODEL in html and "5 rows and 1 result added by editors" in html
    assert [a["model"] for a in exported(client)["editor_additions"]] == [NEW_MODEL]


def test_a_withheld_addition_leaves_the_page_and_export_and_the_record_shows_the_reason(
    seeded, editor_client, client
):
    add_in_admin(editor_client, seeded)
    addition = EditorAddition.objects.get()
    response = editor_client.post(
        admin_url(EditorAddition, "changelist"),
        {
            "action": "withhold",
            "_selected_action": [addition.pk],
            "reason": "The paper was withdrawn.",
            "apply": "1",
        },
    )
    assert response.status_code == 302
    assert NEW_MODEL not in client.get(BOARD).content.decode()
    assert "editor_additions" not in exported(client)
    record_html = client.get(CHANGES).content.decode()
    assert "The paper was withdrawn." in record_html
    # Neither the withheld entry nor the earlier "added" one names it any more.
    assert NEW_MODEL not in record_html and "98.1" not in record_html
    kinds = list(EditorialChange.objects.order_by("-pk").values_list("kind", flat=True))
    assert kinds == ["added_withheld", "added"]
    # Restored, it is back, with its record.
    record.restore_additions([addition], None)
    assert NEW_MODEL in client.get(BOARD).content.decode()
    assert NEW_MODEL in client.get(CHANGES).content.decode()


@pytest.mark.parametrize(
    "changes, error",
    [
        ({"paper_url": ""}, "This field is required."),
        ({"paper_url": "javascript:alert(1)"}, "Cite the paper with an http(s) URL."),
        ({"note": ""}, "This field is required."),
        ({"model": ""}, "This field is required."),
        ({"value_0": "", "value_1": " "}, "at least one metric"),
        ({"code": "ftp://example.org/x"}, "A code link is an http(s) URL"),
    ],
)
def test_an_addition_needs_a_citation_a_note_and_a_value(seeded, editor_client, changes, error):
    response = add_in_admin(editor_client, seeded, **changes)
    assert response.status_code == 200
    assert error in response.content.decode()
    assert not EditorAddition.objects.exists()


def test_hostile_values_are_shown_as_text(seeded, editor_client, client):
    add_in_admin(editor_client, seeded, model=SCRIPT, note=SCRIPT, value_0=SCRIPT)
    html = client.get(BOARD).content.decode()
    assert SCRIPT not in html
    assert "&lt;script&gt;" in html
    assert exported(client)["editor_additions"][0]["model"] == SCRIPT


def test_the_add_form_asks_for_a_board_first_and_an_unknown_one_is_said(seeded, editor_client):
    response = editor_client.get(admin_url(EditorAddition, "add"))
    assert response.status_code == 200 and "which leaderboard?" in response.content.decode()
    response = editor_client.get(admin_url(EditorAddition, "add") + "?board=nope")
    assert "No leaderboard has the slug" in response.content.decode()
    html = editor_client.get(ADD).content.decode()
    assert 'for="id_value_0">FPR95:' in html and 'for="id_value_1">AUROC:' in html


def _with_one_entry(load, seed_page, write_page):
    """The seed with one since-archive entry, a month old when the archive ended."""
    since = seed_page["since_archive"]
    since["columns"] = ["model", "metric", "value", "paper", "arxiv_id", "month"]
    since["entries"] = [
        {
            "model": "Promoted & Co",
            "metric": "AUROC",
            "value": "97.25",
            "paper": "A newer paper",
            "arxiv_id": "2510.01234",
            "month": "2025-10",
        }
    ]
    ok, _, err = load(write_page(seed_page))
    assert ok, err


def test_a_since_archive_entry_is_promoted_into_the_form(
    load, seed_page, write_page, editor_client
):
    _with_one_entry(load, seed_page, write_page)
    html = editor_client.get(ADD).content.decode()
    link = re.search(r'<a class="button promote" href="([^"]+)">Promote</a>', html).group(1)
    form = editor_client.get(link.replace("&amp;", "&")).content.decode()
    assert 'value="Promoted &amp; Co"' in form
    assert 'name="value_1" value="97.25"' in form
    assert 'value="https://arxiv.org/abs/2510.01234"' in form
    assert "Promoted from Syntology" in form and "2510.01234" in form
    # The entry knows its month, not its day: the month is carried over as a month.
    assert 'name="paper_month" value="2025-10"' in form


def _promote(editor_client, link):
    """Open a Promote link and save the form as it was filled."""
    form = editor_client.get(link.replace("&amp;", "&")).content.decode()
    fields = dict(re.findall(r'<input[^>]* name="([^"]+)"[^>]* value="([^"]*)"', form))
    fields.update(re.findall(r'<textarea name="([^"]+)"[^>]*>\s*(.*?)</textarea>', form, re.S))
    fields = {name: htmllib.unescape(value) for name, value in fields.items()}
    fields.update(paper_title=fields.get("paper_title") or "A newer paper", _save="Save")
    return editor_client.post(link.replace("&amp;", "&"), fields)


def test_an_entry_is_promoted_once_and_marked_in_both_lists(
    load, seed_page, write_page, editor_client, client
):
    _with_one_entry(load, seed_page, write_page)
    html = editor_client.get(ADD).content.decode()
    link = re.search(r'<a class="button promote" href="([^"]+)">Promote</a>', html).group(1)
    assert _promote(editor_client, link).status_code == 302
    [added] = EditorAddition.objects.all()
    assert (added.model, added.paper_month, added.paper_date) == ("Promoted & Co", "2025-10", None)
    # Marked in the editors' list, with no second Promote button...
    html = editor_client.get(ADD).content.decode()
    assert 'class="button promote"' not in html and ">promoted</a>" in html
    # ...and on the public page, whose table gives the month.
    page = client.get(BOARD).content.decode()
    since_block = page[page.index('id="since-archive"') :]
    assert '<span class="badge added">promoted</span>' in since_block
    row = re.search(r"<tr>\s*" + RANK_CELL.format("—") + ".*?</tr>", page, re.S).group(0)
    assert '<td class="date">Oct 2025</td>' in row
    assert exported(client)["editor_additions"][0]["paper_month"] == "2025-10"
    # A second try, from a form opened before the first was saved, is told so.
    again = _promote(editor_client, link)
    assert again.status_code == 200
    assert "This entry was promoted already" in again.content.decode()
    assert EditorAddition.objects.count() == 1


def test_a_promotion_racing_another_is_refused_under_the_lock(seeded, editor):
    def promoted(model):
        return EditorAddition(
            leaderboard=seeded,
            model=model,
            metrics={"AUROC": "97.25"},
            paper_title="t",
            paper_url="https://arxiv.org/abs/2510.01234",
            note="n",
            promoted_from="a" * 64,
        )

    record.add_result(promoted("first"), editor)
    with pytest.raises(record.AlreadyPromoted) as refused:
        record.add_result(promoted("second"), editor)
    assert refused.value.addition.model == "first"
    assert EditorAddition.objects.count() == 1


def test_additions_are_only_for_editors(seeded, client):
    assert client.get(ADD).status_code == 302  # to the login page


def test_the_page_looks_for_additions_in_one_query_however_many(
    seeded, editor, client, django_assert_num_queries
):
    # An untouched board pays nothing: test_leaderboard_page pins it.
    first = record.add_result(
        EditorAddition(
            leaderboard=seeded,
            model="One",
            metrics={"AUROC": "90.1"},
            paper_title="t",
            paper_url="https://example.org/1",
            note="n",
        ),
        editor,
    )
    with django_assert_num_queries(9):
        client.get(BOARD)
    for index in range(30):
        first.pk = None
        first.model = f"Added {index}"
        record.add_result(first, editor)
    with django_assert_num_queries(9):
        html = client.get(BOARD).content.decode()
    assert html.count('<span class="badge added">added by editors</span>') == 31
    # The export reads them in one more query than an untouched board's.
    with django_assert_num_queries(8):
        client.get(JSON)
