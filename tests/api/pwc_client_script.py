"""Run by tests/api/test_pwc_client.py in the client's own virtual environment.

    python pwc_client_script.py BASE_URL IDS_JSON

Reads the site through `paperswithcode-client` (0.3.1) as a PwC user's script
would, calling every read call the client has with the ids IDS_JSON names,
and prints what it read as JSON for the test to check, with the names of the
client's read calls and of those it made.
"""

import json
import sys

from paperswithcode import PapersWithCodeClient

# The client's calls that write: the site answers them 405.
WRITES = ("_add", "_create", "_update", "_delete", "_synchronize")


def read_calls():
    """Every public call of the client that reads."""
    return sorted(
        name
        for name in vars(PapersWithCodeClient)
        if not name.startswith("_") and not name.endswith(WRITES)
    )


class Recording:
    """The client, noting each call made through it."""

    def __init__(self, client):
        self.client = client
        self.made = set()

    def __getattr__(self, name):
        self.made.add(name)
        return getattr(self.client, name)


def every(fetch, **kwargs):
    """All results of a paginated call, following next_page as a client script does."""
    found, page = [], 1
    while page:
        result = fetch(page=page, **kwargs)
        found += [item.dict() for item in result.results]
        page = result.next_page
    return found, result.count


def listed(fetch, **kwargs):
    return every(fetch, **kwargs)[0]


def main(url, ids):
    ids = json.loads(ids)
    client = Recording(PapersWithCodeClient(url=url))
    evaluation, paper, task = ids["evaluation"], ids["paper"], ids["task"]
    owner, name = ids["owner"], ids["name"]
    conference, proceeding = ids["conference"], ids["proceeding"]
    results, results_count = every(
        client.evaluation_result_list, evaluation_id=evaluation, items_per_page=10
    )
    metrics = listed(client.evaluation_metric_list, evaluation_id=evaluation)
    read = {
        "search": client.search(q=ids["search"]).dict(),
        "papers": listed(client.paper_list, items_per_page=3),
        "papers_by_abstract": client.paper_list(abstract=ids["abstract"]).dict(),
        "paper": client.paper_get(paper).dict(),
        "paper_datasets": listed(client.paper_dataset_list, paper_id=paper),
        "paper_repositories": listed(client.paper_repository_list, paper_id=paper),
        "paper_tasks": listed(client.paper_task_list, paper_id=paper),
        "paper_methods": listed(client.paper_method_list, paper_id=paper),
        "paper_results": listed(client.paper_result_list, paper_id=paper),
        "repositories": listed(client.repository_list, items_per_page=1),
        "repositories_with_stars": client.repository_list(stars=1, framework="pytorch").dict(),
        "owner_repositories": client.repository_owner_list(owner).dict(),
        "repository": client.repository_get(owner, name).dict(),
        "repository_papers": listed(client.repository_paper_list, owner=owner, name=name),
        "authors": listed(client.author_list),
        "author": client.author_get(ids["author"]).dict(),
        "author_papers": listed(client.author_paper_list, author_id=ids["author"]),
        "conferences": listed(client.conference_list, q=""),
        "conference": client.conference_get(conference).dict(),
        "proceedings": listed(client.proceeding_list, conference_id=conference),
        "proceeding": client.proceeding_get(conference, proceeding).dict(),
        "proceeding_papers": listed(
            client.proceeding_paper_list, conference_id=conference, proceeding_id=proceeding
        ),
        "areas": listed(client.area_list, items_per_page=5),
        "area": client.area_get(ids["area"]).dict(),
        "area_tasks": listed(client.area_task_list, area_id=ids["area"]),
        "tasks": listed(client.task_list),
        "searched_tasks": client.task_list(q="distribution").dict(),
        "task": client.task_get(task).dict(),
        "task_parents": listed(client.task_parent_list, task_id=task),
        "task_children": listed(client.task_child_list, task_id=task),
        "task_papers": listed(client.task_paper_list, task_id=task),
        "task_evaluations": listed(client.task_evaluation_list, task_id=task),
        "datasets": listed(client.dataset_list, name=""),
        "dataset": client.dataset_get(ids["dataset"]).dict(),
        "dataset_evaluations": listed(client.dataset_evaluation_list, dataset_id=ids["dataset"]),
        "methods": listed(client.method_list),
        "method": client.method_get(ids["method"]).dict(),
        "evaluations": listed(client.evaluation_list),
        "evaluation": client.evaluation_get(evaluation).dict(),
        "metrics": metrics,
        "metric": client.evaluation_metric_get(evaluation, metrics[1]["id"]).dict(),
        "results": results,
        "results_count": results_count,
        "result": client.evaluation_result_get(evaluation, results[0]["id"]).dict(),
        "read_calls": read_calls(),
    }
    read["calls_made"] = sorted(client.made)
    json.dump(read, sys.stdout, default=str)


if __name__ == "__main__":
    main(*sys.argv[1:])
