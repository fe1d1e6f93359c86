"""Full dumps of the site's data (issue #30): the archive's five files and the boards' page
files, written by `manage.py export_dumps`, served at /dumps/. See export.py and sets.py."""
