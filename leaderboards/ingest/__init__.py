"""Pages into the database: files read and checked (loader, prepare), written (writer).

The writer's parts: what a load is given and reports (sources), the shared
catalogue of areas, tasks, datasets and papers (catalogue), and the bulk
statements that fill a chunk's tables (tables).
"""

# Pages a transaction: the writer's chunk, and bench/raw_insert.py's. Each
# commit writes every database page the chunk changed, and on a large site a
# chunk's new rows and papers land in index pages all over: loading 15,000
# boards onto 150,000 took 151 s in chunks of 250 and 127 s in chunks of
# 1,000. An editor's decision on a board being written waits for its chunk,
# a second or two.
CHUNK = 1000
