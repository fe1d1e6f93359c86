"""The API's OpenAPI 3 description, served at /api/v1/openapi.json.

Built from a few helpers rather than written out in full, so that every list
shares one description of pagination and every endpoint its error responses.
"""


def _ref(name):
    return {"$ref": f"#/components/schemas/{name}"}


def _nullable(kind, **extra):
    return {"type": [kind, "null"], **extra}


STRING = {"type": "string"}
SCHEMAS = {
    "Error": {
        "type": "object",
        "required": ["error"],
        "properties": {"error": STRING},
    },
    "Area": {
        "type": "object",
        "required": ["id", "name"],
        "properties": {"id": STRING, "name": STRING},
    },
    "Task": {
        "type": "object",
        "required": ["id", "name", "description"],
        "properties": {"id": STRING, "name": STRING, "description": STRING},
    },
    "Dataset": {
        "type": "object",
        "required": ["id", "name", "full_name", "url"],
        "properties": {
            "id": STRING,
            "name": STRING,
            "full_name": STRING,
            "url": _nullable("string"),
        },
    },
    "Paper": {
        "type": "object",
        "required": [
            "id",
            "arxiv_id",
            "nips_id",
            "url_abs",
            "url_pdf",
            "title",
            "abstract",
            "authors",
            "published",
            "conference",
            "conference_url_abs",
            "conference_url_pdf",
            "proceeding",
        ],  # fmt: skip
        "properties": {
            "id": STRING,
            "arxiv_id": _nullable("string"),
            "nips_id": _nullable("string"),
            "url_abs": STRING,
            "url_pdf": STRING,
            "title": STRING,
            "abstract": STRING,
            "authors": {"type": "array", "items": STRING},
            "published": _nullable("string", format="date"),
            "conference": _nullable("string"),
            "conference_url_abs": _nullable("string"),
            "conference_url_pdf": _nullable("string"),
            "proceeding": _nullable("string"),
        },
    },
    "EvaluationTable": {
        "type": "object",
        "description": "A leaderboard; its id is the slug of its /sota/ page.",
        "required": ["id", "task", "dataset", "description", "mirror_url"],
        "properties": {
            "id": STRING,
            "task": STRING,
            "dataset": STRING,
            "description": STRING,
            "mirror_url": _nullable("string"),
        },
    },
    "Metric": {
        "type": "object",
        "required": ["id", "name", "description", "is_loss", "direction"],
        "properties": {
            "id": STRING,
            "name": STRING,
            "description": STRING,
            "is_loss": {
                "type": "boolean",
                "description": "true only when the direction is known to be lower-is-better",
            },
            "direction": {"enum": ["higher", "lower", None]},
        },
    },
    "Result": {
        "type": "object",
        "required": [
            "id",
            "best_rank",
            "metrics",
            "methodology",
            "uses_additional_data",
            "paper",
            "best_metric",
            "evaluated_on",
            "external_source_url",
            "evaluation",
            "rank_in_archive_order",
        ],  # fmt: skip
        "properties": {
            "id": STRING,
            "best_rank": _nullable(
                "integer",
                minimum=1,
                description="rank by the metrics whose direction is known; null if none is",
            ),
            "metrics": {
                "type": "object",
                "description": "metric name -> value, the archive's string untouched",
                "additionalProperties": _nullable("string"),
            },
            "methodology": STRING,
            "uses_additional_data": {"type": "boolean"},
            "paper": _nullable("string"),
            "best_metric": _nullable("string"),
            "evaluated_on": _nullable("string", format="date"),
            "external_source_url": _nullable("string"),
            "evaluation": STRING,
            "rank_in_archive_order": {"type": "integer", "minimum": 1},
        },
    },
    "SearchHit": {
        "type": "object",
        "required": ["paper", "repository", "is_official"],
        "properties": {
            "paper": _ref("Paper"),
            "repository": {"type": "null"},
            "is_official": {"type": "boolean"},
        },
    },
}

PAGE_PARAMETERS = [
    {
        "name": "page",
        "in": "query",
        "schema": {"type": "integer", "minimum": 1, "default": 1},
    },
    {
        "name": "items_per_page",
        "in": "query",
        "schema": {"type": "integer", "minimum": 1, "maximum": 500, "default": 50},
    },
]


