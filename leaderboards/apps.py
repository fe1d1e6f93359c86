from django.apps import AppConfig


class LeaderboardsConfig(AppConfig):
    name = "leaderboards"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # Every process that can write (web workers, load commands, shells)
        # must retire cached pages when it changes data.
        from leaderboards.search import signals
        from leaderboards.upkeep import cache, snapshot_changes

        cache.connect_signals()
        # And compare a snapshot again when its counters are edited.
        snapshot_changes.connect_signals()
        # And leave the search when an editor withholds a paper or method.
        signals.connect_signals()
