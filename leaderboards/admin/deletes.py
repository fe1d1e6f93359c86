"""Deletes in the admin: a superuser's (editors have no delete right).

Pages read counts and search entries kept by the end of a load and of each
editor's decision, not counted live. A delete here keeps them too, in the
delete's own transaction, so no page counts a deleted thing or links to it.
Cached pages need nothing more: the page cache's post_delete receivers retire
them once the delete commits. The planner's statistics, which a load also
refreshes, follow on their own: a few rows gone change no plan.
"""

from contextlib import contextmanager

from django.db import router, transaction

from leaderboards import search
from leaderboards.models import Leaderboard
from leaderboards.upkeep.figures import refresh_counts, refresh_leaderboards


class FiguresKeptOnDelete:
    """A ModelAdmin mixin: the delete view and the "delete selected" action keep the figures.

    Here rather than in a post_delete receiver: one refresh for a whole
    selection, not one for each row a board's deletion cascades to.
    """

    def delete_model(self, request, obj):
        with self._figures_kept(self.model._default_manager.filter(pk=obj.pk)):
            super().delete_model(request, obj)

    def delete_queryset(self, request, queryset):
        with self._figures_kept(queryset):
            super().delete_queryset(request, queryset)

    @contextmanager
    def _figures_kept(self, deleted):
        # The delete view has a transaction; the action has none of its own.
        with transaction.atomic(using=router.db_for_write(self.model)):
            # The boards that hold what is deleted; None for what boards share.
            boards, models = None, ()
            fields = {field.name for field in self.model._meta.fields}
            if "leaderboard" in fields:
                boards = sorted(set(deleted.values_list("leaderboard", flat=True)))
            if "model_slug" in fields:
                # Rows: their models, which their boards may no longer name.
                models = set(deleted.values_list("model_slug", flat=True))
            yield
            if boards is None:
                # A task, dataset, board or paper takes its names out of the
                # search: rebuilt whole, seconds at the archive's size, for an
                # act this rare.
                search.refresh_index()
            elif boards:
                # Rows, metrics, snapshots: their boards' own figures and model
                # names, as an editor's withhold refreshes them. Before the
                # catalogue's counts, which add up the boards'.
                refresh_leaderboards(boards)
                changed = Leaderboard.objects.filter(pk__in=boards)
                search.refresh_models(changed, models)
                search.refresh_board_rows(changed)
            refresh_counts()
