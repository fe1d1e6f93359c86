"""What a load changed, so its end work reads that and not the whole site.

Each chunk of pages commits an UpkeepPending marker whose `scope` holds the
ids of the boards it wrote and of the tasks, datasets and papers those boards
named before and after (a paper a board no longer cites may lose its "has
code" flag), and the slugs of the models they named (a model a board no
longer names may have lost a board, or its last row, and its search entry says
where it has results). The end of the load joins the scopes of every marker it
finds; a marker without one (a record importer's chunk writes papers, methods
and code links beyond any board), or one written before scopes named models,
owes the whole site's work, and so does a load that changed so much that
set-based statements over every row are cheaper.
"""

import dataclasses

# Past this many boards or papers one statement over every row is cheaper than
# many over a few: a first load, or a re-load of most of the site.
WHOLE_SITE_BOARDS = 2000
WHOLE_SITE_PAPERS = 20000
WHOLE_SITE_MODELS = 20000

_FIELDS = ("boards", "tasks", "datasets", "papers", "models")


@dataclasses.dataclass
class Scope:
    boards: set = dataclasses.field(default_factory=set)
    tasks: set = dataclasses.field(default_factory=set)
    datasets: set = dataclasses.field(default_factory=set)
    papers: set = dataclasses.field(default_factory=set)
    models: set = dataclasses.field(default_factory=set)  # slugs (Row.model_slug)

    def add(self, other):
        for name in _FIELDS:
            getattr(self, name).update(getattr(other, name))

    def as_json(self):
        return {name: sorted(getattr(self, name)) for name in _FIELDS}

    @classmethod
    def from_json(cls, stored):
        return cls(**{name: set(stored.get(name, ())) for name in _FIELDS})

    @property
    def is_large(self):
        return (
            len(self.boards) > WHOLE_SITE_BOARDS
            or len(self.papers) > WHOLE_SITE_PAPERS
            or len(self.models) > WHOLE_SITE_MODELS
        )


def owed(scopes):
    """The scope the markers' stored scopes add up to, or None for the whole site
    (known at the first marker without one, or without models, or once the scope
    grows large)."""
    joined = Scope()
    for stored in scopes:
        if stored is None or "models" not in stored:
            return None
        joined.add(Scope.from_json(stored))
        if joined.is_large:
            return None
    return joined
