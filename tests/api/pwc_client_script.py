"""Run by tests/api/test_pwc_client.py in the client's own virtual environment.

    python pwc_client_script.py BASE_URL EVALUATION_ID

Reads the site through `paperswithcode-client` (0.3.1) as a PwC user's script
would, and prints what it read as JSON for the test to check.
"""

import json
import sys

from paperswithcode import PapersWithCodeClient


def every(fetch, **kwargs):
    """All results of a paginated call, following next_page as a client script does."""
    found, page = [], 1
    while page:
        result = fetch(page=page, **kwargs)
        found += [item.dict() for item in result.results]
        page = result.next_page
    return found, result.count


def main(url, evaluation_id):
    client = PapersWithCodeClient(url=url)
    areas, _ = every(client.area_list, items_per_page=5)
    tasks, _ = every(client.task_list)
    datasets, _ = every(client.dataset_list)
    evaluations, _ = every(client.evaluation_list)
    results, results_count = every(
        client.evaluation_result_list, evaluation_id=evaluation_id, items_per_page=10
    )
    metrics, _ = every(client.evaluation_metric_list, evaluation_id=evaluation_id)
    first_paper = results[0]["paper"]
    read = {
        "areas": areas,
        "tasks": tasks,
        "datasets": datasets,
        "evaluations": evaluations,
        "evaluation": client.evaluation_get(evaluation_id).dict(),
        "metrics": metrics,
        "results": results,
        "results_count": results_count,
        "paper": client.paper_get(first_paper).dict(),
        "paper_results": every(client.paper_result_list, paper_id=first_paper)[0],
        "searched_tasks": client.task_list(q="distribution").dict(),
    }
    json.dump(read, sys.stdout, default=str)


if __name__ == "__main__":
    main(*sys.argv[1:])