def _text_parameter(name, description):
    return {
        "name": name,
        "in": "query",
        "description": description,
        # No NUL: PostgreSQL text cannot hold one, so the API refuses it (400).
        "schema": {"type": "string", "maxLength": 200, "pattern": "^[^\\u0000]*$"},
    }


def _error(description):
    return {"description": description, "content": {"application/json": {"schema": _ref("Error")}}}


def _page_of(name):
    return {
        "type": "object",
        "required": ["count", "next", "previous", "results"],
        "properties": {
            "count": {"type": "integer", "minimum": 0},
            "next": _nullable("string"),
            "previous": _nullable("string"),
            "results": {"type": "array", "items": _ref(name)},
        },
    }


def _path_id(name="id"):
    # Every id is a slug: the /sota/, /task/, /dataset/ or /paper/ one.
    return {
        "name": name,
        "in": "path",
        "required": True,
        "schema": {"type": "string", "pattern": "^[-a-zA-Z0-9_]+$"},
    }


def _operation(summary, schema, parameters, listing):
    responses = {
        "200": {"description": "OK", "content": {"application/json": {"schema": schema}}},
        "404": _error("unknown id, or a page past the last"),
    }
    if listing or any(p["in"] == "query" for p in parameters):
        responses["400"] = _error("a bad query parameter")
    return {
        "get": {
            "summary": summary,
            "operationId": summary.lower().replace(" ", "_").replace("'", ""),
            "parameters": parameters + (PAGE_PARAMETERS if listing else []),
            "responses": responses,
        }
    }


def _list(summary, name, *parameters):
    return _operation(summary, _page_of(name), list(parameters), listing=True)


def _detail(summary, name, *parameters):
    return _operation(summary, _ref(name), list(parameters), listing=False)


NAMED = (
    _text_parameter("q", "name contains, case-insensitive"),
    _text_parameter("name", "exact name"),
)
INTEGER_ID = {"in": "path", "required": True, "schema": {"type": "integer", "minimum": 1}}

PATHS = {
    "/areas/": _list("List areas", "Area", *NAMED),
    "/areas/{id}/": _detail("Get area", "Area", _path_id()),
    "/areas/{id}/tasks/": _list("List area tasks", "Task", _path_id()),
    "/tasks/": _list("List tasks", "Task", *NAMED),
    "/tasks/{id}/": _detail("Get task", "Task", _path_id()),
    "/tasks/{id}/evaluations/": _list("List task evaluations", "EvaluationTable", _path_id()),
    "/datasets/": _list(
        "List datasets",
        "Dataset",
        *NAMED,
        _text_parameter("full_name", "exact full name"),
    ),
    "/datasets/{id}/": _detail("Get dataset", "Dataset", _path_id()),
    "/datasets/{id}/evaluations/": _list("List dataset evaluations", "EvaluationTable", _path_id()),
    "/papers/": _list(
        "List papers",
        "Paper",
        _text_parameter("q", "title contains, case-insensitive"),
        _text_parameter("arxiv_id", "exact arXiv id"),
        _text_parameter("title", "exact title"),
    ),
    "/papers/{id}/": _detail("Get paper", "Paper", _path_id()),
    "/papers/{id}/results/": _list("List paper results", "Result", _path_id()),
    "/evaluations/": _list("List evaluations", "EvaluationTable"),
    "/evaluations/{id}/": _detail("Get evaluation", "EvaluationTable", _path_id()),
    "/evaluations/{id}/metrics/": _list("List evaluation metrics", "Metric", _path_id()),
    "/evaluations/{id}/metrics/{metric_id}/": _detail(
        "Get evaluation metric", "Metric", _path_id(), {"name": "metric_id", **INTEGER_ID}
    ),
    "/evaluations/{id}/results/": _list("List evaluation results", "Result", _path_id()),
    "/evaluations/{id}/results/{result_id}/": _detail(
        "Get evaluation result", "Result", _path_id(), {"name": "result_id", **INTEGER_ID}
    ),
    "/search/": _list(
        "Search papers", "SearchHit", _text_parameter("q", "title contains, case-insensitive")
    ),
}


def document(server_url):
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "sotasite: Papers with Code API v1 (read-only subset)",
            "version": "1",
            "description": (
                "The read-only part of the Papers with Code REST API that the "
                "paperswithcode-client package (0.3.1) calls, answered from this site's data."
            ),
        },
        "servers": [{"url": server_url}],
        "paths": PATHS,
        "components": {"schemas": SCHEMAS},
    }
